"""Plain data shared by every part of citelint: rules, findings, facts, results,
settings.

Nothing here reads files or imports a third-party library, so every other
module may depend on this one (DESIGN §7: dependencies point towards model).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from citelint.fingerprints import fact_fingerprint, quotation_fingerprint

Severity = Literal["error", "warning", "notice"]

#: Severities from most to least severe; "off" is a configuration value only.
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "notice": 2}

DOCS_URL = "https://github.com/citelint/citelint/blob/main/docs/rules.md"


class Rule(NamedTuple):
    """One entry of the rule catalog.

    The fields are the rule's properties; code asks them rather than
    listing rule ids:

    - ``locked``: part of the product's guarantee (DESIGN §2.1): configuration
      may raise the severity but never lower it or turn the rule off.
    - ``blocking``: a finding rejects the fact or link it is about. Advisory
      rules (False) leave the citation accepted: it is still listed for
      semantic review and still grounds a link.
    - ``fixable``: ``check --fix`` can remove the offending link.
    - ``needs_base``: only runs with ``check --base REF``.
    - ``enabled_by``: the boolean config key without which the rule is off.
    - ``bad`` and ``good``: short examples shown by ``citelint rule``.
    - ``why``: why the rule exists (what would go wrong without it);
      ``fix``: how to fix a finding. Both are shown by ``citelint rule``,
      docs/rules.md and SARIF rule help.
    """

    id: str
    name: str
    severity: Severity
    summary: str
    locked: bool = False
    blocking: bool = True
    fixable: bool = False
    needs_base: bool = False
    enabled_by: str | None = None
    bad: str = ""
    good: str = ""
    why: str = ""
    fix: str = ""

    @property
    def help_uri(self) -> str:
        """Link to the rule's section of docs/rules.md (GitHub's heading anchor)."""
        return f"{DOCS_URL}#{self.id.lower()}-{self.name}"


def _load_catalog() -> dict[str, Rule]:
    """The rule catalog from ``citelint/rules.json``, shipped in the package.

    The catalog is data (ids, names, severities, properties, prose), so it
    lives in one JSON file that the README table, ``docs/rules.md``, SARIF
    and ``citelint rule`` are all generated from or tested against.
    """
    entries = json.loads(Path(__file__).with_name("rules.json").read_text(encoding="utf-8"))
    return {entry["id"]: Rule(**entry) for entry in entries}


#: The rule catalog, keyed by id (DESIGN §3), in catalog order.
RULES: dict[str, Rule] = _load_catalog()


class Difference(NamedTuple):
    """Where a cited excerpt and the capture it was checked against part (CL104,
    CL204, CL205), kept so a reviewer can see both texts one above the other.

    ``before`` is the text both share just before the first differing
    character (at most a few dozen code points, possibly ""); ``cited`` the
    excerpt from that character on and ``captured`` the capture's text from
    there on (each cut to a few dozen code points). ``aligned`` is False when
    no passage of the capture starts like the excerpt: then ``before`` is ""
    and ``captured`` is the capture's nearest passage, or "" when it has none.
    Untrusted text, both: escape it for the output it goes to.
    """

    before: str
    cited: str
    captured: str
    aligned: bool = True


class Finding(NamedTuple):
    """One problem at one place.

    Ordered, compared and hashed by (path, line, col, rule) alone. ``line`` and ``col`` are 1-based;
    ``col`` counts Unicode code points (SARIF ``unicodeCodePoints``). Findings
    about a whole file sit at 1:1. The canonical ``path:line:col: CLxxx
    message [name]`` line, with untrusted text escaped, is
    :func:`citelint.output.text.finding_line`.
    """

    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    end_line: int | None = None
    end_col: int | None = None
    #: The capture revision (sha256) a quotation link was checked against (CL204, CL105), else None.
    capture: str | None = None
    #: The index in its report's facts array of the fact the finding is about, else None
    #: (a finding about the file, or a Markdown report's).
    fact_index: int | None = None
    #: Where the excerpt and the capture part (CL104, CL204, CL205), when the miss was explained, else None.
    #: Display only: the JSON and SARIF outputs leave it out.
    difference: Difference | None = None

    @property
    def name(self) -> str:
        """The rule's name, e.g. ``snippet-not-found``."""
        return RULES[self.rule].name

    # The place and the rule identify a finding; a tuple would also compare the message.
    def __eq__(self, other: object) -> bool:
        return self[:4] == other[:4] if isinstance(other, Finding) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self[:4] != other[:4] if isinstance(other, Finding) else NotImplemented

    def __lt__(self, other: tuple) -> bool:
        return self[:4] < other[:4] if isinstance(other, Finding) else NotImplemented

    def __le__(self, other: tuple) -> bool:
        return self[:4] <= other[:4] if isinstance(other, Finding) else NotImplemented

    def __gt__(self, other: tuple) -> bool:
        return self[:4] > other[:4] if isinstance(other, Finding) else NotImplemented

    def __ge__(self, other: tuple) -> bool:
        return self[:4] >= other[:4] if isinstance(other, Finding) else NotImplemented

    def __hash__(self) -> int:
        return hash(self[:4])


