"""What every excerpt must be (CL105, CL108), and why one is not found.

An excerpt is text citelint verifies against a capture: a fact's snippet,
the terms of a quotation link's text directive. The rules every excerpt
obeys whatever its form are decided and worded here, once: CL108 (no
visible character, :func:`citelint.escape.is_invisible`, :func:`invisible_message`) and
CL105 (shorter than :data:`MIN_SNIPPET_CHARS`, or matching several
passages: :func:`short_message`, :func:`repeated_snippet_message`,
:func:`repeated_quotation_message`); so are the bound on explaining misses
(:class:`MissBudget`) and the digests a hint shows (:func:`shown_digests`).

An excerpt is accepted only when it occurs verbatim. When it does not, the
message should say why it looked right: curly vs straight quotes, Unicode
normalization, whitespace runs, no-break spaces, zero-width characters,
soft hyphens, dashes, variation selectors, and the artefacts of turning a
page into text (ligatures, a word hyphenated at a line break, a form feed
at a page break), naming the extractor that made the capture when it is
known. This module folds both sides to
find the passage meant and names the first differing character by code
point. It only ever explains; nothing here accepts a snippet.

Prose quotations (CL205) are matched here too, with the one allowance they
have beyond verbatim (:func:`occurs`: any whitespace run equals any other,
never across ``\\f``), and a miss shows the capture's :func:`nearest` passage.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from citelint.escape import is_variation_selector, quoted
from citelint.model import Difference

#: CL105: an excerpt shorter than this (code points) is too weak to identify a passage.
MIN_SNIPPET_CHARS = 20

def invisible_message(what: str) -> str:
    """CL108's message for an excerpt with no visible character; ``what`` names
    the excerpt as the message opens (``"snippet"``, ``"the quoted start term"``)."""
    return (f"{what} has no visible character (only whitespace, zero-width or format characters); "
            "quote readable text from the capture")


def short_message(what: str, length: int, where: str = "") -> str:
    """CL105's message for an excerpt of ``length`` code points, under
    :data:`MIN_SNIPPET_CHARS`; ``what`` names it as the message opens,
    ``where`` ends the advice (``" in capture 1a2b…"``, or nothing)."""
    return (f"{what} is only {length} characters (fewer than {MIN_SNIPPET_CHARS}); "
            f"quote enough to identify the passage{where}")


def repeated_snippet_message(count: int) -> str:
    """CL105's message for a fact's snippet that occurs ``count`` times (overlapping ones included)."""
    return f"snippet occurs {count} times in the capture; quote more context so it identifies one passage"


def repeated_quotation_message(start: str, count: str, capture: str, note: str = "") -> str:
    """CL105's message for a quotation whose text directive (start term ``start``)
    matches ``count`` passages (``"3"``, ``"at least 1000"``) of the capture whose
    digest is ``capture``; ``note`` ends it (what a range leaves unverified, or nothing)."""
    return (f"the quotation {quoted(start, 40)} matches {count} passages of capture {capture[:12]}…; add a "
            f"prefix (`prefix-,`), a suffix (`,-suffix`) or more text so it identifies one{note}")


def count_overlapping(excerpt: str, text: str) -> int:
    """Occurrences of ``excerpt`` in ``text``, overlapping ones included
    (``"aa"`` occurs twice in ``"aaa"``): each is a passage it could mean."""
    count, at = 0, text.find(excerpt)
    while at >= 0:
        count += 1
        at = text.find(excerpt, at + 1)
    return count


def shown_digests(digests: Sequence[str]) -> dict[str, str]:
    """How one message shows the digests it names: a lone digest as its first
    12 hex digits and ``…``; several, whole. A message naming two digests asks
    the reader to compare them (the digest a report wrote and the revisions
    there are), and any cut, even one just long enough to tell them apart,
    hides whatever else differs, such as a typo in the last digits.
    Returns digest -> how it is shown."""
    unique = set(digests)
    if len(unique) == 1:
        return {d: d[:12] + "…" for d in unique}
    return {d: d for d in unique}


#: Bounds of near-miss explanation, per capture in one run (so the output is
#: the same for any --jobs). Explaining a miss scans the capture's folded
#: text, so the budget is in characters scanned: a short capture explains
#: every miss, a long one a few, and one over NEAR_MISS_MAX_CHARS none (the
#: folding itself runs in Python). At least NEAR_MISSES_MIN are explained.
NEAR_MISS_CHARS = 64 * 1024 * 1024
NEAR_MISSES_MIN = 20
NEAR_MISS_MAX_CHARS = 8 * 1024 * 1024


class MissBudget:
    """How many more misses against one capture, of ``text``, may be explained
    (:func:`explain_miss_at`) in a run; ``why`` says why one is not."""

    def __init__(self, text: str):
        self.total = 0 if len(text) > NEAR_MISS_MAX_CHARS else \
            max(NEAR_MISSES_MIN, NEAR_MISS_CHARS // max(1, len(text)))
        self.left = self.total
        self.why = ("not explained: the capture is too large to compare near misses "
                    f"(over {NEAR_MISS_MAX_CHARS} characters)" if not self.total else
                    f"not explained: near misses are explained for at most {self.total} snippets "
                    "against this capture in a run")

    def take(self) -> bool:
        """True (and one fewer left) when one more miss may be explained."""
        if self.left <= 0:
            return False
        self.left -= 1
        return True

_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
}
_DASHES = {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"}
_INVISIBLE_NAMES = {
    "\u00ad": "SOFT HYPHEN",
    "\u200b": "ZERO WIDTH SPACE",
    "\u200c": "ZERO WIDTH NON-JOINER",
    "\u200d": "ZERO WIDTH JOINER",
    "\u2060": "WORD JOINER",
    "\ufeff": "ZERO WIDTH NO-BREAK SPACE",
    "\t": "CHARACTER TABULATION",
    "\n": "LINE FEED",
    "\r": "CARRIAGE RETURN",
    "\f": "FORM FEED",
}


#: Typographic ligatures (Unicode's Alphabetic Presentation Forms, U+FB00–U+FB06)
#: that PDF text extraction passes through, folded to their letters.
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
              "\ufb05": "st", "\ufb06": "st"}
_HYPHENS = "-\u2010"
#: Printable ASCII but the hyphen and the backquote (which folding changes or may drop), in
#: runs with single spaces between them: folding leaves such a run as it is.
_PLAIN = re.compile(r"[!-,.-_a-~]+(?: [!-,.-_a-~]+)*")
_HYPHEN_AT_BREAK = re.compile("[-\u2010][ \t]*[\r\n]")
_HYPHEN_JOINED = re.compile("[^\\W\\d_][-\u2010][^\\W\\d_]")
#: Kinds of difference that text extraction typically makes, not a quoter.
EXTRACTION_ARTEFACTS = frozenset({"ligature", "hyphenation at a line break", "form feed (a page break)",
                                  "soft hyphen", "non-breaking space"})


def char_name(c: str) -> str:
    """``U+2019 RIGHT SINGLE QUOTATION MARK`` style description of one character."""
    name = unicodedata.name(c, None) or _INVISIBLE_NAMES.get(c) or unicodedata.category(c)
    return f"U+{ord(c):04X} {name}"


def _line_break_follows(text: str, at: int) -> bool:
    """True when ``text`` has a line break after ``at``, with only spaces or tabs before it."""
    i = at
    while i < len(text) and text[i] in " \t":
        i += 1
    return i < len(text) and text[i] in "\n\r"


def _kind(a: str, b: str, passage: str = "", at: int = 0) -> str:
    """Name the kind of difference between two characters that fold alike:
    ``a`` of the snippet, ``b`` of the capture's ``passage`` at index ``at``.

    Variation selectors are decided first (a missing one leaves the next
    character, often a space, facing it), then extraction artefacts, then
    whitespace: folding collapses runs, so after a doubled space the raw
    strings are offset and the other side may be any character.
    """
    if is_variation_selector(a) or is_variation_selector(b):
        return "variation selector (emoji or text presentation)"
    if a in _LIGATURES or b in _LIGATURES:
        return "ligature"
    if (b in _HYPHENS and _line_break_follows(passage, at + 1)) or \
            (b in "\n\r \t" and at and passage[at - 1] in _HYPHENS and _line_break_follows(passage, at)):
        return "hyphenation at a line break"
    if b in _HYPHENS and a.isalpha() and at and passage[at - 1].isalpha() and passage[at + 1:at + 2].isalpha():
        # A text that joins a paragraph's lines keeps a line-end hyphen as printed (pdf-text).
        return "hyphenation at a line break"
    if a == "\f" or b == "\f":
        return "form feed (a page break)"
    for c in (a, b):
        if c in "\u00a0\u202f\u2007":
            return "non-breaking space"
    if a.isspace() or b.isspace():
        return "whitespace (a different space character or a run of spaces)"
    if a == "\u00ad" or b == "\u00ad":
        return "soft hyphen"
    if a in _QUOTES or b in _QUOTES:
        return "curly vs straight quotes"
    if a in _DASHES or b in _DASHES:
        return "dash vs hyphen"
    if unicodedata.category(a) == "Cf" or unicodedata.category(b) == "Cf":
        return "invisible character (zero-width or format control)"
    # 'e' + U+0301 against U+00E9: the same base letter, composed differently.
    if unicodedata.normalize("NFD", a)[:1] == unicodedata.normalize("NFD", b)[:1] or \
            unicodedata.category(a) == "Mn" or unicodedata.category(b) == "Mn":
        return "Unicode normalization (NFC vs NFD)"
    return "a different character"


@lru_cache(maxsize=16)
def _fold(text: str, join_hyphenated: bool = False) -> tuple[str, list[int]]:
    """Fold text for near-miss search, keeping a map from folded index to source index.

    Folding: canonical decomposition per character, quotes and dashes to
    ASCII, ligatures to their letters, every whitespace run (incl. no-break
    spaces) to one space, format controls (zero-width characters, soft
    hyphen) and variation selectors removed, and the line break after a
    hyphen that ends a line removed (``well-\nknown``: ``well-known``); with
    ``join_hyphenated`` the hyphen goes too (``extrac-\ntion``:
    ``extraction``), and so does a hyphen between two letters, as a text
    that joins a paragraph's lines keeps a line-end hyphen (``extrac-tion``).
    Used only to explain a miss; never to accept a snippet.
    """
    out: list[str] = []
    where: list[int] = []
    skip_break = False
    i, n = 0, len(text)
    plain = _PLAIN.match
    while i < n:
        m = plain(text, i)
        if m is not None:
            # Characters each folded to itself, single spaces between them: what the steps
            # below append one by one (a space after a kept character is kept, and a kept
            # character ends the skipping of a line break), appended at once.
            stop = m.end()
            out.append(m.group())
            where.extend(range(i, stop))
            skip_break = False
            i = stop
            continue
        j, c = i, text[i]
        i += 1
        if unicodedata.category(c) == "Cf" or c == "\u00ad" or is_variation_selector(c):
            continue
        if c in _HYPHENS and j and text[j - 1].isalpha() and _line_break_follows(text, j + 1):
            skip_break = True
            if not join_hyphenated:
                out.append("-")
                where.append(j)
            continue
        if join_hyphenated and c in _HYPHENS and j and text[j - 1].isalpha() and text[j + 1:j + 2].isalpha():
            continue
        if skip_break:
            if c.isspace():
                continue
            skip_break = False
        if c in _LIGATURES:
            out.extend(_LIGATURES[c])
            where.extend([j] * len(_LIGATURES[c]))
            continue
        if c.isspace() or c in "\u00a0\u202f\u2007":
            if out and out[-1] == " ":
                continue
            out.append(" ")
            where.append(j)
            continue
        c = _QUOTES.get(c) or _DASHES.get(c) or c
        for d in unicodedata.normalize("NFD", c):
            out.append(d)
            where.append(j)
    return "".join(out), where


def _first_difference(snippet: str, passage: str) -> tuple[int, str, str] | None:
    for i, (a, b) in enumerate(zip(snippet, passage)):
        if a != b:
            return i, a, b
    if len(snippet) != len(passage):
        i = min(len(snippet), len(passage))
        return i, snippet[i:i + 1], passage[i:i + 1]
    return None


#: Code points of shared text, and of each side from the first difference on, a :class:`Difference` keeps.
DIFFERENCE_BEFORE = 40
DIFFERENCE_AFTER = 40


class Miss(NamedTuple):
    """Why an excerpt does not occur in a capture (:func:`explain_miss_at`).

    ``hint`` is the explanation for the finding's message; ``at`` the
    code-point index in the excerpt of its first differing character (0
    when nothing of its start occurs), where the finding should point;
    ``difference`` both texts at that character, for the step summary.
    """

    hint: str
    at: int
    difference: Difference


def difference_at(excerpt: str, i: int, text: str, j: int) -> Difference:
    """The :class:`Difference` of ``excerpt`` and ``text`` that agree just before
    index ``i`` of the one and ``j`` of the other and part there.

    Each part keeps one code point more than :data:`DIFFERENCE_BEFORE` or
    :data:`DIFFERENCE_AFTER` when the text goes on, so a display can tell a
    cut text (and show ``…``) from one that ends there."""
    before = excerpt[max(0, i - DIFFERENCE_BEFORE - 1):i]
    return Difference(before, excerpt[i:i + DIFFERENCE_AFTER + 1], text[j:j + DIFFERENCE_AFTER + 1])


def explain_miss(snippet: str, text: str, extractor: str | None = None, *, what: str = "snippet") -> str:
    """The hint of :func:`explain_miss_at`, without the position."""
    return explain_miss_at(snippet, text, extractor, what=what).hint


def explain_miss_at(snippet: str, text: str, extractor: str | None = None, *, what: str = "snippet") -> Miss:
    """Why ``snippet`` is not a substring of ``text`` (CL104, CL204, CL205): a
    :class:`Miss` with the hint, the code-point index in ``snippet`` of the
    first character that differs (0 when nothing of its start occurs), where
    a finding should point, and both texts there.

    When the snippet occurs after folding (Unicode form, quotes, dashes,
    whitespace runs, no-break or invisible characters, ligatures, words
    hyphenated at a line break), names the first differing character of
    snippet and capture by code point; when that difference is a typical
    artefact of extraction (:data:`EXTRACTION_ARTEFACTS`) and ``extractor``
    (``"name version"``) made the capture, says so. Otherwise says how much
    of the snippet's start does occur.

    ``what`` names the text explained in the hint's words: ``snippet`` for a
    fact, or the quotation term that failed (``prefix``, ``start term``,
    ``end term``, ``suffix``), so a hint about one term never reads as a
    statement about another.
    """
    fs, _ = _fold(snippet)
    ft, where = _fold(text)
    hit = ft.find(fs) if fs.strip() else -1
    if hit < 0 and fs.strip() and (_HYPHEN_AT_BREAK.search(text) or _HYPHEN_JOINED.search(text)):
        ft, where = _fold(text, True)
        hit = ft.find(fs)
    if hit >= 0:
        start = where[hit]
        end_folded = hit + len(fs)
        end = where[end_folded] if end_folded < len(where) else len(text)
        # Include trailing characters removed by folding, up to the next kept one.
        passage = text[start:end]
        diff = _first_difference(snippet, passage)
        if diff is not None:
            i, a, b = diff
            kind = _kind(a or " ", b or " ", passage, i)
            have = char_name(a) if a else "its end"
            want = char_name(b) if b else "the end of the passage"
            shown = difference_at(snippet, i, text, start + i)
            if extractor and kind in EXTRACTION_ARTEFACTS:
                return Miss(f"near miss ({kind}): at {what} character {i + 1} the {what} has {have} where the "
                            f"capture has {want}, as extractor {extractor} wrote the text: a typical artefact of "
                            "extraction, not a sign of fabrication; quote the capture's text as it is "
                            "(`citelint show` prints it)", i, shown)
            return Miss(f"near miss ({kind}): at {what} character {i + 1} the {what} has {have} where the "
                        f"capture has {want}; copy the text exactly from the capture, never edit the capture",
                        i, shown)
    lo, hi = 0, len(snippet)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if snippet[:mid] in text:
            lo = mid
        else:
            hi = mid - 1
    if lo < 5:  # a few letters occur anywhere; that says nothing
        return Miss(f"no part of the {what}'s start occurs in the capture; quote the capture verbatim", 0,
                    Difference("", snippet[:DIFFERENCE_BEFORE + DIFFERENCE_AFTER + 1], nearest_passage(text, snippet),
                               aligned=False))
    nxt = snippet[lo]
    of = "" if what == "snippet" else f" of the {what}"
    # The capture's text where the snippet's longest occurring start ends (its first occurrence).
    shown = difference_at(snippet, lo, text, text.find(snippet[:lo]) + lo)
    return Miss(f"the first {lo} characters{of} occur in the capture, then {what} character {lo + 1} "
                f"({char_name(nxt)}) does not follow them; quote the capture verbatim", lo, shown)


# --------------------------------------------------------------------------- prose quotations

#: Occurrences of an elided quotation's first segment tried as its start, per capture.
OCCURRENCES_TRIED = 10_000
#: Capture characters shown either side of the nearest passage of a miss.
NEAREST_CONTEXT = 30
_RUN = re.compile(r"[^\S\f]+")  # a whitespace run that holds no page break


class Flat(NamedTuple):
    """A capture's text with each whitespace run that holds no ``\\f`` written as one space.

    ``text`` is that text; ``runs`` and ``removed`` map an index of it back
    to the capture: ``removed[k]`` characters were dropped before
    ``runs[k]`` (a sorted list of indices into ``text``).
    """

    text: str
    runs: list[int]
    removed: list[int]

    def original(self, i: int) -> int:
        """The capture's code-point index of index ``i`` of :attr:`text`."""
        k = bisect_right(self.runs, i)
        return i + (self.removed[k - 1] if k else 0)


