"""A Markdown report checked: its links (CL201-CL204, and the evidence rules a
link can need), its claims in prose (CL205, CL206), and ``--fix``.

:func:`citelint.check.run.run_check` calls :func:`check_markdown` for each
Markdown target in its first phase; cmark-gfm and ada-url load only here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from citelint.check.loaded import Emitter
from citelint.check.targets import Target, read_target
from citelint.config import Config
from citelint.escape import quoted
from citelint.facts import rejected_message
from citelint.files import WriteRefused, write_output
from citelint.model import (
    RULES,
    AcceptedQuotation,
    CheckResult,
    ClaimSpan,
    Finding,
    FixedLink,
    LinkVerdict,
    Position,
    ReportDetail,
    Severity,
)
from citelint.reports.document import ParseFailure

if TYPE_CHECKING:
    from citelint.evidence.ledger import Ledger
    from citelint.links.grounds import LinkEvidence


def check_markdown(target: Target, display: str, config: Config, evidence: LinkEvidence,
                    result: CheckResult, fix: bool, ledger: Ledger | None = None) -> None:
    """Check one Markdown report's links (CL201–CL204, and CL103, CL109,
    CL401–CL403 for a link whose evidence needs repair: see
    :func:`citelint.links.judge.judge`) and its claims in prose (CL205
    quotations, CL206 numbers: :func:`citelint.links.claims.check_claims`)
    and, with ``fix``, degrade the fixable
    ones. When ``result`` keeps details, the report's text and every link,
    with its verdict, are kept there. ``ledger`` holds the reviews that count
    for its accepted quotations (None: no review counts)."""
    # cmark-gfm and ada-url load only when a Markdown report is checked.
    from citelint import links

    emit = Emitter(config, result, display)
    # The same bound as fact reports, and a FIFO or device is refused, never waited on.
    source = read_target(target)
    if isinstance(source, ParseFailure):
        emit("CL001", Position(source.line, source.col), source.message)
        if result.details is not None:
            result.details[display] = ReportDetail("markdown")
        return
    raw, text = source
    quotes = config.quotes.enabled and config.severity("CL205") != "off"
    numbers = config.severity("CL206") != "off"
    # Claims in prose are verified only against captures; they are read from cmark's XML,
    # rendered from the parse the links are judged from.
    claimed = (quotes or numbers) and evidence.store is not None
    want: Callable[[str], bool] | bool = False
    blocks = None
    if claimed:
        from citelint.links.claimlines import claim_lines
        from citelint.links.prose import may_claim

        # The XML only for a document whose HTML may hold a claim (most hold none), and of
        # only its blocks whose source lines may (most of a document's XML is lists and code).
        want = partial(may_claim, quotes=quotes, numbers=numbers, markdown=text)
        blocks = claim_lines(text, quotes=quotes, numbers=numbers, cited=True,  # as check_claims reads
                             min_chars=config.quotes.min_chars)
    report = links.check(text, evidence, relative=config.links.relative, images=config.links.images,
                         every=result.details is not None, xml=want, keep=blocks)
    result.links += report.links
    result.links_governed += report.governed
    result.links_grounded += report.grounded
    issues = report.issues
    spans: list[ClaimSpan] = []
    if claimed and report.xml:
        # Claims in prose (CL205, CL206): beside the link rules, which judge each link once.
        claims = links.check_claims(text, evidence, config.sources, quotes=quotes, numbers=numbers,
                                    min_chars=config.quotes.min_chars,
                                    min_segment_chars=config.quotes.min_segment_chars,
                                    max_elision_chars=config.quotes.max_elision_chars, xml=report.xml)
        if claims.issues:
            issues = sorted(issues + claims.issues, key=lambda i: (i.line, i.col))
        accepted = claims.accepted
        spans.extend(ClaimSpan("quotation", *span) for span in claims.spans)
    else:
        accepted = []
    if report.quoted:
        # Quotation links whose text CL204 found: reviewed against the sentence they stand in.
        sentences = links.link_sentences(text, [link.start for link, *_ in report.quoted])
        accepted = sorted(accepted + [
            AcceptedQuotation("", link.line, link.col, sentences.get(link.start, ""), passage, source, sha,
                              form="link") for link, source, sha, passage in report.quoted],
            key=lambda a: (a.line, a.col))
    _accept_quotations(emit, result, display, accepted, ledger)
    if fix:
        # Ungrounded and unvouchable links alike are degraded to their text.
        fixable = [i for i in issues if RULES[i.rule].fixable]
        if fixable:
            new_text, removed = links.fix(text, fixable)
            unsafe = _rewrite(target.path, raw, new_text, config) if new_text != text else None
            if unsafe:
                result.warnings_text.append(f"--fix left {display} unchanged: {unsafe}")
                removed = []
            result.fixed.extend(FixedLink(display, i.line, i.col, i.rule, cast(Severity, config.severity(i.rule)),
                                          i.link.href) for i in removed)
            removed_ids = {id(i) for i in removed}
            issues = [i for i in issues if id(i) not in removed_ids]
    keep = result.details is not None
    at_link: dict[int, list[Finding]] = {}  # id(link) -> the findings about it
    failing: set[int] = set()  # id(link) of each link with an error
    for issue in issues:
        finding = emit(issue.rule, Position(issue.line, issue.col, issue.end_line, issue.end_col), issue.message,
                       issue.capture, difference=issue.difference)
        if keep:
            if finding is not None and finding.severity != "notice":
                at_link.setdefault(id(issue.link), []).append(finding)
            # As configured: an error past the per-rule cap, which prints no finding, still fails its link.
            if config.severity(issue.rule) == "error":
                failing.add(id(issue.link))
    emit.close()
    if result.details is not None:
        spans.extend(_unverified_numbers(text, report.located, failing))
        spans.sort(key=lambda span: (span.line, span.col))
        result.details[display] = ReportDetail("markdown", markdown=text, links=tuple(
            LinkVerdict(link, tuple(at_link.get(id(link), ())), id(link) in failing) for link in report.located),
            claims=tuple(spans))


def _unverified_numbers(text: str, located: Sequence[Any], failing: set[int]) -> list[ClaimSpan]:
    """The numbers of ``text`` (as CL206 finds them, in every sentence) that no
    surviving citation backs: each citation of their sentence failed the check
    (its link is in ``failing``, by id) or is not a grounded link, or there is
    none. Only for the reader view: a plain check never pays for it."""
    from citelint.links.prose import cited_numbers

    kept = {(link.start, link.end) for link in located
            if id(link) not in failing and link.category == "governed" and link.located}
    failed = {(link.start, link.end): link.href for link in located if id(link) in failing}
    out = []
    for n in cited_numbers(text, every=True):
        at = [(link.start, link.end) for link in n.citations]
        if any(span in kept for span in at):
            continue
        removed = tuple(dict.fromkeys(failed[span] for span in at if span in failed))
        out.append(ClaimSpan("unverified-number", n.line, n.col, n.line, n.col + len(n.text), removed))
    return out


def _accept_quotations(emit: Emitter, result: CheckResult, display: str,
                       accepted: Sequence[AcceptedQuotation], ledger: Ledger | None = None) -> None:
    """List each quotation of ``display`` whose text was found (prose ones that passed CL205,
    quotation links that passed CL204) in ``result.quotations`` (with its path) and, unless
    ``ledger`` holds a review of it, for semantic review (CL901): citelint proves the words
    are the source's, not that they support the sentence they stand in. One whose review
    says ``does-not-support`` is CL903."""
    for a in accepted:
        what = "quotation link's passage" if a.form == "link" else "quotation"
        verdict = ledger.review(a.fingerprint) if ledger else None
        result.quotations.append(a._replace(path=display, reviewed=verdict))
        if verdict is not None:
            result.reviewed += 1
            if verdict.verdict == "does-not-support":
                result.rejected += 1
                emit("CL903", Position(a.line, a.col), rejected_message(
                    f"{what} {quoted(a.text, 80)} in the sentence {quoted(a.sentence, 160)}", verdict,
                    a.fingerprint), a.capture)
            continue
        several = len(a.insertions) > 1
        inserted = (f"; the insertion{'s' * several} {', '.join(map(quoted, a.insertions))} "
                    f"{'are' if several else 'is'} the author's, not the source's") if a.insertions else ""
        emit("CL901", Position(a.line, a.col), (
            f"{what} {quoted(a.text, 80)} occurs in the capture of {quoted(a.source, 120)} (capture "
            f"{a.capture[:12]}…); citelint does not verify that it supports its sentence {quoted(a.sentence, 160)}"
            f"{inserted}"), a.capture)


def _rewrite(path: Path, raw: bytes, new_text: str, config: Config) -> str | None:
    """Rewrite the checked report ``path`` in place with ``new_text`` (keeping
    its BOM) through the output writer; why it was left unchanged, or None.
    Only an existing regular file reached through no symlink in the project
    is rewritten, never evidence or the config."""
    bom = raw[:3] if raw.startswith(b"\xef\xbb\xbf") else b""
    try:
        write_output(path, bom + new_text.encode("utf-8"), mode="rewrite", root=config.root,
                     protect=lambda p: config.protects(p, reports=False))
    except WriteRefused as exc:
        return exc.why
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
