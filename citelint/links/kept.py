"""What the claim checks of one run (CL205, CL206: :mod:`citelint.links.claims`) keep of its captures.

A run's reports cite the same sources again and again, and misquote the same
passages (an answer copied into several reports), so a run reads, flattens and
explains each capture once, not once per report:

- :class:`RunKept`, one per capture store (a store is a run's, and what it
  holds does not change during the run): the sources' newest revisions,
  flattened captures, near-miss explanations and which numbers a capture
  holds, each within a bound of characters;
- :class:`SourceIndex`: the newest revisions of the run's approved sources
  with their texts joined, which a missed quotation's search of the other
  sources ("it occurs in the capture of …") reads, and the answers of those
  searches.

Everything kept is a function of the captures and of what is asked, never of
the order in which reports ask: the findings are the same with or without it.
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from citelint.excerpts import Flat
    from citelint.model import Difference
    from citelint.store.captures import CaptureRecord, NewestRevisions, Store

#: Capture text kept per store (a run's) of the sources' newest revisions, so that a run reads
#: those of a source once, not once per report citing it and per missed quotation.
NEWEST_KEPT_CHARS = 16 * 1024 * 1024
#: Text kept per store of flattened captures, near-miss explanations and the quotations whose
#: search of other sources is answered.
KEPT_DERIVED_CHARS = 4 * 1024 * 1024
#: (capture, number) answers kept per store: which cited numbers a capture holds.
KEPT_NUMBERS = 64 * 1024


class RunKept:
    """What one run's claim checks keep: ``kept`` (source to its newest revisions, up to
    NEWEST_KEPT_CHARS of their text), ``indexes`` (:class:`SourceIndex` of each order of
    sources asked for; a run has one, its config's, or None when it would be too large),
    ``flats`` (capture digest to its flattened text), ``explained`` ((capture digest, its
    extractor as messages name it, "quotation" or "segment", the missed text) to the
    near-miss explanation and where it parts from the capture) and ``numbers`` ((capture
    digest, a number's readings) to whether the capture holds it)."""

    def __init__(self) -> None:
        self.kept: dict[str, NewestRevisions] = {}
        self.chars = 0
        self.indexes: dict[tuple[str, ...], SourceIndex | None] = {}
        self.flats: dict[str, Flat] = {}
        self.explained: dict[tuple[str, str | None, str, str], tuple[str, Difference | None]] = {}
        self.numbers: dict[tuple[str, tuple[str, ...]], bool] = {}
        self.derived_chars = 0

    def of(self, store: Store, source: str) -> NewestRevisions:
        """:meth:`~citelint.store.captures.Store.newest_revisions` of ``source`` in ``store`` (no
        group when no capture of it verifies), kept while NEWEST_KEPT_CHARS allows."""
        hit = self.kept.get(source)
        if hit is None:
            hit = store.newest_revisions(source, keep=True)
            groups = hit.groups
            # (one revision, one group: most sources; the index asks this of every source)
            size = len(groups[0][0].text) if len(groups) == 1 and len(groups[0]) == 1 else \
                sum(len(r.text) for g in groups for r in g)
            if self.chars + size <= NEWEST_KEPT_CHARS:
                self.kept[source] = hit
                self.chars += size
        return hit

    def keep(self, chars: int) -> bool:
        """True, and ``chars`` counted, when ``chars`` more characters of derived text (a
        flattened capture, an explanation, a searched quotation) fit in KEPT_DERIVED_CHARS."""
        if self.derived_chars + chars > KEPT_DERIVED_CHARS:
            return False
        self.derived_chars += chars
        return True

    def index(self, store: Store, sources: Sequence[str]) -> SourceIndex | None:
        """The :class:`SourceIndex` of ``sources`` (built on first use), or None when their
        newest revisions pass NEWEST_KEPT_CHARS."""
        key = tuple(sources)
        if key not in self.indexes:
            self.indexes[key] = SourceIndex.build(store, self, sources)
        return self.indexes[key]


_RUNS: weakref.WeakKeyDictionary[Store, RunKept] = weakref.WeakKeyDictionary()


def run_kept(store: Store) -> RunKept:
    """The :class:`RunKept` of ``store`` (one per store object, gone with it)."""
    hit = _RUNS.get(store)
    if hit is None:
        hit = _RUNS[store] = RunKept()
    return hit


class SourceIndex:
    """The newest revisions of a run's approved sources, in config order, with their texts
    joined into one string, so that a missed quotation's search of the other sources
    (:meth:`citelint.links.claims.ClaimChecker._elsewhere`) finds the few captures holding
    its longest space-free piece with ``str.find`` instead of testing every capture.

    ``entries`` lists (source, record) in the order that search reads them, ``starts``
    where each text begins in ``joined`` (texts are separated by NUL, which rendered
    Markdown never holds: cmark writes U+FFFD for it); ``chars`` is the characters of
    every text, what one search can read at most. ``answers`` maps a search (the
    quotation's segments, the gaps allowed between them, whether its final ``.`` or ``,``
    may be absent, the sources it cites) to its answer (source, digest) or None: the
    answer depends on nothing else.
    """

    def __init__(self, entries: list[tuple[str, CaptureRecord]], texts: list[str], starts: list[int]) -> None:
        self.entries = entries
        self.starts = starts
        self.joined = "\0".join(texts)
        self.chars = len(self.joined) - max(len(texts) - 1, 0)
        self.answers: dict[tuple[tuple[str, ...], tuple[int, ...], bool, frozenset[str]],
                           tuple[str, str] | None] = {}

    @classmethod
    def build(cls, store: Store, kept: RunKept, sources: Sequence[str]) -> SourceIndex | None:
        """The index of ``sources``' newest revisions in ``store`` (read through ``kept``), or
        None when their text passes NEWEST_KEPT_CHARS (the search then reads them one by one)."""
        entries: list[tuple[str, CaptureRecord]] = []
        texts: list[str] = []
        starts: list[int] = []
        at = 0
        newest = kept.kept
        # Built at a run's first missed quotation, from every approved source: per source
        # only what the entries need (most sources have one revision, in one group).
        for source in sources:
            hit = newest.get(source)
            if hit is None:
                hit = kept.of(store, source)
            groups = hit.groups
            # One group's members are sorted by digest, as NewestRevisions.records sorts them all.
            for record in (groups[0] if len(groups) == 1 else hit.records):
                text = record.text
                if at - len(starts) + len(text) > NEWEST_KEPT_CHARS:  # (at counts the NULs)
                    return None
                entries.append((source, record))
                texts.append(text)
                starts.append(at)
                at += len(text) + 1
        return cls(entries, texts, starts)

    def holding(self, piece: str) -> Iterator[tuple[str, CaptureRecord]]:
        """The entries whose text holds ``piece`` (non-empty, no NUL), in order."""
        joined, starts = self.joined, self.starts
        at = joined.find(piece)
        while at >= 0:
            k = bisect_right(starts, at) - 1
            yield self.entries[k]
            nxt = starts[k + 1] if k + 1 < len(starts) else len(joined)
            at = joined.find(piece, nxt)


def longest_piece(segments: Sequence[str], optional_end: bool) -> str:
    """The longest of the space-free pieces :func:`~citelint.excerpts.may_occur` requires of a
    capture for the quotation ``segments`` (flattened; with ``optional_end`` the last may lack
    a final ``.`` or ``,``), or "" when there is none: a capture without it cannot hold the
    quotation."""
    longest = ""
    last = len(segments) - 1
    for k, segment in enumerate(segments):
        if k == last and optional_end and segment[-1:] in (".", ",") and len(segment) > 1:
            segment = segment[:-1]
        for piece in segment.split(" "):
            if len(piece) > len(longest):
                longest = piece
    return longest
