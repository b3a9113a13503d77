"""Every fact rule: CL003–CL004, CL101–CL106, CL108, CL302, CL401–CL403, CL901 and CL903, logic and messages.

A cited fact is accepted only when its source is approved (exact string),
the capture of exactly (source, captureSha256) exists and verifies, and the
snippet is a verbatim substring of that capture's text. Nothing is ever
borrowed from another capture or another revision; near misses are
explained in the message, never accepted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol

from citelint.escape import is_invisible, quoted, visible_repr
from citelint.excerpts import (
    MIN_SNIPPET_CHARS,
    MissBudget,
    count_overlapping,
    explain_miss_at,
    invisible_message,
    repeated_snippet_message,
    short_message,
    shown_digests,
)
from citelint.fingerprints import fact_fingerprint
from citelint.model import RULES, Difference, LabelInfo, Review
from citelint.store.captures import CaptureCorrupt, CaptureMissing, CaptureRecord, Store

#: Code points of capture text kept on each side of an accepted snippet, so a
#: reviewer sees a few words of where it was taken from.
CONTEXT_CHARS = 80


class Issue(NamedTuple):
    """A rule violation inside a fact report, as the fact rules find it: the
    one issue type between a fact and its :class:`~citelint.model.Finding`,
    which the driver makes of it (:meth:`citelint.check.loaded.LoadedReport.emit_issues`
    locates it and the emitter adds the configured severity).

    ``rule`` and ``message`` are the finding's; ``field`` is the fact key it
    points at ('' for the fact object itself); ``at`` a code-point offset
    into that key's string value to point at instead of its start (CL104:
    the first character that differs from the capture); ``fact_index``
    the fact's place in the facts array; ``difference`` both texts where a
    snippet and its capture part (CL104), when the miss was explained. The rules about one snippet or
    capture write theirs with ``fact_index`` 0, not knowing which fact they
    judge; :func:`verify_snippet` and :func:`verify_group` give each the
    index of its fact.
    """

    rule: str
    field: str
    message: str
    at: int = 0
    fact_index: int = 0
    difference: Difference | None = None


# --------------------------------------------------------------------------- verification

def _short(sha: str) -> str:
    return sha[:12]


def _missing_hint(store: Store, source: str, sha: str) -> str:
    """CL102's message: no capture of (source, sha); other revisions are listed, never used."""
    others = store.recent_revisions(source, limit=3)
    shown = shown_digests([sha] + [r.sha256 for r in others])
    if others:
        listed = ", ".join(f"{shown[r.sha256]} ({r.retrieved_at})" for r in others)
        hint = f"; this source has other revisions, never used in its place: {listed}"
    else:
        hint = "; this source has no capture at all: run `citelint capture` for it"
    return f"no capture of this source with captureSha256 {shown[sha]}{hint}"


def _elsewhere(store: Store, source: str, sha: str, snippet: str) -> str | None:
    """The digest of the newest other revision that does hold the snippet (CL104's hint), or None."""
    elsewhere = store.revisions_containing(source, snippet, exclude=sha, limit=1)
    return elsewhere[-1].sha256 if elsewhere else None


def _newer(store: Store, source: str, record: CaptureRecord) -> list[CaptureRecord]:
    """The newest verified revisions strictly later than ``record`` (what CL106 names; several
    when they tie), or none."""
    return store.newer_revisions(source, record)


_INVISIBLE = Issue("CL108", "snippet", invisible_message("snippet"))


_NO_CONTEXT = ("", "")
#: The elision marks CL205 accepts in prose quotations (``...``, ``…``, ``[...]``, ``[…]``).
_ELISION = re.compile(r"\.\.\.|…")


