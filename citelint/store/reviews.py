"""The review ledger's records and layout: committed, append-only judgments
of whether an accepted citation supports what it is cited for (docs/reviews.md).

One record per judgment, ``citelint.review/1``::

    {"format": "citelint.review/1", "fingerprint": "<64 hex>", "verdict": "supports",
     "by": "Ada Lovelace", "at": "2026-12-03T11:00:00Z", "note": "the table's Q3 column"}

at ``<reviews>/<fingerprint>/<sha256(record bytes)>.json``, with any
signature beside it as ``<sha256(record bytes)>.<16 hex of the key
fingerprint>.sig`` (an armoured SSHSIG over the record's bytes, namespace
``citelint-review``: :mod:`citelint.evidence.ledger`). Every name is derived
from content, so two reviewers never write the same file and a merge never
conflicts; nothing edits or deletes a record. ``note`` may be absent.

This module reads and writes no signature and judges no key; it parses,
names and lists records, so that both ``check`` and ``review`` read the
ledger the same way.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.model import VERDICTS, Review
from citelint.store.record import CaptureError, is_rfc3339_utc, sha256_hex, strict_json

FORMAT = "citelint.review/1"
#: A record is a few hundred bytes; anything much larger is not one and is refused unread.
MAX_RECORD_BYTES = 64 * 1024
#: The longest ``by`` and ``note`` a record may hold, in code points.
MAX_BY_CHARS = 200
MAX_NOTE_CHARS = 4000
_KEYS = frozenset({"format", "fingerprint", "verdict", "by", "at", "note"})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_RECORD_NAME = re.compile(r"([0-9a-f]{64})\.json")
_SIG_NAME = re.compile(r"([0-9a-f]{64})\.[0-9a-f]{16}\.sig")


class ReviewCorrupt(CaptureError):
    """A review record that is not one: not strict JSON, wrong keys or types,
    a bad verdict or time, or a name that disagrees with its content. It never
    counts; ``str()`` says why."""


class ReviewRecord(NamedTuple):
    """One judgment: ``fingerprint`` (64 hex) of the citation it judges,
    ``verdict`` (:data:`citelint.model.VERDICTS`), ``by`` (the reviewer), ``at``
    (RFC 3339 UTC), ``note`` (or None), and ``digest``: the SHA-256 of the
    record's bytes, its file name."""

    fingerprint: str
    verdict: str
    by: str
    at: str
    note: str | None
    digest: str

    @property
    def review(self) -> Review:
        """The judgment as the check result carries it."""
        return Review(self.verdict, self.by, self.at, self.note)


def _check_fields(fingerprint: object, verdict: object, by: object, at: object, note: object) -> str | None:
    """Why these values make no record, or None."""
    if not isinstance(fingerprint, str) or not _HEX64.fullmatch(fingerprint):
        return "fingerprint must be 64 lower-case hex characters"
    if verdict not in VERDICTS:
        return f"verdict must be one of {', '.join(VERDICTS)}"
    if not isinstance(by, str) or not by.strip() or by != by.strip() or len(by) > MAX_BY_CHARS \
            or not by.isprintable():
        return (f"by must name the reviewer: 1 to {MAX_BY_CHARS} printable characters, no whitespace at "
                "either end")
    if not isinstance(at, str) or not is_rfc3339_utc(at):
        return "at must be an RFC 3339 UTC time such as 2026-12-03T11:00:00Z"
    if note is not None and (not isinstance(note, str) or not note.strip() or len(note) > MAX_NOTE_CHARS):
        return f"note must be text of 1 to {MAX_NOTE_CHARS} characters"
    return None


def record_bytes(fingerprint: str, verdict: str, by: str, at: str, note: str | None) -> bytes:
    """The bytes of a new review record (ASCII JSON, one line, keys in a fixed order).

    Raises:
        ReviewCorrupt: a value no record may hold (the message names it).
    """
    why = _check_fields(fingerprint, verdict, by, at, note)
    if why:
        raise ReviewCorrupt(why)
    obj: dict[str, str] = {"format": FORMAT, "fingerprint": fingerprint, "verdict": verdict, "by": by, "at": at}
    if note is not None:
        obj["note"] = note
    return (json.dumps(obj, ensure_ascii=True) + "\n").encode("ascii")


