"""Gemini ``generateContent`` and Interactions API responses as an :class:`~citelint.imports.model.Answer`.

**generateContent** (also a reassembled ``streamGenerateContent``):
``candidates[0].content.parts[]``; the answer is the ``text`` of the text
parts joined with nothing between them. Parts without text (Gemini 3's
``thoughtSignature`` parts carrying a ``toolCall``/``toolResponse`` before
the answer) add nothing; ``thought: true`` parts (thought summaries) are
left out, with a warning. ``groundingMetadata`` has:

- ``groundingChunks[]``: ``web`` {``uri``, ``title``}, ``retrievedContext``
  {``uri``, ``title``, ``text``, ``fileSearchStore``, ``customMetadata``}
  (File Search: ``text`` is the chunk itself) or ``maps`` {``uri``, ``title``};
- ``groundingSupports[]``: ``segment`` {``partIndex``, ``startIndex``,
  ``endIndex``, ``text``} and ``groundingChunkIndices``. The indices are
  **UTF-8 byte offsets** (Google's ``Segment`` reference says "measured in
  bytes"; on ``gemini-stream-generate-content-google-search.pydantic-ai``
  byte slicing reproduces every ``segment.text`` and code-point slicing
  does not once a ``°`` precedes). Without ``partIndex`` they index the
  concatenation of all text parts (that fixture: ten stream chunks; the
  Gemini 3 fixture: past two text-less parts); with it, that part's text.
  A missing ``startIndex`` (or ``endIndex``) is 0: proto3 JSON omits zeros.

Each (support, chunk index) pair is one :class:`Citation`: kind
``grounding_chunk``, ``url`` the chunk ``uri``, ``title`` its title,
``document`` the chunk index. Web URIs are
``vertexaisearch.cloud.google.com/grounding-api-redirect/...`` redirects
(title: only the domain), which the report writer names with the source
map keys that map them, as it does every provider redirect, or, from some
Gemini 2.5 Flash answers, ``google.com/search?q=...`` pages: a note says so
and that the source map can map the chunk by index (key ``"N"``) or title. ``segment.text`` is the
model's claim, not a quote of the source, and ``retrievedContext.text`` is
the whole chunk, not the cited passage: ``quote`` is None; a note says a
file-search chunk could be captured. ``urlContextMetadata.urlMetadata[]``
(URLs the url-context tool fetched, with their status) becomes warnings.

**Interactions API** (``steps[]``): ``model_output`` steps hold
``content[]`` items ``{type: text, text, annotations[]}`` with
``{type: url_citation, start_index, end_index, url, title}``. The offsets
are taken as UTF-8 bytes into that item's text, as generateContent's are
(same grounding back end); the one fixture
(``gemini-interactions-google-search.vercel-ai``) is ASCII-only, so the unit
is unconfirmed there and a warning says so whenever the text is not ASCII.

Validation: wrong types, negative offsets, offsets past the text, inside a
UTF-8 sequence, or reversed, and chunk indices out of range are a
:class:`ResponseError` naming the value's path. A ``segment.text`` that
differs from the converted slice is kept, with a note on each of its
citations and a warning (hiding it would hide a provider bug).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from citelint.imports import shape
from citelint.imports.model import Answer, Citation, ResponseError, ShapeError

_UNIT = "UTF-8 bytes"
_KIND = "grounding_chunk"


#: The shapes this adapter reads, for the message refusing any other.
SHAPES = ("a GenerateContentResponse (candidates[], groundingMetadata)",
          "an Interaction (steps[], url_citation annotations)")


def recognises(response: object) -> bool:
    """True when ``response`` has one of :data:`SHAPES`."""
    return isinstance(response, dict) and any(isinstance(response.get(k), list) for k in ("candidates", "steps"))


def answer(response: dict[str, Any], *, request: dict[str, Any] | None) -> Answer:
    """The answer and citations of a Gemini ``response`` (a GenerateContentResponse or an Interaction).

    Args:
        response: the response, as :func:`citelint.imports.streams.load_response` returns it.
        request: the request body, or None; offsets do not depend on it
            (only its type is checked).
    Returns:
        An :class:`Answer` with ``vendor="gemini"``, citations ordered by end.
    Raises:
        ResponseError: neither shape, or a bad value (``where`` is its path).
    """
    shape.bodies(response, request)
    if "candidates" in response:
        result = _generate_content(response)
    elif "steps" in response:
        result = _interaction(response)
    else:
        raise ShapeError("neither a Gemini GenerateContentResponse (candidates[]) nor an Interaction (steps[])")
    result.citations.sort(key=lambda c: (c.end, c.start))
    return result


class _Bytes:
    """UTF-8 byte offsets of one text turned into code-point offsets."""

    def __init__(self, text: str, where: str):
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ResponseError(f"{where} holds a lone surrogate at code point {exc.start}: not Unicode text, "
                                f"so it has no UTF-8 offsets", where) from None
        self._last = (0, 0)  # (byte offset, code points before it): supports come mostly in order

    def to_code_points(self, offset: int, where: str) -> int:
        """Code points before byte ``offset``.

        Raises:
            ResponseError: ``offset`` falls inside a UTF-8 sequence.
        """
        if offset < len(self.data) and (self.data[offset] & 0xC0) == 0x80:
            raise ResponseError(f"{where} puts byte {offset} of the text inside a UTF-8 sequence: not a "
                                f"character boundary (the offsets are UTF-8 bytes)", where)
        byte, points = self._last if offset >= self._last[0] else (0, 0)
        points += len(self.data[byte:offset].decode("utf-8"))
        self._last = (offset, points)
        return points


def _generate_content(response: dict[str, Any]) -> Answer:
    result = Answer("gemini", "")
    candidates = shape.field(response, "candidates", "", "array")
    if not candidates:
        raise ResponseError("candidates is empty: no answer (blocked? see promptFeedback)", "candidates")
    if len(candidates) > 1:
        result.warnings.append(f"{len(candidates)} candidates: only candidates[0] is imported")
    where = "candidates[0]"
    candidate = shape.obj(candidates[0], where)
    reason = candidate.get("finishReason")
    if reason not in (None, "STOP"):
        result.warnings.append(f"finishReason is {shape.show(str(reason))}, not STOP: the answer may be cut short")
    content = shape.field(candidate, "content", where, "object", required=False, default={})
    parts = shape.field(content, "parts", f"{where}.content", "array", required=False, default=[])
    texts: list[str] = []
    part_start: dict[int, int] = {}  # part index -> byte offset of its text in the joined text
    size = 0
    for i, part in enumerate(parts):
        at = f"{where}.content.parts[{i}]"
        shape.obj(part, at)
        text = shape.field(part, "text", at, "string", required=False)
        if text is None:
            continue
        if shape.field(part, "thought", at, "bool", required=False, default=False):
            result.warnings.append(f"{at} is a thought summary: left out of the answer")
            continue
        part_start[i] = size
        size += len(_Bytes(text, f"{at}.text").data)
        texts.append(text)
    result.text = "".join(texts)
    _url_context(candidate, where, result)
    metadata = shape.field(candidate, "groundingMetadata", where, "object", required=False)
    if not metadata or not metadata.get("groundingSupports"):
        result.warnings.append("no groundingMetadata.groundingSupports: the answer cites nothing")
        return result
    where += ".groundingMetadata"
    chunks = [_chunk(c, f"{where}.groundingChunks[{n}]", n)
              for n, c in enumerate(shape.field(metadata, "groundingChunks", where, "array", required=False,
                                                default=[]))]
    index = _Bytes(result.text, "candidates[0].content.parts")
    disagreements = 0
    for n, support in enumerate(shape.field(metadata, "groundingSupports", where, "array")):
        at = f"{where}.groundingSupports[{n}]"
        shape.obj(support, at)
        segment = shape.field(support, "segment", at, "object")
        seg_at = f"{at}.segment"
        base, limit = 0, size
        part = shape.field(segment, "partIndex", seg_at, "int", required=False)
        if part is not None:
            if part not in part_start:
                raise ResponseError(f"{seg_at}.partIndex {part} names no text part", f"{seg_at}.partIndex")
            base = part_start[part]
            limit = len(_Bytes(parts[part]["text"], f"{seg_at}.partIndex").data)
        start, end = shape.span(segment, ("startIndex", "endIndex"), seg_at, limit, _UNIT, start_default=0)
        cp_start = index.to_code_points(base + start, f"{seg_at}.startIndex")
        cp_end = index.to_code_points(base + end, f"{seg_at}.endIndex")
        notes = _segment_notes(segment, seg_at, result.text, cp_start, cp_end, base + start, base + end)
        disagreements += bool(notes)
        indices = shape.field(support, "groundingChunkIndices", at, "array", required=False, default=[])
        if not indices:
            result.warnings.append(f"{at} names no grounding chunk: not imported")
        for k, chunk_index in enumerate(indices):
            idx_at = f"{at}.groundingChunkIndices[{k}]"
            if isinstance(chunk_index, bool) or not isinstance(chunk_index, int):
                raise ResponseError(f"{idx_at} must be an integer, found {shape.kind(chunk_index)}", idx_at)
            if not 0 <= chunk_index < len(chunks):
                raise ResponseError(f"{idx_at} is {chunk_index}, but there are {len(chunks)} grounding chunks",
                                    idx_at)
            url, title, chunk_notes = chunks[chunk_index]
            result.citations.append(Citation(cp_start, cp_end, _KIND, url=url, title=title, document=chunk_index,
                                             notes=tuple(notes) + chunk_notes))
    if disagreements:
        result.warnings.append(f"{disagreements} grounding support(s) whose segment.text differs from the text at "
                               f"their offsets (see the citation notes)")
    return result


def _segment_notes(segment: dict[str, Any], where: str, text: str, start: int, end: int,
                   byte_start: int, byte_end: int) -> list[str]:
    claimed = shape.field(segment, "text", where, "string", required=False)
    if claimed is None or claimed == text[start:end]:
        return []
    note = (f"{where}.text {shape.show(claimed, 60)} differs from the answer at UTF-8 bytes "
            f"{byte_start}..{byte_end}, {shape.show(text[start:end], 60)}")
    if text[byte_start:byte_end] == claimed:
        note += "; it matches as code points, not bytes"
    return [note]


def _chunk(chunk: Any, where: str, number: int) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(url, title, notes) of grounding chunk ``number``."""
    shape.obj(chunk, where)
    for key in ("web", "retrievedContext", "maps"):
        if chunk.get(key) is not None:
            inner = shape.field(chunk, key, where, "object")
            break
    else:
        return None, None, (f"grounding chunk {number} is of no known kind (web, retrievedContext, maps): "
                            f"the source map must name it by index \"{number}\"",)
    at = f"{where}.{key}"
    url = shape.field(inner, "uri", at, "string", required=False) or None
    title = shape.field(inner, "title", at, "string", required=False) or None
    notes = list(_url_notes(url, number)) if url else []
    if key == "retrievedContext":
        store = shape.field(inner, "fileSearchStore", at, "string", required=False)
        notes.append(f"a File Search chunk{' of ' + shape.show(store) if store else ''}: the response carries "
                     f"the chunk text the model saw; capture it to check citations against it")
        metadata = inner.get("customMetadata")
        for entry in metadata if isinstance(metadata, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("stringValue"), str):
                notes.append(f"the chunk's customMetadata {shape.show(str(entry.get('key')))} is "
                             f"{shape.show(entry['stringValue'])}")
        if url is None:
            notes.append(f"the chunk names no URL: the source map must supply it (key \"{number}\")")
    return url, title, tuple(notes)


