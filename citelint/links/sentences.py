"""Quotation marks and sentence ends in a rendered block, as a reader sees them.

The mark pairs and the sentences that :mod:`citelint.links.prose` finds its
quotations and cited numbers in (docs/quotations.md, "Prose quotations and
numbers (detection)"), and the sentence each quotation link stands in
(:func:`link_sentences`, for semantic review). Indices are code points of a
block's rendered text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from citelint.escape import count_visible
from citelint.links.blocks import Block, Detector

if TYPE_CHECKING:
    pass


#: Quotation marks that pair by themselves, opener -> the closers it takes.
#: A nested opener of the same kind (“a “b” c”) is counted, so the pair is
#: the outer one; „ takes “ or ” (German and Polish usage) and does not nest.
PAIRED_MARKS = {"“": "”", "„": "“”", "«": "»", "「": "」", "『": "』"}


#: Marks that are quotation marks only at a word start (opening) and a word
#: end (closing): ``"`` is also the inch and seconds sign, ’ the apostrophe.
WORD_MARKS = {'"': '"', "‘": "’"}


#: What may stand just before an opening word mark besides whitespace.
_OPEN_BEFORE = frozenset("([{<—–-/") | frozenset(PAIRED_MARKS) | frozenset(WORD_MARKS)


#: What may stand just after a closing word mark besides whitespace (``[`` opens a citation
#: marker: ``"…humanity"[4]``).
_CLOSE_AFTER = frozenset(".,;:!?)[]}>…—–-/'") | frozenset("”»」』’\"")
#: Every character that may be a quotation mark.
ALL_MARKS = "".join(sorted(set(PAIRED_MARKS) | set("”»」』“") | set(WORD_MARKS) | {"’"}))
MARKS = re.compile('[' + re.escape(ALL_MARKS) + ']')
#: The marks a text node of cmark's output is searched for (``"`` is ``&quot;`` there; ’ alone is
#: most often an apostrophe, and », 」, 』 close only what one of these opened).
TEXT_MARKS = "".join(sorted(set(PAIRED_MARKS) | {"‘", "”"}))


#: Abbreviations after which a ``.`` ends no sentence (case matters: "No. 5", but "said no. Then").
ABBREVIATIONS = frozenset([
    "e.g.", "i.e.", "etc.", "cf.", "vs.", "viz.", "al.", "approx.", "ca.", "resp.", "incl.", "esp.", "Dr.", "Mr.",
    "Mrs.", "Ms.", "Mx.", "Prof.", "Sr.", "Jr.", "St.", "Mt.", "Fig.", "fig.", "Figs.", "No.", "no.", "Nos.",
    "Vol.", "vol.", "Eq.", "eq.", "Ch.", "ch.", "Sec.", "sec.", "Art.", "p.", "pp.", "ed.", "eds.", "Inc.",
    "Ltd.", "Co.", "Corp.", "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.", "Oct.",
    "Nov.", "Dec.", "Gen.", "Gov.", "Sen.", "Rep.", "Rev.", "Hon.", "z.B.", "u.a.", "d.h.", "bzw.", "vgl.",
    "ggf.", "S.", "Nr.",
])


_TERMINATORS = re.compile(r"[.!?。！？]")


#: Full-width terminators end a sentence whatever follows: CJK text puts no space after them.
_CJK_TERMINATORS = frozenset("。！？")


#: What may follow a sentence terminator before the space that ends the sentence.
_AFTER_TERMINATOR = frozenset("\"'”’»」』)]*")


#: Link text that is only a citation marker: ``1``, ``[1]``, ``^1``.
_MARKER_TEXT = re.compile(r"\[?\^?\d+\]?")


#: Elisions inside a quotation, and a bracketed insertion of at most MAX_INSERTION_CHARS.
MAX_INSERTION_CHARS = 60
_SPLIT = re.compile(rf"\s*(?:\[(?:\.\.\.|…)\]|\.\.\.|…|(\[[^\[\]]{{1,{MAX_INSERTION_CHARS}}}\]))\s*")


class Segment(NamedTuple):
    """One piece of a quotation between elisions and insertions: ``text`` and
    its ``start`` (code-point index into :attr:`Quotation.text`)."""

    text: str
    start: int


def split_quotation(text: str, min_segment_chars: int = 12) -> tuple[tuple[Segment, ...], tuple[str, ...],
                                                                     tuple[str, ...]]:
    """``text`` split at elisions (``...``, ``…``, ``[...]``, ``[…]``) and bracketed insertions.

    Returns (segments, insertions as written, the texts of the segments with
    fewer than ``min_segment_chars`` visible characters). The whitespace
    beside an elision or insertion belongs to no segment; an insertion is
    ``[`` + at most MAX_INSERTION_CHARS characters without brackets + ``]``.
    """
    segments: list[Segment] = []
    insertions: list[str] = []
    pos = 0
    for m in _SPLIT.finditer(text):
        piece = text[pos:m.start()]
        if piece.strip():
            segments.append(Segment(piece, pos))
        if m.group(1):
            insertions.append(m.group(1))
        pos = m.end()
    if text[pos:].strip():
        segments.append(Segment(text[pos:], pos))
    short = tuple(s.text for s in segments if count_visible(s.text) < min_segment_chars)
    return tuple(segments), tuple(insertions), short


def in_spans(ranges: Sequence[tuple[int, int]], i: int) -> bool:
    return any(a <= i < b for a, b in ranges)


def _opens(text: str, p: int) -> bool:
    """True when the word mark at ``p`` stands at a word start: it may open a quotation."""
    if p + 1 >= len(text) or text[p + 1].isspace():
        return False
    return p == 0 or text[p - 1].isspace() or text[p - 1] in _OPEN_BEFORE


def _closes(text: str, q: int) -> bool:
    """True when the word mark at ``q`` stands at a word end: it may close a quotation."""
    if q == 0 or text[q - 1].isspace():
        return False
    after = text[q + 1] if q + 1 < len(text) else ""
    if text[q] == '"' and text[q - 1].isdigit() and after not in ("", ".", ",", ";", ":", "!", "?", ")"):
        return False  # an inch or seconds mark: a 5" screen, 3' 4"
    return after == "" or after.isspace() or after in _CLOSE_AFTER


def mark_pairs(text: str, code: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """(opening, closing) indices of the outermost quotation-mark pairs of ``text``, outside code."""
    marks = [m.start() for m in MARKS.finditer(text) if not (code and in_spans(code, m.start()))]
    pairs = []
    k = 0
    while k < len(marks):
        p = marks[k]
        c = text[p]
        match = None
        if c in PAIRED_MARKS:
            closers = PAIRED_MARKS[c]
            depth = 1
            for m in range(k + 1, len(marks)):
                ch = text[marks[m]]
                if ch == c and c != "„":
                    depth += 1
                elif ch in closers:
                    depth -= 1
                    if depth == 0:
                        match = m
                        break
        elif c in WORD_MARKS and _opens(text, p):
            closer = WORD_MARKS[c]
            inner = 0  # curly pairs opened inside: their ” is theirs
            for m in range(k + 1, len(marks)):
                q = marks[m]
                ch = text[q]
                if ch == "“":
                    inner += 1
                elif ch == "”" and inner:
                    inner -= 1
                elif (ch == closer or (c == '"' and ch == "”")) and _closes(text, q):
                    # "…” (a straight mark closed by a curly one) is a typing slip, not two quotations
                    match = m
                    break
        if match is None:
            k += 1
        else:
            pairs.append((p, marks[match]))
            k = match + 1
    return pairs


def is_marker_text(link_text: str) -> bool:
    return _MARKER_TEXT.fullmatch(link_text.strip()) is not None


def split_sentences(b: Block, pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Sentences of ``b``: (start, terminator end, end after the run of citation-only links), in order.

    A terminator inside a quotation ends no sentence, unless it is the
    quotation's last character (“… it rained.” Then …).
    """
    text = b.text
    n = len(text)
    markers = {a: e for a, e, _, _ in b.links if is_marker_text(text[a:e])}
    marker_ends = set(markers.values())
    refs = {i for i, _ in b.refs}
    out = []
    start = 0
    for m in _TERMINATORS.finditer(text):
        t = m.start()
        if t < start or (b.code and in_spans(b.code, t)):
            continue
        if any(o < t < c - 1 for o, c in pairs):
            continue
        ch = text[t]
        j = t + 1
        while j < n and text[j] in _AFTER_TERMINATOR:
            j += 1
        if ch not in _CJK_TERMINATORS and not (j == n or text[j].isspace() or j in markers or j in refs):
            continue
        if ch == "." and t not in marker_ends and _not_an_end(text, t):
            continue  # (after a citation marker "[1](…)." the digit is the marker's)
        end = j
        while True:  # the run of citation-only links and footnote references after the terminator
            k = end
            while k < n and text[k].isspace():
                k += 1
            if k in markers and markers[k] > k:
                end = markers[k]
            elif k in refs:
                refs = refs - {k}  # a reference has no width: taken once
                end = max(end, k)
            else:
                break
        out.append((start, j, end))
        start = end
        while start < n and text[start].isspace():
            start += 1
    if start < n:
        out.append((start, n, n))
    return out


