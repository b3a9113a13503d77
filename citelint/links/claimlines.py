"""Which source lines of a Markdown document may hold a claim in prose, from the source alone.

A check that verifies claims in prose (CL205, CL206) reads them from cmark's
XML, and most of a document holds none: a README's lists, code and raw HTML
are most of its XML. :func:`claim_lines` rules lines out before the XML is
rendered, so that :func:`~citelint.links.render.render_html_and_xml` renders
only the blocks that span a line it keeps. It errs towards keeping: a line
it rules out holds nothing :mod:`citelint.links.prose` would find.

- A quotation (quotation marks in a text node, or a blockquote paragraph):
  a line with a mark that may open or close one (``"``, ``“ ” „ « 「 『 ‘``),
  with a character reference that may spell one (any numeric one, or a
  named one whose value holds one), or with a blockquote marker (``>``
  after nothing but indentation and list markers).
- A cited number (a digit in a leaf with a link or a footnote reference):
  a block spanning both a line with a digit (or a numeric character
  reference) and a line with what may make a link or a footnote reference
  (``[``, ``<``, ``@``, ``://``, ``www.``).

What cmark-gfm makes of a line cannot add a mark or a digit that the line
does not hold: smart punctuation is off, and text comes from the source
characters, backslash escapes and character references. Lines are cmark's:
each ends at ``\\n``, ``\\r\\n`` or ``\\r``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from html.entities import html5

#: What may open or close a quotation in a text node (prose._MARK_CHARS and ``"``).
_MARKS = '"“”„«「『‘'
#: A character reference that may spell one of them: any numeric one, and the named ones
#: whose value holds one (cmark-gfm decodes the HTML5 list, each name with its ``;``).
_MARK_REFERENCE = re.compile("&(?:#|(?:" + "|".join(sorted(
    re.escape(name[:-1]) for name, value in html5.items()
    if name.endswith(";") and any(c in value for c in _MARKS))) + ");)")
#: What may stand before a blockquote's ``>`` on its line: indentation, list markers (``-``,
#: ``+``, ``*``, ``1.``, ``1)``) of the containers it opens in.
_BEFORE_MARKER = " \t-+*0123456789.)"
#: CommonMark's raw HTML open tag (spec 6.6) on one line, its whitespace spaces and tabs only and
#: its values without the characters cmark-gfm's scanner refuses in them.
_OPEN_TAG = re.compile(r"""<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*"""
                       r"""(?:[ \t]*=[ \t]*(?:[^ \t\r\n\v\f"'=<>`\x00]+|'[^'\n\x00]*'|"[^"\n\x00]*"))?)*[ \t]*/?>""")
_DIGIT = re.compile(r"\d")
#: What may make a link or a footnote reference: ``[…]``, ``<…>`` (autolinks, raw ``<a>``),
#: and the GFM autolinks (``://``, ``www.``, an address with ``@``).
_LINK_SIGNS = ("[", "<", "@", "://", "www.")


class ClaimLines:
    """What :func:`claim_lines` gives: call it with a run of sibling blocks' start lines."""

    __slots__ = ("_text", "_quotes", "_numbers", "_quote_lines", "_digit_lines", "_link_lines")

    def __init__(self, markdown: str, quotes: bool, numbers: bool) -> None:
        # cmark's line breaks, made one kind: only line numbers are read from this text
        self._text = markdown if "\r" not in markdown else markdown.replace("\r\n", "\n").replace("\r", "\n")
        self._quotes = quotes
        self._numbers = numbers
        self._quote_lines: list[int] | None = None
        self._digit_lines: list[int] = []
        self._link_lines: list[int] = []

    def __call__(self, starts: Sequence[int], end: int) -> list[int]:
        """The indexes of the blocks that start on lines ``starts`` (1-based, in order; each
        takes text up to the line before the next one's start, the last one up to line
        ``end``) whose lines may hold a claim: a quotation (with ``quotes``) or a cited number
        (with ``numbers``), in order."""
        if self._quote_lines is None:
            self._read()
            assert self._quote_lines is not None  # _read sets it
        found = set(_blocks_with(self._quote_lines, starts, end)) if self._quotes else set()
        if self._numbers:
            found.update(set(_blocks_with(self._digit_lines, starts, end))
                         & set(_blocks_with(self._link_lines, starts, end)))
        return sorted(found)

    def _read(self) -> None:
        """The lines that hold each kind of sign, sorted (read on the first call: a document
        whose HTML shows no claim never asks)."""
        text = self._text
        lines: set[int] = set()
        if self._quotes:
            lines.update(_quote_lines(text))
            if "&" in text:
                lines.update(_lines_matching(text, _MARK_REFERENCE))
            if not text.isascii():
                for mark in _MARKS[1:]:  # a search each: a character class is read character by character
                    lines.update(_lines_with(text, mark))
            if ">" in text:
                lines.update(_marker_lines(text))
        self._quote_lines = sorted(lines)
        if self._numbers:
            digits = set(_lines_matching(text, _DIGIT))
            if "&#" in text:
                digits.update(_lines_with(text, "&#"))
            links: set[int] = set()
            for sign in _LINK_SIGNS:
                links.update(_lines_with(text, sign))
            self._digit_lines, self._link_lines = sorted(digits), sorted(links)


def claim_lines(markdown: str, quotes: bool = True, numbers: bool = True) -> ClaimLines:
    """The ``keep`` of :func:`~citelint.links.render.render_html_and_xml` for ``markdown``:
    ``claim_lines(markdown, quotes, numbers)(starts, end)`` leaves out only blocks whose
    lines (1-based, cmark's line numbers) hold nothing that :func:`citelint.links.prose.claims`
    could find with those switches (a quotation with ``quotes``; a cited number with
    ``numbers``), whatever block they make. ``starts`` are the start lines of a run of sibling
    blocks, in order; the result, the indexes of those kept, in order. The document's lines
    are read on the first call. Raises nothing for any ``str``."""
    return ClaimLines(markdown, quotes, numbers)


def _blocks_with(lines: list[int], starts: Sequence[int], end: int) -> list[int]:
    """The indexes of the blocks starting on ``starts`` (the last reaching line ``end``) that
    hold one of the sorted ``lines``: each block found by bisection, then the lines it holds
    skipped at once."""
    out: list[int] = []
    n = len(starts)
    i = bisect_left(lines, starts[0]) if n else len(lines)
    while i < len(lines) and lines[i] <= end:
        line = lines[i]
        k = bisect_right(starts, line) - 1
        j = k
        while j > 0 and starts[j - 1] == line:
            j -= 1  # blocks that start on one line all take text from it
        out.extend(range(j, k + 1))
        if k + 1 >= n:
            break
        i = bisect_left(lines, starts[k + 1], i)
    return out


def _lines_with(text: str, sign: str) -> list[int]:
    """The lines of ``text`` (``\\n`` ends each) that hold ``sign``, in order."""
    out = []
    line, at = 1, 0  # ``line`` is the line offset ``at`` is on
    i = text.find(sign)
    while i >= 0:
        line += text.count("\n", at, i)
        out.append(line)
        at = text.find("\n", i)
        if at < 0:
            break
        i = text.find(sign, at)  # one is enough: on from the line's end
    return out


def _lines_matching(text: str, pattern: re.Pattern[str]) -> list[int]:
    """The lines of ``text`` that hold a match of ``pattern`` (which matches no line break)."""
    out = []
    line, at = 1, 0
    m = pattern.search(text)
    while m is not None:
        line += text.count("\n", at, m.start())
        out.append(line)
        at = text.find("\n", m.start())
        if at < 0:
            break
        m = pattern.search(text, at)
    return out


def _quote_lines(text: str) -> list[int]:
    """The lines of ``text`` with a ``"`` that may be in a text node: outside every raw HTML
    open tag (``<img src="…">``, where most of a README's are) that lies whole on the line.

    A tag read here is one wherever cmark-gfm reads a tag: its ``<`` is not backslash-escaped,
    no code span can end inside it (the line has no backtick), no table cell boundary cuts it
    (it holds no ``|``), and it is CommonMark's open tag (``_OPEN_TAG``), with less whitespace
    allowed (spaces and tabs), so never more than cmark-gfm reads as one; a tag it reads as
    raw HTML holds no text node. Any other ``"`` keeps its line."""
    out = []
    line, at = 1, 0
    i = text.find('"')
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        if end < 0:
            end = len(text)
        if _quote_in_text(text, start, end):
            line += text.count("\n", at, i)
            at = i
            out.append(line)
        if end == len(text):
            break
        i = text.find('"', end)
    return out


def _quote_in_text(text: str, start: int, end: int) -> bool:
    """True when a ``"`` of the line ``text[start:end]`` may stand outside raw HTML tags."""
    if text.find("<", start, end) < 0 or text.find("`", start, end) >= 0:
        return True
    pos = start  # the tags read left to right, as cmark-gfm's inline parser meets them
    while True:
        q = text.find('"', pos, end)
        if q < 0:
            return False
        tag = _tag_before(text, pos, q, start, end)
        if tag is None:
            return True  # a " before any tag
        pos = tag  # every " before the tag's end is inside it


def _tag_before(text: str, pos: int, q: int, start: int, end: int) -> int | None:
    """The end of the first open tag (as :func:`_quote_in_text` reads one) that starts in
    ``text[pos:q]`` and ends by ``end``, or None."""
    lt = text.find("<", pos, q)
    while lt >= 0:
        m = _OPEN_TAG.match(text, lt, end)
        if m is not None and not _escaped(text, lt, start) and "|" not in m.group():
            return m.end()
        lt = text.find("<", lt + 1, q)
    return None


def _escaped(text: str, i: int, start: int) -> bool:
    """True when ``text[i]`` follows an odd number of backslashes (from ``start`` on)."""
    n = 0
    while i - n - 1 >= start and text[i - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def _marker_lines(text: str) -> list[int]:
    """The lines of ``text`` whose first ``>`` has nothing but indentation and list markers
    before it: where a blockquote may start (inside list items and other blockquotes too)."""
    out = []
    line, at = 1, 0
    i = text.find(">")
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        if not text[start:i].strip(_BEFORE_MARKER):
            line += text.count("\n", at, i)
            at = i
            out.append(line)
        end = text.find("\n", i)
        if end < 0:
            break
        # a later ``>`` of the line has this one before it: no blockquote starts there
        i = text.find(">", end)
    return out
