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
- With ``cited`` (a check's reading, :func:`citelint.links.prose.claims`
  with ``cited``), a quotation with a citation: a block with a mark that may
  open one more than ``min_chars`` characters before a mark that may close
  it (``"`` with ``"`` or ”, “ with ”, ‘ with ’, …; a reference as the mark
  it spells) and a link sign in the lines around them up to an empty line
  (a quotation's rendered text between its marks is never longer than its
  source there, markup, escapes and references only shorten it; a leaf,
  whose links are its citations, never holds an empty line); or a block
  with a blockquote marker and a link sign in the lines around it up to an
  empty line (a blockquote never holds one: its last paragraph is there),
  or a link sign and a dash in the run of lines after (the attribution
  paragraph right after it).

What cmark-gfm makes of a line cannot add a mark or a digit that the line
does not hold: smart punctuation is off, and text comes from the source
characters, backslash escapes and character references. Lines are cmark's:
each ends at ``\\n``, ``\\r\\n`` or ``\\r``.
"""

from __future__ import annotations

import functools
import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from html.entities import html5

from citelint.links.sentences import ALL_MARKS, PAIRED_MARKS, TEXT_MARKS, WORD_MARKS
from citelint.links.source import escaped

#: What may open or close a quotation in a text node (sentences.TEXT_MARKS and ``"``, first: the
#: searches below read ``"`` apart).
_MARKS = '"' + TEXT_MARKS
@functools.cache
def _mark_reference() -> re.Pattern[str]:
    """A character reference that may spell one of ``_MARKS``: any numeric one, and the named
    ones whose value holds one (cmark-gfm decodes the HTML5 list, each name with its ``;``).
    Built when first needed: it reads the 2,231 names, milliseconds a hook call on a document
    without ``&`` need not pay."""
    return re.compile("&(?:#|(?:" + "|".join(sorted(
        re.escape(name[:-1]) for name, value in html5.items()
        if name.endswith(";") and any(c in value for c in _MARKS))) + ");)")


#: Every mark a quotation may open or close with (sentences.MARKS), and the character references
#: that may spell one: a quotation's span with ``cited``.
_ANY_MARK = _MARKS + "".join(mark for mark in ALL_MARKS if mark not in _MARKS)  # those that only close last
@functools.cache
def _whole_mark_reference() -> re.Pattern[str]:
    """A whole character reference as cmark-gfm decodes one (CommonMark: 1–7 decimal or 1–6 hex
    digits), numeric or named with one of ``_ANY_MARK`` in its value: ``html.unescape`` says which
    mark (it reads a few more numeric ones as marks than cmark-gfm does, &#147; as “, which only
    keeps more). Built when first needed, as :func:`_mark_reference`."""
    return re.compile("&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|(?:" + "|".join(sorted(
        re.escape(name[:-1]) for name, value in html5.items()
        if name.endswith(";") and any(c in value for c in _ANY_MARK))) + ");)")


#: Each mark that may open a quotation -> those that may close it (sentences.PAIRED_MARKS and
#: WORD_MARKS: ``"`` closes with ”, „ with “ or ”).
_OPENS = {**WORD_MARKS, **PAIRED_MARKS, '"': '"”'}
#: The marks that only close, each with the openers it closes (’, most often an apostrophe, is
#: read only in a document that has a ‘).
_ONLY_CLOSES = {closer: "".join(o for o, closers in _OPENS.items() if closer in closers)
                for closer in _ANY_MARK[len(_MARKS):]}
#: Each mark -> the openers it may close.
_CLOSES = {mark: "".join(o for o, closers in _OPENS.items() if mark in closers) for mark in _ANY_MARK}
#: What an attribution paragraph starts with (— or --), or a reference that may spell —.
_DASHES = ("—", "--", "&")
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

    __slots__ = ("_text", "_quotes", "_numbers", "_cited", "_min_chars", "_quote_lines", "_marker_lines",
                 "_digit_lines", "_link_lines", "_mark_at", "_mark_kind", "_mark_line", "_mark_lines",
                 "_marker_at")

    def __init__(self, markdown: str, quotes: bool, numbers: bool, cited: bool = False, min_chars: int = 20
                 ) -> None:
        # cmark's line breaks, made one kind: only line numbers are read from this text
        self._text = markdown if "\r" not in markdown else markdown.replace("\r\n", "\n").replace("\r", "\n")
        self._quotes = quotes
        self._numbers = numbers
        self._cited = cited
        self._min_chars = min_chars
        self._quote_lines: list[int] | None = None
        # with ``cited``: the blockquote markers' lines, and every mark's offset and line, in order
        self._marker_lines: list[int] = []
        self._mark_at: list[int] = []
        self._mark_kind = ""  # each mark as written, ``&`` for a reference
        self._mark_line: list[int] = []
        self._mark_lines: list[int] = []
        self._marker_at: list[int] = []  # (the offset of each marker line's ``>``)
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
        found = set(_blocks_with(self._quote_lines, starts, end)) if self._quotes and not self._cited else set()
        if self._numbers:
            found.update(set(_blocks_with(self._digit_lines, starts, end))
                         & set(_blocks_with(self._link_lines, starts, end)))
        if self._quotes and self._cited:
            for k in _blocks_with(self._mark_lines, starts, end):
                i, j = _in_block(self._mark_line, starts, end, k)
                if k not in found and self._spans_quotation(i, j) \
                        and self._linked(*self._chunks(self._mark_at[i], self._mark_at[j])):
                    found.add(k)
            for k in _blocks_with(self._marker_lines, starts, end):
                i, j = _in_block(self._marker_lines, starts, end, k)
                if k not in found and self._cites_blockquote(self._marker_at[i], self._marker_at[j]):
                    found.add(k)
        return sorted(found)

    def _spans_quotation(self, i: int, j: int) -> bool:
        """True when among the marks ``i`` to ``j`` one that may open a quotation stands more
        than ``min_chars`` characters before one that may close it."""
        at, kinds, most = self._mark_at, self._mark_kind, self._min_chars
        if i >= j or at[j] - at[i] <= most:
            return False
        opened: dict[str, int] = {}  # each opener's first offset so far
        for n in range(i, j + 1):
            kind, here = kinds[n], at[n]
            for opener in _CLOSES[kind]:
                start = opened.get(opener)
                if start is not None and here - start > most:
                    return True  # (at the first such pair: a long block is read no further)
            if kind in _OPENS and kind not in opened:
                opened[kind] = here
        return False

    def _chunks(self, lo: int, hi: int) -> tuple[int, int]:
        """The offsets from the start of the run of lines without an empty one that holds offset
        ``lo`` to the end of the one that holds ``hi``. A leaf never holds a blank line, nor does
        a blockquote: what a quotation's citation is read from lies there (an empty line is a
        blank one; a line of spaces is one too, and not looked for: the run read is only longer)."""
        text = self._text
        end = text.find("\n\n", hi)
        return text.rfind("\n\n", 0, lo) + 1, len(text) if end < 0 else end

    def _linked(self, lo: int, hi: int, also: tuple[str, ...] = ()) -> bool:
        """True when ``text[lo:hi]`` holds a link sign (and, with ``also``, one of those too)."""
        text = self._text
        return any(text.find(sign, lo, hi) >= 0 for sign in _LINK_SIGNS) \
            and (not also or any(text.find(sign, lo, hi) >= 0 for sign in also))

    def _cites_blockquote(self, lo: int, hi: int) -> bool:
        """True when a blockquote that starts at the marker at offset ``lo``, ``hi`` or between
        may have a citation: a link sign in its run of lines (its last paragraph, or an
        attribution after a ``>`` line), or one and a dash in the run after (an attribution)."""
        start, end = self._chunks(lo, hi)
        if self._linked(start, end):
            return True
        text = self._text
        while end < len(text) and text[end] == "\n":
            end += 1
        return self._linked(*self._chunks(end, end), _DASHES)

    def _read(self) -> None:
        """The lines that hold each kind of sign, sorted (read on the first call: a document
        whose HTML shows no claim never asks)."""
        text = self._text
        lines: set[int] = set()
        if self._quotes and self._cited:
            self._read_marks()
        elif self._quotes:
            lines.update(_quote_lines(text))
            if "&" in text:
                lines.update(_lines_matching(text, _mark_reference()))
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

    def _read_marks(self) -> None:
        """For ``cited``: the blockquote markers' lines; every mark's offset and line, in order
        (the ``"`` of each line with one outside raw HTML tags: all of that line's; the other
        marks, each that only closes only where a mark it closes is; the character references
        that spell one, as that mark)."""
        text = self._text
        at: list[tuple[int, str]] = []
        spans: list[tuple[int, int]] = []
        _quote_lines(text, spans)
        for start, stop in spans:
            i = text.find('"', start, stop)
            while i >= 0:
                at.append((i, '"'))
                i = text.find('"', i + 1, stop)
        if "&" in text:
            for m in _whole_mark_reference().finditer(text):
                at.extend((m.start(), c) for c in html.unescape(m.group()) if c in _ANY_MARK)
        if not text.isascii():
            for mark in _ANY_MARK[1:]:  # a search each: a character class is read character by character
                if mark in _ONLY_CLOSES and not any(kind in _ONLY_CLOSES[mark] for _, kind in at):
                    continue  # nothing it could close (marks that only close come last)
                i = text.find(mark)
                while i >= 0:
                    at.append((i, mark))
                    i = text.find(mark, i + 1)
        at.sort()
        self._mark_at = [i for i, _ in at]
        self._mark_kind = "".join(kind for _, kind in at)
        lines = self._mark_line = []
        line, prev = 1, 0
        for i, _ in at:
            line += text.count("\n", prev, i)
            prev = i
            lines.append(line)
        self._mark_lines = sorted(set(lines))
        if ">" in text:
            self._marker_lines = _marker_lines(text, self._marker_at)


def claim_lines(markdown: str, quotes: bool = True, numbers: bool = True, cited: bool = False,
                min_chars: int = 20) -> ClaimLines:
    """The ``keep`` of :func:`~citelint.links.render.render_html_and_xml` for ``markdown``:
    ``claim_lines(markdown, quotes, numbers)(starts, end)`` leaves out only blocks whose
    lines (1-based, cmark's line numbers) hold nothing that :func:`citelint.links.prose.claims`
    could find with those switches (a quotation with ``quotes``; a cited number with
    ``numbers``), whatever block they make. ``starts`` are the start lines of a run of sibling
    blocks, in order; the result, the indexes of those kept, in order. With ``cited``, only
    blocks that may hold a quotation with a citation and at least ``min_chars`` visible
    characters are kept for ``quotes``, for ``claims(…, min_chars=min_chars, cited=True)``.
    The document's lines are read on the first call. Raises nothing for any ``str``."""
    return ClaimLines(markdown, quotes, numbers, cited, min_chars)


def _in_block(lines: list[int], starts: Sequence[int], end: int, k: int) -> tuple[int, int]:
    """The indexes of the first and last of the sorted ``lines`` that lie in block ``k`` of the
    blocks starting on ``starts`` (the last reaching line ``end``), as :func:`_blocks_with`
    gives a block its lines: (i, i - 1) when none."""
    first = starts[k]
    last = end if k + 1 == len(starts) else max(first, starts[k + 1] - 1)
    return bisect_left(lines, first), bisect_right(lines, last) - 1


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


def _quote_lines(text: str, spans: list[tuple[int, int]] | None = None) -> list[int]:
    """The lines of ``text`` with a ``"`` that may be in a text node: outside every raw HTML
    open tag (``<img src="…">``, where most of a README's are) that lies whole on the line.

    A tag read here is one wherever cmark-gfm reads a tag: its ``<`` is not backslash-escaped,
    no code span can end inside it (the line has no backtick), no table cell boundary cuts it
    (it holds no ``|``), and it is CommonMark's open tag (``_OPEN_TAG``), with less whitespace
    allowed (spaces and tabs), so never more than cmark-gfm reads as one; a tag it reads as
    raw HTML holds no text node. Any other ``"`` keeps its line. Each line's (start, end)
    offsets are appended to ``spans`` when given."""
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
            if spans is not None:
                spans.append((start, end))
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
        if m is not None and not escaped(text, lt, start) and "|" not in m.group():
            return m.end()
        lt = text.find("<", lt + 1, q)
    return None


def _marker_lines(text: str, offsets: list[int] | None = None) -> list[int]:
    """The lines of ``text`` whose first ``>`` has nothing but indentation and list markers
    before it: where a blockquote may start (inside list items and other blockquotes too).
    The offset of each such ``>`` is appended to ``offsets`` when given."""
    out = []
    line, at = 1, 0
    i = text.find(">")
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        if not text[start:i].strip(_BEFORE_MARKER):
            line += text.count("\n", at, i)
            at = i
            out.append(line)
            if offsets is not None:
                offsets.append(i)
        end = text.find("\n", i)
        if end < 0:
            break
        # a later ``>`` of the line has this one before it: no blockquote starts there
        i = text.find(">", end)
    return out
