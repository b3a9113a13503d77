"""Every fact rule: CL003–CL004, CL101–CL106, CL302 and CL901, logic and messages.

A cited fact is accepted only when its source is approved (exact string),
the capture of exactly (source, captureSha256) exists and verifies, and the
snippet is a verbatim substring of that capture's text. Nothing is ever
borrowed from another capture or another revision; near misses are
explained in the message, never accepted.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from citelint.captures import CaptureCorrupt, CaptureMissing, Store
from citelint.model import RULES, LabelInfo

#: CL105: a snippet shorter than this (code points) is too weak to identify a passage.
MIN_SNIPPET_CHARS = 20


@dataclass(frozen=True)
class Issue:
    """A rule violation inside one fact: ``field`` is the fact key it points at
    ('' for the fact object itself)."""

    rule: str
    field: str
    message: str


@dataclass(frozen=True)
class Verdict:
    """Outcome of one cited fact: ``issues`` (empty when clean), the snippet's
    code-point ``offset`` in the capture, and whether the capture it names
    was ``resolved`` (approved source, file present and verified)."""

    issues: tuple[Issue, ...]
    offset: int | None = None
    resolved: bool = False

    @property
    def accepted(self) -> bool:
        """True when no issue of a blocking rule (``Rule.blocking``) rejects the fact."""
        return not any(RULES[i.rule].blocking for i in self.issues)


# --------------------------------------------------------------------------- near misses

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
}


def is_variation_selector(c: str) -> bool:
    """True for U+FE00–U+FE0F and U+E0100–U+E01EF (Unicode §23.4 variation selectors)."""
    return "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef"


#: Characters that render as nothing or as blank space although they are not
#: whitespace or format controls (Hangul fillers, Braille blank, combining
#: grapheme joiner, Mongolian vowel separator).
_BLANK = frozenset("\u034f\u115f\u1160\u180e\u2800\u3164\uffa0")


def is_invisible(text: str) -> bool:
    """True when ``text`` has no visible character (rule CL108).

    Invisible: whitespace (including no-break spaces), control and format
    characters (category Cc and Cf: zero-width characters, soft hyphen, bidi
    controls, tags), variation selectors, and the blank-rendering letters in
    ``_BLANK``. Such a snippet matches text nobody can read, so it can never
    be evidence.
    """
    return all(c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp") or
               is_variation_selector(c) or c in _BLANK for c in text)


def char_name(c: str) -> str:
    """``U+2019 RIGHT SINGLE QUOTATION MARK`` style description of one character."""
    name = unicodedata.name(c, None) or _INVISIBLE_NAMES.get(c) or unicodedata.category(c)
    return f"U+{ord(c):04X} {name}"


def _kind(a: str, b: str) -> str:
    """Name the kind of difference between two characters that fold alike.

    Variation selectors are decided first (a missing one leaves the next
    character, often a space, facing it), then whitespace: folding collapses
    runs, so after a doubled space the raw strings are offset and the other
    side may be any character.
    """
    if is_variation_selector(a) or is_variation_selector(b):
        return "variation selector (emoji or text presentation)"
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
def _fold(text: str) -> tuple[str, list[int]]:
    """Fold text for near-miss search, keeping a map from folded index to source index.

    Folding: canonical decomposition per character, quotes and dashes to
    ASCII, every whitespace run (incl. no-break spaces) to one space, and
    format controls (zero-width characters, soft hyphen) and variation
    selectors removed. Used only
    to explain a miss; never to accept a snippet.
    """
    out: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        if unicodedata.category(c) == "Cf" or c == "\u00ad" or is_variation_selector(c):
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


def explain_miss(snippet: str, text: str) -> str:
    """A hint for a snippet that is not a substring of ``text`` (CL104).

    When the snippet occurs after folding (Unicode form, quotes, dashes,
    whitespace runs, no-break or invisible characters), names the first
    differing character of snippet and capture by code point. Otherwise
    says how much of the snippet's start does occur.
    """
    fs, _ = _fold(snippet)
    ft, where = _fold(text)
    hit = ft.find(fs) if fs.strip() else -1
    if hit >= 0:
        start = where[hit]
        end_folded = hit + len(fs)
        end = where[end_folded] if end_folded < len(where) else len(text)
        # Include trailing characters removed by folding, up to the next kept one.
        passage = text[start:end]
        diff = _first_difference(snippet, passage)
        if diff is not None:
            i, a, b = diff
            kind = _kind(a or " ", b or " ")
            have = char_name(a) if a else "its end"
            want = char_name(b) if b else "the end of the passage"
            return (f"near miss ({kind}): at snippet character {i + 1} the snippet has {have} where the "
                    f"capture has {want}; copy the text exactly from the capture, never edit the capture")
    lo, hi = 0, len(snippet)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if snippet[:mid] in text:
            lo = mid
        else:
            hi = mid - 1
    if lo < 5:  # a few letters occur anywhere; that says nothing
        return "no part of the snippet's start occurs in the capture; quote the capture verbatim"
    nxt = snippet[lo]
    return (f"the first {lo} characters occur in the capture, then snippet character {lo + 1} "
            f"({char_name(nxt)}) does not follow them; quote the capture verbatim")


# --------------------------------------------------------------------------- verification

def _short(sha: str) -> str:
    return sha[:12]


def distinct_prefixes(digests: Sequence[str], minimum: int = 12) -> dict[str, str]:
    """The shortest prefix (at least ``minimum`` hex digits) of each digest
    that no other digest in ``digests`` shares, so a hint listing several
    revisions never shows two that look alike."""
    length = minimum
    unique = sorted(set(digests))
    for a, b in zip(unique, unique[1:]):
        common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        length = max(length, common + 1)
    return {d: d[:length] for d in unique}


def count_overlapping(snippet: str, text: str) -> int:
    """Occurrences of ``snippet`` in ``text``, overlapping ones included
    (``"aa"`` occurs twice in ``"aaa"``): each is a passage it could mean."""
    count, at = 0, text.find(snippet)
    while at >= 0:
        count += 1
        at = text.find(snippet, at + 1)
    return count


def verify_cited(fact: Mapping[str, str], *, approved: bool, store: Store) -> Verdict:
    """Verify one schema-valid cited fact (rules CL101–CL106, CL108).

    ``approved`` is whether ``fact["source"]`` is in the config's sources.
    Returns a Verdict; the exactness rules stop at the first failure, except
    that an invisible snippet (CL108) is reported beside a source or capture
    problem, since it does not depend on the capture.
    """
    source, sha, snippet = fact["source"], fact["captureSha256"], fact["snippet"]
    invisible = (Issue("CL108", "snippet", "snippet has no visible character (only whitespace, zero-width or "
                                           "format characters); quote readable text from the capture"),) \
        if is_invisible(snippet) else ()
    if not approved:
        return Verdict(invisible + (Issue("CL101", "source", f"source {source!r} is not in the approved `sources` "
                                                             "of the config (exact match); cite an approved source"),))
    try:
        record = store.lookup(source, sha)
    except CaptureMissing:
        others = store.recent_revisions(source, limit=3)
        if others:
            shown = distinct_prefixes([sha] + [r.sha256 for r in others[-3:]])
            listed = ", ".join(f"{shown[r.sha256]}… ({r.retrieved_at})" for r in others[-3:])
            hint = f"; this source has other revisions, never used in its place: {listed}"
        else:
            shown = {sha: _short(sha)}
            hint = "; this source has no capture at all: run `citelint capture` for it"
        return Verdict(invisible + (Issue("CL102", "captureSha256",
                                          f"no capture of this source with captureSha256 {shown[sha]}…{hint}"),))
    except CaptureCorrupt as exc:
        return Verdict(invisible + (Issue("CL103", "captureSha256", f"the capture file is corrupt: {exc}; restore "
                                                                    "it from version control or capture again"),))
    if invisible:
        return Verdict(invisible, resolved=True)
    text = record.text
    offset = text.find(snippet)
    if offset < 0:
        hint = explain_miss(snippet, text)
        elsewhere = store.revisions_containing(source, snippet, exclude=sha, limit=1)
        if elsewhere:
            other = distinct_prefixes([sha, elsewhere[-1].sha256])[elsewhere[-1].sha256]
            hint += f"; it does occur in revision {other}… of this source (cite that one)"
        return Verdict((Issue("CL104", "snippet", f"snippet not found in capture {_short(sha)}…: {hint}"),),
                       resolved=True)
    issues = []
    if len(snippet) < MIN_SNIPPET_CHARS:
        issues.append(Issue("CL105", "snippet", f"snippet is only {len(snippet)} characters (fewer than "
                                                f"{MIN_SNIPPET_CHARS}); quote enough to identify the passage"))
    elif text.find(snippet, offset + 1) >= 0:
        issues.append(Issue("CL105", "snippet", f"snippet occurs {count_overlapping(snippet, text)} times in the "
                                                "capture; quote more context so it identifies one passage"))
    newer = store.newer_revision(source, record)
    if newer is not None:
        issues.append(Issue("CL106", "captureSha256",
                             f"a newer capture of this source exists ({_short(newer.sha256)}…, "
                             f"{newer.retrieved_at}); check the snippet against it and cite it"))
    return Verdict(tuple(issues), offset=offset, resolved=True)


def review_hints(label: LabelInfo | None, snippet: str) -> tuple[str, ...]:
    """Semantic-review hints (CL901): label unit and period words missing from the snippet."""
    if label is None:
        return ()
    hints = []
    low = snippet.casefold()
    if label.unit and label.unit.casefold() not in low:
        hints.append(f"unit {label.unit!r} does not appear in the snippet")
    if label.period and label.period.casefold() not in low:
        hints.append(f"period {label.period!r} does not appear in the snippet")
    return tuple(hints)


def duplicate_labels(labels: Iterable[tuple[int, str]]) -> Iterator[tuple[int, int, str]]:
    """For (index, label) pairs, yield (index, first_index, label) for each repeat (CL004)."""
    first: dict[str, int] = {}
    for index, label in labels:
        if label in first:
            yield index, first[label], label
        else:
            first[label] = index


# --------------------------------------------------------------------------- a report's facts

class BaseLookup(Protocol):
    """What CL302 needs of the base revision (``citelint.gitbase.BaseCaptures``)."""

    commit: str

    def has_capture(self, source: str, sha256: str) -> bool:
        """True when the base revision holds the capture (source, sha256)."""


@dataclass(frozen=True)
class FactIssue:
    """One finding inside a report: ``index`` of the fact in the facts array,
    ``field`` the fact key it points at ('' for the fact itself)."""

    index: int
    rule: str
    field: str
    message: str


@dataclass(frozen=True)
class AcceptedEntry:
    """A fact that passed every blocking rule, by ``index`` in the facts array.

    Cited facts carry the snippet's code-point ``offset`` in the capture and
    the semantic-review hints ``review``; unavailable facts carry ``reason``.
    """

    index: int
    fact: Mapping[str, str]
    offset: int | None = None
    review: tuple[str, ...] = ()


@dataclass
class FactsOutcome:
    """What :func:`check_facts` found: issues in fact order, accepted facts,
    and the number of cited and unavailable facts checked."""

    issues: list[FactIssue]
    accepted: list[AcceptedEntry]
    cited: int = 0
    unavailable: int = 0


def check_facts(facts: Sequence[tuple[int, Mapping[str, str]]], *, labels: Mapping[str, LabelInfo],
                approved: Callable[[str], bool], store: Store, base: BaseLookup | None = None,
                line_of: Callable[[int], int] = lambda index: 0) -> FactsOutcome:
    """Run every fact rule over the schema-valid ``facts`` of one report.

    ``facts`` are (index, fact) pairs; ``labels`` the approved labels;
    ``approved(source)`` the exact-match test of ``sources``; ``base`` the
    base revision when CL302 is on (None: CL302 is not checked);
    ``line_of(index)`` the 1-based line of a fact, used only in the CL004
    message naming the first occurrence.

    Rules: CL004 (DESIGN §3: a label twice in one report; neither fact of
    the pair is accepted), CL003 (label not approved; the fact is not
    verified further), CL101–CL106 and CL108 through
    :func:`verify_cited`, CL302 (the capture is not on the base revision)
    and CL901 (every accepted citation, for semantic review).
    """
    outcome = FactsOutcome([], [])
    duplicated = set()
    for index, first, label in duplicate_labels((i, f["label"]) for i, f in facts):
        duplicated.add(label)
        outcome.issues.append(FactIssue(index, "CL004", "label", f"label {label!r} appears again (first at "
                                                                 f"line {line_of(first)}); keep one fact per label"))
    for index, fact in facts:
        cited = fact["state"] == "cited"
        if cited:
            outcome.cited += 1
        else:
            outcome.unavailable += 1
        label = fact["label"]
        if label not in labels:
            hint = ("no labels are approved in the config" if not labels
                    else "approve it in the config's `labels` or use an approved label")
            outcome.issues.append(FactIssue(index, "CL003", "label", f"label {label!r} is not approved; {hint}"))
            continue
        if not cited:
            if label not in duplicated:
                outcome.accepted.append(AcceptedEntry(index, fact))
            continue
        verdict = verify_cited(fact, approved=approved(fact["source"]), store=store)
        outcome.issues.extend(FactIssue(index, i.rule, i.field, i.message) for i in verdict.issues)
        if base is not None and verdict.resolved and not base.has_capture(fact["source"], fact["captureSha256"]):
            # The capture exists in the working tree but not on the base: the
            # evidence arrives in the same change as the claim leaning on it.
            outcome.issues.append(FactIssue(
                index, "CL302", "captureSha256",
                f"capture {_short(fact['captureSha256'])}… is not on the base revision {base.commit[:12]} "
                "(require_captures_on_base); merge the capture in its own change first, then the report"))
        if not verdict.accepted or label in duplicated:
            # Either fact of a CL004 pair could be the one meant: neither is accepted.
            continue
        review = review_hints(labels.get(label), fact["snippet"])
        outcome.accepted.append(AcceptedEntry(index, fact, verdict.offset, review))
        detail = "; ".join(review) if review else "check that the snippet supports this label"
        outcome.issues.append(FactIssue(index, "CL901", "",
                                        f"label {label!r} is not verified by citelint, only the excerpt: {detail}"))
    return outcome
