"""load_response: whole responses, server-sent events and event lines, reassembled per provider."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from citelint.imports import gemini, openai
from citelint.imports.model import ResponseError
from citelint.imports.streams import MAX_RESPONSE_BYTES, load_response
from citelint.reports.document import MAX_DEPTH
from conftest import CORPUS, corpus_path

API = ("api-citations",)


def _vendor(name: str) -> str:
    if name.startswith("anthropic"):
        return "anthropic"
    return "gemini" if name.startswith("gemini") else "openai"


def _load(name: str) -> dict[str, Any]:
    path = corpus_path(*API, name)
    return load_response(_vendor(name), path.read_bytes(), name)


def _streams() -> list[str]:
    folder = CORPUS.joinpath(*API)
    names = sorted(p.name for p in folder.glob("*.response.*.txt")) if folder.exists() else []
    return names or ["anthropic-messages-web-search-stream.pydantic-ai.response.sse.txt"]


def _events(name: str) -> list[dict[str, Any]]:
    """The JSON events of a corpus stream file, read independently of load_response."""
    text = corpus_path(*API, name).read_text(encoding="utf-8")
    if not text.lstrip().startswith(("data:", "event:")) and text.count("\n") > 0:
        try:
            return [json.loads(text)]  # a whole response saved under a stream's name
        except json.JSONDecodeError:
            pass
    out = []
    for line in text.splitlines():
        body = line[len("data:"):] if line.startswith("data:") else line
        if body.strip().startswith("{"):
            out.append(json.loads(body))
    return out


@pytest.mark.parametrize("name", _streams())
def test_every_corpus_stream_loads(name: str) -> None:
    response = _load(name)
    assert isinstance(response, dict) and response


def test_anthropic_sse_reassembles_text_and_citations() -> None:
    name = "anthropic-messages-web-search-stream.pydantic-ai.response.sse.txt"
    events = _events(name)
    message = _load(name)
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert len(message["content"]) == len(starts)
    for index, block in enumerate(message["content"]):
        deltas = [e["delta"] for e in events if e["type"] == "content_block_delta" and e["index"] == index]
        if block["type"] == "text":
            assert block["text"] == "".join(d["text"] for d in deltas if d["type"] == "text_delta")
            cited = [d["citation"] for d in deltas if d["type"] == "citations_delta"]
            assert block.get("citations", []) == cited
    citations = [c for b in message["content"] if b["type"] == "text" for c in b.get("citations", [])]
    assert len(citations) == 9 and all(c["type"] == "web_search_result_location" for c in citations)
    # server_tool_use input is the concatenated partial_json, parsed.
    assert message["content"][0]["input"] == {"query": "top world news today"}
    assert message["stop_reason"] == next(e for e in events if e["type"] == "message_delta")["delta"]["stop_reason"]


def test_anthropic_chunk_lines_reassemble_like_the_whole_shape() -> None:
    name = "anthropic-messages-web-search.vercel-ai.response.chunks.txt"
    streamed = _load(name)
    whole = _load("anthropic-messages-web-search.vercel-ai.response.json")
    # Two recordings of the same request: same block structure keys, same citation fields.
    assert [b["type"] for b in streamed["content"]][:2] == [b["type"] for b in whole["content"]][:2]
    for message in (streamed, whole):
        for block in message["content"]:
            for citation in block.get("citations") or []:
                assert set(citation) >= {"type", "url", "title", "cited_text"}
                assert citation["cited_text"]
    texts = [b for b in streamed["content"] if b["type"] == "text"]
    assert sum(len(b.get("citations") or []) for b in texts) == 14


def _as_anthropic_stream(message: dict[str, Any]) -> str:
    """The server-sent events the Messages API streams for ``message`` (block starts empty, deltas in pieces)."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **{k: v for k, v in message.items() if k not in ("content", "stop_reason", "stop_sequence")},
        "content": [], "stop_reason": None, "stop_sequence": None}}]
    for index, block in enumerate(message["content"]):
        deltas: list[dict[str, Any]] = []
        start = dict(block)
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas += [{"type": "citations_delta", "citation": c} for c in block.get("citations") or []]
            text = block["text"]
            deltas += [{"type": "text_delta", "text": text[i:i + 7]} for i in range(0, len(text), 7)]
        elif block["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas += [{"type": "thinking_delta", "thinking": block["thinking"]},
                       {"type": "signature_delta", "signature": block["signature"]}]
        elif "input" in block:
            start = {**block, "input": {}}
            raw = json.dumps(block["input"])
            deltas += [{"type": "input_json_delta", "partial_json": raw[i:i + 5]} for i in range(0, len(raw), 5)]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": message["stop_reason"],
                                                   "stop_sequence": message.get("stop_sequence")}},
               {"type": "message_stop"}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize("name", ["anthropic-messages-web-search.pydantic-ai.response.json",
                                  "anthropic-messages-web-search-pause-turn.pydantic-ai.response.json",
                                  "anthropic-messages-web-search.vercel-ai.response.json"])
