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
from citelint.facts import check_facts
from citelint.files import replace_atomically
from citelint.loaders import ParseFailure, kind_of, load_file, read_source
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


def _walk(top: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
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
        candidates = list(_walk(config.root))
    for p in paths:
        path = Path(p) if os.path.isabs(p) else cwd / p
        if path.is_dir():
            candidates.extend(_walk(path))
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


def _check_report(target: Target, display: str, config: Config, store: Store, result: CheckResult,
                  base: BaseCaptures | None = None) -> None:
    emit = _Emitter(config, result, display)
    doc = load_file(target.path)
    if isinstance(doc, ParseFailure):
        emit("CL001", Position(doc.line, doc.col), doc.message)
        return

    facts, facts_ptr, problems = check_document(doc.data, config.facts_pointer)
    bad_facts: set[str] = set()
    for pointer, message, at_key in problems:
        pos = Position(1, 1) if facts is pointers.MISSING else \
            doc.locate_key(pointer) if at_key else doc.locate(pointer)
        emit("CL002", pos, message)
        bad_facts.add(pointers.enclosing_item(pointer, facts_ptr))
    if not isinstance(facts, list):
        return

    def fact_ptr(index: int) -> str:
        return pointers.join(facts_ptr, index)

    valid = [(i, f) for i, f in enumerate(facts) if fact_ptr(i) not in bad_facts]
    result.facts_invalid += len(facts) - len(valid)
    outcome = check_facts(valid, labels=config.labels, approved=config.is_approved, store=store,
                          base=base if config.severity("CL302") != "off" else None,
                          line_of=lambda index: doc.locate(fact_ptr(index)).line)
    result.facts_cited += outcome.cited
    result.facts_unavailable += outcome.unavailable
    for issue in outcome.issues:
        where = fact_ptr(issue.index)
        emit(issue.rule, doc.locate(pointers.join(where, issue.field) if issue.field else where), issue.message)
    for entry in outcome.accepted:
        pos = doc.locate(fact_ptr(entry.index))
        fact = entry.fact
        if fact["state"] == "unavailable":
            result.accepted.append(AcceptedFact(display, pos.line, pos.col, "unavailable", fact["label"],
                                                reason=fact["reason"]))
        else:
            result.accepted.append(AcceptedFact(display, pos.line, pos.col, "cited", fact["label"],
                                                source=fact["source"], capture_sha256=fact["captureSha256"],
                                                snippet=fact["snippet"], offset=entry.offset,
                                                review=entry.review))


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
    for n, target in enumerate(targets, 1):
        display = relpath(target.path, cwd)
        result.files += 1
        if target.kind == "report":
            _check_report(target, display, config, store, result, base_captures)
        else:
            if allowlist is None:
                allowlist = build_allowlist(config, store)
            _check_markdown(target, display, config, allowlist, result, fix)
        if progress:
            progress(n, len(targets))
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