def _not_an_end(text: str, t: int) -> bool:
    """True when the ``.`` at ``t`` ends an abbreviation, an initial or a number, or is part of ``...``."""
    if t == 0:
        return True
    before = text[t - 1]
    if before.isdigit() or before == "." or (t + 1 < len(text) and text[t + 1] == "."):
        return True
    s = t
    while s > 0 and not text[s - 1].isspace() and text[s - 1] not in "([{\"'“‘«":
        s -= 1
    word = text[s:t + 1]
    if word in ABBREVIATIONS:
        return True
    return len(word) == 2 and word[0].isupper() or (len(word) >= 2 and word[-2].isupper()
                                                      and (len(word) == 2 or word[-3] == "."))


def link_sentences(markdown: str, starts: Sequence[int]) -> dict[int, str]:
    """The rendered sentence each link of ``markdown`` that starts at one of the code-point
    offsets ``starts`` stands in, by that offset (a link found in no sentence is left out).

    Sentences end as the citation rule says (docs/quotations.md); the run of
    citation-only links after a terminator belongs to the sentence before it.
    Used for the semantic review of quotation links, whose sentence is what
    a reviewer judges the quoted passage against. Raises nothing for any ``str``.
    """
    wanted = set(starts)
    out: dict[int, str] = {}
    if not wanted:
        return out
    det = Detector(markdown)
    lo, hi = min(wanted), max(wanted)
    for k in range(len(det.leaves)):
        b = det.block(k)
        if not b.links or (b.hi > b.lo and (b.hi <= lo or b.lo > hi)):
            continue  # no link of this block can be one of them
        det.d.attach(b)
        mine = [(a, link.start) for a, _e, _h, link in b.links if link is not None and link.start in wanted]
        if not mine:
            continue
        sentences = split_sentences(b, mark_pairs(b.text, b.code))
        for a, start in mine:
            s0, _t, s_end = next(((s, t, e) for s, t, e in sentences if s <= a < e), (0, len(b.text), len(b.text)))
            out.setdefault(start, b.text[s0:s_end].strip())
    return out