class FixedLink(NamedTuple):
    """A Markdown link ``check --fix`` removed (degraded to its text): where it
    stood before the edit (``line``, ``col``), the ``rule`` of the finding it
    would have been and that finding's configured ``severity``, and the
    ``href`` it pointed at. Not a finding: nothing is left to fix."""

    path: str
    line: int
    col: int
    rule: str
    severity: Severity
    href: str

    @property
    def message(self) -> str:
        """What every format says of it: ``removed link to HREF`` (untrusted: escape it)."""
        return f"removed link to {self.href}"


class LabelInfo(NamedTuple):
    """An approved label and its optional semantic-review hints (config ``labels``).

    ``unit`` and ``period`` are words CL901 looks for in the snippet; they
    never decide acceptance. ``check_at`` says where a reader can check a
    fact of this label that the report marks unavailable (a URL or a few
    words); ``citelint render`` shows it.
    """

    name: str
    description: str | None = None
    unit: str | None = None
    period: str | None = None
    check_at: str | None = None


class _LabelPattern(NamedTuple):
    """A compiled label pattern: ``shape`` matches its fixed parts with ``.+``
    for each ``*``; ``blanks`` counts the invisible characters of the fixed parts."""

    shape: re.Pattern[str]
    blanks: int
    info: LabelInfo


def _blanks(text: str) -> int:
    """How many characters of ``text`` are, on their own, invisible (whitespace included)."""
    # The one invisibility test of the snippet rules (CL108), so "visible" means one thing.
    from citelint.escape import is_invisible_char

    return 0 if text.isascii() and text.isprintable() and " " not in text else \
        sum(1 for c in text if is_invisible_char(c))


class ApprovedLabels(Mapping[str, LabelInfo]):
    """The config's approved ``labels``: exact names, and patterns for prose.

    A name holding ``*`` is a pattern: ``*`` stands for a run of one or more
    characters, none of them whitespace (a no-break or ideographic space
    too) nor otherwise invisible (controls, zero-width, bidi and other format
    characters: what :func:`citelint.escape.is_invisible` calls invisible), so
    ``claim-*`` approves ``claim-1``, not ``claim-``, ``claim- ``,
    ``claim-1\u00a0`` nor ``claim-\n1``, and no two labels it approves look
    alike for want of a visible difference; every other character, ``?`` and
    ``[`` too, is literal. A pattern of nothing but ``*`` would approve every
    label: the config refuses it.
    Looking a label up (``label in labels``, ``labels[label]``,
    ``labels.get(label)``) tries the exact names first, then the patterns in
    the order the config lists them, and gives the :class:`LabelInfo` of the
    first match. Iterating gives the names as configured, patterns included.
    """

    def __init__(self, infos: Mapping[str, LabelInfo] | None = None):
        infos = dict(infos or {})
        self._all = infos
        self._exact = {name: info for name, info in infos.items() if "*" not in name}
        self._patterns = [_LabelPattern(re.compile(".+".join(map(re.escape, name.split("*"))), re.DOTALL),
                                        _blanks(name.replace("*", "")), info)
                          for name, info in infos.items() if "*" in name]

    @property
    def patterns(self) -> list[str]:
        """The pattern names, in config order."""
        return [p.info.name for p in self._patterns]

    @staticmethod
    def _approves(pattern: _LabelPattern, label: str) -> bool:
        # However a match splits ``label`` among the stars, the stars' characters are the label's
        # minus the fixed parts' (as multisets): they are all visible exactly when the label has
        # no invisible character beyond those of the fixed parts. So no split is searched.
        return pattern.shape.fullmatch(label) is not None and _blanks(label) == pattern.blanks

    def __getitem__(self, label: str) -> LabelInfo:
        info = self.get(label)
        if info is None:
            raise KeyError(label)
        return info

    def __contains__(self, label: object) -> bool:
        # Mapping's own goes through __getitem__ and a KeyError: this runs per fact.
        if label in self._exact:
            return True
        return isinstance(label, str) and any(self._approves(p, label) for p in self._patterns)

    def get(self, label: str, default: LabelInfo | None = None) -> LabelInfo | None:  # type: ignore[override]
        """The :class:`LabelInfo` approving ``label``, else ``default``."""
        info = self._exact.get(label)
        if info is not None:
            return info
        return next((p.info for p in self._patterns if self._approves(p, label)), default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)


