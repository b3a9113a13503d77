"""The capture store: layout, read-only lookup with integrity checks, the
exclusive writer, and migration of the legacy layout (DESIGN §2.2).

Layout: ``<root>/<sha256(source)>/<sha256(text)>.json``. The identity of a
captured revision is the pair (source, sha256); the path is derived from it,
so a lookup is one ``open`` and there is nothing to fall back to.

Only this module touches the on-disk store. Readers never write; the writer
never replaces an existing file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from citelint.files import FileTooLarge, NotRegularFile, decode_utf8, read_regular, write_exclusive

CAPTURE_FORMAT = "citelint.capture/1"
#: A capture file larger than this is refused unread (DESIGN §2.2).
MAX_CAPTURE_FILE_BYTES = 64 * 1024 * 1024
RECORD_KEYS = frozenset({"format", "source", "sha256", "text", "retrievedAt", "contentType", "bytes"})
LEGACY_KEYS = frozenset({"source", "text", "sha256", "accessedAt"})
TMP_PREFIX = ".tmp-"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_RFC3339_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z")


class CaptureError(Exception):
    """Base class of store errors. ``str()`` is a message for the user."""


class CaptureMissing(CaptureError):
    """No capture file exists for the exact (source, sha256)."""


class CaptureCorrupt(CaptureError):
    """A capture file exists but fails its integrity checks (CL103)."""


class TextRejected(CaptureError):
    """Text offered for capture is not acceptable (not UTF-8, too large, empty)."""


def sha256_hex(data: str | bytes) -> str:
    """Lowercase hex SHA-256 of ``data`` (``str`` is encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def source_dir(root: Path, source: str) -> Path:
    """Directory holding every revision of ``source``: ``root/<sha256(source)>``."""
    return root / sha256_hex(source)


def capture_path(root: Path, source: str, sha256: str) -> Path:
    """Path of the capture of (``source``, ``sha256``); ``sha256`` must be 64 lowercase hex."""
    if not _HEX64.fullmatch(sha256):
        raise ValueError(f"not a lowercase hex SHA-256: {sha256!r}")
    return source_dir(root, source) / f"{sha256}.json"


def utc_now() -> str:
    """The current time as RFC 3339 UTC with second precision, e.g. ``2026-11-29T21:30:00Z``."""
    return datetime.now(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def time_key(stamp: str) -> tuple[str, str]:
    """Sort key for RFC 3339 UTC stamps that may differ in fractional-second digits."""
    base, _, frac = stamp.rstrip("Z").partition(".")
    return base, frac.ljust(9, "0")


def decode_text(body: bytes) -> str:
    """Decode a captured body by :func:`citelint.files.decode_utf8`: strict
    UTF-8, one leading BOM removed (its 3 bytes still count in the record's
    ``bytes``).

    Raises:
        TextRejected: the body is not valid UTF-8 (the message gives the
            byte offset of the first bad byte).
    """
    try:
        return decode_utf8(body)
    except UnicodeDecodeError as exc:
        raise TextRejected(f"not valid UTF-8 at byte {exc.start} ({exc.reason})") from None


@dataclass(frozen=True)
class CaptureRecord:
    """One captured revision of one source (the ``citelint.capture/1`` record).

    ``bytes`` is the body length in bytes as received (for ``--from-file``
    and ``migrate``: the UTF-8 length of the text).
    """

    source: str
    sha256: str
    text: str
    retrieved_at: str
    content_type: str
    bytes: int

    def to_json(self) -> str:
        """The record as written to disk: one JSON line ending in a newline.

        ``ensure_ascii`` keeps the file pure ASCII, so no editor, encoding
        setting or line-ending filter can alter the text it carries.
        """
        obj = {
            "format": CAPTURE_FORMAT,
            "source": self.source,
            "sha256": self.sha256,
            "retrievedAt": self.retrieved_at,
            "contentType": self.content_type,
            "bytes": self.bytes,
            "text": self.text,
        }
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":")) + "\n"


