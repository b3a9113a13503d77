"""What ``citelint check`` and ``citelint merge`` print and write from one check result.

The output options both commands take, the files they name (vetted before
any work, written whole), the formatted output, the summary line and the
exit status: one home, so a merged run of shards prints exactly what one
unsharded check prints.
"""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from citelint import __version__
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Output, clashing_outputs, isatty
from citelint.config import Config, discover, load_config
from citelint.errors import ConfigError
from citelint.escape import terminal
from citelint.model import CheckResult
from citelint.output import FORMATTERS, RenderOptions, did_not_run, renderer, repo_prefix, summary_line


def add_output_options(p: argparse.ArgumentParser) -> None:
    """Add the options that shape a check's output (``--format``, ``--strict``, ``--quiet``,
    the ``--*-file`` options, ``--color``, ``--review``, ``--statistics``, ``--exit-zero``)."""
    p.add_argument("--format", choices=sorted(FORMATTERS), default=None,
                   help="output format (default: text, or github when GITHUB_ACTIONS=true)")
    p.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    p.add_argument("--quiet", "-q", action="store_true", help="show errors only (and the summary)")
    p.add_argument("--summary-file", type=Path, metavar="FILE",
                   help="append a Markdown summary (counts, findings, semantic review) to the regular FILE; "
                        "with --base its review list holds only the citations the change added")
    p.add_argument("--sarif-file", type=Path, metavar="FILE",
                   help="also write SARIF 2.1.0 to FILE (for code scanning), whatever --format is")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="colour text output (auto: on a terminal, or with FORCE_COLOR; never with NO_COLOR)")
    p.add_argument("--review", action="store_true",
                   help="list the accepted citations for semantic review (text output; otherwise one line "
                        "counts them)")
    p.add_argument("--statistics", action="store_true",
                   help="print the number of findings per rule instead of the findings (text output)")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even with findings (a usage or config error is still 2)")
    p.add_argument("--output-file", "-o", type=Path, metavar="FILE",
                   help="write the output to FILE instead of standard output (written whole, or not at all; "
                        "never a report, capture or the config)")


def format_of(args: argparse.Namespace) -> str:
    """The output format: ``--format``, else github when ``GITHUB_ACTIONS=true``, else text."""
    return args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")


def wants_context(args: argparse.Namespace, fmt: str) -> bool:
    """True when the output shows capture text around each snippet (a format
    with context, or the step summary), so the check must keep it."""
    return bool(args.summary_file) or FORMATTERS[fmt].context


def wants_listing(args: argparse.Namespace, fmt: str) -> bool:
    """True when the output lists the accepted citations (a format that lists
    them, ``--review`` or the step summary); text and SARIF only count them, so
    the check then keeps nothing of one (at a million facts, most of its memory)."""
    return FORMATTERS[fmt].lists or bool(args.review) or bool(args.summary_file)


def wants_summary(args: argparse.Namespace, fmt: str) -> bool:
    """True when the step summary is written, whose review list needs the base's fingerprints."""
    return bool(args.summary_file) or fmt == "summary"


def output_files(args: argparse.Namespace, config: Config | None, inputs: Sequence[str]) -> dict[str, Output]:
    """The files this run will write, by format name: ``--output-file``
    (replaced whole), ``--sarif-file`` (replaced whole) and ``--summary-file``
    (appended to, as GitHub's ``$GITHUB_STEP_SUMMARY`` is); none may be
    evidence, the config, a report or one of ``inputs`` (the files named on
    the command line). With no ``config`` (it failed to load), the config
    file named or discovered is still protected, and every captures
    directory it could name."""
    found = {}
    config_file = None if config is not None else _config_file(args)
    for name, path, flag, mode in (("output", args.output_file, "--output-file", "replace"),
                                   ("sarif", getattr(args, "sarif_file", None), "--sarif-file", "replace"),
                                   ("summary", getattr(args, "summary_file", None), "--summary-file", "append")):
        if path:
            found[name] = Output(flag, path, config, mode=mode, config_file=config_file, inputs=inputs)
    return found


def vet(outputs: dict[str, Output]) -> tuple[str, bool] | None:
    """Why the run must not start because of its output files: (message, whether a
    "did not run" summary may still be written), or None when every one may be written."""
    clash = clashing_outputs(list(outputs.values()))
    if clash:
        return clash, False
    for name, output in outputs.items():
        problem = output.problem()
        if problem:
            # Vetted before the check runs: a refused file fails fast, and no other output is half done.
            return problem, name != "summary"
    return None


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


def not_run(message: str, fmt: str, args: argparse.Namespace, out: TextIO, err: TextIO,
            inputs: Sequence[str], *, summary: bool = True) -> int:
    """Report a usage or config error: one line on stderr and, so CI never
    shows a red step without a reason, the format's own notice where it has
    one (:attr:`Format.not_run`; ``--format github``: an annotation) and a
    "did not run" step summary with ``--summary-file`` (unless ``summary`` is
    False: the summary file is what was refused). Returns EXIT_USAGE."""
    err.write(f"citelint: {message}\n")
    if FORMATTERS[fmt].not_run:
        did_not_run(fmt)(message, out)
    if getattr(args, "summary_file", None) and summary:
        buffer = io.StringIO()
        did_not_run("summary")(message, buffer)
        # The config may be what failed: the writer then protects what that config file could name.
        problem = output_files(args, _config_or_none(args), inputs)["summary"].write(buffer.getvalue())
        if problem:
            err.write(f"citelint: {problem}\n")
    return EXIT_USAGE


def _config_or_none(args: argparse.Namespace) -> Config | None:
    """The run's config, or None when it cannot be loaded."""
    try:
        return load_config(args.config, Path.cwd())
    except ConfigError:
        return None


def deliver(result: CheckResult, args: argparse.Namespace, fmt: str, outputs: dict[str, Output], out: TextIO,
            err: TextIO, *, nothing: bool) -> int:
    """Print ``result`` in format ``fmt`` (to ``out``, or whole to ``--output-file``),
    the skipped paths and the summary line on ``err``, and write the side files.
    ``nothing`` is True when no path was given and no file matched (an empty
    run must not look like a clean one). Returns EXIT_OK, EXIT_FINDINGS
    (errors, or warnings or ``nothing`` with ``--strict``) or EXIT_USAGE (a
    file that could not be written)."""
    final_out, out = out, (io.StringIO() if args.output_file else out)
    form = FORMATTERS[fmt]
    color = args.color == "always" or (args.color == "auto" and form.color and not args.output_file
                                       and _color_env(isatty(final_out)))
    options = RenderOptions(color=color, quiet=args.quiet, strict=args.strict, version=__version__,
                            repo_prefix=repo_prefix(os.getcwd(), os.environ.get("GITHUB_WORKSPACE")),
                            blob_url=_blob_url() if wants_context(args, fmt) else "",
                            review=args.review, statistics=args.statistics)
    if not args.quiet:
        for path, why in result.skipped:
            err.write(f"citelint: skipped {terminal(path)}: {why}\n")
    if nothing:
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
