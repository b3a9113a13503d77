"""Anthropic Messages responses with citations, as an :class:`~citelint.imports.model.Answer`.

A response's ``content`` is a list of blocks; the answer is its ``text``
blocks joined with no separator (the API splits the answer into blocks at
citation boundaries, so that is the text as the model wrote it). A text
block's ``citations`` support that whole block. Citation types (Messages API,
"Citations" and "Web search tool" guides):

- ``char_location``: ``cited_text`` of text document ``document_index``,
  ``start_char_index``/``end_char_index`` (end exclusive);
- ``page_location``: a PDF's pages ``start_page_number`` (1-based) to
  ``end_page_number`` (exclusive); ``cited_text`` is Anthropic's own text
  layer of the PDF, with ``\r\n`` line breaks and U+0002 where the page
  hyphenates a word; the report quotes it transformed
  (:func:`citelint.imports.write.quotation`) and names the pages in the
  link title (``pages:3-4``), so that ``check`` verifies it on those pages;
- ``content_block_location``: blocks ``start_block_index`` to
  ``end_block_index`` (exclusive) of a custom-content document; ``cited_text``
  is those blocks joined with no separator;
- ``search_result_location``: the same, in ``search_result_index``, with the
  result's ``source``;
- ``web_search_result_location``: ``url``, ``title`` and a ``cited_text``
  excerpt of at most about 150 characters, cut with a trailing ``...`` and
  HTML-escaped in places; the page itself travels only encrypted.

With the request, each quote is tied to the document it came from: its
capture is the SHA-256 of the document's text as
:func:`citelint.imports.documents.request_documents` derives it, and the
offsets are checked (``text[start:end] == cited_text``). The index unit is
not settled by any public recording (none has non-ASCII text before a cited
span), so both code points and UTF-16 code units are tried and the note says
which one matched; a disagreement is a note and a warning, never hidden.
``cited_text`` is compared as it is, trailing space included.
"""

from __future__ import annotations

from typing import Any

from citelint.imports import shape
from citelint.imports.documents import (
    DOCUMENT,
    SEARCH_RESULT,
    RequestDocument,
    find_document,
    request_documents,
)
from citelint.imports.model import Answer, Citation, ResponseError, ShapeError
from citelint.store.record import sha256_hex

#: What Anthropic appends to a web-search excerpt it cut.
ELLIPSIS = "..."


def _int(cite: dict, key: str, where: str, required: bool = False) -> int | None:
    value = shape.field(cite, key, where, "int", required=required)
    if value is not None and value < 0:
        raise ResponseError(f"{shape.path(where, key)} is negative ({value})", shape.path(where, key))
    return value


def _utf16_slice(text: str, start: int, end: int) -> str | None:
    """``text`` between UTF-16 code-unit offsets, or None when an offset
    splits a surrogate pair or lies past the end."""
    units = text.encode("utf-16-le", "surrogatepass")
    if end * 2 > len(units) or start > end:
        return None
    try:
        return units[start * 2:end * 2].decode("utf-16-le")
    except UnicodeDecodeError:
        return None


def offset_unit(text: str, start: int, end: int, cited: str) -> str | None:
    """Which unit makes ``text[start:end] == cited``: ``"code points"``,
    ``"UTF-16 code units"``, ``"code points and UTF-16 code units"`` (both
    agree, as they do unless a character outside the Basic Multilingual
    Plane, such as an emoji, comes before ``end``), or None when neither does."""
    points = end <= len(text) and start <= end and text[start:end] == cited
    units = _utf16_slice(text, start, end) == cited
    if points and units:
        return "code points and UTF-16 code units"
    if points:
        return "code points"
    if units:
        return "UTF-16 code units"
    return None


