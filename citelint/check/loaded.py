"""A fact report between the check's two phases, and the emitter of one file's findings.

:class:`Emitter` stamps rule id and configured severity onto the findings
of one file and caps them per rule; :class:`LoadedReport` keeps what the
second phase and the formatters need of a loaded report (its bytes, the
spans found so far) and finds positions only when asked. Both serve
:mod:`citelint.check.run`, which runs the rules.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import cast

from citelint.config import Config
from citelint.facts import AcceptedEntry, Issue
from citelint.files import decode_utf8
from citelint.model import RULES, AcceptedFact, CheckResult, Difference, Finding, Position, Review, Severity
from citelint.reports import pointers
from citelint.reports.columns import char_position
from citelint.reports.document import Document, ParseFailure
from citelint.reports.json import LazyDocument
from citelint.reports.loaders import load_text, read_source

#: Findings of one rule shown per file; past it, one finding says how many more
#: there are, so a report of a million junk facts costs seconds, not hours.
FINDINGS_PER_RULE = 100


class Emitter:
    """Stamps rule id and configured severity onto findings of one file, and
    caps them at FINDINGS_PER_RULE per rule (notices are not capped: each is
    an accepted citation). ``where`` may be a Position or a function giving
    one, so a finding past the cap is never located."""

    def __init__(self, config: Config, result: CheckResult, path: str):
        self.config, self.result, self.path = config, result, path
        self.shown: dict[str, int] = {}
        self.more: dict[str, tuple[int, Position]] = {}

    def full(self, rule: str) -> bool:
        """True when ``rule`` has reached its cap in this file."""
        return self.shown.get(rule, 0) >= FINDINGS_PER_RULE

    def __call__(self, rule: str, where: Position | Callable[[], Position], message: str,
                 capture: str | None = None, fact_index: int | None = None,
                 difference: Difference | None = None) -> Finding | None:
        """Add the finding of ``rule`` at ``where`` with ``message`` (``capture``,
        ``fact_index`` and ``difference`` as :class:`~citelint.model.Finding` has them) to the result,
        as a notice when the rule is configured so. Returns it, or None when the
        rule is off or past its cap in this file."""
        severity = self.config.severity(rule)
        if severity == "off":
            return None
        if severity != "notice":
            if self.full(rule):
                count, first = self.more.get(rule, (0, Position(1, 1)))
                if not count:
                    first = where if isinstance(where, Position) else where()
                self.more[rule] = (count + 1, first)
                return None
            self.shown[rule] = self.shown.get(rule, 0) + 1
        pos = where if isinstance(where, Position) else where()
        finding = Finding(self.path, pos.line, pos.col, rule, cast(Severity, severity), message,
                          pos.end_line, pos.end_col, capture, fact_index, difference)
        (self.result.notices if severity == "notice" else self.result.findings).append(finding)
        return finding

    def stop(self, rule: str, where: Callable[[], Position], message: str, fact_index: int | None = None) -> None:
        """End ``rule``'s findings in this file with one finding saying why
        (replacing the count of those not shown)."""
        self.more.pop(rule, None)
        self.shown[rule] = 0
        self(rule, where, message, fact_index=fact_index)
        self.shown[rule] = FINDINGS_PER_RULE

    def close(self) -> None:
        """Add one finding per capped rule saying how many more it found,
        at the first one not shown."""
        for rule, (count, pos) in sorted(self.more.items()):
            self.result.findings.append(more_finding(self.path, rule, cast(Severity, self.config.severity(rule)),
                                                     count, pos))
        self.more.clear()


def content_digest(raw: bytes) -> int:
    """A report's bytes in one integer (their length and CRC-32), to tell whether
    the file read again for a position is the one that was checked."""
    return len(raw) << 32 | zlib.crc32(raw)


def more_finding(path: str, rule: str, severity: Severity, count: int, pos: Position) -> Finding:
    """The finding that counts the ``count`` findings of ``rule`` in the file
    ``path`` past the cap (:data:`FINDINGS_PER_RULE`), at ``pos``, the first not shown."""
    return Finding(path, pos.line, pos.col, rule, severity,
                   f"{count} more {rule} ({RULES[rule].name}) finding{'s' * (count != 1)} in this file not shown "
                   f"(at most {FINDINGS_PER_RULE} per rule); fix these first", pos.end_line, pos.end_col)


def changed_note(changed: list[str]) -> str:
    """The run's note on the report files (``changed``, sorted) that changed
    while being checked, so some of their findings are placed at 1:1."""
    return (f"{len(changed)} report file{'s' * (len(changed) != 1)} changed while being checked "
            f"({', '.join(changed[:3])}{', …' if len(changed) > 3 else ''}), so some of their findings are "
            "placed at 1:1; check again")


class LoadedReport:
    """A fact report after the first phase, kept until its citations are verified.

    Positions are found only when a finding or a formatter needs them, so
    between the phases a report keeps only the facts' spans found so far and
    what it takes to read it again: its ``path`` and the :func:`content_digest`
    of its bytes as checked (``digest``); a report given in memory (standard
    input, the Python API) keeps its bytes (``raw``; None for a file: a large
    run's reports would otherwise be a third of its memory). ``release``
    drops the text and document; ``text`` and ``doc`` re-derive them on
    demand. A file that changed meanwhile is not the checked report: its
    findings are then placed at 1:1 and ``changed`` is set, for the run's note.
    """

    __slots__ = ("order", "display", "kind", "raw", "spans", "facts_ptr", "path", "digest", "changed",
                 "_doc", "_text")

    def __init__(self, order: int, display: str, kind: str, raw: bytes | None, spans: dict[str, tuple[int, int]],
                 facts_ptr: str, doc: Document | LazyDocument | None = None, text: str | None = None,
                 path: str = "", digest: int = 0):
        self.order, self.display, self.kind, self.raw = order, display, kind, raw
        self.spans, self.facts_ptr = spans, facts_ptr
        self.path, self.digest = path, digest
        self.changed = False
        self._doc: Document | LazyDocument | None = doc
        self._text: str | None = text

    def release(self) -> None:
        """Drop the decoded text and the document until a position is next needed."""
        self._doc = self._text = None

    @property
    def text(self) -> str:
        """The report's text (decoded again from ``raw``, or read again from
        ``path``, after :meth:`release`); empty when the file changed."""
        if self._text is None:
            if self.raw is not None:
                self._text = decode_utf8(self.raw)  # it decoded in the first phase
                return self._text
            read = read_source(Path(self.path))
            if isinstance(read, ParseFailure) or content_digest(read[0]) != self.digest:
                self.changed = True
                self._text = ""
            else:
                self._text = read[1]
        return self._text

    def doc(self) -> Document | LazyDocument:
        """The loaded document (loaded again from the text after :meth:`release`;
        one placing everything at 1:1 when the file changed)."""
        if self._doc is None:
            text = self.text
            if self.changed:
                self._doc = Document(None, {}, {})
            elif self.kind == "json":
                self._doc = LazyDocument(None, text, self.spans)
            else:
                doc = load_text(text, self.kind)
                assert not isinstance(doc, ParseFailure)  # it loaded in the first phase
                self._doc = doc
        return self._doc

    def pointer(self, index: int, field: str = "") -> str:
        """The JSON Pointer of fact ``index`` (or of its key ``field``)."""
        where = pointers.join(self.facts_ptr, index)
        return pointers.join(where, field) if field else where

    def emit_issues(self, emit: Emitter, issues: Iterable[Issue]) -> None:
        """Emit each issue as a finding at the fact, or the key, it names (the
        finding keeps the fact's index)."""
        for issue in issues:
            where = functools.partial(self.locate, self.pointer(issue.fact_index, issue.field))
            if issue.at:
                # CL104 points at the snippet's first character that differs from the capture.
                where = functools.partial(self._at_char, where, issue.at)
            emit(issue.rule, where, issue.message, fact_index=issue.fact_index, difference=issue.difference)

    def _at_char(self, where: Callable[[], Position], at: int) -> Position:
        return char_position(self.text, where(), at)

    def locate(self, pointer: str) -> Position:
        """Position of the value at ``pointer``."""
        return self.doc().locate(pointer)

    def accepted(self, entry: AcceptedEntry, reviewed: Review | None = None,
                 locate: bool = True) -> tuple[tuple[int, int], AcceptedFact]:
        """The accepted fact as the result lists it, with its sort key (report, fact index);
        ``reviewed`` is the review that counts for it, if any; with ``locate`` False
        it stands at line 0, column 0 (a shard's, placed by the merge)."""
        pos = self.locate(self.pointer(entry.index)) if locate else _NOWHERE
        fact = entry.fact
        if fact["state"] == "unavailable":
            accepted = AcceptedFact(self.display, pos.line, pos.col, "unavailable", fact["label"],
                                    reason=fact["reason"], fact_index=entry.index)
        else:
            # Positional: one per accepted citation of a shard or a json run, and keywords take twice as long.
            accepted = AcceptedFact(self.display, pos.line, pos.col, "cited", fact["label"], fact["source"],
                                    fact["captureSha256"], fact["snippet"], entry.offset, None, entry.review,
                                    entry.retrieved_at, entry.context, entry.index, reviewed)
        return (self.order, entry.index), accepted


#: Where an accepted fact left for the merge to place stands until then (no real position is 0:0).
_NOWHERE = Position(0, 0)
