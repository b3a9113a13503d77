"""``citelint check``: verify reports against committed captures (read-only).

Verify fact reports and Markdown reports against the capture store. Reads
only: no file is written (except by --fix and the --*-file options) and no
network connection is made.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citelint.api.project import check_paths, open_project, project_config
from citelint.check.parallel import AUTO_JOBS_MIN_CAPTURES
from citelint.cli.common import add_config_option, isatty
from citelint.cli.present import (
    add_output_options,
    deliver,
    format_of,
    not_run,
    output_files,
    vet,
    wants_context,
    wants_listing,
    wants_summary,
)
from citelint.config import discover
from citelint.errors import ConfigError, UsageError
from citelint.facts import CONTEXT_CHARS

if TYPE_CHECKING:
    from citelint.git.resolve import Resolving

NAME = "check"

EPILOG = """\
examples:
  citelint check                         check every report the config matches
  citelint check reports/q3.json         check one report (others are skipped)
  citelint check --format json > out.json
  citelint check --strict --quiet        warnings fail too; print errors only
  citelint check --base origin/main      also: captures changed since main (CL301, CL302)
  citelint check --sarif-file out.sarif  text on stdout, SARIF for code scanning in out.sarif
  citelint check --base origin/main --summary-file "$GITHUB_STEP_SUMMARY"
                                         a pull request's step summary: each finding (a missed
                                         excerpt over the capture's text), and only the
                                         unreviewed citations the change added, each with its
                                         `citelint review --approve` line
  citelint check --jobs 2                two processes (the default uses every core for large runs)
  citelint check --review                also list the accepted citations for semantic review
  citelint check --statistics            one line per rule with its count, instead of the findings
  citelint check - --stdin-filename reports/draft.json < draft.json
                                         check a report piped in, as if it were that file
  citelint check --output-file out.txt --exit-zero
                                         write the output to a file; exit 0 even with findings
  citelint check --shard 2/4 --output-file shard-2.json
                                         check shard 2 of 4 and write its shard file;
                                         `citelint merge shard-*.json` prints the run's output
  citelint check --shard 2/4 --dry-run   list the sources and reports shard 2 of 4 would check

writes: nothing, except what a flag asks for: --output-file and --sarif-file
(created or replaced whole), --summary-file (appended to a regular file) and
--fix (the Markdown reports it checked, in place). Never through a symlink,
never into a FIFO or directory, never over a capture, the config (of this
run, or of the project the file lands in; a citelint.yaml anywhere) or (for
the --*-file options) a report or a file named as a PATH: such a file is
refused (exit 2) and left alone. Two options naming one file are refused
before the check runs.

