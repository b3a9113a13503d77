"""Plain data shared by every part of citelint: rules, findings, facts, results,
settings.

Nothing here reads files or imports a third-party library, so every other
module may depend on this one (DESIGN §7: dependencies point towards model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "notice"]

#: Severities from most to least severe; "off" is a configuration value only.
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "notice": 2}

DOCS_URL = "https://github.com/citelint/citelint/blob/main/docs/rules.md"


@dataclass(frozen=True)
class Rule:
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

    @property
    def help_uri(self) -> str:
        """Link to the rule's section of docs/rules.md (GitHub's heading anchor)."""
        return f"{DOCS_URL}#{self.id.lower()}-{self.name}"


_CITED = '{"state": "cited", "label": "revenue", "source": "https://example.org/q3.txt", "captureSha256": "9f2c…", "snippet": "Revenue rose 12% to $4.1 million"}'

#: The rule catalog, keyed by id (DESIGN §3). The README table mirrors it.
RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("CL001", "report-unreadable", "error",
             "The report is not UTF-8, does not parse, has a duplicate key, NaN/Infinity, "
             "is too large or too deep, or uses a YAML anchor, alias or tag.",
             locked=True,
             bad='{"facts": [], "facts": []}', good='{"facts": []}'),
        Rule("CL002", "schema", "error",
             "The report violates schemas/report.schema.json.",
             locked=True,
             bad='{"state": "cited", "label": "revenue", "source": "https://example.org/q3.txt", "captureSha256": "9f2c…"}',
             good=_CITED),
        Rule("CL003", "unknown-label", "error",
             "The fact's label is not in the config's approved `labels`.",
             locked=True,
             bad='{"state": "unavailable", "label": "revenu", "reason": "not published"}',
             good='{"state": "unavailable", "label": "revenue", "reason": "not published"}'),
        Rule("CL004", "duplicate-label", "error",
             "The same label appears twice in one report; downstream code could not tell which to use.",
             locked=True,
             bad='two facts labelled "revenue" in one report',
             good="one fact per label"),
        Rule("CL101", "unapproved-source", "error",
             "The cited source is not in the config's approved `sources` (exact string match).",
             locked=True,
             bad='"source": "https://example.org/q3.txt?utm=1"',
             good='"source": "https://example.org/q3.txt" (listed in sources)'),
        Rule("CL102", "capture-missing", "error",
             "No capture exists for this exact (source, captureSha256); other revisions are listed "
             "in the hint but never used.",
             locked=True,
             bad='"captureSha256" naming a revision that was never captured',
             good='"captureSha256" copied from `citelint ls`'),
        Rule("CL103", "capture-corrupt", "error",
             "The capture record fails its exact keys, or its path, source and digest disagree.",
             locked=True,
             bad="a capture whose text was edited after it was written",
             good="a capture written by `citelint capture`, untouched"),
        Rule("CL104", "snippet-not-found", "error",
             "The snippet is not a verbatim substring of the captured text; the hint explains near "
             "misses (Unicode form, quotes, whitespace, invisible characters) without accepting them.",
             locked=True,
             bad='"snippet": "Revenue rose 12% to $4.1 million" when the capture says "rose 12 % to"',
             good="the snippet copied character for character from the capture"),
        Rule("CL105", "snippet-ambiguous", "warning",
             "The snippet occurs more than once in the capture, or is shorter than 20 characters.",
             blocking=False,
             bad='"snippet": "12%"', good='"snippet": "Revenue rose 12% to $4.1 million"'),
        Rule("CL106", "capture-stale", "warning",
             "A newer capture (strictly later retrievedAt) of the same source exists.",
             blocking=False,
             bad="citing the 2026-01 revision when a 2026-06 revision is captured",
             good="citing the newest revision"),
        Rule("CL107", "legacy-capture", "error",
             "Legacy captures (captures/<sha256(source)>.json) are present without a migrated copy; "
             "run `citelint migrate`.",
             locked=True,
             bad="captures/<64 hex>.json", good="captures/<64 hex>/<64 hex>.json"),
        Rule("CL108", "snippet-invisible", "error",
             "The snippet has no visible character (only whitespace, zero-width characters, soft hyphens, "
             "variation selectors or bidi controls), so it matches text nobody can read.",
             locked=True,
             bad='"snippet": "\\u200b\\u00ad "', good='"snippet": "Revenue rose 12% to $4.1 million"'),
        Rule("CL201", "ungrounded-link", "error",
             "A Markdown link points at a source that has no capture and is not in `links.allow`.",
             locked=True, fixable=True,
             bad="[study](https://example.org/invented)",
             good="[study](https://example.org/q3.txt) (captured)"),
        Rule("CL202", "unvouchable-link", "error",
             "A link destination is malformed, or uses a scheme other than http(s), mailto or tel.",
             locked=True, fixable=True,
             bad="[x](javascript:alert(1))", good="[x](https://example.org/q3.txt)"),
        Rule("CL203", "link-swallows-text", "warning",
             "A bare URL runs on past CJK punctuation, so the rendered link swallows the text after it.",
             blocking=False,
             bad="見る https://example.org/q3.txt。次の文", good="見る <https://example.org/q3.txt>。次の文"),
        Rule("CL301", "capture-modified", "error",
             "With --base: an existing capture was changed or deleted (captures are append-only).",
             locked=True, needs_base=True,
             bad="editing a committed capture file", good="adding a new capture file"),
        Rule("CL302", "capture-not-on-base", "error",
             "With --base and require_captures_on_base: a cited capture was added in the same change.",
             needs_base=True, enabled_by="require_captures_on_base",
             bad="a capture and the report citing it in one pull request",
             good="the capture merged first, the report in a later change"),
        Rule("CL901", "semantic-review", "notice",
             "An accepted citation whose meaning (metric, unit, period) is not verified by citelint; "
             "listed for human review, never counted as a finding.",
             blocking=False,
             bad="(notice only)", good="(notice only)"),
    )
}


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at one place.

    Ordered by (path, line, col, rule). ``line`` and ``col`` are 1-based;
    ``col`` counts Unicode code points (SARIF ``unicodeCodePoints``). Findings
    about a whole file sit at 1:1. The canonical ``path:line:col: CLxxx
    message [name]`` line, with untrusted text escaped, is
    :func:`citelint.output.text.finding_line`.
    """

    path: str
    line: int
    col: int
    rule: str
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    end_line: int | None = field(default=None, compare=False)
    end_col: int | None = field(default=None, compare=False)

    @property
    def name(self) -> str:
        """The rule's name, e.g. ``snippet-not-found``."""
        return RULES[self.rule].name


