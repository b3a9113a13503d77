"""The check's second phase: cited facts verified capture group by capture group.

Each capture is read once for all the facts citing it, then released, so
memory holds one capture at a time; with ``--jobs`` the groups are shared
out between this process and forked workers
(:mod:`citelint.check.parallel`), and what a worker hands back is only what
the consumer of the verified citations reads (:attr:`Emission.reads_entries
<citelint.check.emission.Emission.reads_entries>`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from citelint.check.cited import CitedColumn
from citelint.check.emission import Verified
from citelint.check.parallel import plain_differences, with_differences
from citelint.config import Config
from citelint.facts import AcceptedEntry, Citation, Issue, verify_citations
from citelint.store.captures import Store

if TYPE_CHECKING:
    from citelint.check.grounding import GitTracking
    from citelint.evidence.verify import EvidenceVerifier
    from citelint.git.base import BaseCaptures

__all__ = ["verify_groups"]

#: One capture's group: (source, captureSha256) and its cited facts.
_Group = tuple[tuple[str, str], CitedColumn]


def _phase_two(groups: list[_Group], config: Config, base: BaseCaptures | None, tracking: GitTracking,
               evidence: EvidenceVerifier | None, context_chars: int,
               consume: Callable[[list[Verified]], None], hints: bool = True) -> None:
    """Verify cited facts grouped by capture: each capture read once for all
    the facts citing it, then released, so memory holds one capture at a time.
    ``consume`` is given each group's verified citations in turn, and the
    group's facts are dropped from ``groups`` once it has them. ``hints``
    False: the accepted entries carry no review hints (nothing reads them)."""
    store = Store(config.captures_dir)
    cl302_base = base if config.severity("CL302") != "off" else None
    # A rule switched off does no work at all (CL105's second search, CL106's listing of revisions).
    off = frozenset(rule for rule in ("CL105", "CL106") if config.severity(rule) == "off")
    signatures = functools.partial(evidence.issues, store) if evidence else None
    untracked = tracking.untracked if tracking.enabled else None
    for at, (key, column) in enumerate(groups):
        group = column.citations(*key)
        groups[at] = (key, _DONE)
        outcomes = verify_citations([c for _, c in group], labels=config.labels, approved=config.is_approved,
                                    store=store, base=cl302_base, untracked=untracked, signatures=signatures,
                                    context_chars=context_chars, off=off, hints=hints)
        consume([(order, citation, issues, entry)
                 for (order, _), (citation, issues, entry) in zip(group, outcomes)])


#: What a verified group's place in the list of groups holds: its facts are gone.
_DONE = CitedColumn()


def verify_groups(groups: list[_Group], n: int, config: Config, base: BaseCaptures | None, tracking: GitTracking,
                  evidence: EvidenceVerifier | None, context_chars: int, consume: Callable[[list[Verified]], None],
                  entries: bool = True) -> None:
    """Phase two over ``groups`` with ``n`` processes
    (:func:`citelint.check.parallel.run_chunks`), each group's verified
    citations given to ``consume`` in group order, so the findings are the
    same for any ``n``. A worker hands back its citations' issues (and how
    many each has) and the entries of the accepted ones, as columns by field
    name, but not what this process has: the fact and its index. ``entries``
    False (``consume`` reads only the order, the issues and whether each was
    accepted, :attr:`Emission.reads_entries`): a worker hands back no entry, and
    the citations of its groups are not made again here, only their places.
    One process where the platform cannot fork."""
    settings = (config, base, tracking, evidence, context_chars)
    if n <= 1 or len(groups) < 2:
        _phase_two(groups, *settings, consume, entries)
        return
    from citelint.check.parallel import chunk_size, pack_rows, run_chunks, unpack_rows

    def work(start: int, stop: int) -> list[list[Verified]]:
        done: list[list[Verified]] = []
        _phase_two(groups[start:stop], *settings, done.append, entries)
        return done

    def pack(verified: list[list[Verified]]) -> dict[str, Any]:
        flat = [item for group in verified for item in group]
        issues = plain_differences(pack_rows([issue for _, _, issues, _ in flat for issue in issues],
                                              Issue._fields))
        packed = {"issues": issues, "issue_counts": [len(issues) for _, _, issues, _ in flat],
                  "accepted": [entry is not None for _, _, _, entry in flat]}
        if entries:
            packed["entries"] = pack_rows([entry for _, _, _, entry in flat if entry is not None],
                                          [name for name in AcceptedEntry._fields if name not in _OWN])
        return packed

    def unpack(start: int, stop: int, packed: dict[str, Any]) -> list[list[Verified]]:
        issues = iter(unpack_rows(Issue, with_differences(packed["issues"])))
        counts, flags = iter(packed["issue_counts"]), iter(packed["accepted"])
        if not entries:
            # Only each citation's report order is read: its place, without making the citation again.
            return [[(order, _STAND_IN, [next(issues) for _ in range(count)] if (count := next(counts)) else (),
                      _STAND_IN_ENTRY if next(flags) else None) for order, _ in column.places()]
                    for _, column in groups[start:stop]]
        cited = [column.citations(*key) for key, column in groups[start:stop]]
        flat = [item for group in cited for item in group]
        accepted = [citation for (_, citation), yes in zip(flat, packed["accepted"]) if yes]
        made = iter(unpack_rows(AcceptedEntry, {**packed["entries"], "index": [c.index for c in accepted],
                                                "fact": [c.fact for c in accepted]}))
        return [[(order, citation, [next(issues) for _ in range(count)] if (count := next(counts)) else (),
                  next(made) if next(flags) else None) for order, citation in group] for group in cited]

    def take(start: int, verified: list[list[Verified]]) -> None:
        for at, group in enumerate(verified, start):
            groups[at] = (groups[at][0], _DONE)  # its facts are in ``verified`` now
            consume(group)

    if run_chunks(n, len(groups), chunk_size(len(groups), n), work, pack, unpack, take) is None:
        _phase_two(groups, *settings, consume, entries)


#: What a worker's verified citation is handed on as when only its acceptance is read (``entries`` False).
_STAND_IN = Citation(0, {})
_STAND_IN_ENTRY = AcceptedEntry(0, {})


#: What an accepted entry's worker leaves out: this process has the citation.
_OWN = ("index", "fact")
