"""Source maps: the operator's URLs for documents whose API names none.

A source map (``--source-map MAP``, for both ``citelint import`` and
``citelint capture --from-request``) is a JSON or YAML object. Each key
names a document, each value is the absolute ``http(s)`` URL it was taken
from. A key is, tried in this order:

1. the document's 0-based index written as a string: ``"0"`` for Anthropic
   ``document_index`` 0; a search result is ``"search_result:0"``
   (``search_result_index`` counts separately, so a bare number would be
   ambiguous); for other providers, the index their adapter records;
2. its title (``document_title``, a search result's ``title``);
3. an identifier, URL or source string the provider gave (Cohere's source
   ``id`` such as ``"doc:0"``, a Perplexity marker naming no source such as
   ``"[9]"``), so that a redirect URL or a search result's non-URL
   ``source`` can be mapped to the page itself.

A key that maps nothing links nothing, so ``citelint import`` (and
``capture --from-request``) warns about each entry no citation (document)
used: a key cut short or misspelt would otherwise pass unnoticed. A value
that is not an absolute http(s) URL is an error. YAML keys are read as
written (``0:`` is the string ``"0"``): no implicit typing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

from citelint.imports.model import ResponseError

if TYPE_CHECKING:
    from citelint.imports.documents import RequestDocument

#: Largest source map read, in bytes.
MAX_MAP_BYTES = 10 * 1024 * 1024


def web_url_problem(url: str) -> str | None:
    """Why ``url`` is not an absolute ``http``/``https`` URL with a host that
    can be written as a Markdown link destination, or None when it is."""
    if not url or not url.isprintable() or any(c.isspace() for c in url):
        return "holds a space or a control character"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"does not parse ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an absolute http(s) URL"
    if not parts.hostname:
        return "has no host"
    if any(c in url for c in "<>\\"):
        return "holds '<', '>' or a backslash"
    return None


def load_source_map(data: bytes, name: str) -> dict[str, str]:
    """Parse a source map file's bytes (JSON when ``name`` ends in ``.json``,
    else YAML, which also reads JSON).

    Returns:
        Key → URL, as written.

    Raises:
        ResponseError: not UTF-8, not JSON/YAML (``name:line:col: ...``), not
            an object of strings, or a value that is not an absolute http(s)
            URL (the message names the key).
    """
    from citelint.reports.document import ParseFailure
    from citelint.reports.loaders import decode_utf8, load_text

    text = decode_utf8(data)
    if isinstance(text, ParseFailure):
        raise ResponseError(f"{name}:{text.line}:{text.col}: {text.message}")
    kind = "json" if Path(name).suffix.lower() == ".json" else "yaml"
    doc = load_text(text, kind)
    if isinstance(doc, ParseFailure):
        raise ResponseError(f"{name}:{doc.line}:{doc.col}: {doc.message}")
    if not isinstance(doc.data, dict):
        raise ResponseError(f"{name}: a source map is an object of document key → URL")
    out: dict[str, str] = {}
    for key, value in doc.data.items():
        if not isinstance(value, str):
            raise ResponseError(f"{name}: the value of {key!r} is not a URL string")
        problem = web_url_problem(value)
        if problem:
            raise ResponseError(f"{name}: the URL of {key!r} {problem}: {value[:200]!r}")
        out[str(key)] = value
    return out


def map_keys(kind: str, index: int | None, title: str | None, given: Sequence[str | None] = ()) -> list[str]:
    """The keys that name one document, in lookup order (module docstring).
    ``kind`` is ``search_result`` for a search result, anything else for a
    document; ``given`` are URLs or source strings the provider gave."""
    keys = []
    if index is not None:
        keys.append(f"search_result:{index}" if kind == "search_result" else str(index))
    if title:
        keys.append(title)
    keys += [g for g in given if g]
    return keys


def lookup(mapping: dict[str, str], keys: Sequence[str]) -> str | None:
    """The URL of the first of ``keys`` in ``mapping``, or None."""
    key = matched_key(mapping, keys)
    return None if key is None else mapping[key]


def matched_key(mapping: dict[str, str], keys: Sequence[str]) -> str | None:
    """The first of ``keys`` that ``mapping`` holds (the entry :func:`lookup` uses), or None."""
    return next((k for k in keys if k in mapping), None)


class DocumentSource(NamedTuple):
    """Where a request document came from (:func:`document_source`): ``url`` (None: unknown),
    ``mapped_by`` the source map key that gave it (None: the request itself did), and ``keys``
    the keys that name the document, for :func:`how_to_map`."""

    url: str | None
    mapped_by: str | None
    keys: list[str]


def document_source(doc: RequestDocument, mapping: dict[str, str]) -> DocumentSource:
    """The source of request document ``doc``: the source map's entry for it, else the URL
    the request itself gives (a search result's URL ``source``, the title of a document
    ``citelint context`` wrote). ``capture --from-request`` records it, and its
    ``--approve-sources`` lists it, by this one rule."""
    keys = map_keys(doc.kind, doc.index, doc.title, [doc.source])
    key = matched_key(mapping, keys)
    return DocumentSource(mapping[key] if key is not None else doc.url, key, keys)


def show_key(key: str) -> str:
    """``key`` whole, as a double-quoted string that reads back as the same
    key in a JSON or a YAML source map (a key cut short maps nothing)."""
    return json.dumps(key, ensure_ascii=False)


def unused_entries(mapping: dict[str, str], used: Iterable[str], what: str = "citation") -> list[str]:
    """One message per source map entry whose key no ``what`` (a citation,
    a document) used, in the map's order: such an entry links nothing, and
    is most often a key mistyped or cut short."""
    seen = set(used)
    return [f"source map entry {show_key(k)} matched no {what}: it linked nothing (keys are an index, a "
            "title, an id or a URL the provider gave, written whole)" for k in mapping if k not in seen]


def how_to_map(keys: Sequence[str]) -> str:
    """A hint naming the source map entries that would resolve a document,
    each key whole (:func:`show_key`)."""
    if not keys:
        return "it has neither an index nor a title to map; its provider gives no source"
    shown = " or ".join(f"{show_key(k)}: https://..." for k in keys[:2])
    return f"add {shown} to the source map (--source-map FILE)"