class Position(NamedTuple):
    """A 1-based line and code-point column, with an optional end (exclusive)."""

    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None


#: The verdicts a review may give (``citelint.review/1``, docs/reviews.md).
VERDICTS = ("supports", "does-not-support")


class Review(NamedTuple):
    """The judgment that counts for one citation: the latest review of its
    fingerprint in the review ledger (docs/reviews.md).

    ``verdict`` is ``supports`` or ``does-not-support`` (:data:`VERDICTS`);
    ``by`` the reviewer's name as recorded (with ``reviews.allowed_signers``,
    the principal whose key signed it); ``at`` when it was recorded, RFC 3339
    UTC (``2026-12-03T11:00:00Z``); ``note`` what the reviewer checked, or None.
    """

    verdict: str
    by: str
    at: str
    note: str | None = None


class AcceptedFact(NamedTuple):
    """A fact that passed every check.

    For a cited fact ``offset`` is the code-point index of the snippet in the
    capture text; ``review`` lists semantic-review hints (label unit or
    period words missing from the snippet); ``retrieved_at`` is the capture's
    ``retrievedAt`` and ``context`` up to ``facts.CONTEXT_CHARS`` code points
    of capture text before and after the snippet, for review and the reader
    view; ``fact_index`` the fact's place in its report's facts array (as
    a finding about it has it); ``reviewed`` the review that counts for it
    (:class:`Review`), or None when nobody reviewed it. Unavailable facts
    have no source, no fingerprint and no review.
    """

    path: str
    line: int
    col: int
    state: str
    label: str
    source: str | None = None
    capture_sha256: str | None = None
    snippet: str | None = None
    offset: int | None = None
    reason: str | None = None
    review: tuple[str, ...] = ()
    retrieved_at: str | None = None
    context: tuple[str, str] = ("", "")
    fact_index: int | None = None
    reviewed: Review | None = None

    @property
    def fingerprint(self) -> str | None:
        """The review fingerprint (:func:`fact_fingerprint`, 64 hex), or None for
        an unavailable fact, which has nothing to review. Computed when asked."""
        if self.state != "cited" or self.source is None or self.capture_sha256 is None or self.snippet is None:
            return None
        return fact_fingerprint(self.label, self.source, self.capture_sha256, self.snippet)


class AcceptedQuotation(NamedTuple):
    """A quotation of a Markdown report whose text occurs in the cited capture (docs/quotations.md).

    ``form`` is ``prose`` (a quotation in the prose that passed CL205) or
    ``link`` (a quotation link, ``#:~:text=``, that passed CL204).
    ``path``/``line``/``col``: the report and the opening mark, or the
    link's start (1-based, code points); ``sentence``: the rendered sentence
    it stands in (the paragraph, for a blockquote); ``text``: the quoted
    text as rendered (for a link, the passage of the capture its directive
    names, whitespace runs as one space); ``source`` and ``capture``: the
    cited source and the sha256 of the revision that holds it; ``label``:
    always None for now (prose carries no label); ``insertions``: the
    bracketed insertions it holds (``[sic]``), which are the author's words,
    not the source's; ``reviewed``: the review that counts for it
    (:class:`Review`), or None when nobody reviewed it.
    """

    path: str
    line: int
    col: int
    sentence: str
    text: str
    source: str
    capture: str
    label: str | None = None
    insertions: tuple[str, ...] = ()
    form: str = "prose"
    reviewed: Review | None = None

    @property
    def fingerprint(self) -> str:
        """The review fingerprint (:func:`quotation_fingerprint`, 64 hex). Computed when asked."""
        return quotation_fingerprint(self.sentence, self.source, self.capture, self.text)


