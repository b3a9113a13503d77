"""The evidence writer: captures, raw bodies and signatures are created
exclusively inside the captures directory, and review records and their
signatures inside the reviews directory, and never replaced (DESIGN §10:
one of the two writers; :mod:`citelint.files` has the other).

Used only by ``capture``, ``migrate``, ``attest`` and ``review``. A file is written to a
temporary name, fsynced, then linked to its final name, so no reader sees a
partial file and concurrent writers of the same text leave one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from citelint.files import FileTooLarge, NotRegularFile, entry_kind, read_regular, write_exclusive
from citelint.store import captures
from citelint.store.captures import TMP_PREFIX, capture_path, raw_path
from citelint.store.record import CaptureCorrupt, CaptureError, CaptureRecord, sha256_hex
from citelint.store.reviews import review_path, signature_path


class EvidenceRefused(CaptureCorrupt):
    """The evidence writer will not create a file: an entry of its name that
    is not a regular file, a directory on the way (the store included) that is
    a symlink or not a directory, or a path outside the store. Nothing was
    written; ``str()`` says what to inspect."""


def write_evidence(root: Path, path: Path, data: bytes) -> bool:
    """The evidence writer: create ``path`` inside the evidence directory
    ``root`` (the captures or the reviews directory) holding ``data``,
    exclusively (:func:`citelint.files.write_exclusive`); never replace, never
    write through a symlink.

    Every directory from ``root`` down to ``path``'s folder must be a real
    directory (missing ones are created): a symlinked ``captures/`` or source
    directory committed by a report author would otherwise send evidence
    anywhere. Used only by ``capture``, ``migrate``, ``attest`` and ``review``.

    Returns:
        True when ``path`` was created; False when a regular file of that
        name exists already (the caller verifies it holds what it should).

    Raises:
        EvidenceRefused: as described above.
        OSError: a directory cannot be created or written.
    """
    store, target = Path(os.path.abspath(root)), Path(os.path.abspath(path))
    if not target.parent.is_relative_to(store):
        raise EvidenceRefused(f"{path} is outside the evidence directory {root}; evidence is written only there")
    rel = target.parent.relative_to(store).parts
    for depth in range(len(rel) + 1):
        folder = store.joinpath(*rel[:depth])
        if not os.path.lexists(folder):
            # exist_ok: a concurrent capture may create it first; what is there is inspected next.
            folder.mkdir(parents=depth == 0, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode):
            raise EvidenceRefused(f"{folder} is {entry_kind(st.st_mode)}, not a directory; evidence is written "
                                  f"only into real directories of {root}: inspect it by hand")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return write_exclusive(target, data, tmp_prefix=TMP_PREFIX)
    if not stat.S_ISREG(st.st_mode):
        raise EvidenceRefused(f"{target.name} already exists as {entry_kind(st.st_mode)}; evidence is never "
                              "written through or over one: inspect it by hand")
    return False


class WriteOutcome(NamedTuple):
    """Result of :func:`write_capture`: ``created`` is False when an identical
    capture (same source, same text) already existed; ``path`` is its file."""

    created: bool
    path: Path
    record: CaptureRecord


def write_capture(root: Path, record: CaptureRecord, raw: bytes | None = None) -> WriteOutcome:
    """Write ``record`` into the store exclusively; never replace a file.

    ``raw``, when given, is the body an extractor read (the record's
    ``rawSha256``): it is kept first (:func:`write_raw`), so a record that
    names a raw body never lacks it for want of a second write, and only
    after the record is serialised, so a record too large to write is
    refused before anything is written.

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
        RecordTooLarge: the record's JSON is over :data:`citelint.store.captures.MAX_CAPTURE_FILE_BYTES`.
        CaptureCorrupt: an entry named as ``raw`` exists but does not hold it.
        EvidenceRefused: the name or a directory on the way is not a regular
            file or directory (:func:`write_evidence`).
        OSError: the directory cannot be created or written.
    """
    final = capture_path(root, record.source, record.sha256)
    data = record_bytes(record)
    if raw is not None:
        write_raw(root, record.source, raw)
    created = write_evidence(root, final, data)
    return WriteOutcome(created, final, record)


class RecordTooLarge(CaptureError):
    """A record's JSON form is over :data:`citelint.store.captures.MAX_CAPTURE_FILE_BYTES`: never written."""


def record_bytes(record: CaptureRecord) -> bytes:
    """The bytes :func:`write_capture` would write for ``record``.

    Raises:
        RecordTooLarge: over :data:`citelint.store.captures.MAX_CAPTURE_FILE_BYTES`, so every check
            would refuse the file unread (CL103).
    """
    data = record.to_json().encode("ascii")
    limit = captures.MAX_CAPTURE_FILE_BYTES
    if len(data) > limit:
        raise RecordTooLarge(f"the capture record would be {len(data)} bytes, over the {limit} "
                             "byte limit a capture file may have; capture a smaller source")
    return data


def write_raw(root: Path, source: str, raw: bytes) -> tuple[bool, Path]:
    """Keep the raw body of an extracted capture as ``<sha256(raw)>.raw``
    beside it, exclusively, as :func:`write_capture` does. An existing entry
    of that name is accepted only as a regular file (not a symlink) holding
    exactly these bytes.

    Returns:
        (created, path).

    Raises:
        CaptureCorrupt: an entry of that name exists but is not those bytes
            in a regular file.
        OSError: the directory cannot be created or written.
    """
    final = raw_path(root, source, sha256_hex(raw))
    if write_evidence(root, final, raw):
        return True, final
    try:
        held = read_regular(final, captures.MAX_CAPTURE_FILE_BYTES, follow_symlinks=False)
    except (OSError, FileTooLarge, NotRegularFile) as exc:
        raise CaptureCorrupt(f"{final.name} already exists but is not a readable regular file ({exc}); "
                             "raw bodies are never replaced, inspect it by hand") from None
    if held != raw:
        raise CaptureCorrupt(f"{final.name} already exists with other bytes (it was altered); raw bodies are "
                             "never replaced, inspect it by hand")
    return False, final


def write_review(root: Path, fingerprint: str, data: bytes) -> tuple[bool, Path]:
    """Add the review record ``data`` (:func:`citelint.store.reviews.record_bytes`)
    judging ``fingerprint`` to the ledger ``root``, exclusively, named by its
    digest, as :func:`write_evidence` writes.

    Returns:
        (created, path): created is False when the same record (the same
        bytes) exists already.

    Raises:
        EvidenceRefused: the name or a directory on the way is not a regular
            file or directory.
        OSError: the directory cannot be created or written.
    """
    final = review_path(root, fingerprint, sha256_hex(data))
    return write_evidence(root, final, data), final


def write_review_signature(root: Path, fingerprint: str, digest: str, key_hex: str,
                           armored: bytes) -> tuple[bool, Path]:
    """Add a signature (``armored``: an armoured SSHSIG) of the record ``digest``
    by the key of fingerprint ``key_hex`` beside it, exclusively.

    Returns:
        (created, path): created is False when that key's signature exists already.

    Raises:
        EvidenceRefused, OSError: as :func:`write_review`.
    """
    final = signature_path(root, fingerprint, digest, key_hex)
    return write_evidence(root, final, armored), final