def flatten(text: str) -> Flat:
    """``text`` with every whitespace run holding no ``\\f`` replaced by one space (see :class:`Flat`)."""
    runs: list[int] = []
    removed: list[int] = []
    parts: list[str] = []
    pos = dropped = 0
    for m in _RUN.finditer(text):
        a, e = m.span()
        if e - a == 1 and text[a] == " ":
            continue
        parts.append(text[pos:a])
        parts.append(" ")
        dropped += e - a - 1
        pos = e
        # Past the space that stands for the run, the capture is ``dropped`` characters further on.
        runs.append(a - (dropped - (e - a - 1)) + 1)
        removed.append(dropped)
    if not runs:
        return Flat(text, runs, removed)
    parts.append(text[pos:])
    return Flat("".join(parts), runs, removed)


def flat_quotation(text: str) -> str:
    """``text`` (a quotation as rendered) with each whitespace run holding no ``\\f`` as one space."""
    return _RUN.sub(" ", text)


def occurs(flat: Flat, segments: Sequence[str], gaps: Sequence[int], optional_end: bool) -> bool:
    """True when ``segments`` (whitespace already flattened) occur in order in ``flat``.

    ``gaps[i]`` is the most capture characters allowed between segment
    ``i`` and ``i + 1``; a gap never holds ``\\f``. With ``optional_end``
    the last segment may lack its final character when that is a ``.`` or
    ``,`` (one just inside the closing mark). Overlapping occurrences of the first segment are all
    tried; each later segment is taken at its first occurrence after the
    previous one, which is the one that leaves the most room for the next.
    """
    text = flat.text
    endings = [segments[-1]]
    if optional_end and segments[-1][-1:] in (".", ",") and len(segments[-1]) > 1:
        endings.append(segments[-1][:-1])
    for ending in endings:
        parts = [*segments[:-1], ending]
        if len(parts) == 1:
            if ending in text:
                return True
            continue
        at = text.find(parts[0])
        tries = OCCURRENCES_TRIED
        while at >= 0 and tries:
            if _rest(flat, at + len(parts[0]), parts, gaps, 1):
                return True
            at = text.find(parts[0], at + 1)
            tries -= 1
    return False


