"""The documents an Anthropic Messages request sent, and the text of each.

This is the one place a request document's text is derived. ``citelint
import`` names the capture a quotation must be checked against by the
SHA-256 of that text (``capture:<sha>``), and ``citelint capture
--from-request`` records the same text as that capture, so the two can
only agree if they derive it the same way: here.

What counts as a document, and how each is numbered, follows the Messages
API (Anthropic, "Citations" and "Search results" guides), checked against
the recorded requests in ``corpus/api-citations``:

- a ``document`` block, anywhere in ``messages[].content`` (also inside a
  ``tool_result``'s content), numbered from 0 in request order across all
  messages: the ``document_index`` of ``char_location``,
  ``page_location`` and ``content_block_location`` citations;
- a ``search_result`` block, numbered from 0 in request order on its own:
  the ``search_result_index`` of ``search_result_location`` citations.

Text per source type: ``text`` → ``source.data``; ``content`` → the text
blocks joined with no separator (Anthropic joins cited blocks the same way
in ``cited_text``); ``search_result`` → its text content blocks joined the
same way; ``base64`` → the decoded bytes (a PDF, for the PDF extractor),
no text; ``url`` and ``file`` sources hold no content here.

A document ``citelint context`` wrote names its source and revision itself:
its ``title`` is the source URL and its ``context`` is ``capture:<sha256>``
(:func:`capture_context`). Such a document's ``url`` is its title, so an
import or a ``capture --from-request`` of that request needs no source map;
a title that is a URL with no such context is only a title.

Standard library only: the import stage (untrusted input) and the capture
stage both use it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from citelint.imports.model import ResponseError

#: Largest request or response file read, in bytes (a request carries its PDFs as base64).
MAX_FILE_BYTES = 64 * 1024 * 1024

#: What ``citelint context`` writes in a document's ``context``: this prefix, then the capture digest.
CAPTURE_CONTEXT_PREFIX = "capture:"
_CAPTURE_CONTEXT = re.compile(re.escape(CAPTURE_CONTEXT_PREFIX) + "([0-9a-f]{64})")

#: ``RequestDocument.kind`` values.
DOCUMENT = "document"
SEARCH_RESULT = "search_result"


@dataclass(frozen=True)
class RequestDocument:
    """One document of a request.

    ``kind`` is ``document`` or ``search_result``; ``index`` its 0-based
    number among blocks of that kind (``document_index`` or
    ``search_result_index``); ``where`` the JSON path of the block
    (``messages[0].content[2]``). ``block_type`` is the source type
    (``text``, ``content``, ``base64``, ``url``, ``file``) or
    ``search_result``; ``media_type`` the declared media type
    (``text/plain`` for text, content and search results). ``title`` is the
    block's title, if any. ``text`` is the text the model was given, when
    the request holds it as text (None for PDFs and references); ``blocks``
    the separate content blocks it was joined from (content documents and
    search results; ``()`` otherwise), what block indices count. ``data`` is
    the decoded body of a ``base64`` source. ``url`` is the URL the request
    itself names (a ``url`` source, a ``search_result``'s ``source`` when
    that is an absolute http(s) URL, the title of a document ``citelint
    context`` wrote); ``source`` a search result's ``source`` string as
    written. ``capture`` is the capture digest (64 hex) such a document's
    ``context`` names. ``problem`` says why no text or data could be derived.
    """

    kind: str
    index: int
    where: str
    block_type: str
    media_type: str
    title: str | None = None
    text: str | None = None
    blocks: tuple[str, ...] = ()
    data: bytes | None = None
    url: str | None = None
    source: str | None = None
    capture: str | None = None
    problem: str | None = None

    @property
    def label(self) -> str:
        """How messages name the document: ``document 2 "Title"``."""
        name = "document" if self.kind == DOCUMENT else "search result"
        return f"{name} {self.index}" + (f" {json.dumps(self.title, ensure_ascii=False)}" if self.title else "")


def load_json(data: bytes, name: str) -> Any:
    """Parse a saved request (or source map) body strictly, as
    :func:`citelint.imports.framing.decode_json` does for responses: no
    duplicate keys, no NaN, Infinity or overflowing numbers, no lone
    surrogates, bounded nesting.

    Returns:
        The JSON value.

    Raises:
        ResponseError: not UTF-8, or not strict JSON; the message is
            ``name:line[:col]: ...``.
    """
    from citelint.files import decode_utf8
    from citelint.imports.framing import decode_json

    try:
        text = decode_utf8(data)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResponseError(f"{name}:{line}: not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                            f"({exc.reason})") from None
    return decode_json(text, name)


def capture_context(sha256: str) -> str:
    """The ``context`` of a document holding the capture ``sha256`` (64 lowercase hex):
    ``capture:<sha256>``, as :func:`named_capture` reads it back."""
    return CAPTURE_CONTEXT_PREFIX + sha256


def named_capture(context: object) -> str | None:
    """The capture digest a document's ``context`` names (``capture:`` and 64 lowercase
    hex, nothing else), or None for any other value."""
    match = _CAPTURE_CONTEXT.fullmatch(context) if isinstance(context, str) else None
    return match.group(1) if match else None


def _str(value: Any, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise ResponseError(f"{what} is not a string", where)
    return value


def _text_blocks(content: Any, where: str) -> tuple[str, ...]:
    """The texts of a list of content blocks; only text blocks are allowed
    (Anthropic accepts only text in custom content and search results)."""
    if not isinstance(content, list):
        raise ResponseError("content is not a list of blocks", where)
    out = []
    for i, block in enumerate(content):
        at = f"{where}[{i}]"
        if not isinstance(block, dict) or block.get("type") != "text":
            raise ResponseError("a content block that is not a text block", at)
        out.append(_str(block.get("text"), f"{at}.text", "text"))
    return tuple(out)


def _is_web_url(value: str) -> bool:
    head, sep, rest = value.partition("://")
    return bool(sep) and head.lower() in ("http", "https") and bool(rest) and value.isprintable() \
        and not any(c.isspace() for c in value)


def _document(block: dict, index: int, where: str) -> RequestDocument:
    source = block.get("source")
    title = block.get("title")
    title = title if isinstance(title, str) else None
    if not isinstance(source, dict):
        raise ResponseError("a document block without a source object", f"{where}.source")
    kind = _str(source.get("type"), f"{where}.source.type", "source type")
    media = source.get("media_type")
    media = media if isinstance(media, str) else ""
    base: dict[str, Any] = dict(kind=DOCUMENT, index=index, where=where, block_type=kind, title=title)
    capture = named_capture(block.get("context"))
    if capture is not None and title is not None and _is_web_url(title) and kind in ("text", "content"):
        # Written by citelint context: the title is the source, the context its revision.
        base.update(url=title, capture=capture)
    if kind == "text":
        text = _str(source.get("data"), f"{where}.source.data", "source data")
        return RequestDocument(**base, media_type=media or "text/plain", text=text)
    if kind == "content":
        content = source.get("content")
        if isinstance(content, str):  # the API's shorthand for one text block
            blocks: tuple[str, ...] = (content,)
        else:
            blocks = _text_blocks(content, f"{where}.source.content")
        return RequestDocument(**base, media_type="text/plain", text="".join(blocks), blocks=blocks)
    if kind == "base64":
        raw = _str(source.get("data"), f"{where}.source.data", "source data")
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return RequestDocument(**base, media_type=media,
                                   problem="its base64 data does not decode (was it left out of the saved request?)")
        return RequestDocument(**base, media_type=media, data=data)
    if kind == "url":
        url = source.get("url")
        return RequestDocument(**base, media_type=media,
                               url=url if isinstance(url, str) and _is_web_url(url) else None,
                               problem="the request names its URL only; Anthropic fetched the content")
    return RequestDocument(**base, media_type=media,
                           problem=f"a {kind!r} source holds no content in the request (a Files API "
                                   "upload, or a type citelint does not know)")


def _search_result(block: dict, index: int, where: str) -> RequestDocument:
    blocks = _text_blocks(block.get("content"), f"{where}.content")
    source = block.get("source")
    source = source if isinstance(source, str) else None
    title = block.get("title")
    return RequestDocument(kind=SEARCH_RESULT, index=index, where=where, block_type="search_result",
                           media_type="text/plain", title=title if isinstance(title, str) else None,
                           text="".join(blocks), blocks=blocks, source=source,
                           url=source if source and _is_web_url(source) else None)


def request_documents(request: Any) -> list[RequestDocument]:
    """Every document and search result of an Anthropic Messages request
    body, in request order (numbering as the module docstring says).

    Returns:
        The documents; an empty list for a request that sent none.

    Raises:
        ResponseError: the request is not an object with a ``messages`` list,
            or a document or search result block has the wrong shape
            (``where`` is its JSON path).
    """
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        raise ResponseError("not an Anthropic Messages request: no messages list", "messages")
    out: list[RequestDocument] = []
    counts = {DOCUMENT: 0, SEARCH_RESULT: 0}

    def walk(content: Any, where: str) -> None:
        if not isinstance(content, list):
            return  # a plain string message holds no documents
        for i, block in enumerate(content):
            at = f"{where}[{i}]"
            if not isinstance(block, dict):
                raise ResponseError("a content block is not an object", at)
            kind = block.get("type")
            if kind == "document":
                out.append(_document(block, counts[DOCUMENT], at))
                counts[DOCUMENT] += 1
            elif kind == "search_result":
                out.append(_search_result(block, counts[SEARCH_RESULT], at))
                counts[SEARCH_RESULT] += 1
            elif kind == "tool_result":
                walk(block.get("content"), f"{at}.content")

    for m, message in enumerate(request["messages"]):
        if not isinstance(message, dict):
            raise ResponseError("a message is not an object", f"messages[{m}]")
        walk(message.get("content"), f"messages[{m}].content")
    return out


def find_document(documents: list[RequestDocument], kind: str, index: int) -> RequestDocument | None:
    """The document of ``kind`` numbered ``index``, or None."""
    return next((d for d in documents if d.kind == kind and d.index == index), None)
