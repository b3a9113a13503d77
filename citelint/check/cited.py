"""The cited facts between the check's two phases, grouped by capture, kept in columns.

A run holds every cited fact of every report from the moment the reports are
loaded until the fact's capture is verified: a million facts in a large
repository. Kept as its decoded JSON object inside a record, with a tuple
naming its report, a fact costs about half a kilobyte besides its snippet.
Here the run's facts are kept one after another in a few flat columns
(:class:`_Facts`): the snippets as UTF-8 in one buffer with the end offset of
each, the labels (one shared string per distinct label), and one machine
integer per fact packing its report's run order, its index in the report's
facts array and whether its label already failed; each capture (source,
captureSha256) has a :class:`CitedColumn` of the indices of its facts. So a
fact costs its snippet's UTF-8 bytes and 28 bytes, and a million of them grow
a handful of buffers rather than one per capture side by side (whose slack
and the holes their growth leaves were a fifth of a large run's memory). A
group's facts are made again as :class:`~citelint.facts.Citation` objects
(:meth:`CitedColumn.citations`) when its capture is verified.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from typing import Any

from citelint.facts import Citation

__all__ = ["CitedColumn", "CitedGroups"]

#: Bits of a packed key below the report's run order: the fact's index, then the rejected flag.
_INDEX_BITS = 32
_INDEX_MASK = (1 << _INDEX_BITS) - 1


class _Facts:
    """Cited facts one after another: ``snippets`` their snippets in UTF-8
    (``surrogatepass``, so any string a report loader gives comes back as it
    was), ``ends`` the offset just past each, ``labels`` their labels, and
    ``keys`` ``order << 33 | index << 1 | rejected`` each, where ``order`` is
    the 1-based run order of the fact's report and ``index`` its index in the
    report's facts array (an index below 2**32: a report is at most 10 MiB)."""

    __slots__ = ("snippets", "ends", "labels", "keys")

    def __init__(self) -> None:
        self.snippets = bytearray()
        self.ends = array("Q")
        self.labels: list[str] = []
        self.keys = array("Q")

    def __len__(self) -> int:
        return len(self.keys)

    def extend(self, other: _Facts) -> int:
        """Add the facts of ``other`` after these; the index the first of them has here."""
        first, base = len(self.keys), len(self.snippets)
        self.snippets += other.snippets
        self.ends.extend(array("Q", [end + base for end in other.ends]) if base else other.ends)
        self.labels.extend(other.labels)
        self.keys.extend(other.keys)
        return first

    def snippet(self, at: int) -> str:
        start = self.ends[at - 1] if at else 0
        return self.snippets[start:self.ends[at]].decode("utf-8", "surrogatepass")


class CitedColumn:
    """The cited facts of one capture: the indices (``members``, an
    ``array('I')``) of its facts in the run's :class:`_Facts`, in run order
    (report order, then fact order)."""

    __slots__ = ("facts", "members")

    def __init__(self, facts: _Facts | None = None, members: array | None = None):
        self.facts = _Facts() if facts is None else facts
        self.members: array = array("I") if members is None else members

    def __len__(self) -> int:
        return len(self.members)

    def places(self) -> list[tuple[int, int]]:
        """Each fact's (report order, index), in order."""
        keys = self.facts.keys
        return [(keys[at] >> (_INDEX_BITS + 1), (keys[at] >> 1) & _INDEX_MASK) for at in self.members]

    def citations(self, source: str, sha256: str) -> list[tuple[int, Citation]]:
        """The facts as (report order, citation) pairs, each fact a new object
        holding what verification and the output read of a cited fact: state,
        label, source, captureSha256 and snippet."""
        facts = self.facts
        keys, labels, snippet = facts.keys, facts.labels, facts.snippet
        out = []
        for at in self.members:
            key = keys[at]
            fact = {"state": "cited", "label": labels[at], "source": source, "captureSha256": sha256,
                    "snippet": snippet(at)}
            out.append((key >> (_INDEX_BITS + 1), Citation((key >> 1) & _INDEX_MASK, fact, bool(key & 1))))
        return out


