"""Text output: ``path:line:col: CLxxx message [name]``, one finding a line,
then the semantic-review section and the summary line (DESIGN §4)."""

from __future__ import annotations

from typing import TextIO

from citelint.model import CheckResult, Finding
from citelint.escape import terminal
from citelint.output import RenderOptions, summary_line, visible

_COLORS = {"error": "\x1b[31m", "warning": "\x1b[33m", "notice": "\x1b[36m"}
_RESET = "\x1b[0m"


def finding_line(finding: Finding, color: bool = False) -> str:
    """One finding as its canonical line, untrusted text neutralised."""
    head = f"{terminal(finding.path)}:{finding.line}:{finding.col}:"
    rule = finding.rule
    if color:
        head = f"\x1b[1m{head}{_RESET}"
        rule = f"{_COLORS[finding.severity]}{rule}{_RESET}"
    return f"{head} {rule} {terminal(finding.message)} [{finding.name}]"


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Write findings (most severe first), removed links, semantic review and summary."""
    for finding in visible(result.ordered(), options):
        out.write(finding_line(finding, options.color) + "\n")
    for fixed in result.fixed:
        out.write(f"{terminal(fixed.path)}:{fixed.line}:{fixed.col}: fixed {fixed.rule} "
                  f"{terminal(fixed.message)}\n")
    if result.notices and not options.quiet:
        out.write(f"\nsemantic review ({len(result.notices)} accepted citation"
                  f"{'s' * (len(result.notices) != 1)}: the excerpt is exact, its meaning is not verified):\n")
        for notice in sorted(result.notices):
            out.write("  " + finding_line(notice, options.color) + "\n")
    for warning in result.warnings_text:
        out.write(f"warning: {terminal(warning)}\n")
    out.write(summary_line(result) + "\n")