def _offset_notes(doc: RequestDocument, start: int | None, end: int | None, cited: str,
                  warnings: list[str]) -> list[str]:
    """Notes on a ``char_location``'s offsets against the document text."""
    assert doc.text is not None
    if start is None or end is None:
        if cited not in doc.text:
            warnings.append(f"a quote of {doc.label} does not occur in its text")
            return ["the cited text does not occur in the document text the request sent"]
        return []
    unit = offset_unit(doc.text, start, end, cited)
    if unit is None:
        warnings.append(f"offsets {start}-{end} of {doc.label} disagree with the cited text")
        where = "occurs elsewhere in the document" if cited in doc.text else "does not occur in the document"
        return [f"offsets disagree: the document text [{start}:{end}] is not the cited text (which {where})"]
    if unit != "code points and UTF-16 code units":
        return [f"offsets {start}-{end} match counted in {unit}"]
    return []


def _block_notes(doc: RequestDocument, start: int | None, end: int | None, cited: str,
                 warnings: list[str]) -> list[str]:
    """Notes on block indices (``content_block_location``, ``search_result_location``)."""
    if start is None or end is None:
        ok = cited in (doc.text or "")
    else:
        ok = end <= len(doc.blocks) and start < end and "".join(doc.blocks[start:end]) == cited
    if ok:
        return []
    warnings.append(f"blocks {start}-{end} of {doc.label} disagree with the cited text")
    return [f"block indices disagree: blocks [{start}:{end}] joined are not the cited text"]


def _lookup(documents: list[RequestDocument] | None, kind: str, index: int | None, title: str | None,
            notes: list[str]) -> RequestDocument | None:
    """The request document a citation names, by index, else by a unique title."""
    if documents is None:
        return None
    if index is not None:
        doc = find_document(documents, kind, index)
        if doc is None:
            notes.append(f"the request has no {kind.replace('_', ' ')} {index}")
        elif title is not None and doc.title is not None and doc.title != title:
            notes.append(f"the cited title {title!r} is not the title of {doc.label}")
        return doc
    same = [d for d in documents if d.kind == kind and title is not None and d.title == title]
    if len(same) == 1:
        return same[0]
    notes.append("the citation has no index, and its title names " +
                 ("no document of the request" if not same else f"{len(same)} documents of the request"))
    return None


def _capture_note(url: str | None) -> str:
    return ("the request does not hold this source's text: the operator must capture "
            + (f"{url} (citelint capture URL)" if url else "the source")
            + " before citelint check can verify this quotation")


def _citation(cite: Any, start: int, end: int, where: str, documents: list[RequestDocument] | None,
              warnings: list[str]) -> Citation:
    shape.obj(cite, where)
    kind = shape.field(cite, "type", where, "string")
    cited = shape.field(cite, "cited_text", where, "string", required=False)
    notes: list[str] = []
    base: dict[str, Any] = dict(start=start, end=end, kind=kind, quote=cited or None)

    if kind == "web_search_result_location":
        url = shape.field(cite, "url", where, "string")
        title = cite.get("title") if isinstance(cite.get("title"), str) else None
        truncated = bool(cited) and cited.endswith(ELLIPSIS)
        notes.append("a provider excerpt: the quotation is the cited text with HTML character references "
                     "decoded" + (" and the trailing '...' removed" if truncated else ""))
        notes.append(_capture_note(url))
        return Citation(**base, url=url, title=title, truncated=truncated, entities=True, notes=tuple(notes))

    if kind in ("char_location", "page_location", "content_block_location"):
        index = _int(cite, "document_index", where)
        title = cite.get("document_title") if isinstance(cite.get("document_title"), str) else None
        first, last = {"char_location": ("start_char_index", "end_char_index"),
                       "page_location": ("start_page_number", "end_page_number"),
                       "content_block_location": ("start_block_index", "end_block_index")}[kind]
        start_at, end_at = _int(cite, first, where), _int(cite, last, where)
        doc = _lookup(documents, DOCUMENT, index, title, notes)
        capture = None
        pages = None
        if kind == "page_location":
            notes.append("a PDF page quotation: the cited text is Anthropic's text layer of the PDF, quoted with "
                         "U+0002 removed and each whitespace run as one space, and checked on its pages")
            notes.append(_capture_note(doc.url if doc else None))
            if start_at is not None and start_at >= 1:
                pages = (start_at, max(start_at, (end_at or start_at + 1) - 1))
        elif doc is not None and doc.text is not None and cited is not None:
            capture = sha256_hex(doc.text)
            if doc.capture is not None and doc.capture != capture:
                warnings.append(f"{doc.label} names capture {doc.capture[:12]}… in its context, but its text "
                                f"is capture {capture[:12]}…")
                notes.append(f"the document's context names capture {doc.capture}, but the text the request "
                             "sent is not that capture's text (was it edited after citelint context wrote it?)")
            check = _offset_notes if kind == "char_location" else _block_notes
            notes += check(doc, start_at, end_at, cited, warnings)
        elif doc is not None and doc.problem:
            notes.append(f"{doc.label}: {doc.problem}")
        return Citation(**base, title=title if title is not None else (doc.title if doc else None),
                        document=index if index is not None else (doc.index if doc else None),
                        url=doc.url if doc else None, capture=capture, notes=tuple(notes), pages=pages,
                        page_text=kind == "page_location")

    if kind == "search_result_location":
        index = _int(cite, "search_result_index", where)
        title = cite.get("title") if isinstance(cite.get("title"), str) else None
        source = cite.get("source") if isinstance(cite.get("source"), str) else None
        start_at, end_at = _int(cite, "start_block_index", where), _int(cite, "end_block_index", where)
        doc = _lookup(documents, SEARCH_RESULT, index, title, notes)
        capture = None
        if doc is not None and cited is not None:
            capture = sha256_hex(doc.text or "")
            notes += _block_notes(doc, start_at, end_at, cited, warnings)
        url = doc.url if doc is not None else None
        if url is None and source is not None and "://" in source:
            url = source
        return Citation(**base, title=title, document=index, url=url, capture=capture, notes=tuple(notes))

    notes.append(f"citation type {kind!r} is not known to this version of citelint; its text is not tied "
                 "to any source")
    return Citation(**base, notes=tuple(notes))


