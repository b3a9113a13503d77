"""``citelint import cohere``: Cohere chat v2 responses.

The corpus holds no Cohere recording, so every response here is **constructed**
from Cohere's public API reference for ``POST /v2/chat`` (``message.content[]``
text parts; ``message.citations[]`` with ``start``, ``end``, ``text`` and
``sources[]``, each ``{type: "document", id, document: {...}}`` or
``{type: "tool", id, tool_output: {...}}``), not recorded from the API.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from citelint.imports import cohere
from test_import_anthropic import cli, files, project

TEXT = "Lawns need about 2.5 cm of water a week, and mowing high keeps them green."
LINK = re.compile(r"\[\[(\d+)\]\]\((https?://[^\s)]+)\)")


def _cite(text: str, sources: list[dict[str, Any]], kind: str = "TEXT_CONTENT") -> dict[str, Any]:
    start = TEXT.index(text)
    return {"start": start, "end": start + len(text), "text": text, "sources": sources, "type": kind}


def _doc(ident: str, **data: str) -> dict[str, Any]:
    return {"type": "document", "id": ident, "document": {"id": ident, "snippet": "...", **data}}


def _response(citations: list[dict[str, Any]], text: str = TEXT) -> dict[str, Any]:
    return {"id": "5a50480a", "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "citations": citations},
            "usage": {"billed_units": {"input_tokens": 10, "output_tokens": 20}}}


def _import(tmp_path: Path, response: dict[str, Any], *extra: str):
    (tmp_path / "r.json").write_text(json.dumps(response, ensure_ascii=False), encoding="utf-8")
    return cli("import", "cohere", "r.json", "--out", "a.md", "--force", *extra, cwd=tmp_path)


def test_document_sources_are_links_after_the_cited_span(tmp_path: Path) -> None:
    root = project(tmp_path / "p", [])
    response = _response([
        _cite("about 2.5 cm of water a week", [_doc("doc:0", title="Watering", url="https://example.org/water")]),
        _cite("mowing high", [_doc("doc:1", title="Mowing", url="https://example.org/mow"),
                              _doc("doc:2", title="Height", url="https://example.org/height")]),
    ])
    run = _import(root, response)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "wrote a.md: Markdown report: 3 link(s) for 3 citation(s)\n"
    assert (root / "a.md").read_text(encoding="utf-8") == (
        "Lawns need about 2.5 cm of water a week [[1]](https://example.org/water), and mowing high "
        "[[2]](https://example.org/mow) [[3]](https://example.org/height) keeps them green.\n")
    (root / "reports" / "a.md").write_text((root / "a.md").read_text(encoding="utf-8"), encoding="utf-8")
    check = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    assert [f["rule"] for f in check["findings"]] == ["CL201"] * 3


def test_documents_without_url_are_not_linked_until_mapped_by_id_or_title(tmp_path: Path) -> None:
    response = _response([_cite("mowing high", [_doc("doc:0", title="Mowing guide")])])
    run = _import(tmp_path, response)
    assert run.returncode == 1
    assert "mowing high [1: not linked] keeps" in (tmp_path / "a.md").read_text(encoding="utf-8")
    assert 'not linked: no source URL: add "Mowing guide": https://... or "doc:0": https://...' in run.stderr
    assert run.stderr.splitlines()[-1].startswith("citelint: 1 of 1 citations not linked: pass --source-map")
    for key in ("doc:0", "Mowing guide"):
        (tmp_path / "map.json").write_text(json.dumps({key: "https://example.org/mow"}))
        run = _import(tmp_path, response, "--source-map", "map.json")
        assert run.returncode == 0, run.stderr
        assert LINK.findall((tmp_path / "a.md").read_text(encoding="utf-8")) == [("1", "https://example.org/mow")]


def test_tool_sources_and_citations_without_sources(tmp_path: Path) -> None:
    response = _response([
        _cite("about 2.5 cm of water a week", [{"type": "tool", "id": "web_search_0:0",
                                                "tool_output": {"title": "Watering", "url": "https://example.org/w"}}]),
        _cite("keeps them green", []),
    ])
    run = _import(tmp_path, response, "--allow-unlinked")
    assert run.returncode == 0, run.stderr
    written = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert LINK.findall(written) == [("1", "https://example.org/w")]
    assert "keeps them green [2: not linked]." in written
    assert "a tool result" in run.stderr and "the citation names no source" in run.stderr
    assert "1 of 2 citations not linked (--allow-unlinked)" in run.stderr


def test_offsets_are_checked_against_the_cited_text() -> None:
    # Non-BMP text before the span: code points and UTF-16 code units differ.
    text = "🌱 Lawns need water."
    good = {"start": 2, "end": 7, "text": "Lawns", "sources": [_doc("d", url="https://example.org/")]}
    utf16 = {"start": 3, "end": 8, "text": "Lawns", "sources": [_doc("d", url="https://example.org/")]}
    wrong = {"start": 8, "end": 12, "text": "Lawns", "sources": [_doc("d", url="https://example.org/")]}
    result = cohere.answer(_response([good, utf16, wrong], text), request=None)
    first, second, third = result.citations
    assert first.notes == () and (first.start, first.end) == (2, 7)
    assert second.notes == ("offsets 3-8 match counted in UTF-16 code units",)
    assert third.notes[0].startswith("offsets disagree: the answer [8:12] is not the citation's text")
    assert any("disagree" in w for w in result.warnings)


def test_plan_citations_and_unfinished_answers_warn(tmp_path: Path) -> None:
    response = _response([_cite("mowing high", [_doc("d", url="https://example.org/")], kind="PLAN")])
    response["finish_reason"] = "MAX_TOKENS"
    result = cohere.answer(response, request=None)
    assert result.citations == [] and result.skipped == 1
    assert any("tool plan" in w for w in result.warnings) and any("MAX_TOKENS" in w for w in result.warnings)
    # Left out on purpose and said so: not mistaken for citations in a shape nobody read.
    run = _import(tmp_path, response)
    assert run.returncode == 0, run.stderr
    assert "a citation of the tool plan, not of the answer: not imported" in run.stderr


def test_bad_values_name_their_path(tmp_path: Path) -> None:
    bad = _response([_cite("mowing high", [{"type": "website", "id": "x"}])])
    run = _import(tmp_path, bad)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert 'r.json: message.citations[0].sources[0].type is \'website\'; expected "document" or "tool"' in run.stderr
    past = _response([{"start": 0, "end": 999, "text": "x", "sources": []}])
    run = _import(tmp_path, past)
    assert run.returncode == 2 and "message.citations[0].end is 999, past the end of the text" in run.stderr
    assert files(tmp_path) == {"r.json"}


def test_citations_of_a_message_without_content_name_the_missing_content(tmp_path: Path) -> None:
    # It said "citations[0].end is 16, past the end of the text (0 code points)".
    response = _response([_cite("Lawns need about", [_doc("d", url="https://example.org/")])])
    del response["message"]["content"]
    run = _import(tmp_path, response)
    assert run.returncode == 2 and "past the end" not in run.stderr
    assert run.stderr == ("citelint: r.json: message.content is missing, but message.citations cites spans of "
                          "its text\n")
    response["message"]["content"] = [{"type": "thinking", "thinking": "..."}]
    run = _import(tmp_path, response)
    assert run.returncode == 2 and "message.content holds no text part, but message.citations" in run.stderr
    assert files(tmp_path) == {"r.json"}


def _stream(response: dict[str, Any], end: bool = True) -> str:
    """``response`` as a chat v2 server-sent event stream, event shapes as Cohere's reference gives them."""
    message = response["message"]
    events = [{"type": "message-start", "id": response["id"], "delta": {"message": {"role": "assistant"}}}]
    for i, part in enumerate(message["content"]):
        text = part["text"]
        events.append({"type": "content-start", "index": i, "delta": {"message": {"content": {"type": "text",
                                                                                            "text": ""}}}})
        events += [{"type": "content-delta", "index": i, "delta": {"message": {"content": {"text": text[k:k + 9]}}}}
                   for k in range(0, len(text), 9)]
        events.append({"type": "content-end", "index": i})
    for i, cite in enumerate(message["citations"]):
        events += [{"type": "citation-start", "index": i, "delta": {"message": {"citations": cite}}},
                   {"type": "citation-end", "index": i}]
    if end:
        events.append({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_a_saved_stream_is_reassembled_into_the_whole_response(tmp_path: Path) -> None:
    response = _response([_cite("mowing high", [_doc("doc:0", title="Mowing", url="https://example.org/mow")])])
    whole = _import(tmp_path, response)
    assert whole.returncode == 0, whole.stderr
    expected = (tmp_path / "a.md").read_text(encoding="utf-8")
    (tmp_path / "r.sse.txt").write_text(_stream(response), encoding="utf-8")
    run = cli("import", "cohere", "r.sse.txt", "--out", "b.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "b.md").read_text(encoding="utf-8") == expected
    (tmp_path / "cut.sse.txt").write_text(_stream(response, end=False), encoding="utf-8")
    run = cli("import", "cohere", "cut.sse.txt", "--out", "c.md", cwd=tmp_path)
    assert run.returncode == 2 and "ends before message-end (a truncated recording?)" in run.stderr
    (tmp_path / "odd.sse.txt").write_text('data: {"type": "content-shuffle"}\n\n', encoding="utf-8")
    run = cli("import", "cohere", "odd.sse.txt", "--out", "c.md", cwd=tmp_path)
    assert run.returncode == 2 and "odd.sse.txt:1: not a Cohere chat v2 stream event: type 'content-shuffle'" \
        in run.stderr
    assert not (tmp_path / "c.md").exists()


def test_content_index_offsets_count_within_that_part() -> None:
    response = _response([])
    response["message"]["content"] = [{"type": "thinking", "thinking": "..."}, {"type": "text", "text": "Intro. "},
                                      {"type": "text", "text": TEXT}]
    cite = _cite("mowing high", [_doc("d", url="https://example.org/")])
    response["message"]["citations"] = [dict(cite, content_index=2)]
    (citation,) = cohere.answer(response, request=None).citations
    assert (citation.start, citation.end) == (len("Intro. ") + cite["start"], len("Intro. ") + cite["end"])
    assert citation.notes == ()
