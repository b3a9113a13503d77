"""``citelint render``: a reader view of one report (HTML or Markdown).

Check one fact report or Markdown report exactly as `citelint check` does,
then write what its readers should see: verified excerpts as quotations with
their source, capture date and digest; unavailable facts as unverified, with
where to check; facts and links that failed the check never shown as
verified. Reads only, except the output file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from citelint.cli.common import EXIT_OK, EXIT_USAGE, add_config_option, load_config

NAME = "render"

EPILOG = """\
examples:
  citelint render reports/q3.json -o q3.html        an HTML page for the report's readers
  citelint render reports/answer.md --format md     the same reader view as Markdown, on stdout
  citelint render reports/q3.json > q3.html         HTML on stdout

The page is self-contained (no script, nothing loaded from elsewhere) and
shows the check's verdict; a report with errors still renders, marked failed.

exit codes: 0 rendered, 2 usage or config error (no such report, not a report
under the config, an output file that cannot be written)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``render`` options and argument to its parser."""
    from citelint.output.render import RENDER_FORMATS  # only when render's parser is built

    p.add_argument("report", metavar="REPORT", help="a fact report (JSON/YAML) or Markdown report the config matches")
    add_config_option(p)
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write to FILE (replaced atomically) instead of stdout")
    p.add_argument("--format", choices=sorted(RENDER_FORMATS), default="html", help="output format (default: html)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Check the report, build its reader view, write it.

    Returns EXIT_OK once written (whatever the check found: the view says
    it), or EXIT_USAGE (config error, the report missing or not matched by
    the config's globs, unreadable, or the output not writable).
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
    if args.output is None:
        out.write(page)
        return EXIT_OK
    try:
        _write(args.output, page.encode("utf-8"))
    except OSError as exc:
        err.write(f"citelint: cannot write {terminal(str(args.output))}: {exc.strerror}\n")
        return EXIT_USAGE
    err.write(f"citelint: wrote {terminal(str(args.output))} ({counts})\n")
    return EXIT_OK


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all: a new file is created complete, an
    existing one replaced in one rename (never written through a symlink).

    Raises:
        OSError: the directory cannot be written.
    """
    from citelint.files import replace_atomically, write_exclusive

    if path.exists() or not write_exclusive(path, data, tmp_prefix=".citelint-render-"):
        replace_atomically(path, data, tmp_prefix=".citelint-render-")
