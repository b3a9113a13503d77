"""Claims in prose verified against the cited captures: CL205 quotations, CL206 numbers (issue 24).

What counts as a quotation, a cited number and their citations is decided
by :mod:`citelint.links.prose` (docs/quotations.md, "Prose quotations and
numbers (detection)"); this module decides whether the captures bear them
out:

- **which captures**: of each citation that is grounded by a capture (a
  citation that is not is CL201's business, or CL103/CL109/CL401-CL403's,
  and a URL allowed by ``links.allow`` alone has no capture to hold
  anything), the revision a ``capture:<sha256>`` title names, else the
  newest revisions (:meth:`~citelint.store.captures.Store.newest_revisions`):
  with a tie the claim must hold in each tied revision, a batch counting
  as one, exactly as for CL204;
- **a quotation** passes when it occurs verbatim in the captures of at
  least one citation, with two allowances and no other: a whitespace run
  equals any other whitespace run (never one holding a page break ``\\f``),
  and a ``.`` or ``,`` just inside the closing mark may be absent from the
  source. Elided segments must occur in order, in one revision, each gap at
  most ``max_elision_chars`` capture characters (at most
  :data:`~citelint.links.prose.MAX_INSERTION_CHARS` where a bracketed
  insertion stands) and holding no ``\\f``;
- **a number** passes when it occurs as a number
  (:func:`~citelint.links.prose.number_occurs`) in the captures of at least
  one citation.

A quotation that is the text of a quotation link (``[“…”](url#:~:text=…)``)
is judged by CL204 alone. A miss explains itself with the near-miss hint
CL104 and CL204 give (:func:`citelint.excerpts.explain_miss_at`), the
capture's nearest passage, and, when the quotation occurs verbatim in the
capture of another source of the run, that source (searched only on a miss,
in config order, under :data:`ELSEWHERE_BUDGET_CHARS`). What a run keeps
between its reports (the sources' newest revisions, the index that search
reads, its answers, flattened captures, explanations, numbers found) is
:mod:`citelint.links.kept`'s.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from citelint.escape import quoted
from citelint.excerpts import (
    Flat,
    MissBudget,
    explain_miss_at,
    flat_quotation,
    flatten,
    may_occur,
    nearest_passage,
    occurs,
)
from citelint.links.grounds import Reason
from citelint.links.kept import KEPT_NUMBERS, SourceIndex, longest_piece, run_kept
from citelint.links.link import LinkIssue
from citelint.links.source import normalise_label
from citelint.model import AcceptedQuotation, Difference
from citelint.store.captures import CaptureCorrupt, CaptureMissing, NewestRevisions
from citelint.urls import CJK_TERMINATORS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from citelint.links.grounds import LinkEvidence
    from citelint.links.link import Link
    from citelint.links.prose import Number, Quotation
    from citelint.store.captures import CaptureRecord

#: Capture text read, per document, when looking for a missed quotation in other sources' captures.
ELSEWHERE_BUDGET_CHARS = 64 * 1024 * 1024
#: Citations a CL205 message explains one by one; the rest are counted.
EXPLAINED_CITATIONS = 3
_TITLE = re.compile(r"""(?:"capture:([^"]*)"|'capture:([^']*)'|\(capture:([^)]*)\))\s*\)\s*\Z""")
_DEFINITION = re.compile(r"""^ {0,3}\[((?:[^\]\\]|\\.)+)\]:[ \t]*(?:\n[ \t]*)?(?:<[^>\n]*>|\S+)[ \t]*(?:\n[ \t]*)?"""
                         r"""(?:"capture:([^"]*)"|'capture:([^']*)'|\(capture:([^)]*)\))[ \t]*$""", re.M)
_REF_LABEL = re.compile(r"\]\[((?:[^\]\\]|\\.)*)\]\Z")


