"""Markdown step summary (``--summary-file``): counts, a findings table and
the semantic-review list. Every cell is escaped, since messages repeat
untrusted text."""

from __future__ import annotations

from typing import TextIO

from citelint.escape import code_span, markdown_cell
from citelint.model import CheckResult, Finding
from citelint.output import RenderOptions, summary_line


def location(f: Finding) -> str:
    """``path:line:col`` as a code span; ``|`` is escaped because GFM splits
    table cells on it even inside code spans."""
    text = f"{f.path}:{f.line}:{f.col}".replace("\r", " ").replace("\n", " ").replace("|", "\\|")
    return code_span(text)


def _row(f: Finding) -> str:
    return f"| {f.severity} | {f.rule} | {location(f)} | {markdown_cell(f.message)} |"


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Append the Markdown summary to ``out``."""
    out.write("## citelint\n\n")
    out.write(summary_line(result) + "\n\n")  # counts only: no untrusted text
    ordered = result.ordered()
    if ordered:
        out.write("| severity | rule | location | message |\n|---|---|---|---|\n")
        for f in ordered:
            out.write(_row(f) + "\n")
        out.write("\n")
    else:
        out.write("No findings.\n\n")
    if result.notices:
        out.write(f"### Semantic review ({len(result.notices)})\n\n"
                  "Each excerpt below occurs exactly in its capture; whether it supports its label is for a "
                  "person to judge.\n\n")
        for f in sorted(result.notices):
            out.write(f"- {location(f)}: {markdown_cell(f.message)}\n")
        out.write("\n")


def did_not_run(message: str, out: TextIO) -> None:
    """Append the summary of a check that ended in a usage or config error:
    the check did not run, and why (escaped: it can quote a file's text)."""
    out.write("## citelint\n\n**The check did not run** (exit 2): "
              f"{markdown_cell(message)}\n\nFix the problem above and run the check again.\n\n")