class CitedGroups:
    """The cited facts of a run so far, one :class:`CitedColumn` per capture.

    ``count`` is how many facts it holds. Facts are added report by report
    in run order (:meth:`add`), or a later chunk of reports joined whole
    (:meth:`extend`), so each column stays in run order; :meth:`sort` puts
    them back in it when they were not added so.
    """

    __slots__ = ("_facts", "_columns")

    def __init__(self) -> None:
        self._facts = _Facts()
        self._columns: dict[tuple[str, str], CitedColumn] = {}

    @property
    def count(self) -> int:
        """How many facts these groups hold."""
        return len(self._facts)

    def add(self, order: int, citations: Iterable[Citation]) -> None:
        """Add the citations of the report at run order ``order`` (1-based;
        below 2**31: a run has far fewer files)."""
        columns, facts = self._columns, self._facts
        high = order << (_INDEX_BITS + 1)
        # The facts' columns grow here, with no call per fact: this runs for each of a run's facts.
        snippets, intern = facts.snippets, sys.intern
        end, label, packed = facts.ends.append, facts.labels.append, facts.keys.append
        at = len(facts.keys)
        for citation in citations:
            fact = citation.fact
            key = (fact["source"], fact["captureSha256"])
            column = columns.get(key)
            if column is None:
                # One string object per source and digest however many facts cite them.
                column = columns[(intern(key[0]), intern(key[1]))] = CitedColumn(facts)
            snippets += fact["snippet"].encode("utf-8", "surrogatepass")  # in place: the same bytearray
            end(len(snippets))
            label(intern(fact["label"]))  # labels repeat across reports: one string object each
            packed(high | citation.index << 1 | citation.rejected)
            column.members.append(at)
            at += 1

    def extend(self, other: CitedGroups) -> None:
        """Append the facts of ``other`` (reports later in run order) to these, leaving it empty."""
        if not self._columns and not len(self._facts):
            # Taken whole: a copy of a large run's columns would hold them twice for a moment.
            self._facts, self._columns = other._facts, other._columns
            other._facts, other._columns = _Facts(), {}
            return
        first = self._facts.extend(other._facts)
        columns = self._columns
        for key, theirs in other._columns.items():
            moved = array("I", [at + first for at in theirs.members])
            mine = columns.get(key)
            if mine is None:
                columns[key] = CitedColumn(self._facts, moved)
            else:
                mine.members.extend(moved)
        other._facts, other._columns = _Facts(), {}

    def sort(self) -> None:
        """Put each capture's facts in run order (by report order, then index),
        when they were added out of it (a shard adds the other shards' reports after its own)."""
        keys = self._facts.keys
        for column in self._columns.values():
            column.members = array("I", sorted(column.members, key=keys.__getitem__))

    def take_sorted(self) -> list[tuple[tuple[str, str], CitedColumn]]:
        """Every group, ordered by (source, captureSha256), leaving this empty."""
        groups = sorted(self._columns.items(), key=lambda item: item[0])
        self._facts, self._columns = _Facts(), {}
        return groups

    def pack(self) -> dict[str, Any]:
        """Plain values for :mod:`marshal` (a worker's hand-back): :meth:`unpack` makes them groups again."""
        facts, columns = self._facts, self._columns
        return {"snippets": bytes(facts.snippets), "ends": facts.ends.tobytes(), "labels": facts.labels,
                "keys": facts.keys.tobytes(), "sources": [key[0] for key in columns],
                "digests": [key[1] for key in columns], "members": [c.members.tobytes() for c in columns.values()]}

    @classmethod
    def unpack(cls, packed: dict[str, Any]) -> CitedGroups:
        """The groups :meth:`pack` packed."""
        groups = cls()
        facts = groups._facts
        facts.snippets = bytearray(packed["snippets"])
        facts.ends.frombytes(packed["ends"])
        facts.labels = [sys.intern(label) for label in packed["labels"]]
        facts.keys.frombytes(packed["keys"])
        for source, digest, raw in zip(packed["sources"], packed["digests"], packed["members"]):
            members = array("I")
            members.frombytes(raw)
            groups._columns[(sys.intern(source), sys.intern(digest))] = CitedColumn(facts, members)
        return groups