#: The shapes this adapter reads, for the message refusing any other.
SHAPES = ("a Messages response (content[] of text blocks with citations)",
          "its content list alone, as SDK wrappers save it")


def recognises(response: object) -> bool:
    """True when ``response`` has one of :data:`SHAPES` (a list of content
    blocks is already ``{"content": [...]}`` here: :mod:`citelint.imports.streams`)."""
    return isinstance(response, dict) and isinstance(response.get("content"), list)


def answer(response: Any, *, request: dict | None) -> Answer:
    """The :class:`Answer` of one whole (non-streamed) Messages response.

    ``response`` is the response body (an object with ``content``), or its
    ``content`` list alone, as SDK wrappers such as LangChain save it.
    ``request`` is the request body that produced it, or None.

    Returns:
        The answer: text blocks joined, citations in order of their span's
        end, warnings about offsets that disagree or a missing request.

    Raises:
        ResponseError: a shape the Messages API does not produce, with the
            JSON path of the offending value (paths into the request start
            with ``messages``, and the message says it is the request's).
    """
    content = response.get("content") if isinstance(response, dict) else response
    if not isinstance(content, list):
        raise ShapeError("not an Anthropic Messages response: no content list", "content")
    documents = None
    if request is not None:
        try:
            documents = request_documents(request)
        except ResponseError as exc:
            raise ResponseError(f"in the request: {exc}", exc.where) from None
    warnings: list[str] = []
    parts: list[str] = []
    citations: list[Citation] = []
    length = 0
    for b, block in enumerate(content):
        where = f"content[{b}]"
        shape.obj(block, where)
        if block.get("type") != "text":
            continue  # thinking, tool use and tool results are not the answer
        text = shape.field(block, "text", where, "string")
        cites = shape.field(block, "citations", where, "array", required=False)
        for c, cite in enumerate(cites or []):
            citations.append(_citation(cite, length, length + len(text), f"{where}.citations[{c}]",
                                       documents, warnings))
        parts.append(text)
        length += len(text)
    if request is None and any(c.kind != "web_search_result_location" for c in citations):
        warnings.append("no request given (--request): quotations name no capture, so citelint check "
                        "verifies them against the newest revision of each source")
    return Answer(vendor="anthropic", text="".join(parts), citations=citations, warnings=warnings)