def may_occur(text: str, segments: Sequence[str], optional_end: bool) -> bool:
    """False when ``segments`` (as :func:`occurs` takes them) cannot occur in ``flatten(text)``.

    Flattening changes only whitespace runs, so every space-free piece of a
    segment occurs in the capture's own ``text`` wherever the segment
    occurs in its flattened text: a substring search per piece rules out
    most captures before one is flattened (what a missed quotation's search
    of every other source's capture, :mod:`citelint.links.claims`, relies on).
    True says only that :func:`occurs` has to decide.
    """
    last = len(segments) - 1
    for k, segment in enumerate(segments):
        if k == last and optional_end and segment[-1:] in (".", ",") and len(segment) > 1:
            segment = segment[:-1]  # the "." or "," just inside the closing mark may be absent
        for piece in segment.split(" "):
            if piece not in text:
                return False
    return True


def _rest(flat: Flat, end: int, parts: Sequence[str], gaps: Sequence[int], i: int) -> bool:
    text = flat.text
    while i < len(parts):
        nxt = text.find(parts[i], end)
        if nxt < 0:
            return False
        gap = flat.original(nxt) - flat.original(end)
        if gap > gaps[i - 1] or "\f" in text[end:nxt]:
            return False
        end = nxt + len(parts[i])
        i += 1
    return True


