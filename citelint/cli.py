"""Command line: parse arguments, call the rest, map outcomes to exit codes.

This is the only module that prints. ``main`` takes its streams as
arguments and returns a status, so tests run the whole CLI in-process.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Sequence, TextIO

from citelint import __version__
from citelint.escape import terminal

EXIT_OK = 0  # nothing at error severity (warnings too, unless --strict)
EXIT_FINDINGS = 1  # at least one finding at error severity; capture/migrate: a source failed
EXIT_USAGE = 2  # bad arguments, unusable config, unreadable input path, internal error

#: Examples shown by ``citelint COMMAND --help`` (check and capture have their own).
EPILOGS = {
    "ls": """\
examples:
  citelint ls                            every capture: source, revision (captureSha256), date, size
  citelint ls --config docs/citelint.yaml
""",
    "show": """\
examples:
  citelint show https://example.org/q3.txt                 the newest revision
  citelint show https://example.org/q3.txt --revision 5891b5b5
""",
    "migrate": """\
examples:
  citelint migrate                       copy each verified legacy record into the current layout
  git rm captures/*.json                 then remove the legacy files in a reviewed commit

exit codes: 0 every legacy record migrated, 1 a record was refused, 2 usage or config error
""",
    "rule": """\
examples:
  citelint rule CL104                    explain snippet-not-found with examples
  citelint rule snippet-not-found        the same, by name
  citelint rule --list                   every rule with its default severity
""",
    "init": """\
examples:
  citelint init                          in the repository root; then edit sources and labels
""",
}

EPILOG_CHECK = """\
examples:
  citelint check                         check every report the config matches
  citelint check reports/q3.json         check one report (others are skipped)
  citelint check --format json > out.json
  citelint check --strict --quiet        warnings fail too; print errors only
  citelint check --base origin/main      also: captures changed since main (CL301, CL302)
  citelint check --sarif-file out.sarif  text on stdout, SARIF for code scanning in out.sarif

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
    from citelint.output import FORMATTERS

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
    check.add_argument("--sarif-file", type=Path, metavar="FILE",
                       help="also write SARIF 2.1.0 to FILE (for code scanning), whatever --format is")
    check.add_argument("--base", metavar="REF",
                       help="diff-aware rules: compare captures/ with git REF (its merge base with HEAD); "
                            "a changed capture is CL301, a cited capture not on REF is CL302 when "
                            "require_captures_on_base is set")
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
    rule.add_argument("--markdown", action="store_true", help="print every rule as Markdown (docs/rules.md)")

    sub.add_parser("init", help="create a starter citelint.yaml and captures/.gitattributes",
                   description="Write a starter citelint.yaml and captures/.gitattributes (* -text) in the "
                               "current directory, then print pre-commit and GitHub Actions snippets. "
                               "An existing file is never overwritten: it is reported and left alone.",
                   stdout=stdout, stderr=stderr)
    _add_capture_parser(sub, common, stdout, stderr)
    for name, epilog in EPILOGS.items():
        sub.choices[name].epilog = epilog
        sub.choices[name].formatter_class = argparse.RawDescriptionHelpFormatter
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
    from citelint.output import RenderOptions, renderer, summary_line
    from citelint.output.summary import render as renderer_summary

    config = _load_config(args, err)
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    color = args.color == "always" or (args.color == "auto" and fmt == "text" and _isatty(out)
                                       and not os.environ.get("NO_COLOR"))
    progress = _progress(err) if _isatty(err) else None
    try:
        result = run_check(config, args.paths, Path.cwd(), fix=args.fix, progress=progress, base=args.base)
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
    # Rendered in memory first, so a failure never leaves half a file behind.
    for path, mode, name, what in ((args.summary_file, "a", "summary", "summary"),
                                   (args.sarif_file, "w", "sarif", "SARIF")):
        if not path:
            continue
        buffer = io.StringIO()
        (renderer_summary if name == "summary" else renderer(name))(result, buffer, options)
        try:
            with open(path, mode, encoding="utf-8") as fh:
                fh.write(buffer.getvalue())
        except OSError as exc:
            err.write(f"citelint: cannot write {what} file {path}: {exc.strerror}\n")
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
            out.write(f"{terminal(source)}\tCORRUPT: {terminal(size)}\n")
        else:
            out.write(f"{terminal(source)}\t{sha}\t{when}\t{size}\n")
    legacy = store.legacy_files()
    out.write(f"{len(rows) - bad} capture(s), {bad} corrupt, {len(legacy)} legacy file(s)"
              f"{' (run citelint migrate)' if legacy else ''}\n")
    return EXIT_FINDINGS if bad else EXIT_OK


def _cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.captures import CaptureError, Store

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
    out.write(f"source:      {terminal(rec.source)}\nrevision:    {rec.sha256}\n"
              f"retrievedAt: {rec.retrieved_at}\ncontentType: {terminal(rec.content_type)}\n"
              f"bytes:       {rec.bytes}\nrevisions:   {len(revisions)}\n\n")
    for line in rec.text.splitlines() or [""]:
        out.write(terminal(line) + "\n")
    return EXIT_OK


def _cmd_migrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.captures import migrate
    from citelint.config import relpath

    config = _load_config(args, err)
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


def _cmd_rule(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.model import RULES, rules_markdown

    if args.markdown:
        out.write(rules_markdown())
        return EXIT_OK
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


def _cmd_init(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.scaffold import create_starter_files, snippets

    try:
        outcomes = create_starter_files(Path.cwd())
    except OSError as exc:
        err.write(f"citelint: cannot write starter files in {Path.cwd()}: {exc.strerror}\n")
        return EXIT_USAGE
    for outcome in outcomes:
        out.write(f"{outcome.status}: {outcome.path}{f' ({outcome.detail})' if outcome.detail else ''}\n")
    out.write("\n" + snippets(__version__))
    return EXIT_OK


# --------------------------------------------------------------------------- capture

EPILOG_CAPTURE = """\
examples:
  citelint capture                       fetch every approved source that has no capture yet
  citelint capture https://example.org/q3.txt
                                         fetch one approved source (adds a revision if its text changed)
  citelint capture --all                 re-fetch every approved source
  citelint capture --dry-run             list what would be fetched; fetch and write nothing
  citelint capture --source https://example.org/q3.txt --from-file q3.txt
                                         record text a retrieval pipeline already holds (- for stdin)

Only sources listed in the config's `sources` are fetched, over https, from
globally routable addresses, with no redirects and within capture.timeout_s
and capture.max_bytes. Captures are only ever added, never replaced.

exit codes: 0 every source captured (or already captured), 1 a source was
refused, 2 usage or config error
"""


def _add_capture_parser(sub, common, stdout: TextIO, stderr: TextIO) -> None:  # type: ignore[no-untyped-def]
    """The ``capture`` subcommand (the trusted stage that writes captures)."""
    capture = sub.add_parser("capture", help="fetch approved sources and add captures (trusted stage)",
                             description="Fetch approved sources with a bounded HTTPS client and add "
                                         "their text to the capture store, or record text already "
                                         "retrieved (--from-file). Existing captures are never replaced.",
                             epilog=EPILOG_CAPTURE, formatter_class=argparse.RawDescriptionHelpFormatter,
                             stdout=stdout, stderr=stderr)
    capture.add_argument("urls", nargs="*", metavar="URL",
                         help="approved sources to fetch (default: every approved source with no capture)")
    common(capture)
    capture.add_argument("--all", action="store_true", dest="refetch_all",
                         help="re-fetch every approved source; a changed text adds a new revision")
    capture.add_argument("--dry-run", action="store_true",
                         help="list the sources that would be fetched; no network, no writes")
    capture.add_argument("--source", metavar="URL",
                         help="with --from-file: the approved source the text was retrieved from")
    capture.add_argument("--from-file", metavar="FILE",
                         help="record the UTF-8 text in FILE (- for standard input) instead of fetching")
    capture.add_argument("--content-type", metavar="TYPE",
                         help="with --from-file: the record's contentType (default text/plain)")
    capture.add_argument("--retrieved-at", metavar="TIME", type=_rfc3339,
                         help="with --from-file: when the text was retrieved, RFC 3339 UTC like "
                              "2026-07-01T12:00:00Z (default: now; a fixed value keeps output reproducible)")
    capture.add_argument("--ca-file", metavar="FILE",
                         help="PEM CA bundle to trust instead of the system store "
                              "(overrides capture.ca_file)")
    capture.add_argument("--allow-http-loopback", action="store_true",
                         help="TESTING ONLY: also fetch plain http:// sources whose host is a loopback "
                              "address (a local test server); never use it for real sources")


def _rfc3339(value: str) -> str:
    """argparse type for --retrieved-at: the capture record's own rule."""
    from citelint.captures import TextRejected, make_record

    try:
        make_record("", "", retrieved_at=value)
    except TextRejected as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _cmd_capture(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from citelint.fetch import (
        REFUSED,
        CaptureRefused,
        FetchOptions,
        read_input,
        record_text,
        run_capture,
    )

    fixed = [flag for flag, on in (("--source", args.source), ("--content-type", args.content_type),
                                   ("--retrieved-at", args.retrieved_at)) if on]
    if args.from_file is None and fixed:
        err.write(f"citelint: {', '.join(fixed)} only go with --from-file\n")
        return EXIT_USAGE
    if args.from_file is not None:
        clash = [flag for flag, on in (("URL arguments", args.urls), ("--all", args.refetch_all),
                                       ("--dry-run", args.dry_run)) if on]
        if clash or not args.source:
            err.write("citelint: --from-file needs --source URL"
                      + (f" and cannot be combined with {', '.join(clash)}" if clash else "") + "\n")
            return EXIT_USAGE
    elif args.urls and args.refetch_all:
        err.write("citelint: name URLs or use --all, not both\n")
        return EXIT_USAGE
    ca_file = None
    if args.ca_file is not None:
        ca_path = Path(args.ca_file)
        if not ca_path.is_file():
            err.write(f"citelint: --ca-file {args.ca_file}: no such file\n")
            return EXIT_USAGE
        ca_file = str(ca_path.resolve())

    config = _load_config(args, err)
    options = FetchOptions.from_settings(config.capture, ca_file=ca_file,
                                         allow_http_loopback=args.allow_http_loopback)
    try:
        options.validate()
    except CaptureRefused as exc:
        err.write(f"citelint: config error: {config.path}: {exc}\n")
        return EXIT_USAGE

    if args.from_file is not None:
        try:
            data = read_input(args.from_file, options.max_bytes,
                              stdin=getattr(sys.stdin, "buffer", None))
            outcome = record_text(config.captures_dir, args.source, data, sources=config.sources,
                                  max_bytes=options.max_bytes,
                                  content_type=args.content_type or "text/plain",
                                  content_types=options.content_types, retrieved_at=args.retrieved_at)
        except OSError as exc:
            err.write(f"citelint: cannot read {args.from_file}: {exc.strerror or exc}\n")
            return EXIT_USAGE
        except CaptureRefused as exc:
            out.write(f"refused: {terminal(args.source)}: {terminal(str(exc))}\n")
            return EXIT_FINDINGS
        out.write(_capture_line(outcome) + "\n")
        return EXIT_OK

    show_progress = _isatty(err)

    def progress(index: int, total: int, source: str) -> None:
        err.write(f"\r\x1b[K[{index}/{total}] fetching {terminal(source)[:100]}")
        err.flush()

    counts: dict[str, int] = {}
    for outcome in run_capture(config.captures_dir, config.sources, options, urls=args.urls,
                               refetch_all=args.refetch_all, dry_run=args.dry_run,
                               progress=progress if show_progress else None):
        if show_progress:
            err.write("\r\x1b[K")
            err.flush()
        out.write(_capture_line(outcome) + "\n")
        out.flush()
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    if not counts:
        out.write("nothing to capture: every approved source has a capture "
                  "(name URLs or use --all to re-fetch)\n")
        return EXIT_OK
    total = sum(counts.values())
    order = ["would fetch", "captured", "already captured", "refused"]
    out.write(f"{total} source(s): " + ", ".join(f"{counts[s]} {s}" for s in order if s in counts) + "\n")
    return EXIT_FINDINGS if counts.get(REFUSED) else EXIT_OK


def _capture_line(outcome) -> str:  # type: ignore[no-untyped-def]
    """One line per source: what happened, the revision to cite, or why not."""
    source = terminal(outcome.source)
    if outcome.status == "refused":
        return f"refused: {source}: {terminal(outcome.reason)}"
    if outcome.status == "would fetch":
        return f"would fetch: {source}"
    return f"{outcome.status}: {source} revision {outcome.sha256} ({outcome.bytes} bytes)"


_COMMANDS = {
    "capture": _cmd_capture,
    "check": _cmd_check,
    "init": _cmd_init,
    "ls": _cmd_ls,
    "show": _cmd_show,
    "migrate": _cmd_migrate,
    "rule": _cmd_rule,
}
