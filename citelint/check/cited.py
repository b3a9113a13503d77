"""The cited facts between the check's two phases, grouped by capture, kept in columns.

A run holds every cited fact of every report from the moment the reports are
loaded until the fact's capture is verified: a million facts in a large
repository. Kept as its decoded JSON object inside a record, with a tuple
naming its report, a fact costs about half a kilobyte besides its snippet.
Here each capture (source, captureSha256) has one :class:`CitedColumn`: its
facts' snippets as UTF-8 in one buffer with the end offset of each, their
labels (one shared string per distinct label), and one machine integer per
fact packing its report's run order, its index in the report's facts array
and whether its label already failed; so a fact costs its snippet's UTF-8
bytes and 24 bytes (a snippet of non-Latin-1 text as a string would cost
twice its length and a header). A group's facts are made again as
:class:`~citelint.facts.Citation` objects (:meth:`CitedColumn.citations`)
when its capture is verified, and dropped with it.
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


class CitedColumn:
    """The cited facts of one capture, in run order (report order, then fact order).

    ``snippets`` holds the facts' snippets in UTF-8 one after another
    (``surrogatepass``, so any string a report loader gives comes back as it
    was), ``ends`` (an ``array('Q')``) the offset just past each; ``labels``
    each fact's label; ``keys`` (an ``array('Q')``) ``order << 33 | index << 1 |
    rejected``, where ``order`` is the 1-based run order of the fact's report
    and ``index`` the fact's index in its facts array.
    """

    __slots__ = ("snippets", "ends", "labels", "keys")

    def __init__(self, snippets: bytearray | None = None, ends: array | None = None,
                 labels: list[str] | None = None, keys: array | None = None):
        self.snippets: bytearray = bytearray() if snippets is None else snippets
        self.ends: array = array("Q") if ends is None else ends
        self.labels: list[str] = [] if labels is None else labels
        self.keys: array = array("Q") if keys is None else keys

    def __len__(self) -> int:
        return len(self.keys)

    def append(self, snippet: str, label: str, key: int) -> None:
        """Add one fact (its ``key`` packed as the class says)."""
        self.snippets += snippet.encode("utf-8", "surrogatepass")
        self.ends.append(len(self.snippets))
        self.labels.append(label)
        self.keys.append(key)

    def extend(self, other: CitedColumn) -> None:
        """Add the facts of ``other`` after these."""
        base = len(self.snippets)
        self.snippets += other.snippets
        self.ends.extend(array("Q", [end + base for end in other.ends]) if base else other.ends)
        self.labels.extend(other.labels)
        self.keys.extend(other.keys)

    def places(self) -> list[tuple[int, int]]:
        """Each fact's (report order, index), in order."""
        mask = (1 << _INDEX_BITS) - 1
        return [(key >> (_INDEX_BITS + 1), (key >> 1) & mask) for key in self.keys]

    def sorted(self) -> CitedColumn:
        """These facts in run order (by report order, then index), when they
        were added out of it (a shard adds the other shards' reports after its own)."""
        keys = self.keys
        if all(a < b for a, b in zip(keys, keys[1:])):
            return self
        starts = [0, *self.ends[:-1]]
        out = CitedColumn()
        for at in sorted(range(len(keys)), key=keys.__getitem__):
            out.snippets += self.snippets[starts[at]:self.ends[at]]
            out.ends.append(len(out.snippets))
            out.labels.append(self.labels[at])
            out.keys.append(keys[at])
        return out

    def citations(self, source: str, sha256: str) -> list[tuple[int, Citation]]:
        """The facts as (report order, citation) pairs, each fact a new object
        holding what verification and the output read of a cited fact: state,
        label, source, captureSha256 and snippet."""
        out = []
        mask = (1 << _INDEX_BITS) - 1
        data, start = self.snippets, 0
        for end, label, key in zip(self.ends, self.labels, self.keys):
            snippet = data[start:end].decode("utf-8", "surrogatepass")
            start = end
            fact = {"state": "cited", "label": label, "source": source, "captureSha256": sha256, "snippet": snippet}
            out.append((key >> (_INDEX_BITS + 1), Citation((key >> 1) & mask, fact, bool(key & 1))))
        return out


class CitedGroups:
    """The cited facts of a run so far, one :class:`CitedColumn` per capture.

    ``count`` is how many facts it holds. Facts are added report by report
    in run order (:meth:`add`), or a later chunk of reports joined whole
    (:meth:`extend`), so each column stays in run order.
    """

    __slots__ = ("_columns", "count")

    def __init__(self) -> None:
        self._columns: dict[tuple[str, str], CitedColumn] = {}
        self.count = 0

    def add(self, order: int, citations: Iterable[Citation]) -> None:
        """Add the citations of the report at run order ``order`` (1-based).

        A key packs an index below 2**32 and an order below 2**31: a report is
        at most 10 MiB, so it holds far fewer facts, and a run far fewer files.
        """
        columns = self._columns
        high = order << (_INDEX_BITS + 1)
        for citation in citations:
            fact = citation.fact
            key = (fact["source"], fact["captureSha256"])
            column = columns.get(key)
            if column is None:
                # One string object per source and digest however many facts cite them.
                column = columns[(sys.intern(key[0]), sys.intern(key[1]))] = CitedColumn()
            # Labels repeat across reports: one string object each.
            column.append(fact["snippet"], sys.intern(fact["label"]), high | citation.index << 1 | citation.rejected)
            self.count += 1

    def extend(self, other: CitedGroups) -> None:
        """Append the facts of ``other`` (reports later in run order) to these."""
        columns = self._columns
        for key, theirs in other._columns.items():
            mine = columns.get(key)
            if mine is None:
                columns[key] = theirs
            else:
                mine.extend(theirs)
        self.count += other.count
        other._columns, other.count = {}, 0

    def sort(self) -> None:
        """Put each capture's facts in run order (see :meth:`CitedColumn.sorted`)."""
        self._columns = {key: column.sorted() for key, column in self._columns.items()}

    def take_sorted(self) -> list[tuple[tuple[str, str], CitedColumn]]:
        """Every group, ordered by (source, captureSha256), leaving this empty."""
        groups = sorted(self._columns.items(), key=lambda item: item[0])
        self._columns, self.count = {}, 0
        return groups

    def pack(self) -> dict[str, Any]:
        """Plain values for :mod:`marshal` (a worker's hand-back): :meth:`unpack` makes them groups again."""
        columns = self._columns
        return {"sources": [key[0] for key in columns], "digests": [key[1] for key in columns],
                "snippets": [bytes(c.snippets) for c in columns.values()],
                "ends": [c.ends.tobytes() for c in columns.values()],
                "labels": [c.labels for c in columns.values()],
                "keys": [c.keys.tobytes() for c in columns.values()], "count": self.count}

    @classmethod
    def unpack(cls, packed: dict[str, Any]) -> CitedGroups:
        """The groups :meth:`pack` packed."""
        groups = cls()
        for source, digest, snippets, ends_raw, labels, keys_raw in zip(
                packed["sources"], packed["digests"], packed["snippets"], packed["ends"], packed["labels"],
                packed["keys"]):
            ends, keys = array("Q"), array("Q")
            ends.frombytes(ends_raw)
            keys.frombytes(keys_raw)
            groups._columns[(sys.intern(source), sys.intern(digest))] = CitedColumn(
                bytearray(snippets), ends, [sys.intern(label) for label in labels], keys)
        groups.count = packed["count"]
        return groups
