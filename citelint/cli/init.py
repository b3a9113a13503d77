"""``citelint init``: create a starter citelint.yaml and captures/.gitattributes.

Write a starter citelint.yaml and captures/.gitattributes (* -text) in the
current directory, then print pre-commit and GitHub Actions snippets. It only
creates files: an existing file is never overwritten (it is reported and left
alone), and a symlink, FIFO or directory in a file's place is refused, before
anything is written. The captures folder is the one an existing config names.
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

writes: only citelint.yaml and <captures>/.gitattributes (the captures folder
the config already there names, else captures/), and only when they do not
exist (never through a symlink, never into a FIFO or directory). Both are
vetted first: when one is refused, neither is written.

exit codes: 0 created or left unchanged, 2 a file refused or not writable
"""


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add the ``init`` options and arguments to its parser."""
    del parser  # no options beyond --help


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Create the starter files (never overwriting). EXIT_USAGE when the
    directory cannot be written or a file was refused (named on ``err``)."""
    from citelint.escape import terminal

    try:
        outcomes = create_starter_files(Path.cwd())
    except OSError as exc:
        err.write(f"citelint: cannot write starter files in {Path.cwd()}: {exc.strerror}\n")
        return EXIT_USAGE
    for outcome in outcomes:
        if outcome.status == "refused":
            err.write(f"citelint: cannot write {outcome.path}: {terminal(outcome.detail)}\n")
            continue
        out.write(f"{outcome.status}: {outcome.path}{f' ({outcome.detail})' if outcome.detail else ''}\n")
    out.write("\n" + snippets(__version__))
    return EXIT_USAGE if any(o.status == "refused" for o in outcomes) else EXIT_OK