def verify_snippet(citation: Citation, record: CaptureRecord, store: Store, newer: Sequence[CaptureRecord],
                   budget: MissBudget | None = None, context_chars: int = CONTEXT_CHARS, unique: bool = True
                   ) -> tuple[Sequence[Issue], AcceptedEntry | None]:
    """Verify the visible snippet of ``citation`` against the verified capture
    ``record`` it cites (rules CL104, CL105, CL106); ``newer`` is what
    :func:`_newer` found for the record (several when tied); ``budget`` bounds the near-miss
    explanations of its capture; ``context_chars`` is how much capture text
    (code points) to keep on each side of a found snippet (0: none); ``unique``
    False (CL105 off) skips CL105, the search for a second occurrence included.

    Returns its issues (with the citation's index) and, when the snippet is
    found, its entry: the snippet's offset in the capture, the capture's
    ``retrieved_at`` and the context, no review hints yet. The entry is the
    accepted fact unless a blocking rule or its label rejects it
    (:func:`verify_citations` decides).
    """
    snippet = citation.fact["snippet"]
    text = record.text
    offset = text.find(snippet)
    if offset < 0:
        budget = budget or MissBudget(text)
        made_by = record.extractor.describe() if record.extractor is not None else None
        at, other, difference = 0, None, None
        if budget.take():
            hint, at, difference = explain_miss_at(snippet, text, made_by)
            other = _elsewhere(store, record.source, record.sha256, snippet)
        else:
            hint = f"{budget.why}; quote the capture verbatim"
        shown = shown_digests([record.sha256] + ([other] if other else []))
        if other:
            hint += f"; it does occur in revision {shown[other]} of this source (cite that one)"
        if _ELISION.search(snippet):
            # A prose quotation may elide (CL205); a fact's snippet is the evidence itself.
            hint += ("; a snippet is one contiguous passage of the capture and cannot elide with an "
                     "ellipsis: cite one passage, or each part as a fact of its own")
        return (Issue("CL104", "snippet", f"snippet not found in capture {shown[record.sha256]}: {hint}",
                      at, citation.index, difference),), None
    issues = []
    if not unique:
        pass  # CL105 is off: not even the search for a second occurrence runs
    elif len(snippet) < MIN_SNIPPET_CHARS:
        issues.append(Issue("CL105", "snippet", short_message("snippet", len(snippet))))
    elif text.find(snippet, offset + 1) >= 0:
        issues.append(Issue("CL105", "snippet", repeated_snippet_message(count_overlapping(snippet, text))))
    if len(newer) == 1:
        issues.append(Issue("CL106", "captureSha256",
                             f"a newer capture of this source exists ({_short(newer[0].sha256)}…, "
                             f"{newer[0].retrieved_at}); check the snippet against it and cite it"))
    elif newer:
        # Tied for newest: naming one would pick it by digest order, so all are named, whole.
        listed = ", ".join(r.sha256 for r in newer)
        issues.append(Issue("CL106", "captureSha256",
                             f"{len(newer)} newer captures of this source share the newest retrievedAt "
                             f"({newer[0].retrieved_at}) and are not one batch: {listed}; check the snippet "
                             "against each and cite the one it quotes"))
    if context_chars:
        end = offset + len(snippet)
        context = (text[max(0, offset - context_chars):offset], text[end:end + context_chars])
    else:
        context = _NO_CONTEXT
    found = AcceptedEntry(citation.index, citation.fact, offset, (), record.retrieved_at, context)
    return (_of_fact(issues, citation.index) if issues else ()), found


def verify_group(source: str, sha: str, citations: Sequence[Citation], *, approved: bool, store: Store,
                 context_chars: int = CONTEXT_CHARS, off: frozenset[str] = frozenset()
                 ) -> tuple[CaptureRecord | None, list[tuple[Sequence[Issue], AcceptedEntry | None]]]:
    """Verify every citation of one capture (source, sha), reading the capture once.

    Returns the capture's record (None when it did not resolve: the source is
    not approved, or the file is missing or corrupt) and per citation, in
    order, its issues (rules CL101–CL106, CL108) and its entry when its
    snippet was found, with ``context_chars`` of context (see
    :func:`verify_snippet`). The exactness rules stop at the first failure,
    except that an invisible snippet (CL108) is reported beside a source or
    capture problem, since it does not depend on the capture. The record is
    not kept once the caller drops it: memory holds one capture at a time.
    A rule in ``off`` costs nothing: with CL105 off no second occurrence is
    searched for, with CL106 off the source's other revisions are not listed.
    """
    snippets = [c.fact["snippet"] for c in citations]
    invisible = [(_INVISIBLE,) if is_invisible(s) else () for s in snippets]
    if not approved:
        unapproved = Issue("CL101", "source", f"source {source!r} is not in the approved `sources` of the config "
                                              "(exact match); cite an approved source")
        return None, _unresolved(citations, invisible, unapproved)
    try:
        record = store.lookup(source, sha)
    except CaptureMissing:
        missing = Issue("CL102", "captureSha256", _missing_hint(store, source, sha))
        return None, _unresolved(citations, invisible, missing)
    except CaptureCorrupt as exc:
        corrupt = Issue("CL103", "captureSha256", f"the capture file is corrupt: {exc}; restore it from version "
                                                  "control or capture again")
        return None, _unresolved(citations, invisible, corrupt)
    newer = () if "CL106" in off else _newer(store, source, record)
    budget = MissBudget(record.text)
    unique = "CL105" not in off
    return record, [(_of_fact(inv, c.index), None) if inv else verify_snippet(c, record, store, newer, budget,
                                                                              context_chars, unique)
                    for c, inv in zip(citations, invisible)]


