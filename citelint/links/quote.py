"""Quotations: links whose URL carries a text directive (CL204; DESIGN §9).

``[words](https://example.org/page#:~:text=start "capture:<sha256>")`` quotes
the passage ``start`` of that source. The source is grounded by identity as
any link is (the fragment is not part of identity); this module verifies the
quoted text against the capture:

- the revision is the one the link title names as ``capture:<64 hex>``
  (the title's grammar: :func:`citelint.links.directive.parse_quotation_title`), else
  the newest revision and its batch siblings
  (:meth:`citelint.store.captures.Store.newest_revisions`), any of which may hold
  the passage; when several revisions (not one batch) share the newest
  ``retrievedAt``, the passage must occur in each of them, since nothing says
  which one the author quoted; a named revision that is missing or corrupt is
  a CL204, never replaced by another;
- with ``pages:3-4`` in the title (a page-located citation of a PDF), the
  quotation must occur within those pages of the capture, as its page map
  (:func:`citelint.store.record.page_map`) places them; found only on
  another page, it is a CL204 that names the page it is on;
- each ``text=`` directive must match **verbatim** (percent-decoded, no case
  folding, no normalisation, no word boundaries): ``start`` occurs; ``end``
  occurs after the end of ``start``; ``prefix`` is immediately before
  ``start`` and ``suffix`` immediately after the last term, with only
  whitespace between, as the URL Fragment Text Directive specification
  allows ("find a range from a text directive"); every directive of the
  link must match in the same revision;
- the fact-snippet rules apply to the directive text: CL108 for a term
  without a visible character, CL105 for a start term shorter than
  :data:`citelint.excerpts.MIN_SNIPPET_CHARS` or a directive that matches more
  than one passage (a unique prefix + start is not ambiguous).

For ``start,end`` only the two ends and their order are verified, not the
text between them; the messages say so. A miss is explained as a fact
snippet's is (:func:`citelint.excerpts.explain_miss_at`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citelint.escape import is_invisible, quoted
from citelint.excerpts import (
    MIN_SNIPPET_CHARS,
    MissBudget,
    explain_miss,
    explain_miss_at,
    invisible_message,
    repeated_quotation_message,
    short_message,
    shown_digests,
)
from citelint.links.directive import (
    DirectiveError,
    TextDirective,
    directive_part,
    parse_directives,
    parse_quotation_title,
)
from citelint.links.link import Link, LinkIssue
from citelint.links.locate import raw_attr, raw_tag
from citelint.model import RULES
from citelint.store.captures import CaptureCorrupt, CaptureMissing, NewestRevisions, revision_key
from citelint.store.record import page_map

if TYPE_CHECKING:
    from collections.abc import Callable

    from citelint.links.allowlist import Allowlist
    from citelint.store.captures import CaptureRecord, Store

_CMARK_TITLE = re.compile(r'<a href="[^"]*" title="([^"]*)">')
#: Passages counted for CL105's "matches N passages"; past it the count says "at least".
COUNT_LIMIT = 1000
_RANGE_NOTE = ("; for a start,end range only the two ends and their order are verified, "
               "not the text between them")


def is_quotation(href: str) -> bool:
    """True when ``href`` carries a fragment directive (``#…:~:…``): a quotation link."""
    return directive_part(href) is not None


def link_title(out: str, tag: re.Match[str]) -> str | None:
    """The ``title`` of the anchor ``tag`` of cmark's HTML ``out``, as a browser reads it, or None.

    ``tag`` is a match of :func:`citelint.links.render._scan`. cmark writes
    the title of an inline link and of a reference definition alike, as
    ``<a href="…" title="…">`` with entities escaped; a raw ``<a>`` keeps its
    own attributes. Never raises.
    """
    if tag.group(1) is not None:
        m = _CMARK_TITLE.match(out, tag.start())
        if m is None:
            return None
        value = m.group(1)
        return html.unescape(value) if "&" in value else value
    raw = raw_tag(out, tag.start(), False)
    return None if raw is None else raw_attr(raw[0], "title")


def pages_shown(pages: tuple[int, int]) -> str:
    """``page 3`` or ``pages 3-4``, as messages name a title's pages."""
    return f"page {pages[0]}" if pages[0] == pages[1] else f"pages {pages[0]}-{pages[1]}"


def page_text(record: CaptureRecord, pages: tuple[int, int] | None) -> str | None:
    """The text of ``record`` on ``pages`` (first, last; 1-based, inclusive),
    the whole text when ``pages`` is None, or None when the capture has no
    such pages (not a paged text, fewer pages, or a page map that disagrees
    with its text)."""
    if pages is None:
        return record.text
    try:
        found = page_map(record.text, record.extractor)
    except CaptureCorrupt:
        return None
    if found is None or pages[1] > len(found.starts):
        return None
    start, end = found.span(pages[0], pages[1], len(record.text))
    return record.text[start:end]


def _adjacent(before: str | None, term: str, after: str | None) -> re.Pattern[str]:
    """A pattern matching, without consuming text, where ``term`` occurs (group 1) with ``before``
    and only whitespace just before it and ``after`` likewise just after it (either may be None)."""
    head = re.escape(before) + r"\s*" if before is not None else ""
    tail = r"\s*" + re.escape(after) if after is not None else ""
    # A lookahead matches at every offset, so overlapping occurrences all count.
    return re.compile(f"(?={head}({re.escape(term)}){tail})")


def match_spans(text: str, directive: TextDirective, limit: int = COUNT_LIMIT) -> list[tuple[int, int]]:
    """The passages of ``text`` that ``directive`` matches, verbatim, as (start, end) code-point offsets.

    A passage begins where ``start`` occurs (overlapping occurrences count,
    as for fact snippets) with ``prefix`` and whitespace just before it; it
    ends after ``start``, or with ``end`` the first occurrence of ``end``
    after ``start`` whose text is followed by whitespace and ``suffix``. At
    most ``limit`` passages are returned, in text order. The scanning is
    done by the regular-expression engine, so a term that occurs millions of
    times costs milliseconds, not a Python loop. Never raises.
    """
    start, end, prefix, suffix = directive.start, directive.end, directive.prefix, directive.suffix
    spans: list[tuple[int, int]] = []
    if prefix is None and suffix is None and end is None:
        at = text.find(start)
        while at >= 0 and len(spans) < limit:
            spans.append((at, at + len(start)))
            at = text.find(start, at + 1)
        return spans
    starts = _adjacent(prefix, start, None if end is not None else suffix)
    ends = _adjacent(None, end, suffix) if end is not None else None
    seen: set[int] = set()
    found_end: re.Match[str] | None = None
    for m in starts.finditer(text):
        at = m.start(1)
        if at in seen:
            continue  # the same start reached from another prefix occurrence
        seen.add(at)
        stop = at + len(start)
        if ends is None:
            spans.append((at, stop))
        else:
            # The first end at or after ``stop`` stays the first for every later
            # start until a start passes it: search again only then.
            if found_end is None or found_end.start(1) < stop:
                found_end = ends.search(text, stop)
                if found_end is None:
                    break  # a later start has only these ends after it
            spans.append((at, found_end.end(1)))
        if len(spans) >= limit:
            break
    return spans


@dataclass(frozen=True)
class _Miss:
    """Why a directive does not match a capture: the term that fails, its name (``start term``,
    ``prefix``, ``end term``, ``suffix``: what a hint about it must call it) and what to say."""

    term: str
    name: str
    what: str


def _diagnose(text: str, d: TextDirective) -> _Miss:
    """The first term of ``d`` that fails against ``text``, in the order a reader checks them."""
    first = text.find(d.start)
    if first < 0:
        return _Miss(d.start, "start term", f"the start term {quoted(d.start, 80)} does not occur")
    if d.prefix is not None:
        m = _adjacent(d.prefix, d.start, None).search(text)
        if m is None:
            return _Miss(d.prefix, "prefix", f"the start term occurs, but never right after the prefix "
                                             f"{quoted(d.prefix, 80)} (only whitespace may come between them)")
        first = m.start(1)
    # With a prefix, the start term that counts is one right after it: say so, since the
    # other occurrences of the start term are no part of the claim.
    after_prefix = " right after the prefix" if d.prefix is not None else ""
    if d.end is not None and text.find(d.end, first + len(d.start)) < 0:
        return _Miss(d.end, "end term", f"the end term {quoted(d.end, 80)} occurs "
                                        f"{_end_placement(text, d.end, first, after_prefix)}; it must follow "
                                        f"the start term{after_prefix}")
    last = "end term" if d.end is not None else f"start term{after_prefix}"
    return _Miss(d.suffix or "", "suffix", f"the suffix {quoted(d.suffix or '', 80)} does not follow the "
                                           f"{last} (only whitespace may come between)")


def _end_placement(text: str, end: str, first: int, after_prefix: str) -> str:
    """Where ``end`` occurs in ``text``, none of it after the start term that
    begins at ``first``: nowhere, only before it, only where it is (an end
    term that overlaps the start term, such as the same words, begins before
    the start term ends), or both."""
    earliest, last = text.find(end), text.rfind(end)
    if earliest < 0:
        return "nowhere"
    start = f"the start term{after_prefix}"
    if last < first:
        return f"only before {start}"
    within = f"only where {start} is (overlapping it), never after it"
    return within if earliest >= first else f"only before {start} or where it is (overlapping it), never after it"


class QuotationChecker:
    """Verifies the quotation links of one Markdown document (CL204, with CL105, CL108 and CL202).

    ``allowlist`` is the run's grounding allowlist (it names the captured
    source a link's identity belongs to); ``store`` the capture store, read
    only. Near-miss explanations are budgeted per capture for the document,
    as for fact snippets (:class:`citelint.excerpts.MissBudget`).
    ``signature_issues(record)`` gives the (rule, message) signed-evidence
    findings (CL401-CL403) of the capture a quotation was verified in; they
    are reported at the link, so a quotation leaning on an unsigned revision
    is caught even when another revision of its source is signed.
    """

    def __init__(self, allowlist: Allowlist, store: Store,
                 signature_issues: Callable[[CaptureRecord], list[tuple[str, str]]] | None = None) -> None:
        self.allowlist, self.store = allowlist, store
        self.signature_issues = signature_issues
        self._budgets: dict[str, MissBudget] = {}
        #: Each quotation link whose text was found: (link, source, capture sha256, the quoted
        #: passage), in the order checked, for the accepted list and semantic review.
        self.accepted: list[tuple[Link, str, str, str]] = []

    def check(self, link: Link, title: str | None) -> list[LinkIssue]:
        """The issues of one grounded quotation ``link`` whose anchor has ``title`` (None: no title).

        Returns, in order: CL202 for a directive that does not parse or a
        ``capture:`` title that names no digest (``fixable`` False: the
        source is grounded, the author fixes the quote); CL108 per invisible
        term; CL204 when there is no capture to verify against (an allowed
        URL, a named revision missing or corrupt) or the quoted text is not
        found; CL105 when it is found but is short or ambiguous. CL204 and
        CL105 carry the revision checked in ``capture``. Never raises.
        """
        at = (link.line, link.col, link.end_line, link.end_col)
        part = directive_part(link.href)
        if part is None:
            return []
        try:
            directives = parse_directives(part)
            claim = parse_quotation_title(title)
        except DirectiveError as exc:
            return [LinkIssue("CL202", link, f"malformed quotation {_show_url(link.href)}: {exc}", *at,
                              fixable=False)]
        issues: list[LinkIssue] = []
        visible = []
        for d in directives:
            blank = [name for name, term in (("prefix", d.prefix), ("start", d.start), ("end", d.end),
                                             ("suffix", d.suffix)) if term is not None and is_invisible(term)]
            for name in blank:
                issues.append(LinkIssue("CL108", link, invisible_message(f"the quoted {name} term"), *at))
            if not blank:
                visible.append(d)
        if not visible:
            return issues
        source = self.allowlist.captured_source(link.cited)
        if source is None:
            return issues + [LinkIssue("CL204", link, (
                f"quotation of {_show_url(link.href)}: the URL is allowed by `links.allow` but has no capture, "
                "so there is nothing to verify the quoted text against; capture the source, or link it without "
                "a text directive"), *at)]
        named, pages = claim.revision, claim.pages
        revisions = self._revisions(source, named, link)
        if isinstance(revisions, LinkIssue):
            return issues + [revisions]
        if not revisions.groups:  # every revision failed verification after grounding found one
            return issues + [LinkIssue("CL204", link, (
                f"quotation of {_show_url(link.href)}: no capture of this source verifies, so there is nothing "
                "to verify the quoted text against; restore the captures from version control or capture the "
                "source again"), *at)]
        ranged = any(d.end is not None for d in visible)
        note = _RANGE_NOTE if ranged else ""
        def holds(record: CaptureRecord) -> bool:
            text = page_text(record, pages)
            return text is not None and all(match_spans(text, d, limit=1) for d in visible)

        hits, failed = revisions.split(holds)
        if failed or not hits:
            if pages is not None:
                return issues + [self._off_pages(link, visible, failed[0][0] if failed else hits[0], pages, named)]
            return issues + [self._miss(link, visible, revisions, failed, hits, named is not None, source, note)]
        # Found in every group (with a tie, in each tied revision): each is relied upon.
        seen: set[tuple[str, str]] = set()
        for record in hits:
            scope = page_text(record, pages)
            assert scope is not None  # holds() found it there
            found = [match_spans(scope, d) for d in visible]
            for weak in self._weak(link, visible, found, record, note):
                key = (weak.rule, weak.message.replace(record.sha256[:12], ""))
                if key not in seen:  # a short start term is short in every revision: said once
                    seen.add(key)
                    issues.append(weak)
        for record in hits:
            issues += [LinkIssue(rule, link, message, *at, capture=record.sha256, fixable=False)
                       for rule, message in (self.signature_issues(record) if self.signature_issues else ())]
        if not any(RULES[i.rule].blocking for i in issues):  # as for a fact: any blocking issue rejects it
            self.accepted.append((link, source, hits[0].sha256, _passage(hits[0].text, visible)))
        return issues

    def _revisions(self, source: str, named: str | None, link: Link) -> NewestRevisions | LinkIssue:
        """The revisions to check: the named one, else the newest (a group per tied revision,
        each with its batch siblings)."""
        at = (link.line, link.col, link.end_line, link.end_col)
        if named is None:
            return self.store.newest_revisions(source)
        try:
            return NewestRevisions(((self.store.lookup(source, named),),))
        except CaptureMissing:
            # The newest revisions, as an untitled quotation would be checked against: each of a tie.
            heads = [max(g, key=revision_key) for g in self.store.newest_revisions(source).groups]
            listed = ", ".join(f"capture:{r.sha256}" for r in heads)
            hint = ("" if not heads else f"; its newest revision is {listed} ({heads[0].retrieved_at})"
                    if len(heads) == 1 else f"; its newest revisions, tied at {heads[0].retrieved_at}, are {listed}")
            # Beside the newest revision's digest, the title's is shown whole: the two are compared.
            title = shown_digests([named] + [r.sha256 for r in heads])[named]
            return LinkIssue("CL204", link, (
                f"the link title names capture:{title}, but {_show_url(source)} has no such revision, and "
                f"no other revision is used in its place; name a revision that exists{hint}"), *at, capture=named)
        except CaptureCorrupt as exc:
            return LinkIssue("CL204", link, (
                f"the link title names capture:{named[:12]}…, but that capture fails verification ({exc}); "
                "restore it from version control or capture the source again"), *at, capture=named)

    def _weak(self, link: Link, visible: list[TextDirective], found: list[list[tuple[int, int]]],
              record: CaptureRecord, note: str) -> list[LinkIssue]:
        """CL105 for a found quotation whose start term is short or which matches several passages."""
        at = (link.line, link.col, link.end_line, link.end_col)
        out = []
        for d, spans in zip(visible, found):
            if len(d.start) < MIN_SNIPPET_CHARS:
                out.append(LinkIssue("CL105", link, short_message(
                    f"the quoted start term {quoted(d.start, 40)}", len(d.start),
                    f" in capture {record.sha256[:12]}…{note}"), *at, capture=record.sha256))
            elif len(spans) > 1:
                count = f"at least {COUNT_LIMIT}" if len(spans) >= COUNT_LIMIT else str(len(spans))
                out.append(LinkIssue("CL105", link, repeated_quotation_message(d.start, count, record.sha256, note),
                                     *at, capture=record.sha256))
        return out

    def _miss(self, link: Link, visible: list[TextDirective], revisions: NewestRevisions,
              failed: list[tuple[CaptureRecord, ...]], hits: list[CaptureRecord], named: bool,
              source: str, note: str) -> LinkIssue:
        """CL204 for a quotation missing from the ``failed`` groups of ``revisions`` (found in
        ``hits``, one per other group), explained against the first failed revision."""
        at = (link.line, link.col, link.end_line, link.end_col)
        group = failed[0]
        record = group[0]
        text = record.text
        failing = next(d for d in visible if not match_spans(text, d, limit=1))
        miss = _diagnose(text, failing)
        budget = self._budgets.get(record.sha256)
        if budget is None:
            budget = self._budgets[record.sha256] = MissBudget(text)
        difference = None
        if miss.term in text:
            hint = "quote the capture verbatim"
        elif budget.take():
            made_by = record.extractor.describe() if record.extractor is not None else None
            hint, _, difference = explain_miss_at(miss.term, text, made_by, what=miss.name)
            if miss.term.casefold() in text.casefold():
                hint = (f"the {miss.name} occurs with other letter case: browsers fold case, citelint does not; "
                        "copy the text exactly from the capture")
        else:
            hint = f"{budget.why}; quote the capture verbatim"
        siblings = (f" or its {len(group) - 1} batch sibling{'s' * (len(group) > 2)}" if len(group) > 1 else "")
        if revisions.tied:
            # Several revisions share the newest retrievedAt: none is "the newest", so the
            # quotation must hold in each, and the fix is to say which one it quotes. Every
            # digest is whole: the reader compares them.
            tied = ", ".join(f"capture:{g[0].sha256}" + (f" (batch of {len(g)})" if len(g) > 1 else "")
                             for g in revisions.groups)
            only = ("; it occurs in " + ", ".join(f"capture:{r.sha256}" for r in hits) + " only") if hits else ""
            return LinkIssue("CL204", link, (
                f"quotation not found in every newest revision of this source: {len(revisions.groups)} revisions "
                f"share its newest retrievedAt ({record.retrieved_at}) and are not one batch ({tied}), so a "
                f"quotation with no capture: title must occur in each of them; in capture {record.sha256}"
                f"{siblings}: {miss.what}; {hint}{only}{note}; give the link the title \"capture:<sha256>\" of the "
                "revision it quotes; --fix leaves this link alone"), *at, capture=record.sha256,
                             difference=difference)
        other = self._elsewhere(source, visible, revisions)
        shown = shown_digests([record.sha256] + ([other.sha256] if other else []))[record.sha256]
        if named:
            which = f"capture {shown} (named by the link title)"
        else:
            which = f"capture {shown}{siblings} (the newest revision of this source)"
        elsewhere = (f"; it does occur in the revision of {other.retrieved_at} of this source: quote that "
                     f"one with the link title \"capture:{other.sha256}\"") if other else ""
        return LinkIssue("CL204", link, (
            f"quotation not found in {which}: {miss.what}; {hint}{elsewhere}"
            f"{note}; --fix leaves this link alone"), *at, capture=record.sha256, difference=difference)

    def _off_pages(self, link: Link, visible: list[TextDirective], record: CaptureRecord, pages: tuple[int, int],
                   named: str | None) -> LinkIssue:
        """CL204 for a page-located quotation not found on ``pages`` of ``record``: the capture
        has no such pages, or the quotation is on another page (named), or nowhere."""
        at = (link.line, link.col, link.end_line, link.end_col)
        which = f"capture {record.sha256[:12]}…" + (" (named by the link title)" if named else
                                                    " (the newest revision of this source)")
        wanted = pages_shown(pages)
        try:
            found = page_map(record.text, record.extractor)
        except CaptureCorrupt as exc:
            found, broken = None, f" ({exc})"
        else:
            broken = ""
        if found is None:
            return LinkIssue("CL204", link, (
                f"the link title names {wanted}, but {which} is not a text with pages{broken}: page-located "
                "quotations are checked against a PDF capture; --fix leaves this link alone"), *at,
                capture=record.sha256)
        if pages[1] > len(found.starts):
            return LinkIssue("CL204", link, (
                f"the link title names {wanted}, but {which} has {len(found.starts)} page"
                f"{'s' * (len(found.starts) != 1)}; --fix leaves this link alone"), *at, capture=record.sha256)
        spans = [match_spans(record.text, d, limit=1) for d in visible]
        if all(spans):
            on = found.shown(found.page_of(spans[0][0][0]))
            return LinkIssue("CL204", link, (
                f"quotation not found on {wanted} of {which}, which the link title names: it is on {on}; "
                f"correct the title's pages:, or quote what {wanted} say; --fix leaves this link alone"), *at,
                capture=record.sha256)
        scope = page_text(record, pages) or ""
        failing = next(d for d in visible if not match_spans(scope, d, limit=1))
        miss = _diagnose(scope, failing)
        made_by = record.extractor.describe() if record.extractor is not None else None
        hint = explain_miss(miss.term, scope, made_by, what=miss.name)
        return LinkIssue("CL204", link, (
            f"quotation not found on {wanted} of {which}: {miss.what}; {hint}; --fix leaves this link alone"),
            *at, capture=record.sha256)

    def _elsewhere(self, source: str, visible: list[TextDirective], revisions: NewestRevisions
                   ) -> CaptureRecord | None:
        """Another revision that holds the whole quotation (for the CL204 hint), or None."""
        checked = [r.sha256 for r in revisions.records]
        for other in self.store.revisions_containing(source, visible[0].start, exclude=checked[0], limit=3):
            if other.sha256 not in checked and all(match_spans(other.text, d, limit=1) for d in visible):
                return other
        return None


def _passage(text: str, visible: list[TextDirective]) -> str:
    """What the directives ``visible`` quote of the capture ``text``: each one's first passage,
    whitespace runs as one space, several joined by `` … `` (the reader's elision)."""
    parts = []
    for d in visible:
        spans = match_spans(text, d, limit=1)
        if spans:
            parts.append(" ".join(text[spans[0][0]:spans[0][1]].split()))
    return " … ".join(parts)


def _show_url(url: str) -> str:
    return quoted(url, 200)
