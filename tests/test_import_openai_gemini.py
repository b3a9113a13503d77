"""The OpenAI (Responses, Chat Completions) and Gemini (generateContent, Interactions) adapters."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from citelint.imports import gemini, openai
from citelint.imports.model import Answer, ResponseError
from citelint.imports.streams import load_response
from citelint.imports.write import REDIRECT_PREFIXES
from conftest import CORPUS, corpus_path

API = ("api-citations",)


def _names() -> list[str]:
    folder = CORPUS.joinpath(*API)
    found = sorted(p.name for p in folder.glob("*.response.*")
                   if p.name.startswith(("openai", "openrouter", "gemini"))) if folder.exists() else []
    return found or ["openai-responses-web-search.pydantic-ai.response.json"]


def _answer(name: str) -> Answer:
    path = corpus_path(*API, name)
    vendor = "gemini" if name.startswith("gemini") else "openai"
    adapter = gemini if vendor == "gemini" else openai
    request_path = path.parent / (name.split(".response.")[0] + ".request.json")
    request = json.loads(request_path.read_text(encoding="utf-8")) if request_path.exists() else None
    return adapter.answer(load_response(vendor, path.read_bytes(), name), request=request)


@pytest.mark.parametrize("name", _names())
def test_every_corpus_response_imports_with_spans_inside_the_text(name: str) -> None:
    result = _answer(name)
    assert result.text and result.citations
    for citation in result.citations:
        assert 0 <= citation.start <= citation.end <= len(result.text)
        assert citation.quote is None
    assert [c.end for c in result.citations] == sorted(c.end for c in result.citations)


def test_openai_url_citations_are_the_inline_links_in_code_points() -> None:
    # Non-ASCII (’, –) precedes the cited spans here: byte offsets would land elsewhere.
    for name in ("openai-responses-web-search.pydantic-ai.response.json",
                 "openai-responses-web-search.vercel-ai.response.json",
                 "openai-responses-web-search.vercel-ai.response.chunks.txt"):
        result = _answer(name)
        assert not result.text[: result.citations[-1].start].isascii()
        for citation in result.citations:
            span = result.text[citation.start:citation.end]
            assert citation.kind == "url_citation" and citation.inline
            assert span.startswith("([") and span.endswith(f"]({citation.url}))")
            tagged = citation.url.endswith("?utm_source=openai")
            assert tagged == any("utm_source=openai" in n for n in citation.notes)


def test_openai_non_ascii_before_the_span_built_here() -> None:
    text = "Émile 😀 日本語: the rate is 4% ([example.org](https://example.org/r))."
    start = text.index("([")
    end = text.index("))") + 2
    response = {"status": "completed", "output": [{"type": "message", "content": [{
        "type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "url": "https://example.org/r", "title": "R",
             "start_index": start, "end_index": end},
            {"type": "url_citation", "url": "https://example.org/other", "title": "O",
             "start_index": 0, "end_index": 5}]}]}]}
    result = openai.answer(response, request=None)
    second, first = sorted(result.citations, key=lambda c: c.url)
    assert result.text[first.start:first.end] == "([example.org](https://example.org/r))"
    assert first.inline and not second.inline and first.notes == ()
    assert result.text[second.start:second.end] == "Émile"


def test_openai_parts_joined_and_offsets_shifted() -> None:
    part = {"type": "output_text", "text": "B ([x](https://x.example/))",
            "annotations": [{"type": "url_citation", "url": "https://x.example/", "start_index": 2,
                             "end_index": 27}]}
    response = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "Aé"}, part]}]}
    result = openai.answer(response, request=None)
    (citation,) = result.citations
    assert result.text == "Aé\n\nB ([x](https://x.example/))"
    assert result.text[citation.start:citation.end] == "([x](https://x.example/))"


def test_openai_file_citation_is_a_position() -> None:
    result = _answer("openai-responses-file-search-with-results.pydantic-ai.response.json")
    (citation,) = result.citations
    assert (citation.start, citation.end) == (30, 30) and result.text[:30] == "The capital of France is Paris"
    assert citation.kind == "file_citation" and citation.url is None and citation.document is None
    assert citation.title == "tmpd_9a5dki.txt" and "source map" in citation.notes[0]


def test_openai_container_file_citation_noted_as_no_source() -> None:
    result = _answer("openai-responses-code-interpreter.vercel-ai.response.json")
    (citation,) = result.citations
    assert citation.kind == "container_file_citation" and citation.url is None
    assert "not a source" in citation.notes[0]
    # The span is the destination of the model's own link: nothing is to be added inside it.
    assert result.text[citation.start - 2:citation.end + 1] == "](sandbox:/mnt/data/two_dice_sums_10000.txt)"
    assert citation.inline


def test_openrouter_chat_completion_excerpt_is_a_note_not_a_quote() -> None:
    result = _answer("openrouter-chat-completions-web-search.pydantic-ai.response.json")
    assert len(result.citations) == 5
    for citation in result.citations:
        assert (citation.start, citation.end) == (len(result.text), len(result.text))
        assert citation.quote is None
        assert any("no position" in n for n in citation.notes)
        assert any("page excerpt" in n for n in citation.notes)


def test_openai_unknown_annotation_and_refusal_warn() -> None:
    response = {"status": "incomplete", "output": [{"type": "message", "content": [
        {"type": "refusal", "refusal": "no"},
        {"type": "output_text", "text": "abc", "annotations": [{"type": "file_path", "file_id": "f"}]}]}]}
    result = openai.answer(response, request=None)
    assert result.citations == []
    assert any("refused" in w for w in result.warnings)
    assert any("file_path" in w and "not imported" in w for w in result.warnings)
    assert any("not completed" in w for w in result.warnings)


@pytest.mark.parametrize("annotation, where, message", [
    ({"type": "url_citation", "url": "https://x/", "start_index": 0, "end_index": 99}, "end_index", "past the end"),
    ({"type": "url_citation", "url": "https://x/", "start_index": -1, "end_index": 2}, "start_index", "negative"),
    ({"type": "url_citation", "url": "https://x/", "start_index": 3, "end_index": 1}, "end_index", "before"),
    ({"type": "url_citation", "url": "https://x/", "start_index": "0", "end_index": 1}, "start_index", "integer"),
    ({"type": "url_citation", "url": "https://x/", "start_index": True, "end_index": 1}, "start_index", "boolean"),
    ({"type": "url_citation", "url": 7, "start_index": 0, "end_index": 1}, "url", "string"),
    ({"type": "file_citation", "file_id": "f", "index": 6}, "index", "past the end"),
])
def test_openai_bad_annotations_name_their_path(annotation: dict[str, Any], where: str, message: str) -> None:
    response = {"output": [{"type": "reasoning"}, {"type": "message", "content": [
        {"type": "output_text", "text": "hello", "annotations": [{"type": "x"}, annotation]}]}]}
    with pytest.raises(ResponseError) as info:
        openai.answer(response, request=None)
    assert info.value.where == f"output[1].content[0].annotations[1].{where}"
    assert message in str(info.value)


def test_openai_wrong_shapes() -> None:
    for response, where in (({"output": {}}, "output"), ({"output": [5]}, "output[0]"),
                            ({"choices": []}, "choices"), ({"choices": [{"message": []}]}, "choices[0].message")):
        with pytest.raises(ResponseError) as info:
            openai.answer(response, request=None)
        assert info.value.where == where
    with pytest.raises(ResponseError):
        openai.answer({"candidates": []}, request=None)


# --------------------------------------------------------------------------- Gemini

def _byte_slice(text: str, start: int, end: int) -> str:
    return text.encode("utf-8")[start:end].decode("utf-8")


def test_gemini_byte_offsets_after_a_degree_sign() -> None:
    name = "gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt"
    response = load_response("gemini", corpus_path(*API, name).read_bytes(), name)
    result = gemini.answer(response, request=None)
    supports = response["candidates"][0]["groundingMetadata"]["groundingSupports"]
    assert "°" in result.text and not result.warnings
    by_span = {(c.start, c.end) for c in result.citations}
    assert len(by_span) == len(supports)
    for support in supports:
        segment = support["segment"]
        assert _byte_slice(result.text, segment.get("startIndex", 0), segment["endIndex"]) == segment["text"]
        assert any(result.text[s:e] == segment["text"] for s, e in by_span)
    # Code-point slicing with the provider's numbers is wrong once a ° precedes: the conversion mattered.
    last = supports[-1]["segment"]
    assert result.text[last["startIndex"]:last["endIndex"]] != last["text"]


def test_gemini_one_citation_per_support_and_chunk() -> None:
    result = _answer("gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt")
    spans: dict[tuple[int, int], list[int | None]] = {}
    for citation in result.citations:
        spans.setdefault((citation.start, citation.end), []).append(citation.document)
    assert sorted(sorted(d) for d in spans.values() if len(d) > 1) == [[1, 4]]  # groundingChunkIndices [4, 1]
    for citation in result.citations:
        assert citation.kind == "grounding_chunk" and citation.quote is None
        # A redirect is named by the writer (once, with its keys), a Google search page here.
        redirect = citation.url.startswith(REDIRECT_PREFIXES)
        assert citation.notes == () if redirect else "Google search page" in citation.notes[0]
        assert redirect or f'"{citation.document}"' in citation.notes[0]
        assert citation.title


def _gemini_response(text: str, segments: list[dict[str, Any]], parts: list[dict[str, Any]] | None = None
                     ) -> dict[str, Any]:
    return {"candidates": [{"content": {"parts": parts or [{"text": text}]}, "finishReason": "STOP",
                            "groundingMetadata": {
                                "groundingChunks": [{"web": {"uri": "https://a.example/", "title": "a.example"}}],
                                "groundingSupports": [{"segment": s, "groundingChunkIndices": [0]}
                                                      for s in segments]}}]}


def test_gemini_emoji_and_cjk_before_the_segment() -> None:
    text = "😀 日本語のテキスト. Rates rose 4%. Ünïcödé end."
    claim = "Rates rose 4%."
    start = len(text[: text.index(claim)].encode("utf-8"))
    end = start + len(claim.encode("utf-8"))
    response = _gemini_response(text, [{"startIndex": start, "endIndex": end, "text": claim},
                                       {"endIndex": len("😀".encode()), "text": "😀"}])
    result = gemini.answer(response, request=None)
    assert [result.text[c.start:c.end] for c in result.citations] == ["😀", claim]
    assert result.warnings == [] and all(c.notes == () for c in result.citations)


def test_gemini_parts_joined_past_thought_signature_parts() -> None:
    result = _answer("gemini3-generate-content-file-search.pydantic-ai.response.json")
    (citation,) = result.citations
    assert result.text[citation.start:citation.end] == "The capital of France is **Paris**."
    assert citation.url is None and citation.document == 0
    assert any("File Search" in n for n in citation.notes)
    assert any("https://example.com/paris" in n for n in citation.notes)


def test_gemini_part_index_and_thought_parts() -> None:
    parts = [{"text": "thinking é", "thought": True}, {"text": "Café. "}, {"functionCall": {}}, {"text": "Über."}]
    response = _gemini_response("", [{"partIndex": 3, "startIndex": 0, "endIndex": 6, "text": "Über."}], parts)
    result = gemini.answer(response, request=None)
    assert result.text == "Café. Über."
    (citation,) = result.citations
    assert result.text[citation.start:citation.end] == "Über."
    assert any("thought" in w for w in result.warnings)


def test_gemini_segment_text_disagreement_is_reported() -> None:
    text = "5 °C today. Rain later."
    # endIndex 10 counts code points; as bytes (the unit) it ends one character early.
    response = _gemini_response(text, [{"startIndex": 0, "endIndex": 10, "text": "5 °C today"}])
    result = gemini.answer(response, request=None)
    (citation,) = result.citations
    assert result.text[citation.start:citation.end] == "5 °C toda"
    assert "differs" in citation.notes[0] and "matches as code points" in citation.notes[0]
    assert any("differs" in w for w in result.warnings)


@pytest.mark.parametrize("segment, where, message", [
    ({"startIndex": 1, "endIndex": 3}, "startIndex", "inside a UTF-8 sequence"),
    ({"startIndex": 0, "endIndex": 2}, "endIndex", "inside a UTF-8 sequence"),
    ({"startIndex": 0, "endIndex": 999}, "endIndex", "past the end"),
    ({"startIndex": 4, "endIndex": 0}, "endIndex", "before"),
    ({"startIndex": -4, "endIndex": 0}, "startIndex", "negative"),
    ({"startIndex": 0, "endIndex": 1.5}, "endIndex", "integer"),
    ({"partIndex": 5, "endIndex": 1}, "partIndex", "no text part"),
])
def test_gemini_bad_offsets_name_their_path(segment: dict[str, Any], where: str, message: str) -> None:
    with pytest.raises(ResponseError) as info:
        gemini.answer(_gemini_response("😀 ok", [{"endIndex": 0}, segment]), request=None)
    assert info.value.where == f"candidates[0].groundingMetadata.groundingSupports[1].segment.{where}"
    assert message in str(info.value)


def test_gemini_bad_chunk_indices_and_shapes() -> None:
    response = _gemini_response("ok", [{"endIndex": 2}])
    response["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["groundingChunkIndices"] = [0, 3]
    with pytest.raises(ResponseError) as info:
        gemini.answer(response, request=None)
    assert info.value.where.endswith("groundingSupports[0].groundingChunkIndices[1]")
    for bad, where in (({"candidates": {}}, "candidates"), ({"candidates": []}, "candidates"),
                       ({"candidates": [{"content": {"parts": [{"text": 3}]}}]},
                        "candidates[0].content.parts[0].text")):
        with pytest.raises(ResponseError) as info:
            gemini.answer(bad, request=None)
        assert info.value.where == where
    with pytest.raises(ResponseError):
        gemini.answer({"output": []}, request=None)
    # A lone surrogate (a dict built without load_response, which refuses it) has no UTF-8 offsets.
    with pytest.raises(ResponseError) as info:
        gemini.answer(_gemini_response("\ud800", [{"endIndex": 1}]), request=None)
    assert info.value.where == "candidates[0].content.parts[0].text"


def test_gemini_url_context_metadata_is_a_warning() -> None:
    result = _answer("gemini-generate-content-url-context.pydantic-ai.response.sse.txt")
    assert any("https://ai.pydantic.dev" in w and "URL_RETRIEVAL_STATUS_SUCCESS" in w for w in result.warnings)
    (citation,) = result.citations
    assert citation.notes == () and citation.url == "https://ai.pydantic.dev"


def test_gemini_interactions_annotations() -> None:
    for name in ("gemini-interactions-google-search.vercel-ai.response.json",
                 "gemini-interactions-google-search.vercel-ai.response.chunks.txt"):
        result = _answer(name)
        for citation in result.citations:
            assert citation.kind == "url_citation" and citation.document is None
            assert citation.url.startswith(REDIRECT_PREFIXES) and citation.notes == ()
            assert re.fullmatch(r"[a-z0-9.-]+\.[a-z]+", citation.title)
    step = {"type": "model_output", "content": [{"type": "text", "text": "é: fact.", "annotations": [
        {"type": "url_citation", "url": "https://b.example/", "title": "b", "start_index": 4, "end_index": 9}]}]}
    result = gemini.answer({"steps": [{"type": "thought"}, step], "status": "completed"}, request=None)
    (citation,) = result.citations
    assert result.text[citation.start:citation.end] == "fact."
    assert any("unconfirmed" in w for w in result.warnings)
    step["content"][0]["annotations"][0]["start_index"] = 1
    with pytest.raises(ResponseError) as info:
        gemini.answer({"steps": [step]}, request=None)
    assert info.value.where == "steps[0].content[0].annotations[0].start_index"


def test_openai_cited_urls_checked_against_the_search_sources() -> None:
    # On the corpus every cited URL, its ?utm_source=openai tag removed, is a listed source.
    result = _answer("openai-responses-web-search.vercel-ai.response.json")
    assert not any("not among" in n for c in result.citations for n in c.notes)
    text = "Fact ([a.example](https://a.example/p?utm_source=openai)). Other ([b.example](https://b.example/q))."
    spans = [(m.start(), m.end()) for m in re.finditer(r"\(\[[^)]*\)\)", text)]
    response = {"output": [
        {"type": "web_search_call", "action": {"type": "search", "sources": [
            {"type": "url", "url": "https://a.example/p"}]}},
        {"type": "message", "content": [{"type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "url": url, "start_index": s, "end_index": e}
            for url, (s, e) in zip(("https://a.example/p?utm_source=openai", "https://b.example/q"), spans)]}]}]}
    first, second = openai.answer(response, request=None).citations
    assert first.inline and second.inline
    assert not any("not among" in n for n in first.notes)
    assert any("not among" in n for n in second.notes)
