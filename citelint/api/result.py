"""What a check returns in the Python API: frozen dataclasses over ``check --format json``.

A :class:`Result` is built from the very dictionary ``citelint check
--format json`` prints (:func:`citelint.output.json.to_dict`), so
:meth:`Result.to_dict` equals that JSON, and each typed field is one of its
keys in snake case (``captureSha256`` is ``capture_sha256``). A key the JSON
gains is a field here in the same change: building refuses a key it has no
field for, and the tests compare the fields with ``schemas/output.schema.json``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from citelint.errors import FindingsError
from citelint.model import CheckResult

_T = TypeVar("_T")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _snake(key: str) -> str:
    return _CAMEL.sub(lambda m: "_" + m.group(1).lower(), key)


def _build(cls: type[_T], obj: Mapping[str, Any]) -> _T:
    """``cls`` from one JSON object of the output: each key its field in snake
    case, arrays as tuples.

    Raises:
        TypeError: the JSON has a key ``cls`` has no field for (or lacks one
            it needs): the formatter and this module disagree, which
            tests/test_api.py catches before a release.
    """
    values = {_snake(key): tuple(value) if isinstance(value, list) else value for key, value in obj.items()}
    try:
        return cls(**values)
    except TypeError as exc:
        raise TypeError(f"the JSON output and {cls.__name__} disagree ({exc}): a key of "
                        "schemas/output.schema.json is a field of citelint/api/result.py (CONTRIBUTING.md)") from None


@dataclass(frozen=True)
class Finding:
    """One finding (or semantic-review notice) at one place.

    ``path`` names the report relative to the project root (POSIX); ``line``
    and ``column`` are 1-based, columns in Unicode code points; ``end_line``
    and ``end_column`` the exclusive end, or None. ``rule`` is the id
    (``CL104``), ``name`` the rule's name (``snippet-not-found``),
    ``severity`` ``error``, ``warning`` or ``notice``. ``capture`` is the
    sha256 of the revision a quotation link was checked against, else None.
    ``message`` is untrusted text from a report or capture, unescaped:
    escape it before printing it to a terminal or into HTML.
    """

    path: str
    line: int
    column: int
    end_line: int | None
    end_column: int | None
    rule: str
    name: str
    severity: str
    message: str
    capture: str | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.rule} {self.message} [{self.name}]"


@dataclass(frozen=True)
class Review:
    """The review that counts for an accepted citation, from the committed
    review ledger (docs/reviews.md): ``verdict`` ``"supports"`` or
    ``"does-not-support"``, ``by`` the reviewer, ``at`` when (RFC 3339
    UTC), ``note`` what was checked, or None. ``by`` and ``note`` are
    untrusted text: escape them before printing them.
    """

    verdict: str
    by: str
    at: str
    note: str | None


@dataclass(frozen=True)
class AcceptedFact:
    """A fact that passed every check (``kind`` is ``"fact"``).

    ``state`` is ``cited`` or ``unavailable``. A cited fact has its
    ``source``, ``capture_sha256`` (the revision), ``snippet`` and
    ``offset`` (code-point index of the snippet in the capture text);
    ``review`` lists semantic-review hints; ``fingerprint`` is its review
    fingerprint (64 hex: docs/reviews.md) and ``reviewed`` the
    :class:`Review` that counts for it, or None (nobody reviewed it). An
    unavailable fact has its ``reason`` and None for the rest. ``path``,
    ``line``, ``column``: where the fact starts in its report (1-based,
    code points).
    """

    path: str
    line: int
    column: int
    kind: str
    state: str
    label: str
    source: str | None
    capture_sha256: str | None
    snippet: str | None
    offset: int | None
    reason: str | None
    review: tuple[str, ...] = ()
    fingerprint: str | None = None
    reviewed: Review | None = None


@dataclass(frozen=True)
class AcceptedQuotation:
    """A quotation of a Markdown report whose words occur verbatim in its
    cited capture (``kind`` is ``"quotation"``): ``form`` ``"prose"`` for
    a quotation in the prose (CL205 passed), ``"link"`` for a quotation link
    (``#:~:text=``, CL204 passed).

    ``sentence`` is the rendered sentence it stands in, ``text`` the quoted
    words, ``source`` the cited source, ``capture`` the sha256 of the
    revision that holds them, ``label`` None (prose carries no label),
    ``insertions`` the bracketed insertions (``[sic]``), which are the
    author's words, not the source's; ``fingerprint`` its review fingerprint
    (64 hex: docs/reviews.md) and ``reviewed`` the :class:`Review` that
    counts for it, or None.
    """

    path: str
    line: int
    column: int
    kind: str
    form: str
    sentence: str
    text: str
    source: str
    capture: str
    label: str | None
    insertions: tuple[str, ...] = ()
    fingerprint: str = ""
    reviewed: Review | None = None


#: An accepted citation: a fact or a prose quotation.
Accepted = AcceptedFact | AcceptedQuotation

_ACCEPTED: dict[str, type[AcceptedFact] | type[AcceptedQuotation]] = {
    "fact": AcceptedFact, "quotation": AcceptedQuotation}


@dataclass(frozen=True)
class Counts:
    """The counts of a check: files checked; facts cited, unavailable and
    invalid (failing the schema); links and grounded links; findings at
    error and warning severity; semantic-review notices (accepted citations
    nobody reviewed); accepted prose quotations; accepted citations with a
    review that counts (``reviewed``), and of them those judged
    ``does-not-support`` (``rejected``, CL903). All whole numbers from 0."""

    files: int
    facts_cited: int
    facts_unavailable: int
    facts_invalid: int
    links: int
    links_grounded: int
    errors: int
    warnings: int
    semantic_review: int
    quotations: int
    reviewed: int
    rejected: int


@dataclass(frozen=True)
class Result:
    """The outcome of a check, as ``citelint check --format json`` prints it.

    ``findings``: errors and warnings, most severe first, then by path,
    line, column and rule. ``accepted``: the accepted facts, then the
    accepted prose quotations. ``semantic_review``: CL901 notices (never
    findings). ``fixed``: links a fix removed (always empty from the API,
    which never rewrites a report). ``warnings``: run-level notes.
    ``counts``: the numbers. ``version``: the citelint that checked.
    """

    findings: tuple[Finding, ...]
    accepted: tuple[AcceptedFact | AcceptedQuotation, ...]
    semantic_review: tuple[Finding, ...]
    fixed: tuple[Finding, ...]
    warnings: tuple[str, ...]
    counts: Counts
    version: str
    # The JSON document the fields were built from: to_dict() returns a copy, so it is the
    # CLI's output byte for byte. Set once by result_of, not an argument of the constructor.
    _document: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when no finding is at error severity (what exit 0 means). A
        check of no file at all is ok, as its exit is 0: see ``counts.files``,
        or :meth:`raise_for_errors` with ``strict``."""
        return self.counts.errors == 0

    def errors(self) -> tuple[Finding, ...]:
        """The findings at error severity."""
        return tuple(f for f in self.findings if f.severity == "error")

    def raise_for_errors(self, *, strict: bool = False) -> Result:
        """This result, or :class:`~citelint.FindingsError` (holding it) when a
        finding is at error severity; with ``strict``, also at warning
        severity, and when no file was checked at all (as ``citelint check
        --strict`` fails then): what a pipeline calls before it publishes."""
        failing = ("error", "warning") if strict else ("error",)
        bad = [f for f in self.findings if f.severity in failing]
        if bad or (strict and self.counts.files == 0):
            raise FindingsError(self, bad)
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``citelint check --format json`` prints from the
        project root with no other flags (``schemas/output.schema.json``), as
        a new dict each call."""
        # Through the C encoder and decoder: several times faster than copy.deepcopy here.
        return json.loads(json.dumps(self._document, ensure_ascii=False))


def _accepted(obj: Mapping[str, Any]) -> AcceptedFact | AcceptedQuotation:
    """One entry of ``accepted``, its ``reviewed`` object a :class:`Review`."""
    built = _build(_ACCEPTED[obj["kind"]], obj)
    reviewed = obj.get("reviewed")
    if reviewed is None:
        return built
    return dataclasses.replace(built, reviewed=_build(Review, reviewed))


def result_of(check: CheckResult, version: str) -> Result:
    """The :class:`Result` of an internal check result, built from the JSON
    formatter's own dictionary (so ``to_dict`` is what the CLI prints)."""
    from citelint.output import RenderOptions
    from citelint.output.json import to_dict

    document = to_dict(check, RenderOptions(version=version))
    result = Result(
        findings=tuple(_build(Finding, f) for f in document["findings"]),
        accepted=tuple(_accepted(a) for a in document["accepted"]),
        semantic_review=tuple(_build(Finding, f) for f in document["semanticReview"]),
        fixed=tuple(_build(Finding, f) for f in document["fixed"]),
        warnings=tuple(document["warnings"]),
        counts=_build(Counts, document["counts"]),
        version=document["citelint"],
    )
    # Frozen: the one assignment after construction goes through object.__setattr__.
    object.__setattr__(result, "_document", document)
    return result