def _url_notes(url: str, number: int | None) -> tuple[str, ...]:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    key = f"by the chunk index (key \"{number}\") or title" if number is not None else "by its title"
    # A grounding-api-redirect URL gets no note here: the writer reports every provider redirect,
    # with the source map keys that map it (write.REDIRECT_PREFIXES), once.
    if host in ("google.com", "www.google.com") and parts.path == "/search":
        return (f"the URL is a Google search page, not the source; the source map can map it {key}",)
    return ()


def _url_context(candidate: dict[str, Any], where: str, result: Answer) -> None:
    metadata = shape.field(candidate, "urlContextMetadata", where, "object", required=False)
    if not metadata:
        return
    where += ".urlContextMetadata"
    for n, entry in enumerate(shape.field(metadata, "urlMetadata", where, "array", required=False, default=[])):
        at = f"{where}.urlMetadata[{n}]"
        shape.obj(entry, at)
        url = shape.field(entry, "retrievedUrl", at, "string", required=False, default="")
        status = shape.field(entry, "urlRetrievalStatus", at, "string", required=False, default="unknown")
        result.warnings.append(f"the url-context tool fetched {shape.show(url, 200)} ({shape.show(status)}); "
                               f"capture it to check what the model read")


def _interaction(response: dict[str, Any]) -> Answer:
    result = Answer("gemini", "")
    status = response.get("status")
    if status not in (None, "completed"):
        result.warnings.append(f"the interaction status is {shape.show(str(status))}, not completed")
    texts: list[str] = []
    base = 0
    for i, step in enumerate(shape.field(response, "steps", "", "array")):
        where = f"steps[{i}]"
        shape.obj(step, where)
        if step.get("type") != "model_output":
            continue
        for j, item in enumerate(shape.field(step, "content", where, "array", required=False, default=[])):
            at = f"{where}.content[{j}]"
            shape.obj(item, at)
            if item.get("type") != "text":
                continue
            text = shape.field(item, "text", at, "string")
            index = _Bytes(text, f"{at}.text")
            for k, note in enumerate(shape.field(item, "annotations", at, "array", required=False, default=[])):
                note_at = f"{at}.annotations[{k}]"
                shape.obj(note, note_at)
                kind = shape.field(note, "type", note_at, "string")
                if kind != "url_citation":
                    result.warnings.append(f"{note_at}: annotation of type {shape.show(kind)} is not imported")
                    continue
                start, end = shape.span(note, ("start_index", "end_index"), note_at, len(index.data), _UNIT,
                                        start_default=0)
                url = shape.field(note, "url", note_at, "string", required=False) or None
                result.citations.append(Citation(
                    base + index.to_code_points(start, f"{note_at}.start_index"),
                    base + index.to_code_points(end, f"{note_at}.end_index"), kind, url=url,
                    title=shape.field(note, "title", note_at, "string", required=False),
                    notes=_url_notes(url, None) if url else ("the citation names no URL",)))
            if not text.isascii() and item.get("annotations"):
                result.warnings.append(f"{at}: Interactions API offsets are taken as UTF-8 bytes (as "
                                       f"generateContent's); unconfirmed on non-ASCII text, check the spans")
            texts.append(text)
            base += len(text)
    result.text = "".join(texts)
    if not texts:
        result.warnings.append("the interaction has no model_output text: no answer to import")
    return result