def test_anthropic_stream_of_a_whole_response_reassembles_to_it(name: str) -> None:
    whole = _load(name)
    streamed = load_response("anthropic", _as_anthropic_stream(whole).encode(), "s.sse")
    assert streamed["content"] == whole["content"]
    assert streamed["stop_reason"] == whole["stop_reason"]


def test_anthropic_content_block_list_is_wrapped() -> None:
    message = _load("anthropic-messages-char-location-tiny.langchainjs.response.json")
    assert [b["text"] for b in message["content"]][1] == "The grass is green"


def _without(name: str, drop: str) -> bytes:
    """A corpus stream with every event of type ``drop`` removed (the rest byte for byte)."""
    text = corpus_path(*API, name).read_text(encoding="utf-8")
    kept = [line for line in text.splitlines(keepends=True) if f'"type":"{drop}"' not in line]
    return "".join(kept).encode("utf-8")


@pytest.mark.parametrize("name", [
    "openai-responses-web-search-stream.pydantic-ai.response.sse.txt",
    "openai-responses-web-search.vercel-ai.response.chunks.txt",
    "openai-responses-file-search.vercel-ai.response.chunks.txt",
    "openai-responses-code-interpreter.vercel-ai.response.chunks.txt",
])
def test_openai_stream_from_deltas_equals_its_completed_response(name: str) -> None:
    completed = openai.answer(_load(name), request=None)
    for drop in ("response.completed", "response.output_item.done"):
        data = _without(name, "response.completed")
        if drop == "response.output_item.done":
            data = b"".join(line for line in data.splitlines(keepends=True)
                            if b'"type":"response.output_item.done"' not in line)
        assembled = load_response("openai", data, name)
        assert assembled.get("status") != "completed"
        result = openai.answer(assembled, request=None)
        assert result.text == completed.text
        assert result.citations == completed.citations
        assert any("not completed" in w for w in result.warnings)


def test_gemini_stream_concatenates_parts_across_chunks() -> None:
    name = "gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt"
    chunks = _events(name)
    response = _load(name)
    parts = response["candidates"][0]["content"]["parts"]
    assert "".join(p["text"] for p in parts) == "".join(
        p["text"] for c in chunks for p in c["candidates"][0]["content"]["parts"])
    assert response["candidates"][0]["groundingMetadata"] == chunks[-1]["candidates"][0]["groundingMetadata"]
    assert response["candidates"][0]["finishReason"] == "STOP"


def test_gemini_stream_equals_the_same_response_sent_whole() -> None:
    name = "gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt"
    streamed = gemini.answer(_load(name), request=None)
    chunks = _events(name)
    whole = dict(chunks[-1])
    candidate = dict(whole["candidates"][0])
    candidate["content"] = {"role": "model", "parts": [
        {"text": "".join(p["text"] for c in chunks for p in c["candidates"][0]["content"]["parts"])}]}
    whole["candidates"] = [candidate]
    direct = gemini.answer(load_response("gemini", json.dumps(whole).encode(), "whole.json"), request=None)
    assert streamed.text == direct.text and streamed.citations == direct.citations
    # The same chunks as one JSON array (streamGenerateContent without alt=sse).
    array = gemini.answer(load_response("gemini", json.dumps(chunks).encode(), "a.json"), request=None)
    assert array.text == streamed.text and array.citations == streamed.citations


