"""What a held body looks like, before it is recorded under a media type.

``capture --from-file`` without ``--content-type`` used to record every body
as ``text/plain``, so a saved HTML page became evidence with its markup in
it. :func:`sniff` applies WHATWG MIME Sniffing's "rules for identifying an
unknown MIME type": the HTML, XML, PDF and PostScript patterns, the image,
audio/video and archive type patterns, and the "binary data byte" rule, so
an undeclared body that is not plain text is refused (each with advice for
its type) and a declared type that disagrees is warned of.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citelint.capture.policy import CaptureRefused

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
POSTSCRIPT = "application/postscript"
BINARY = "application/octet-stream"

#: WHATWG's image, audio/video and archive type patterns (mask 0xFF except
#: where ``.`` stands for a byte the spec masks out), as (regex, media type,
#: what it is). Patterns made only of letters that a text could start with
#: ("BM" for BMP, "ID3" for MP3) are left out: their real files hold binary
#: data bytes, so the binary rule still refuses them.
_TYPE_PATTERNS: tuple[tuple[re.Pattern[bytes], str, str], ...] = tuple(
    (re.compile(pattern, re.S), media, what) for pattern, media, what in (
        (rb"\x00\x00[\x01\x02]\x00", "image/x-icon", "an image"),
        (rb"GIF8[79]a", "image/gif", "an image"),
        (rb"RIFF....WEBPVP", "image/webp", "an image"),
        (rb"\x89PNG\r\n\x1a\n", "image/png", "an image"),
        (rb"\xff\xd8\xff", "image/jpeg", "an image"),
        (rb"FORM....AIFF", "audio/aiff", "audio or video"),
        (rb"OggS\x00", "application/ogg", "audio or video"),
        (rb"MThd\x00\x00\x00\x06", "audio/midi", "audio or video"),
        (rb"RIFF....AVI ", "video/avi", "audio or video"),
        (rb"RIFF....WAVE", "audio/wave", "audio or video"),
        (rb"\x1a\x45\xdf\xa3", "video/webm", "audio or video"),
        (rb"\x1f\x8b\x08", "application/x-gzip", "an archive"),
        (rb"PK\x03\x04", "application/zip", "an archive"),
        (rb"Rar!\x1a\x07\x01?\x00", "application/x-rar-compressed", "an archive"),
    ))

#: WHATWG "binary data bytes": controls that no text holds (not TAB, LF, FF, CR or ESC).
_BINARY_BYTE = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")

#: What may precede an XML document's root element: white space, the XML
#: declaration and other processing instructions, comments, a doctype
#: (with its internal subset).
_XML_PROLOG = re.compile(rb"(?:\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[.*?\])*>)*", re.S | re.I)
_XML_ROOT = re.compile(rb"<([A-Za-z_][\w.:-]{0,100})")


@dataclass(frozen=True)
class Sniffed:
    """What a body's bytes say it is: ``media_type`` (``text/xml`` for any
    XML document), ``what`` in words when the media type alone does not
    say it (``an XHTML page``, ``an image``, where a binary byte is), and
    ``declare``: the content type to capture it as, or None when citelint
    extracts no text from such a body."""

    media_type: str
    what: str = ""
    declare: str | None = None

    @property
    def markup(self) -> bool:
        """True for a body whose bytes are text with markup (HTML, XML, PostScript)."""
        return self.media_type in (HTML, XML, POSTSCRIPT)


def _xml_root(body: bytes, start: int) -> str | None:
    """The name of the root element of the XML document at ``start`` (its
    local name, without a prefix), or None when none is found in the
    first 64 KiB."""
    head = body[start:start + 65536]
    prolog = _XML_PROLOG.match(head)
    m = _XML_ROOT.match(head, prolog.end() if prolog else 0)
    return m.group(1).decode("ascii", "replace").rsplit(":", 1)[-1] if m else None


def sniff(body: bytes) -> Sniffed | None:
    """What ``body``'s bytes identify, or None when nothing says it is not
    plain text.

    The rules are WHATWG MIME Sniffing's for an unknown type, in its order:
    HTML (after white space, ``<!DOCTYPE HTML``, ``<HTML``, ``<P``, ``<!--``
    and the rest of the spec's list, case-insensitive, then a space or
    ``>``), XML (``<?xml``; an XHTML page when its root is ``html``), PDF
    (``%PDF-``), PostScript, the UTF-16 byte order marks (text, left to the
    UTF-8 decoder to refuse), then the image, audio/video and archive
    patterns, then any binary data byte. Deliberate differences: a leading
    UTF-8 byte order mark is skipped first (a text capture drops it too),
    and the binary rule reads the whole body, not only its first 1445
    bytes, since a text capture holds all of it.
    """
    if body.startswith(b"%PDF-"):
        return Sniffed(PDF, declare=PDF)
    start = 3 if body.startswith(b"\xef\xbb\xbf") else 0
    start = _LEADING_WHITESPACE.match(body, start).end()  # type: ignore[union-attr]  # * always matches
    head = body[start:start + _LONGEST].upper()  # bytes.upper folds ASCII letters only
    for opener in _HTML_OPENERS:
        # The byte after the name must end the tag name ("<p>" or "<p ", not "<pre").
        if head.startswith(opener) and head[len(opener):len(opener) + 1] in (b" ", b">"):
            return Sniffed(HTML, declare=HTML)
    if body.startswith(b"<?xml", start):
        root = _xml_root(body, start)
        if root is not None and root.lower() == "html":
            return Sniffed(XML, "an XHTML page", declare=HTML)
        return Sniffed(XML, f"an XML document, root <{root}>" if root else "an XML document")
    if body.startswith(b"%!PS-Adobe-"):
        return Sniffed(POSTSCRIPT, "a PostScript document")
    if body.startswith((b"\xfe\xff", b"\xff\xfe")):
        return None
    for pattern, media, what in _TYPE_PATTERNS:
        if pattern.match(body):
            return Sniffed(media, what)
    binary = _BINARY_BYTE.search(body)
    if binary:
        return Sniffed(BINARY, f"binary data: byte 0x{binary.group(0)[0]:02x} at offset {binary.start()}")
    return None


def sniff_media_type(body: bytes) -> str | None:
    """The media type :func:`sniff` identifies in ``body``, or None."""
    found = sniff(body)
    return found.media_type if found else None


class ContentTypeUnclear(CaptureRefused):
    """A held body was given no media type, and its bytes say it is not plain
    text (:func:`~citelint.capture.sniff.sniff`): recording it as
    ``text/plain`` would make its markup (or a PDF's, an image's bytes) the
    evidence. Nothing was written.

    ``sniffed`` is the media type the body looks like, ``what`` it is in
    words where that type does not say (``an XHTML page``, ``an image``),
    ``suggested`` the type to declare for it (``text/html`` for an XHTML
    page), or None when citelint extracts no text from such a body, and
    ``advice`` what to do, worded for the type.
    """

    def __init__(self, found: Sniffed) -> None:
        self.sniffed, self.what, self.suggested = found.media_type, found.what, found.declare
        self.advice = advice_for(found)
        looks = found.media_type + (f" ({found.what})" if found.what else "")
        super().__init__(f"the body looks like {looks} but no content type was given: {self.advice}")


def advice_for(found: Sniffed) -> str:
    """What to do with an undeclared body that looks like ``found``: the
    type to declare and what ``text/plain`` would record instead, or, for a
    body citelint extracts no text from, what to capture instead."""
    if found.declare == PDF:
        return ("pass --content-type application/pdf (--content-type text/plain would record the PDF's bytes, "
                "not its text)")
    if found.declare is not None:
        return (f"pass --content-type {found.declare} (--content-type text/plain records the body itself, "
                "markup included)")
    if found.media_type == POSTSCRIPT:
        return "citelint extracts no text from PostScript: capture a PDF, HTML or text version of the source instead"
    if found.markup:
        return ("citelint extracts no text from XML other than an XHTML page: capture the page a reader sees "
                "instead, or pass --content-type text/plain to record the body itself, markup included")
    if found.media_type == BINARY:
        return ("a text holds no such control byte, so it is not text: capture a text, HTML or PDF version of "
                "the source instead")
    return "there is no text in it to extract: capture a text, HTML or PDF version of the source instead"


def declared_mismatch(content_type: str, found: Sniffed | None) -> str:
    """A warning when the declared ``content_type`` is not what the body's
    bytes look like (``found``), else an empty string. An XHTML page
    declared as HTML is no mismatch: that is what it is."""
    declared = content_type.split(";", 1)[0].strip().lower()
    if found is None or declared in (found.media_type, found.declare):
        return ""
    looks = found.media_type + (f" ({found.what})" if found.what else "")
    if declared == "text/plain":
        return (f"the body looks like {looks} but was recorded as text/plain, as declared: the "
                f"capture's text is the body itself, {'markup' if found.markup else 'its bytes'} included, "
                "not the text a reader sees")
    return f"the body looks like {looks} but was recorded as {declared}, as declared"
