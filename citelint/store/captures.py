"""The capture store: layout and read-only lookup with integrity checks (DESIGN §2.2).

Layout: ``<root>/<sha256(source)>/<sha256(text)>.json``. The identity of a
captured revision is the pair (source, sha256); the path is derived from it,
so a lookup is one ``open`` and there is nothing to fall back to. The record
inside each file is :mod:`citelint.store.record`' (its names are re-exported
here, so users of the store need one import).

Only this package touches the on-disk store: this module reads it,
:mod:`citelint.store.writer` is the evidence writer (it never replaces a
file), :mod:`citelint.store.legacy` reads and migrates the legacy layout.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.store.record import (
    CAPTURE_FORMAT,
    CAPTURE_FORMAT_V2,
    RECORD_KEYS,
    CaptureCorrupt,
    CaptureError,
    CaptureMissing,
    CaptureRecord,
    TextRejected,
    decode_text,
    is_rfc3339_utc,
    make_record,
    parse_record,
    sha256_hex,
    time_key,
    utc_now,
)

__all__ = [
    "CAPTURE_FORMAT", "MAX_CAPTURE_FILE_BYTES", "RECORD_KEYS", "CaptureCorrupt", "CaptureError", "CaptureMissing",
    "CaptureRecord", "NewestRevisions", "RevisionDate", "RevisionInfo", "Store", "TextRejected", "capture_path",
    "decode_text", "raw_path", "make_record", "parse_record", "read_bounded", "read_head_date", "revision_key",
    "sha256_hex", "source_dir", "time_key", "utc_now",
]

#: A capture file larger than this is refused unread (DESIGN §2.2).
MAX_CAPTURE_FILE_BYTES = 64 * 1024 * 1024
TMP_PREFIX = ".tmp-"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def source_dir(root: Path, source: str) -> Path:
    """Directory holding every revision of ``source``: ``root/<sha256(source)>``."""
    return root / sha256_hex(source)


def _file_name(sha256: str, suffix: str) -> str:
    """``<sha256><suffix>``, a file name in a source directory.

    Raises:
        ValueError: ``sha256`` is not 64 lowercase hex digits.
    """
    if not _HEX64.fullmatch(sha256):
        raise ValueError(f"not a lowercase hex SHA-256: {sha256!r}")
    return sha256 + suffix


def capture_path(root: Path, source: str, sha256: str) -> Path:
    """Path of the capture of (``source``, ``sha256``); ``sha256`` must be 64 lowercase hex."""
    return source_dir(root, source) / _file_name(sha256, ".json")


def raw_path(root: Path, source: str, raw_sha256: str) -> Path:
    """Path of the raw body ``<raw_sha256>.raw`` kept beside an extracted capture of ``source``."""
    return source_dir(root, source) / _file_name(raw_sha256, ".raw")


# --------------------------------------------------------------------------- read side

def read_bounded(path: Path | str) -> bytes:
    """Read a regular file of at most MAX_CAPTURE_FILE_BYTES without following a final symlink."""
    try:
        return read_regular(path, MAX_CAPTURE_FILE_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        raise CaptureMissing(f"no capture file {os.path.basename(path)}") from None
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


class RevisionInfo(NamedTuple):
    """A revision file found in the source directory ``directory``, not yet verified."""

    sha256: str
    directory: str

    @property
    def path(self) -> Path:
        """The revision file's path."""
        return Path(self.directory, f"{self.sha256}.json")


class RevisionDate(NamedTuple):
    """A revision file with the ``retrievedAt`` its head records (None: not
    readable so, see :func:`read_head_date`); unverified."""

    sha256: str
    path: Path | str
    retrieved_at: str | None


def revision_key(rev: CaptureRecord | RevisionDate) -> tuple[tuple[str, str], str]:
    """Order of the revisions of a source, oldest first: (``retrievedAt``,
    sha256); an unknown date sorts first."""
    return (time_key(rev.retrieved_at) if rev.retrieved_at is not None else ("", "")), rev.sha256


_OPEN_HEAD = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)


