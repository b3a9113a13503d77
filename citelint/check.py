"""The ``check`` driver: find the files, run every rule, stamp the findings.

Rules yield a place and a message; this module adds the rule id and the
configured severity (dropping rules set to ``off``) and gathers everything
into one :class:`~citelint.model.CheckResult` for the formatters. It reads
only; it never writes a file (``--fix`` aside, done by the CLI) and never
opens a socket.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence, cast

from citelint import pointers
from citelint.captures import Store, legacy_message, legacy_unmigrated
from citelint.config import Config, relpath
from citelint.facts import AcceptedEntry, Citation, FactIssue, check_labels, verify_citations
from citelint.files import replace_atomically
from citelint.loaders import Document, LazyDocument, ParseFailure, kind_of, load_file, read_source
from citelint.model import RULES, AcceptedFact, CheckResult, Finding, Position, Severity
from citelint.schema import check_document

if TYPE_CHECKING:
    from citelint.gitbase import BaseCaptures
    from citelint.links import Allowlist


class UsageError(Exception):
    """A command-line problem (exit 2): a named path does not exist, etc."""


@dataclass(frozen=True)
class Target:
    """One file to check: absolute ``path``, ``kind`` ("report" or "markdown")."""

    path: Path
    kind: str


_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"}


def _walk(top: Path, captures_dir: Path) -> Iterable[Path]:
    """Files under ``top`` in a stable order, never descending into version
    control or tool directories, nor into the capture store (its files are
    never reports, and a large store would dominate the walk)."""
    skip = os.path.abspath(captures_dir)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in _SKIP_DIRS and os.path.join(dirpath, d) != skip)
        for name in sorted(filenames):
            yield Path(dirpath, name)


def select_targets(config: Config, paths: Sequence[str], cwd: Path) -> list[Target]:
    """Files to check. With no ``paths``, every file under the config root that
    matches a report or Markdown glob; otherwise the given files (and files
    under given directories) that match one. Others are skipped silently, as
    a pre-commit hook passes every changed file.

    Raises:
        UsageError: a given path does not exist.
    """
    candidates: list[Path] = []
    if not paths:
        candidates = list(_walk(config.root, config.captures_dir))
    for p in paths:
        path = Path(p) if os.path.isabs(p) else cwd / p
        if path.is_dir():
            candidates.extend(_walk(path, config.captures_dir))
        elif path.exists():
            candidates.append(path)
        else:
            raise UsageError(f"{p}: no such file or directory")
    seen: set[Path] = set()
    out = []
    for c in candidates:
        absolute = Path(os.path.abspath(c))
        if absolute in seen:
            continue
        seen.add(absolute)
        kind = config.classify(absolute)
        if kind == "report" and kind_of(absolute) not in ("json", "yaml"):
            kind = None
        if kind:
            out.append(Target(absolute, kind))
    return out


class _Emitter:
    """Stamps rule id and configured severity onto findings of one file."""

    def __init__(self, config: Config, result: CheckResult, path: str):
        self.config, self.result, self.path = config, result, path

    def __call__(self, rule: str, pos: Position, message: str) -> None:
        severity = self.config.severity(rule)
        if severity == "off":
            return
        finding = Finding(self.path, pos.line, pos.col, rule, cast(Severity, severity), message,
                          pos.end_line, pos.end_col)
        (self.result.notices if severity == "notice" else self.result.findings).append(finding)


@dataclass
class _Report:
    """A fact report after its first phase: kept until its citations are verified."""

    order: int
    display: str
    doc: Document | LazyDocument
    facts_ptr: str
    emit: _Emitter

    def pointer(self, index: int, field: str = "") -> str:
        """The JSON Pointer of fact ``index`` (or of its key ``field``)."""
        where = pointers.join(self.facts_ptr, index)
        return pointers.join(where, field) if field else where

    def emit_issues(self, issues: Iterable[FactIssue]) -> None:
        """Emit each issue at the fact, or the key, it names."""
        for issue in issues:
            self.emit(issue.rule, self.doc.locate(self.pointer(issue.index, issue.field)), issue.message)

    def accepted(self, entry: AcceptedEntry) -> tuple[tuple[int, int], AcceptedFact]:
        """The accepted fact as the result lists it, with its sort key (report, fact index)."""
        pos = self.doc.locate(self.pointer(entry.index))
        fact = entry.fact
        if fact["state"] == "unavailable":
            accepted = AcceptedFact(self.display, pos.line, pos.col, "unavailable", fact["label"],
                                    reason=fact["reason"])
        else:
            accepted = AcceptedFact(self.display, pos.line, pos.col, "cited", fact["label"], source=fact["source"],
                                    capture_sha256=fact["captureSha256"], snippet=fact["snippet"],
                                    offset=entry.offset, review=entry.review)
        return (self.order, entry.index), accepted


def _load_report(target: Target, order: int, display: str, config: Config,
                 result: CheckResult) -> tuple[_Report, list[Citation], list[AcceptedEntry]] | None:
    """First phase of a fact report: load, schema (CL001, CL002) and labels
    (CL003, CL004). Returns the report with its citations left to verify and
    its accepted unavailable facts, or None when nothing is left to check."""
    emit = _Emitter(config, result, display)
    doc = load_file(target.path)
    if isinstance(doc, ParseFailure):
        emit("CL001", Position(doc.line, doc.col), doc.message)
        return None

    facts, facts_ptr, problems = check_document(doc.data, config.facts_pointer)
    bad_facts: set[str] = set()
    for pointer, message, at_key in problems:
        pos = Position(1, 1) if facts is pointers.MISSING else \
            doc.locate_key(pointer) if at_key else doc.locate(pointer)
        emit("CL002", pos, message)
        bad_facts.add(pointers.enclosing_item(pointer, facts_ptr))
    if not isinstance(facts, list):
        return None
    report = _Report(order, display, doc, facts_ptr, emit)
    valid = [(i, f) for i, f in enumerate(facts) if report.pointer(i) not in bad_facts]
    result.facts_invalid += len(facts) - len(valid)
    outcome = check_labels(valid, labels=config.labels, line_of=lambda index: doc.locate(report.pointer(index)).line)
    result.facts_cited += outcome.cited
    result.facts_unavailable += outcome.unavailable
    report.emit_issues(outcome.issues)
    return report, outcome.citations, outcome.accepted


def _verify_citations(pending: dict[tuple[str, str], list[tuple[_Report, Citation]]], config: Config,
                      store: Store, base: BaseCaptures | None,
                      accepted: list[tuple[tuple[int, int], AcceptedFact]]) -> None:
    """Second phase: each cited capture read once for all the facts citing it,
    in a fixed order (by source, then digest), then released, so memory holds
    one capture at a time and output never depends on file order."""
    cl302_base = base if config.severity("CL302") != "off" else None
    for key in sorted(pending):
        group = pending[key]
        outcomes = verify_citations([c for _, c in group], labels=config.labels, approved=config.is_approved,
                                    store=store, base=cl302_base)
        for (report, _), (_, issues, entry) in zip(group, outcomes):
            report.emit_issues(issues)
            if entry is not None:
                accepted.append(report.accepted(entry))


def _check_markdown(target: Target, display: str, config: Config, allowlist: Allowlist,
                    result: CheckResult, fix: bool) -> None:
    # cmark-gfm and ada-url load only when a Markdown report is checked.
    from citelint import links

    emit = _Emitter(config, result, display)
    # The same bound as fact reports, and a FIFO or device is refused, never waited on.
    source = read_source(target.path)
    if isinstance(source, ParseFailure):
        emit("CL001", Position(source.line, source.col), source.message)
        return
    raw, text = source
    report = links.check(text, allowlist, relative=config.links.relative,
                         images=config.links.images)
    result.links += report.links
    result.links_governed += report.governed
    result.links_grounded += report.grounded
    issues = report.issues
    if fix:
        # Ungrounded and unvouchable links alike are degraded to their text.
        fixable = [i for i in issues if RULES[i.rule].fixable]
        if fixable:
            new_text, removed = links.fix(text, fixable)
            if new_text != text:
                bom = raw[:3] if raw.startswith(b"\xef\xbb\xbf") else b""
                replace_atomically(target.path, bom + new_text.encode("utf-8"), tmp_prefix=".citelint-fix-")
            for i in removed:
                result.fixed.append(Finding(display, i.line, i.col, i.rule, "error",
                                            f"removed link to {i.link.href}"))
            removed_ids = {id(i) for i in removed}
            issues = [i for i in issues if id(i) not in removed_ids]
    for issue in issues:
        emit(issue.rule, Position(issue.line, issue.col, issue.end_line, issue.end_col), issue.message)


def run_check(config: Config, paths: Sequence[str], cwd: Path, *, fix: bool = False,
              progress: Callable[[int, int], None] | None = None, base: str | None = None) -> CheckResult:
    """Check the selected files against ``config``.

    ``paths`` are command-line paths (empty: every matching file).
    ``progress(done, total)`` is called after each file when given.
    ``base`` (a git revision) turns on the diff-aware rules (DESIGN §6):
    CL301 for every capture changed since the base, whatever ``paths`` are,
    and CL302 for cited captures the base lacks (``require_captures_on_base``).

    Raises:
        UsageError: a named path does not exist, or ``base`` cannot be used
            (no git, REF not fetched; see :func:`citelint.gitbase.load_base`).
    """
    targets = select_targets(config, paths, cwd)
    result = CheckResult()
    base_captures = _load_base(base, config, cwd, result) if base is not None else None
    store = Store(config.captures_dir)
    legacy = legacy_unmigrated(store)
    if legacy and config.severity("CL107") != "off":
        emit = _Emitter(config, result, relpath(legacy[0], cwd))
        emit("CL107", Position(1, 1), legacy_message(len(legacy), relpath(config.captures_dir, cwd)))
    allowlist: Allowlist | None = None
    pending: dict[tuple[str, str], list[tuple[_Report, Citation]]] = {}
    accepted: list[tuple[tuple[int, int], AcceptedFact]] = []
    for n, target in enumerate(targets, 1):
        display = relpath(target.path, cwd)
        result.files += 1
        if target.kind == "report":
            loaded = _load_report(target, n, display, config, result)
            if loaded is not None:
                report, citations, unavailable = loaded
                accepted.extend(report.accepted(entry) for entry in unavailable)
                for citation in citations:
                    key = (citation.fact["source"], citation.fact["captureSha256"])
                    pending.setdefault(key, []).append((report, citation))
        else:
            if allowlist is None:
                allowlist = build_allowlist(config, store)
            _check_markdown(target, display, config, allowlist, result, fix)
        if progress:
            progress(n, len(targets))
    _verify_citations(pending, config, store, base_captures, accepted)
    accepted.sort(key=lambda item: item[0])
    result.accepted = [fact for _, fact in accepted]
    if allowlist is not None and len(allowlist) == 0 and result.links_governed:
        result.warnings_text.append(
            "the link allowlist is empty (no approved source has a capture and links.allow is empty), so "
            "every governed link is ungrounded; capture the sources first")
    return result


def _load_base(ref: str, config: Config, cwd: Path, result: CheckResult) -> BaseCaptures:
    """Load the base captures for ``ref`` and emit CL301 for each changed one."""
    # git plumbing (subprocess) loads only with --base: the hook's start-up stays lean.
    from citelint.gitbase import GitBaseError, load_base

    try:
        base = load_base(ref, config.captures_dir, config.root)
    except GitBaseError as exc:
        raise UsageError(str(exc)) from None
    for change in base.changes():
        display = relpath(change.path, cwd)
        _Emitter(config, result, display)("CL301", Position(1, 1), change.message(base.commit, display))
    if base.via == "ref":
        result.warnings_text.append(
            f"--base: compared captures with {ref}'s own tree, since this clone has no merge base of it "
            "and HEAD (a shallow clone)")
    return base


def build_allowlist(config: Config, store: Store) -> Allowlist:
    """The Markdown link allowlist: approved sources with at least one capture,
    plus ``links.allow`` (one directory lookup per source, no scan)."""
    from citelint.links import Allowlist

    captured = [s for s in config.sources if store.has_source(s)]
    return Allowlist(captured, config.links.allow)
