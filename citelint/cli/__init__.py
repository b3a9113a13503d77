"""Command line: parse arguments, call the rest, map outcomes to exit codes.

One module per subcommand (``check``, ``merge``, ``render``, ``capture``, ``attest``, ``import``, ``context``, ``mcp``,
``ls``, ``show``, ``migrate``, ``rule``, ``init``, ``review``), each exposing ``NAME``, ``EPILOG``, a
docstring whose first line is its ``--help`` line, ``add_options(parser)``
and ``run(args, out, err) -> int``; :data:`COMMANDS` lists them. This package is the only place that prints.
``main`` takes its streams as arguments and returns a status, so tests run
the whole CLI in-process; nothing below it calls ``sys.exit``.

Command modules keep their heavy imports (urllib3, cmark-gfm, jsonschema)
inside ``run``. A run of one command imports that command's module only (the
parser is built for it alone); ``--help``, ``--version`` and a mistyped
command build the whole parser. A pre-commit hook pays start-up on every
commit.
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TextIO

from citelint import __version__
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Exit, Parser, add_command

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "build_parser", "main", "main_exit"]

#: Subcommand name -> its module, in the order ``--help`` lists them.
COMMAND_MODULES = {
    "check": "citelint.cli.check", "render": "citelint.cli.render", "ls": "citelint.cli.ls",
    "show": "citelint.cli.show", "migrate": "citelint.cli.migrate", "rule": "citelint.cli.rule",
    "init": "citelint.cli.init", "capture": "citelint.cli.capture", "attest": "citelint.cli.attest",
    "import": "citelint.cli.import_", "context": "citelint.cli.context", "mcp": "citelint.cli.mcp",
    "review": "citelint.cli.review", "merge": "citelint.cli.merge",
}


def commands(only: str | None = None) -> list[ModuleType]:
    """The subcommand modules (each with ``NAME``, ``add_options`` and ``run``), or just
    the one named ``only``."""
    names = [only] if only in COMMAND_MODULES else list(COMMAND_MODULES)
    return [importlib.import_module(COMMAND_MODULES[name]) for name in names]


def build_parser(stdout: TextIO, stderr: TextIO, only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser writing to ``stdout``/``stderr``: for every subcommand, or
    for the one named ``only`` (what a run of that command needs)."""
    parser = Parser(prog="citelint", stdout=stdout, stderr=stderr,
                    description="Keep generated reports honest about their sources: every cited excerpt "
                                "must occur verbatim in the exact captured revision of the exact source.",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="Run `citelint COMMAND --help` for a command's options and examples.")
    parser.add_argument("--version", action="version", version=f"citelint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in commands(only):
        command.add_options(add_command(sub, command, stdout, stderr))
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run citelint with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Bad input never produces a traceback: an unexpected exception is reported
    in one line as an internal error (EXIT_USAGE) unless ``CITELINT_DEBUG`` is set.
    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr or open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - open until the process ends
    problem = _stream_problem(out)
    if problem:
        err.write(f"citelint: {problem}\n")
        return EXIT_USAGE
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        # The command is the first argument when it is not an option of citelint itself.
        only = argv[0] if argv and argv[0] in COMMAND_MODULES else None
        parser = build_parser(out, err, only)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(out)
            return EXIT_USAGE
        return {c.NAME: c for c in commands(args.command)}[args.command].run(args, out, err)
    except Exit as exc:
        return exc.status
    except BrokenPipeError:
        raise
    except KeyboardInterrupt:
        err.write("citelint: interrupted\n")
        return EXIT_USAGE
    except Exception as exc:  # last line of defence: never a traceback
        if os.environ.get("CITELINT_DEBUG"):
            raise
        err.write(f"citelint: internal error: {type(exc).__name__}: {exc}\n"
                  "Set CITELINT_DEBUG=1 for a traceback, and please report it.\n")
        return EXIT_USAGE


def _stream_problem(out: TextIO | None) -> str | None:
    """Why ``out`` cannot carry citelint's output, or None.

    Output repeats untrusted text in any script, so a stream that cannot
    encode all of Unicode would fail halfway through a report.
    """
    if out is None or getattr(out, "closed", False):
        return "standard output is closed; nothing could be reported"
    encoding = getattr(out, "encoding", None) or "utf-8"
    if codecs.lookup(encoding).name != "utf-8":
        return (f"standard output uses the {encoding} encoding, which cannot carry every character of a "
                "report; set PYTHONIOENCODING=utf-8 or use a UTF-8 locale")
    return None


def main_exit() -> None:
    """Console-script entry point: :func:`main`, then ``sys.exit`` with its status."""
    try:
        status = main()
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`citelint check | head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = EXIT_FINDINGS
    sys.exit(status)
