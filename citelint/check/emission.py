"""The second phase's findings, emitted capture group by capture group as the citations are verified.

:class:`Emission` takes each group's verified citations from
:mod:`citelint.check.run` in group order, emits their findings into the
run's result at once (so a run holds no verified citation it has reported),
counts the accepted ones for semantic review, judges them against the review
ledger, and leaves the listing of accepted facts and notices to be built
when a formatter reads it, or, when nothing will read it, keeps none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from citelint.check.loaded import Emitter, LoadedReport
from citelint.config import Config
from citelint.facts import AcceptedEntry, Citation, Issue, entry_fingerprint, rejected_issue, review_notice
from citelint.model import CheckResult, Review

if TYPE_CHECKING:
    from citelint.evidence.ledger import Ledger

__all__ = ["Emission", "Verified"]

#: One verified citation: (report order, citation, its issues, its accepted entry or None).
Verified = tuple[int, Citation, Sequence[Issue], "AcceptedEntry | None"]


class Emission:
    """The verified citations' findings, emitted group by group as they come
    (``__call__``), so a run holds no verified citation it has reported.

    The semantic-review notices (CL901, one per accepted citation that
    ``ledger`` has no review of) and the accepted facts are built when a
    formatter first reads them (:meth:`CheckResult.defer`), since each needs
    its fact's position and a run that only counts them (text, SARIF) should
    not pay for that; with ``accepted`` None (the caller reads neither) they
    are only counted, and nothing of an accepted citation is kept. CL901
    raised above a notice in the config is a finding, emitted at once, as is
    CL903 for a citation whose review says ``does-not-support``. Fingerprints
    are computed only when the ledger holds a review. :meth:`finish` closes
    every report's findings (the per-rule caps) and leaves the listing to the result.
    ``emitter`` makes the emitter of one report's citation findings (a shard's
    keeps them apart, :meth:`citelint.check.shard.Shard.emitter`).
    ``unplaced(report)`` True leaves the report's accepted facts at line 0,
    column 0 instead of locating them and makes no CL901 notice for
    them (a shard's: :func:`citelint.check.shardfile.merge` places them and
    makes their notices from them, as this would).
    """

    def __init__(self, config: Config, result: CheckResult, reports: dict[int, LoadedReport],
                 accepted: list[tuple[int, AcceptedEntry]] | None, ledger: Ledger | None = None,
                 emitter: Callable[[Config, CheckResult, str], Emitter] = Emitter,
                 unplaced: Callable[[LoadedReport], bool] | None = None):
        self.config, self.result, self.reports, self.accepted, self.ledger = config, result, reports, accepted, ledger
        self.emitter = emitter
        self.unplaced = unplaced
        self.review = config.severity("CL901") == "notice"
        self.emitters: dict[int, Emitter] = {}
        self.unreviewed = 0
        self.judged: dict[int, Review] = {}  # id(entry) -> the review that counts for it
        #: Told the reports that changed (sorted), once the deferred work has read them.
        self.noted: Callable[[CheckResult, list[str]], None] | None = None

    @property
    def reads_entries(self) -> bool:
        """Whether :meth:`__call__` reads more of a verified citation than its
        report's order, its issues and whether it was accepted: it does when it
        keeps the accepted facts, judges them against a review ledger, or makes
        each CL901 notice a finding. When it does not (text and SARIF output
        with no ledger), the citation and entry it is given may be stand-ins."""
        return self.accepted is not None or self.ledger is not None or not self.review

    def __call__(self, verified: list[Verified]) -> None:
        """Emit the findings of one group's verified citations (in group order)."""
        result, ledger, accepted = self.result, self.ledger, self.accepted
        for order, _, issues, entry in verified:
            if entry is not None:
                if accepted is not None:
                    accepted.append((order, entry))
                fingerprint = entry_fingerprint(entry) if ledger else None
                verdict = ledger.review(fingerprint) if ledger else None
                if verdict is None:
                    self.unreviewed += 1
                    if not self.review:
                        issues = [*issues, review_notice(entry)]
                else:
                    if accepted is not None:
                        self.judged[id(entry)] = verdict
                    result.reviewed += 1
                    if verdict.verdict == "does-not-support":
                        result.rejected += 1
                        issues = [*issues, rejected_issue(entry, verdict, cast(str, fingerprint))]
            if issues:
                emit = self.emitters.get(order)
                if emit is None:
                    emit = self.emitters[order] = self.emitter(self.config, result, self.reports[order].display)
                self.reports[order].emit_issues(emit, issues)

    def finish(self) -> None:
        """Close every report's findings, and leave the notices and accepted facts to the result."""
        for emit in self.emitters.values():
            emit.close()
        self.emitters.clear()
        count = self.unreviewed if self.review else 0
        if self.accepted is None:
            self.result.unlisted += count
            return
        config, reports, accepted, judged, review = self.config, self.reports, self.accepted, self.judged, self.review
        noted, unplaced = self.noted, self.unplaced
        left = {order for order, report in reports.items() if unplaced(report)} if unplaced else set()
        if review and left:
            # The merge makes these notices from the accepted facts: a shard file need not hold them twice.
            count -= sum(1 for order, entry in accepted
                         if order in left and entry.fact["state"] == "cited" and id(entry) not in judged)

        def settle(result: CheckResult) -> None:
            if review:
                for order, entry in accepted:
                    if order not in left and entry.fact["state"] == "cited" and id(entry) not in judged:
                        report = reports[order]
                        report.emit_issues(Emitter(config, result, report.display), [review_notice(entry)])
            built = [reports[order].accepted(entry, judged.get(id(entry)), order not in left)
                     for order, entry in accepted]
            built.sort(key=lambda item: item[0])
            result.accepted = [fact for _, fact in built]
            if noted is not None:
                noted(result, sorted(r.display for r in reports.values() if r.changed))

        self.result.defer(count, settle)