class Claims(NamedTuple):
    """:func:`check_claims`'s answer: the CL205/CL206 ``issues`` and the ``accepted`` quotations,
    each in document order, and each accepted quotation's span in the source (``spans``, in the
    same order: line, column, end line, end column just after its closing mark), for the reader view."""

    issues: list[LinkIssue]
    accepted: list[AcceptedQuotation]
    spans: list[tuple[int, int, int, int]]


class ClaimChecker:
    """Verifies the prose quotations and cited numbers of one Markdown document (CL205, CL206).

    ``markdown`` is the document; ``evidence`` the run's link evidence (its
    ``store`` must be set); ``sources`` the run's approved sources in config
    order (where a missed quotation is looked for); ``max_elision_chars`` as
    ``quotes.max_elision_chars``; ``quotations``: how many quotations of the
    document will be checked at most (None: not known), each searching the
    other sources at most once.
    """

    def __init__(self, markdown: str, evidence: LinkEvidence, sources: Sequence[str],
                 max_elision_chars: int = 1000, quotations: int | None = None) -> None:
        assert evidence.store is not None
        self.markdown, self.evidence, self.store = markdown, evidence, evidence.store
        self.sources = sources
        self.quotations = quotations
        self.max_elision_chars = max_elision_chars
        self._flat: dict[str, Flat] = {}
        self._budgets: dict[str, MissBudget] = {}
        self._revisions: dict[tuple[str, str | None], NewestRevisions | str] = {}
        self._elsewhere_left = ELSEWHERE_BUDGET_CHARS
        self._kept = run_kept(self.store)
        self._line_starts: list[int] | None = None
        self._definitions: dict[str, str] | None = None

    # -- citations and their captures ------------------------------------------------------

    def flat(self, record: CaptureRecord) -> Flat:
        """The flattened text of ``record`` (kept for the document, and for the run while
        :data:`~citelint.links.kept.KEPT_DERIVED_CHARS` allows: a capture is flattened once)."""
        hit = self._flat.get(record.sha256)
        if hit is None:
            hit = self._kept.flats.get(record.sha256)
            if hit is None:
                hit = flatten(record.text)
                if self._kept.keep(len(record.text)):
                    self._kept.flats[record.sha256] = hit
            if len(self._flat) >= 16:
                self._flat.clear()  # bounded memory: a document citing many captures re-flattens
            self._flat[record.sha256] = hit
        return hit

    def grounded(self, citations: Sequence[Link]) -> list[tuple[Link, str, NewestRevisions | str]]:
        """Each citation grounded by a capture, once per (source, named revision), with its
        source and the revisions to check (a :class:`NewestRevisions`), or why there are none
        to check (a sentence: the titled revision is missing or corrupt, or names no digest)."""
        out = []
        seen: set[tuple[str, str | None]] = set()
        for link in citations:
            if link.category != "governed" or self.evidence.decide(link.cited).reason is not Reason.GROUNDED:
                continue
            source = self.evidence.grounding.captured_source(link.cited)
            if source is None:
                continue  # allowed by links.allow alone: no capture holds anything
            named = self._title(link)
            key = (source, named)
            if key in seen:
                continue
            seen.add(key)
            revisions = self._revisions.get(key)
            if revisions is None:
                revisions = self._revisions[key] = self._lookup(source, named)
            out.append((link, source, revisions))
        return out

    def _lookup(self, source: str, named: str | None) -> NewestRevisions | str:
        if named is None:
            revisions = self._kept.of(self.store, source)
            return revisions if revisions.groups else "no capture of this source verifies"
        # Loaded only for a title naming a revision: it imports dataclasses, and with them
        # inspect, ast and dis, which a check loads for nothing else.
        from citelint.links.directive import CAPTURE_WORD, DirectiveError, parse_quotation_title

        try:
            # The title's grammar is parse_quotation_title's; a prose claim uses its revision only.
            revision = parse_quotation_title(CAPTURE_WORD + named).revision
        except DirectiveError as exc:
            return str(exc)
        assert revision is not None
        named = revision
        try:
            return NewestRevisions(((self.store.lookup(source, named),),))
        except CaptureMissing:
            return f"the link title names capture:{named}, which this source has no revision of"
        except CaptureCorrupt as exc:
            return f"the link title names capture:{named[:12]}…, which fails verification ({exc})"

    def _title(self, link: Link) -> str | None:
        """What follows ``capture:`` in the title of ``link`` (inline, or its reference
        definition's), or None when it has no such title."""
        written = self.markdown[link.start:link.end]
        if link.kind == "html" or link.form == "html":
            from citelint.links.locate import raw_attr

            title = raw_attr(written, "title")
            return title[len("capture:"):] if title is not None and title.startswith("capture:") else None
        if link.kind == "inline" or link.form == "inline":
            m = _TITLE.search(written)
            return None if m is None else next(g for g in m.groups() if g is not None)
        if link.kind == "reference" or link.form == "reference":
            m = _REF_LABEL.search(written)
            label = m.group(1) if m is not None and m.group(1) else written.strip("[]")
            if self._definitions is None:
                self._definitions = {}
                for d in _DEFINITION.finditer(self.markdown):
                    value = next(g for g in d.groups()[1:] if g is not None)
                    self._definitions.setdefault(normalise_label(d.group(1)), value)
            return self._definitions.get(normalise_label(label))
        return None

    def offset(self, line: int, col: int) -> int:
        """The code-point offset in the document of 1-based ``line`` and ``col``."""
        if self._line_starts is None:
            starts = [0]
            starts.extend(m.end() for m in re.finditer(r"\r\n|\r|\n", self.markdown))
            self._line_starts = starts
        return self._line_starts[min(line, len(self._line_starts)) - 1] + col - 1

    def in_quotation_link(self, line: int, col: int, citations: Sequence[Link]) -> bool:
        """True when ``line``/``col`` lies in the visible text of one of ``citations`` that is a
        quotation link (``#:~:text=``): that text is CL204's to judge, never CL205's or CL206's."""
        spanned = [link for link in citations if link.text_span is not None]
        if not spanned:
            return False  # (the usual citation: the quotation link module need not load)
        from citelint.links.quote import is_quotation

        return any(is_quotation(link.href) and link.text_span is not None
                   and link.text_span[0] <= self.offset(line, col) < link.text_span[1] for link in spanned)

    # -- CL205 -----------------------------------------------------------------------------

    def quotation(self, q: Quotation) -> LinkIssue | AcceptedQuotation | None:
        """CL205 for the quotation ``q`` (:func:`citelint.links.prose.quotations`): an
        issue; an :class:`~citelint.model.AcceptedQuotation` (its ``path`` left for
        the caller) when it passes; None when it is not this rule's to judge (no
        grounded citation; the text of a quotation link, which CL204 judges). The
        issue is placed at the opening mark; its ``capture`` is the first revision
        checked."""
        if self.in_quotation_link(q.line, q.col, q.citations):
            return None
        cited = self.grounded(q.citations)
        if not cited:
            return None
        link = cited[0][0]
        at = (q.line, q.col, q.end_line, q.end_col)  # the whole quotation, marks included
        shown = quoted(q.text, 80)
        if q.short_segments:
            short = q.short_segments[0]
            return LinkIssue("CL205", link, (
                f"quotation {shown}: segment {quoted(short, 40)} is too short to verify (each segment of an "
                f"elided quotation needs at least quotes.min_segment_chars visible characters); quote more of "
                "the source around it"), *at, fixable=False)
        segments = [flat_quotation(s.text) for s in q.segments]
        if not segments:
            return None  # nothing but elisions: below any min_chars, so never detected
        gaps = self._gaps(q)
        optional_end = q.kind == "marks"
        misses: list[tuple[str, NewestRevisions | str, list[tuple[CaptureRecord, ...]]]] = []
        for _link, source, revisions in cited:
            if isinstance(revisions, str):
                misses.append((source, revisions, []))
                continue
            hits, failed = revisions.split(lambda r: may_occur(r.text, segments, optional_end)
                                           and occurs(self.flat(r), segments, gaps, optional_end))
            if hits and not failed:
                return AcceptedQuotation("", q.line, q.col, q.sentence, q.text, source, hits[0].sha256, None,
                                         q.insertions)
            misses.append((source, revisions, failed))
        message, difference = self._miss_message(q, segments, gaps, optional_end, misses)
        return LinkIssue("CL205", link, message, *at, capture=_first_capture(misses), fixable=False,
                         difference=difference)

    def _gaps(self, q: Quotation) -> list[int]:
        """The most capture characters between each two segments of ``q``: a bracketed insertion
        stands for at most MAX_INSERTION_CHARS, an elision for ``max_elision_chars``."""
        from citelint.links.prose import MAX_INSERTION_CHARS

        gaps = []
        for a, b in zip(q.segments, q.segments[1:]):
            between = q.text[a.start + len(a.text):b.start].strip()
            inserted = between.startswith("[") and between not in ("[...]", "[…]")
            gaps.append(min(MAX_INSERTION_CHARS, self.max_elision_chars) if inserted else self.max_elision_chars)
        return gaps

    def _miss_message(self, q: Quotation, segments: list[str], gaps: list[int], optional_end: bool,
                      misses: list[tuple[str, NewestRevisions | str, list[tuple[CaptureRecord, ...]]]]
                      ) -> tuple[str, Difference | None]:
        """CL205's message for ``q``, and where it and the first explained capture part."""
        parts = []
        first: Difference | None = None
        for source, revisions, failed in misses[:EXPLAINED_CITATIONS]:
            if isinstance(revisions, str):
                parts.append(f"{quoted(source, 120)}: {revisions}")
                continue
            record = failed[0][0]
            which = f"capture {record.sha256[:12]}…"
            if revisions.tied:
                tied = ", ".join(f"capture:{g[0].sha256}" for g in revisions.groups)
                which = (f"capture {record.sha256}, one of {len(revisions.groups)} revisions tied for newest "
                         f"({tied}; the quotation must occur in each: give the link the title "
                         "\"capture:<sha256>\" of the revision it quotes)")
            explained, difference = self._explain(record, segments, gaps)
            first = first or difference
            parts.append(f"the capture of {quoted(source, 120)} ({which}): {explained}")
        more = len(misses) - EXPLAINED_CITATIONS
        if more > 0:
            parts.append(f"and {more} more cited source{'s' * (more > 1)}")
        where = "its cited source" if len(misses) == 1 else f"any of its {len(misses)} cited sources"
        message = f"quotation {quoted(q.text, 80)} does not occur verbatim in {where}: " + "; ".join(parts)
        other = self._elsewhere(segments, gaps, optional_end, {s for s, _, _ in misses})
        if other is not None:
            message += (f"; it occurs in the capture of {quoted(other[0], 120)} (capture {other[1][:12]}…): "
                        "cite that source")
        return message + "; --fix leaves quotations alone", first

    def _explain(self, record: CaptureRecord, segments: list[str], gaps: list[int]) -> tuple[str, Difference | None]:
        """What the capture of ``record`` says instead: the near-miss hint for the first segment
        that does not occur (or why the segments, each found, do not make the quotation), and the
        capture's nearest passage; with both texts where they part (None when each segment occurs)."""
        flat = self.flat(record)
        missing = next((s for s in segments if s not in flat.text), None)
        if missing is None:
            limit = max(gaps) if gaps else 0
            return (f"each of its {len(segments)} segments occurs, but not in this order with at most {limit} "
                    "characters and no page break between them"), None
        budget = self._budgets.get(record.sha256)
        if budget is None:
            budget = self._budgets[record.sha256] = MissBudget(flat.text)
        if not budget.take():
            return f"{budget.why}; quote the capture verbatim", None
        what = "quotation" if len(segments) == 1 else "segment"
        made_by = record.extractor.describe() if record.extractor is not None else None
        # What follows depends on these alone, so a run explains a miss once (the budget above
        # still counts each).
        key = (record.sha256, made_by, what, missing)
        hit = self._kept.explained.get(key)
        if hit is None:
            hint, _, difference = explain_miss_at(missing, flat.text, made_by, what=what)
            if missing.casefold() in flat.text.casefold():
                hint = f"the {what} occurs with other letter case; copy the text exactly from the capture"
            near = nearest_passage(flat.text, missing)
            hit = hint + (f"; the capture has: {quoted(near, len(near) + 2)}" if near else ""), difference
            if self._kept.keep(len(missing) + len(hit[0])):
                self._kept.explained[key] = hit
        return hit

    def _elsewhere(self, segments: list[str], gaps: list[int], optional_end: bool,
                   cited: set[str]) -> tuple[str, str] | None:
        """(source, sha256) of the first other approved source, in config order, whose newest
        revisions hold the quotation, within the document's budget of text read; or None."""
        index = self._index()
        if index is not None:
            key = (tuple(segments), tuple(gaps), optional_end, frozenset(cited))
            if key in index.answers:
                return index.answers[key]
            answer = self._search(index, segments, gaps, optional_end, cited)
            if self._kept.keep(sum(map(len, segments))):
                index.answers[key] = answer
            return answer
        for source in self.sources:
            if source in cited or self._elsewhere_left <= 0:
                continue
            # (no record when no capture of it verifies, as has_source says, read once)
            for record in self._kept.of(self.store, source).records:
                self._elsewhere_left -= len(record.text)
                # Most captures lack a piece of the quotation: ruled out before one is flattened.
                if may_occur(record.text, segments, optional_end) \
                        and occurs(self.flat(record), segments, gaps, optional_end):
                    return source, record.sha256
        return None

    def _search(self, index: SourceIndex, segments: list[str], gaps: list[int], optional_end: bool,
                cited: set[str]) -> tuple[str, str] | None:
        """:meth:`_elsewhere`'s answer from ``index``. Only the captures holding the quotation's
        longest piece can hold it, and they come in the order the search without an index reads
        them. The budget cannot run out: the document's searches together read less (_index)."""
        longest = longest_piece(segments, optional_end)
        for source, record in index.holding(longest) if longest else index.entries:
            if source not in cited and may_occur(record.text, segments, optional_end) \
                    and occurs(self.flat(record), segments, gaps, optional_end):
                return source, record.sha256
        return None

    def _index(self) -> SourceIndex | None:
        """The run's index of the sources' newest revisions, when the document's searches
        cannot exhaust its budget (each reads at most every text once): then a search's
        answer is the same with the index as without; else None."""
        if self.quotations is None:
            return None
        index = self._kept.index(self.store, self.sources)
        if index is None or self.quotations * index.chars >= ELSEWHERE_BUDGET_CHARS:
            return None
        return index

    # -- CL206 -----------------------------------------------------------------------------

    def number(self, n: Number) -> LinkIssue | None:
        """CL206 for the cited number ``n`` (:func:`citelint.links.prose.cited_numbers`), or None
        when a grounded citation's captures hold it, it has no grounded citation, or it is in the
        text of a quotation link (CL204's)."""
        from citelint.links.prose import number_occurs

        if self.in_quotation_link(n.line, n.col, n.citations):
            return None
        cited = self.grounded(n.citations)
        if not cited:
            return None
        checked = []
        first: str | None = None
        for _link, source, revisions in cited:
            if isinstance(revisions, str):
                checked.append(f"{quoted(source, 120)} ({revisions})")
                continue
            hits, failed = revisions.split(lambda r: self._holds(n, r, number_occurs))
            if hits and not failed:
                return None
            first = first or failed[0][0].sha256
            checked.append(quoted(source, 120) + (f" (capture {failed[0][0].sha256[:12]}…)"
                                                   if revisions.tied else ""))
        sources = " or of ".join(checked)
        return LinkIssue("CL206", cited[0][0], (
            f"number {n.shown} does not occur in the capture of {sources}: check the figure against the source"),
            n.line, n.col, n.line, n.col + len(n.text), capture=first, fixable=False)


    def _holds(self, n: Number, record: CaptureRecord, number_occurs: Callable[[Number, str], bool]) -> bool:
        """``number_occurs(n, record.text)``, asked once per run of each capture and reading."""
        key = (record.sha256, n.readings)
        hit = self._kept.numbers.get(key)
        if hit is None:
            hit = number_occurs(n, record.text)
            if len(self._kept.numbers) < KEPT_NUMBERS:
                self._kept.numbers[key] = hit
        return hit