def parse_review(data: bytes, *, fingerprint: str, digest: str) -> ReviewRecord:
    """Parse one record file's bytes, found at ``<fingerprint>/<digest>.json``.

    Raises:
        ReviewCorrupt: not strict JSON (UTF-8, no duplicate key), not exactly
            the keys of ``citelint.review/1`` (``note`` optional), a bad value,
            bytes that do not hash to ``digest``, or a fingerprint other than
            the folder's.
    """
    if sha256_hex(data) != digest:
        raise ReviewCorrupt("its bytes do not hash to its file name (it was edited after it was written)")
    obj = strict_json(data, "review record", ReviewCorrupt)
    if not isinstance(obj, dict):
        raise ReviewCorrupt("review record is not a JSON object")
    keys = set(obj)
    if keys - _KEYS or not (_KEYS - {"note"}) <= keys:
        raise ReviewCorrupt(f"review record must have exactly the keys {', '.join(sorted(_KEYS))} (note optional)")
    if obj["format"] != FORMAT:
        raise ReviewCorrupt(f"format must be {FORMAT}")
    why = _check_fields(obj["fingerprint"], obj["verdict"], obj["by"], obj["at"], obj.get("note"))
    if why:
        raise ReviewCorrupt(why)
    if obj["fingerprint"] != fingerprint:
        raise ReviewCorrupt("its fingerprint is not the folder it is in")
    return ReviewRecord(obj["fingerprint"], obj["verdict"], obj["by"], obj["at"], obj.get("note"), digest)


def review_path(root: Path, fingerprint: str, digest: str) -> Path:
    """Where the record of ``digest`` judging ``fingerprint`` lives under the ledger ``root``."""
    return root / fingerprint / f"{digest}.json"


def signature_path(root: Path, fingerprint: str, digest: str, key_hex: str) -> Path:
    """Where a signature of that record by the key of fingerprint ``key_hex``
    (:meth:`citelint.evidence.sshsig.PublicKey.fingerprint_hex`) lives."""
    return root / fingerprint / f"{digest}.{key_hex[:16]}.sig"


class LedgerFile(NamedTuple):
    """One record file found in the ledger: its ``path``, the record or why it
    is not one (``record`` is a :class:`ReviewCorrupt` then), its ``data``
    (b'' when unread) and the ``signatures`` beside it (paths, sorted)."""

    path: Path
    record: ReviewRecord | ReviewCorrupt
    data: bytes
    signatures: tuple[Path, ...]


def list_folders(root: Path) -> tuple[frozenset[str], list[tuple[Path, str]]]:
    """The names in the ledger at ``root`` (one ``listdir``; names starting with
    ``.`` left out), which a fingerprint is looked up in, and why ``root``
    cannot be a ledger (a file, say). A missing ``root`` is an empty ledger
    (one ``lstat``). Names are not judged here: :func:`read_folder` refuses a
    folder that is not a real directory, and :func:`stray_names` names the
    entries that are not fingerprints."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        return frozenset(), []
    if not stat.S_ISDIR(st.st_mode):
        return frozenset(), [(root, "the reviews directory is not a directory")]
    return frozenset(name for name in os.listdir(root) if not name.startswith(".")), []


def stray_names(root: Path, names: frozenset[str]) -> list[tuple[Path, str]]:
    """The entries of ``names`` (from :func:`list_folders`) that cannot be a
    fingerprint folder (64 lower-case hex characters), with why, sorted."""
    return sorted((root / name, "not a fingerprint folder (64 hex characters)")
                  for name in names if not _HEX64.fullmatch(name))


def read_folder(root: Path, fingerprint: str) -> tuple[list[LedgerFile], list[tuple[Path, str]]]:
    """Every record of ``fingerprint``'s folder of the ledger at ``root``, read
    once, in name order, and the entries that are neither a record nor a
    signature beside one, with why."""
    folder = root / fingerprint
    try:
        # A symlinked folder could lead anywhere: it is refused, never followed.
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return [], [(folder, "not a directory (a fingerprint folder is a real directory)")]
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return [], [(folder, f"cannot be listed ({exc.strerror or exc})")]
    signed: dict[str, list[Path]] = {}
    records: list[str] = []
    stray: list[tuple[Path, str]] = []
    for name in names:
        m = _SIG_NAME.fullmatch(name)
        if m:
            signed.setdefault(m.group(1), []).append(folder / name)
        elif _RECORD_NAME.fullmatch(name):
            records.append(name)
        elif not name.startswith(".tmp-"):
            stray.append((folder / name, "neither a review record (<sha256>.json) nor its signature"))
    found: list[LedgerFile] = []
    for name in records:
        digest = name[:-len(".json")]
        target = folder / name
        data = b""
        record: ReviewRecord | ReviewCorrupt
        try:
            data = read_regular(target, MAX_RECORD_BYTES, follow_symlinks=False)
            record = parse_review(data, fingerprint=fingerprint, digest=digest)
        except FileTooLarge:
            record = ReviewCorrupt(f"over {MAX_RECORD_BYTES} bytes; refused unread")
        except NotRegularFile:
            record = ReviewCorrupt("not a regular file")
        except OSError as exc:
            record = ReviewCorrupt("a symlink, never followed (a review is a regular file)" if exc.errno == errno.ELOOP
                                   else f"cannot be read ({exc.strerror or exc})")
        except ReviewCorrupt as exc:
            record = exc
        found.append(LedgerFile(target, record, data, tuple(signed.pop(digest, ()))))
    for orphans in signed.values():
        stray.extend((p, "a signature with no review record beside it") for p in orphans)
    return found, stray
