"""The ``check`` driver: find the files, run every rule, stamp the findings.

Rules yield a place and a message; :class:`citelint.check.loaded.Emitter` adds the
rule id and the configured severity (dropping rules set to ``off``), and
this module runs the two phases and gathers everything
into one :class:`~citelint.model.CheckResult` for the formatters. It reads
only; it never writes a file (``--fix`` aside, done by the CLI) and never
opens a socket.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from citelint.check.baseline import settle_base, start_base, start_reviews_base
from citelint.check.cited import CitedGroups
from citelint.check.emission import Emission
from citelint.check.grounding import GitTracking, build_allowlist
from citelint.check.loaded import FINDINGS_PER_RULE, Emitter, LoadedReport, changed_note, content_digest
from citelint.check.parallel import COLLECTOR, job_count, plain_differences, with_differences
from citelint.check.reviewed import load_ledger_for, report_ledger
from citelint.check.targets import Selection, Target, read_target, select_targets, stdin_target
from citelint.check.verify import verify_groups
from citelint.config import Config, relpath
from citelint.errors import UsageError
from citelint.facts import (
    CONTEXT_CHARS,
    AcceptedEntry,
    Citation,
    check_labels,
    label_issue,
)
from citelint.model import (
    CheckResult,
    FactPlace,
    Finding,
    Position,
    ReportDetail,
)
from citelint.reports import pointers
from citelint.reports.document import ParseFailure
from citelint.reports.json import LazyDocument
from citelint.reports.loaders import kind_of, load_text
from citelint.reports.schema import check_document
from citelint.store.captures import Store
from citelint.store.legacy import legacy_message, legacy_unmigrated

if TYPE_CHECKING:
    from citelint.check.shard import Shard
    from citelint.evidence.ledger import Ledger
    from citelint.evidence.verify import EvidenceVerifier
    from citelint.git.resolve import Resolving
    from citelint.links.grounds import LinkEvidence


__all__ = ["UsageError", "build_allowlist", "run_check"]


def _load_report(target: Target, order: int, display: str, config: Config,
                 result: CheckResult) -> tuple[LoadedReport, list[Citation], list[AcceptedEntry]] | None:
    """First phase of a fact report: load, schema (CL001, CL002) and labels
    (CL003, CL004). Returns the report with its citations left to verify and
    its accepted unavailable facts, or None when nothing is left to check.
    When ``result`` keeps details, its facts' places are kept there."""
    emit = Emitter(config, result, display)
    source = read_target(target)
    syntax = target.syntax or kind_of(target.path) or "json"
    doc = source if isinstance(source, ParseFailure) else load_text(source[1], syntax)
    if result.details is not None:
        result.details[display] = ReportDetail("facts")
    if isinstance(doc, ParseFailure):
        emit("CL001", Position(doc.line, doc.col), doc.message)
        emit.close()
        return None

    facts, facts_ptr, problems = check_document(doc.data, config.facts_pointer)
    bad_facts: set[int] = set()
    checked = len(facts) if isinstance(facts, list) else 0
    for pointer, message, at_key in problems:
        index = _fact_index(pointer, facts_ptr)
        if emit.full("CL002"):
            # Enough schema findings for one file: the facts not yet judged are
            # neither checked further nor accepted (the file fails anyway).
            checked = index if index is not None else 0
            rest = len(facts) - checked if isinstance(facts, list) else 0
            emit.stop("CL002", functools.partial(doc.locate, pointer),
                      f"schema checking stopped at {FINDINGS_PER_RULE} findings in this file: {rest} more "
                      f"fact{'s' * (rest != 1)} from here on {'were' if rest != 1 else 'was'} not "
                      "checked and not accepted; fix these first", fact_index=index)
            break
        where = (lambda: Position(1, 1)) if facts is pointers.MISSING else \
            functools.partial(doc.locate_key if at_key else doc.locate, pointer)
        emit("CL002", where, message, fact_index=index)
        if index is not None:
            bad_facts.add(index)
    if not isinstance(facts, list):
        emit.close()
        return None
    raw, text = cast("tuple[bytes, str]", source)  # read, since doc did not fail
    # A file's bytes are read again if a position is needed after this phase (LoadedReport.text);
    # a report given in memory keeps them.
    report = LoadedReport(order, display, syntax, raw if target.content is not None else None,
                          doc.spans if isinstance(doc, LazyDocument) else {}, facts_ptr, doc, text,
                          path=os.fspath(target.path), digest=content_digest(raw))
    if result.details is not None:
        result.details[display] = ReportDetail("facts", tuple(_place(report, i, fact) for i, fact in enumerate(facts)))
    # A fact that fails the schema has its label judged too: every independent problem at once.
    report.emit_issues(emit, [issue for i in sorted(bad_facts) if i < checked and isinstance(facts[i], dict)
                              if (issue := label_issue(i, facts[i].get("label"), config.labels)) is not None])
    valid = [(i, f) for i, f in enumerate(facts[:checked]) if i not in bad_facts]
    result.facts_invalid += len(facts) - len(valid)
    outcome = check_labels(valid, labels=config.labels, line_of=lambda index: doc.locate(report.pointer(index)).line)
    result.facts_cited += outcome.cited
    result.facts_unavailable += outcome.unavailable
    report.emit_issues(emit, outcome.issues)
    emit.close()
    report.release()
    return report, outcome.citations, outcome.accepted


