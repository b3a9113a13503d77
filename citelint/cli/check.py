"""``citelint check``: verify reports against committed captures (read-only).

Verify fact reports and Markdown reports against the capture store. Reads
only: no file is written (except by --fix and the --*-file options) and no
network connection is made.
"""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citelint import __version__
from citelint.api.project import check_paths, open_project, project_config
from citelint.check.parallel import AUTO_JOBS_MIN_CAPTURES
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Output, add_config_option, clashing_outputs, isatty
from citelint.config import Config, discover, load_config
from citelint.errors import ConfigError, UsageError
from citelint.escape import terminal
from citelint.facts import CONTEXT_CHARS
from citelint.output import FORMATTERS, RenderOptions, did_not_run, renderer, repo_prefix, summary_line

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

writes: nothing, except what a flag asks for: --output-file and --sarif-file
(created or replaced whole), --summary-file (appended to a regular file) and
--fix (the Markdown reports it checked, in place). Never through a symlink,
never into a FIFO or directory, never over a capture, the config (of this
run, or of the project the file lands in; a citelint.yaml anywhere) or (for
the --*-file options) a report or a file named as a PATH: such a file is
refused (exit 2) and left alone. Two options naming one file are refused
before the check runs.

exit codes: 0 clean, 1 findings at error severity, 2 usage or config error
(--exit-zero: 0 unless a usage or config error)
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
                       help="append a Markdown summary (counts, findings, semantic review) to the regular FILE; "
                            "with --base its review list holds only the citations the change added")
    check.add_argument("--sarif-file", type=Path, metavar="FILE",
                       help="also write SARIF 2.1.0 to FILE (for code scanning), whatever --format is")
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
    check.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                       help="colour text output (auto: on a terminal, or with FORCE_COLOR; never with NO_COLOR)")
    check.add_argument("--review", action="store_true",
                       help="list the accepted citations for semantic review (text output; otherwise one line "
                            "counts them)")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of findings per rule instead of the findings (text output)")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even with findings (a usage or config error is still 2)")
    check.add_argument("--output-file", "-o", type=Path, metavar="FILE",
                       help="write the output to FILE instead of standard output (written whole, or not at all; "
                            "never a report, capture or the config)")
    check.add_argument("--stdin-filename", metavar="NAME",
                       help="with PATH '-': the report on standard input is checked as if it were the file NAME "
                            "(its globs, its format, its place in messages)")


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
    """Run the check, render it in the chosen format, write the side files.

    Returns EXIT_OK, EXIT_FINDINGS (errors, or warnings with ``--strict``) or
    EXIT_USAGE (a named path missing, ``--base`` unusable, a side file that
    cannot be written).
    """
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    stdin = None
    if "-" in args.paths or args.stdin_filename:
        problem = _stdin_problem(args)
        if problem:
            return _did_not_run(problem, fmt, args, out, err)
        stdin = (args.stdin_filename, _read_stdin())
    resolving = _ask_git_early(args.base, args.config)
    try:
        project = open_project(args.config, Path.cwd())
    except ConfigError as exc:
        if resolving is not None:
            resolving.close()
        return _did_not_run(f"config error: {exc}", fmt, args, out, err)
    config = project_config(project)
    outputs = _outputs(args, config)
    clash = clashing_outputs(list(outputs.values()))
    if clash:
        return _did_not_run(clash, fmt, args, out, err, summary=False)
    for name, output in outputs.items():
        problem = output.problem()
        if problem:
            # Vetted before the check runs: a refused file fails fast, and no other output is half done.
            return _did_not_run(problem, fmt, args, out, err, summary=name != "summary")
    final_out, out = out, (io.StringIO() if args.output_file else out)
    form = FORMATTERS[fmt]
    color = args.color == "always" or (args.color == "auto" and form.color and not args.output_file
                                       and _color_env(isatty(final_out)))
    # Only a format with context (and the step summary) shows the capture text around each snippet.
    context = bool(args.summary_file) or form.context
    progress = _progress(err) if isatty(err) else None
    try:
        # The check the Python API runs (citelint.Project), so the two cannot disagree.
        result = check_paths(project, [] if stdin else args.paths, cwd=Path.cwd(), fix=args.fix, progress=progress,
                             base=args.base, resolving=resolving, jobs=args.jobs, base_missing=args.base_missing,
                             stdin=stdin, context_chars=CONTEXT_CHARS if context else 0,
                             # The step summary lists only the unreviewed citations the change added.
                             base_reports=bool(args.summary_file) or fmt == "summary",
                             # Text (without --review) and SARIF count the accepted citations: none is kept.
                             keep_accepted=form.lists or args.review or bool(args.summary_file))
    except UsageError as exc:
        return _did_not_run(str(exc), fmt, args, final_out, err)
    finally:
        if resolving is not None:
            resolving.close()
        if progress:
            err.write("\r\x1b[K")
    options = RenderOptions(color=color, quiet=args.quiet, strict=args.strict, version=__version__,
                            repo_prefix=repo_prefix(os.getcwd(), os.environ.get("GITHUB_WORKSPACE")),
                            blob_url=_blob_url() if context else "",
                            review=args.review, statistics=args.statistics)
    if not args.quiet:
        for path, why in result.skipped:
            err.write(f"citelint: skipped {terminal(path)}: {why}\n")
    nothing = not args.paths and not stdin and result.files == 0
    if nothing:
        # An empty input must not look like a clean one.
        err.write("citelint: no file matched the config's `reports` or `markdown` globs, so nothing was checked"
                  f"{'; failing because of --strict' if args.strict else ''}\n")
    renderer(fmt)(result, out, options)
    if args.output_file:
        problem = outputs["output"].write(out.getvalue())  # type: ignore[attr-defined]
        if problem:
            err.write(f"citelint: {problem}\n")
            return EXIT_USAGE
    if form.machine or args.output_file:
        err.write(summary_line(result) + "\n")
    # Rendered in memory first, so a failure never leaves half a file behind.
    for name in ("summary", "sarif"):
        if name not in outputs:
            continue
        buffer = io.StringIO()
        renderer(name)(result, buffer, options)
        problem = outputs[name].write(buffer.getvalue())
        if problem:
            err.write(f"citelint: {problem}\n")
            return EXIT_USAGE
    if args.exit_zero:
        return EXIT_OK
    if result.count("error") or (args.strict and (result.count("warning") or nothing)):
        return EXIT_FINDINGS
    return EXIT_OK


