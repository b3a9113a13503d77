"""Imports fail loudly (issue 23): a citation the import can give no source URL
is marked in the report, named on standard error with the fix, and fails the
import (exit 1) unless ``--allow-unlinked``; with ``--as facts`` it is an
``unavailable`` fact. A citation with a URL but no capture is linked, and
``check`` reports it (CL201). Recorded responses of the corpus, as a user runs them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from citelint.imports.model import Answer, Citation
from citelint.imports.write import markdown_report
from citelint.links.render import GITHUB_EXTENSIONS, render_html
from test_import_anthropic import cli, corpus, files, links, project

TINY = "anthropic-messages-char-location-tiny.langchainjs.response.json"
HELPCENTER = "anthropic-messages-char-location-helpcenter.cookbook"


def test_anthropic_answer_without_source_map_exits_1_with_both_citations_marked(tmp_path: Path) -> None:
    run = cli("import", "anthropic", str(corpus(TINY)), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert run.stdout == "wrote a.md: Markdown report: 0 link(s) for 2 citation(s), 2 not linked\n"
    assert (tmp_path / "a.md").read_text() == ("Based on the document, I can tell you that:\n\n"
                                               "- The grass is green [1: not linked]\n"
                                               "- The sky is blue [2: not linked]\n")
    last = run.stderr.splitlines()[-1]
    assert last.startswith("citelint: 2 of 2 citations not linked: pass --source-map FILE")
    assert "--allow-unlinked" in last


def test_allow_unlinked_writes_the_same_marked_report_and_exits_0(tmp_path: Path) -> None:
    run = cli("import", "anthropic", str(corpus(TINY)), "--allow-unlinked", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "a.md").read_text().count(": not linked]") == 2
    assert run.stderr.splitlines()[-1] == ("citelint: 2 of 2 citations not linked (--allow-unlinked): each is "
                                           "marked [n: not linked] in the report")


def test_a_source_map_links_them(tmp_path: Path) -> None:
    response = corpus(f"{HELPCENTER}.response.json")
    request = corpus(f"{HELPCENTER}.request.json")
    run = cli("import", "anthropic", str(response), "--request", str(request), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1
    assert 'not linked: no source URL: add "3": https://... or "Order Tracking Information": https://...' \
        in run.stderr  # the request tied the citation to its document 3
    (tmp_path / "map.json").write_text(json.dumps({"Order Tracking Information": "https://example.org/t"}))
    run = cli("import", "anthropic", str(response), "--request", str(request), "--source-map", "map.json",
              "--out", "a.md", "--force", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "not linked" not in run.stderr + (tmp_path / "a.md").read_text()
    assert [url for _, url, _, _ in links((tmp_path / "a.md").read_text())] == ["https://example.org/t"] * 2


def test_as_facts_an_unlinked_citation_is_an_unavailable_fact_that_checks(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [], labels=["claim-*"])
    run = cli("import", "anthropic", str(corpus(TINY)), "--as", "facts", "--out", "reports/a.json", cwd=root)
    assert run.returncode == 1, run.stderr
    assert run.stdout == ("wrote reports/a.json: fact report: 0 cited fact(s) for 2 citation(s), "
                          "2 not linked (unavailable facts)\n")
    facts = json.loads((root / "reports" / "a.json").read_text())["facts"]
    assert [(f["state"], f["label"]) for f in facts] == [("unavailable", "claim-1"), ("unavailable", "claim-2")]
    assert facts[0]["reason"] == ('citation [1] is not linked: the import found no source URL for it '
                                  '(map "0" or "My Document" to its URL with --source-map)')
    assert "https://" not in facts[0]["reason"]  # a reason, nothing that looks like a citation
    check = cli("check", cwd=root)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_url_without_a_capture_is_linked_not_an_import_failure(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [])
    response = corpus("openrouter-chat-completions-web-search.pydantic-ai.response.json")
    run = cli("import", "openai", str(response), "--out", "reports/a.md", cwd=root)
    assert run.returncode == 0 and "not linked" not in run.stderr
    check = cli("check", "--format", "json", cwd=root)
    assert {f["rule"] for f in json.loads(check.stdout)["findings"]} == {"CL201"}


def test_unusable_provider_urls_are_not_linked(tmp_path: Path) -> None:
    """Gemini's web search named some sources by a URL with a space in it: no link can be written."""
    response = corpus("gemini-generate-content-google-search.pydantic-ai.response.json")
    run = cli("import", "gemini", str(response), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1
    assert "not linked: the provider's URL holds a space or a control character" in run.stderr
    assert run.stderr.splitlines()[-1].startswith("citelint: 3 of 6 citations not linked")
    assert len(re.findall(r"\[\d+: not linked\]", (tmp_path / "a.md").read_text())) == 3


def _visible(markdown: str) -> str:
    html = render_html(markdown, GITHUB_EXTENSIONS, True, sourcepos=False)
    return re.sub(r"<[^>]*(?:>|\Z)", "", re.sub(r"<!--.*?(?:-->|\Z)", "", html, flags=re.S))


def test_a_mark_the_answer_would_hide_is_kept_visible_by_escaping() -> None:
    # Constructed: a span that ends inside an HTML block (a comment the model never closed,
    # which runs to the end of the document) would hide the mark.
    text = "The grass is green.\n<!-- a comment the model never closed"
    answer = Answer("anthropic", text, [Citation(0, len(text), "char_location", quote="green")])
    written = markdown_report(answer, {})
    assert written.unlinked == (1,)
    assert "[1: not linked]" in _visible(written.text)
    assert any("escaped" in m for m in written.messages)
    # A mark that renders as it is needs no escaping.
    plain = markdown_report(Answer("anthropic", "Green.", [Citation(0, 6, "char_location", quote="x")]), {})
    assert plain.text == "Green. [1: not linked]\n" and not any("escaped" in m for m in plain.messages)


def test_nothing_but_out_is_written(tmp_path: Path) -> None:
    run = cli("import", "anthropic", str(corpus(TINY)), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1 and files(tmp_path) == {"a.md"}


GEMINI_SEARCH = "gemini-generate-content-google-search.pydantic-ai.response.json"


def test_gemini_redirect_key_is_suggested_whole_once_and_links_when_copied(tmp_path: Path) -> None:
    # The key `import` suggests for a redirect was cut to 80 characters and, copied into a
    # map, linked nothing; each redirect citation was reported twice, once per citation.
    run = cli("import", "gemini", str(corpus(GEMINI_SEARCH)), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    redirect = "the provider's URL is a redirect to the source, not the source: add "
    lines = [line for line in run.stderr.splitlines() if redirect in line]
    assert [line.split(":", 2)[1] for line in lines] == [" citations [3], [5]", " citation [4]"]
    assert "grounding-api-redirect), not the source" not in run.stderr  # the adapter's duplicate note
    keys = re.findall(r'("(?:[^"\\]|\\.)*"): https://\.\.\.', lines[0])
    assert len(keys) == 2 and run.stderr.count(keys[1]) == 1
    key = json.loads(keys[1])
    assert key.startswith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/") and len(key) > 150
    (tmp_path / "map.yaml").write_text(f"{keys[1]}: https://example.org/weather\n", encoding="utf-8")
    run = cli("import", "gemini", str(corpus(GEMINI_SEARCH)), "--source-map", "map.yaml", "--out", "a.md",
              "--force", cwd=tmp_path)
    assert [n for n, url, _, _ in links((tmp_path / "a.md").read_text()) if url == "https://example.org/weather"] \
        == [3, 5]
    assert "citations [3], [5]" not in run.stderr and "matched no citation" not in run.stderr


def test_a_source_map_entry_that_links_nothing_is_warned_about(tmp_path: Path) -> None:
    cut = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQF_uqo2G5Goe"
    (tmp_path / "map.json").write_text(json.dumps({cut: "https://example.org/weather"}))
    run = cli("import", "gemini", str(corpus(GEMINI_SEARCH)), "--source-map", "map.json", "--out", "a.md",
              cwd=tmp_path)
    assert run.returncode == 1
    assert f'citelint: source map entry "{cut}" matched no citation: it linked nothing' in run.stderr
    assert "https://example.org/weather" not in (tmp_path / "a.md").read_text()


def test_out_where_check_never_looks_is_warned_about(tmp_path: Path) -> None:
    # `--out answer.md` outside the config's globs exited 0 without a word, and check skipped it.
    root = project(tmp_path / "p", [])
    run = cli("import", "anthropic", str(corpus(TINY)), "--allow-unlinked", "--out", "answer.md", cwd=root)
    assert run.returncode == 0, run.stderr
    assert ("citelint: warning: --out answer.md: matches none of the config's `reports` or `markdown` globs, so "
            "citelint check will not check it; write it where the config's `markdown` globs match "
            "(reports/*.md)") in run.stderr
    assert "skipped answer.md: matches none" in cli("check", "answer.md", cwd=root).stderr  # as the warning said
    run = cli("import", "anthropic", str(corpus(TINY)), "--allow-unlinked", "--out", "reports/a.md", cwd=root)
    assert run.returncode == 0 and "warning: --out" not in run.stderr, run.stderr
    run = cli("import", "anthropic", str(corpus(TINY)), "--as", "facts", "--allow-unlinked", "--out",
              "facts.json", cwd=root)
    assert run.returncode == 0 and "the config's `reports` globs match (reports/*.json)" in run.stderr
    bare = tmp_path / "bare"  # no project at all: check has no config to check it with
    bare.mkdir()
    run = cli("import", "anthropic", str(corpus(TINY)), "--allow-unlinked", "--out", str(bare / "a.md"), cwd=root)
    assert run.returncode == 0 and f"--out {bare / 'a.md'}: no citelint config is found from its folder up" \
        in run.stderr, run.stderr


def test_out_suffix_that_contradicts_as_is_refused_and_nothing_written(tmp_path: Path) -> None:
    # `--out reports/x.json --as markdown` wrote Markdown that check then failed to parse (CL001).
    root = project(tmp_path / "p", [])
    for as_, out, says in (("markdown", "reports/x.json", "a .json file is checked as a fact report"),
                           ("markdown", "reports/x.YML", "a .yml file is checked as a fact report"),
                           ("facts", "reports/x.md", "citelint check reads only from a .json, .yaml or .yml"),
                           ("facts", "reports/x", "citelint check reads only from a .json, .yaml or .yml")):
        run = cli("import", "anthropic", str(corpus(TINY)), "--as", as_, "--out", out, cwd=root)
        assert run.returncode == 2 and run.stderr.startswith(f"citelint: --out {out}: ") and says in run.stderr
        assert not (root / out).exists()
    assert not (root / "reports").exists() or not list((root / "reports").iterdir())


def test_an_interactions_redirect_is_never_mapped_by_its_domain_title(tmp_path: Path) -> None:
    # Its title is only the site's domain, a key every page of that site shares.
    name = "gemini-interactions-google-search.vercel-ai.response.json"
    titles = {a["title"] for step in json.loads(corpus(name).read_text())["steps"] for item in step.get("content", [])
              for a in item.get("annotations", [])}
    run = cli("import", "gemini", str(corpus(name)), "--out", "a.md", cwd=tmp_path)
    lines = [line for line in run.stderr.splitlines() if "is a redirect to the source" in line]
    assert lines and titles
    assert all(json.dumps(t) not in line for line in lines for t in titles), lines
    only_url = re.compile(r': add "https://vertexaisearch[^"]+": https://\.\.\. to the source map')
    assert all(only_url.search(line) for line in lines)
