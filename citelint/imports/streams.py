"""A saved response file, whole or streamed, as one response in the provider's non-streamed shape.

:func:`load_response` accepts the three framings of
:mod:`citelint.imports.framing`: a whole JSON response (one JSON object; a
JSON array only for Gemini, whose ``streamGenerateContent`` without
``alt=sse`` answers with an array of chunks, and for Anthropic when it is a
list of content blocks, what SDKs print as a message's ``content``: the
langchainjs fixtures, returned as ``{"content": [...]}``), server-sent
events, or one JSON event per line.

The events are then reassembled per provider:

- **Anthropic Messages** (``message_start``, ``content_block_start``,
  ``content_block_delta`` with ``text_delta``, ``citations_delta``,
  ``input_json_delta``, ``thinking_delta``, ``signature_delta``,
  ``content_block_stop``, ``message_delta``, ``message_stop``, ``ping``,
  ``error``) into the Messages response: each text block gets its text and,
  in order, its ``citations`` (one per ``citations_delta``); a tool block
  gets its ``input`` parsed from the concatenated ``partial_json``. A delta
  for a block never started or already stopped, an unknown event or delta
  type, an ``error`` event, or a stream with no ``message_stop`` is an error (a truncated recording must
  not pass as the whole answer).
- **OpenAI Responses**: the ``response`` of ``response.completed`` (or
  ``response.incomplete``) when present, since it is the provider's own
  whole response; otherwise it is assembled from ``response.created``,
  ``response.output_item.added``/``done``, ``response.content_part.added``,
  ``response.output_text.delta``/``done`` and
  ``response.output_text.annotation.added``, and keeps the ``status`` the
  stream last reported (so the adapter can say the answer is incomplete).
  Other ``response.*`` events (tool progress) are passed over, since the
  ``output_item.done`` that follows carries the item; ``error`` and
  ``response.failed`` are errors.
  Chat Completions chunks (``chat.completion.chunk``, OpenRouter, and
  Perplexity's stream) are assembled into ``choices[].message`` with
  ``content`` and ``annotations``; top-level keys (Perplexity's
  ``citations``, ``search_results``) are kept as the last chunk gave them.
- **Cohere** chat v2 (built from Cohere's API reference: no recording of a
  stream is public): ``message-start`` (``id``), ``content-start`` and
  ``content-delta`` (``index``, ``delta.message.content`` with ``text`` or
  ``thinking``), ``citation-start`` (``delta.message.citations``, one
  citation), ``message-end`` (``delta.finish_reason``) into the chat v2
  response; ``content-end``, ``citation-end``, ``tool-plan-delta``,
  ``tool-call-*`` and ``debug`` carry nothing the answer needs. An unknown
  event type, a delta for content never started, or a stream with no
  ``message-end`` is an error.
- **Gemini** ``streamGenerateContent``: each event is a whole
  GenerateContentResponse chunk. Candidates are matched by ``index``; their
  ``content.parts`` are concatenated in order, because
  ``groundingSupports[].segment`` offsets index the concatenation of the
  text parts of all chunks (checked on
  ``gemini-stream-generate-content-google-search.pydantic-ai``: only the last
  chunk carries ``groundingMetadata``, and byte offsets into the joined
  text of all ten chunks reproduce every ``segment.text``). When several
  chunks carry grounding metadata (not seen in the corpus), their ``groundingChunks`` are appended
  and later supports' chunk indices shifted past the earlier chunks; an
  identical repeat is kept once. The Gemini **Interactions** stream
  (``event_type`` ``interaction.created``, ``step.start``, ``step.delta``
  with ``text``, ``text_annotation_delta``, ``thought_signature`` and tool
  deltas, ``step.stop``, ``interaction.completed``) becomes the
  interaction with its ``steps``.

Bounds: ``data`` over :data:`MAX_RESPONSE_BYTES` is refused before it is
decoded; JSON is decoded strictly and nesting is bounded
(:func:`citelint.imports.framing.decode_json`).

Every failure is a :class:`~citelint.imports.model.ResponseError` whose
message starts with the file ``name``, then ``:line`` (1-based: the line
of the event's first ``data:``, or of the bad JSON) and ``:col`` where one
position is to blame; ``where`` is the JSON path inside the event ('' when
the framing itself is wrong). The CLI can read the file with
:data:`MAX_RESPONSE_BYTES` as its limit, so a huge file is refused before
it is read whole.
"""

