"""``citelint capture --from-request anthropic``: each document a request sent,
recorded as one batch of v2 captures through the same writer and checks as
``--from-file``, named exactly as ``citelint import`` names them, and
reproducible by ``capture --verify-extraction``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from citelint import __version__
from citelint.imports import anthropic
from citelint.store.captures import Store, capture_path, raw_path, sha256_hex
from conftest import corpus_path, run_cli
from test_import_anthropic import cli, links, project

STAMP = "2026-12-01T10:00:00Z"
GUIDE = "https://example.org/guide"
FAQ = "https://example.org/faq"
KB = "https://kb.example.org/article/7"


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def request_with_everything() -> dict:
    """Two documents in two messages (text and custom content), a search
    result at the top level and one inside a tool result."""
    return {"model": "m", "messages": [
        {"role": "user", "content": [
            {"type": "document", "title": "Guide", "source": {"type": "text", "media_type": "text/plain",
                                                              "data": "Ünïcode guide. Step one: plug it in. "}},
            {"type": "search_result", "source": KB, "title": "KB 7",
             "content": [{"type": "text", "text": "Resets take "}, {"type": "text", "text": "ten minutes."}]},
            {"type": "text", "text": "Question?"}]},
        {"role": "assistant", "content": "Let me look."},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "search_result", "source": "internal://faq/2", "title": "FAQ 2",
                 "content": [{"type": "text", "text": "Returns are free."}]}]},
            {"type": "document", "title": "FAQ", "source": {"type": "content", "content": [
                {"type": "text", "text": "Q: Is it safe?"}, {"type": "text", "text": " A: Yes."}]}}]}]}


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = project(tmp_path / "p", [GUIDE, FAQ, KB, "https://example.org/faq2"])
    write_json(root / "req.json", request_with_everything())
    (root / "map.yaml").write_text('"0": https://example.org/guide\nFAQ: https://example.org/faq\n'
                                   '"internal://faq/2": https://example.org/faq2\n', encoding="utf-8")
    return root


def capture(root: Path, *extra: str) -> object:
    return run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.yaml",
                   "--retrieved-at", STAMP, *extra, cwd=root)


def test_every_document_becomes_one_batch_of_v2_captures(proj: Path) -> None:
    run = capture(proj)
    assert run.code == 0, run.out + run.err
    request_bytes = (proj / "req.json").read_bytes()
    digest = sha256_hex(request_bytes)
    texts = {GUIDE: "Ünïcode guide. Step one: plug it in. ", KB: "Resets take ten minutes.",
             "https://example.org/faq2": "Returns are free.", FAQ: "Q: Is it safe? A: Yes."}
    def line(label: str, source: str) -> str:
        text = texts[source]
        return f"{label}: captured: {source} revision {sha256_hex(text)} ({len(text.encode())} bytes)"

    assert run.lines == [line('document 0 "Guide"', GUIDE), line('search result 0 "KB 7"', KB),
                         line('search result 1 "FAQ 2"', "https://example.org/faq2"),
                         line('document 1 "FAQ"', FAQ), "4 document(s): 4 captured"]
    kinds = {GUIDE: ("document", 0, "text"), KB: ("search_result", 0, "search_result"),
             "https://example.org/faq2": ("search_result", 1, "search_result"), FAQ: ("document", 1, "content")}
    for source, text in texts.items():
        record = json.loads(capture_path(proj / "captures", source, sha256_hex(text)).read_text())
        assert record["format"] == "citelint.capture/2" and record["text"] == text
        assert record["retrievedAt"] == STAMP and record["contentType"] == "text/plain"
        assert record["rawSha256"] == record["batch"] == digest
        kind, index, block = kinds[source]
        assert record["extractor"] == {"name": "anthropic-request", "version": __version__, "options": {
            "documentKind": kind, "index": index, "blockType": block, "mediaType": "text/plain"}}
        assert raw_path(proj / "captures", source, digest).read_bytes() == request_bytes
        assert Store(proj / "captures").lookup(source, sha256_hex(text)).batch == digest
    # Again: nothing is replaced.
    again = capture(proj)
    assert again.code == 0 and again.lines[-1] == "4 document(s): 4 already captured"


def test_import_names_the_captures_the_request_recorded(proj: Path) -> None:
    assert capture(proj).code == 0
    response = {"content": [
        {"type": "text", "text": "Plug it in", "citations": [
            {"type": "char_location", "cited_text": "Step one: plug it in. ", "document_index": 0,
             "document_title": "Guide", "start_char_index": 15, "end_char_index": 37}]},
        {"type": "text", "text": "; resets take ten minutes", "citations": [
            {"type": "search_result_location", "cited_text": "Resets take ten minutes.", "source": KB,
             "title": "KB 7", "search_result_index": 0, "start_block_index": 0, "end_block_index": 2}]},
        {"type": "text", "text": "; returns are free", "citations": [
            {"type": "search_result_location", "cited_text": "Returns are free.", "source": "internal://faq/2",
             "title": "FAQ 2", "search_result_index": 1, "start_block_index": 0, "end_block_index": 1}]},
        {"type": "text", "text": "; it is safe.", "citations": [
            {"type": "content_block_location", "cited_text": " A: Yes.", "document_index": 1,
             "document_title": "FAQ", "start_block_index": 1, "end_block_index": 2}]}]}
    write_json(proj / "resp.json", response)
    run = cli("import", "anthropic", "resp.json", "--request", "req.json", "--source-map", "map.yaml",
              "--out", "reports/a.md", cwd=proj)
    assert run.returncode == 0, run.stderr
    assert "disagree" not in run.stderr
    found = links((proj / "reports" / "a.md").read_text(encoding="utf-8"))
    assert [(url, text) for _, url, text, _ in found] == [
        (GUIDE, "Step one: plug it in. "), (KB, "Resets take ten minutes."),
        ("https://example.org/faq2", "Returns are free."), (FAQ, " A: Yes.")]
    for _, url, text, sha in found:
        assert text in json.loads(capture_path(proj / "captures", url, sha).read_text())["text"]
    check = cli("check", cwd=proj)
    assert check.returncode == 0, check.stdout + check.stderr


def test_wrong_block_indices_are_reported(proj: Path) -> None:
    request = request_with_everything()
    response = {"content": [{"type": "text", "text": "x", "citations": [
        {"type": "content_block_location", "cited_text": " A: Yes.", "document_index": 1,
         "start_block_index": 0, "end_block_index": 1}]}]}
    got = anthropic.answer(response, request=request)
    assert got.citations[0].notes == ("block indices disagree: blocks [0:1] joined are not the cited text",)
    assert got.warnings == ['blocks 0-1 of document 1 "FAQ" disagree with the cited text']


def test_verify_extraction_rederives_request_captures(proj: Path) -> None:
    assert capture(proj).code == 0
    run = run_cli("capture", "--verify-extraction", cwd=proj)
    assert run.code == 0, run.out
    assert run.lines[-1] == "4 capture(s): 4 reproduced"
    assert "from document 0 of the request" in run.out
    # A raw request that no longer matches its name fails verification.
    raw = raw_path(proj / "captures", GUIDE, sha256_hex((proj / "req.json").read_bytes()))
    raw.chmod(0o644)
    raw.write_bytes(raw.read_bytes().replace(b"plug", b"PLUG"))
    run = run_cli("capture", "--verify-extraction", GUIDE, cwd=proj)
    assert run.code == 1 and "differs" in run.out


def test_keep_raw_false_keeps_no_request(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [GUIDE, FAQ, KB, "https://example.org/faq2"], keep_raw=False)
    write_json(root / "req.json", request_with_everything())
    (root / "map.yaml").write_text('"0": https://example.org/guide\nFAQ: https://example.org/faq\n'
                                   '"search_result:1": https://example.org/faq2\n')
    assert capture(root).code == 0
    assert not list((root / "captures").rglob("*.raw"))
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 0 and "4 not verifiable" in run.out


def test_unmapped_and_unapproved_documents_are_refused(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [GUIDE])
    write_json(root / "req.json", request_with_everything())
    (root / "map.yaml").write_text('"0": https://example.org/guide\nFAQ: https://example.org/not-approved\n')
    run = capture(root)
    assert run.code == 1
    assert run.lines[0].startswith(f'document 0 "Guide": captured: {GUIDE}')
    assert run.lines[1].startswith(f'search result 0 "KB 7": refused: {KB}: not in the approved sources list')
    assert run.lines[2] == ('search result 1 "FAQ 2": refused: no source URL: add "search_result:1": https://... '
                            'or "FAQ 2": https://... to the source map (--source-map FILE)')
    assert "refused: https://example.org/not-approved" in run.lines[3]
    assert run.lines[4] == "4 document(s): 1 captured, 3 refused"
    assert len(list((root / "captures").rglob("*.json"))) == 1


def test_a_source_map_entry_no_document_used_is_warned_about(proj: Path) -> None:
    # A key cut short (or misspelt) mapped nothing, without a word.
    with (proj / "map.yaml").open("a", encoding="utf-8") as f:
        f.write('"internal://faq": https://example.org/faq2\n')
    run = capture(proj)
    assert run.code == 0, run.out + run.err
    assert run.err == ('citelint: warning: source map entry "internal://faq" matched no document: it linked '
                       "nothing (keys are an index, a title, an id or a URL the provider gave, written whole)\n")


def test_bad_requests_are_usage_errors_and_write_nothing(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [GUIDE])
    (root / "req.json").write_text('{"messages": [\n  {"content": [}]}')
    (root / "map.yaml").write_text('"0": https://example.org/guide\n')
    run = capture(root)
    assert run.code == 2 and run.err == "citelint: req.json:2:16: expecting a value\n"
    write_json(root / "req.json", {"messages": [{"content": [{"type": "text", "text": "no documents"}]}]})
    run = capture(root)
    assert run.code == 2 and "sent no document or search_result block" in run.err
    run = run_cli("capture", "--from-request", "openai", "req.json", cwd=root)
    assert run.code == 2 and "anthropic request format only" in run.err
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--from-file", "x", cwd=root)
    assert run.code == 2 and "cannot be combined with --from-file" in run.err
    (root / "map.yaml").write_text('"0": ftp://example.org/guide\n')
    run = capture(root)
    assert run.code == 2 and "not an absolute http(s) URL" in run.err
    assert not (root / "captures").exists() or not list((root / "captures").rglob("*.json"))


def _pdf(text: str) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.text(20, 30, text)
    return bytes(pdf.output())


def test_pdf_documents_go_through_the_pdf_extractor(tmp_path: Path) -> None:
    pytest.importorskip("pdfminer", reason="the pdf extra (pdfminer.six) is part of the test install")
    root = project(tmp_path / "p", [GUIDE], content_types=["text/plain", "application/pdf"])
    sentence = "The annual report lists twelve offices."
    data = base64.b64encode(_pdf(sentence)).decode("ascii")
    write_json(root / "req.json", {"messages": [{"role": "user", "content": [
        {"type": "document", "title": "Report", "source": {"type": "base64", "media_type": "application/pdf",
                                                           "data": data}}]}]})
    (root / "map.yaml").write_text("Report: https://example.org/guide\n")
    run = capture(root)
    assert run.code == 0, run.out + run.err
    (record_path,) = (root / "captures").rglob("*.json")
    record = json.loads(record_path.read_text())
    assert sentence in record["text"] and record["contentType"] == "application/pdf"
    options = record["extractor"]["options"]
    assert record["extractor"]["name"] == "anthropic-request" and options["blockType"] == "base64"
    assert options["extractor"]["name"] == "pdf-text"
    assert run_cli("capture", "--verify-extraction", cwd=root).lines[-1] == "1 capture(s): 1 reproduced"
    assert [p["verdict"] for p in options["extractor"]["options"]["pages"]] == ["usable"]
    # The inner pdf-text page map is an output too: edited, the capture no longer reproduces.
    options["extractor"]["options"]["pages"][0]["label"] = "i"
    record_path.chmod(0o644)
    record_path.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="ascii")
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 1 and "same text, but the page map differs at page 1" in run.lines[0], run.out
    # Without application/pdf in capture.content_types the PDF is refused, as --from-file refuses it.
    root2 = project(tmp_path / "q", [GUIDE], content_types=["text/plain"])
    (root2 / "req.json").write_bytes((root / "req.json").read_bytes())
    (root2 / "map.yaml").write_text("Report: https://example.org/guide\n")
    run = capture(root2)
    assert run.code == 1 and "refused" in run.lines[0] and "application/pdf" in run.lines[0]


def test_corpus_pdf_request_without_its_pdf_is_refused_clearly(tmp_path: Path) -> None:
    request = corpus_path("api-citations", "anthropic-messages-page-location-cai-paper.cookbook.request.json")
    root = project(tmp_path / "p", [GUIDE], content_types=["text/plain", "application/pdf"])
    (root / "req.json").write_bytes(request.read_bytes())
    (root / "map.yaml").write_text("Constitutional AI Paper: https://example.org/guide\n")
    run = capture(root)
    assert run.code == 1 and "base64 data does not decode" in run.out


# --------------------------------------------------------------------------- --approve-sources

def yaml_project(root: Path, sources: list[str]) -> Path:
    root.mkdir(parents=True)
    listed = "".join(f"  - {s}\n" for s in sources)
    (root / "citelint.yaml").write_text(f"markdown: [reports/*.md]\nsources:\n{listed}", encoding="utf-8")
    write_json(root / "req.json", request_with_everything())
    (root / "map.yaml").write_text('"0": https://example.org/guide\nFAQ: https://example.org/faq\n'
                                   '"internal://faq/2": https://example.org/faq2\n', encoding="utf-8")
    return root


def test_approve_sources_prints_the_missing_entries_and_writes_nothing(tmp_path: Path) -> None:
    root = yaml_project(tmp_path / "p", [GUIDE])
    before = {p: p.read_bytes() for p in root.rglob("*")if p.is_file()}
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.yaml",
                  "--approve-sources", cwd=root)
    assert run.code == 0, run.err
    assert run.out == f"sources:\n  - {KB}\n  - https://example.org/faq2\n  - {FAQ}\n"
    assert f'document 0 "Guide": approved: {GUIDE}' in run.err
    assert "3 source(s) to approve (printed: add them to the `sources:` list of" in run.err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    # The printed entries, added to the config, approve exactly what the capture needs.
    config = root / "citelint.yaml"
    config.write_text(config.read_text(encoding="utf-8") + run.out.split("\n", 1)[1], encoding="utf-8")
    done = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.yaml", cwd=root)
    assert done.code == 0 and done.lines[-1] == "4 document(s): 4 captured", done.out + done.err
    again = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.yaml",
                    "--approve-sources", cwd=root)
    assert (again.code, again.out) == (0, "") and "0 source(s) to approve, 4 document(s) approved already" in again.err


def test_approve_sources_without_a_source_for_every_document_is_exit_1(tmp_path: Path) -> None:
    root = yaml_project(tmp_path / "p", [])
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--approve-sources", cwd=root)
    assert run.code == 1
    assert run.out == f"sources:\n  - {KB}\n"  # the one document whose request names its URL
    assert 'document 0 "Guide": refused: no source URL: add "0": https://... or "Guide": https://...' in run.err
    assert "1 source(s) to approve" in run.err and "3 with no approvable source" in run.err
    assert not (root / "captures").exists()


def test_approve_sources_quotes_what_yaml_would_misread_and_speaks_toml(tmp_path: Path) -> None:
    import tomllib

    odd = "https://example.org/it's#part"
    root = tmp_path / "t"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.citelint]\nsources = []\n', encoding="utf-8")
    write_json(root / "req.json", {"messages": [{"role": "user", "content": [
        {"type": "search_result", "source": "https://example.org/x?a=1", "title": "X",
         "content": [{"type": "text", "text": "x"}]},
        {"type": "document", "title": "Odd", "source": {"type": "text", "media_type": "text/plain", "data": "y"}}]}]})
    write_json(root / "map.json", {"Odd": "https://example.org/odd: yes"})
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.json",
                  "--approve-sources", cwd=root)
    assert (run.code, run.out) == (2, "") and "map.json: the URL of 'Odd' holds a space" in run.err
    write_json(root / "map.json", {"Odd": odd})
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.json",
                  "--approve-sources", cwd=root)
    assert run.code == 1, run.err
    assert f'document 0 "Odd": refused: {odd}: cannot be approved: ' in run.err and "fragment" in run.err
    write_json(root / "map.json", {"Odd": "https://example.org/it's"})
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.json",
                  "--approve-sources", cwd=root)
    assert run.code == 0, run.err
    assert tomllib.loads(run.out) == {"sources": ["https://example.org/x?a=1", "https://example.org/it's"]}
    assert "the `sources` array of [tool.citelint] in" in run.err
    yaml_root = yaml_project(tmp_path / "y", [])
    write_json(yaml_root / "map.json", {"0": "https://example.org/it's", "FAQ": FAQ})
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--source-map", "map.json",
                  "--approve-sources", cwd=yaml_root)
    assert '  - "https://example.org/it\'s"\n' in run.out
    import yaml

    assert "https://example.org/it's" in yaml.safe_load(run.out)["sources"]


def test_approve_sources_goes_with_from_request_only(tmp_path: Path) -> None:
    root = yaml_project(tmp_path / "p", [])
    run = run_cli("capture", "--approve-sources", cwd=root)
    assert run.code == 2 and "--approve-sources go with --from-request" in run.err
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--approve-sources",
                  "--retrieved-at", STAMP, cwd=root)
    assert run.code == 2 and "cannot be combined with --retrieved-at" in run.err


def test_approve_sources_lists_a_url_document_to_be_fetched(tmp_path: Path) -> None:
    root = yaml_project(tmp_path / "p", [])
    write_json(root / "req.json", {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "url", "url": "https://example.org/paper.pdf"}}]}]})
    run = run_cli("capture", "--from-request", "anthropic", "req.json", "--approve-sources", cwd=root)
    assert (run.code, run.out) == (0, "sources:\n  - https://example.org/paper.pdf\n")
    assert ("document 0: to approve: https://example.org/paper.pdf: the request names its URL only; Anthropic "
            "fetched the content: once approved, capture it with citelint capture URL") in run.err
