"""``citelint migrate``: convert legacy captures to the current layout.

Verify each legacy capture (captures/<sha256(source)>.json) and write it in
the current layout. Corrupt records are refused; nothing is deleted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, load_config
from citelint.config import relpath
from citelint.escape import terminal
from citelint.store.legacy import migrate

NAME = "migrate"

EPILOG = """\
examples:
  citelint migrate                       copy each verified legacy record into the current layout
  git rm captures/*.json                 then remove the legacy files in a reviewed commit

writes: only new records under the captures directory, create-only (never
replacing a file or writing through a symlink); deletes nothing.

exit codes: 0 every legacy record migrated, 1 a record was refused, 2 usage or config error
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``migrate`` options and arguments to its parser."""
    add_config_option(p)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Migrate every legacy record; print one line each, then counts.

    Returns EXIT_FINDINGS when a record was refused, EXIT_USAGE when the
    store cannot be written.
    """
    config = load_config(args, err)
    try:
        outcomes = migrate(config.captures_dir)
    except OSError as exc:
        err.write(f"citelint: cannot write to {config.captures_dir}: {exc.strerror}\n")
        return EXIT_USAGE
    for o in outcomes:
        out.write(f"{relpath(o.path, Path.cwd())}: {o.status}: {terminal(o.detail)}\n")
    refused = sum(o.status == "refused" for o in outcomes)
    out.write(f"{len(outcomes)} legacy file(s): {sum(o.status == 'migrated' for o in outcomes)} migrated, "
              f"{refused} refused. Legacy files are not deleted: remove them in a commit once reviewed.\n")
    return EXIT_FINDINGS if refused else EXIT_OK
