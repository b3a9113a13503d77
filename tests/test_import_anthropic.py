"""``citelint import anthropic``: the recorded Anthropic responses of the corpus
as reports, end to end with ``capture --from-request`` and ``check``, offsets
on non-ASCII text, provider excerpts, hostile answer text, and the --out rules.

The CLI runs as a real subprocess wherever it is the thing under test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from citelint.imports import anthropic
from citelint.imports.model import Citation
from citelint.imports.write import markdown_report, quotation, resolve
from citelint.links import extract
from citelint.links.directive import directive_part, format_text_directive, parse_directives, strip_directive
from citelint.store.captures import capture_path, sha256_hex
from conftest import REPO_ROOT, corpus_path

CORPUS = ("api-citations",)
LINK = re.compile(r' \[\[(\d+)\]\]\(<?(https?://[^\s)>]+)>?(?: "(?:capture:([0-9a-f]{64}))? ?(?:pages:[0-9-]+)?")?\)')


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """``citelint argv`` as a subprocess in ``cwd``."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), NO_COLOR="1")
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "citelint", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def corpus(name: str) -> Path:
    return corpus_path(*CORPUS, name)


def responses() -> list[str]:
    root = REPO_ROOT.parent / "shared" / "corpus" / "api-citations"
    return sorted(p.name for p in root.glob("anthropic-*.response.json")) or ["(corpus missing)"]


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def links(markdown: str) -> list[tuple[int, str, str | None, str | None]]:
    """Each added link: (number, URL without fragment, quoted text or None, capture sha or None)."""
    out = []
    for n, dest, sha in LINK.findall(markdown):
        directive = directive_part(dest)
        text = None
        if directive is not None:
            # The check side's own parser reads back exactly one start term: the whole quote.
            (parsed,) = parse_directives(directive)
            assert parsed.end is None and parsed.prefix is None and parsed.suffix is None
            text = parsed.start
        out.append((int(n), strip_directive(dest), text, sha or None))
    return out


def project(root: Path, sources: list[str], labels: list[str] = (), **capture) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    data = {"sources": sources, "reports": ["reports/*.json"], "markdown": ["reports/*.md"]}
    if labels:
        data["labels"] = list(labels)
    if capture:
        data["capture"] = capture
    (root / "citelint.yaml").write_text(json.dumps(data), encoding="utf-8")
    (root / "reports").mkdir(exist_ok=True)
    return root


# --------------------------------------------------------------------------- the corpus

