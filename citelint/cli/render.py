"""``citelint render``: a reader view of one report (HTML or Markdown).

Check one fact report or Markdown report exactly as `citelint check` does,
then write what its readers should see: verified excerpts as quotations with
their source, capture date and digest; unavailable facts as unverified, with
where to check; facts and links that failed the check never shown as
verified. Writes only the output file (-o), and never a report, evidence
or the config; exits as `citelint check` would.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Output, add_config_option, load_config

NAME = "render"

EPILOG = """\
examples:
  citelint render reports/q3.json -o q3.html        an HTML page for the report's readers
  citelint render reports/answer.md --format md     the same reader view as Markdown, on stdout
  citelint render reports/q3.json > q3.html         HTML on stdout

Each verified citation says in words which of three tiers it is in: "excerpt
verified by citelint" (not yet reviewed by a person), "reviewed: supports" or
"reviewed: does not support", with the reviewer and date from the review
ledger (`citelint review`). In a Markdown report each verified quotation is
numbered where it stands and its evidence (excerpt, source, revision) is
shown under the report; a quotation or figure the cited capture lacks
(CL204, CL205, CL206) is marked in the sentence itself, and a figure no
surviving citation backs says where to check.

The page is self-contained (no script, nothing loaded from elsewhere) and
shows the check's verdict; a report with errors still renders, marked failed,
and the command then exits 1, so `citelint render r.md -o r.html && publish`
never publishes a failing report (with --strict, as `check --strict`, a
report with warnings fails too).

writes: only FILE (-o), created or replaced whole; never a symlink, a FIFO or
a directory, never a report the config matches, a capture or the config.

exit codes: 0 rendered and nothing at error severity, 1 rendered with findings
at error severity (--strict: warnings too), 2 usage or config error (no such report, not a report
under the config, an output file that is refused or cannot be written)
(--exit-zero: 0 unless a usage or config error)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``render`` options and argument to its parser."""
    from citelint.output.render import RENDER_FORMATS  # only when render's parser is built

    p.add_argument("report", metavar="REPORT", help="a fact report (JSON/YAML) or Markdown report the config matches")
    add_config_option(p)
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write to FILE (replaced whole) instead of stdout; never a report, capture or the config")
    p.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even with findings (a usage or config error is still 2)")
    p.add_argument("--format", choices=sorted(RENDER_FORMATS), default="html", help="output format (default: html)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Check the report, build its reader view, write it.

    The view is written whatever the check found (it says so); the status
    is then the check's: EXIT_OK, EXIT_FINDINGS for findings at error
    severity, or warnings with ``--strict`` (EXIT_OK with ``--exit-zero``), or EXIT_USAGE (config error,
    the report missing or not matched by the config's globs, unreadable, or
    the output refused or not writable: then nothing is written).
    """
    from citelint import __version__
    from citelint.check.run import run_check
    from citelint.errors import UsageError
    from citelint.escape import terminal
    from citelint.output import summary_line
    from citelint.output.render import RENDER_FORMATS
    from citelint.reader.build import reader_view

    config = load_config(args, err)
    cwd = Path.cwd()
    output = Output("-o", args.output, config, inputs=[args.report]) if args.output is not None else None
    problem = output.problem() if output is not None else None
    if problem:
        err.write(f"citelint: {problem}\n")
        return EXIT_USAGE
    try:
        # The check keeps what the view needs: the report is read, loaded and rendered once.
        result = run_check(config, [args.report], cwd, jobs=1, detail=True)
    except UsageError as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    if result.files != 1:
        why = result.skipped[0][1] if result.skipped else "it is not a report"
        err.write(f"citelint: cannot render {terminal(args.report)}: {terminal(why)}\n")
        return EXIT_USAGE
    # One file checked: one detail, kept under the path the findings name. A
    # report the check refused to open (CL001: a symlink out of the project,
    # a FIFO) has nothing in it but that finding.
    assert result.details is not None
    [display] = result.details
    counts = summary_line(result).removeprefix("citelint: ")
    view = reader_view(result, display, config, counts)
    page = RENDER_FORMATS[args.format](view, __version__)
    if output is None:
        out.write(page)
    else:
        problem = output.write(page)
        if problem:
            err.write(f"citelint: {problem}\n")
            return EXIT_USAGE
        err.write(f"citelint: wrote {terminal(str(args.output))} ({counts})\n")
    # As `check` exits: a failing report's view is written, and the status says it failed.
    failed = result.count("error") or (args.strict and result.count("warning"))
    return EXIT_FINDINGS if failed and not args.exit_zero else EXIT_OK
