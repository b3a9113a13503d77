"""``citelint rule``: explain a rule from the catalog."""

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
"""


def add_parser(sub: argparse._SubParsersAction, stdout: TextIO, stderr: TextIO) -> None:
    """Register the ``rule`` subcommand on ``sub``."""
    rule = sub.add_parser("rule", help="explain a rule", stdout=stdout, stderr=stderr, epilog=EPILOG,
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          description="Explain a rule with a failing and a passing example.")
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
    out.write(f"{rule.id} {rule.name} (default severity: {rule.severity}"
              f"{'; cannot be lowered' if rule.locked else ''})\n\n{rule.summary}\n\n"
              f"fails:  {rule.bad}\npasses: {rule.good}\n\nmore: {rule.help_uri}\n")
    return EXIT_OK
