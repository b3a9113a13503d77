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
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from citelint.escape import is_variation_selector, quoted

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
_HYPHEN_AT_BREAK = re.compile("[-\u2010][ \t]*[\r\n]")
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
    ``extraction``). Used only to explain a miss; never to accept a snippet.
    """
    out: list[str] = []
    where: list[int] = []
    skip_break = False
    for i, c in enumerate(text):
        if unicodedata.category(c) == "Cf" or c == "\u00ad" or is_variation_selector(c):
            continue
        if c in _HYPHENS and i and text[i - 1].isalpha() and _line_break_follows(text, i + 1):
            skip_break = True
            if not join_hyphenated:
                out.append("-")
                where.append(i)
            continue
        if skip_break:
            if c.isspace():
                continue
            skip_break = False
        if c in _LIGATURES:
            out.extend(_LIGATURES[c])
            where.extend([i] * len(_LIGATURES[c]))
            continue
        if c.isspace() or c in "\u00a0\u202f\u2007":
            if out and out[-1] == " ":
                continue
            out.append(" ")
            where.append(i)
            continue
        c = _QUOTES.get(c) or _DASHES.get(c) or c
        for d in unicodedata.normalize("NFD", c):
            out.append(d)
            where.append(i)
    return "".join(out), where


def _first_difference(snippet: str, passage: str) -> tuple[int, str, str] | None:
    for i, (a, b) in enumerate(zip(snippet, passage)):
        if a != b:
            return i, a, b
    if len(snippet) != len(passage):
        i = min(len(snippet), len(passage))
        return i, snippet[i:i + 1], passage[i:i + 1]
    return None


def explain_miss(snippet: str, text: str, extractor: str | None = None, *, what: str = "snippet") -> str:
    """The hint of :func:`explain_miss_at`, without the position."""
    return explain_miss_at(snippet, text, extractor, what=what)[0]


def explain_miss_at(snippet: str, text: str, extractor: str | None = None, *,
                    what: str = "snippet") -> tuple[str, int]:
    """A hint for a snippet that is not a substring of ``text`` (CL104), and the
    code-point index in ``snippet`` of the first character that differs (0 when
    nothing of its start occurs), where a finding should point.

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
    if hit < 0 and fs.strip() and _HYPHEN_AT_BREAK.search(text):
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
            if extractor and kind in EXTRACTION_ARTEFACTS:
                return (f"near miss ({kind}): at {what} character {i + 1} the {what} has {have} where the "
                        f"capture has {want}, as extractor {extractor} wrote the text: a typical artefact of "
                        "extraction, not a sign of fabrication; quote the capture's text as it is "
                        "(`citelint show` prints it)"), i
            return (f"near miss ({kind}): at {what} character {i + 1} the {what} has {have} where the "
                    f"capture has {want}; copy the text exactly from the capture, never edit the capture"), i
    lo, hi = 0, len(snippet)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if snippet[:mid] in text:
            lo = mid
        else:
            hi = mid - 1
    if lo < 5:  # a few letters occur anywhere; that says nothing
        return f"no part of the {what}'s start occurs in the capture; quote the capture verbatim", 0
    nxt = snippet[lo]
    of = "" if what == "snippet" else f" of the {what}"
    return (f"the first {lo} characters{of} occur in the capture, then {what} character {lo + 1} "
            f"({char_name(nxt)}) does not follow them; quote the capture verbatim"), lo