def nearest(text: str, wanted: str) -> str:
    """The passage of ``text`` nearest ``wanted`` (:func:`nearest_passage`), quoted for a message
    (printable ASCII), or "" when there is none."""
    passage = nearest_passage(text, wanted)
    return quoted(passage, len(passage) + 2) if passage else ""


def nearest_passage(text: str, wanted: str) -> str:
    """The passage of ``text`` nearest ``wanted``, with :data:`NEAREST_CONTEXT` characters
    either side and ``...`` where it is cut, as the capture has it (untrusted text), or ""
    when no part of at least 8 characters of its start or end occurs. The longest start of
    ``wanted`` that occurs is tried first, then its longest end."""
    def longest(ok: int) -> int:
        lo, hi = 0, len(wanted)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if ok_at(ok, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def ok_at(side: int, k: int) -> bool:
        return (wanted[:k] if side == 0 else wanted[len(wanted) - k:]) in text

    head, tail = longest(0), longest(1)
    if max(head, tail) < max(8, len(wanted) // 4):
        return ""
    if head >= tail:
        at = text.find(wanted[:head])
    else:
        at = max(0, text.find(wanted[len(wanted) - tail:]) - (len(wanted) - tail))
    lo, hi = max(0, at - NEAREST_CONTEXT), min(len(text), at + len(wanted) + NEAREST_CONTEXT)
    return ("..." if lo else "") + text[lo:hi] + ("..." if hi < len(text) else "")
