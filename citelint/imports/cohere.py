"""Cohere chat v2 responses as an :class:`~citelint.imports.model.Answer`.

The shape (Cohere's API reference, ``POST /v2/chat``; no public recording is
in the corpus, so the tests build their inputs from the reference and say
so): ``message.content[]`` holds parts of ``type: "text"`` with ``text``;
``message.citations[]`` holds

- ``start``, ``end``: offsets of the cited span **of the answer** (end
  exclusive), read as code points, within the text part ``content_index``
  names when it is given, else within the joined answer; ``text``: that
  span of the answer (not a quote of the source, so
  :attr:`Citation.quote` stays None);
- ``sources[]``: each ``{type: "document", id, document: {...}}`` (the
  document as the request passed it: ``title``, ``url``, ``snippet``... as
  the caller chose) or ``{type: "tool", id, tool_output: {...}}`` (a tool
  result; ``document`` is accepted in its place);
- ``type``: ``TEXT_CONTENT``, or ``PLAN`` for a citation of the tool plan,
  which is not the answer: skipped with a warning.

Each source of a citation is one :class:`Citation` of the span: its URL is
the source's ``url`` field where it has one, and a source map can name it
by the source ``id`` (``"doc:0"``) or its ``title``. A citation with no
sources has no URL: it is not linked, never dropped.

The text parts are joined with no separator (the reference shows one text
part; the offsets are checked against the joined text either way). Where
``text[start:end]`` is not the citation's ``text``, UTF-16 code units are
tried (:func:`citelint.imports.anthropic.offset_unit`); if neither
matches, the citation's note and a warning say so, and the link still goes
after ``end`` as given: a disagreement is reported, never repaired.
Non-text parts (``thinking``) are not the answer. A ``finish_reason``
other than ``COMPLETE`` is a warning.
"""

from __future__ import annotations

from typing import Any

from citelint.imports import shape
from citelint.imports.model import Answer, Citation, ResponseError, ShapeError

#: The shapes this adapter reads, for the message refusing any other.
SHAPES = ("a chat v2 response (message.content[] text parts, message.citations[] with sources[])",)

_UNIT = "code points"


def recognises(response: object) -> bool:
    """True when ``response`` has the chat v2 shape: a ``message`` object, no ``choices``."""
    return isinstance(response, dict) and isinstance(response.get("message"), dict) and "choices" not in response


def answer(response: dict[str, Any], *, request: dict[str, Any] | None) -> Answer:
    """The answer and citations of a Cohere chat v2 ``response``.

    Args:
        response: the response, as :func:`citelint.imports.streams.load_response`
            returns it (a saved stream reassembled).
        request: the request body, or None (only its type is checked).
    Returns:
        An :class:`Answer` with ``vendor="cohere"``, one citation per source
        of each citation (one with no URL for a citation with no sources),
        ordered by end.
    Raises:
        ShapeError: not the chat v2 shape.
        ResponseError: a bad value (``where`` is its path).
    """
    shape.bodies(response, request)
    if not recognises(response):
        raise ShapeError("not a Cohere chat v2 response (message.content[], message.citations[])", "message")
    result = Answer("cohere", "")
    finish = response.get("finish_reason")
    if finish not in (None, "COMPLETE"):
        result.warnings.append(f"the finish_reason is {shape.show(str(finish))}, not COMPLETE: the answer may be "
                               "cut short")
    message = response["message"]
    texts: list[str] = []
    parts: dict[int, tuple[int, int]] = {}  # content index -> (start, end) of that text part in the answer
    for i, part in enumerate(shape.field(message, "content", "message", "array", required=False, default=[])):
        where = f"message.content[{i}]"
        shape.obj(part, where)
        if shape.field(part, "type", where, "string") == "text":
            start = sum(map(len, texts))
            texts.append(shape.field(part, "text", where, "string"))
            parts[i] = (start, start + len(texts[-1]))
    result.text = "".join(texts)
    citations = shape.field(message, "citations", "message", "array", required=False, default=[])
    if not texts and any(not (isinstance(c, dict) and c.get("type") == "PLAN") for c in citations):
        # Offsets into no text would each be "past the end": the problem is the missing text.
        missing = "is missing" if message.get("content") is None else "holds no text part"
        raise ResponseError(f"message.content {missing}, but message.citations cites spans of its text",
                            "message.content")
    if not texts:
        result.warnings.append("the response has no text content: no answer to import")
    for i, cite in enumerate(citations):
        result.citations += _citation(cite, f"message.citations[{i}]", result, parts)
    result.citations.sort(key=lambda c: (c.end, c.start))
    return result


def _citation(cite: Any, where: str, result: Answer, parts: dict[int, tuple[int, int]]) -> list[Citation]:
    from citelint.imports.anthropic import offset_unit

    shape.obj(cite, where)
    kind = shape.field(cite, "type", where, "string", required=False, default="TEXT_CONTENT")
    if kind == "PLAN":
        result.warnings.append(f"{where}: a citation of the tool plan, not of the answer: not imported")
        result.skipped += 1
        return []
    # With content_index, the offsets count within that text part; without, within the joined answer.
    index = shape.field(cite, "content_index", where, "int", required=False)
    if index is not None and index not in parts:
        at = shape.path(where, "content_index")
        raise ResponseError(f"{at} is {index}, which names no text part of message.content", at)
    base, limit = parts[index] if index is not None else (0, len(result.text))
    text = result.text[base:limit]
    start, end = shape.span(cite, ("start", "end"), where, len(text), _UNIT)
    span = shape.field(cite, "text", where, "string", required=False)
    notes: list[str] = []
    if span is not None:
        unit = offset_unit(text, start, end, span)
        if unit is None:
            result.warnings.append(f"{where}: offsets {start}-{end} disagree with the citation's text")
            notes.append(f"offsets disagree: the answer [{start}:{end}] is not the citation's text "
                         f"{shape.show(span)}")
        elif unit == "UTF-16 code units":
            notes.append(f"offsets {start}-{end} match counted in UTF-16 code units")
    start, end = base + start, base + end
    sources = shape.field(cite, "sources", where, "array", required=False, default=[])
    if not sources:
        return [Citation(start, end, kind.lower(), notes=tuple(notes + ["the citation names no source"]))]
    return [_source(source, f"{where}.sources[{j}]", start, end, notes) for j, source in enumerate(sources)]


def _source(source: Any, where: str, start: int, end: int, notes: list[str]) -> Citation:
    shape.obj(source, where)
    kind = shape.field(source, "type", where, "string")
    if kind not in ("document", "tool"):
        raise ResponseError(f"{shape.path(where, 'type')} is {shape.show(kind)}; expected \"document\" or \"tool\"",
                            shape.path(where, "type"))
    ident = shape.field(source, "id", where, "string", required=False) or None
    key = "tool_output" if kind == "tool" and "tool_output" in source else "document"
    data = shape.field(source, key, where, "object", required=False, default={})
    at = shape.path(where, key)
    url = data.get("url")
    if url is not None and not isinstance(url, str):
        raise ResponseError(f"{shape.path(at, 'url')} must be a string, found {shape.kind(url)}", shape.path(at, "url"))
    title = data.get("title") if isinstance(data.get("title"), str) and data.get("title") else None
    extra = [] if kind == "document" else ["a tool result: its URL, if any, is the tool output's url"]
    return Citation(start, end, kind, url=url or None, title=title, key=ident, notes=tuple(notes + extra))
