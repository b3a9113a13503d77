"""``citelint show``: print one captured revision of a source.

Print a capture's metadata and text (newest revision unless --revision), or
with ``--find TEXT`` where a text occurs in the source's captures, matched
as a prose quotation is (CL205), or the nearest passage. Read-only; control
characters are shown escaped.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, load_config
from citelint.escape import terminal
from citelint.store.captures import CaptureError, Store, revision_key

NAME = "show"

EPILOG = """\
examples:
  citelint show https://example.org/q3.txt                 the newest revision
  citelint show https://example.org/q3.txt --revision 5891b5b5
  citelint show https://example.org/q3.txt --format json   metadata and text as JSON (text exact, unescaped)
  citelint show https://example.org/q3.txt --find "Revenue rose 12%"   where the text occurs (exit 1: nowhere)

When several revisions share the newest retrievedAt (and are not one batch),
none is the newest: name one with --revision (exit 2 until then).

writes: nothing (read-only)
"""


def add_options(show: argparse.ArgumentParser) -> None:
    """Add the ``show`` options and arguments to its parser."""
    show.add_argument("source", metavar="SOURCE", help="the exact source URL")
    show.add_argument("--revision", metavar="SHA", help="captureSha256 (a unique prefix is enough)")
    add_config_option(show)
    show.add_argument("--find", metavar="TEXT",
                      help="print where TEXT occurs (line:col) in each verified revision, newest first, matched as "
                           "a prose quotation is (any whitespace run equals any other), or the nearest passage; "
                           "exit 1 when no revision holds it")
    show.add_argument("--format", choices=["text", "json"], default="text",
                      help="text: metadata, then the text with control characters escaped (default); json: "
                           "one object with the record's fields and the exact text")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the chosen revision's metadata and text, escaped for the terminal.

    Returns EXIT_OK; EXIT_FINDINGS when there is no usable capture;
    EXIT_USAGE when ``--revision`` is ambiguous.
    """
    config = load_config(args, err)
    store = Store(config.captures_dir)
    revisions = store.revisions(args.source)
    if not revisions:
        err.write(f"citelint: no capture of {args.source!r}"
                  f"{'' if config.is_approved(args.source) else ' (and it is not an approved source)'}\n")
        return EXIT_FINDINGS
    if args.find is not None:
        return _find(store, args.source, args.find, args.revision, out, err)
    if args.revision:
        matches = [r for r in revisions if r.sha256.startswith(args.revision.lower())]
        if len(matches) != 1:
            err.write(f"citelint: revision {args.revision!r} matches {len(matches)} capture(s) of this source\n")
            return EXIT_USAGE if matches else EXIT_FINDINGS
        chosen = matches[0].sha256
    else:
        newest = store.newest_revisions(args.source)
        if not newest.groups:
            err.write("citelint: every capture of this source is corrupt; see `citelint ls`\n")
            return EXIT_FINDINGS
        if newest.tied:
            # No revision is "the newest": showing one would pick it by its digest.
            heads = [max(g, key=revision_key) for g in newest.groups]
            err.write(f"citelint: {len(heads)} revisions of this source share the newest retrievedAt "
                      f"({heads[0].retrieved_at}) and are not one batch: {', '.join(r.sha256 for r in heads)}; "
                      "name one with --revision\n")
            return EXIT_USAGE
        chosen = max(newest.records, key=revision_key).sha256
    try:
        rec = store.lookup(args.source, chosen)
    except CaptureError as exc:
        err.write(f"citelint: capture {chosen[:12]}… is corrupt: {exc}\n")
        return EXIT_FINDINGS
    if args.format == "json":
        import json

        json.dump({"format": "citelint.show/1", "source": rec.source, "revision": rec.sha256,
                   "retrievedAt": rec.retrieved_at, "contentType": rec.content_type, "bytes": rec.bytes,
                   "extractor": rec.extractor.to_obj() if rec.extractor is not None else None,
                   "rawSha256": rec.raw_sha256, "batch": rec.batch, "revisions": len(revisions),
                   "text": rec.text}, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return EXIT_OK
    out.write(f"source:      {terminal(rec.source)}\nrevision:    {rec.sha256}\n"
              f"retrievedAt: {rec.retrieved_at}\ncontentType: {terminal(rec.content_type)}\n"
              f"bytes:       {rec.bytes}\n")
    if rec.extractor is not None:
        out.write(f"extractor:   {terminal(rec.extractor.describe())}\nrawSha256:   {rec.raw_sha256}\n")
    out.write(f"revisions:   {len(revisions)}\n\n")
    for line in rec.text.splitlines() or [""]:
        out.write(terminal(line) + "\n")
    return EXIT_OK


def _find(store: Store, source: str, text: str, revision: str | None, out: TextIO, err: TextIO) -> int:
    """``show --find``: each verified revision of ``source`` (only those starting with
    ``revision`` when given), newest first, with the ``line:col`` of each occurrence of ``text``
    (whitespace runs equal, as for CL205) and its passage, or the nearest passage. Returns
    EXIT_OK when some revision holds ``text``, EXIT_FINDINGS when none does, EXIT_USAGE for
    a ``text`` with no visible character."""
    from citelint.passages import MAX_OCCURRENCES, find_text, wanted_text

    if wanted_text(text) is None:
        err.write("citelint: --find needs a text with a visible character\n")
        return EXIT_USAGE
    matches = find_text(store.verified_revisions(source), text, revision)
    if not matches:
        err.write(f"citelint: no verified revision of {source!r}"
                  f"{f' starts with {revision!r}' if revision else ''}\n")
        return EXIT_FINDINGS
    for match in matches:
        out.write(f"revision {match.sha256} ({match.retrieved_at}):\n")
        if not match.found:
            out.write(f"  not found: {terminal(match.miss)}\n")
            if match.nearest:
                out.write(f"  nearest: {match.nearest}\n")
            continue
        for place in match.occurrences:
            out.write(f"  {place.line}:{place.column}: {place.passage}\n")
        if match.more:
            out.write(f"  (more occurrences not shown: at most {MAX_OCCURRENCES} per revision)\n")
    return EXIT_OK if any(m.found for m in matches) else EXIT_FINDINGS
