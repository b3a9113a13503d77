"""``check --shard K/N``: which part of a run one shard checks, and what it keeps for ``citelint merge``.

Work is cut so that one unsharded run's result is the union of the shards':

- a cited fact belongs to the shard of its **source** (every revision of a
  source in one shard, so each capture is read once overall and CL106 sees
  the source's revisions): its findings, notices, accepted entry and review
  counts;
- a report belongs to the shard of its **path** relative to the project
  root: a Markdown report whole, a fact report's own findings (CL001-CL004),
  its counts and its accepted unavailable facts. Every shard still loads
  and parses every fact report, since its citations may cite any shard's
  sources;
- run-level findings and notes (CL107, CL109 of reviews, CL301, CL401 of
  unsigned captures, the ledger's and ``--base``'s notes, skipped paths)
  belong to shard 1.

A shard is chosen by a stable hash (the first 8 bytes of SHA-256 of the
string, big-endian, mod N), never Python's ``hash()``, which is salted
per process. Findings of one report's citations come from several shards,
so the per-file cap of each rule (:data:`citelint.check.loaded.FINDINGS_PER_RULE`)
is applied again when the shards are merged: a shard keeps one finding more
than the cap of each rule per report, located, and counts the rest
(:class:`CitedEmitter`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citelint.check.loaded import FINDINGS_PER_RULE, Emitter
from citelint.config import Config, relpath
from citelint.errors import UsageError
from citelint.model import CheckResult

if TYPE_CHECKING:
    from citelint.check.cited import CitedColumn
    from citelint.check.loaded import LoadedReport
    from citelint.check.targets import Target
    from citelint.evidence.ledger import Ledger

_SHARD = re.compile(r"([0-9]+)/([0-9]+)")


def shard_of(identity: str, n: int) -> int:
    """The shard (1..``n``) that owns ``identity`` (a source string, or a
    report's path relative to the project): the first 8 bytes of its UTF-8
    SHA-256 as a big-endian integer, mod ``n``, plus 1. The same on every
    machine and in every process."""
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1


def parse_shard(value: str) -> tuple[int, int]:
    """``K/N`` as the pair (K, N), whole numbers with 1 <= K <= N.

    Raises:
        UsageError: anything else, saying what to write.
    """
    match = _SHARD.fullmatch(value.strip()) if value.isascii() else None
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(f"--shard takes K/N, two whole numbers with 1 <= K <= N (say --shard 1/4 for the first "
                         f"of four shards), got {value!r}")
    return int(match[1]), int(match[2])


class Shard:
    """Shard ``k`` of ``n`` of one run, and what it gathers for its shard file.

    ``listing`` True: the run stops after loading the reports and keeps what
    the shard would check (:attr:`groups`, :attr:`reports`) for ``--dry-run``.
    After the run: ``cited`` holds the findings and notices of this shard's
    citations (each citation's, located; the merge caps them per report),
    ``extra`` how many more findings of each (report path, rule) were left
    unlocated past one over the cap, ``group_of`` each owned citation's
    (report path, fact index) -> (source, capture digest), ``orders`` each
    target's path -> its 1-based place in the run, ``base_commit`` the
    revision ``--base`` resolved to, ``ledger`` the review ledger its lookups read, ``allowlist_empty`` whether the link
    allowlist this shard built grounds nothing, and ``added_note`` the note
    of a base whose reports could not be read (the step summary's), ``changed``
    the reports that changed while this shard checked them (the merge notes
    them all once, as one run does).
    """

    def __init__(self, k: int, n: int, *, listing: bool = False):
        if not 1 <= k <= n:
            raise UsageError(f"shard {k}/{n}: K must be from 1 to N")
        self.k, self.n, self.listing = k, n, listing
        self.cited = CheckResult()
        self.extra: dict[tuple[str, str], int] = {}
        self.group_of: dict[tuple[str, int], tuple[str, str]] = {}
        self.orders: dict[str, int] = {}
        self.base_commit: str | None = None
        self.allowlist_empty = False
        self.added_note: str | None = None
        self.changed: list[str] = []
        #: SHA-256 of the run's reports as this shard found them (:meth:`note_inputs`).
        self.inputs = ""
        #: The review ledger after this shard's lookups (None: the run has none).
        self.ledger: Ledger | None = None
        #: With ``listing``: (source, digest) -> citations, and the reports owned as (kind, path), in run order.
        self.groups: list[tuple[tuple[str, str], int]] = []
        self.reports: list[tuple[str, str]] = []
        #: The run's loaded fact reports by displayed path, which the merge places the notices
        #: and accepted facts of (what it takes to read one again: :class:`LoadedReport`).
        self.loaded: dict[str, LoadedReport] = {}

    def fresh(self) -> Shard:
        """The same shard for another run (the base's reports), gathering nothing yet."""
        return Shard(self.k, self.n)

    @property
    def first(self) -> bool:
        """True for shard 1, which holds the run-level findings and notes."""
        return self.k == 1

    def owns_source(self, source: str) -> bool:
        """True when this shard verifies the citations of ``source``."""
        return self.n == 1 or shard_of(source, self.n) == self.k

    def owns_target(self, target: Target, config: Config) -> bool:
        """True when this shard checks ``target`` as a report (by its path relative to the project root)."""
        return self.n == 1 or shard_of(relpath(target.path, config.root), self.n) == self.k

    def split(self, numbered: Sequence[tuple[int, Target]], config: Config,
              cwd: Path) -> tuple[list[tuple[int, Target]], list[tuple[int, Target]]]:
        """The run's (order, target) pairs cut in two: the targets this shard
        checks, and the other shards' fact reports, which it loads only for
        their citations. Records each target's order by its displayed path."""
        own: list[tuple[int, Target]] = []
        foreign: list[tuple[int, Target]] = []
        for order, target in numbered:
            display = target.display or relpath(target.path, cwd)
            self.orders[display] = order
            if self.owns_target(target, config):
                own.append((order, target))
                if self.listing:
                    self.reports.append(("facts" if target.kind == "report" else target.kind, display))
            elif target.kind == "report" and not target.refusal:
                foreign.append((order, target))
        return own, foreign

    def note_inputs(self, reports: Sequence[LoadedReport]) -> None:
        """Digest the run's reports as this shard found them: every target's
        displayed path in run order, and each loaded fact report's bytes
        (every shard loads every fact report), so shards that checked
        different files (another checkout, a report changed between them) do
        not merge."""
        digest = hashlib.sha256()
        for display, order in sorted(self.orders.items(), key=lambda item: item[1]):
            digest.update(f"{order}\0{display}\0".encode("utf-8", "surrogatepass"))
        for report in sorted(reports, key=lambda r: r.order):
            digest.update(f"{report.order}:{report.digest}\n".encode())
        self.inputs = digest.hexdigest()

    def own_groups(self, groups: list[tuple[tuple[str, str], CitedColumn]],
                   reports: dict[int, LoadedReport]) -> list[tuple[tuple[str, str], CitedColumn]]:
        """The capture groups (in their order) whose source this shard owns;
        notes which group each of their citations is in (:attr:`group_of`)."""
        own = [group for group in groups if self.owns_source(group[0][0])]
        for key, column in own:
            if self.listing:
                self.groups.append((key, len(column)))
            for order, index in column.places():
                self.group_of[(reports[order].display, index)] = key
        return own

    def emitter(self, config: Config, result: CheckResult, path: str) -> Emitter:
        """The emitter of one report's citation findings (``result`` is ignored:
        they go to :attr:`cited`)."""
        return CitedEmitter(config, self, path)


class CitedEmitter(Emitter):
    """The emitter of one report's citation findings in a shard: like
    :class:`~citelint.check.loaded.Emitter`, into the shard's ``cited``
    result, but it locates one finding more than the cap of each rule (the
    merge needs where the first finding not shown is, whichever shard has
    it) and counts the rest in the shard's ``extra``, making no "more
    findings" finding of its own."""

    def __init__(self, config: Config, shard: Shard, path: str):
        super().__init__(config, shard.cited, path)
        self.shard = shard

    def full(self, rule: str) -> bool:
        """True past one finding over the cap of ``rule`` in this file."""
        return self.shown.get(rule, 0) > FINDINGS_PER_RULE

    def close(self) -> None:
        """Hand the counts past the cap to the shard."""
        for rule, (count, _) in self.more.items():
            key = (self.path, rule)
            self.shard.extra[key] = self.shard.extra.get(key, 0) + count
        self.more.clear()
