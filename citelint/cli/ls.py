"""``citelint ls``: list captures (source, revision, date, size, extractor, signatures).

List every capture in the store, with the extractor that made an HTML or
PDF capture's text, whether its raw body is kept, and the keys of its
signature files (not verified here: `check` does that). Read-only.
"""

from __future__ import annotations

import argparse
import stat
from pathlib import Path
from typing import TextIO

from citelint.captures import CaptureError, CaptureRecord, Store, raw_path
from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, add_config_option, load_config
from citelint.config import relpath
from citelint.escape import terminal

NAME = "ls"

EPILOG = """\
examples:
  citelint ls                            every capture: source, revision (captureSha256), date, size,
                                         extractor (- for plain text; "raw kept" when its raw body is),
                                         signatures (16-hex key ids of its .sig files, unverified; - for none)
  citelint ls --config docs/citelint.yaml
"""


def add_options(ls: argparse.ArgumentParser) -> None:
    """Add the ``ls`` options and arguments to its parser."""
    add_config_option(ls)


def _made_by(store: Store, rec: CaptureRecord) -> str:
    """The extractor column: ``-`` for a plain-text capture, else its extractor and its raw body's state."""
    if rec.extractor is None or rec.raw_sha256 is None:
        return "-"
    try:
        kept = stat.S_ISREG(raw_path(store.root, rec.source, rec.raw_sha256).lstat().st_mode)
    except OSError:
        kept = False
    return f"{terminal(rec.extractor.describe())} ({'raw kept' if kept else 'raw not kept'})"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print one tab-separated row per capture, then counts.

    Returns EXIT_FINDINGS when a capture is corrupt, else EXIT_OK.
    """
    from citelint.evidence import signature_files

    config = load_config(args, err)
    store = Store(config.captures_dir)
    rows = []
    bad = signed = 0
    for path, rec in store.iter_records():
        if isinstance(rec, CaptureError):
            bad += 1
            rows.append(("CORRUPT", relpath(path, Path.cwd()), "", "", str(rec)))
        else:
            sigs = [p.name.split(".")[1] for p in signature_files(path.parent, rec.sha256)]
            signed += bool(sigs)
            rows.append(("", rec.source, rec.sha256, rec.retrieved_at,
                         f"{rec.bytes} B\t{_made_by(store, rec)}\t{','.join(sigs) or '-'}"))
    rows.sort(key=lambda r: (r[1], r[3]))
    out.write("source\trevision\tretrievedAt\tsize\textractor\tsignatures\n")
    for flag, source, sha, when, size in rows:
        if flag:
            out.write(f"{terminal(source)}\tCORRUPT: {terminal(size)}\n")
        else:
            out.write(f"{terminal(source)}\t{sha}\t{when}\t{size}\n")
    legacy = store.legacy_files()
    out.write(f"{len(rows) - bad} capture(s), {bad} corrupt, {signed} with signature files, {len(legacy)} legacy file(s)"
              f"{' (run citelint migrate)' if legacy else ''}\n")
    return EXIT_FINDINGS if bad else EXIT_OK