from __future__ import annotations

from typing import Any

from citelint import files
from citelint.imports import shape
from citelint.imports.framing import decode_json, frames
from citelint.imports.model import ResponseError

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
VENDORS = ("anthropic", "openai", "gemini", "cohere", "perplexity")


def load_response(vendor: str, data: bytes, name: str) -> dict[str, Any]:
    """The response saved in ``data`` (bytes of a file named ``name``, for
    messages) as one dict in ``vendor``'s non-streamed shape.

    Args:
        vendor: one of :data:`VENDORS` (a Perplexity stream is Chat
            Completions chunks).
        data: the whole file: a JSON response, server-sent events, or one
            JSON event per line (see the module docstring).
        name: the file name to start messages with.
    Returns:
        The response object (for a stream, reassembled).
    Raises:
        ResponseError: unknown vendor, over MAX_RESPONSE_BYTES, not UTF-8,
            bad framing or JSON (message names the line), an event out of
            order or of the wrong shape (``where`` is its path in the event).
    """
    if vendor not in VENDORS:
        raise ResponseError(f"unknown provider {shape.show(vendor)}; expected one of {', '.join(VENDORS)}")
    if len(data) > MAX_RESPONSE_BYTES:
        raise ResponseError(f"{name}: {len(data)} bytes, over the {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB "
                            f"limit for a saved response")
    try:
        text = files.decode_utf8(data)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResponseError(f"{name}:{line}: not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                            f"({exc.reason})") from None
    whole, events = frames(text, name)
    if events is None:
        if isinstance(whole, list) and vendor == "gemini":
            events = [(1, "", chunk) for chunk in whole]
        elif isinstance(whole, list) and vendor == "anthropic" and whole \
                and all(isinstance(block, dict) and isinstance(block.get("type"), str) for block in whole):
            return {"content": whole}
        elif not isinstance(whole, dict):
            raise ResponseError(f"{name}: the response must be a JSON object, found {shape.kind(whole)}")
        else:
            return whole
    if not events:
        raise ResponseError(f"{name}: a stream with no events")
    for number, _, value in events:
        if not isinstance(value, dict):
            raise ResponseError(f"{name}:{number}: an event must be a JSON object, found {shape.kind(value)}")
    # Perplexity streams only Chat Completions chunks (which carry its citations at the top level),
    # whatever their "object" says: no Responses stream to tell them from.
    assemble = {"anthropic": _anthropic, "openai": _openai, "gemini": _gemini, "perplexity": _chat_chunks,
                "cohere": _cohere}[vendor]
    return assemble(events, name)


def _fail(name: str, line: int, message: str, where: str = "") -> ResponseError:
    return ResponseError(f"{name}:{line}: {message}", where)


def _provider_error(event: dict[str, Any], name: str, line: int) -> ResponseError:
    error = event.get("error")
    detail = error.get("message") if isinstance(error, dict) else error
    return _fail(name, line, f"the stream reports an error: {shape.show(str(detail), 200)}", "error")


# --------------------------------------------------------------------------- Anthropic

def _anthropic(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    message: dict[str, Any] | None = None
    open_blocks: dict[int, str] = {}   # index -> accumulated partial_json
    stopped = False
    for line, _, event in events:
        kind = event.get("type")
        if stopped:
            raise _fail(name, line, f"event {shape.show(str(kind))} after message_stop", "type")
        if kind == "ping":
            continue
        if kind == "error":
            raise _provider_error(event, name, line)
        if kind == "message_start":
            if message is not None:
                raise _fail(name, line, "a second message_start", "type")
            message = dict(_at(event, "message", "object", name, line))
            message["content"] = list(_at(message, "content", "array", name, line, "message"))
            continue
        if message is None:
            raise _fail(name, line, f"event {shape.show(str(kind))} before message_start", "type")
        content = message["content"]
        if kind == "content_block_start":
            index = _at(event, "index", "int", name, line)
            if index != len(content):
                raise _fail(name, line, f"content_block_start index {index}, expected {len(content)}", "index")
            content.append(dict(_at(event, "content_block", "object", name, line)))
            open_blocks[index] = ""
        elif kind == "content_block_delta":
            index = _open_index(event, open_blocks, name, line)
            _anthropic_delta(content[index], _at(event, "delta", "object", name, line),
                             open_blocks, index, name, line)
        elif kind == "content_block_stop":
            index = _open_index(event, open_blocks, name, line)
            partial = open_blocks.pop(index)
            if partial:
                content[index]["input"] = decode_json(partial, name, line)
        elif kind == "message_delta":
            delta = _at(event, "delta", "object", name, line)
            message.update({k: v for k, v in delta.items() if k != "content"})
            usage = event.get("usage")
            if isinstance(usage, dict):
                earlier = message.get("usage")
                merged = dict(earlier) if isinstance(earlier, dict) else {}
                merged.update(usage)
                message["usage"] = merged
        elif kind == "message_stop":
            stopped = True
        else:
            raise _fail(name, line, f"unknown Anthropic event type {shape.show(str(kind))}", "type")
    if message is None:
        raise ResponseError(f"{name}: no message_start event: not an Anthropic Messages stream")
    if not stopped:
        raise ResponseError(f"{name}: the stream ends before message_stop (a truncated recording?)")
    if open_blocks:
        raise ResponseError(f"{name}: content block {min(open_blocks)} is never stopped")
    return message


def _at(parent: dict[str, Any], key: str, kind: str, name: str, line: int, where: str = "") -> Any:
    """:func:`shape.field` (required) with the event's line in the message."""
    try:
        return shape.field(parent, key, where, kind)
    except ResponseError as exc:
        raise _fail(name, line, str(exc), exc.where) from None


def _open_index(event: dict[str, Any], open_blocks: dict[int, str], name: str, line: int) -> int:
    index = _at(event, "index", "int", name, line)
    if index not in open_blocks:
        raise _fail(name, line, f"{event.get('type')} for content block {index}, which is not open", "index")
    return index


def _anthropic_delta(block: dict[str, Any], delta: dict[str, Any], open_blocks: dict[int, str], index: int,
                     name: str, line: int) -> None:
    kind = delta.get("type")
    kind = kind if isinstance(kind, str) else ""
    appended = {"text_delta": "text", "thinking_delta": "thinking"}
    if kind in appended:
        key = appended[kind]
        piece = _at(delta, key, "string", name, line, "delta")
        current = block.get(key) or ""
        if not isinstance(current, str):
            raise _fail(name, line, f"content block {index} has a {key} that is not a string", key)
        block[key] = current + piece
    elif kind == "citations_delta":
        citation = _at(delta, "citation", "object", name, line, "delta")
        citations = block.get("citations")
        block["citations"] = (list(citations) if isinstance(citations, list) else []) + [citation]
    elif kind == "input_json_delta":
        open_blocks[index] += _at(delta, "partial_json", "string", name, line, "delta")
    elif kind == "signature_delta":
        block["signature"] = _at(delta, "signature", "string", name, line, "delta")
    else:
        raise _fail(name, line, f"unknown content_block_delta type {shape.show(str(kind))}", "delta.type")


# --------------------------------------------------------------------------- OpenAI

def _openai(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    first = events[0][2]
    if first.get("object") == "chat.completion.chunk":
        return _chat_chunks(events, name)
    for line, _, event in events:
        if event.get("type") in ("response.completed", "response.incomplete"):
            return dict(_at(event, "response", "object", name, line))
    response: dict[str, Any] | None = None
    for line, _, event in events:
        kind = event.get("type")
        if kind in ("error", "response.failed"):
            raise _provider_error(event.get("response", event) if kind == "response.failed" else event, name, line)
        if kind in ("response.created", "response.in_progress"):
            update = _at(event, "response", "object", name, line)
            output = response["output"] if response else update.get("output") or []
            if not isinstance(output, list) or not all(isinstance(item, dict) for item in output):
                raise _fail(name, line, "response.output must be an array of objects", "response.output")
            response = {**(response or {}), **update, "output": output}
            continue
        if not isinstance(kind, str) or not kind.startswith("response."):
            raise _fail(name, line, f"not an OpenAI Responses event: type {shape.show(str(kind))}", "type")
        if response is None:
            raise _fail(name, line, f"event {shape.show(kind)} before response.created", "type")
        _openai_event(response["output"], kind, event, name, line)
    if response is None:
        raise ResponseError(f"{name}: no response.created event: not an OpenAI Responses stream")
    return response


def _openai_event(output: list[Any], kind: str, event: dict[str, Any], name: str, line: int) -> None:
    if kind in ("response.output_item.added", "response.output_item.done"):
        index = _at(event, "output_index", "int", name, line)
        item = dict(_at(event, "item", "object", name, line))
        if index == len(output):
            output.append(item)
        elif 0 <= index < len(output):
            output[index] = item
        else:
            raise _fail(name, line, f"output_index {index}, but {len(output)} items so far", "output_index")
        return
    if not kind.startswith(("response.content_part.", "response.output_text.")):
        return  # tool progress events: the output_item.done that follows carries the item
    item = output[_index(event, "output_index", len(output), name, line)]
    content = item.setdefault("content", [])
    if not isinstance(content, list):
        raise _fail(name, line, "the output item's content is not an array", "item.content")
    if kind == "response.content_part.added":
        index = _at(event, "content_index", "int", name, line)
        part = dict(_at(event, "part", "object", name, line))
        if index != len(content):
            raise _fail(name, line, f"content_index {index}, expected {len(content)}", "content_index")
        content.append(part)
        return
    part = content[_index(event, "content_index", len(content), name, line)]
    if not isinstance(part, dict):
        raise _fail(name, line, "the content part is not an object", "content_index")
    if kind == "response.output_text.delta":
        part["text"] = _text_of(part, name, line) + _at(event, "delta", "string", name, line)
    elif kind == "response.output_text.annotation.added":
        annotation = _at(event, "annotation", "object", name, line)
        earlier = part.get("annotations") or []
        part["annotations"] = (earlier if isinstance(earlier, list) else []) + [annotation]
    elif kind == "response.output_text.done":
        part["text"] = _at(event, "text", "string", name, line)
    elif kind == "response.content_part.done":
        done = _at(event, "part", "object", name, line)
        if "annotations" not in done and "annotations" in part:
            done = {**done, "annotations": part["annotations"]}
        part.clear()
        part.update(done)


def _index(event: dict[str, Any], key: str, size: int, name: str, line: int) -> int:
    index = _at(event, key, "int", name, line)
    if not 0 <= index < size:
        raise _fail(name, line, f"{key} {index} names nothing announced ({size} so far)", key)
    return index


def _chat_chunks(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    response: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    for line, _, event in events:
        if "error" in event:
            raise _provider_error(event, name, line)
        response.update({k: v for k, v in event.items() if k != "choices"})
        for number, choice in enumerate(_at(event, "choices", "array", name, line)):
            where = f"choices[{number}]"
            if not isinstance(choice, dict):
                raise _fail(name, line, f"{where} must be an object", where)
            index = _at(choice, "index", "int", name, line, where)
            merged = choices.setdefault(index, {"index": index, "message": {"role": "assistant", "content": ""}})
            message = merged["message"]
            delta = _at(choice, "delta", "object", name, line, where)
            text = _at(delta, "content", "string", name, line, f"{where}.delta") \
                if delta.get("content") is not None else ""
            message["content"] += text
            annotations = delta.get("annotations")
            if annotations is not None:
                message["annotations"] = message.get("annotations", []) + list(
                    _at(delta, "annotations", "array", name, line, f"{where}.delta"))
            if choice.get("finish_reason") is not None:
                merged["finish_reason"] = choice["finish_reason"]
    response["object"] = "chat.completion"
    response["choices"] = [choices[i] for i in sorted(choices)]
    return response


# --------------------------------------------------------------------------- Cohere

#: Cohere stream events that carry nothing the answer needs.
_COHERE_PASSED = ("content-end", "citation-end", "tool-plan-delta", "tool-call-start", "tool-call-delta",
                  "tool-call-end", "debug")


def _cohere(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    citations: list[Any] = []
    response: dict[str, Any] = {"message": {"role": "assistant", "content": content, "citations": citations}}
    ended = False
    for line, _, event in events:
        kind = event.get("type")
        if kind == "message-start":
            if isinstance(event.get("id"), str):
                response["id"] = event["id"]
        elif kind in ("content-start", "content-delta", "citation-start"):
            delta = _at(_at(event, "delta", "object", name, line), "message", "object", name, line, "delta")
            if kind == "citation-start":
                citations.append(_at(delta, "citations", "object", name, line, "delta.message"))
                continue
            index = _at(event, "index", "int", name, line)
            part = _at(delta, "content", "object", name, line, "delta.message")
            if kind == "content-start":
                if index != len(content):
                    raise _fail(name, line, f"content-start for index {index}, expected {len(content)}", "index")
                content.append(dict(part))
                continue
            if not 0 <= index < len(content):
                raise _fail(name, line, f"content-delta for index {index}, which was never started", "index")
            for key in ("text", "thinking"):
                if key in part:
                    so_far = content[index].get(key) or ""
                    if not isinstance(so_far, str):
                        raise _fail(name, line, f"the {key} so far is not a string", "index")
                    content[index][key] = so_far + _at(part, key, "string", name, line, "delta.message.content")
        elif kind == "message-end":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("finish_reason") is not None:
                response["finish_reason"] = delta["finish_reason"]
            ended = True
        elif kind not in _COHERE_PASSED:
            raise _fail(name, line, f"not a Cohere chat v2 stream event: type {shape.show(str(kind))}", "type")
    if not ended:
        raise ResponseError(f"{name}: the stream ends before message-end (a truncated recording?)")
    return response


# --------------------------------------------------------------------------- Gemini

def _gemini(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    if "event_type" in events[0][2]:
        return _interaction(events, name)
    response: dict[str, Any] = {}
    candidates: dict[int, dict[str, Any]] = {}
    for line, _, chunk in events:
        if "error" in chunk:
            raise _provider_error(chunk, name, line)
        response.update({k: v for k, v in chunk.items() if k != "candidates"})
        listed = _at(chunk, "candidates", "array", name, line) if "candidates" in chunk else []
        for number, candidate in enumerate(listed):
            where = f"candidates[{number}]"
            if not isinstance(candidate, dict):
                raise _fail(name, line, f"{where} must be an object", where)
            index = _at(candidate, "index", "int", name, line, where) \
                if candidate.get("index") is not None else 0
            _gemini_candidate(candidates.setdefault(index, {"index": index}), candidate, name, line, where)
    if not any("candidates" in chunk or "promptFeedback" in chunk for _, _, chunk in events):
        raise ResponseError(f"{name}: no event carries candidates or promptFeedback: not a Gemini "
                            f"streamGenerateContent stream")
    response["candidates"] = [candidates[i] for i in sorted(candidates)]
    return response


def _gemini_candidate(merged: dict[str, Any], candidate: dict[str, Any], name: str, line: int, where: str) -> None:
    content = candidate.get("content")
    if content is not None:
        content = _at(candidate, "content", "object", name, line, where)
        parts = _at(content, "parts", "array", name, line, f"{where}.content") \
            if content.get("parts") is not None else []
        into = merged.setdefault("content", {"parts": []})
        into["parts"].extend(parts)
        if "role" in content:
            into["role"] = content["role"]
    for key, value in candidate.items():
        if key in ("content", "index") or value in (None, {}, []):
            continue
        if key == "groundingMetadata":
            metadata = _at(candidate, key, "object", name, line, where)
            merged[key] = _merge_grounding(merged.get(key), metadata, name, line, f"{where}.{key}")
        else:
            merged[key] = value


def _merge_grounding(old: dict[str, Any] | None, new: dict[str, Any], name: str, line: int,
                     where: str) -> dict[str, Any]:
    """Grounding metadata of a later chunk merged into the earlier chunks' (see the module docstring)."""
    if old is None or old == new:
        return dict(new)
    merged = {**old, **{k: v for k, v in new.items() if k not in ("groundingChunks", "groundingSupports")}}
    old_chunks = old.get("groundingChunks") or []
    if not isinstance(old_chunks, list) or not isinstance(old.get("groundingSupports") or [], list):
        raise _fail(name, line, "earlier grounding metadata has groundingChunks or groundingSupports that are "
                                "not arrays", where)
    new_chunks = _at(new, "groundingChunks", "array", name, line, where) \
        if new.get("groundingChunks") is not None else []
    shift = len(old_chunks)
    supports = list(old.get("groundingSupports") or [])
    for number, support in enumerate(_at(new, "groundingSupports", "array", name, line, where)
                                     if new.get("groundingSupports") is not None else []):
        at = f"{where}.groundingSupports[{number}]"
        if not isinstance(support, dict):
            raise _fail(name, line, f"{at} must be an object", at)
        indices = _at(support, "groundingChunkIndices", "array", name, line, at) \
            if support.get("groundingChunkIndices") is not None else []
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in indices):
            raise _fail(name, line, f"{at}.groundingChunkIndices must hold integers", f"{at}.groundingChunkIndices")
        supports.append({**support, "groundingChunkIndices": [i + shift for i in indices]})
    merged["groundingChunks"] = old_chunks + list(new_chunks)
    merged["groundingSupports"] = supports
    return merged


def _interaction(events: list[tuple[int, str, Any]], name: str) -> dict[str, Any]:
    interaction: dict[str, Any] | None = None
    steps: dict[int, dict[str, Any]] = {}
    for line, _, event in events:
        kind = event.get("event_type")
        if kind == "error":
            raise _provider_error(event, name, line)
        if kind in ("interaction.created", "interaction.completed"):
            update = _at(event, "interaction", "object", name, line)
            interaction = {**(interaction or {}), **{k: v for k, v in update.items() if k != "steps"}}
            continue
        if interaction is None:
            raise _fail(name, line, f"event {shape.show(str(kind))} before interaction.created", "event_type")
        if kind == "interaction.status_update":
            interaction["status"] = event.get("status")
        elif kind == "step.start":
            index = _at(event, "index", "int", name, line)
            if index in steps:
                raise _fail(name, line, f"step {index} started twice", "index")
            steps[index] = dict(_at(event, "step", "object", name, line))
        elif kind == "step.delta":
            index = _at(event, "index", "int", name, line)
            if index not in steps:
                raise _fail(name, line, f"step.delta for step {index}, which never started", "index")
            _step_delta(steps[index], _at(event, "delta", "object", name, line), name, line)
        elif kind != "step.stop":
            raise _fail(name, line, f"unknown Interactions event type {shape.show(str(kind))}", "event_type")
    if interaction is None:
        raise ResponseError(f"{name}: no interaction.created event: not a Gemini Interactions stream")
    interaction["steps"] = [steps[i] for i in sorted(steps)]
    return interaction


def _text_of(item: dict[str, Any], name: str, line: int) -> str:
    text = item.get("text") or ""
    if not isinstance(text, str):
        raise _fail(name, line, "the text so far is not a string", "index")
    return text


def _step_delta(step: dict[str, Any], delta: dict[str, Any], name: str, line: int) -> None:
    kind = delta.get("type")
    if kind in ("text", "text_annotation_delta"):
        content = step.setdefault("content", [])
        if not isinstance(content, list) or not all(isinstance(item, dict) for item in content):
            raise _fail(name, line, "the step's content is not an array of objects", "index")
        if not content or content[-1].get("type") != "text":
            content.append({"type": "text", "text": ""})
        last = content[-1]
        if kind == "text":
            last["text"] = _text_of(last, name, line) + _at(delta, "text", "string", name, line, "delta")
        else:
            added = _at(delta, "annotations", "array", name, line, "delta")
            earlier = last.get("annotations") or []
            last["annotations"] = (earlier if isinstance(earlier, list) else []) + list(added)
    elif kind == "thought_signature":
        step["signature"] = _at(delta, "signature", "string", name, line, "delta")
    else:
        step.update({k: v for k, v in delta.items() if k != "type"})
