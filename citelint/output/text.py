"""Text output (DESIGN §4): ``path:line:col: CLxxx message [name]``, one finding a
line, then what ``--fix`` removed, notes, and the summary line.

Accepted citations are not findings, so they never take a finding's shape:
one line counts them for semantic review, and ``--review`` lists them as a
separate block of label, place and excerpt. ``--statistics`` prints one line
per rule with its count instead of the findings.
"""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from citelint.escape import terminal
from citelint.model import RULES, CheckResult, Finding
from citelint.output import RenderOptions, summary_line, visible

_COLORS = {"error": "\x1b[31m", "warning": "\x1b[33m", "notice": "\x1b[36m"}
_RESET = "\x1b[0m"
_DIM = "\x1b[2m"

#: How much of a snippet the review block shows (code points).
REVIEW_EXCERPT = 160


def finding_line(finding: Finding, color: bool = False) -> str:
    """One finding as its canonical line, untrusted text neutralised."""
    head = f"{terminal(finding.path)}:{finding.line}:{finding.col}:"
    rule = finding.rule
    if color:
        head = f"\x1b[1m{head}{_RESET}"
        rule = f"{_COLORS[finding.severity]}{rule}{_RESET}"
    return f"{head} {rule} {terminal(finding.message)} [{finding.name}]"


def statistics(findings: list[Finding]) -> list[str]:
    """``count  CLxxx  name  (severity)`` per rule, most frequent first, then by rule id."""
    counts = Counter((f.rule, f.severity) for f in findings)
    width = max((len(str(n)) for n in counts.values()), default=1)
    return [f"{n:>{width}}  {rule}  {RULES[rule].name}  ({severity})"
            for (rule, severity), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _excerpt(snippet: str) -> str:
    shown = snippet if len(snippet) <= REVIEW_EXCERPT else snippet[:REVIEW_EXCERPT] + "…"
    return terminal(" ".join(shown.split()))


def review_block(result: CheckResult, color: bool = False) -> list[str]:
    """The ``--review`` listing: per accepted citation nobody has reviewed, its
    label, place and fingerprint (for ``citelint review --approve``), then the
    excerpt and any unit/period hint, indented (no rule id: not a finding);
    then each such quotation (prose, CL205; quotation link, CL204) with the sentence it stands in."""
    cited = sorted((a for a in result.accepted if a.state == "cited" and a.reviewed is None),
                   key=lambda a: (a.path, a.line, a.col))
    quotations = sorted((q for q in result.quotations if q.reviewed is None), key=lambda q: (q.path, q.line, q.col))
    n = len(cited) + len(quotations)
    lines = [f"semantic review (CL901): {n} accepted citation{'s' * (n != 1)}; each excerpt is exact, whether it "
             "supports its label is for a person to judge"]
    for a in cited:
        place = f"{terminal(a.path)}:{a.line}"
        label = terminal(a.label)
        lines.append(f"  {label}  {_DIM + place + _RESET if color else place}  {(a.fingerprint or '')[:16]}")
        lines.append(f"      “{_excerpt(a.snippet or '')}”")
        lines.extend(f"      {terminal(hint)}" for hint in a.review)
    for q in quotations:
        # A prose quotation has no label: what to judge is whether it supports its sentence.
        place = f"{terminal(q.path)}:{q.line}"
        kind = "quotation link" if q.form == "link" else "quotation"
        lines.append(f"  {kind}  {_DIM + place + _RESET if color else place}  {q.fingerprint[:16]}")
        lines.append(f"      “{_excerpt(q.text)}”")
        lines.append(f"      in: {_excerpt(q.sentence)}")
        lines.extend(f"      the insertion {terminal(i)} is the author's, not the source's" for i in q.insertions)
    return lines


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Write findings (most severe first) or their statistics, removed links,
    notes, the review block (``--review``) and the summary line."""
    shown = visible(result.ordered(), options)
    if options.statistics:
        for line in statistics(shown):
            out.write(line + "\n")
    else:
        for finding in shown:
            out.write(finding_line(finding, options.color) + "\n")
    for fixed in result.fixed:
        out.write(f"{terminal(fixed.path)}:{fixed.line}:{fixed.col}: fixed {fixed.rule} "
                  f"{terminal(fixed.message)}\n")
    for warning in result.warnings_text:
        out.write(f"note: {terminal(warning)}\n")
    reviewing = result.review_count and not options.quiet
    if reviewing and options.review:
        out.write("\n" + "\n".join(review_block(result, options.color)) + "\n\n")
    out.write(summary_line(result) + "\n")
    if reviewing and not options.review:
        n = result.review_count
        out.write(f"{n} accepted citation{'s' * (n != 1)} to review for meaning (citelint proves the excerpt, "
                  "not that it supports its label): `citelint check --review` lists them\n")