def _of_fact(issues: Sequence[Issue], index: int) -> list[Issue]:
    """``issues`` as issues of the fact at ``index``."""
    return [issue._replace(fact_index=index) for issue in issues]


def _unresolved(citations: Sequence[Citation], invisible: Sequence[tuple[Issue, ...]],
                problem: Issue) -> list[tuple[Sequence[Issue], AcceptedEntry | None]]:
    """Each citation's issues when their capture did not resolve: ``problem``,
    after CL108 if its snippet is invisible."""
    return [(_of_fact(inv + (problem,), c.index), None) for c, inv in zip(citations, invisible)]


def review_hints(label: LabelInfo | None, snippet: str) -> tuple[str, ...]:
    """Semantic-review hints (CL901): label unit and period words missing from the snippet."""
    if label is None or not (label.unit or label.period):
        return ()
    hints = []
    low = snippet.casefold()
    if label.unit and label.unit.casefold() not in low:
        hints.append(f"unit {label.unit!r} does not appear in the snippet")
    if label.period and label.period.casefold() not in low:
        hints.append(f"period {label.period!r} does not appear in the snippet")
    return tuple(hints)


def duplicate_labels(labels: Iterable[tuple[int, str]]) -> Iterator[tuple[int, int, str, str]]:
    """For (index, label) pairs, yield (index, first_index, label, first_label)
    for each repeat (CL004).

    Labels are compared in Unicode NFC: ``claim-\u00e9`` and ``claim-e\u0301``
    render alike, so two facts so labelled are one label twice; ``first_label``
    is the first occurrence as written, which differs from ``label`` only then.
    """
    first: dict[str, tuple[int, str]] = {}
    for index, label in labels:
        # Every ASCII string is already NFC: the common case skips normalize.
        key = label if label.isascii() else unicodedata.normalize("NFC", label)
        seen = first.get(key)
        if seen is not None:
            yield index, seen[0], label, seen[1]
        else:
            first[key] = (index, label)


# --------------------------------------------------------------------------- a report's facts

class BaseLookup(Protocol):
    """What CL302 needs of the base revision (``citelint.git.base.BaseCaptures``)."""

    def shown(self) -> str:
        """The base revision as messages name it (a short commit id)."""

    def has_capture(self, source: str, sha256: str) -> bool:
        """True when the base revision holds the capture (source, sha256)."""


class AcceptedEntry(NamedTuple):
    """A fact that passed every blocking rule, by ``index`` in the facts array.

    Cited facts carry the snippet's code-point ``offset`` in the capture,
    the semantic-review hints ``review``, and the capture's ``retrieved_at``
    and ``context`` (see :func:`verify_snippet`).
    """

    index: int  # type: ignore[assignment]  # a field named like tuple.index, which it hides
    fact: Mapping[str, str]
    offset: int | None = None
    review: tuple[str, ...] = ()
    retrieved_at: str | None = None
    context: tuple[str, str] = ("", "")


class Citation(NamedTuple):
    """A cited fact waiting for its capture: ``index`` in its report's facts
    array; ``rejected`` when its label already failed (not approved, CL003, or
    in a CL004 pair): it is still verified, so every independent problem is
    reported at once, but never accepted."""

    index: int  # type: ignore[assignment]  # a field named like tuple.index, which it hides
    fact: Mapping[str, str]
    rejected: bool = False


