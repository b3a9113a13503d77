"""``citelint capture``: fetch approved sources and add captures (trusted stage).

Fetch approved sources with a bounded HTTPS client and add their text to the
capture store, or record text already retrieved (--from-file). Existing
captures are never replaced.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from citelint.cli.attest import add_sign_key_option, sign_line
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, isatty, load_config
from citelint.escape import terminal
from citelint.store.captures import TextRejected, make_record

if TYPE_CHECKING:
    from citelint.capture import CaptureOutcome
    from citelint.capture.sign import SigningKey
    from citelint.capture.stage import Approval
    from citelint.config import Config
    from citelint.settings import CaptureSettings

NAME = "capture"

EPILOG = """\
examples:
  citelint capture                       fetch every approved source that has no capture yet
  citelint capture https://example.org/q3.txt
                                         fetch one approved source (adds a revision if its text changed)
  citelint capture --all                 re-fetch every approved source
  citelint capture --dry-run             list what would be fetched; fetch and write nothing
  citelint capture --source https://example.org/q3.txt --from-file q3.txt
                                         record text a retrieval pipeline already holds (- for stdin)
  citelint capture --source https://example.org/r.html --from-file r.html --content-type text/html
                                         record a page already fetched; its text is extracted
  citelint capture --from-request anthropic request.json --source-map sources.yaml
                                         record each document an Anthropic request sent (text,
                                         custom content, search results, PDFs) as one batch
  citelint capture --source https://example.org/r.pdf --from-file r.pdf --content-type application/pdf
                                         record a PDF: its text as a reader quotes it (pdf-text),
                                         with a warning naming any page that needs OCR
  citelint capture --from-request anthropic request.json --source-map sources.yaml --approve-sources
                                         print the sources: lines the request's documents need in
                                         citelint.yaml (to review, add and commit); writes nothing
  citelint capture --sign-key key        fetch, then sign each capture with an SSH key (docs/evidence.md)
  citelint capture --verify-extraction   re-run every extracted capture's recorded extractor on
                                         its raw body; exit 1 if any text differs

HTML and PDF bodies are turned into text by the extractor capture.extractors
names (text/html: html-text, application/pdf: pdf-text), in a child process
within capture.timeout_s; the raw body is kept beside the capture as
<rawSha256>.raw. They need an extra: pip install 'citelint-provenance[html]' or
'citelint-provenance[pdf]' ('citelint-provenance[html-main]' for trafilatura).
A PDF page with no usable text layer (no text, or garbled) is named in a
warning on stderr; a PDF with no usable page is refused (docs/capture.md).

With --sign-key FILE (or $CITELINT_SIGN_KEY holding the key or its path, or
capture.sign_key), each capture this run writes is verified and signed with
that SSH key (an unencrypted OpenSSH private key): a signature file beside it
(one that existed already is not signed: use `citelint attest SOURCE --revision SHA`),
checked by `citelint check` against evidence.allowed_signers.

Only sources listed in the config's `sources` are fetched, over https, from
globally routable addresses, with no redirects and within capture.timeout_s
and capture.max_bytes. Captures are only ever added, never replaced.

writes: only new evidence under the captures directory (records, raw bodies,
signatures), create-only; never replaces a file, never writes through a
symlink, a FIFO or a directory at the name, nor through a symlinked folder.

