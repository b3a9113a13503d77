"""The reader view of one report (``citelint render``), as plain data.

Built from the :class:`~citelint.model.CheckResult` of ``citelint check`` on
that report, never from a verification of its own: a fact is shown as a
verified excerpt only when the check accepted it, and a Markdown link stays
a link only when the check reported no error at its position. The output
formats (:mod:`citelint.output.render`) turn the
:class:`~citelint.reader.view.ReaderView` into HTML or Markdown.

What the result does not carry is read here: the report's text (for its
facts in order, the rejected ones too, and its Markdown), the config's
label descriptions and ``check_at``, and for Markdown links the capture
store's newest revision of each linked source (read-only).
"""

from __future__ import annotations

import secrets
from bisect import bisect_right
from typing import Any, Sequence

from citelint.reports import pointers
from citelint.store.captures import Store, revision_key
from citelint.config import Config
from citelint.reports.document import ParseFailure
from citelint.reports.loaders import load_text
from citelint.model import RULES, AcceptedFact, CheckResult, Finding
from citelint.reports.schema import check_document
from citelint.reader.view import FactItem, LinkMark, ReaderView, SourceItem


def fact_view(result: CheckResult, path: str, text: str, kind: str, config: Config, counts: str) -> ReaderView:
    """The reader view of the fact report ``path`` (its ``text``, ``kind``
    ``json`` or ``yaml``) from the check ``result`` of that report alone;
    ``counts`` is the check's summary line, shown as written."""
    findings = sorted(f for f in result.findings if f.path == path)
    base = dict(path=path, kind="facts", counts=counts, errors=result.count("error"),
                warnings=result.count("warning"))
    doc = load_text(text, kind)
    if isinstance(doc, ParseFailure):
        return ReaderView(**base, problems=tuple(findings))
    facts, facts_ptr, _ = check_document(doc.data, config.facts_pointer)
    if not isinstance(facts, list):
        return ReaderView(**base, problems=tuple(findings))
    starts = [doc.locate(pointers.join(facts_ptr, i)) for i in range(len(facts))]
    keys = [(p.line, p.col) for p in starts]
    owned: list[list[Finding]] = [[] for _ in facts]
    loose = []
    for f in findings:
        at = bisect_right(keys, (f.line, f.col)) - 1
        (owned[at] if at >= 0 else loose).append(f)
    accepted = {(a.line, a.col): a for a in result.accepted if a.path == path}
    items = []
    for fact, pos, problems in zip(facts, starts, owned):
        label = fact.get("label") if isinstance(fact, dict) else None
        label = label if isinstance(label, str) else "(no label)"
        got = accepted.get((pos.line, pos.col))
        errors = [f for f in problems if f.severity == "error"]
        if got is not None and got.label == label and not errors and isinstance(fact, dict) and _same(got, fact):
            status = "verified" if got.state == "cited" else "unavailable"
        else:
            got, status = None, "rejected"
        items.append(FactItem(label, pos.line, status, got, config.labels.get(label), tuple(problems)))
    return ReaderView(**base, facts=tuple(items), problems=tuple(loose), sources=_fact_sources(items))


def _same(got: AcceptedFact, fact: Any) -> bool:
    """True when the accepted entry is this very fact (its snippet and source as written)."""
    if got.state == "cited":
        return (fact.get("snippet"), fact.get("source"), fact.get("captureSha256")) == \
            (got.snippet, got.source, got.capture_sha256)
    return fact.get("reason") == got.reason


def _fact_sources(items: Sequence[FactItem]) -> tuple[SourceItem, ...]:
    """The captured revisions the verified facts quote, in order of first use."""
    uses: dict[tuple[str, str], list[AcceptedFact]] = {}
    for item in items:
        if item.status == "verified" and item.fact is not None and item.fact.source and item.fact.capture_sha256:
            uses.setdefault((item.fact.source, item.fact.capture_sha256), []).append(item.fact)
    return tuple(SourceItem(src, sha, facts[0].retrieved_at, len(facts)) for (src, sha), facts in uses.items())


def markdown_view(result: CheckResult, path: str, text: str, config: Config, counts: str) -> ReaderView:
    """The reader view of the Markdown report ``path`` (its ``text``) from
    the check ``result`` of that report alone; ``counts`` as for :func:`fact_view`.

    Every link with an error at its position (CL201, CL202, CL204, CL103,
    CL109...) is flattened to its visible text (as ``check --fix`` would)
    and marked; a quotation link (a ``#:~:text=`` directive) with no finding
    is marked verified. Links that cannot be located are not flattened here,
    so they are never vouched either: the HTML output unlinks them. Every
    finding of the report is listed as well (``problems``).
    """
    # cmark-gfm and ada-url load only for a Markdown report.
    from citelint import urls
    from citelint.links import extract
    from citelint.links.directive import directive_part
    from citelint.links.degrade import apply_ops, degrade_ops

    findings = sorted(f for f in result.findings if f.path == path)
    at: dict[tuple[int, int], list[Finding]] = {}
    for f in findings:
        at.setdefault((f.line, f.col), []).append(f)
    prefix = f"CLMARK{secrets.token_hex(8)}X"
    ops: list[tuple[int, int, str]] = []
    marks: list[LinkMark] = []
    vouched: set[str] = set()
    linked: dict[str, int] = {}
    for link in extract(text):
        here = at.get((link.line, link.col), [])
        errors = tuple(f for f in here if f.severity == "error")
        directive = directive_part(link.href)
        quote = directive is not None and "text=" in directive
        kind = ""
        if errors:
            degrade = degrade_ops(text, link)
            if degrade is None:
                continue  # not located: left as written, and never vouched
            ops.extend(degrade)
            kind = "quote-unverified" if quote else "removed"
        elif link.category == "governed":
            # Only a link the check grounded stays a link; a relative or mailto: one
            # (which a page opened from file:// may resolve anywhere) is unlinked.
            vouched.add(urls.href_escape(link.href))
            linked[link.cited or link.href] = linked.get(link.cited or link.href, 0) + 1
            # A quotation is verified by its own rule (CL204); where the
            # catalog has none, no finding proves nothing about the passage.
            kind = ("quote-verified" if "CL204" in RULES else "quote-unchecked") if quote else ""
        if kind:
            token = f"{prefix}{len(marks)}Z"
            # A bare URL would run on into the token: a space ends it.
            ops.append((link.end, link.end, (" " if link.form == "bare" else "") + token))
            marks.append(LinkMark(token, kind, tuple(here)))
    return ReaderView(path=path, kind="markdown", counts=counts, errors=result.count("error"),
                      warnings=result.count("warning"), markdown=apply_ops(text, ops), marks=tuple(marks),
                      vouched=frozenset(vouched), problems=tuple(findings), token_prefix=prefix,
                      sources=_link_sources(linked, config))


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
        source = by_identity.get(ident) if ident is not None else None
        if source is not None:
            uses[source] = uses.get(source, 0) + count
    store = Store(config.captures_dir)
    items = []
    for source, count in uses.items():
        # Revisions tied for newest are each listed: picking one would be a silent choice.
        for group in store.newest_revisions(source).groups:
            record = max(group, key=revision_key)
            items.append(SourceItem(source, record.sha256, record.retrieved_at, count))
    return tuple(items)
