"""``citelint rule``: explain a rule.

Explain a rule: what it checks, why it exists, how to fix a finding, and a
failing and a passing example.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from citelint.cli.common import EXIT_OK, EXIT_USAGE
from citelint.model import RULES, rules_markdown

NAME = "rule"

EPILOG = """\
examples:
  citelint rule CL104                    explain snippet-not-found with examples
  citelint rule snippet-not-found        the same, by name
  citelint rule --list                   every rule with its default severity

writes: nothing (read-only)
"""


def add_options(rule: argparse.ArgumentParser) -> None:
    """Add the ``rule`` options and arguments to its parser."""
    rule.add_argument("rule_id", nargs="?", metavar="CLxxx", help="rule id or name")
    rule.add_argument("--list", action="store_true", help="list every rule")
    rule.add_argument("--markdown", action="store_true", help="print every rule as Markdown (docs/rules.md)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print one rule, the list, or docs/rules.md. EXIT_USAGE for an unknown rule."""
    if args.markdown:
        out.write(rules_markdown())
        return EXIT_OK
    if args.list or not args.rule_id:
        for r in RULES.values():
            out.write(f"{r.id}  {r.name:<22} {r.severity:<8} {r.summary}\n")
        return EXIT_OK
    wanted = args.rule_id.strip()
    rule = RULES.get(wanted.upper()) or next((r for r in RULES.values() if r.name == wanted), None)
    if rule is None:
        err.write(f"citelint: unknown rule {wanted!r}; `citelint rule --list` shows them all\n")
        return EXIT_USAGE
    lock = "; cannot be lowered" if rule.locked else ""
    import textwrap  # only here: every command's module is imported to build the parser

    wrap = textwrap.TextWrapper(width=88, subsequent_indent="  ")
    parts = [f"{rule.id} {rule.name} (default severity: {rule.severity}{lock})", "", wrap.fill(rule.summary), "",
             wrap.fill(f"Why: {rule.why}"), "", wrap.fill(f"How to fix: {rule.fix}"), "",
             f"fails:  {rule.bad}", f"passes: {rule.good}", "", f"more: {rule.help_uri}", ""]
    out.write("\n".join(parts))
    return EXIT_OK
