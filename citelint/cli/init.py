"""``citelint init``: create a starter citelint.yaml and captures/.gitattributes.

Write a starter citelint.yaml and captures/.gitattributes (* -text) in the
current directory, then print pre-commit and GitHub Actions snippets. An
existing file is never overwritten: it is reported and left alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from citelint import __version__
from citelint.cli.common import EXIT_OK, EXIT_USAGE
from citelint.cli.scaffold import create_starter_files, snippets

NAME = "init"

EPILOG = """\
examples:
  citelint init                          in the repository root; then edit sources and labels
"""


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add the ``init`` options and arguments to its parser."""
    del parser  # no options beyond --help


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