def read_head_date(path: Path | str, source: str, sha256: str) -> str | None:
    """The ``retrievedAt`` in the head of the capture file ``path`` of (``source``, ``sha256``),
    read without loading or hashing its text; None unless the head is what
    :meth:`CaptureRecord.to_json` writes (``format``, ``source``, ``sha256``, then an RFC 3339
    UTC ``retrievedAt``) in a regular file of at most 64 MiB, not a symlink."""
    rest = f'","source":{json.dumps(source)},"sha256":"{sha256}","retrievedAt":"'
    prefix = f'{{"format":"{CAPTURE_FORMAT}{rest}'.encode("ascii")
    prefix_v2 = f'{{"format":"{CAPTURE_FORMAT_V2}{rest}'.encode("ascii")
    try:
        fd = os.open(path, _OPEN_HEAD)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        # 31: the longest RFC 3339 UTC stamp (nine fractional digits) and its quote.
        ok = stat.S_ISREG(st.st_mode) and st.st_size <= MAX_CAPTURE_FILE_BYTES
        head = os.read(fd, len(prefix) + 31) if ok else b""
    except OSError:
        head = b""
    finally:
        os.close(fd)
    if head.startswith(prefix_v2):
        # Same length as the v1 prefix: only the format's last digit differs.
        prefix = prefix_v2
    when = head[len(prefix):].partition(b'"')[0].decode("ascii", "replace")
    ok = head.startswith(prefix) and head[len(prefix) + len(when):][:1] == b'"' and is_rfc3339_utc(when)
    return when if ok else None


class NewestRevisions(NamedTuple):
    """The newest revisions of a source (:meth:`Store.newest_revisions`), as ``groups``: one
    per revision with the latest ``retrievedAt``, or per batch such a revision belongs to (a
    batch's documents are chunks the model saw together, so any of them may hold a passage).
    Groups and their members are sorted by digest."""

    groups: tuple[tuple[CaptureRecord, ...], ...]

    @property
    def records(self) -> list[CaptureRecord]:
        """Every revision of every group, sorted by digest."""
        return sorted((r for g in self.groups for r in g), key=lambda r: r.sha256)

    @property
    def tied(self) -> bool:
        """True when several revisions, not one batch, share the latest ``retrievedAt``."""
        return len(self.groups) > 1

    def split(self, holds: Callable[[CaptureRecord], bool]
              ) -> tuple[list[CaptureRecord], list[tuple[CaptureRecord, ...]]]:
        """The first record of each group for which ``holds`` is true, and the groups with
        none. A check of "the newest revision" passes only when the second list is empty and
        the first is not: with a tie, it must hold in each tied revision."""
        found, failed = [], []
        for group in self.groups:
            hit = next((r for r in group if holds(r)), None)
            if hit is None:
                failed.append(group)
            else:
                found.append(hit)
        return found, failed


#: Capture text a :class:`Store` keeps of the records :meth:`Store.has_source` verified.
KEPT_CHARS = 8 * 1024 * 1024
#: Sources whose revision listing a :class:`Store` keeps from :meth:`Store.has_source`.
KEPT_LISTINGS = 64 * 1024


