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

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, add_config_option, load_config
from citelint.config import relpath
from citelint.escape import terminal
from citelint.store.captures import CaptureError, CaptureRecord, Store, raw_path

NAME = "ls"

EPILOG = """\
examples:
  citelint ls                            every capture: source, revision (captureSha256), date, size,
                                         extractor (- for plain text; "raw kept" when its raw body is),
                                         signatures (16-hex key ids of its .sig files, unverified; - for none)
  citelint ls --config docs/citelint.yaml
  citelint ls --format json              the same as one JSON document (for scripts)

writes: nothing (read-only)
"""


def add_options(ls: argparse.ArgumentParser) -> None:
    """Add the ``ls`` options and arguments to its parser."""
    add_config_option(ls)
    ls.add_argument("--format", choices=["text", "json"], default="text",
                    help="text: tab-separated rows and counts (default); json: one object, "
                         "{\"format\": \"citelint.ls/1\", \"captures\": [...], \"corrupt\": [...], \"legacy\": [...]}")


def _raw_kept(store: Store, rec: CaptureRecord) -> bool:
    """Whether an extracted capture's raw body is kept beside it (a regular file)."""
    if rec.raw_sha256 is None:
        return False
    try:
        return stat.S_ISREG(raw_path(store.root, rec.source, rec.raw_sha256).lstat().st_mode)
    except OSError:
        return False


def _made_by(store: Store, rec: CaptureRecord) -> str:
    """The extractor column: ``-`` for a plain-text capture, else its extractor and its raw body's state."""
    if rec.extractor is None or rec.raw_sha256 is None:
        return "-"
    return f"{terminal(rec.extractor.describe())} ({'raw kept' if _raw_kept(store, rec) else 'raw not kept'})"


def _as_json(store: Store, found: list[tuple[Path, CaptureRecord | CaptureError, list[str]]], out: TextIO) -> None:
    """``ls --format json``: every capture's fields (no text), the corrupt files and the legacy ones.
    Strings are as stored (JSON escapes them), so nothing is lost to terminal escaping."""
    import json

    captures, corrupt = [], []
    for path, rec, sigs in found:
        if isinstance(rec, CaptureError):
            corrupt.append({"path": relpath(path, Path.cwd()), "error": str(rec)})
            continue
        captures.append({
            "source": rec.source, "revision": rec.sha256, "retrievedAt": rec.retrieved_at,
            "contentType": rec.content_type, "bytes": rec.bytes, "format": rec.format,
            "extractor": rec.extractor.to_obj() if rec.extractor is not None else None,
            "rawSha256": rec.raw_sha256, "rawKept": _raw_kept(store, rec), "batch": rec.batch,
            "signatures": sigs, "path": relpath(path, Path.cwd())})
    captures.sort(key=lambda c: (c["source"], c["retrievedAt"], c["revision"]))
    doc = {"format": "citelint.ls/1", "captures": captures, "corrupt": sorted(corrupt, key=lambda c: c["path"]),
           "legacy": [relpath(p, Path.cwd()) for p in store.legacy_files()]}
    json.dump(doc, out, ensure_ascii=False, indent=2)
    out.write("\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print one tab-separated row per capture, then counts.

    Returns EXIT_FINDINGS when a capture is corrupt, else EXIT_OK.
    """
    from citelint.evidence.verify import signature_files

    config = load_config(args, err)
    store = Store(config.captures_dir)
    if args.format == "json":
        found = [(path, rec, [] if isinstance(rec, CaptureError) else
                  [p.name.split(".")[1] for p in signature_files(path.parent, rec.sha256)])
                 for path, rec in store.iter_records()]
        _as_json(store, found, out)
        return EXIT_FINDINGS if any(isinstance(rec, CaptureError) for _, rec, _ in found) else EXIT_OK
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
    out.write(f"{len(rows) - bad} capture(s), {bad} corrupt, {signed} with signature files, "
              f"{len(legacy)} legacy file(s){' (run citelint migrate)' if legacy else ''}\n")
    return EXIT_FINDINGS if bad else EXIT_OK
