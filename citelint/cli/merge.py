"""citelint merge: join the shard files of a sharded check and print what one unsharded check prints.

Each shard file was written by `citelint check --shard K/N`. The merge
refuses files that are not one whole run (N differs, a K missing or given
twice, another config, citelint version, directory or run options), and
then prints the run's output with the output options `citelint check`
takes: the same bytes, in the same order, and the same exit code as one
`citelint check` with those options. Run it where the shards ran (the
project's config is read, to protect what the --*-file options must never
replace, and must be the one the shards checked).
"""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path
from typing import Any, TextIO

from citelint import __version__
from citelint.api.project import open_project, project_config
from citelint.check.shardfile import config_digest, merge, read_shard
from citelint.cli.common import add_config_option
from citelint.cli.present import add_output_options, deliver, format_of, not_run, output_files, vet, wants_summary
from citelint.config import relpath
from citelint.errors import ConfigError, UsageError
from citelint.escape import terminal
from citelint.files import FileTooLarge, read_regular

NAME = "merge"

#: The largest shard file read (bytes): far above a million facts' (about 1 GB), and bounded.
MAX_SHARD_BYTES = 1 << 32

EPILOG = """\
examples:
  citelint check --shard 1/2 -o shard-1.json && citelint check --shard 2/2 -o shard-2.json
  citelint merge shard-1.json shard-2.json
                                         what `citelint check` prints, exit code too
  citelint merge shards/*.json --format sarif --output-file out.sarif
  citelint merge shards/*.json --format github --summary-file "$GITHUB_STEP_SUMMARY"
                                         the GitHub Action's merge job (a matrix of shards)
  citelint merge shards/*.json --strict --quiet
  cat shard-*.json | citelint merge -    shard files one after another on standard input

reads: each SHARD, a regular file (never through a symlink, never a FIFO).

writes: nothing, except what a flag asks for: --output-file and --sarif-file
(created or replaced whole), --summary-file (appended to a regular file).
Never through a symlink, never into a FIFO or directory, never over a
capture, the config, a report or a shard file given as SHARD: such a file is
refused (exit 2) and left alone.

exit codes: as `citelint check`: 0 clean, 1 findings at error severity (with
--strict, warnings too), 2 usage or config error, and shard files that are
not one whole run (--exit-zero: 0 unless 2)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``merge`` options and arguments to its parser."""
    p.add_argument("shards", nargs="+", metavar="SHARD",
                   help="the shard files of one run (`citelint check --shard K/N` writes each); '-' reads "
                        "them from standard input, one after another")
    add_config_option(p)
    add_output_options(p)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read, check and merge the shard files, then print as ``citelint check`` does.

    Returns EXIT_OK, EXIT_FINDINGS (errors, or warnings with ``--strict``) or
    EXIT_USAGE (a shard file unreadable, not a shard file or not of this run,
    a config error, an output file refused).
    """
    fmt = format_of(args)
    inputs = [name for name in args.shards if name != "-"]
    try:
        shards = _read_all(args.shards)
        cwd = Path.cwd()
        try:
            config = project_config(open_project(args.config, cwd))
        except ConfigError as exc:
            raise UsageError(f"config error: {exc}") from None
        merged = merge(shards, __version__, summary=wants_summary(args, fmt), cwd=cwd)
        name = shards[0][0]
        if merged.run["config"] != config_digest(config):
            raise UsageError(f"{name} checked another config than {terminal(str(config.path))} (its digest "
                             "differs): merge where the shards ran, with the config they checked")
        here = relpath(cwd, config.root)
        if merged.run["directory"] != here:
            raise UsageError(f"{name} ran in {terminal(merged.run['directory'])} of the project, this is "
                             f"{terminal(here)}: run the merge where the shards ran (findings name files from there)")
    except UsageError as exc:
        return not_run(str(exc), fmt, args, out, err, inputs)
    outputs = output_files(args, config, inputs)
    refused = vet(outputs)
    if refused:
        return not_run(refused[0], fmt, args, out, err, inputs, summary=refused[1])
    result = merged.result
    return deliver(result, args, fmt, outputs, out, err, nothing=not merged.run["paths"] and result.files == 0)


def _read_all(names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each named shard file read and checked (:func:`read_shard`); ``-`` stands
    for the shard files on standard input, one JSON document a line.

    Raises:
        UsageError: a file cannot be read or is not a shard file.
    """
    shards = []
    for name in names:
        if name == "-":
            stream = getattr(sys.stdin, "buffer", None)
            # Bounded as a file is: a stream that never ends must not take the machine's memory.
            data = stream.read(MAX_SHARD_BYTES + 1) if stream is not None else b""
            if len(data) > MAX_SHARD_BYTES:
                raise UsageError(f"cannot read standard input: over {MAX_SHARD_BYTES} bytes, not shard files")
            for n, line in enumerate(data.splitlines(), 1):
                if line.strip():
                    shards.append((f"<stdin>:{n}", read_shard(line, f"standard input, line {n}")))
            continue
        try:
            # A shard file is a run's evidence: read as given, never through a symlink (as the writer never writes one).
            data = read_regular(Path(name), MAX_SHARD_BYTES, follow_symlinks=False)
        except FileTooLarge:
            raise UsageError(f"cannot read {terminal(name)}: over {MAX_SHARD_BYTES} bytes, not a shard file") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP and Path(name).is_symlink():
                raise UsageError(f"cannot read {terminal(name)}: it is a symlink; give the shard file itself") from None
            raise UsageError(f"cannot read {terminal(name)}: {exc.strerror or exc}") from None
        shards.append((terminal(name), read_shard(data, terminal(name))))
    return shards