class FactPlace(NamedTuple):
    """One fact of a fact report, in report order, as the reader view lists it:
    where it starts (1-based ``line`` and code-point ``col``) and its ``label``
    (None when it has none that is a string)."""

    line: int
    col: int
    label: str | None


class LinkVerdict(NamedTuple):
    """One followable link of a Markdown report and what the check found at it.

    ``link`` is the located :class:`citelint.links.Link` (this module imports
    nothing above it); ``findings`` the findings made of its issues, in order
    (notices, and those past the per-rule cap, left out); ``error`` True when
    any of its issues is at error severity, a capped one too.
    """

    link: Any
    findings: tuple[Finding, ...]
    error: bool


class ClaimSpan(NamedTuple):
    """A span of a Markdown report's prose that its reader view marks, kept by the check.

    ``kind`` is ``quotation`` (a prose quotation that passed CL205: the one of
    :attr:`CheckResult.quotations` at ``line``/``col``) or ``unverified-number``
    (a number in a sentence none of whose citations survived the check, or
    that has none). ``line``/``col`` to ``end_line``/``end_col`` (1-based, code
    points, end exclusive) is the quotation, marks included, or the number;
    ``removed`` the hrefs of the sentence's citations that failed the check
    (where a reader could look), empty when it cites nothing.
    """

    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    removed: tuple[str, ...] = ()


class ReportDetail(NamedTuple):
    """What the check keeps of one report for its reader view (``citelint
    render``), so the view is built from the result: the report is never
    loaded, validated or rendered again.

    ``kind`` is ``facts`` or ``markdown``. A fact report's ``facts`` are
    every fact of its facts array, in order, rejected ones too (None when the
    report did not load or has no facts array). A Markdown report's
    ``markdown`` is its text as checked and ``links`` each of its followable
    links, located, in document order, with its verdict ('' and () when it
    could not be read); ``claims`` the spans of its prose the view marks
    (:class:`ClaimSpan`), in document order.
    """

    kind: str
    facts: tuple[FactPlace, ...] | None = None
    markdown: str = ""
    links: tuple[LinkVerdict, ...] = ()
    claims: tuple[ClaimSpan, ...] = ()