def _blob_url() -> str:
    """Where the summary's locations link to: the commit GitHub Actions checks, or ""."""
    from citelint.git.index import find_worktree
    from citelint.output.summary import blob_url

    if not os.environ.get("GITHUB_SHA"):
        return ""
    cwd = Path.cwd()
    found = find_worktree(cwd)
    return blob_url(os.environ, cwd, found[0] if found else None)


def _outputs(args: argparse.Namespace, config: Config | None) -> dict[str, Output]:
    """The files this run will write, by format name: ``--output-file``
    (replaced whole), ``--sarif-file`` (replaced whole) and ``--summary-file``
    (appended to, as GitHub's ``$GITHUB_STEP_SUMMARY`` is); none may be
    evidence, the config, a report or a file named as an input. With no
    ``config`` (it failed to load), the config file named or discovered is
    still protected, and every captures directory it could name."""
    found = {}
    config_file = None if config is not None else _config_file(args)
    for name, path, flag, mode in (("output", args.output_file, "--output-file", "replace"),
                                   ("sarif", args.sarif_file, "--sarif-file", "replace"),
                                   ("summary", args.summary_file, "--summary-file", "append")):
        if path:
            found[name] = Output(flag, path, config, mode=mode, config_file=config_file, inputs=_inputs(args))
    return found


def _inputs(args: argparse.Namespace) -> list[str]:
    """The files named on the command line as inputs: no output may replace
    one, not even one the check skips as not a report."""
    return [p for p in args.paths if p != "-"] + ([args.stdin_filename] if args.stdin_filename else [])


def _config_file(args: argparse.Namespace) -> Path | None:
    """The config file ``--config`` names, or the one discovered from the
    working directory; None when there is none."""
    cwd = Path.cwd()
    if args.config:
        return args.config if args.config.is_absolute() else cwd / args.config
    try:
        return discover(cwd)
    except ConfigError:
        return None


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


def _color_env(terminal_out: bool) -> bool:
    """``--color auto``: FORCE_COLOR (set, not empty or "0") forces colour, NO_COLOR
    (set, not empty) forbids it, else colour only on a terminal
    (https://force-color.org, https://no-color.org)."""
    force = os.environ.get("FORCE_COLOR", "")
    if force and force != "0":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    return terminal_out


def _jobs(value: str) -> int:
    """argparse type for --jobs: a whole number from 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number from 1, got {value!r}")
    return int(value)


def _did_not_run(message: str, fmt: str, args: argparse.Namespace, out: TextIO, err: TextIO, *,
                 summary: bool = True) -> int:
    """Report a usage or config error: one line on stderr and, so CI never
    shows a red step without a reason, the format's own notice where it has
    one (:attr:`Format.not_run`; ``--format github``: an annotation) and a
    "did not run" step summary with ``--summary-file`` (unless ``summary`` is
    False: the summary file is what was refused)."""
    err.write(f"citelint: {message}\n")
    if FORMATTERS[fmt].not_run:
        did_not_run(fmt)(message, out)
    if args.summary_file and summary:
        buffer = io.StringIO()
        did_not_run("summary")(message, buffer)
        # The config may be what failed: the writer then protects what that config file could name.
        problem = _outputs(args, _config_or_none(args))["summary"].write(buffer.getvalue())
        if problem:
            err.write(f"citelint: {problem}\n")
    return EXIT_USAGE


def _config_or_none(args: argparse.Namespace) -> Config | None:
    """The run's config, or None when it cannot be loaded."""
    try:
        return load_config(args.config, Path.cwd())
    except ConfigError:
        return None


def _progress(err: TextIO) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        if total >= 20 and (done % 10 == 0 or done == total):
            err.write(f"\rchecking {done}/{total} files")
            err.flush()
    return report
