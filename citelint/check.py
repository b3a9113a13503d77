"""The ``check`` driver: find the files, run every rule, stamp the findings.

Rules yield a place and a message; this module adds the rule id and the
configured severity (dropping rules set to ``off``) and gathers everything
into one :class:`~citelint.model.CheckResult` for the formatters. It reads
only; it never writes a file (``--fix`` aside, done by the CLI) and never
opens a socket.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from citelint.captures import Store, legacy_unmigrated
from citelint.config import Config, relpath
from citelint.files import replace_atomically
from citelint.loaders import Document, ParseFailure, kind_of, load_file, pointer_join, pointer_tokens
from citelint.model import AcceptedFact, CheckResult, Finding, Position

if TYPE_CHECKING:
    from citelint.gitbase import BaseCaptures


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
        finding = Finding(self.path, pos.line, pos.col, rule, severity, message,  # type: ignore[arg-type]
                          pos.end_line, pos.end_col)
        (self.result.notices if severity == "notice" else self.result.findings).append(finding)


def _check_report(target: Target, display: str, config: Config, store: Store, result: CheckResult,
                  base: BaseCaptures | None = None) -> None:
    from citelint.facts import duplicate_labels, review_hints, verify_cited
    from citelint.schema import validate_facts, validate_report

    emit = _Emitter(config, result, display)
    try:
        doc = load_file(target.path)
    except OSError as exc:
        emit("CL001", Position(1, 1), f"cannot read the file: {exc.strerror}")
        return
    if isinstance(doc, ParseFailure):
        emit("CL001", Position(doc.line, doc.col), doc.message)
        return

    if config.facts_pointer is not None:
        facts_ptr = config.facts_pointer
        facts = _resolve_pointer(doc, facts_ptr)
        if facts is _MISSING:
            emit("CL002", Position(1, 1), f"no value at facts_pointer {facts_ptr!r}; fix the pointer in the "
                                          "config or the document")
            return
        problems = list(validate_facts(facts, facts_ptr))
    else:
        facts_ptr = "/facts"
        facts = doc.data.get("facts") if isinstance(doc.data, dict) else None
        problems = list(validate_report(doc.data))

    bad_facts: set[str] = set()
    for pointer, message, at_key in problems:
        pos = doc.locate_key(pointer) if at_key else doc.locate(pointer)
        emit("CL002", pos, message)
        bad_facts.add(_fact_pointer(pointer, facts_ptr))
    if not isinstance(facts, list):
        return

    valid = [(i, f) for i, f in enumerate(facts) if pointer_join(facts_ptr, i) not in bad_facts]
    for index, first, label in duplicate_labels((i, f["label"]) for i, f in valid):
        ptr = pointer_join(pointer_join(facts_ptr, index), "label")
        first_pos = doc.locate(pointer_join(facts_ptr, first))
        emit("CL004", doc.locate(ptr), f"label {label!r} appears again (first at line {first_pos.line}); "
                                       "keep one fact per label")

    for index, fact in valid:
        fptr = pointer_join(facts_ptr, index)
        pos = doc.locate(fptr)
        if fact["state"] == "unavailable":
            result.facts_unavailable += 1
        else:
            result.facts_cited += 1
        label = fact["label"]
        if label not in config.labels:
            hint = ("no labels are approved in the config" if not config.labels
                    else "approve it in the config's `labels` or use an approved label")
            emit("CL003", doc.locate(pointer_join(fptr, "label")), f"label {label!r} is not approved; {hint}")
            continue
        if fact["state"] == "unavailable":
            result.accepted.append(AcceptedFact(display, pos.line, pos.col, "unavailable", label,
                                                reason=fact["reason"]))
            continue
        verdict = verify_cited(fact, approved=config.is_approved(fact["source"]), store=store)
        for issue in verdict.issues:
            emit(issue.rule, doc.locate(pointer_join(fptr, issue.field) if issue.field else fptr), issue.message)
        if base is not None and config.severity("CL302") != "off" and \
                not any(i.rule in ("CL101", "CL102", "CL103") for i in verdict.issues) and \
                not base.has_capture(fact["source"], fact["captureSha256"]):
            # The capture exists in the working tree but not on the base: the
            # evidence arrives in the same change as the claim leaning on it.
            emit("CL302", doc.locate(pointer_join(fptr, "captureSha256")),
                 f"capture {fact['captureSha256'][:12]}… is not on the base revision {base.commit[:12]} "
                 "(require_captures_on_base); merge the capture in its own change first, then the report")
        if not verdict.accepted:
            continue
        review = review_hints(config.labels.get(label), fact["snippet"])
        accepted = AcceptedFact(display, pos.line, pos.col, "cited", label, source=fact["source"],
                                capture_sha256=fact["captureSha256"], snippet=fact["snippet"],
                                offset=verdict.offset, review=review)
        result.accepted.append(accepted)
        detail = "; ".join(review) if review else "check that the snippet supports this label"
        emit("CL901", pos, f"label {label!r} is not verified by citelint, only the excerpt: {detail}")


_MISSING = object()
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")  # RFC 6901 §4: no leading zeros, ASCII digits only


def _resolve_pointer(doc: Document, pointer: str) -> object:
    node: object = doc.data
    for token in pointer_tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and _ARRAY_INDEX.fullmatch(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _fact_pointer(pointer: str, facts_ptr: str) -> str:
    """The pointer of the fact containing ``pointer`` (or ``pointer`` itself)."""
    if not pointer.startswith(facts_ptr + "/"):
        return pointer
    rest = pointer[len(facts_ptr) + 1:].split("/", 1)[0]
    return f"{facts_ptr}/{rest}"


def _check_markdown(target: Target, display: str, config: Config, allowlist: object,
                    result: CheckResult, fix: bool) -> None:
    from citelint import links

    emit = _Emitter(config, result, display)
    try:
        raw = target.path.read_bytes()
    except OSError as exc:
        emit("CL001", Position(1, 1), f"cannot read the file: {exc.strerror}")
        return
    from citelint.loaders import decode_utf8

    text = decode_utf8(raw)
    if isinstance(text, ParseFailure):
        emit("CL001", Position(text.line, text.col), text.message)
        return
    report = links.check(text, allowlist, relative=config.links.relative,  # type: ignore[arg-type]
                         images=config.links.images)
    result.links += report.links
    result.links_governed += report.governed
    result.links_grounded += report.grounded
    issues = report.issues
    if fix:
        # Ungrounded and unvouchable links alike are degraded to their text.
        fixable = [i for i in issues if i.rule in ("CL201", "CL202")]
        if fixable:
            new_text, removed = links.fix(text, fixable)
            if new_text != text:
                bom = raw[:3] if raw.startswith(b"\xef\xbb\xbf") else b""
                _write_atomically(target.path, bom + new_text.encode("utf-8"))
            for i in removed:
                result.fixed.append(Finding(display, i.line, i.col, i.rule, "error",
                                            f"removed link to {i.link.href}"))
            removed_ids = {id(i) for i in removed}
            issues = [i for i in issues if id(i) not in removed_ids]
    for issue in issues:
        emit(issue.rule, Position(issue.line, issue.col, issue.end_line, issue.end_col), issue.message)


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` via a temporary file and rename (for --fix only)."""
    replace_atomically(path, data, tmp_prefix=".citelint-fix-")


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
        emit("CL107", Position(1, 1), f"{len(legacy)} legacy capture file(s) ({relpath(config.captures_dir, cwd)}/"
                                      "<sha256>.json) have no migrated copy and are not evidence; run "
                                      "`citelint migrate`, then delete them in a commit")
    allowlist = None
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
    if allowlist is not None and len(allowlist) == 0 and result.links_governed:  # type: ignore[arg-type]
        result.warnings_text.append(
            "the link allowlist is empty (no approved source has a capture and links.allow is empty), so "
            "every governed link is ungrounded; capture the sources first")
    return result


