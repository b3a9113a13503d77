"""The reader view of one report (``citelint render``), as plain data.

Built from the :class:`~citelint.model.CheckResult` of ``citelint check`` on
that report, never from a verification of its own: the check keeps what the
view needs (``run_check(detail=True)``: every fact's place and label, a
Markdown report's text and each of its links with its verdict), and a fact
is shown as a verified excerpt only when the check accepted it, a Markdown
link stays a link only when the check found no error at it. The output
formats (:mod:`citelint.output.render`) turn the
:class:`~citelint.reader.view.ReaderView` into HTML or Markdown.

What the result does not carry is read here: the config's label
descriptions and ``check_at``, and for Markdown links the capture store's
newest revision of each linked source (read-only).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citelint.config import Config
from citelint.model import AcceptedFact, CheckResult, FactPlace, Finding, ReportDetail
from citelint.reader.view import EvidenceNote, FactItem, LinkMark, ReaderView, SourceItem
from citelint.store.captures import Store, revision_key
from citelint.store.record import CaptureError


def reader_view(result: CheckResult, path: str, config: Config, counts: str) -> ReaderView:
    """The reader view of the report ``path`` from the check ``result`` of that
    report alone, run with ``detail=True``; ``counts`` is the check's summary
    line, shown as written.

    Raises:
        KeyError: the result keeps no detail of ``path`` (the check did not
            check it, or ran without ``detail``).
    """
    detail = (result.details or {})[path]
    base: dict[str, Any] = dict(path=path, counts=counts, errors=result.count("error"),
                                warnings=result.count("warning"))
    findings = sorted(f for f in result.findings if f.path == path)
    if detail.kind == "markdown":
        return _markdown_view(result, findings, detail, config, base)
    return _fact_view(result, findings, detail.facts, config, base)


def _fact_view(result: CheckResult, findings: list[Finding], facts: tuple[FactPlace, ...] | None,
               config: Config, base: dict[str, Any]) -> ReaderView:
    """A fact report's view: each fact with its findings (by the index they
    carry) and, when the check accepted it and no error is about it, what
    it was accepted as."""
    if facts is None:
        return ReaderView(**base, kind="facts", problems=tuple(findings))
    owned: list[list[Finding]] = [[] for _ in facts]
    loose: list[Finding] = []
    for f in findings:
        (owned[f.fact_index] if f.fact_index is not None else loose).append(f)
    accepted = {a.fact_index: a for a in result.accepted if a.path == base["path"]}
    items = []
    for index, (place, problems) in enumerate(zip(facts, owned)):
        label = place.label if place.label is not None else "(no label)"
        got = accepted.get(index)
        # CL903 (a person found the excerpt does not support its label) leaves the excerpt verified:
        # it is shown, with that judgment, rather than hidden as a fact that failed the check.
        if got is not None and not any(f.severity == "error" and f.rule != "CL903" for f in problems):
            status = "verified" if got.state == "cited" else "unavailable"
        else:
            got, status = None, "rejected"
        items.append(FactItem(label, place.line, status, got, config.labels.get(label), tuple(problems)))
    return ReaderView(**base, kind="facts", facts=tuple(items), problems=tuple(loose),
                      sources=_fact_sources(items))


def _fact_sources(items: Sequence[FactItem]) -> tuple[SourceItem, ...]:
    """The captured revisions the verified facts quote, in order of first use."""
    uses: dict[tuple[str, str], list[AcceptedFact]] = {}
    for item in items:
        if item.status == "verified" and item.fact is not None and item.fact.source and item.fact.capture_sha256:
            uses.setdefault((item.fact.source, item.fact.capture_sha256), []).append(item.fact)
    return tuple(SourceItem(src, sha, facts[0].retrieved_at, len(facts)) for (src, sha), facts in uses.items())


def _markdown_view(result: CheckResult, findings: list[Finding], detail: ReportDetail, config: Config,
                   base: dict[str, Any]) -> ReaderView:
    """A Markdown report's view, from its links and their verdicts, and its claims in prose.

    Every link with an error (CL201, CL202, CL204, CL103, CL109...) is
    flattened to its visible text (as ``check --fix`` would) and marked, a
    quotation link's text in the sentence itself; a quotation link (a
    ``#:~:text=`` directive) with none is marked verified (CL204 verified
    its text) and gets an evidence note. A prose quotation is marked where
    it stands: verified (CL205 found it: an evidence note) or not; so is a
    number the cited capture lacks (CL206), or that no surviving citation
    backs. Links that cannot be located are not flattened here, so they are
    never vouched either: the HTML output unlinks them. Every finding of the
    report is listed as well (``problems``).
    """
    # cmark-gfm and ada-url load only for a Markdown report.
    from citelint import urls
    from citelint.links.degrade import apply_ops, degrade_ops
    from citelint.links.directive import directive_part
    from citelint.links.source import SourceDocument

    text = detail.markdown
    prefix = f"CLMARK{secrets.token_hex(8)}X"
    ops: list[tuple[int, int, str]] = []
    marks: list[LinkMark] = []
    notes: list[EvidenceNote] = []
    vouched: set[str] = set()
    linked: dict[str, int] = {}
    starts = SourceDocument(text).line_starts
    # The quotations the check accepted (prose ones by their opening mark, links by their start).
    accepted = {(q.line, q.col): q for q in result.quotations if q.path == base["path"]}

    def offset(line: int, col: int) -> int:
        return min(len(text), starts[min(line, len(starts)) - 1] + col - 1)

    # Marks are collected first and numbered in document order, so evidence notes read 1, 2, 3...
    pending: list[tuple[int, int, str, tuple[Finding, ...], int | None, EvidenceNote | None,
                        tuple[str, ...], str]] = []

    def mark(at: int, kind: str, problems: tuple[Finding, ...] = (), start: int | None = None,
             note: EvidenceNote | None = None, removed: tuple[str, ...] = (), before: str = "") -> None:
        pending.append((at if start is None else start, at, kind, problems, start, note, removed, before))

    for verdict in detail.links:
        link = verdict.link
        if link.kind == "image":
            continue  # the page shows an image as its alternative text, never loads it: nothing to vouch
        directive = directive_part(link.href)
        quote = directive is not None and "text=" in directive
        # A bare URL would run on into the token: a space ends it.
        space = " " if link.form == "bare" else ""
        if verdict.error:
            degrade = degrade_ops(text, link)
            if degrade is None:
                continue  # not located: left as written, and never vouched
            ops.extend(degrade)
            if quote:
                mark(link.end, "quote-unverified", tuple(sorted(verdict.findings)), start=link.start, before=space)
            else:
                mark(link.end, "removed", tuple(sorted(verdict.findings)), before=space)
        elif link.category == "governed":
            # Only a link the check grounded stays a link; a relative or mailto: one
            # (which a page opened from file:// may resolve anywhere) is unlinked.
            vouched.add(urls.href_escape(link.href))
            linked[link.cited or link.href] = linked.get(link.cited or link.href, 0) + 1
            if quote:
                q = accepted.get((link.line, link.col))
                note = None if q is None else EvidenceNote(
                    0, "link", q.text, q.source, q.capture, _revision_date(config, q.source, q.capture),
                    q.sentence, q.reviewed)
                mark(link.end, "quote-verified", tuple(sorted(verdict.findings)), note=note, before=space)
    failed = {(f.line, f.col): f for f in findings if f.rule in ("CL205", "CL206") and f.end_line}
    for span in detail.claims:
        lo, hi = offset(span.line, span.col), offset(span.end_line, span.end_col)
        if span.kind == "quotation" and (span.line, span.col) in accepted:
            q = accepted[(span.line, span.col)]
            when = _revision_date(config, q.source, q.capture)
            mark(hi, "prose-verified", start=lo,
                 note=EvidenceNote(0, "prose", q.text, q.source, q.capture, when, q.sentence, q.reviewed))
        elif span.kind == "unverified-number":
            mark(hi, "number-unverified", start=lo, removed=span.removed)
    for (line, col), f in failed.items():
        lo, hi = offset(line, col), offset(f.end_line or line, f.end_col or col + 1)
        mark(hi, "prose-failed" if f.rule == "CL205" else "number-failed", (f,), start=lo)
    for _, at, kind, problems, start, note, removed, before in sorted(pending, key=lambda p: (p[0], p[1])):
        n = len(marks)
        token, opening = f"{prefix}{n}Z", f"{prefix}{n}S" if start is not None else ""
        if start is not None:
            ops.append((start, start, opening))
        ops.append((at, at, before + token))
        if note is not None:
            note = replace(note, number=len(notes) + 1)
            notes.append(note)
        marks.append(LinkMark(token, kind, problems, opening, note.number if note is not None else 0, removed))
    return ReaderView(**base, kind="markdown", markdown=apply_ops(text, ops), marks=tuple(marks),
                      notes=tuple(notes), vouched=frozenset(vouched), problems=tuple(findings), token_prefix=prefix,
                      sources=_link_sources(linked, config))


def _revision_date(config: Config, source: str, sha: str) -> str | None:
    """The ``retrievedAt`` of revision ``sha`` of ``source``, or None when the store lacks it."""
    try:
        return Store(config.captures_dir).lookup(source, sha).retrieved_at
    except CaptureError:
        return None


def _link_sources(linked: dict[str, int], config: Config) -> tuple[SourceItem, ...]:
    """The approved, captured sources the vouched links point at (by canonical
    identity, as grounding compares them), with their newest revision, in
    order of first link."""
    from citelint import urls
    from citelint.links.directive import strip_directive

    by_identity: dict[str, str] = {}
    for source in config.sources:
        ident = urls.source_identity(source)
        if ident is not None:
            by_identity.setdefault(ident, source)
    uses: dict[str, int] = {}
    for href, count in linked.items():
        ident = urls.analyse(strip_directive(href))[1]
        found = by_identity.get(ident) if ident is not None else None
        if found is not None:
            uses[found] = uses.get(found, 0) + count
    store = Store(config.captures_dir)
    items = []
    for source, count in uses.items():
        # Revisions tied for newest are each listed: picking one would be a silent choice.
        for group in store.newest_revisions(source).groups:
            record = max(group, key=revision_key)
            items.append(SourceItem(source, record.sha256, record.retrieved_at, count))
    return tuple(items)