def test_gemini_grounding_in_two_chunks_is_merged_with_shifted_chunk_indices() -> None:
    def chunk(text: str, uri: str, start: int, end: int) -> dict[str, Any]:
        return {"candidates": [{"index": 0, "content": {"parts": [{"text": text}], "role": "model"},
                                "groundingMetadata": {
                                    "groundingChunks": [{"web": {"uri": uri, "title": "t"}}],
                                    "groundingSupports": [{"segment": {"startIndex": start, "endIndex": end},
                                                           "groundingChunkIndices": [0]}]}}]}
    body = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in
                   (chunk("One. ", "https://a.example/", 0, 4), chunk("Two.", "https://b.example/", 5, 9)))
    result = gemini.answer(load_response("gemini", body.encode(), "s.sse"), request=None)
    assert [(c.start, c.end, c.url, c.document) for c in result.citations] == [
        (0, 4, "https://a.example/", 0), (5, 9, "https://b.example/", 1)]


def test_gemini_interactions_stream_reassembles_steps() -> None:
    name = "gemini-interactions-google-search.vercel-ai.response.chunks.txt"
    events = _events(name)
    interaction = _load(name)
    assert interaction["status"] == "completed"
    assert [s["type"] for s in interaction["steps"]] == [
        e["step"]["type"] for e in events if e["event_type"] == "step.start"]
    output = next(s for s in interaction["steps"] if s["type"] == "model_output")
    assert output["content"][0]["text"] == "".join(
        e["delta"]["text"] for e in events if e["event_type"] == "step.delta" and e["delta"]["type"] == "text")
    assert len(output["content"][0]["annotations"]) == 14


def test_whole_json_in_a_sse_named_file_is_a_whole_response() -> None:
    response = _load("gemini-generate-content-url-context.pydantic-ai.response.sse.txt")
    assert response["candidates"][0]["urlContextMetadata"]["urlMetadata"][0]["retrievedUrl"]


def test_sse_framing_comments_multiline_data_cr_and_done() -> None:
    events = [
        {"type": "message_start", "message": {"id": "m", "content": [], "role": "assistant"}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hé "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {
            "type": "char_location", "cited_text": "x", "document_index": 0}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "llo"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
    lines = [": a comment", "retry: 100"]
    for event in events:
        text = json.dumps(event, indent=1)  # several data: lines for one event
        lines += [f"event: {event['type']}"] + [f"data:{part}" for part in text.split("\n")] + [""]
    lines += ["data: [DONE]", ""]
    message = load_response("anthropic", "\r".join(lines).encode(), "x.sse")
    assert message["content"] == [{"type": "text", "text": "Hé llo", "citations": [
        {"type": "char_location", "cited_text": "x", "document_index": 0}]}]
    assert message["stop_reason"] == "end_turn" and message["usage"] == {"output_tokens": 3}


def test_chat_completion_chunks_reassemble() -> None:
    chunks = [
        {"id": "g", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": "Pydantic "}}]},
        {"id": "g", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"content": "AI.", "annotations": [{"type": "url_citation", "url_citation": {
                "url": "https://ai.pydantic.dev/", "title": "P", "start_index": 0, "end_index": 12}}]},
             "finish_reason": "stop"}]},
    ]
    body = ": OPENROUTER PROCESSING\n\n" + "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    response = load_response("openai", body.encode(), "chat.sse")
    assert response["choices"][0]["message"]["content"] == "Pydantic AI."
    assert response["choices"][0]["finish_reason"] == "stop"
    (citation,) = openai.answer(response, request=None).citations
    assert (citation.start, citation.end, citation.url) == (0, 12, "https://ai.pydantic.dev/")


# --------------------------------------------------------------------------- hostile input

def _error(vendor: str, data: bytes | str) -> ResponseError:
    if isinstance(data, str):
        data = data.encode("utf-8")
    with pytest.raises(ResponseError) as info:
        load_response(vendor, data, "resp.txt")
    return info.value