def _first_capture(misses: Sequence[tuple[str, NewestRevisions | str, list[tuple[CaptureRecord, ...]]]]
                   ) -> str | None:
    return next((failed[0][0].sha256 for _, _, failed in misses if failed), None)


def capture_citable(evidence: LinkEvidence) -> Callable[[str], bool]:
    """Whether a link to a destination (an href) may be a citation whose captures are checked,
    under ``evidence``: one a captured source has the identity of. :meth:`ClaimChecker.grounded`
    asks that of the cited URL, which is the destination but for a bare URL cut at CJK
    punctuation: a destination holding CJK punctuation may be citable too."""
    captured = evidence.grounding.captured_source
    seen: dict[str, bool] = {}

    def citable(href: str) -> bool:
        hit = seen.get(href)
        if hit is None:
            hit = seen[href] = captured(href) is not None or not CJK_TERMINATORS.isdisjoint(href)
        return hit

    return citable


def check_claims(markdown: str, evidence: LinkEvidence, sources: Sequence[str], *, quotes: bool = True,
                 numbers: bool = True, min_chars: int = 20, min_segment_chars: int = 12,
                 max_elision_chars: int = 1000, xml: str = "") -> Claims:
    """The CL205 and CL206 issues of the Markdown ``markdown``, and its accepted quotations.

    ``evidence`` is the run's :class:`~citelint.links.grounds.LinkEvidence`
    (without a store nothing is checked); ``sources`` the approved sources
    in config order; ``quotes``/``numbers`` switch each rule's detection;
    the sizes are ``quotes.min_chars``, ``quotes.min_segment_chars`` and
    ``quotes.max_elision_chars``. Each issue's ``link`` is the first grounded
    citation; its position is the opening quotation mark (CL205) or the
    number's first digit (CL206). Raises nothing for any ``str``.
    ``accepted`` lists each quotation that passed, with the capture that holds it.
    ``xml`` is cmark's XML of ``markdown`` when the caller has it
    (:attr:`citelint.links.judge.LinkReport.xml`, of the blocks
    ``claim_lines(markdown, quotes, numbers, cited=True, min_chars=min_chars)`` keeps at least), else
    it is rendered here.
    """
    if evidence.store is None or not (quotes or numbers):
        return Claims([], [], [])
    from citelint.links.prose import claims

    # (cited: a quotation without a citation is judged by nothing here, so it is not even positioned;
    # the count below is then of those with one, still at least the quotations that search)
    found_quotes, found_numbers = claims(markdown, quotes=quotes, numbers=numbers, min_chars=min_chars,
                                         min_segment_chars=min_segment_chars,
                                         citable=capture_citable(evidence), xml=xml, cited=True)
    checker = ClaimChecker(markdown, evidence, sources, max_elision_chars, quotations=len(found_quotes))
    issues: list[LinkIssue] = []
    accepted: list[AcceptedQuotation] = []
    spans: list[tuple[int, int, int, int]] = []
    for q in found_quotes:
        verdict = checker.quotation(q)
        if isinstance(verdict, AcceptedQuotation):
            accepted.append(verdict)
            spans.append((q.line, q.col, q.end_line, q.end_col))
        elif verdict is not None:
            issues.append(verdict)
    for n in found_numbers:
        issue = checker.number(n)
        if issue is not None:
            issues.append(issue)
    issues.sort(key=lambda i: (i.line, i.col))
    return Claims(issues, accepted, spans)