class CheckResult:
    """Everything a formatter needs: findings, accepted facts, counts.

    ``notices`` are CL901 semantic-review entries: listed by every format,
    never counted as findings, never affecting the exit code; their number
    is :attr:`review_count`, known without building them. Building the
    notices and ``accepted`` (each needs its fact's line and column) may be
    deferred with :meth:`defer`: it then runs when either is first read.
    ``fixed`` lists the links ``--fix`` removed (:class:`FixedLink`).
    Facts that fail the schema (CL002) count as ``facts_invalid``; the others
    as cited or unavailable by their state. ``skipped`` lists (path, why)
    for each file named on the command line that is not a report.
    ``details`` maps each report's path to its :class:`ReportDetail` when
    the result is made to keep them (``details={}``, as
    ``run_check(detail=True)`` does); it is None otherwise, so a plain check
    does not pay for them. ``reviewed`` counts the accepted citations (facts
    and quotations) that have a review that counts in the review ledger, and
    ``rejected`` those of them whose review says ``does-not-support``
    (CL903); the others are the semantic-review list (CL901).
    """

    def __init__(self, findings: list[Finding] | None = None, notices: Iterable[Finding] = (),
                 accepted: Iterable[AcceptedFact] = (), files: int = 0, facts_cited: int = 0,
                 facts_unavailable: int = 0, facts_invalid: int = 0, links: int = 0, links_governed: int = 0,
                 links_grounded: int = 0, fixed: list[FixedLink] | None = None, warnings_text: list[str] | None = None,
                 skipped: list[tuple[str, str]] | None = None, details: dict[str, ReportDetail] | None = None):
        self.findings: list[Finding] = [] if findings is None else findings
        self._notices: list[Finding] = list(notices)
        self._accepted: list[AcceptedFact] = list(accepted)
        self.files, self.facts_cited, self.facts_unavailable, self.facts_invalid = \
            files, facts_cited, facts_unavailable, facts_invalid
        self.links, self.links_governed, self.links_grounded = links, links_governed, links_grounded
        self.fixed: list[FixedLink] = [] if fixed is None else fixed
        self.warnings_text: list[str] = [] if warnings_text is None else warnings_text
        self.skipped: list[tuple[str, str]] = [] if skipped is None else skipped
        self.details = details
        #: Quotations of Markdown reports whose text was found (prose ones that passed CL205,
        #: quotation links that passed CL204), in report order.
        self.quotations: list[AcceptedQuotation] = []
        self.reviewed = 0
        self.rejected = 0
        #: With ``--base``, the review fingerprints of the citations the base's reports hold, so a
        #: summary lists only the unreviewed citations a change added; None without ``--base`` or
        #: when no merge base is known (then every citation counts as added).
        self.base_fingerprints: frozenset[str] | None = None
        self._pending: list[Callable[[CheckResult], None]] = []
        self._pending_notices = 0
        #: Semantic-review notices counted but not listed: the run was told nobody reads
        #: the listing (``run_check(keep_accepted=False)``), so it kept none.
        self.unlisted = 0

    def __repr__(self) -> str:
        return (f"CheckResult(files={self.files}, findings={len(self.findings)}, review={self.review_count}, "
                f"facts_cited={self.facts_cited}, links={self.links})")

    @property
    def notices(self) -> list[Finding]:
        """The CL901 notices (the deferred work runs first)."""
        self.settle()
        return self._notices

    @notices.setter
    def notices(self, value: Iterable[Finding]) -> None:
        self._notices = list(value)

    @property
    def accepted(self) -> list[AcceptedFact]:
        """The accepted facts in report order (the deferred work runs first)."""
        self.settle()
        return self._accepted

    @accepted.setter
    def accepted(self, value: Iterable[AcceptedFact]) -> None:
        self._accepted = list(value)

    def defer(self, notices: int, work: Callable[[CheckResult], None]) -> None:
        """Leave ``work(result)`` (which adds ``notices`` notices, and accepted
        facts, to the result it is given) to run when ``notices`` or
        ``accepted`` is first read. It is given the result rather than
        holding it, so an unread result is freed as soon as it is dropped."""
        self._pending.append(work)
        self._pending_notices += notices

    def settle(self) -> None:
        """Run the deferred work now (once; a read of ``notices`` or ``accepted`` does this)."""
        if not self._pending:
            return
        pending, self._pending, self._pending_notices = self._pending, [], 0
        for work in pending:
            work(self)

    @property
    def review_count(self) -> int:
        """Number of semantic-review notices, without building deferred ones."""
        return len(self._notices) + self._pending_notices + self.unlisted

    def count(self, severity: str) -> int:
        """Number of findings at ``severity``."""
        return sum(1 for f in self.findings if f.severity == severity)

    def ordered(self) -> list[Finding]:
        """Findings most severe first, then by path, line, column, rule."""
        return sorted(self.findings, key=lambda f: (SEVERITY_ORDER[f.severity], f))


def rule_properties(rule: Rule) -> str:
    """The rule's properties other than severity and lock, in words ('' if none),
    e.g. ``"advisory: does not reject the citation"``."""
    words = []
    if not rule.blocking:
        words.append("advisory: does not reject the citation")
    if rule.fixable:
        words.append("`citelint check --fix` removes the link")
    if rule.needs_base:
        words.append("needs `--base`")
    if rule.enabled_by:
        words.append(f"off unless `{rule.enabled_by}: true`")
    return "; ".join(words)


def rules_markdown() -> str:
    """docs/rules.md, rendered from the catalog: one section per rule."""
    parts = ["# citelint rules\n\n",
             "Generated from `citelint/rules.json` by `citelint rule --markdown`; do not edit by hand.\n"]
    for r in RULES.values():
        lock = " It is part of citelint's guarantee and cannot be lowered or turned off." if r.locked else ""
        props = rule_properties(r)
        lock += f" {props[0].upper()}{props[1:]}." if props else ""
        parts.append(f"\n## {r.id} {r.name}\n\nDefault severity: **{r.severity}**.{lock}\n\n{r.summary}\n\n"
                     f"**Why:** {r.why}\n\n**How to fix:** {r.fix}\n\n"
                     f"Fails:\n\n```\n{r.bad}\n```\n\nPasses:\n\n```\n{r.good}\n```\n")
    return "".join(parts)