class Store:
    """Read-only view of a capture directory.

    ``root`` is the captures directory. Nothing here writes, renames or
    changes permissions; lookups go through the derived path only, refusing
    any path that resolves outside ``root`` (a symlink that leaves it).

    Memory is bounded whatever the store holds: kept are the last 4 lookups (records or errors),
    so facts in a row citing one capture, and the newer revision CL106 names for each, are read
    and hashed once, and the listings of 256 sources, 1024 head dates and 256 CL106 answers;
    and, up to KEPT_CHARS characters of text, the records :meth:`has_source` verified, with
    the revision listings of up to KEPT_LISTINGS sources it found one for.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        # Paths are joined as strings: a run looks up thousands of captures.
        self._root = os.fspath(self.root)
        self._real_root: Path | None = None
        # Per instance, so a Store and what it read go away together.
        self._lookup = functools.lru_cache(maxsize=4)(self._load)
        self._listing = functools.lru_cache(maxsize=256)(self._list_revisions)
        self._head = functools.lru_cache(maxsize=1024)(read_head_date)
        self._newer = functools.lru_cache(maxsize=256)(self._newer_sha)
        # A group's lookup, listing and CL106 answer each name the source's directory (a SHA-256 each).
        self._source_dir = functools.lru_cache(maxsize=256)(self._derive_source_dir)
        self._kept: dict[tuple[str, str], CaptureRecord] = {}
        self._kept_chars = 0
        self._listed: dict[str, tuple[RevisionInfo, ...]] = {}

    def lookup(self, source: str, sha256: str) -> CaptureRecord:
        """The verified record of (``source``, ``sha256``).

        Raises:
            CaptureMissing: no file at the derived path.
            CaptureCorrupt: the file fails integrity checks, is larger than
                64 MiB, or is reached through a symlink leaving the store.
        """
        hit = self._lookup(source, sha256)
        if isinstance(hit, CaptureError):
            raise hit
        return hit

    def _derive_source_dir(self, source: str) -> str:
        return os.path.join(self._root, sha256_hex(source))

    def _load(self, source: str, sha256: str) -> CaptureRecord | CaptureError:
        name = _file_name(sha256, ".json")
        directory = self._source_dir(source)
        inside = self._dir_inside(directory)
        if inside is None:
            return CaptureMissing("no capture of this source")
        if not inside:
            return CaptureCorrupt("capture directory is a symlink leading outside the captures directory")
        try:
            return parse_record(read_bounded(os.path.join(directory, name)), source=source, sha256=sha256)
        except CaptureError as exc:
            return exc

    def _dir_inside(self, directory: Path | str) -> bool | None:
        """Whether the source directory ``directory`` resolves inside the store
        (None: not a directory); one ``lstat`` unless it is a symlink."""
        try:
            mode = os.lstat(directory).st_mode
        except OSError:
            return None
        if stat.S_ISDIR(mode):
            return True  # a real directory in the store's own directory
        if not stat.S_ISLNK(mode) or not os.path.isdir(directory):
            return None
        try:
            self._real_root = self._real_root or self.root.resolve()
            return Path(directory).resolve().is_relative_to(self._real_root)
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop
            return False

    def _verified(self, source: str, sha256: str) -> CaptureRecord | None:
        kept = self._kept.get((source, sha256))
        if kept is not None:
            return kept
        hit = self._lookup(source, sha256)
        return hit if isinstance(hit, CaptureRecord) else None

    def has_source(self, source: str) -> bool:
        """True when ``source`` has a capture that verifies; a corrupt or empty file is not evidence."""
        revs = self.revisions(source)
        for rev in revs:
            record = self._verified(source, rev.sha256)
            if record is not None:
                if len(self._listed) < KEPT_LISTINGS:
                    # Its directory lies inside the store (the record was read through it):
                    # the listing is what _list_revisions would read again for the newest revisions.
                    self._listed[source] = tuple(revs)
                # A Markdown check asks this of the sources its links name, then reads the newest
                # revisions of those its prose cites: keep what was verified for them.
                self._keep(source, record)
                return True
        return False

    def _keep(self, source: str, record: CaptureRecord) -> None:
        """Keep ``record`` (verified) for :meth:`_verified`, up to KEPT_CHARS characters in all."""
        if (source, record.sha256) not in self._kept and self._kept_chars + len(record.text) <= KEPT_CHARS:
            self._kept[(source, record.sha256)] = record
            self._kept_chars += len(record.text)

    def revisions(self, source: str) -> list[RevisionInfo]:
        """Revision files of ``source`` (names only, unverified), sorted by digest."""
        directory = self._source_dir(source)
        try:
            names = os.listdir(directory)
        except OSError:
            return []
        stems = sorted(name[:-5] for name in names if len(name) == 69 and name.endswith(".json"))
        return [RevisionInfo(stem, directory) for stem in stems if _HEX64.fullmatch(stem)]

    def revision_dates(self, source: str) -> list[RevisionDate]:
        """Every revision file of ``source`` with the date its head records,
        unverified, oldest first by :func:`revision_key` (unknown dates first);
        empty when the source directory is missing or leads outside the store."""
        return self._dated(source, list(self._listing(source)), heads=True)

    def _list_revisions(self, source: str) -> tuple[RevisionInfo, ...]:
        listed = self._listed.get(source)
        if listed is not None:
            return listed
        revs = self.revisions(source)
        return tuple(revs) if revs and self._dir_inside(revs[0].directory) else ()

    def _dated(self, source: str, revs: list[RevisionInfo], heads: bool = False) -> list[RevisionDate]:
        heads = heads or len(revs) > 1  # a lone candidate's date orders nothing: verifying it tells
        def dated(r: RevisionInfo) -> RevisionDate:
            path = os.path.join(r.directory, f"{r.sha256}.json")
            return RevisionDate(r.sha256, path, self._head(path, source, r.sha256) if heads else None)
        return sorted(map(dated, revs), key=revision_key)

    def _newest_first(self, source: str, dates: list[RevisionDate]) -> Iterator[CaptureRecord]:
        """The revisions among ``dates`` that verify, newest first by
        :func:`revision_key`, each verified only when reached; those of
        unknown date first of all, since any of them might be the newest."""
        learned = (self._verified(source, d.sha256) for d in dates if d.retrieved_at is None)
        queue: list[tuple[tuple[tuple[str, str], str], CaptureRecord | None]] = [
            (revision_key(r), r) for r in learned if r is not None]
        queue += [(revision_key(d), None) for d in dates if d.retrieved_at is not None]
        for key, rec in sorted(queue, key=lambda item: item[0], reverse=True):
            rec = rec or self._verified(source, key[1])
            if rec is not None:
                yield rec

    def newer_revisions(self, source: str, record: CaptureRecord) -> list[CaptureRecord]:
        """The newest verified revisions of ``source`` whose ``retrievedAt`` is strictly later than
        ``record``'s (what CL106 names), sorted by digest; empty when none is. Several when they
        tie for that newest date and are not one batch (one revision stands for each batch among
        them): nothing says which to cite, so every one is named, never one picked by its digest.
        Dates come from file heads; verified are only the revisions returned, newer ones that
        fail verification, those of unknown date and those whose head date ties."""
        shas = self._newer(source, record.sha256, record.retrieved_at, record.batch)
        found = (self._verified(source, sha) for sha in shas)
        return [r for r in found if r is not None]

    def _newer_sha(self, source: str, sha256: str, retrieved_at: str, batch: str | None) -> tuple[str, ...]:
        others_listed = [r for r in self._listing(source) if r.sha256 != sha256]
        if not others_listed:
            return ()  # the only revision: nothing can be newer
        mine = time_key(retrieved_at)
        others = self._dated(source, others_listed)
        later = [d for d in others if d.retrieved_at is None or time_key(d.retrieved_at) > mine]
        # A sibling of the same batch is another chunk the model saw, not a successor.
        def successor(r: CaptureRecord) -> bool:
            return time_key(r.retrieved_at) > mine and (batch is None or r.batch != batch)

        found = next((r for r in self._newest_first(source, later) if successor(r)), None)
        if found is None:
            return ()
        tied = [found] + self._tied(source, later, found, successor)
        # One per batch among them (its last by digest, as before), and every unbatched one.
        picked: dict[str, CaptureRecord] = {}
        for rec in sorted(tied, key=revision_key, reverse=True):
            picked.setdefault(rec.batch or rec.sha256, rec)
        return tuple(sorted(r.sha256 for r in picked.values()))

    def _tied(self, source: str, dates: list[RevisionDate], newest: CaptureRecord,
              keep: Callable[[CaptureRecord], bool] = lambda r: True) -> list[CaptureRecord]:
        """The verified revisions among ``dates`` but ``newest`` with its ``retrievedAt`` (that
        ``keep`` accepts). Only those whose head date is the same, or unknown, are read: a head
        date is the file's own, so any other rules a revision out unread."""
        top = time_key(newest.retrieved_at)
        maybe = (self._verified(source, d.sha256) for d in dates if d.sha256 != newest.sha256
                 and (d.retrieved_at is None or time_key(d.retrieved_at) == top))
        return [r for r in maybe if r is not None and time_key(r.retrieved_at) == top and keep(r)]

    def newest_revisions(self, source: str, keep: bool = False) -> NewestRevisions:
        """What "the newest revision" of ``source`` is for a check that is given none (a quotation
        without a ``capture:`` title; DESIGN §9): the verified revisions with the latest
        ``retrievedAt``, each with its batch siblings (same ``batch``, any date) as one group.

        Several groups are a tie that nothing may break silently (no digest order, no file
        order): a check passes only when it holds in each group (:meth:`NewestRevisions.split`).
        Empty when nothing verifies. Verified are the newest revision, the others whose head
        date is the same or unknown, and, only with a batch, every revision, to learn theirs.
        With ``keep``, the records returned are kept as :meth:`has_source` keeps what it
        verified (a Markdown check reads the newest revisions of every source on a missed
        quotation, then :meth:`has_source` of the sources later reports link)."""
        newest = self._newest_revisions(source)
        if keep:
            for group in newest.groups:
                for record in group:
                    self._keep(source, record)
        return newest

    def _newest_revisions(self, source: str) -> NewestRevisions:
        listed = self._listing(source)
        if len(listed) == 1:
            # One revision (most sources): it is the newest if it verifies, a group of its own
            # (its batch, if any, has no other member), as the general case below finds.
            only = self._verified(source, listed[0].sha256)
            return NewestRevisions(((only,),) if only is not None else ())
        dates = self._dated(source, list(listed))
        newest = next(self._newest_first(source, dates), None)
        if newest is None:
            return NewestRevisions(())
        tied = [newest] + self._tied(source, dates, newest)
        batches = {r.batch for r in tied if r.batch is not None}
        members: dict[str, list[CaptureRecord]] = {b: [] for b in batches}
        if batches:
            known = {r.sha256: r for r in tied}
            for d in dates:
                rec = known.get(d.sha256) or self._verified(source, d.sha256)
                if rec is not None and rec.batch in members:
                    members[rec.batch].append(rec)
        groups = [tuple(sorted(members[b], key=lambda r: r.sha256)) for b in batches]
        groups += [(r,) for r in tied if r.batch is None]
        return NewestRevisions(tuple(sorted(groups, key=lambda g: g[0].sha256)))

    def recent_revisions(self, source: str, limit: int = 3) -> list[CaptureRecord]:
        """The newest ``limit`` revisions of ``source`` that verify, oldest
        first (the CL102 hint), verifying only as many as needed."""
        dates = self._dated(source, list(self._listing(source)))
        return list(itertools.islice(self._newest_first(source, dates), max(limit, 0)))[::-1]

    def revisions_containing(self, source: str, snippet: str, exclude: str = "",
                             limit: int | None = None) -> list[CaptureRecord]:
        """Verified revisions of ``source`` but ``exclude`` (a sha256) whose text contains
        ``snippet`` (the CL104 hint), oldest first; with ``limit``, the newest ``limit``
        only, read newest first until found."""
        dates = self._dated(source, [r for r in self._listing(source) if r.sha256 != exclude])
        found = (r for r in self._newest_first(source, dates) if snippet in r.text)
        return list(itertools.islice(found, limit))[::-1]

    def verified_revisions(self, source: str) -> list[CaptureRecord]:
        """Every revision of ``source`` that passes verification, oldest first
        by :func:`revision_key`; reads and hashes every one on each call."""
        good = (self._verified(source, rev.sha256) for rev in self.revisions(source))
        return sorted((r for r in good if r is not None), key=revision_key)

    def iter_records(self) -> Iterator[tuple[Path, CaptureRecord | CaptureError]]:
        """Every new-layout capture file with its verified record or its error.

        Temporary files (``.tmp-*``) and anything not shaped like the layout
        are skipped. Files are verified against their directory name by
        recomputing it from the stored source. A source directory that is a
        symlink leading outside the store is one error row (its path), and
        nothing behind it is read, as :meth:`lookup` refuses it.
        """
        if not self.root.is_dir():
            return
        for sdir in sorted(self.root.iterdir()):
            if not (_HEX64.fullmatch(sdir.name) and sdir.is_dir()):
                continue
            if not self._dir_inside(sdir):
                yield sdir, CaptureCorrupt("capture directory is a symlink leading outside the captures directory")
                continue
            for f in sorted(sdir.iterdir()):
                stem, _, ext = f.name.partition(".")
                if ext != "json" or not _HEX64.fullmatch(stem):
                    continue
                try:
                    rec = parse_record(read_bounded(f), sha256=stem)
                    if sha256_hex(rec.source) != sdir.name:
                        raise CaptureCorrupt("recorded source does not hash to its directory name")
                    yield f, rec
                except CaptureError as exc:
                    yield f, exc

    def legacy_files(self) -> list[Path]:
        """Legacy-layout files ``<root>/<sha256(source)>.json``, sorted."""
        try:
            # Names first, as strings: a store holds thousands of source directories.
            with os.scandir(self.root) as entries:
                names = [e.name for e in entries if len(e.name) == 69 and e.name.endswith(".json")
                         and _HEX64.fullmatch(e.name, 0, 64) and e.is_file()]
        except OSError:
            return []
        return sorted(self.root / name for name in names)