@pytest.mark.parametrize("name", responses())
def test_every_corpus_response_imports(name: str, tmp_path: Path) -> None:
    response = corpus(name)
    request = response.with_name(name.replace(".response.json", ".request.json"))
    data = json.loads(response.read_text(encoding="utf-8"))
    content = data["content"] if isinstance(data, dict) else data
    cited = sum(len(b.get("citations") or []) for b in content if b.get("type") == "text")
    # Every document title maps to a URL, so every citation resolves.
    titles = {c.get("document_title") or c.get("title") for b in content for c in (b.get("citations") or [])}
    (tmp_path / "map.json").write_text(json.dumps({t: f"https://example.org/{i}" for i, t in
                                                   enumerate(sorted(t for t in titles if t))} | {"0": "https://example.org/zero"}))
    argv = ["import", "anthropic", str(response), "--source-map", "map.json", "--out", "answer.md"]
    if request.exists():
        argv += ["--request", str(request)]
    run = cli(*argv, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"wrote answer.md: Markdown report: {cited} link(s) for {cited} citation(s)\n"
    written = (tmp_path / "answer.md").read_text(encoding="utf-8")
    found = links(written)
    assert [n for n, *_ in found] == list(range(1, cited + 1))
    # The answer text is all there, in order, around the links.
    assert LINK.sub("", written).rstrip("\n") == "".join(b["text"] for b in content if b.get("type") == "text")
    assert files(tmp_path) == {"map.json", "answer.md"}  # the import writes --out and nothing else
    for _, _, text, _ in found:
        assert text, "every Anthropic citation carries cited text: each link is a quotation"


def test_web_search_excerpts_are_quoted_decoded_and_uncut(tmp_path: Path) -> None:
    response = corpus("anthropic-messages-web-search.pydantic-ai.response.json")
    run = cli("import", "anthropic", str(response), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    found = links((tmp_path / "a.md").read_text(encoding="utf-8"))
    raw = [c for b in json.loads(response.read_text())["content"] for c in (b.get("citations") or [])]
    assert len(found) == len(raw) == 9
    for (_, url, text, sha), cite in zip(found, raw):
        assert url == cite["url"] and sha is None  # no capture is known: check uses the newest revision
        assert "&#" not in text and not text.endswith("...")
        expected = cite["cited_text"].replace("&#x27;", "'")
        assert expected.startswith(text) and (text == expected or expected == text + "...")
    assert "must capture https://www.accuweather.com/" in run.stderr
    assert "the trailing '...' removed" in run.stderr


def test_entities_decoded_only_with_semicolon() -> None:
    c = Citation(0, 1, "web_search_result_location", url="https://example.org/", quote="AT&T &amp; it&#x27;s &copy",
                 entities=True)
    assert quotation(c) == "AT&T & it's &copy"
    verbatim = Citation(0, 1, "char_location", quote="it&#x27;s... ")
    assert quotation(verbatim) == "it&#x27;s... "  # a document quote is compared as it is, trailing space too


def test_page_location_links_name_their_pages_and_quote_the_transformed_text(tmp_path: Path) -> None:
    response = corpus("anthropic-messages-page-location-cai-paper.cookbook.response.json")
    request = corpus("anthropic-messages-page-location-cai-paper.cookbook.request.json")
    (tmp_path / "map.yaml").write_text("Constitutional AI Paper: https://example.org/cai.pdf\n")
    run = cli("import", "anthropic", str(response), "--request", str(request), "--source-map", "map.yaml",
              "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    found = links((tmp_path / "a.md").read_text(encoding="utf-8"))
    assert len(found) == 5 and all(url == "https://example.org/cai.pdf" and sha is None and text
                                   for _, url, text, sha in found)
    assert "the operator must capture" in run.stderr and "base64 data does not decode" not in run.stdout
    # Anthropic's text layer with U+0002 removed and each whitespace run one space, nothing else.
    response_cites = [c for b in json.loads(response.read_text(encoding="utf-8"))["content"]
                      for c in b.get("citations") or []]
    raw = response_cites[0]["cited_text"]
    assert "\r\n" in raw and "\u0002" in raw
    assert found[0][2] == re.sub(r"\s+", " ", raw.replace("\u0002", ""))
    assert found[0][2].startswith("We experiment with methods for training a harmless AI assistant through "
                                  "selfimprovement, without any human labels identifying harmful outputs. The only "
                                  "human oversight is provided")
    # Each link's title names the pages its citation gives (end_page_number is exclusive).
    titles = re.findall(r' "(pages:[0-9-]+)"\)', (tmp_path / "a.md").read_text(encoding="utf-8"))
    assert titles == [f"pages:{c['start_page_number']}" if c["end_page_number"] - c["start_page_number"] <= 1
                      else f"pages:{c['start_page_number']}-{c['end_page_number'] - 1}" for c in response_cites]


def test_unresolved_sources_are_marked_reported_with_the_keys_to_map_and_fail(tmp_path: Path) -> None:
    response = corpus("anthropic-messages-char-location-tiny.langchainjs.response.json")
    run = cli("import", "anthropic", str(response), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    written = (tmp_path / "a.md").read_text()
    assert links(written) == []
    assert "- The grass is green [1: not linked]\n- The sky is blue [2: not linked]" in written
    # Both cite document 0: one line names them, and its keys, once.
    assert ('citations [1], [2]: not linked: no source URL: add "0": https://... or "My Document": https://...'
            in run.stderr)
    assert "no request given (--request)" in run.stderr
    assert run.stderr.splitlines()[-1].startswith("citelint: 2 of 2 citations not linked: pass --source-map")


# --------------------------------------------------------------------------- end to end

E2E = [
    ("anthropic-messages-char-location-tiny.langchainjs", {"0": "https://example.org/grass"}),
    ("anthropic-messages-char-location-helpcenter.cookbook", None),
    ("anthropic-messages-content-block-location-helpcenter.cookbook", None),
]


def _helpcenter_map(request: Path) -> dict[str, str]:
    docs = [b for m in json.loads(request.read_text())["messages"] for b in m["content"] if b["type"] == "document"]
    return {d["title"]: f"https://petworld.example/help/{i}" for i, d in enumerate(docs)}


@pytest.mark.parametrize("stem,mapping", E2E, ids=[s for s, _ in E2E])
def test_capture_import_check_end_to_end(stem: str, mapping: dict | None, tmp_path: Path) -> None:
    request = corpus(f"{stem}.request.json")
    response = corpus(f"{stem}.response.json")
    mapping = mapping or _helpcenter_map(request)
    root = project(tmp_path / "p", sorted(set(mapping.values())), labels=["claim-*"])
    (root / "map.json").write_text(json.dumps(mapping))
    run = cli("capture", "--from-request", "anthropic", str(request), "--source-map", "map.json",
              "--retrieved-at", "2026-12-01T00:00:00Z", cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == f"{len(mapping) if len(mapping) > 1 else 1} document(s): " \
                                          f"{len(mapping) if len(mapping) > 1 else 1} captured"
    run = cli("import", "anthropic", str(response), "--request", str(request), "--source-map", "map.json",
              "--out", "reports/answer.md", cwd=root)
    assert run.returncode == 0, run.stderr
    assert "disagree" not in run.stderr
    found = links((root / "reports" / "answer.md").read_text(encoding="utf-8"))
    assert found
    for _, url, text, sha in found:
        assert sha is not None, "the request names the capture of every quoted document"
        record = json.loads(capture_path(root / "captures", url, sha).read_text(encoding="utf-8"))
        assert record["sha256"] == sha and record["source"] == url
        assert record["batch"] == sha256_hex(request.read_bytes())
        assert text in record["text"], "the genuine quote occurs in the capture the title names"
        for at in (0, len(text) // 2, len(text) - 1):  # the same quote with one character changed does not
            changed = text[:at] + ("X" if text[at] != "X" else "Y") + text[at + 1:]
            assert changed not in record["text"]
    check = cli("check", cwd=root)
    assert check.returncode == 0, check.stdout + check.stderr
    assert re.search(rf"{len(found)} links? \({len(found)} grounded\): 0 errors", check.stdout + check.stderr)
    assert "CL204" not in check.stdout  # every genuine quote was verified against its capture

    answer = root / "reports" / "answer.md"
    genuine = answer.read_text(encoding="utf-8")
    n, url, text, sha = found[0]
    written = format_text_directive(text)
    assert written in genuine
    # One character changed: CL204 at that link, with a near-miss hint, and --fix leaves it alone.
    at = len(text) // 2
    changed = text[:at] + ("X" if text[at] != "X" else "Y") + text[at + 1:]
    answer.write_text(genuine.replace(written, format_text_directive(changed), 1), encoding="utf-8")
    check = cli("check", cwd=root)
    assert check.returncode == 1
    [finding] = [ln for ln in check.stdout.splitlines() if ": CL204 " in ln]
    assert f"quotation not found in capture {sha[:12]}… (named by the link title)" in finding
    assert f"start term character {at + 1}" in finding or f"first {at} characters of the start term occur" in finding, \
        finding
    assert cli("check", "--fix", cwd=root).returncode == 1
    assert format_text_directive(changed) in answer.read_text(encoding="utf-8")
    # The genuine quote pointed at another document the model was sent: not in that capture.
    others = [(u, s) for _, u, t, s in found if u != url and text not in
              json.loads(capture_path(root / "captures", u, s).read_text(encoding="utf-8"))["text"]]
    if others:
        other_url, other_sha = others[0]
        answer.write_text(genuine.replace(f"{url}#{written} \"capture:{sha}\"",
                                          f"{other_url}#{written} \"capture:{other_sha}\"", 1), encoding="utf-8")
        check = cli("check", cwd=root)
        assert check.returncode == 1
        [finding] = [ln for ln in check.stdout.splitlines() if ": CL204 " in ln]
        assert f"quotation not found in capture {other_sha[:12]}… (named by the link title)" in finding
    answer.write_text(genuine, encoding="utf-8")

    # The same citations as a fact report are verified by check itself (CL104 on a change).
    run = cli("import", "anthropic", str(response), "--request", str(request), "--source-map", "map.json",
              "--as", "facts", "--out", "reports/answer.json", cwd=root)
    assert run.returncode == 0, run.stderr
    report = json.loads((root / "reports" / "answer.json").read_text(encoding="utf-8"))
    assert [f["label"] for f in report["facts"]] == [f"claim-{n}" for n in range(1, len(found) + 1)]
    assert [f["snippet"] for f in report["facts"]] == [t for _, _, t, _ in found]
    check = cli("check", "--format", "json", cwd=root)
    assert check.returncode == 0, check.stdout
    fact = report["facts"][0]
    fact["snippet"] = fact["snippet"][:5] + "X" + fact["snippet"][6:]
    (root / "reports" / "answer.json").write_text(json.dumps(report), encoding="utf-8")
    check = cli("check", cwd=root)
    assert check.returncode == 1 and "CL104" in check.stdout


def test_request_capture_names_what_import_names_for_content_blocks() -> None:
    # Cited content blocks are joined with no separator, as cited_text is: the
    # content-block citation of the help center quotes one whole block.
    name = "anthropic-messages-content-block-location-helpcenter.cookbook"
    request = json.loads(corpus(f"{name}.request.json").read_text())
    response = json.loads(corpus(f"{name}.response.json").read_text())
    got = anthropic.answer(response, request=request)
    (c,) = got.citations
    block = request["messages"][0]["content"][3]["source"]["content"][0]["text"]
    assert c.document == 3 and c.quote == block and c.capture == sha256_hex(block) and not c.notes


# --------------------------------------------------------------------------- offsets

DOC = "Café 😀 menu. The grass is green. The sky is blue."
QUOTE = "The grass is green. "


def _pair(start: int, end: int, doc: str = DOC) -> tuple[dict, dict]:
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": doc},
         "title": "Menu", "citations": {"enabled": True}},
        {"type": "text", "text": "What colour is the grass?"}]}]}
    response = {"content": [{"type": "text", "text": "Über: "},
                            {"type": "text", "text": "the grass is green", "citations": [
                                {"type": "char_location", "cited_text": QUOTE, "document_index": 0,
                                 "document_title": "Menu", "start_char_index": start, "end_char_index": end}]}]}
    return request, response


def test_offsets_in_code_points_on_non_ascii_text() -> None:
    start = DOC.index(QUOTE)
    got = anthropic.answer(_pair(start, start + len(QUOTE))[1], request=_pair(0, 0)[0])
    (c,) = got.citations
    assert (c.start, c.end) == (6, 24)  # code points of the answer: "Über: " is 6
    assert c.notes == (f"offsets {start}-{start + len(QUOTE)} match counted in code points",) and not got.warnings


def test_offsets_in_utf16_units_on_non_ascii_text() -> None:
    start = len(DOC[:DOC.index(QUOTE)].encode("utf-16-le")) // 2
    assert start == DOC.index(QUOTE) + 1  # the emoji is two UTF-16 code units
    got = anthropic.answer(_pair(start, start + len(QUOTE))[1], request=_pair(0, 0)[0])
    assert got.citations[0].notes == (f"offsets {start}-{start + len(QUOTE)} match counted in UTF-16 code units",)


def test_offsets_that_match_neither_unit_are_reported(tmp_path: Path) -> None:
    request, response = _pair(2, 2 + len(QUOTE))
    (tmp_path / "req.json").write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "resp.json").write_text(json.dumps(response, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "map.json").write_text('{"0": "https://example.org/menu"}')
    run = cli("import", "anthropic", "resp.json", "--request", "req.json", "--source-map", "map.json",
              "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0
    assert "offsets disagree: the document text [2:22] is not the cited text (which occurs elsewhere" in run.stderr
    assert "offsets 2-22 of document 0 \"Menu\" disagree with the cited text" in run.stderr
    # The quotation still quotes the cited text: check judges it, the import does not hide it.
    assert links((tmp_path / "a.md").read_text(encoding="utf-8"))[0][2] == QUOTE


def test_ascii_offsets_match_both_units_silently() -> None:
    doc = "The grass is green. The sky is blue."
    got = anthropic.answer(_pair(0, 20, doc)[1], request=_pair(0, 0, doc)[0])
    assert got.citations[0].notes == () and got.warnings == []


# --------------------------------------------------------------------------- hostile answers

HOSTILE = [
    "see [this `code",          # an open bracket and an open code span before the link
    "a <!-- comment",           # an HTML comment that would swallow what follows
    "[model link](https://example.net/x",  # a link destination left open
    "ends in a backslash \\",
    "    indented code block",
    "```\nfenced",
    "text ](https://example.net/y)",
    "<a href='https://example.net/z'>",
]


@pytest.mark.parametrize("span", HOSTILE)
def test_hostile_answer_text_cannot_break_the_links(span: str) -> None:
    request, response = _pair(0, 0, doc="The grass is green. ")
    response["content"] = [{"type": "text", "text": span, "citations": [
        {"type": "char_location", "cited_text": QUOTE, "document_index": 0, "start_char_index": 0,
         "end_char_index": 20}]}, {"type": "text", "text": " and after ) ] `"}]
    got = anthropic.answer(response, request=request)
    written = markdown_report(got, {"0": "https://example.org/menu"})
    ours = [link for link in extract(written.text) if link.text == "[1]"]
    assert len(ours) == 1 and ours[0].href.startswith("https://example.org/menu#:~:text=")
    assert unquote(ours[0].href.split(":~:text=")[1]) == QUOTE
    model_own = sorted(link.href for link in extract(got.text))
    assert sorted(link.href for link in extract(written.text) if link.text != "[1]") == model_own


def test_escaping_is_reported_and_plain_markdown_is_kept() -> None:
    request, response = _pair(0, 0, doc="The grass is green. ")
    response["content"] = [{"type": "text", "text": "**Bold** claim", "citations": [
        {"type": "char_location", "cited_text": QUOTE, "document_index": 0, "start_char_index": 0,
         "end_char_index": 20}]}]
    written = markdown_report(anthropic.answer(response, request=request), {"0": "https://example.org/menu"})
    assert written.text.startswith("**Bold** claim [[1]](https://example.org/menu#:~:text=")
    assert not any("escaped" in m for m in written.messages)
    response["content"][0]["text"] = "see `code"
    response["content"].append({"type": "text", "text": " and ` later"})
    written = markdown_report(anthropic.answer(response, request=request), {"0": "https://example.org/menu"})
    assert written.text.startswith("see \\`code [[1]]") and any("escaped" in m for m in written.messages)


def test_redirect_urls_are_reported_with_how_to_map_them() -> None:
    c = Citation(0, 1, "grounding_chunk", url="https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC",
                 title="example.com", document=2)
    r = resolve(c, {})
    assert r.redirect and r.url == c.url and 'add "2": https://...' in r.problem and "redirect" in r.problem
    assert resolve(c, {"example.com": "https://example.com/page"}).url == "https://example.com/page"


# --------------------------------------------------------------------------- input and output

def test_malformed_json_is_a_positioned_error(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text('{"content": [\n  {"type": "text",, }]}')
    run = cli("import", "anthropic", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr == "citelint: r.json:2:19: expecting a property name in double quotes\n"
    assert files(tmp_path) == {"r.json"}


def test_shape_errors_name_the_json_path(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(json.dumps({"content": [{"type": "text", "text": "x", "citations": [
        {"type": "char_location", "cited_text": "x", "start_char_index": -1}]}]}))
    (tmp_path / "q.json").write_text(json.dumps({"messages": []}))
    run = cli("import", "anthropic", "r.json", "--request", "q.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2
    assert "r.json: content[0].citations[0].start_char_index is negative (-1)" in run.stderr
    (tmp_path / "q.json").write_text(json.dumps({"messages": [{"content": [{"type": "document", "source": 3}]}]}))
    run = cli("import", "anthropic", "r.json", "--request", "q.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2
    assert "citelint: q.json: messages[0].content[0].source: a document block without a source object" in run.stderr
    assert not (tmp_path / "a.md").exists()


def test_lone_surrogates_are_refused_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text('{"content": [{"type": "text", "text": "a", "citations": [{"type": '
                                     '"web_search_result_location", "url": "https://example.org/", '
                                     '"cited_text": "bad \\ud800 quote"}]}]}')
    run = cli("import", "anthropic", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("citelint: r.json:1:142: the string holds a lone surrogate")
    (tmp_path / "r.json").write_text('{"content": [{"type": "text", "text": "\\udc00"}]}')
    run = cli("import", "anthropic", "r.json", "--out", "b.md", cwd=tmp_path)
    assert run.returncode == 2 and "lone surrogate" in run.stderr and not files(tmp_path) - {"r.json"}
    # An adapter handing on such a text (another loader) still gets no link quoting it.
    c = Citation(0, 1, "web_search_result_location", url="https://example.org/", quote="bad \ud800", entities=True)
    from citelint.imports.model import Answer
    written = markdown_report(Answer("anthropic", "a", [c]), {})
    assert links(written.text) == [(1, "https://example.org/", None, None)]
    assert any("lone surrogates" in m for m in written.messages)


def test_source_map_values_must_be_web_urls(tmp_path: Path) -> None:
    response = corpus("anthropic-messages-char-location-tiny.langchainjs.response.json")
    (tmp_path / "map.yaml").write_text("0: javascript:alert(1)\n")
    run = cli("import", "anthropic", str(response), "--source-map", "map.yaml", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and "the URL of '0' is not an absolute http(s) URL" in run.stderr
    (tmp_path / "map.yaml").write_text("0: https://example.org/doc\n")  # a YAML key 0 is the string "0"
    run = cli("import", "anthropic", str(response), "--source-map", "map.yaml", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0 and len(links((tmp_path / "a.md").read_text())) == 2


def test_out_is_never_overwritten_without_force_nor_written_through_a_symlink(tmp_path: Path) -> None:
    response = str(corpus("anthropic-messages-web-search.vercel-ai.response.json"))
    (tmp_path / "a.md").write_text("keep me\n")
    run = cli("import", "anthropic", response, "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and "exists; use --force" in run.stderr
    assert (tmp_path / "a.md").read_text() == "keep me\n"
    run = cli("import", "anthropic", response, "--out", "a.md", "--force", cwd=tmp_path)
    assert run.returncode == 0 and (tmp_path / "a.md").read_text().startswith("Let me search")
    (tmp_path / "target.md").write_text("target\n")
    (tmp_path / "link.md").symlink_to("target.md")
    for extra in ([], ["--force"]):
        run = cli("import", "anthropic", response, "--out", "link.md", *extra, cwd=tmp_path)
        assert run.returncode == 2 and "is a symlink" in run.stderr
    assert (tmp_path / "target.md").read_text() == "target\n"
    (tmp_path / "dir.md").mkdir()
    run = cli("import", "anthropic", response, "--out", "dir.md", "--force", cwd=tmp_path)
    assert run.returncode == 2 and "not a regular file" in run.stderr
    run = cli("import", "anthropic", response, "--out", "nowhere/a.md", cwd=tmp_path)
    assert run.returncode == 2 and "does not exist" in run.stderr
    assert not any(name.startswith(".tmp-") for name in files(tmp_path))


def test_facts_without_any_capture_write_nothing(tmp_path: Path) -> None:
    response = str(corpus("anthropic-messages-web-search.vercel-ai.response.json"))
    run = cli("import", "anthropic", response, "--as", "facts", "--out", "a.json", cwd=tmp_path)
    assert run.returncode == 2 and "no citation can be a fact" in run.stderr
    assert "not a fact: no capture is known" in run.stderr and not (tmp_path / "a.json").exists()


def test_saved_stream(tmp_path: Path) -> None:
    stream = str(corpus("anthropic-messages-web-search-stream.pydantic-ai.response.sse.txt"))
    run = cli("import", "anthropic", stream, "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert links((tmp_path / "a.md").read_text(encoding="utf-8"))


def test_help_has_examples(tmp_path: Path) -> None:
    run = cli("import", "--help", cwd=tmp_path)
    assert run.returncode == 0 and "examples:" in run.stdout and "--source-map" in run.stdout
    assert "citelint import perplexity response.json" in run.stdout
    assert "citelint import cohere response.json" in run.stdout and "--allow-unlinked" in run.stdout
    assert "1 it was\nwritten, but citations are not linked (0 with --allow-unlinked)" in run.stdout
    run = cli("import", "anthropic", "r.json", cwd=tmp_path)
    assert run.returncode == 2 and "--out" in run.stderr


def test_urls_with_parentheses_and_fragments_stay_one_link() -> None:
    from citelint.imports.model import Answer

    c = Citation(0, 5, "web_search_result_location", url="https://en.wikipedia.org/wiki/Foo_(bar)#History",
                 quote="it&#x27;s (a), test-case...", truncated=True, entities=True)
    written = markdown_report(Answer("anthropic", "Hello world", [c]), {})
    assert written.text.startswith("Hello [[1]](<https://en.wikipedia.org/wiki/Foo_(bar)#History:~:text=")
    (link,) = extract(written.text)
    assert strip_directive(link.href) == "https://en.wikipedia.org/wiki/Foo_(bar)#History"
    assert parse_directives(directive_part(link.href))[0].start == "it's (a), test-case"
