"""``citelint check``: verify reports against committed captures (read-only).

Verify fact reports and Markdown reports against the capture store. Reads
only: no file is written (except by --fix and the --*-file options) and no
network connection is made.
"""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path
from typing import Callable, TextIO

from citelint import __version__
from citelint.check import AUTO_JOBS_MIN_FILES, UsageError, run_check
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, isatty
from citelint.config import ConfigError, load_config
from citelint.escape import terminal
from citelint.output import FORMATTERS, RenderOptions, renderer, repo_prefix, summary_line

NAME = "check"

EPILOG = """\
examples:
  citelint check                         check every report the config matches
  citelint check reports/q3.json         check one report (others are skipped)
  citelint check --format json > out.json
  citelint check --strict --quiet        warnings fail too; print errors only
  citelint check --base origin/main      also: captures changed since main (CL301, CL302)
  citelint check --sarif-file out.sarif  text on stdout, SARIF for code scanning in out.sarif
  citelint check --jobs 2                two processes (the default uses every core for large runs)

exit codes: 0 clean, 1 findings at error severity, 2 usage or config error
"""


def add_options(check: argparse.ArgumentParser) -> None:
    """Add the ``check`` options and arguments to its parser."""
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories; files outside the config's report globs are skipped")
    add_config_option(check)
    check.add_argument("--format", choices=sorted(FORMATTERS), default=None,
                       help="output format (default: text, or github when GITHUB_ACTIONS=true)")
    check.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    check.add_argument("--quiet", "-q", action="store_true", help="show errors only (and the summary)")
    check.add_argument("--fix", action="store_true",
                       help="degrade ungrounded Markdown links to their text (Markdown reports only)")
    check.add_argument("--summary-file", type=Path, metavar="FILE",
                       help="append a Markdown summary (counts, findings, semantic review) to FILE")
    check.add_argument("--sarif-file", type=Path, metavar="FILE",
                       help="also write SARIF 2.1.0 to FILE (for code scanning), whatever --format is")
    check.add_argument("--base", metavar="REF",
                       help="diff-aware rules: compare captures/ with git REF (its merge base with HEAD); "
                            "a changed capture is CL301, a cited capture not on REF is CL302 when "
                            "require_captures_on_base is set")
    check.add_argument("--base-missing", choices=["error", "skip"], default="error",
                       help="when the --base revision is not in this clone: error (default), or skip the "
                            "diff-aware rules with a note, unless require_captures_on_base is set (the "
                            "GitHub Action uses skip after trying to fetch it)")
    check.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                       help=f"processes to use (default: every core from {AUTO_JOBS_MIN_FILES} files up, else 1); "
                            "the output is the same for any N")
    check.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                       help="colour text output (auto: only on a terminal, never with NO_COLOR)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the check, render it in the chosen format, write the side files.

    Returns EXIT_OK, EXIT_FINDINGS (errors, or warnings with ``--strict``) or
    EXIT_USAGE (a named path missing, ``--base`` unusable, a side file that
    cannot be written).
    """
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    try:
        config = load_config(args.config, Path.cwd())
    except ConfigError as exc:
        return _did_not_run(f"config error: {exc}", fmt, args, out, err)
    color = args.color == "always" or (args.color == "auto" and fmt == "text" and isatty(out)
                                       and not os.environ.get("NO_COLOR"))
    progress = _progress(err) if isatty(err) else None
    try:
        result = run_check(config, args.paths, Path.cwd(), fix=args.fix, progress=progress, base=args.base,
                           jobs=args.jobs, base_missing=args.base_missing)
    except UsageError as exc:
        return _did_not_run(str(exc), fmt, args, out, err)
    finally:
        if progress:
            err.write("\r\x1b[K")
    options = RenderOptions(color=color, quiet=args.quiet, strict=args.strict, version=__version__,
                            repo_prefix=repo_prefix(os.getcwd(), os.environ.get("GITHUB_WORKSPACE")),
                            blob_url=_blob_url() if args.summary_file or fmt == "summary" else "")
    if not args.quiet:
        for path, why in result.skipped:
            err.write(f"citelint: skipped {terminal(path)}: {why}\n")
    nothing = not args.paths and result.files == 0
    if nothing:
        # An empty input must not look like a clean one.
        err.write("citelint: no file matched the config's `reports` or `markdown` globs, so nothing was checked"
                  f"{'; failing because of --strict' if args.strict else ''}\n")
    renderer(fmt)(result, out, options)
    if fmt in ("json", "sarif", "summary"):
        err.write(summary_line(result) + "\n")
    # Rendered in memory first, so a failure never leaves half a file behind.
    for path, mode, name, what in ((args.summary_file, "a", "summary", "summary"),
                                   (args.sarif_file, "w", "sarif", "SARIF")):
        if not path:
            continue
        buffer = io.StringIO()
        renderer(name)(result, buffer, options)
        try:
            with open(path, mode, encoding="utf-8") as fh:
                fh.write(buffer.getvalue())
        except OSError as exc:
            err.write(f"citelint: cannot write {what} file {path}: {exc.strerror}\n")
            return EXIT_USAGE
    if result.count("error") or (args.strict and (result.count("warning") or nothing)):
        return EXIT_FINDINGS
    return EXIT_OK


def _blob_url() -> str:
    """Where the summary's locations link to: the commit GitHub Actions checks, or ""."""
    from citelint.gitindex import find_worktree
    from citelint.output.summary import blob_url

    if not os.environ.get("GITHUB_SHA"):
        return ""
    cwd = Path.cwd()
    found = find_worktree(cwd)
    return blob_url(os.environ, cwd, found[0] if found else None)


def _jobs(value: str) -> int:
    """argparse type for --jobs: a whole number from 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number from 1, got {value!r}")
    return int(value)


def _did_not_run(message: str, fmt: str, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Report a usage or config error: one line on stderr and, so CI never
    shows a red step without a reason, an annotation under ``--format
    github`` and a "did not run" step summary with ``--summary-file``."""
    err.write(f"citelint: {message}\n")
    if fmt == "github":
        from citelint.output.github import did_not_run as annotation

        out.write(annotation(message) + "\n")
    if args.summary_file:
        from citelint.output.summary import did_not_run as summary

        buffer = io.StringIO()
        summary(message, buffer)
        try:
            with open(args.summary_file, "a", encoding="utf-8") as fh:
                fh.write(buffer.getvalue())
        except OSError as exc:
            err.write(f"citelint: cannot write summary file {args.summary_file}: {exc.strerror}\n")
    return EXIT_USAGE


def _progress(err: TextIO) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        if total >= 20 and (done % 10 == 0 or done == total):
            err.write(f"\rchecking {done}/{total} files")
            err.flush()
    return report