@dataclass(frozen=True)
class LabelInfo:
    """An approved label and its optional semantic-review hints (config ``labels``).

    ``unit`` and ``period`` are words CL901 looks for in the snippet; they
    never decide acceptance.
    """

    name: str
    description: str | None = None
    unit: str | None = None
    period: str | None = None


@dataclass(frozen=True)
class Position:
    """A 1-based line and code-point column, with an optional end (exclusive)."""

    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None


@dataclass(frozen=True)
class AcceptedFact:
    """A fact that passed every check.

    For a cited fact ``offset`` is the code-point index of the snippet in the
    capture text; ``review`` lists semantic-review hints (label unit or
    period words missing from the snippet). Unavailable facts have no source.
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


@dataclass
class CheckResult:
    """Everything a formatter needs: findings, accepted facts, counts.

    ``notices`` are CL901 semantic-review entries: listed by every format,
    never counted as findings, never affecting the exit code.
    ``fixed`` lists what ``--fix`` removed, as findings with their old position.
    Facts that fail the schema (CL002) count as ``facts_invalid``; the others
    as cited or unavailable by their state.
    """

    findings: list[Finding] = field(default_factory=list)
    notices: list[Finding] = field(default_factory=list)
    accepted: list[AcceptedFact] = field(default_factory=list)
    files: int = 0
    facts_cited: int = 0
    facts_unavailable: int = 0
    facts_invalid: int = 0
    links: int = 0
    links_governed: int = 0
    links_grounded: int = 0
    fixed: list[Finding] = field(default_factory=list)
    warnings_text: list[str] = field(default_factory=list)

    def count(self, severity: str) -> int:
        """Number of findings at ``severity``."""
        return sum(1 for f in self.findings if f.severity == severity)

    def ordered(self) -> list[Finding]:
        """Findings most severe first, then by path, line, column, rule."""
        return sorted(self.findings, key=lambda f: (SEVERITY_ORDER[f.severity], f))


#: Defaults of the ``capture`` config block (DESIGN §2.1, §5).
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_CONTENT_TYPES = ("text/plain",)


@dataclass(frozen=True)
class CaptureSettings:
    """Limits and trust settings of the capture stage: the config's
    ``capture`` block, plus the per-run flags of ``citelint capture``.

    ``timeout_s`` is the whole-fetch deadline in seconds (DNS through the last
    body byte); ``max_bytes`` the largest body accepted, in bytes on the wire;
    ``content_types`` the accepted media types (compared without case);
    ``allow_private_addresses`` lets a source resolve to an address that is
    not globally routable; ``ca_file`` an absolute path to a PEM bundle
    replacing the system trust store; ``proxy`` an ``http://host:port`` proxy
    to tunnel through with ``CONNECT`` (never taken from the environment);
    ``user_agent`` overrides ``citelint/<version>``. ``allow_http_loopback``
    (``--allow-http-loopback``, never in the config) permits plain ``http``
    to loopback addresses only; it exists for tests and local development.

    Plain data: the config builds it, the command line derives a run's
    variant with :func:`dataclasses.replace`, and
    :func:`citelint.capture.policy.check_settings` checks it.
    """

    timeout_s: float = DEFAULT_TIMEOUT_S
    max_bytes: int = DEFAULT_MAX_BYTES
    content_types: tuple[str, ...] = DEFAULT_CONTENT_TYPES
    allow_private_addresses: bool = False
    ca_file: str | None = None
    proxy: str | None = None
    user_agent: str | None = None
    allow_http_loopback: bool = False


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
             "Generated from `citelint/model.py` by `citelint rule --markdown`; do not edit by hand.\n"]
    for r in RULES.values():
        lock = " It is part of citelint's guarantee and cannot be lowered or turned off." if r.locked else ""
        props = rule_properties(r)
        lock += f" {props[0].upper()}{props[1:]}." if props else ""
        parts.append(f"\n## {r.id} {r.name}\n\nDefault severity: **{r.severity}**.{lock}\n\n{r.summary}\n\n"
                     f"Fails:\n\n```\n{r.bad}\n```\n\nPasses:\n\n```\n{r.good}\n```\n")
    return "".join(parts)