def make_record(source: str, text: str, *, retrieved_at: str | None = None,
                content_type: str = "text/plain", wire_bytes: int | None = None) -> CaptureRecord:
    """Build a record for ``text`` of ``source``, computing its digest.

    ``retrieved_at`` defaults to now (RFC 3339 UTC); ``wire_bytes`` defaults
    to the UTF-8 length of ``text``.

    Raises:
        TextRejected: ``text`` contains lone surrogates (not encodable as UTF-8),
            or ``retrieved_at`` is not RFC 3339 UTC.
    """
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise TextRejected("text contains lone surrogates and cannot be encoded as UTF-8") from None
    when = retrieved_at or utc_now()
    if not _RFC3339_UTC.fullmatch(when):
        raise TextRejected(f"retrievedAt must be RFC 3339 UTC like 2026-01-31T12:00:00Z, got {when!r}")
    return CaptureRecord(source=source, sha256=sha256_hex(encoded), text=text,
                         retrieved_at=when, content_type=content_type,
                         bytes=len(encoded) if wire_bytes is None else wire_bytes)


# --------------------------------------------------------------------------- read side

def _read_bounded(path: Path) -> bytes:
    """Read a regular file of at most MAX_CAPTURE_FILE_BYTES without following a final symlink."""
    try:
        return read_regular(path, MAX_CAPTURE_FILE_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        raise CaptureMissing(f"no capture file {path.name}") from None
    except NotRegularFile:
        raise CaptureCorrupt("capture path is not a regular file") from None
    except FileTooLarge as exc:
        if exc.size is None:
            raise CaptureCorrupt("capture file grew past the size limit while being read") from None
        raise CaptureCorrupt(f"capture file is {exc.size} bytes, over the "
                             f"{MAX_CAPTURE_FILE_BYTES} byte limit; refused unread") from None
    except OSError as exc:
        # ELOOP: the final component is a symlink.
        raise CaptureCorrupt(f"capture file cannot be opened safely: {exc.strerror}") from None


def _check_digest(text: str, recorded: str, mismatch: str) -> None:
    """Refuse a record whose ``text`` does not hash to its ``recorded``
    digest, with ``mismatch`` as the message.

    Raises:
        CaptureCorrupt: lone surrogates in ``text``, or a digest mismatch.
    """
    try:
        actual = sha256_hex(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise CaptureCorrupt("text contains lone surrogates") from None
    if recorded != actual:
        raise CaptureCorrupt(mismatch)


def parse_record(data: bytes, *, source: str | None = None, sha256: str | None = None) -> CaptureRecord:
    """Parse and verify one capture file's bytes.

    Checks, in order: UTF-8 JSON object with no duplicate keys; the exact key
    set; field types; ``format``; the stored digest against the text; and,
    when given, the ``source`` and ``sha256`` the path was derived from.

    Raises:
        CaptureCorrupt: any check fails (the message says which).
    """
    def no_dupes(pairs: list[tuple[str, object]]) -> dict[str, object]:
        obj: dict[str, object] = {}
        for k, v in pairs:
            if k in obj:
                raise CaptureCorrupt(f"duplicate key {k!r}")
            obj[k] = v
        return obj

    def bad_constant(name: str) -> object:
        raise CaptureCorrupt(f"non-JSON constant {name}")

    try:
        obj = json.loads(data.decode("utf-8"), object_pairs_hook=no_dupes, parse_constant=bad_constant)
    except UnicodeDecodeError:
        raise CaptureCorrupt("capture file is not UTF-8") from None
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, CaptureCorrupt):
            raise
        raise CaptureCorrupt(f"capture file is not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise CaptureCorrupt("capture file is not a JSON object")
    keys = set(obj)
    if keys != RECORD_KEYS:
        missing, extra = sorted(RECORD_KEYS - keys), sorted(keys - RECORD_KEYS)
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + \
                ([f"unknown {', '.join(extra)}"] if extra else [])
        raise CaptureCorrupt("record keys are wrong: " + "; ".join(parts))
    for key in ("format", "source", "sha256", "text", "retrievedAt", "contentType"):
        if not isinstance(obj[key], str):
            raise CaptureCorrupt(f"{key} is not a string")
    if not isinstance(obj["bytes"], int) or isinstance(obj["bytes"], bool) or obj["bytes"] < 0:
        raise CaptureCorrupt("bytes is not a non-negative integer")
    if obj["format"] != CAPTURE_FORMAT:
        raise CaptureCorrupt(f"format is {obj['format']!r}, expected {CAPTURE_FORMAT!r}")
    _check_digest(obj["text"], obj["sha256"],
                  "text does not match its recorded sha256 (the capture was altered)")
    if sha256 is not None and obj["sha256"] != sha256:
        raise CaptureCorrupt("recorded sha256 disagrees with the file name")
    if source is not None and obj["source"] != source:
        raise CaptureCorrupt(f"recorded source {obj['source']!r} disagrees with the directory "
                             f"(derived from {source!r})")
    return CaptureRecord(source=obj["source"], sha256=obj["sha256"], text=obj["text"],
                         retrieved_at=obj["retrievedAt"], content_type=obj["contentType"],
                         bytes=obj["bytes"])


@dataclass(frozen=True)
class RevisionInfo:
    """A revision file found in a source directory, not yet verified."""

    sha256: str
    path: Path


class Store:
    """Read-only view of a capture directory.

    ``root`` is the captures directory. Nothing here writes, renames or
    changes permissions; lookups go through the derived path only, refusing
    any path that resolves outside ``root`` (a symlink that leaves it).
    Verified records are cached per instance, so a report citing one capture
    a hundred times reads and hashes it once.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self._cache: dict[tuple[str, str], CaptureRecord | CaptureError] = {}
        self._revisions: dict[str, list[CaptureRecord]] = {}
        self._real_root: Path | None = None

    def _inside(self, path: Path) -> bool:
        if self._real_root is None:
            self._real_root = self.root.resolve()
        try:
            path.resolve().relative_to(self._real_root)
        except (ValueError, OSError):
            return False
        return True

    def lookup(self, source: str, sha256: str) -> CaptureRecord:
        """The verified record of (``source``, ``sha256``).

        Raises:
            CaptureMissing: no file at the derived path.
            CaptureCorrupt: the file fails integrity checks, is larger than
                64 MiB, or is reached through a symlink leaving the store.
        """
        key = (source, sha256)
        hit = self._cache.get(key)
        if hit is None:
            try:
                hit = self._load(source, sha256)
            except CaptureError as exc:
                hit = exc
            self._cache[key] = hit
        if isinstance(hit, CaptureError):
            raise hit
        return hit

    def _load(self, source: str, sha256: str) -> CaptureRecord:
        path = capture_path(self.root, source, sha256)
        if not path.parent.is_dir():
            raise CaptureMissing("no capture of this source")
        if not self._inside(path.parent):
            raise CaptureCorrupt("capture directory is a symlink leading outside the captures directory")
        return parse_record(_read_bounded(path), source=source, sha256=sha256)

    def has_source(self, source: str) -> bool:
        """True when ``source`` has at least one capture that verifies.

        One directory listing, then revisions are verified until one passes
        (usually the first): a corrupt or empty file is not evidence.
        """
        for rev in self.revisions(source):
            try:
                self.lookup(source, rev.sha256)
            except CaptureError:
                continue
            return True
        return False

    def revisions(self, source: str) -> list[RevisionInfo]:
        """Revision files of ``source`` (names only, unverified), sorted by digest."""
        directory = source_dir(self.root, source)
        try:
            names = os.listdir(directory)
        except OSError:
            return []
        out = []
        for name in names:
            stem, dot, ext = name.partition(".")
            if ext == "json" and _HEX64.fullmatch(stem):
                out.append(RevisionInfo(stem, directory / name))
        return sorted(out, key=lambda r: r.sha256)

    def verified_revisions(self, source: str) -> list[CaptureRecord]:
        """Every revision of ``source`` that passes verification, oldest first
        (computed once per source and instance)."""
        cached = self._revisions.get(source)
        if cached is not None:
            return cached
        good = []
        for rev in self.revisions(source):
            try:
                good.append(self.lookup(source, rev.sha256))
            except CaptureError:
                continue
        good.sort(key=lambda r: (time_key(r.retrieved_at), r.sha256))
        self._revisions[source] = good
        return good

    def iter_records(self) -> Iterator[tuple[Path, CaptureRecord | CaptureError]]:
        """Every new-layout capture file with its verified record or its error.

        Temporary files (``.tmp-*``) and anything not shaped like the layout
        are skipped. Files are verified against their directory name by
        recomputing it from the stored source.
        """
        if not self.root.is_dir():
            return
        for sdir in sorted(self.root.iterdir()):
            if not (_HEX64.fullmatch(sdir.name) and sdir.is_dir()):
                continue
            for f in sorted(sdir.iterdir()):
                stem, _, ext = f.name.partition(".")
                if ext != "json" or not _HEX64.fullmatch(stem):
                    continue
                try:
                    rec = parse_record(_read_bounded(f), sha256=stem)
                    if sha256_hex(rec.source) != sdir.name:
                        raise CaptureCorrupt("recorded source does not hash to its directory name")
                    yield f, rec
                except CaptureError as exc:
                    yield f, exc

    def legacy_files(self) -> list[Path]:
        """Legacy-layout files ``<root>/<sha256(source)>.json``, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir()
                      if p.suffix == ".json" and _HEX64.fullmatch(p.stem) and p.is_file())


# --------------------------------------------------------------------------- write side

@dataclass(frozen=True)
class WriteOutcome:
    """Result of :func:`write_capture`: ``created`` is False when an identical
    capture (same source, same text) already existed; ``path`` is its file."""

    created: bool
    path: Path
    record: CaptureRecord


def write_capture(root: Path, record: CaptureRecord) -> WriteOutcome:
    """Write ``record`` into the store exclusively; never replace a file.

    The record is written to ``.tmp-<random>`` in the destination directory,
    fsynced, then hard-linked to its final name (``os.link`` fails if the
    name exists, so concurrent writers of the same text leave one file and
    no reader sees a partial one); where hard links are unsupported the
    final name is created with ``O_CREAT|O_EXCL`` instead. The temporary
    file is always removed.

    Returns:
        WriteOutcome with ``created=False`` when the same revision exists
        already (its name is derived from the text, so it holds this text).

    Raises:
        OSError: the directory cannot be created or written.
    """
    final = capture_path(root, record.source, record.sha256)
    final.parent.mkdir(parents=True, exist_ok=True)
    if final.exists():
        return WriteOutcome(False, final, record)
    created = write_exclusive(final, record.to_json().encode("ascii"), tmp_prefix=TMP_PREFIX)
    return WriteOutcome(created, final, record)


# --------------------------------------------------------------------------- legacy

def parse_legacy(path: Path) -> CaptureRecord:
    """Verify one legacy record (keys source, text, sha256, accessedAt).

    The file name must be sha256(source), the digest must match the text and
    ``accessedAt`` must be an ISO time (normalised to RFC 3339 UTC).

    Raises:
        CaptureCorrupt: the record fails any of those checks.
    """
    data = _read_bounded(path)
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CaptureCorrupt(f"not valid UTF-8 JSON ({exc})") from None
    if not isinstance(obj, dict) or set(obj) != LEGACY_KEYS:
        raise CaptureCorrupt("legacy record must have exactly the keys source, text, sha256, accessedAt")
    if not all(isinstance(obj[k], str) for k in LEGACY_KEYS):
        raise CaptureCorrupt("legacy record fields must be strings")
    if sha256_hex(obj["source"]) != path.stem:
        raise CaptureCorrupt("file name is not sha256 of the recorded source")
    _check_digest(obj["text"], obj["sha256"], "text does not match its recorded sha256")
    try:
        when = datetime.fromisoformat(obj["accessedAt"].replace("Z", "+00:00"))
    except ValueError:
        raise CaptureCorrupt(f"accessedAt is not an ISO 8601 time: {obj['accessedAt']!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    try:
        utc = when.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise CaptureCorrupt(f"accessedAt is out of range: {obj['accessedAt']!r}") from None
    stamp = f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}Z"
    return make_record(obj["source"], obj["text"], retrieved_at=stamp)


@dataclass(frozen=True)
class MigrateOutcome:
    """One legacy file's fate: ``status`` is migrated, already-migrated or refused."""

    path: Path
    status: str
    detail: str


def migrate(root: Path) -> list[MigrateOutcome]:
    """Copy every valid legacy record into the new layout; delete nothing.

    Corrupt legacy records are refused (reported, not written).
    """
    outcomes = []
    for path in Store(root).legacy_files():
        try:
            rec = parse_legacy(path)
        except CaptureError as exc:
            outcomes.append(MigrateOutcome(path, "refused", str(exc)))
            continue
        res = write_capture(root, rec)
        outcomes.append(MigrateOutcome(path, "migrated" if res.created else "already-migrated",
                                       f"{rec.source} -> {res.path.relative_to(root).as_posix()}"))
    return outcomes


def legacy_unmigrated(store: Store) -> list[Path]:
    """Legacy files whose record has no new-layout copy (what CL107 reports).

    A legacy file that cannot even be parsed counts as unmigrated.
    """
    out = []
    for path in store.legacy_files():
        try:
            rec = parse_legacy(path)
        except CaptureError:
            out.append(path)
            continue
        if not capture_path(store.root, rec.source, rec.sha256).is_file():
            out.append(path)
    return out


def legacy_message(count: int, captures_display: str) -> str:
    """The CL107 message for ``count`` unmigrated legacy files under ``captures_display``."""
    return (f"{count} legacy capture file(s) ({captures_display}/<sha256>.json) have no migrated copy and are "
            "not evidence; run `citelint migrate`, then delete them in a commit")
