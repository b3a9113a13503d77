"""``citelint init``: write starter files and print integration snippets."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from citelint import __version__
from citelint.cli.common import EXIT_OK, EXIT_USAGE
from citelint.scaffold import create_starter_files, snippets

NAME = "init"

EPILOG = """\
examples:
  citelint init                          in the repository root; then edit sources and labels
"""


def add_parser(sub: argparse._SubParsersAction, stdout: TextIO, stderr: TextIO) -> None:
    """Register the ``init`` subcommand on ``sub``."""
    sub.add_parser("init", help="create a starter citelint.yaml and captures/.gitattributes",
                   description="Write a starter citelint.yaml and captures/.gitattributes (* -text) in the "
                               "current directory, then print pre-commit and GitHub Actions snippets. "
                               "An existing file is never overwritten: it is reported and left alone.",
                   epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                   stdout=stdout, stderr=stderr)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Create the starter files (never overwriting). EXIT_USAGE when the directory cannot be written."""
    try:
        outcomes = create_starter_files(Path.cwd())
    except OSError as exc:
        err.write(f"citelint: cannot write starter files in {Path.cwd()}: {exc.strerror}\n")
        return EXIT_USAGE
    for outcome in outcomes:
        out.write(f"{outcome.status}: {outcome.path}{f' ({outcome.detail})' if outcome.detail else ''}\n")
    out.write("\n" + snippets(__version__))
    return EXIT_OK