class LabelOutcome:
    """What :func:`check_labels` found in one report: issues, accepted
    unavailable facts, the cited facts left to verify, and the counts."""

    def __init__(self, issues: list[Issue], accepted: list[AcceptedEntry], citations: list[Citation],
                 cited: int = 0, unavailable: int = 0):
        self.issues, self.accepted, self.citations = issues, accepted, citations
        self.cited, self.unavailable = cited, unavailable


def label_issue(index: int, label: object, labels: Mapping[str, LabelInfo]) -> Issue | None:
    """CL003 for the fact at ``index`` when its ``label`` (a non-empty string) is
    not approved by ``labels``, else None (a label of another type is the
    schema's business, CL002)."""
    if not isinstance(label, str) or not label or label in labels:
        return None
    hint = ("no labels are approved in the config" if not labels
            else "approve it in the config's `labels` (a name, or a pattern such as `claim-*`) "
                 "or use an approved label")
    return Issue("CL003", "label", f"label {visible_repr(label)} is not approved; {hint}", fact_index=index)


def check_labels(facts: Sequence[tuple[int, Mapping[str, str]]], *, labels: Mapping[str, LabelInfo],
                 line_of: Callable[[int], int] = lambda index: 0) -> LabelOutcome:
    """The rules of one report that need no capture, over its schema-valid ``facts``
    ((index, fact) pairs).

    CL004 (DESIGN §3: a label twice in one report; neither fact of the pair is
    accepted) and CL003 (label not approved; the fact is not verified
    further). Unavailable facts that pass are accepted here; cited ones are
    returned as citations for :func:`verify_citations`, which groups them by
    capture; a cited fact whose label failed is returned too (``rejected``),
    so its source and snippet problems are reported in the same run.
    ``line_of(index)`` is a fact's 1-based line, used only in the CL004
    message naming the first occurrence.
    """
    outcome = LabelOutcome([], [], [])
    duplicated: set[str] = set()
    names = [f["label"] for _, f in facts]
    # Distinct ASCII strings are distinct in NFC too: most reports need no normalising walk.
    repeats = len(set(names)) != len(names) or not all(map(str.isascii, names))
    for index, first, label, first_label in duplicate_labels((i, f["label"]) for i, f in facts) if repeats else ():
        duplicated.update((label, first_label))
        how = "" if label == first_label else \
            f" as {visible_repr(first_label)}, which differs only in Unicode normalization (NFC)"
        outcome.issues.append(Issue("CL004", "label", f"label {visible_repr(label)} appears again (first at line "
                                                      f"{line_of(first)}{how}); keep one fact per label",
                                    fact_index=index))
    for index, fact in facts:
        cited = fact["state"] == "cited"
        if cited:
            outcome.cited += 1
        else:
            outcome.unavailable += 1
        label = fact["label"]
        approved = label in labels
        if not approved:
            unapproved = label_issue(index, label, labels)
            if unapproved is not None:
                outcome.issues.append(unapproved)
            approved = unapproved is None
        if cited:
            outcome.citations.append(Citation(index, fact, not approved or label in duplicated))
        elif approved and label not in duplicated:
            outcome.accepted.append(AcceptedEntry(index, fact))
    return outcome


