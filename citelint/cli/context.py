"""``citelint context``: print the permissible sources for a model's prompt.

Print the approved sources' committed, verified captures as the list a
prompt gives the model (the only sources it may cite, each with its URL and
capture digest, then their texts): Anthropic document blocks with citations
enabled, OpenAI input text, or plain text or Markdown. Read-only.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, load_config
from citelint.escape import terminal

NAME = "context"

EPILOG = """\
examples:
  citelint context                        every approved source, as numbered text for a prompt
  citelint context --format anthropic > documents.json
                                          a JSON array of document blocks (citations enabled) for the
                                          user content of a Messages request
  citelint context --format markdown --source https://example.org/q3.txt https://example.org/q2.txt
  citelint context --source https://example.org/q3.txt --revision 5891b5b5
                                          that revision instead of the newest
  citelint context --batch 0c1f9e2a --format anthropic
                                          the documents capture --from-request recorded as one batch
  citelint context --format openai --max-chars 200000
                                          input_text parts for the Responses API, at most 200,000
                                          characters of source text (whole sources dropped, named on stderr)

What is given: captures of approved sources that verify, that git has
(committed or staged, inside a git work tree, as CL109 asks) and, with
evidence.allowed_signers, whose signatures hold. Each source comes at its
newest such revision (with its batch siblings when it is one batch's),
unless --revision names one. An Anthropic document's title is its source URL
and its context is capture:<sha256>, so `citelint import anthropic RESPONSE
--request REQUEST` links every document citation with no --source-map. The
text given is always the capture's text (an extracted HTML or PDF capture
too), never a raw body.

writes: nothing (read-only; the output goes to standard output)

exit codes: 0 printed; 1 nothing to give (no approved source has a usable
capture, or none fits in --max-chars); 2 usage or config error (a source not
approved, a named source with no usable capture, a --revision or --batch
naming nothing or several, revisions tied for newest), nothing printed
"""


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive whole number of characters")
    return number


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``context`` options to its parser."""
    from citelint.context import FORMATS

    add_config_option(p)
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="anthropic: a JSON array of document blocks; openai: a JSON array of input_text "
                        "parts; text: numbered list, instruction, texts (default); markdown: the same as "
                        "Markdown")
    p.add_argument("--source", nargs="+", action="extend", default=[], metavar="URL",
                   help="approved sources to give, in this order (default: every approved source, in the "
                        "config's order)")
    p.add_argument("--revision", nargs="+", action="extend", default=[], metavar="SHA",
                   help="with --source: capture digests (each a unique prefix of 4 or more hex digits), each "
                        "naming the revision to give of one of the sources instead of its newest")
    p.add_argument("--batch", metavar="DIGEST",
                   help="every capture of one capture --from-request batch (its digest, or a unique prefix "
                        "of 8 or more hex digits), in the request's order")
    p.add_argument("--max-chars", type=_positive, metavar="N",
                   help="at most N characters (code points) of source text: sources that do not fit are "
                        "dropped whole, in order, and named on stderr")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the selected sources in ``--format`` on ``out``; notes and dropped sources on ``err``.

    Returns EXIT_OK when something was printed, EXIT_FINDINGS when nothing could be given,
    EXIT_USAGE for a usage or config error (nothing printed).
    """
    from pathlib import Path

    from citelint.context import build
    from citelint.errors import UsageError

    config = load_config(args, err)
    try:
        built = build(config, Path.cwd(), args.format, sources=args.source, revisions=args.revision,
                      batch=args.batch, max_chars=args.max_chars)
    except UsageError as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    for note in built.notes:
        err.write(f"citelint: {terminal(note)}\n")
    kept, dropped = built.kept, built.dropped
    for item in dropped:
        err.write(f"citelint: dropped {terminal(item.source)} ({item.chars} characters): it does not fit in "
                  f"--max-chars {args.max_chars}\n")
    if not kept:
        why = "none fits in --max-chars" if dropped else "no approved source has a committed, verified capture"
        err.write(f"citelint: nothing to give: {why}\n")
        return EXIT_FINDINGS
    out.write(built.text)
    documents = sum(len(item.records) for item in kept)
    err.write(f"citelint: {len(kept)} source(s), {documents} capture(s), "
              f"{sum(item.chars for item in kept)} characters of text"
              + (f"; {len(dropped)} dropped" if dropped else "") + "\n")
    return EXIT_OK