def test_not_json_names_line_and_column() -> None:
    error = _error("openai", '{"output": [\n  {"type": "message",,}\n]}')
    assert str(error).startswith("resp.txt:2:")
    assert "expecting a property name in double quotes" in str(error)


def test_bad_event_line_names_its_line_and_column() -> None:
    body = 'event: message_start\ndata: {"type":"message_start","message":{"content":[]}}\n\ndata: {oops}\n\n'
    assert str(_error("anthropic", body)).startswith("resp.txt:4:8: expecting a property name")
    error = _error("anthropic", body.replace("data: {oops}", "data:{oops}"))
    assert str(error).startswith("resp.txt:4:7: expecting a property name")
    assert str(_error("anthropic", "event: x\nhello there\n")).startswith("resp.txt:2: not a server-sent")


def test_json_array_and_scalars_are_refused() -> None:
    assert "must be a JSON object" in str(_error("openai", "[1, 2]"))
    assert "must be a JSON object" in str(_error("anthropic", "[1, 2]"))
    assert "an event must be a JSON object" in str(_error("gemini", "[1, 2]"))
    assert "must be a JSON object" in str(_error("openai", '"text"'))
    assert "empty file" in str(_error("openai", "  \n"))


def test_strict_json_duplicates_constants_and_surrogates() -> None:
    error = _error("openai", '{"output": [],\n  "output": []}')
    assert str(error) == "resp.txt:2:3: duplicate key 'output' (first at 1:2); keep one"
    assert str(_error("openai", '{"a": 1,\n "x": NaN}')).startswith("resp.txt:2:")
    assert "infinity" in str(_error("openai", '{"x": 1e400}'))
    body = 'data: {"type": "response.created", "response": {"output": [], "output": []}}\n\n'
    assert str(_error("openai", body)).startswith("resp.txt:1:")
    assert "lone surrogate" in str(_error("gemini", '{"candidates": [{"content": {"parts": [{"text": "\\ud800"}]}}]}'))
    assert "lone surrogate" in str(_error("gemini", 'data: {"\\udfff": 1}\n\n'))
    # Inside a stream, both positions of a duplicate key are the file's.
    lines = '{"type": "response.created"}\n{"type": "x", "type": "y"}\n'
    assert str(_error("openai", lines)) == "resp.txt:2:15: duplicate key 'type' (first at 2:2); keep one"
    body = 'data: {"type": "a", "type": "b"}\n\n'
    assert str(_error("openai", body)) == "resp.txt:1:21: duplicate key 'type' (first at 1:8); keep one"


def test_huge_depth_is_refused_not_a_traceback() -> None:
    for depth in (MAX_DEPTH + 1, 100_000):
        error = _error("openai", "[" * depth + "]" * depth)
        assert "deeper than 64 levels" in str(error)
    nested = '{"a":' * (MAX_DEPTH + 5) + "1" + "}" * (MAX_DEPTH + 5)
    assert "nesting deeper than 64 levels" in str(_error("gemini", f"data: {nested}\n\n"))


def test_over_the_size_limit_is_refused_before_parsing() -> None:
    error = _error("openai", b" " * (MAX_RESPONSE_BYTES + 1))
    assert "64 MiB" in str(error)


def test_not_utf8_and_unknown_vendor() -> None:
    assert "not UTF-8" in str(_error("openai", b'{"a": "\xff"}'))
    assert "unknown provider" in str(_error("mistral", b"{}"))


def test_wrong_types_inside_events_name_the_path() -> None:
    start = 'data: {"type":"message_start","message":{"content":[]}}\n\n'
    block = 'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    error = _error("anthropic", start + block +
                   'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}\n\n')
    assert error.where == "delta.text" and str(error).startswith("resp.txt:5:")
    error = _error("anthropic", start + 'data: {"type":"content_block_delta","index":3,"delta":{}}\n\n')
    assert error.where == "index" and "not open" in str(error)
    error = _error("anthropic", start + block)
    assert "before message_stop" in str(error)
    error = _error("anthropic", 'data: {"type":"error","error":{"message":"overloaded"}}\n\n')
    assert "overloaded" in str(error)
    error = _error("openai", 'data: {"type":"response.output_text.delta","delta":"x"}\n\n')
    assert "before response.created" in str(error)
    error = _error("gemini", 'data: {"candidates": [{"content": {"parts": "no"}}]}\n\n')
    assert error.where == "candidates[0].content.parts"


