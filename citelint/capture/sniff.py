"""What a held body looks like, before it is recorded under a media type.

``capture --from-file`` without ``--content-type`` used to record every body
as ``text/plain``, so a saved HTML page became evidence with its markup in
it. :func:`sniff_media_type` applies the byte patterns of WHATWG MIME
Sniffing's "rules for identifying an unknown MIME type" that matter to the
types a capture can have (HTML, XML, PDF), so an undeclared body that is
not plain text is refused and a declared type that disagrees is warned of.
"""

from __future__ import annotations

import re

#: WHATWG "whitespace bytes", ignored before the HTML and XML patterns.
_LEADING_WHITESPACE = re.compile(rb"[\t\n\x0c\r ]*")

#: The HTML patterns of the spec's table, each followed by a tag-terminating
#: byte (a space or ``>``); letters match without case.
_HTML_OPENERS = tuple(name.encode("ascii") for name in (
    "<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT", "<TABLE",
    "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--"))
_LONGEST = max(len(opener) for opener in _HTML_OPENERS) + 1

HTML = "text/html"
XML = "text/xml"
PDF = "application/pdf"


def sniff_media_type(body: bytes) -> str | None:
    """The media type ``body``'s first bytes identify: ``text/html``,
    ``text/xml`` or ``application/pdf``, else None (nothing says it is not
    plain text).

    The patterns are WHATWG MIME Sniffing's (a PDF starts with ``%PDF-``; an
    HTML document, after whitespace, with ``<!DOCTYPE HTML``, ``<HTML``,
    ``<HEAD``, ``<BODY``, ``<P``, ``<!--`` and the rest of the spec's list,
    case-insensitive, then a space or ``>``; XML with ``<?xml``), with one
    difference: a leading UTF-8 byte order mark is skipped first, since a
    text capture drops it too and the markup after it is the same markup.
    """
    if body.startswith(b"%PDF-"):
        return PDF
    start = 3 if body.startswith(b"\xef\xbb\xbf") else 0
    start = _LEADING_WHITESPACE.match(body, start).end()  # type: ignore[union-attr]  # * always matches
    head = body[start:start + _LONGEST].upper()  # bytes.upper folds ASCII letters only
    for opener in _HTML_OPENERS:
        # The byte after the name must end the tag name ("<p>" or "<p ", not "<pre").
        if head.startswith(opener) and head[len(opener):len(opener) + 1] in (b" ", b">"):
            return HTML
    if body.startswith(b"<?xml", start):
        return XML
    return None
