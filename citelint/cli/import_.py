"""``citelint import``: turn a saved model response with citations into a report.

Read a saved Anthropic, OpenAI or Gemini response (a whole JSON body, or a
saved stream of server-sent events), optionally with the request that
produced it and a source map, and write it as a Markdown report with one
link per citation (a quotation link where the provider returned the cited
text) or as a fact report. The response is model output, untrusted: the
import writes only the file named by --out, never captures or config.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any, TextIO

from citelint.cli.common import EXIT_OK, EXIT_USAGE, Output
from citelint.escape import terminal

NAME = "import"

VENDORS = ("anthropic", "openai", "gemini")

EPILOG = """\
examples:
  citelint import anthropic response.json --out reports/answer.md
                         the answer as Markdown, each cited span followed by its link(s)
  citelint import anthropic response.json --request request.json --source-map sources.yaml \\
      --out reports/answer.md
                         quotations name the capture of the document the model saw
                         (record those first: citelint capture --from-request anthropic
                         request.json --source-map sources.yaml)
  citelint import anthropic response.json --request request.json --source-map sources.yaml \\
      --as facts --out reports/answer.json
                         a fact report: one cited fact (label claim-<n>) per quotation
  citelint import openai stream.sse.txt --out reports/answer.md
                         a saved stream (server-sent events) works as a whole response does

A source map is a JSON or YAML object: keys are a document's 0-based index
as a string ("0"), "search_result:<n>", its title, or a URL the provider
gave (to map a redirect); values are absolute http(s) URLs:
  "0": https://example.org/handbook.txt
  Order Tracking Information: https://example.org/help/tracking

Messages about citations (unresolved sources, provider redirects, offsets
that disagree, sources the operator must capture) go to standard error.

writes: only --out, created whole; an existing file only with --force (replaced
whole); never a symlink, a FIFO or a directory, never a capture or the config.

exit codes: 0 the report was written, 2 usage or input error (nothing written)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``import`` options and arguments to its parser."""
    p.add_argument("vendor", choices=VENDORS, help="the API that produced the response")
    p.add_argument("response", metavar="RESPONSE", help="the saved response body (JSON, or a saved stream)")
    p.add_argument("--request", metavar="FILE", help="the request body that produced the response")
    p.add_argument("--source-map", metavar="FILE", help="JSON or YAML object: document key -> source URL")
    p.add_argument("--as", dest="as_", choices=("markdown", "facts"), default="markdown",
                   help="the kind of report to write (default: markdown)")
    p.add_argument("--out", metavar="FILE", required=True,
                   help="the report file to create (never a capture or the config)")
    p.add_argument("--force", action="store_true",
                   help="replace --out if it is an existing regular file (never a symlink, capture or the config)")


#: How an adapter's message starts when the problem is in the request, not the response.
_IN_REQUEST = "in the request: "


class _Refused(Exception):
    """An input or output problem; ``str()`` is the whole message."""


def _read(path: str, what: str) -> bytes:
    from citelint.files import FileTooLarge, read_regular
    from citelint.imports.documents import MAX_FILE_BYTES

    try:
        return read_regular(path, MAX_FILE_BYTES)
    except FileTooLarge:
        raise _Refused(f"{path}: the {what} is over the {MAX_FILE_BYTES} byte limit") from None
    except OSError as exc:
        raise _Refused(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


def _response(vendor: str, data: bytes, name: str) -> Any:
    """The whole response: JSON as it is, or a saved stream reassembled
    (:func:`citelint.imports.streams.load_response`)."""
    from citelint.imports.streams import load_response

    return load_response(vendor, data, name)


def _out(path: Path, force: bool) -> Output:
    """The output writer for --out: it creates a report, and replaces an
    existing regular file only with --force; never evidence or the config
    of the project it is written into (the config found from the working
    directory, else the defaults one there would have)."""
    from citelint.config import load_config
    from citelint.errors import ConfigError

    try:
        config = load_config(None, Path.cwd())
    except ConfigError:
        config = None
    return Output("--out", path, config, mode="replace" if force else "create", reports=False,
                  exists_hint="use --force to replace it")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read the response (and request, source map), write the report, print
    one line saying what was written and messages about citations to ``err``.

    Returns EXIT_OK when the report was written, EXIT_USAGE for any input
    or output problem (then nothing is written).
    """
    from citelint.imports.model import ResponseError
    from citelint.imports.sourcemap import load_source_map
    from citelint.imports.write import fact_report, markdown_report

    target = Path(args.out)
    try:
        output = _out(target, args.force)
        problem = output.problem()  # before any work: a refused --out fails fast
        if problem:
            raise _Refused(problem)
        response = _response(args.vendor, _read(args.response, "response"), args.response)
        request = None
        if args.request is not None:
            from citelint.imports.documents import load_json

            request = load_json(_read(args.request, "request"), args.request)
        source_map = {}
        if args.source_map is not None:
            source_map = load_source_map(_read(args.source_map, "source map"), args.source_map)
        adapter = importlib.import_module(f"citelint.imports.{args.vendor}")
        try:
            answer = adapter.answer(response, request=request)
        except ResponseError as exc:
            message, name = str(exc), args.response
            if message.startswith(_IN_REQUEST) and args.request is not None:
                message, name = message[len(_IN_REQUEST):], args.request
            # Messages that already name the JSON path are not given it twice.
            where = f"{exc.where}: " if exc.where and exc.where not in message else ""
            raise _Refused(f"{name}: {where}{message}") from None
        try:
            answer.text.encode("utf-8")
        except UnicodeEncodeError:
            raise _Refused(f"{args.response}: the answer text holds lone surrogates (\\ud800-style escapes), "
                           "which are not text") from None
        written = (fact_report if args.as_ == "facts" else markdown_report)(answer, source_map)
        if args.as_ == "facts" and not written.items:
            for line in written.messages:
                err.write(f"citelint: {terminal(line)}\n")
            raise _Refused("no citation can be a fact (each needs cited text, a source and a known "
                           "capture); nothing written; try --as markdown")
        problem = output.write(written.text)
        if problem:
            raise _Refused(problem)
    except (ResponseError, _Refused) as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    for line in written.messages:
        err.write(f"citelint: {terminal(line)}\n")
    kind = "fact report: {} fact(s)" if args.as_ == "facts" else "Markdown report: {} link(s)"
    out.write(f"wrote {terminal(str(target))}: {kind.format(written.items)} for "
              f"{len(answer.citations)} citation(s)\n")
    return EXIT_OK