exit codes: 0 every source captured (or already captured, or reproduced),
1 a source was refused (or an extraction differs, or a capture could not be
signed), 2 usage or config error (an unusable --sign-key)
"""


def add_options(capture: argparse.ArgumentParser) -> None:
    """Add the ``capture`` options and arguments to its parser."""
    capture.add_argument("urls", nargs="*", metavar="URL",
                         help="approved sources to fetch (default: every approved source with no capture)")
    add_config_option(capture)
    capture.add_argument("--all", action="store_true", dest="refetch_all",
                         help="re-fetch every approved source; a changed text adds a new revision")
    capture.add_argument("--dry-run", action="store_true",
                         help="list the sources that would be fetched; no network, no writes")
    capture.add_argument("--source", metavar="URL",
                         help="with --from-file: the approved source the text was retrieved from")
    capture.add_argument("--from-file", metavar="FILE",
                         help="record the body in FILE (- for standard input) instead of fetching")
    capture.add_argument("--from-request", nargs=2, metavar=("VENDOR", "REQUEST"),
                         help="record each document the saved request body REQUEST sent to VENDOR "
                              "(anthropic) as a capture of its source, one batch")
    capture.add_argument("--source-map", metavar="FILE",
                         help="with --from-request: JSON or YAML object mapping a document's index "
                              "(\"0\", \"search_result:0\") or title to its source URL")
    capture.add_argument("--approve-sources", action="store_true",
                         help="with --from-request: print the `sources:` entries the request's documents "
                              "need in the config (those not approved yet) for the operator to add and "
                              "commit; writes nothing, captures nothing")
    capture.add_argument("--content-type", metavar="TYPE",
                         help="with --from-file: the body's Content-Type, which picks its extractor "
                              "(text/plain, text/html, application/pdf; default: text/plain unless the "
                              "body looks like HTML, XML, PDF, an image, an archive or binary data, which is "
                              "refused with advice for its type)")
    capture.add_argument("--retrieved-at", metavar="TIME", type=_rfc3339,
                         help="with --from-file: when the text was retrieved, RFC 3339 UTC like "
                              "2026-07-01T12:00:00Z (default: now; a fixed value keeps output reproducible; "
                              "never more than 5 minutes ahead of now)")
    capture.add_argument("--verify-extraction", action="store_true",
                         help="re-run the recorded extractor of every extracted capture (of the URLs "
                              "given, if any) on its raw body and report texts that differ")
    capture.add_argument("--ca-file", metavar="FILE",
                         help="PEM CA bundle to trust instead of the system store "
                              "(overrides capture.ca_file)")
    capture.add_argument("--allow-http-loopback", action="store_true",
                         help="TESTING ONLY: also fetch plain http:// sources whose host is a loopback "
                              "address (a local test server); never use it for real sources")
    add_sign_key_option(capture)


def _rfc3339(value: str) -> str:
    """argparse type for --retrieved-at: the capture record's own rule."""
    try:
        make_record("", "", retrieved_at=value)
    except TextRejected as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Fetch or record the sources and print one line each, then counts.

    Returns EXIT_OK, EXIT_FINDINGS when a source was refused, or EXIT_USAGE
    for conflicting options, an unreadable input or an unusable config.
    """
    # urllib3 is imported only by the capture stage, never by check.
    from citelint.capture import (
        REFUSED,
        CaptureRefused,
        ContentTypeUnclear,
        check_settings,
        read_input,
        record_text,
        run_capture,
    )

    if args.from_request is not None or args.source_map is not None or args.approve_sources:
        return _from_request(args, out, err)
    fixed = [flag for flag, on in (("--source", args.source), ("--content-type", args.content_type),
                                   ("--retrieved-at", args.retrieved_at)) if on]
    if args.from_file is None and fixed:
        err.write(f"citelint: {', '.join(fixed)} only go with --from-file\n")
        return EXIT_USAGE
    if args.from_file is not None:
        clash = [flag for flag, on in (("URL arguments", args.urls), ("--all", args.refetch_all),
                                       ("--dry-run", args.dry_run),
                                       ("--verify-extraction", args.verify_extraction)) if on]
        if clash or not args.source:
            err.write("citelint: --from-file needs --source URL"
                      + (f" and cannot be combined with {', '.join(clash)}" if clash else "") + "\n")
            return EXIT_USAGE
    elif args.verify_extraction and (args.refetch_all or args.dry_run):
        err.write("citelint: --verify-extraction cannot be combined with --all or --dry-run\n")
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

    config = load_config(args, err)
    signer = _signer(args, config.capture.sign_key, err)
    if signer is False:
        return EXIT_USAGE
    options = config.capture._replace(ca_file=ca_file or config.capture.ca_file,
                                      allow_http_loopback=args.allow_http_loopback)

    def unusable(exc: CaptureRefused) -> int:
        err.write(f"citelint: config error: {config.path}: {exc}\n")
        return EXIT_USAGE

    if args.from_file is not None or args.verify_extraction:
        # run_capture checks the settings itself; these two paths do not go through it.
        try:
            check_settings(options)
        except CaptureRefused as exc:
            return unusable(exc)

    if args.from_file is not None:
        try:
            data = read_input(args.from_file, options.max_bytes,
                              stdin=getattr(sys.stdin, "buffer", None))
            outcome = record_text(config.captures_dir, args.source, data, sources=config.sources,
                                  max_bytes=options.max_bytes,
                                  content_type=args.content_type,
                                  content_types=options.content_types, retrieved_at=args.retrieved_at,
                                  extractors=options.extractors, keep_raw=options.keep_raw,
                                  timeout_s=options.timeout_s)
        except OSError as exc:
            err.write(f"citelint: cannot read {args.from_file}: {exc.strerror or exc}\n")
            return EXIT_USAGE
        except ContentTypeUnclear as exc:
            # Not a refused source but an incomplete command: the type was assumed, never given.
            what = "standard input" if args.from_file == "-" else terminal(args.from_file)
            looks = exc.sniffed + (f" ({exc.what})" if exc.what else "")
            err.write(f"citelint: {what} looks like {terminal(looks)}: {exc.advice}; nothing was written\n")
            return EXIT_USAGE
        except CaptureRefused as exc:
            out.write(f"refused: {terminal(args.source)}: {terminal(str(exc))}\n")
            return EXIT_FINDINGS
        out.write(_capture_line(outcome) + "\n")
        if outcome.warning:
            err.write(f"citelint: warning: {terminal(args.source)}: {terminal(outcome.warning)}\n")
        return EXIT_FINDINGS if signer and _sign(signer, config.captures_dir, outcome, out, err) else EXIT_OK

    if args.verify_extraction:
        return _verify(config.captures_dir, args.urls, options, out)

    show_progress = isatty(err)

    def progress(index: int, total: int, source: str) -> None:
        err.write(f"\r\x1b[K[{index}/{total}] fetching {terminal(source)[:100]}")
        err.flush()

    counts: dict[str, int] = {}
    unsigned = False
    try:
        outcomes = run_capture(config.captures_dir, config.sources, options, urls=args.urls,
                               refetch_all=args.refetch_all, dry_run=args.dry_run,
                               progress=progress if show_progress else None)
    except CaptureRefused as exc:
        return unusable(exc)
    for outcome in outcomes:
        if show_progress:
            err.write("\r\x1b[K")
            err.flush()
        out.write(_capture_line(outcome) + "\n")
        out.flush()
        if outcome.warning:
            err.write(f"citelint: warning: {terminal(outcome.source)}: {terminal(outcome.warning)}\n")
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
        if signer and _sign(signer, config.captures_dir, outcome, out, err):
            unsigned = True  # a refused signature fails the run
    if not counts:
        out.write("nothing to capture: every approved source has a capture "
                  "(name URLs or use --all to re-fetch)\n")
        return EXIT_OK
    total = sum(counts.values())
    order = ["would fetch", "captured", "already captured", "refused"]
    out.write(f"{total} source(s): " + ", ".join(f"{counts[s]} {s}" for s in order if s in counts) + "\n")
    return EXIT_FINDINGS if counts.get(REFUSED) or unsigned else EXIT_OK


def _signer(args: argparse.Namespace, config_key: str | None, err: TextIO) -> SigningKey | None | Literal[False]:
    """The run's signing key: ``--sign-key``, ``$CITELINT_SIGN_KEY`` or
    ``capture.sign_key`` (None: no signing; False: unusable, reported on ``err``)."""
    if args.sign_key is None and not os.environ.get("CITELINT_SIGN_KEY") and config_key is None:
        return None
    from citelint.capture.sign import SignError, load_key

    if args.dry_run or args.verify_extraction:
        return None  # nothing is written, so nothing is signed
    try:
        return load_key(args.sign_key, config_key)
    except SignError as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return False


def _sign(signer: SigningKey, captures_dir: Path, outcome: CaptureOutcome, out: TextIO, err: TextIO) -> bool:
    """Sign the capture ``outcome`` wrote (never one it found already there), print the line;
    True when signing was refused."""
    from citelint.capture.sign import SignError, sign_capture

    if outcome.sha256 is None or outcome.status == "refused":
        return False
    if outcome.status != "captured" and not _signed_by(signer, captures_dir, outcome):
        # The same text was captured before: the file (its retrievedAt and other fields) was
        # not written by this run, and may have been planted; signing it is attest's decision.
        # (One this key signed already goes on to sign_capture, which says "already signed".)
        out.write(f"not signed: {terminal(outcome.source)} revision {outcome.sha256}: the capture existed "
                  "before this run, so this run did not write its record; if you vouch for it: "
                  f"citelint attest {terminal(outcome.source)} --revision {outcome.sha256[:12]}\n")
        return False
    try:
        done = sign_capture(captures_dir, outcome.source, outcome.sha256, signer)
    except SignError as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return True
    out.write(sign_line(done) + "\n")
    return done.failed


def _signed_by(signer: SigningKey, captures_dir: Path, outcome: CaptureOutcome) -> bool:
    """Whether a signature file of ``signer``'s key already sits beside the capture."""
    from citelint.capture.sign import signature_name
    from citelint.store.captures import capture_path

    assert outcome.sha256 is not None
    directory = capture_path(captures_dir, outcome.source, outcome.sha256).parent
    return os.path.lexists(directory / signature_name(outcome.sha256, signer.public_key.fingerprint_hex()))


