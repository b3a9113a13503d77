"""Command line: parse arguments, call the rest, map outcomes to exit codes.

This is the only module that prints. ``main`` takes its streams as
arguments and returns a status, so tests run the whole CLI in-process.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence, TextIO

from citelint import __version__

EXIT_OK = 0  # nothing at error severity (warnings too, unless --strict)
EXIT_FINDINGS = 1  # at least one finding at error severity; capture/migrate: a source failed
EXIT_USAGE = 2  # bad arguments, unusable config, unreadable input path, internal error

EPILOG_CHECK = """\
examples:
  citelint check                         check every report the config matches
  citelint check reports/q3.json         check one report (others are skipped)
  citelint check --format json > out.json
  citelint check --strict --quiet        warnings fail too; print errors only

exit codes: 0 clean, 1 findings at error severity, 2 usage or config error
"""


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors through our stderr and exit code."""

    def __init__(self, *args, stdout: TextIO | None = None, stderr: TextIO | None = None,
                 **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self._stdout = stdout
        self._stderr = stderr

    def _print_message(self, message: str, file: TextIO | None = None) -> None:
        # argparse writes help and --version to sys.stdout; use the streams main() was given.
        if file is None or file is sys.stdout:
            file = self._stdout or sys.stdout
        elif file is sys.stderr:
            file = self._stderr or sys.stderr
        if message:
            file.write(message)

    def error(self, message: str) -> None:  # type: ignore[override]
        err = self._stderr or sys.stderr
        self.print_usage(err)
        err.write(f"{self.prog}: error: {message}\n")
        raise _Exit(EXIT_USAGE)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            (self._stderr or sys.stderr).write(message)
        raise _Exit(status)


class _Exit(Exception):
    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


def build_parser(stdout: TextIO, stderr: TextIO) -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from citelint.report import FORMATTERS

    parser = _Parser(prog="citelint", stdout=stdout, stderr=stderr,
                     description="Keep generated reports honest about their sources: every cited excerpt "
                                 "must occur verbatim in the exact captured revision of the exact source.",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Run `citelint COMMAND --help` for a command's options and examples.")
    parser.add_argument("--version", action="version", version=f"citelint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, metavar="FILE",
                       help="config file (default: citelint.yaml or [tool.citelint] found by walking up)")

    check = sub.add_parser("check", help="verify reports against committed captures (read-only)",
                           description="Verify fact reports and Markdown reports against the capture store. "
                                       "Reads only: no file is written (except by --fix and the --*-file "
                                       "options) and no network connection is made.",
                           epilog=EPILOG_CHECK, formatter_class=argparse.RawDescriptionHelpFormatter,
                           stdout=stdout, stderr=stderr)
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories; files outside the config's report globs are skipped")
    common(check)
    check.add_argument("--format", choices=sorted(FORMATTERS), default=None,
                       help="output format (default: text, or github when GITHUB_ACTIONS=true)")
    check.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    check.add_argument("--quiet", "-q", action="store_true", help="show errors only (and the summary)")
    check.add_argument("--fix", action="store_true",
                       help="degrade ungrounded Markdown links to their text (Markdown reports only)")
    check.add_argument("--summary-file", type=Path, metavar="FILE",
                       help="append a Markdown summary (counts, findings, semantic review) to FILE")
    check.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                       help="colour text output (auto: only on a terminal, never with NO_COLOR)")

    ls = sub.add_parser("ls", help="list captures (source, revision, date, size)",
                        description="List every capture in the store. Read-only.", stdout=stdout, stderr=stderr)
    common(ls)

    show = sub.add_parser("show", help="print one captured revision of a source",
                          description="Print a capture's metadata and text (newest revision unless "
                                      "--revision). Read-only; control characters are shown escaped.",
                          stdout=stdout, stderr=stderr)
    show.add_argument("source", metavar="SOURCE", help="the exact source URL")
    show.add_argument("--revision", metavar="SHA", help="captureSha256 (a unique prefix is enough)")
    common(show)

    migrate = sub.add_parser("migrate", help="convert legacy captures to the current layout",
                             description="Verify each legacy capture (captures/<sha256(source)>.json) and "
                                         "write it in the current layout. Corrupt records are refused; "
                                         "nothing is deleted.", stdout=stdout, stderr=stderr)
    common(migrate)

    rule = sub.add_parser("rule", help="explain a rule", stdout=stdout, stderr=stderr,
                          description="Explain a rule with a failing and a passing example.")
    rule.add_argument("rule_id", nargs="?", metavar="CLxxx", help="rule id or name")
    rule.add_argument("--list", action="store_true", help="list every rule")
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run citelint with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        parser = build_parser(out, err)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(out)
            return EXIT_USAGE
        return _COMMANDS[args.command](args, out, err)
    except _Exit as exc:
        return exc.status
    except BrokenPipeError:
        raise
    except KeyboardInterrupt:
        err.write("citelint: interrupted\n")
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - last line of defence: never a traceback
        if os.environ.get("CITELINT_DEBUG"):
            raise
        err.write(f"citelint: internal error: {type(exc).__name__}: {exc}\n"
                  "Set CITELINT_DEBUG=1 for a traceback, and please report it.\n")
        return EXIT_USAGE


def main_exit() -> None:
    """Console-script entry point."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`citelint check | head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = EXIT_FINDINGS
    sys.exit(status)


def _load_config(args: argparse.Namespace, err: TextIO):  # type: ignore[no-untyped-def]
    from citelint.config import ConfigError, load_config

    try:
        return load_config(args.config, Path.cwd())
    except ConfigError as exc:
        err.write(f"citelint: config error: {exc}\n")
        raise _Exit(EXIT_USAGE) from None


def _cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.check import UsageError, run_check
    from citelint.report import RenderOptions, renderer, summary_line

    config = _load_config(args, err)
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = args.color == "always" or (args.color == "auto" and fmt == "text" and _isatty(out)
                                       and not os.environ.get("NO_COLOR"))
    progress = _progress(err) if _isatty(err) else None
    try:
        result = run_check(config, args.paths, Path.cwd(), fix=args.fix, progress=progress)
    except UsageError as exc:
        err.write(f"citelint: {exc}\n")
        return EXIT_USAGE
    finally:
        if progress:
            err.write("\r\x1b[K")
    options = RenderOptions(color=color, quiet=args.quiet, version=__version__)
    renderer(fmt)(result, out, options)
    if fmt in ("json", "sarif"):
        err.write(summary_line(result) + "\n")
    if args.summary_file:
        try:
            with open(args.summary_file, "a", encoding="utf-8") as fh:
                from citelint.report.summary import render as render_summary

                render_summary(result, fh, options)
        except OSError as exc:
            err.write(f"citelint: cannot write summary file {args.summary_file}: {exc.strerror}\n")
            return EXIT_USAGE
    if result.count("error") or (args.strict and result.count("warning")):
        return EXIT_FINDINGS
    return EXIT_OK


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _progress(err: TextIO):  # type: ignore[no-untyped-def]
    def report(done: int, total: int) -> None:
        if total >= 20 and (done % 10 == 0 or done == total):
            err.write(f"\rchecking {done}/{total} files")
            err.flush()
    return report


def _cmd_ls(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.captures import CaptureError, Store
    from citelint.config import relpath
    from citelint.report import neutralize

    config = _load_config(args, err)
    store = Store(config.captures_dir)
    rows = []
    bad = 0
    for path, rec in store.iter_records():
        if isinstance(rec, CaptureError):
            bad += 1
            rows.append(("CORRUPT", relpath(path, Path.cwd()), "", "", str(rec)))
        else:
            rows.append(("", rec.source, rec.sha256, rec.retrieved_at, f"{rec.bytes} B"))
    rows.sort(key=lambda r: (r[1], r[3]))
    out.write("source\trevision\tretrievedAt\tsize\n")
    for flag, source, sha, when, size in rows:
        if flag:
            out.write(f"{neutralize(source)}\tCORRUPT: {neutralize(size)}\n")
        else:
            out.write(f"{neutralize(source)}\t{sha}\t{when}\t{size}\n")
    legacy = store.legacy_files()
    out.write(f"{len(rows) - bad} capture(s), {bad} corrupt, {len(legacy)} legacy file(s)"
              f"{' (run citelint migrate)' if legacy else ''}\n")
    return EXIT_FINDINGS if bad else EXIT_OK


def _cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.captures import CaptureError, Store
    from citelint.report import neutralize

    config = _load_config(args, err)
    store = Store(config.captures_dir)
    revisions = store.revisions(args.source)
    if not revisions:
        err.write(f"citelint: no capture of {args.source!r}"
                  f"{'' if config.is_approved(args.source) else ' (and it is not an approved source)'}\n")
        return EXIT_FINDINGS
    if args.revision:
        matches = [r for r in revisions if r.sha256.startswith(args.revision.lower())]
        if len(matches) != 1:
            err.write(f"citelint: revision {args.revision!r} matches {len(matches)} capture(s) of this source\n")
            return EXIT_USAGE if matches else EXIT_FINDINGS
        chosen = matches[0].sha256
    else:
        good = store.verified_revisions(args.source)
        if not good:
            err.write("citelint: every capture of this source is corrupt; see `citelint ls`\n")
            return EXIT_FINDINGS
        chosen = good[-1].sha256
    try:
        rec = store.lookup(args.source, chosen)
    except CaptureError as exc:
        err.write(f"citelint: capture {chosen[:12]}… is corrupt: {exc}\n")
        return EXIT_FINDINGS
    out.write(f"source:      {neutralize(rec.source)}\nrevision:    {rec.sha256}\n"
              f"retrievedAt: {rec.retrieved_at}\ncontentType: {neutralize(rec.content_type)}\n"
              f"bytes:       {rec.bytes}\nrevisions:   {len(revisions)}\n\n")
    for line in rec.text.splitlines() or [""]:
        out.write(neutralize(line) + "\n")
    return EXIT_OK


def _cmd_migrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.captures import migrate
    from citelint.config import relpath
    from citelint.report import neutralize

    config = _load_config(args, err)
    try:
        outcomes = migrate(config.captures_dir)
    except OSError as exc:
        err.write(f"citelint: cannot write to {config.captures_dir}: {exc.strerror}\n")
        return EXIT_USAGE
    for o in outcomes:
        out.write(f"{relpath(o.path, Path.cwd())}: {o.status}: {neutralize(o.detail)}\n")
    refused = sum(o.status == "refused" for o in outcomes)
    out.write(f"{len(outcomes)} legacy file(s): {sum(o.status == 'migrated' for o in outcomes)} migrated, "
              f"{refused} refused. Legacy files are not deleted: remove them in a commit once reviewed.\n")
    return EXIT_FINDINGS if refused else EXIT_OK


def _cmd_rule(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.model import RULES

    if args.list or not args.rule_id:
        for r in RULES.values():
            out.write(f"{r.id}  {r.name:<22} {r.severity:<8} {r.summary}\n")
        return EXIT_OK
    wanted = args.rule_id.strip()
    rule = RULES.get(wanted.upper()) or next((r for r in RULES.values() if r.name == wanted), None)
    if rule is None:
        err.write(f"citelint: unknown rule {wanted!r}; `citelint rule --list` shows them all\n")
        return EXIT_USAGE
    out.write(f"{rule.id} {rule.name} (default severity: {rule.severity}"
              f"{'; cannot be lowered' if rule.locked else ''})\n\n{rule.summary}\n\n"
              f"fails:  {rule.bad}\npasses: {rule.good}\n\nmore: {rule.help_uri}\n")
    return EXIT_OK


_COMMANDS = {
    "check": _cmd_check,
    "ls": _cmd_ls,
    "show": _cmd_show,
    "migrate": _cmd_migrate,
    "rule": _cmd_rule,
}
