"""``citelint import``: turn a saved model response with citations into a report.

Read a saved Anthropic, OpenAI (or xAI), Gemini, Cohere or Perplexity
response (a whole JSON body, or a saved stream of server-sent events),
optionally with the request that produced it and a source map, and write it
as a Markdown report with one link per citation (a quotation link where the
provider returned the cited text) or as a fact report. The response is
model output, untrusted: the import writes only the file named by --out,
never captures or config. No citation is dropped silently: one the import
can give no source URL is marked in the report and fails the import (exit
1) unless --allow-unlinked; a response of a shape the adapter does not
read is refused (exit 2).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Output
from citelint.escape import terminal
from citelint.imports.convert import VENDORS

NAME = "import"

EPILOG = """\
vendors:
  anthropic   Messages (text blocks with citations), or its content list alone
  openai      OpenAI Responses (output[]; also xAI's Responses) or Chat Completions (OpenRouter)
  gemini      generateContent / streamGenerateContent (groundingMetadata), or an Interaction
  cohere      chat v2 (message.citations[] with sources[])
  perplexity  Chat Completions with top-level citations[] / search_results[] and [n] markers

examples:
  citelint import anthropic response.json --source-map sources.yaml --out reports/answer.md
                         the answer as Markdown, each cited span followed by its link(s)
  citelint import anthropic response.json --request request.json --source-map sources.yaml \\
      --out reports/answer.md
                         quotations name the capture of the document the model saw
                         (record those first: citelint capture --from-request anthropic
                         request.json --source-map sources.yaml)
  citelint import anthropic response.json --request request.json --out reports/answer.md
                         a request whose documents citelint context wrote (title: the source URL,
                         context: capture:<sha256>) needs no source map
  citelint import anthropic response.json --request request.json --source-map sources.yaml \\
      --as facts --out reports/answer.json
                         a fact report: one cited fact (label claim-<n>) per quotation
  citelint import openai stream.sse.txt --out reports/answer.md
                         a saved stream (server-sent events) works as a whole response does
  citelint import openai xai-response.json --out reports/answer.md
                         xAI's citations carry no position: listed as Sources after the answer
  citelint import perplexity response.json --out reports/answer.md
                         each [n] marker becomes a link to the n-th cited URL
  citelint import cohere response.json --source-map sources.yaml --out reports/answer.md
                         Cohere's document sources, by id ("doc:0") or title, or their url field
  citelint import anthropic pdf-answer.json --source-map sources.yaml --out reports/answer.md
                         a PDF's page_location citations: each quote with U+0002 removed and
                         whitespace runs as one space, its pages in the link title
                         ("pages:3-4"), checked on those pages of the PDF's capture
  citelint import anthropic response.json --allow-unlinked --out reports/draft.md
                         write it even though citations have no source URL (marked, exit 0)

A source map is a JSON or YAML object: keys are a document's 0-based index
as a string ("0"), "search_result:<n>", its title, a provider's id
("doc:0"), or a URL the provider gave (to map a redirect); values are
absolute http(s) URLs:
  "0": https://example.org/handbook.txt
  Order Tracking Information: https://example.org/help/tracking

A citation the import can give no source URL (a document with no source map
entry, a marker naming no URL) is not linked: the report marks it
"[n: not linked]" (with --as facts: an unavailable fact claim-<n>), its
line on standard error names the source map entry that would link it, and
a last line counts them ("2 of 2 citations not linked: pass --source-map
..."). A citation with a URL that has no capture is linked; citelint check
reports it (CL201). Other messages about citations (provider redirects,
offsets that disagree, sources the operator must capture) also go to
standard error.

writes: only --out, created whole; an existing file only with --force (replaced
whole); never a symlink, a FIFO or a directory, never a capture or the config
(of the project --out lands in, wherever the import runs), never an input.
--out must be a .json, .yaml or .yml file with --as facts, and none of those
with --as markdown (citelint check reads those as fact reports), else exit 2;
an --out that none of its project's globs for its kind match (markdown, or
reports for facts) is written with a warning: citelint check will not check it.

exit codes: 0 the report was written, every citation linked; 1 it was
written, but citations are not linked (0 with --allow-unlinked); 2 usage or
input error, or a response of a shape the vendor's adapter does not read
(nothing written)
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
    p.add_argument("--allow-unlinked", action="store_true",
                   help="exit 0 even when citations have no source URL (they stay marked in the report)")


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


def _out(args: argparse.Namespace) -> Output:
    """The output writer for --out: it creates a report, and replaces an
    existing regular file only with --force; never evidence or the config of
    the project it lands in (found from the --out file's folder upward), nor
    of the project the command runs in, nor one of the import's own inputs."""
    from citelint.config import discover, load_config
    from citelint.errors import ConfigError

    config, config_file = None, None
    try:
        config = load_config(None, Path.cwd())
    except ConfigError:
        try:
            config_file = discover(Path.cwd())
        except ConfigError:
            pass
    inputs = [p for p in (args.response, args.request, args.source_map) if p]
    return Output("--out", args.out, config, mode="replace" if args.force else "create", reports=False,
                  exists_hint="use --force to replace it", config_file=config_file, inputs=inputs)


#: The --out suffixes ``citelint check`` reads as each kind of report (case-insensitive).
_SUFFIXES = {"markdown": (".md", ".markdown"), "facts": (".json", ".yaml", ".yml")}
#: What ``citelint check`` calls each kind (:func:`citelint.check.targets.checked_as`).
_CHECKED_AS = {"markdown": "markdown", "facts": "report"}


def _suffix_problem(path: Path, as_: str) -> str | None:
    """Why ``--out path`` contradicts ``--as as_``, or None: ``check`` reads
    a .json, .yaml or .yml file as a fact report (so Markdown there fails to
    parse, CL001), and reads no other file as one."""
    suffix = path.suffix.lower()
    if as_ == "markdown" and suffix in _SUFFIXES["facts"]:
        return (f"--out {path}: a {suffix} file is checked as a fact report, but --as markdown writes Markdown "
                "(citelint check would fail to parse it): name a .md file, or pass --as facts")
    if as_ == "facts" and suffix not in _SUFFIXES["facts"]:
        return (f"--out {path}: --as facts writes a fact report, which citelint check reads only from a .json, "
                ".yaml or .yml file: name one of those, or pass --as markdown")
    return None


def _unchecked(output: Output, as_: str) -> str | None:
    """The warning when ``check`` would not check ``--out`` as the report
    ``as_`` writes, or None: no config governs its folder, or none of that
    project's globs for the kind matches it (or it is excluded). An import
    written where ``check`` never looks passes unseen. A config that fails
    to load gets no warning here: ``check`` itself reports it."""
    from citelint.check.targets import checked_as
    from citelint.config import discover, load_config
    from citelint.errors import ConfigError

    path = os.path.realpath(output.path)
    folder = Path(path).parent
    try:
        config = load_config(None, folder)
    except ConfigError:
        try:
            discover(folder)
        except ConfigError:
            return (f"warning: --out {output.path}: no citelint config is found from its folder up, so "
                    "citelint check will not check it; write it into a project (citelint init creates one)")
        return None
    kind, why = checked_as(config, path)
    if kind == _CHECKED_AS[as_]:
        return None
    key = "markdown" if as_ == "markdown" else "reports"
    return (f"warning: --out {output.path}: {why or 'not checked as this kind of report'}, so citelint check "
            f"will not check it; write it where the config's `{key}` globs match "
            f"({', '.join(getattr(config, key)) or 'none'}), or add a glob for it")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read the response (and request, source map), write the report, print
    one line saying what was written and messages about citations to ``err``.

    Returns EXIT_OK when the report was written with every citation linked
    (or with --allow-unlinked); EXIT_FINDINGS when it was written but
    citations are not linked (each marked in the report, named on ``err``,
    and counted in a last line); EXIT_USAGE for any input or output problem,
    or a response of a shape the vendor's adapter does not read (then
    nothing is written).
    """
    from citelint.imports.convert import (
        ImportRefused,
        convert,
        parse_request,
        parse_response,
        parse_source_map,
        unlinked_summary,
    )

    target = Path(args.out)
    try:
        output = _out(args)
        # Before any work: a refused --out fails fast; evidence or the config is named as such first.
        problem = output.problem() or _suffix_problem(target, args.as_)
        if problem:
            raise _Refused(problem)
        response = parse_response(args.vendor, _read(args.response, "response"), args.response)
        request = None if args.request is None else parse_request(_read(args.request, "request"), args.request)
        source_map = {}
        if args.source_map is not None:
            source_map = parse_source_map(_read(args.source_map, "source map"), args.source_map)
        converted = convert(args.vendor, response, request=request, source_map=source_map, as_=args.as_,
                            response_name=args.response, request_name=args.request or "")
        answer, written = converted.answer, converted.written
        problem = output.write(written.text)
        if problem:
            raise _Refused(problem)
    except ImportRefused as exc:
        for line in exc.notes:
            err.write(f"citelint: {terminal(line)}\n")
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    except _Refused as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    for line in written.messages:
        err.write(f"citelint: {terminal(line)}\n")
    unchecked = _unchecked(output, args.as_)
    if unchecked:
        err.write(f"citelint: {terminal(unchecked)}\n")
    total = len(answer.citations)
    kind = "fact report: {} cited fact(s)" if args.as_ == "facts" else "Markdown report: {} link(s)"
    unlinked = ""
    if written.unlinked:
        unlinked = f", {len(written.unlinked)} not linked" + (" (unavailable facts)" if args.as_ == "facts" else "")
    kept = f" (and {written.kept} of the model's own, kept)" if written.kept else ""
    out.write(f"wrote {terminal(str(target))}: {kind.format(written.items)}{kept} for {total} citation(s)"
              f"{unlinked}\n")
    if not written.unlinked:
        return EXIT_OK
    err.write(f"citelint: {unlinked_summary(len(written.unlinked), total, args.allow_unlinked)}\n")
    return EXIT_OK if args.allow_unlinked else EXIT_FINDINGS