def _load_base(ref: str, config: Config, cwd: Path, result: CheckResult) -> BaseCaptures:
    """Load the base captures for ``ref`` and emit CL301 for each changed one."""
    from citelint.gitbase import GitBaseError, load_base

    try:
        base = load_base(ref, config.captures_dir, config.root)
    except GitBaseError as exc:
        raise UsageError(str(exc)) from None
    short = base.commit[:12]
    for change in base.changes():
        display = relpath(change.path, cwd)
        what = {"modified": "was modified", "deleted": "was deleted",
                "replaced": "was replaced by a symlink or another kind of file"}[change.kind]
        _Emitter(config, result, display)(
            "CL301", Position(1, 1),
            f"capture {what} since the base revision {short}; captures are append-only: restore it with "
            f"`git checkout {short} -- {display}` and add new evidence as a new capture")
    if base.via == "ref":
        result.warnings_text.append(
            f"--base: compared captures with {ref}'s own tree, since this clone has no merge base of it "
            "and HEAD (a shallow clone)")
    return base


def build_allowlist(config: Config, store: Store) -> object:
    """The Markdown link allowlist: approved sources with at least one capture,
    plus ``links.allow`` (one directory lookup per source, no scan)."""
    from citelint.links import Allowlist

    captured = [s for s in config.sources if store.has_source(s)]
    return Allowlist(captured, config.links.allow)