def _from_request(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--from-request VENDOR REQUEST``: one line per document, then counts."""
    from citelint.capture import REFUSED, CaptureRefused, check_settings, read_input, record_request
    from citelint.capture.stage import sources_to_approve
    from citelint.imports.model import ResponseError
    from citelint.imports.sourcemap import MAX_MAP_BYTES, load_source_map, unused_entries

    clash = [flag for flag, on in (("URL arguments", args.urls), ("--all", args.refetch_all),
                                   ("--dry-run", args.dry_run), ("--from-file", args.from_file is not None),
                                   ("--source", args.source), ("--content-type", args.content_type),
                                   ("--verify-extraction", args.verify_extraction)) if on]
    if args.approve_sources:
        # Nothing is written, so nothing is stamped or signed.
        clash += [flag for flag, on in (("--retrieved-at", args.retrieved_at), ("--sign-key", args.sign_key)) if on]
    if args.from_request is None or clash:
        flags = "--source-map and --approve-sources go" if args.approve_sources else "--source-map goes"
        err.write(f"citelint: {flags} with --from-request VENDOR REQUEST"
                  + (f", which cannot be combined with {', '.join(clash)}" if clash else "") + "\n")
        return EXIT_USAGE
    vendor, request_path = args.from_request
    if vendor != "anthropic":
        err.write(f"citelint: --from-request knows the anthropic request format only, not {terminal(vendor)!r}\n")
        return EXIT_USAGE
    config = load_config(args, err)
    signer = None if args.approve_sources else _signer(args, config.capture.sign_key, err)
    if signer is False:
        return EXIT_USAGE
    try:
        if not args.approve_sources:  # approving reads the request only
            check_settings(config.capture)
    except CaptureRefused as exc:
        err.write(f"citelint: config error: {config.path}: {exc}\n")
        return EXIT_USAGE
    try:
        data = read_input(request_path, config.capture.max_bytes, stdin=getattr(sys.stdin, "buffer", None))
        source_map = {}
        if args.source_map is not None:
            source_map = load_source_map(read_input(args.source_map, MAX_MAP_BYTES), args.source_map)
        if args.approve_sources:
            found = sources_to_approve(data, source_map=source_map, sources=config.sources, name=request_path)
        else:
            done = record_request(config.captures_dir, data, source_map=source_map, sources=config.sources,
                                  settings=config.capture, retrieved_at=args.retrieved_at, name=request_path)
    except OSError as exc:
        err.write(f"citelint: cannot read {terminal(exc.filename or request_path)}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    except (ResponseError, CaptureRefused) as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    used = [a.mapped_by for a in found] if args.approve_sources else [d.mapped_by for d in done]
    for line in unused_entries(source_map, [k for k in used if k], "document"):
        err.write(f"citelint: warning: {terminal(line)}\n")
    if args.approve_sources:
        return _approve_sources(found, config, out, err)
    counts: dict[str, int] = {}
    unsigned = False
    for item in done:
        if item.outcome.source == item.document:  # no source URL to name
            out.write(f"{terminal(item.document)}: refused: {terminal(item.outcome.reason)}\n")
        else:
            out.write(f"{terminal(item.document)}: {_capture_line(item.outcome)}\n")
            if item.outcome.warning:
                err.write(f"citelint: warning: {terminal(item.document)}: {terminal(item.outcome.warning)}\n")
            if signer and _sign(signer, config.captures_dir, item.outcome, out, err):
                unsigned = True
        counts[item.outcome.status] = counts.get(item.outcome.status, 0) + 1
    order = ["captured", "already captured", "refused"]
    out.write(f"{len(done)} document(s): " + ", ".join(f"{counts[s]} {s}" for s in order if s in counts) + "\n")
    return EXIT_FINDINGS if counts.get(REFUSED) or unsigned else EXIT_OK


def _approve_sources(found: list[Approval], config: Config, out: TextIO, err: TextIO) -> int:
    """``--from-request VENDOR REQUEST --approve-sources``: the config entries to add on
    ``out`` (YAML ``sources:`` lines, or TOML for a ``pyproject.toml`` config), one line per
    document on ``err``. Writes nothing. Returns EXIT_OK when every document has an approvable
    source (approved already or printed), EXIT_FINDINGS when one has none."""
    from citelint.capture.stage import REFUSED

    new = list(dict.fromkeys(a.url for a in found if a.status == "to approve" and a.url))
    for item in found:
        what = f"{item.status}: {item.url}" if item.url else item.status
        err.write(f"{terminal(item.document)}: {terminal(what)}{': ' + terminal(item.reason) if item.reason else ''}\n")
    toml = config.path is not None and config.path.name == "pyproject.toml"
    if new:
        out.write(_sources_lines(new, toml))
    refused = sum(a.status == REFUSED for a in found)
    where = "the `sources` array of [tool.citelint] in" if toml else "the `sources:` list of"
    where += f" {terminal(str(config.path or 'the config'))}"
    err.write(f"citelint: {len(new)} source(s) to approve"
              + (f" (printed: add them to {where}, review, and commit; nothing was written)" if new else "")
              + f", {sum(a.status == 'approved' for a in found)} document(s) approved already"
              + (f", {refused} with no approvable source" if refused else "") + "\n")
    return EXIT_FINDINGS if refused else EXIT_OK


#: A URL that YAML reads back as itself when written plain (no quoting needed).
_PLAIN_YAML = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[\x21-\x7e]+")


def _sources_lines(urls: list[str], toml: bool) -> str:
    """``urls`` as config entries: ``sources:`` and one ``  - URL`` line each (YAML; a URL
    that YAML might read otherwise in double quotes), or a TOML ``sources = [...]``."""
    import json

    if toml:
        return "sources = [\n" + "".join(f"  {json.dumps(u, ensure_ascii=False)},\n" for u in urls) + "]\n"
    def plain(url: str) -> str:
        safe = _PLAIN_YAML.fullmatch(url) and not any(c in url for c in "\"'`\\") and not url.endswith(":")
        return url if safe else json.dumps(url, ensure_ascii=False)
    return "sources:\n" + "".join(f"  - {plain(u)}\n" for u in urls)


def _verify(captures_dir: Path, urls: list[str], options: CaptureSettings, out: TextIO) -> int:
    """``--verify-extraction``: one line per capture, then counts."""
    from citelint.capture.reproduce import verify_extraction

    counts: dict[str, int] = {}
    failed = False
    for done in verify_extraction(captures_dir, urls, deadline_s=options.timeout_s, require_raw=options.keep_raw):
        if done.status != "plain text":
            out.write(f"{done.status}: {terminal(done.source or str(done.path))} revision {done.sha256}: "
                      f"{terminal(done.detail)}\n")
            out.flush()
        counts[done.status] = counts.get(done.status, 0) + 1
        failed = failed or done.failed
    order = ["reproduced", "differs", "not verifiable", "plain text"]
    total = sum(counts.values())
    out.write(f"{total} capture(s): " + (", ".join(f"{counts[s]} {s}" for s in order if s in counts) or "none")
              + "\n")
    return EXIT_FINDINGS if failed else EXIT_OK


def _capture_line(outcome: CaptureOutcome) -> str:
    """One line per source: what happened, the revision to cite, or why not."""
    source = terminal(outcome.source)
    if outcome.status == "refused":
        return f"refused: {source}: {terminal(outcome.reason)}"
    if outcome.status == "would fetch":
        return f"would fetch: {source}"
    return f"{outcome.status}: {source} revision {outcome.sha256} ({outcome.bytes} bytes)"