def _mutations(value: Any, rng: random.Random, count: int) -> list[tuple[str, Any]]:
    """``count`` (path, copy of value with the node at path replaced by a wrong-typed value)."""
    paths: list[list[str | int]] = []
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, at = stack.pop()
        paths.append(at)
        if isinstance(node, dict):
            stack.extend((v, at + [k]) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, at + [i]) for i, v in enumerate(node[:5]))
    out = []
    for at in rng.sample(paths, min(count, len(paths))):
        copy = json.loads(json.dumps(value))
        replacement = rng.choice([None, 5, -1, True, 1.5, "x", [], {}, [1], {"a": 1}])
        if not at:
            continue
        node = copy
        for key in at[:-1]:
            node = node[key]
        node[at[-1]] = replacement
        out.append(("/".join(map(str, at)), copy))
    return out


@pytest.mark.parametrize("name", _streams() + [
    n for n in ("openai-responses-web-search.pydantic-ai.response.json",
                "openai-responses-file-search-with-results.pydantic-ai.response.json",
                "openrouter-chat-completions-web-search.pydantic-ai.response.json",
                "gemini-generate-content-google-search.pydantic-ai.response.json",
                "gemini3-generate-content-file-search.pydantic-ai.response.json",
                "gemini-interactions-google-search.vercel-ai.response.json")])
def test_wrong_types_anywhere_are_a_response_error_never_a_traceback(name: str) -> None:
    """Real files with one value replaced by a wrong type: each loads and imports, or is a ResponseError."""
    vendor = _vendor(name)
    rng = random.Random(name)
    path = corpus_path(*API, name)
    text = path.read_text(encoding="utf-8")
    whole = not text.lstrip().startswith(("data:", "event:")) and len(_events(name)) == 1
    docs = [json.loads(text)] if whole else _events(name)
    frame = (lambda e: json.dumps(e)) if whole else (lambda e: f"data: {json.dumps(e)}\n\n")
    framed = [frame(e) for e in docs]
    adapter = {"openai": openai, "gemini": gemini}.get(vendor)
    tried = 0
    for index in rng.sample(range(len(docs)), min(len(docs), 15)):
        before, after = "".join(framed[:index]), "".join(framed[index + 1:])
        for _, mutated in _mutations(docs[index], rng, 10):
            tried += 1
            try:
                response = load_response(vendor, (before + frame(mutated) + after).encode(), name)
                if adapter is not None:
                    adapter.answer(response, request=None)
            except ResponseError:
                pass
    assert tried


@pytest.mark.parametrize("stream, vendor, message", [
    ("anthropic-messages-web-search-stream.pydantic-ai.response.sse.txt", "openai", "not an OpenAI Responses event"),
    ("anthropic-messages-web-search-stream.pydantic-ai.response.sse.txt", "gemini", "not a Gemini"),
    ("openai-responses-web-search-stream.pydantic-ai.response.sse.txt", "anthropic", "before message_start"),
    ("gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt", "anthropic", "before message_start"),
    ("gemini-stream-generate-content-google-search.pydantic-ai.response.sse.txt", "openai", "not an OpenAI"),
])
def test_a_stream_of_another_provider_is_refused(stream: str, vendor: str, message: str) -> None:
    data = corpus_path(*API, stream).read_bytes()
    with pytest.raises(ResponseError) as info:
        load_response(vendor, data, stream)
    assert message in str(info.value)


def test_numbers_with_too_many_digits_are_positioned_errors() -> None:
    """Regression: int()'s 4,300-digit limit raised ValueError through the import."""
    whole = '{"content": [], "x": 1' + "1" * 5000 + "}"
    assert str(_error("anthropic", whole)).startswith("resp.txt:1:")
    assert "too many digits" in str(_error("anthropic", whole))
    stream = 'data: {"x": 1' + "1" * 5000 + "}\n\n"
    assert "too many digits" in str(_error("openai", stream))
