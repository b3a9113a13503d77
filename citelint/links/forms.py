"""The forms a link can be written in, each searched for in a span of the source.

Given cmark's href and visible text for one anchor, each finder returns the
spelling (a :class:`Candidate`) that reproduces them: an inline link or
image, a reference-style use of a definition CommonMark reads as one, an
autolink or bare URL, or a raw HTML tag. A spelling that does not resolve
to cmark's href is never taken.
"""

from __future__ import annotations

import re

from citelint import urls
from citelint.links.source import SourceDocument, normalise_label, resolve_destination

_HREF_ATTR = re.compile(r"""\b(?:href|src)\s*=\s*["']?""", re.IGNORECASE)

_FORM_ORDER = {"inline": 0, "image": 0, "reference": 1, "autolink": 2, "html": 3, "bare": 4}


class Candidate:
    __slots__ = ("start", "end", "dest_start", "dest_end", "form", "href", "text_span")

    def __init__(self, start: int, end: int, dest_start: int, dest_end: int, form: str,
                 href: str, text_span: tuple[int, int] | None) -> None:
        self.start = start
        self.end = end
        self.dest_start = dest_start
        self.dest_end = dest_end
        self.form = form
        self.href = href
        self.text_span = text_span

    def key(self) -> tuple[int, int]:
        return self.start, _FORM_ORDER[self.form]


def find_inline(doc: SourceDocument, href: str, text: str, lo: int, hi: int, image: bool) -> Candidate | None:
    """An inline link (or image) from ``lo`` whose destination resolves to cmark's ``href``."""
    src = doc.src
    fast = "&" not in href
    p = src.find("](", lo, hi)
    while p >= 0:
        q = p + 2
        cand = None
        if fast and src.startswith(href, q) and (q + len(href) >= len(src) or src[q + len(href)] in ") \t\r\n"):
            cand = (q, q + len(href), href, q + len(href))
        elif fast and src.startswith("<" + href + ">", q):
            cand = (q + 1, q + 1 + len(href), href, q + 2 + len(href))
        else:
            dest = doc.scan_destination(q, hi)
            if dest is not None:
                resolved = resolve_destination(dest[2])
                if urls.href_escape(resolved) == href:
                    cand = (dest[0], dest[1], resolved, dest[3])
        if cand is not None:
            end = doc.link_end(cand[3], len(src))
            opening = doc.open_bracket(p, lo, text) if end is not None else None
            if opening is not None and end is not None:
                is_image = opening > 0 and src[opening - 1] == "!" and not doc.escaped(opening - 1)
                if is_image == image:
                    start = opening - 1 if image else opening
                    if start >= lo:
                        return Candidate(start, end, cand[0], cand[1], "image" if image else "inline",
                                          cand[2], (opening + 1, p))
        p = src.find("](", p + 2, hi)
    return None


def find_reference(doc: SourceDocument, href: str, text: str, lo: int, hi: int, image: bool,
                    shown: str | None = None) -> Candidate | None:
    """A reference-style use from ``lo`` of a definition whose destination is ``href``.

    Bracketed labels are compared after CommonMark's label normalisation
    (Unicode case fold, whitespace collapsed), so ``[ẞ]`` finds ``[SS]: /url``.
    ``shown`` is the anchor's visible text with the alt text of images in it
    (``text`` when None): a use whose bracketed text cannot have rendered as
    it is not the link cmark made (say, ``[1]`` in prose that is no link).
    """
    defs = doc.definitions()
    labels = defs.get(href)
    if not labels:
        return None
    src = doc.src
    i = lo
    while True:
        a = src.find("[", i, hi)
        if a < 0:
            return None
        i = a + 1
        if doc.escaped(a):
            continue
        b = doc.label_end(a, hi)
        if b is None:
            continue
        if b < 0:  # another "[" opened first: start again from it
            i = -b
            continue
        label = normalise_label(src[a + 1:b])
        if label not in labels:
            continue
        if src.startswith("[]", b + 1):
            start, end, span = a, b + 3, (a + 1, b)
        else:
            start, end, span = a, b + 1, (a + 1, b)
            if a > lo and src[a - 1] == "]" and not doc.escaped(a - 1):
                opening = doc.open_bracket(a - 1, lo, text)
                if opening is not None and opening >= lo:
                    start, span = opening, (opening + 1, a - 1)
            if start == a:
                if src.startswith("[", b + 1):
                    c = doc.label_end(b + 1, hi)
                    if c is not None and c > 0 and normalise_label(src[b + 2:c]) in doc.all_labels():
                        continue  # the text of a full reference to another label
                if a in doc._def_starts:
                    continue  # the definition itself
        is_image = start > 0 and src[start - 1] == "!" and not doc.escaped(start - 1)
        if is_image != image:
            continue
        if image:
            start -= 1
        if start < lo:
            continue
        if not _text_agrees(src[span[0]:span[1]], text if shown is None else shown):
            continue
        return Candidate(start, end, start, end, "reference", href, span)


def _text_agrees(written: str, shown: str) -> bool:
    """True when link text ``written`` in the source can render as ``shown``.

    Rendering removes markup, backslash escapes and tags and decodes
    entities, but adds no letter or digit: those of ``shown`` appear in
    ``written`` (as written, or with escapes and entities resolved), in order.
    """
    if written == shown:
        return True
    want = [c for c in shown if c.isalnum()]
    if not want:
        return True
    for candidate in (written, resolve_destination(written)):
        rest = iter(candidate)
        if all(c in rest for c in want):
            return True
    return False


def find_text(doc: SourceDocument, prefix: str, text: str, lo: int, hi: int) -> list[Candidate]:
    """Autolink ``<url>`` and bare-URL candidates whose visible text is ``text``.

    ``prefix`` is what cmark put before the text to make the href: ``""``,
    ``"http://"`` (a ``www.`` link) or ``"mailto:"`` (an e-mail address).
    """
    src = doc.src
    out = []
    href = prefix + text
    a = src.find("<" + text + ">", lo, hi)
    if a >= 0:
        out.append(Candidate(a, a + len(text) + 2, a + 1, a + 1 + len(text), "autolink", href, None))
    b = src.find(text, lo, hi)
    while b > 0 and src[b - 1] == "<" and src.startswith(">", b + len(text)):
        b = src.find(text, b + 1, hi)
    if b >= 0:
        out.append(Candidate(b, b + len(text), b, b + len(text), "bare", href, None))
    return out


def find_raw(doc: SourceDocument, tag_text: str, lo: int, hi: int, href: str) -> Candidate | None:
    """The raw ``<a …>``/``<img …>`` tag, verbatim in the source (cmark passes raw HTML through)."""
    a = doc.src.find(tag_text, lo, hi)
    if a < 0:
        return None
    m = _HREF_ATTR.search(tag_text)
    if m is None:
        return Candidate(a, a + len(tag_text), a, a, "html", href, None)
    quote = tag_text[m.end() - 1]
    if quote in "\"'":
        close = tag_text.find(quote, m.end())
    else:
        unquoted = re.match(r"[^\s>]*", tag_text[m.end():])
        close = m.end() + (len(unquoted.group(0)) if unquoted else 0)  # "*" always matches
    if close < 0:
        close = len(tag_text) - 1
    return Candidate(a, a + len(tag_text), a + m.end(), a + close, "html", href, None)