def verify_citations(citations: Sequence[Citation], *, labels: Mapping[str, LabelInfo],
                     approved: Callable[[str], bool], store: Store, base: BaseLookup | None = None,
                     untracked: Callable[[str, str], str | None] | None = None,
                     signatures: Callable[[CaptureRecord], list[tuple[str, str]]] | None = None,
                     context_chars: int = CONTEXT_CHARS, off: frozenset[str] = frozenset(),
                     hints: bool = True) -> Iterator[tuple[Citation, Sequence[Issue], AcceptedEntry | None]]:
    """Verify cited facts that all cite one capture (same source and captureSha256).

    Yields, per citation in order, its issues and its accepted entry (None
    when a blocking rule rejected it or its label is in a CL004 pair).
    Rules: CL101–CL106 and CL108 through :func:`verify_group` (one capture
    read for the group), CL302 (``base`` given: the capture is not on the
    base revision), CL109 (``untracked(source, sha)`` names the capture file
    git neither tracks nor has staged), CL401–CL403 (``signatures(record)``
    gives the (rule, message) findings of the capture's signatures, see
    :class:`citelint.evidence.verify.EvidenceVerifier`; asked once per capture, not
    per fact). A fact with an issue of any blocking rule is not accepted;
    each accepted one is listed for semantic review (CL901, :func:`review_notice`)
    with ``context_chars`` code points of capture text on each side. ``off``
    names rules switched off, whose work is skipped (:func:`verify_group`).
    ``hints`` False leaves out the review hints of accepted entries, for a
    caller that only counts them.
    """
    if not citations:
        return
    source, sha = citations[0].fact["source"], citations[0].fact["captureSha256"]
    record, outcomes = verify_group(source, sha, citations, approved=approved(source), store=store,
                                    context_chars=context_chars, off=off)
    # Findings about the capture itself, the same for every fact citing it: (rule, field, message).
    about_capture: list[tuple[str, str, str]] = []
    if base is not None and record is not None and not base.has_capture(source, sha):
        # The capture exists in the working tree but not on the base: the
        # evidence arrives in the same change as the claim leaning on it.
        about_capture.append((
            "CL302", "captureSha256",
            f"capture {_short(sha)}… is not on the base revision {base.shown()} "
            "(require_captures_on_base); merge the capture in its own change first, then the report"))
    not_in_git = untracked(source, sha) if untracked is not None and record is not None else None
    if not_in_git:
        about_capture.append((
            "CL109", "captureSha256",
            f"capture {_short(sha)}… ({not_in_git}) is neither committed nor staged in git, so this check "
            f"passes here and fails in a clean clone; run `git add {not_in_git}`"))
    if signatures is not None and record is not None:
        about_capture.extend((rule, "captureSha256", message) for rule, message in signatures(record))
    del record  # memory holds one capture at a time
    for citation, (found, entry) in zip(citations, outcomes):
        issues: Sequence[Issue]
        if about_capture:
            issues = [*found, *(Issue(rule, field, message, fact_index=citation.index)
                                for rule, field, message in about_capture)]
        else:
            issues = found or ()  # most citations: one shared empty tuple, not a list each
        if entry is None or citation.rejected or (issues and any(RULES[i.rule].blocking for i in issues)):
            # Not found, a label that failed (CL003), or either fact of a CL004 pair: not accepted.
            yield citation, issues, None
            continue
        review = review_hints(labels.get(entry.fact["label"]), entry.fact["snippet"]) if hints else ()
        yield citation, issues, entry._replace(review=review) if review else entry


def review_notice(entry: AcceptedEntry) -> Issue:
    """The semantic-review notice (CL901) of an accepted cited fact: its label
    is not verified, only its excerpt; the entry's review hints say what to look at."""
    return Issue("CL901", "", review_message(entry.fact["label"], entry.review), fact_index=entry.index)


def review_message(label: str, hints: Sequence[str]) -> str:
    """CL901's message for an accepted cited fact labelled ``label`` with the
    review hints ``hints`` (:func:`review_hints`; none: the generic one). The
    merge of shards makes the notices of report files from this too."""
    detail = "; ".join(hints) if hints else "check that the snippet supports this label"
    return f"label {label!r} is not verified by citelint, only the excerpt: {detail}"


def entry_fingerprint(entry: AcceptedEntry) -> str:
    """The review fingerprint of an accepted cited fact (:func:`citelint.fingerprints.fact_fingerprint`)."""
    fact = entry.fact
    return fact_fingerprint(fact["label"], fact["source"], fact["captureSha256"], fact["snippet"])


def rejected_message(what: str, review: Review, fingerprint: str) -> str:
    """CL903's message: ``what`` (the citation, in words) was reviewed as not
    supporting what it is cited for, by whom, when and why, and what to do."""
    note = f": {quoted(review.note, 300)}" if review.note else ""
    return (f"{what} was judged in review not to support what it is cited for (does-not-support) by "
            f"{quoted(review.by, 80)} at {review.at}{note}; correct the citation (a changed one goes back on the "
            f"review list), or if the review was wrong record a new one: `citelint review --approve "
            f"{fingerprint[:16]} --by NAME`")


def rejected_issue(entry: AcceptedEntry, review: Review, fingerprint: str) -> Issue:
    """The CL903 issue of an accepted cited fact whose latest review says ``does-not-support``."""
    return Issue("CL903", "", rejected_message(f"label {entry.fact['label']!r}", review, fingerprint),
                 fact_index=entry.index)