exit codes: 0 clean, 1 findings at error severity, 2 usage or config error
(--exit-zero: 0 unless a usage or config error; --shard: 0 once the shard
file is written, since `citelint merge` judges the findings, 2 on a usage or
config error)
"""


def add_options(check: argparse.ArgumentParser) -> None:
    """Add the ``check`` options and arguments to its parser."""
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories; files outside the config's report globs are skipped")
    add_config_option(check)
    add_output_options(check)
    check.add_argument("--fix", action="store_true",
                       help="degrade ungrounded Markdown links to their text (Markdown reports only)")
    check.add_argument("--base", metavar="REF",
                       help="diff-aware rules: compare captures/ with git REF (its merge base with HEAD); "
                            "a changed capture is CL301, a cited capture not on REF is CL302 when "
                            "require_captures_on_base is set; HEAD before the first commit compares with "
                            "nothing (the citelint-all pre-commit hook runs --base HEAD)")
    check.add_argument("--base-missing", choices=["error", "skip"], default="error",
                       help="when the --base revision is not in this clone: error (default), or skip the "
                            "diff-aware rules with a note, unless require_captures_on_base is set (the "
                            "GitHub Action uses skip after trying to fetch it)")
    check.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                       help="processes to load reports and verify citations with (default: every core for "
                            f"a phase of {AUTO_JOBS_MIN_CAPTURES} or more files or cited captures, else 1); the "
                            "output is the same for any N")
    check.add_argument("--stdin-filename", metavar="NAME",
                       help="with PATH '-': the report on standard input is checked as if it were the file NAME "
                            "(its globs, its format, its place in messages)")
    check.add_argument("--shard", metavar="K/N",
                       help="check shard K of N (sources and reports cut by a stable hash) and write its shard "
                            "file (JSON, to stdout or --output-file) for `citelint merge`, which prints the "
                            "output; exit 0 once the file is written (docs/shards.md)")
    check.add_argument("--dry-run", action="store_true",
                       help="with --shard: list the sources (with their citations) and reports the shard "
                            "would check, and check nothing")


def _ask_git_early(ref: str | None, config: Path | None) -> Resolving | None:
    """With ``--base``, ask git about REF from here while the config is read
    (:class:`citelint.git.resolve.Resolving`), and start comparing the captures
    directory the config names unless it says otherwise; None without
    ``--base``, or when REF or git is unusable (the check then says why)."""
    if ref is None:
        return None
    from citelint.git.base import GitBaseError
    from citelint.git.resolve import Resolving

    cwd = Path.cwd()
    try:
        path = (config if config.is_absolute() else cwd / config) if config else discover(cwd)
        guess = Path(os.path.normpath(path.parent.resolve() / "captures"))
    except (ConfigError, OSError):
        guess = None
    try:
        return Resolving(ref, cwd, guess)
    except GitBaseError:
        return None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the check, render it in the chosen format, write the side files
    (with ``--shard``: write the shard file instead, :mod:`citelint.cli.shard`).

    Returns EXIT_OK, EXIT_FINDINGS (errors, or warnings with ``--strict``) or
    EXIT_USAGE (a named path missing, ``--base`` unusable, a side file that
    cannot be written).
    """
    if args.shard is not None or args.dry_run:
        from citelint.cli.shard import run_shard

        return run_shard(args, out, err)
    fmt = format_of(args)
    inputs = _inputs(args)
    stdin = None
    if "-" in args.paths or args.stdin_filename:
        problem = _stdin_problem(args)
        if problem:
            return not_run(problem, fmt, args, out, err, inputs)
        stdin = (args.stdin_filename, _read_stdin())
    resolving = _ask_git_early(args.base, args.config)
    try:
        project = open_project(args.config, Path.cwd())
    except ConfigError as exc:
        if resolving is not None:
            resolving.close()
        return not_run(f"config error: {exc}", fmt, args, out, err, inputs)
    outputs = output_files(args, project_config(project), inputs)
    refused = vet(outputs)
    if refused:
        return not_run(refused[0], fmt, args, out, err, inputs, summary=refused[1])
    progress = _progress(err) if isatty(err) else None
    try:
        # The check the Python API runs (citelint.Project), so the two cannot disagree.
        result = check_paths(project, [] if stdin else args.paths, cwd=Path.cwd(), fix=args.fix, progress=progress,
                             base=args.base, resolving=resolving, jobs=args.jobs, base_missing=args.base_missing,
                             stdin=stdin, context_chars=CONTEXT_CHARS if wants_context(args, fmt) else 0,
                             # The step summary lists only the unreviewed citations the change added.
                             base_reports=wants_summary(args, fmt), keep_accepted=wants_listing(args, fmt))
    except UsageError as exc:
        return not_run(str(exc), fmt, args, out, err, inputs)
    finally:
        if resolving is not None:
            resolving.close()
        if progress:
            err.write("\r\x1b[K")
    return deliver(result, args, fmt, outputs, out, err, nothing=not args.paths and not stdin and result.files == 0)


def _inputs(args: argparse.Namespace) -> list[str]:
    """The files named on the command line as inputs: no output may replace
    one, not even one the check skips as not a report."""
    return [p for p in args.paths if p != "-"] + ([args.stdin_filename] if args.stdin_filename else [])


def _stdin_problem(args: argparse.Namespace) -> str | None:
    """Why ``-`` / ``--stdin-filename`` cannot be used as given, or None."""
    if args.paths != ["-"]:
        return ("a report on standard input is given as the one PATH '-', with --stdin-filename NAME"
                if "-" in args.paths else "--stdin-filename goes with the one PATH '-' (the report on standard input)")
    if not args.stdin_filename:
        return "PATH '-' (standard input) needs --stdin-filename NAME: the file it is checked as"
    if args.fix:
        return "--fix cannot write a report read from standard input"
    return None


def _read_stdin() -> bytes:
    """Standard input's bytes, at most one byte over the report limit (the
    loader refuses a larger report with its usual message)."""
    import sys

    from citelint.reports.loaders import MAX_REPORT_BYTES

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return b""
    return stream.read(MAX_REPORT_BYTES + 1)


def _jobs(value: str) -> int:
    """argparse type for --jobs: a whole number from 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number from 1, got {value!r}")
    return int(value)


def _progress(err: TextIO) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        if total >= 20 and (done % 10 == 0 or done == total):
            err.write(f"\rchecking {done}/{total} files")
            err.flush()
    return report
