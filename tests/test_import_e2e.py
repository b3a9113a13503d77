"""Every recorded response of the corpus through ``citelint import`` and then
``citelint check``, as a user runs them: OpenAI and Gemini citations governed
as links, provider query noise ignored only when asked, and quotations whose
page text the corpus lacks (PDF pages, encrypted web-search pages) ungrounded
until the operator captures the source, then verified against that capture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import CORPUS
from test_import_anthropic import cli, links

API = CORPUS / "api-citations"
VENDOR = {"anthropic": "anthropic", "openai": "openai", "openrouter": "openai", "gemini": "gemini",
          "gemini3": "gemini", "perplexity": "perplexity", "xai": "openai"}
UNLINKED_MARK = re.compile(r"\[(\d+): not linked\]")
SUMMARY = re.compile(r"^citelint: (\d+) of (\d+) citations not linked: pass --source-map", re.M)


def recorded() -> list[str]:
    names = sorted(p.name for p in API.glob("*.response.*") if re.search(r"\.response\.(json|sse\.txt|chunks\.txt)$",
                                                                        p.name))
    return names or ["(corpus missing)"]


def project(root: Path, sources: list[str] = (), **links_settings: object) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    data: dict = {"sources": list(sources), "markdown": ["reports/*.md"], "reports": ["reports/*.json"]}
    if links_settings:
        data["links"] = links_settings
    (root / "citelint.yaml").write_text(json.dumps(data), encoding="utf-8")
    (root / "reports").mkdir(exist_ok=True)
    return root


def capture_text(root: Path, source: str, text: str) -> None:
    (root / "page.txt").write_text(text, encoding="utf-8")
    run = cli("capture", "--from-file", "page.txt", "--source", source, "--retrieved-at", "2026-12-01T00:00:00Z",
              cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
    (root / "page.txt").unlink()


@pytest.mark.parametrize("name", recorded())
def test_every_recorded_response_imports_and_checks_without_error(name: str, tmp_path: Path) -> None:
    if not API.is_dir():
        pytest.skip("shared corpus not available (a plain clone has no ../shared)")
    vendor = VENDOR[name.split("-", 1)[0]]
    root = project(tmp_path / "p")
    run = cli("import", vendor, str(API / name), "--out", "reports/answer.md", cwd=root)
    assert "Traceback" not in run.stderr
    # Without a source map, citations of documents the response names no URL for are not linked:
    # each is marked in the report, counted in the last line, and the import fails; no other exit.
    assert run.returncode in (0, 1), run.stderr
    written = (root / "reports" / "answer.md").read_text(encoding="utf-8")
    marks = UNLINKED_MARK.findall(written)
    summary = SUMMARY.search(run.stderr)
    if run.returncode == 1:
        assert summary and int(summary.group(1)) == len(marks) > 0, run.stderr
        assert run.stderr.splitlines()[-1].startswith(summary.group(0))
        # Each is named once on a "not linked" line (citations of one source share a line).
        named = re.findall(r"^citelint: citations? ((?:\[\d+\](?:, )?)+): not linked: ", run.stderr, re.M)
        assert sum(group.count("[") for group in named) == len(marks), run.stderr
        allowed = cli("import", vendor, str(API / name), "--out", "reports/answer.md", "--force",
                      "--allow-unlinked", cwd=root)
        assert allowed.returncode == 0, allowed.stderr
        assert (root / "reports" / "answer.md").read_text(encoding="utf-8") == written
    else:
        assert not marks and not summary, run.stderr
    check = cli("check", "--format", "json", cwd=root)
    assert check.returncode in (0, 1), check.stderr
    findings = json.loads(check.stdout)["findings"]
    # Nothing is captured: each link the import wrote, or the model wrote, is ungrounded
    # (CL201) or unvouchable (CL202: OpenAI's sandbox: file links); nothing else can go wrong.
    assert {f["rule"] for f in findings} <= {"CL201", "CL202"}, findings


def test_openai_links_are_grounded_once_captured_with_query_noise_ignored(tmp_path: Path) -> None:
    response = API / "openai-responses-web-search.pydantic-ai.response.json"
    if not response.exists():
        pytest.skip("shared corpus not available")
    url = "https://apnews.com/article/aad7af5ddfb56b7484fa9db591297c9e"
    root = project(tmp_path / "p", [url])
    capture_text(root, url, "Sushila Karki is sworn in as interim prime minister of Nepal.")
    run = cli("import", "openai", str(response), "--out", "reports/answer.md", cwd=root)
    assert run.returncode == 0, run.stderr
    # The model's own links are the citations: none added, none dropped, and the line says so.
    assert run.stdout == "wrote reports/answer.md: Markdown report: 0 link(s) (and 3 of the model's own, kept) " \
                         "for 3 citation(s)\n"
    written = (root / "reports" / "answer.md").read_text(encoding="utf-8")
    assert f"({url}?utm_source=openai)" in written  # the model's own link, kept as it wrote it
    strict = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    assert [f["rule"] for f in strict["findings"]] == ["CL201"] * 3  # ?utm_source=openai is another URL
    project(root, [url], ignore_query_params=["utm_source"])
    loose = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    ungrounded = [f for f in loose["findings"] if f["rule"] == "CL201"]
    assert len(ungrounded) == 2 and all("apnews.com" not in f["message"] for f in ungrounded)
    assert loose["counts"]["linksGrounded"] == 1


def test_web_search_quotes_are_ungrounded_until_captured_then_verified(tmp_path: Path) -> None:
    """The page behind an Anthropic web-search citation travels encrypted: the quotation
    link is CL201 (capture the source) until the operator captures the page; then the
    excerpt, its trailing "..." cut and its entities decoded, must occur in that capture."""
    response = API / "anthropic-messages-web-search.vercel-ai.response.json"
    if not response.exists():
        pytest.skip("shared corpus not available")
    root = project(tmp_path / "p")
    assert cli("import", "anthropic", str(response), "--out", "reports/answer.md", cwd=root).returncode == 0
    found = links((root / "reports" / "answer.md").read_text(encoding="utf-8"))
    assert found and all(text and sha is None for _, _, text, sha in found)
    check = cli("check", cwd=root)
    assert check.returncode == 1
    cl201 = [ln for ln in check.stdout.splitlines() if ": CL201 " in ln]
    assert len(cl201) == len(found) and all("capture the source" in ln for ln in cl201)

    n, url, text, _ = found[0]
    project(root, [url])
    capture_text(root, url, f"Page header.\n{text} And the rest of the article.\n")
    check = cli("check", "--format", "json", cwd=root)
    findings = json.loads(check.stdout)["findings"]
    # CL206 aside: this capture holds the excerpt alone, not the figures of the sentence around it.
    assert not [f for f in findings if f["rule"] != "CL206" and (url in f["message"] or f["rule"] == "CL204")], \
        findings
    # A page that does not hold the excerpt: the quotation is rejected, not merely linked.
    other = project(tmp_path / "q", [url])
    (other / "reports" / "answer.md").write_text((root / "reports" / "answer.md").read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    capture_text(other, url, "A page that says something else entirely.\n")
    check = cli("check", cwd=other)
    assert check.returncode == 1 and any(": CL204 " in ln for ln in check.stdout.splitlines())


def test_pdf_page_quotes_stay_ungrounded_and_say_how_to_capture(tmp_path: Path) -> None:
    response = API / "anthropic-messages-page-location-cai-paper.cookbook.response.json"
    if not response.exists():
        pytest.skip("shared corpus not available")
    root = project(tmp_path / "p")
    (root / "map.json").write_text(json.dumps({"Constitutional AI Paper": "https://arxiv.org/pdf/2212.08073"}))
    run = cli("import", "anthropic", str(response), "--source-map", "map.json", "--out", "reports/answer.md",
              cwd=root)
    assert run.returncode == 0 and "capture" in run.stderr
    found = links((root / "reports" / "answer.md").read_text(encoding="utf-8"))
    assert found and {url for _, url, _, _ in found} == {"https://arxiv.org/pdf/2212.08073"}
    check = cli("check", cwd=root)
    cl201 = [ln for ln in check.stdout.splitlines() if ": CL201 " in ln]
    assert check.returncode == 1 and len(cl201) == len(found)
    assert all("capture the source (list it in `sources` and run `citelint capture`)" in ln for ln in cl201)