def _place(report: LoadedReport, index: int, fact: object) -> FactPlace:
    """Where the fact at ``index`` starts, and its label (the reader view lists every fact)."""
    pos = report.locate(report.pointer(index))
    label = fact.get("label") if isinstance(fact, dict) else None
    return FactPlace(pos.line, pos.col, label if isinstance(label, str) else None)


def _fact_index(pointer: str, facts_ptr: str) -> int | None:
    """The index of the fact holding ``pointer`` (None outside the facts array)."""
    if not pointer.startswith(facts_ptr + "/"):
        return None
    head = pointer[len(facts_ptr) + 1:].split("/", 1)[0]
    return int(head) if head.isdigit() and head.isascii() else None


class _PhaseOne:
    """What the first phase found in a run of targets; findings go to ``result``;
    ``accepted`` holds the accepted unavailable facts, by report order."""

    def __init__(self, result: CheckResult):
        self.result = result
        self.reports: list[LoadedReport] = []
        self.citations = CitedGroups()
        self.accepted: list[tuple[int, AcceptedEntry]] = []
        self.allowlist_empty = False


def _phase_one(targets: Sequence[tuple[int, Target]], config: Config, cwd: Path, fix: bool,
               tracking: GitTracking, result: CheckResult, progress: Callable[[int, int], None] | None = None,
               evidence: EvidenceVerifier | None = None, n: int = 1, ledger: Ledger | None = None) -> _PhaseOne:
    """Load and label-check fact reports, and check Markdown reports whole,
    adding their findings to ``result``.

    ``targets`` are (order, target) pairs; order is the target's 1-based
    place in the run, which fixes the order of the output. With ``n`` > 1
    and enough fact reports, ``n`` processes share them out
    (:func:`_load_in_workers`) while this one also checks every other
    target; the loaded reports, citations and accepted facts are joined in
    run order, as one process gives them. ``ledger`` (None: no review
    counts) judges the accepted quotations of Markdown reports. Given a
    list, it drops each target from it once checked (or once another
    list holds it alone, to be dropped from that one).
    """
    def loadable(item: tuple[int, Target]) -> bool:
        return item[1].kind == "report" and not item[1].refusal

    reports = [item for item in targets if loadable(item)] if n > 1 else []
    n = min(n, len(reports) // MIN_REPORTS_PER_PROCESS)
    if n <= 1:
        del reports
        return _phase_one_here(targets, config, cwd, fix, tracking, result, progress, evidence, ledger)
    total = len(targets)
    rest = [item for item in targets if not loadable(item)]
    if isinstance(targets, list):
        # As _phase_one_here drops each target once checked: the fact reports' are in ``reports``
        # alone now, each dropped from it once loaded, so a run holds none it is done with.
        targets.clear()
    # The chunks are joined as they come, in order, so no chunk's own groups outlive it.
    joined = _PhaseOne(CheckResult(details={} if result.details is not None else None))
    if _load_in_workers(reports, n, config, cwd, tracking, result.details is not None,
                        functools.partial(_join, joined)) is None:  # no fork: nothing was loaded
        every = sorted([*reports, *rest], key=lambda item: item[0])
        del reports, rest
        return _phase_one_here(every, config, cwd, fix, tracking, result, progress, evidence, ledger)
    # Markdown reports and refused files here; their findings do not depend on order.
    one = _phase_one_here(rest, config, cwd, fix, tracking, result, None, evidence, ledger)
    _join(one, 0, joined)
    if progress:
        progress(total, total)
    return one


def _join(into: _PhaseOne, start: int, part: _PhaseOne) -> None:
    """Add what ``part`` (a later chunk of reports, from item ``start``) found to ``into``."""
    result, found = into.result, part.result
    result.files += found.files
    result.facts_cited += found.facts_cited
    result.facts_unavailable += found.facts_unavailable
    result.facts_invalid += found.facts_invalid
    result.findings.extend(found.findings)
    result.notices.extend(found.notices)
    if result.details is not None and found.details is not None:
        result.details.update(found.details)
    into.reports.extend(part.reports)
    into.citations.extend(part.citations)
    into.accepted.extend(part.accepted)


#: The counts a first-phase worker hands back.
_COUNTS = ("files", "facts_cited", "facts_unavailable", "facts_invalid")
#: What a first-phase worker hands back of each loaded report: its
#: constructor's arguments, which are its attributes (positions are found again here).
_REPORT_FIELDS = ("order", "display", "kind", "raw", "spans", "facts_ptr", "path", "digest")


#: Fewest fact reports worth a process of their own in the first phase: a
#: worker costs a fork and the hand-back of what it loaded.
MIN_REPORTS_PER_PROCESS = 100


def _load_in_workers(reports: list[tuple[int, Target]], n: int, config: Config, cwd: Path,
                     tracking: GitTracking, detail: bool,
                     consume: Callable[[int, _PhaseOne], None]) -> list[_PhaseOne] | None:
    """The first phase of the fact reports ``reports`` in ``n`` processes
    (:func:`citelint.check.parallel.run_chunks`): one :class:`_PhaseOne` per
    chunk, each with its own result (counts and findings), given to
    ``consume(start, part)`` in chunk order. A worker hands back plain
    values, each record as columns keyed by field name
    (:func:`citelint.check.parallel.pack_rows`): the counts, the findings
    (their positions already found), each report's path, digest and the
    spans found so far, the cited facts by capture (:meth:`CitedGroups.pack`),
    the accepted unavailable facts with their report's order, and with
    ``detail`` each report's :class:`ReportDetail`. Each chunk's targets are
    dropped from ``reports`` once it is joined. An empty list when done;
    None where the platform cannot fork, before any work."""
    from citelint.check.parallel import chunk_size, pack_rows, run_chunks, unpack_rows

    def work(start: int, stop: int) -> _PhaseOne:
        return _phase_one_here(reports[start:stop], config, cwd, False, tracking,
                               CheckResult(details={} if detail else None))

    def pack(one: _PhaseOne) -> dict[str, Any]:
        r = one.result
        return {"counts": {name: getattr(r, name) for name in _COUNTS},
                "findings": plain_differences(pack_rows(r.findings, Finding._fields)),
                "notices": plain_differences(pack_rows(r.notices, Finding._fields)),
                "reports": pack_rows(one.reports, _REPORT_FIELDS),
                "citations": one.citations.pack(),
                "accepted": {"order": [order for order, _ in one.accepted],
                             **pack_rows([e for _, e in one.accepted], AcceptedEntry._fields)},
                # A fact report's detail: its facts' places (None: its facts were not reached).
                "details": None if r.details is None else
                {path: None if d.facts is None else pack_rows(d.facts, FactPlace._fields)
                 for path, d in r.details.items()}}

    def unpack(start: int, stop: int, packed: dict[str, Any]) -> _PhaseOne:
        one = _PhaseOne(CheckResult(findings=unpack_rows(Finding, with_differences(packed["findings"])),
                                    notices=unpack_rows(Finding, with_differences(packed["notices"])),
                                    **packed["counts"]))
        loaded = packed["reports"]
        one.reports = [LoadedReport(**dict(zip(_REPORT_FIELDS, values)))
                       for values in zip(*(loaded[name] for name in _REPORT_FIELDS))]
        one.citations = CitedGroups.unpack(packed["citations"])
        one.accepted = list(zip(packed["accepted"]["order"], unpack_rows(AcceptedEntry, packed["accepted"])))
        if packed["details"] is not None:
            one.result.details = {path: ReportDetail("facts", None if places is None else
                                                     tuple(unpack_rows(FactPlace, places)))
                                  for path, places in packed["details"].items()}
        return one

    size = chunk_size(len(reports), n)

    def take(start: int, part: _PhaseOne) -> None:
        consume(start, part)
        stop = min(start + size, len(reports))
        reports[start:stop] = [_SPENT] * (stop - start)  # loaded: the workers have their own copy

    return run_chunks(n, len(reports), size, work, pack, unpack, take)


#: What a checked target's place in a run's list holds.
_SPENT = (0, Target(Path(), "report"))


def _phase_one_here(targets: Sequence[tuple[int, Target]], config: Config, cwd: Path, fix: bool,
                    tracking: GitTracking, result: CheckResult, progress: Callable[[int, int], None] | None = None,
                    evidence: EvidenceVerifier | None = None, ledger: Ledger | None = None) -> _PhaseOne:
    """:func:`_phase_one` in this process, in the order of ``targets``. Given a
    list, it drops each target from it once checked: a run of 100,000 reports
    then holds no :class:`Target` (path objects, names) it is done with."""
    one = _PhaseOne(result)
    store = Store(config.captures_dir)
    allowlist: LinkEvidence | None = None
    spent = targets if isinstance(targets, list) else None
    for at, (order, target) in enumerate(targets):
        if spent is not None:
            spent[at] = _SPENT
        display = target.display or relpath(target.path, cwd)
        one.result.files += 1
        if target.refusal:
            Emitter(config, one.result, display)("CL001", Position(1, 1), target.refusal)
            if one.result.details is not None:
                one.result.details[display] = ReportDetail("facts" if target.kind == "report" else "markdown")
        elif target.kind == "report":
            loaded = _load_report(target, order, display, config, one.result)
            if loaded is not None:
                report, citations, unavailable = loaded
                one.reports.append(report)
                one.accepted.extend((order, entry) for entry in unavailable)
                one.citations.add(order, citations)
        else:
            if allowlist is None:
                allowlist = build_allowlist(config, store, tracking, evidence)
            # Loaded with the first Markdown report: a run of fact reports never needs it.
            from citelint.check.markdown import check_markdown

            check_markdown(target, display, config, allowlist, one.result, fix, ledger)
        if progress:
            progress(order, len(targets))
    # A grounded link says the allowlist is not empty without asking about any source again.
    one.allowlist_empty = allowlist is not None and not one.result.links_grounded and allowlist.is_empty(config.sources)
    return one




def run_check(config: Config, paths: Sequence[str], cwd: Path, *, fix: bool = False,
              progress: Callable[[int, int], None] | None = None, base: str | None = None,
              jobs: int | None = None, base_missing: str = "error",
              stdin: tuple[str, bytes] | None = None, context_chars: int = CONTEXT_CHARS,
              resolving: Resolving | None = None, detail: bool = False, ledger: Ledger | None = None,
              base_reports: bool = False, documents: Sequence[tuple[str, bytes]] = (),
              given: Target | None = None, shard: Shard | None = None, keep_accepted: bool = True) -> CheckResult:
    """Check the selected files against ``config``.

    ``paths`` are command-line paths (empty: every matching file).
    ``progress(done, total)`` is called after each file when given.
    ``base`` (a git revision) turns on the diff-aware rules (DESIGN §6):
    CL301 for every capture changed since the base, whatever ``paths`` are,
    and CL302 for cited captures the base lacks (``require_captures_on_base``).
    ``base_missing`` is ``error`` (a base this clone lacks is a usage error)
    or ``skip`` (a note, and no diff-aware rule, unless the config sets
    ``require_captures_on_base``).
    ``stdin`` is (name, bytes) of a report read from standard input, checked
    as if it were the file ``name`` (``paths`` is then ignored); ``documents``
    are several such (name, bytes), each checked as that file. ``given``
    is one report with its content (:func:`citelint.check.targets.given_target`),
    checked alone as its ``kind`` whatever the globs say (``paths``, ``documents`` and
    ``stdin`` are then ignored).
    ``jobs`` is the number of processes loading reports and verifying
    citations (None: :func:`job_count` decides for each phase).
    ``context_chars`` is how much capture text (code points) each accepted
    citation keeps on either side of its snippet for review (the step
    summary shows it); 0 keeps none, which a large run's memory notices.
    ``resolving`` is git's answer about ``base`` when the caller started
    asking before it read the config (:class:`citelint.git.resolve.Resolving`);
    git compares the captures while the reports are loaded.
    ``detail`` keeps, for the reader view (``citelint render``), each report's
    :class:`~citelint.model.ReportDetail` in the result's ``details``: every
    fact's place and label, or a Markdown report's text and every link
    located with its verdict (a plain check keeps none: it costs time and
    memory).
    ``base_reports`` (with ``base``) also checks the base's reports, in memory, for
    the review fingerprints they yield (``result.base_fingerprints``: the step
    summary lists only the unreviewed citations a change added); with no merge
    base it stays None and every citation counts as added
    (:mod:`citelint.check.basereports`).
    ``shard`` (``check --shard K/N``) checks that shard's part of the run
    and keeps in it what ``citelint merge`` needs (:mod:`citelint.check.shard`):
    the result then holds only that part.
    ``keep_accepted`` False: the caller reads neither ``accepted`` nor the
    CL901 notices of the result, only their number (``review_count``), so
    nothing is kept of an accepted citation (text and SARIF output: at a
    million facts that is most of a run's memory).
    ``ledger`` is the review ledger when the caller has read it
    (``citelint review``); None reads it here, once, with a warning for each
    file read that does not count (:func:`load_ledger_for`, :func:`report_ledger`).
    Two phases: every report is loaded and label-checked first; then the
    cited facts are grouped by capture, so each capture is read, verified
    and searched once for all its snippets, in order of (source, digest).
    With several processes each phase cuts its work (the fact reports in run
    order, then the groups) into chunks that the processes claim as they
    go (:mod:`citelint.check.parallel`) and joins the results in chunk order, so
    the result is the same for any number of processes.

    Raises:
        UsageError: a named path does not exist, or ``base`` cannot be used
            (no git, REF not fetched; see :func:`citelint.git.base.load_base`).
    """
    if given is not None:
        selection = Selection([given])
    elif documents:
        selection = Selection(targets=[t for name, content in documents
                                       for t in stdin_target(config, name, content, cwd).targets])
    else:
        selection = stdin_target(config, stdin[0], stdin[1], cwd) if stdin else select_targets(config, paths, cwd)
    targets = selection.targets
    result = CheckResult(skipped=[(relpath(Path(p) if os.path.isabs(p) else cwd / p, cwd), why)
                                  for p, why in selection.skipped], details={} if detail else None)
    # Run-level findings and notes are shard 1's; the other shards put them where nothing reads them.
    first = shard is None or shard.first
    run_level = result if first else CheckResult()
    base_note = len(run_level.warnings_text)
    pending = start_base(base, config, run_level, base_missing, resolving) if base is not None else None
    # The review ledger is append-only evidence too (CL301), compared on the same base.
    reviews_base = start_reviews_base(pending, config) if pending is not None else None
    # The cyclic collector would scan every report, fact and result the run
    # holds, again each time they grow by a quarter, and find nothing: they
    # hold no reference cycles (about a tenth of a large run's time).
    COLLECTOR.pause()
    try:
        store = Store(config.captures_dir)
        legacy = legacy_unmigrated(store) if first else []
        if legacy and config.severity("CL107") != "off":
            emit = Emitter(config, result, relpath(legacy[0], cwd))
            emit("CL107", Position(1, 1), legacy_message(len(legacy), relpath(config.captures_dir, cwd)))
        tracking = GitTracking(config, cwd)
        if pending is not None:
            tracking.adopt(pending.indexed())
        evidence = None
        if config.evidence.allowed_signers is not None:  # signature modules load only when configured
            from citelint.evidence.verify import verifier_for

            evidence = verifier_for(config, cwd)
            for path, message in evidence.unsigned_captures(store, config.sources) if evidence and first else ():
                Emitter(config, result, relpath(path, cwd))("CL401", Position(1, 1), message)
        numbered = list(enumerate(targets, 1))
        del targets, selection  # the first phase drops each target from its list once checked
        numbered, foreign = shard.split(numbered, config, cwd) if shard is not None else (numbered, [])
        # Read here (and reported after the citations are judged) unless the caller read it.
        reading_ledger = ledger is None
        ledger = load_ledger_for(config, cwd, run_level) if ledger is None else ledger or None
        one = _phase_one(numbered, config, cwd, fix, tracking, result, progress, evidence,
                         n=job_count(jobs, len(numbered)), ledger=ledger)
        if foreign:
            # Other shards' fact reports, loaded for their citations alone.
            other = _phase_one(foreign, config, cwd, False, tracking, CheckResult(), None, evidence,
                               n=job_count(jobs, len(foreign)))
            one.reports.extend(other.reports)
            one.citations.extend(other.citations)
            one.citations.sort()  # run order, as one unsharded run has them
        if shard is not None:
            shard.note_inputs(one.reports)
            shard.loaded = {r.display: r for r in one.reports}
        base_captures = settle_base(pending, base_note, config, cwd, run_level) if pending is not None else None
        if reviews_base is not None:
            settle_base(reviews_base, None, config, cwd, run_level)
        reports = {r.order: r for r in one.reports}
        groups = one.citations.take_sorted()
        if shard is not None:
            groups = shard.own_groups(groups, reports)
            shard.base_commit = base_captures.commit if base_captures is not None else None
            shard.allowlist_empty = one.allowlist_empty
            if shard.listing:
                return result
        # A shard leaves its notices and accepted facts in files to the merge to place: each shard
        # would otherwise read again nearly every report for the few facts of it whose sources it owns.
        emission = Emission(config, result, reports, one.accepted if keep_accepted else None, ledger,
                            shard.emitter if shard else Emitter,
                            (lambda report: report.raw is None) if shard else None)
        verify_groups(groups, job_count(jobs, len(groups)), config, base_captures, tracking, evidence,
                      context_chars, emission, emission.reads_entries)
        del groups
        note_at = len(result.warnings_text)
        noted = [False]  # whether the note is at ``note_at`` already

        def note_changed(into: CheckResult, changed: list[str]) -> None:
            # Again when the deferred notices and accepted facts are built: they read reports too.
            if shard is not None:
                shard.changed = changed  # any shard's: the merge notes them all, in this note's place
            elif changed:
                if noted[0]:
                    into.warnings_text[note_at] = changed_note(changed)
                else:
                    into.warnings_text.insert(note_at, changed_note(changed))
                    noted[0] = True

        emission.noted = note_changed
        emission.finish()
        note_changed(result, sorted(r.display for r in one.reports if r.changed))
        if ledger is not None and reading_ledger:
            if shard is None:
                report_ledger(ledger, config, cwd, result)
            else:
                shard.ledger = ledger  # what each shard's lookups found is joined by the merge
        if base_reports and base_captures is not None and base_captures.via == "merge-base":
            _added_since(base_captures.commit, config, cwd, result, ledger, shard)
        if one.allowlist_empty and result.links_governed and shard is None:
            result.warnings_text.append(
                "the link allowlist is empty (no approved source has a capture and links.allow is empty), so "
                "every governed link is ungrounded; capture the sources first")
    finally:
        COLLECTOR.resume()
        if pending is not None:
            pending.close()
        if reviews_base is not None:
            reviews_base.close()
    return result


def _added_since(commit: str, config: Config, cwd: Path, result: CheckResult, ledger: Ledger | None,
                 shard: Shard | None = None) -> None:
    """Set ``result.base_fingerprints`` from the reports of ``commit`` (each checked with
    the run's ``ledger``, read once); when git cannot list or read them, every citation
    counts as added, and a note says why. A ``shard`` checks its part of them (the
    merge joins the parts) and keeps the note."""
    from citelint.check.basereports import base_fingerprints
    from citelint.git.probe import GitBaseError

    try:
        result.base_fingerprints = base_fingerprints(
            config, commit, lambda documents: run_check(config, [], cwd, documents=documents, ledger=ledger,
                                                        shard=shard.fresh() if shard else None))
    except GitBaseError as exc:
        note = f"{exc}; every unreviewed citation is listed as added by this change"
        if shard is not None:
            shard.added_note = note
        else:
            result.warnings_text.append(note)
