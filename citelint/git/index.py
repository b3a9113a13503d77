"""git's index file, read directly: which capture files it holds, with their stat data.

Two callers need the index's entries under the captures directory: CL109
asks on every hook call whether the cited captures are tracked or staged,
and ``--base`` (:mod:`citelint.git.base`) needs every capture entry's blob id
and recorded stat data. Starting git for either would cost more than the
rest of a small check, so the file is parsed here (gitformat-index(5),
versions 2 to 4) in one pass that looks no further than the header and name
of each entry. Nothing here writes or starts a process.

An index this reader cannot vouch for returns None and the caller asks git
instead: an unreadable file, an unknown version or layout, a split index
(entries kept in another file), a sparse index (a directory entry may hold
captures), or a conflict (an entry at stage 1-3) under the captures
directory, which has no single blob id.
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path
from typing import NamedTuple

#: Bits of :attr:`IndexEntry.flags` (gitformat-index(5)): assume-valid, extended, stage,
#: name length; then an extended entry's (version 3 and later) flags, shifted 16 bits up.
ASSUME_VALID, _EXTENDED, _STAGE_MASK, _NAME_MASK = 0x8000, 0x4000, 0x3000, 0x0FFF
SKIP_WORKTREE, INTENT_TO_ADD = 0x4000 << 16, 0x2000 << 16
#: Capture records, the raw bodies kept beside extracted ones, and signatures.
_CAPTURE_NAME = re.compile(rb"[0-9a-f]{64}/[0-9a-f]{64}\.(?:json|raw|[0-9a-f]{16}\.sig)")
#: A name's shape: each lowercase hex digit becomes ``h``, the other bytes of
#: the three suffixes and the NUL that separates names stay, anything else becomes ``x``.
_SHAPE_OF = bytes(ord("h") if chr(c) in "0123456789abcdef" else c if chr(c) in "\0/.jsonrwig" else ord("x")
                  for c in range(256))
_RECORD_SHAPE = b"h" * 64 + b"/" + b"h" * 64 + b".json"
_OTHER_SHAPES = frozenset({b"h" * 64 + b"/" + b"h" * 64 + b".rhw",
                           b"h" * 64 + b"/" + b"h" * 64 + b"." + b"h" * 16 + b".sig"})
#: An entry's fixed header, as the fields of :class:`IndexEntry`, per object id length.
_HEADS = {hash_len: struct.Struct(f">10I{hash_len}sH") for hash_len in (20, 32)}
_new_entry = tuple.__new__


class IndexEntry(NamedTuple):
    """One stage-0 index entry shaped like a capture file, its fields in the
    index's own order.

    Stat data as git recorded it, each field truncated to 32 bits as the
    index stores it: ``ctime_s``, ``ctime_ns``, ``mtime_s``, ``mtime_ns``,
    ``dev``, ``ino``, ``uid``, ``gid``, ``size`` (bytes). ``mode`` is git's
    (``0o100644``, ``0o100755``, ``0o120000`` for a symlink); ``oid`` the
    blob id's bytes; ``flags`` the entry's flags with its extended flags
    shifted 16 bits up (:data:`ASSUME_VALID`, :data:`SKIP_WORKTREE`,
    :data:`INTENT_TO_ADD`).
    """

    ctime_s: int
    ctime_ns: int
    mtime_s: int
    mtime_ns: int
    dev: int
    ino: int
    mode: int
    uid: int
    gid: int
    size: int
    oid: bytes
    flags: int


def find_worktree(directory: Path) -> tuple[Path, Path] | None:
    """(work tree top, index file) of the git work tree holding ``directory``,
    from the nearest ``.git`` above it (a directory, or a ``gitdir:`` file as
    in linked worktrees); ``GIT_INDEX_FILE`` names the index when set, as in
    a commit hook (a relative one from the top). None outside a work tree."""
    here = Path(os.path.abspath(directory))
    for top in (here, *here.parents):
        dotgit = top / ".git"
        if dotgit.is_dir():
            gitdir = dotgit
        elif dotgit.is_file():
            try:
                line = dotgit.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            gitdir = (top / line[7:].strip()).resolve()
        else:
            continue
        index = os.environ.get("GIT_INDEX_FILE")
        # git reads a relative GIT_INDEX_FILE from the work tree's top, where it runs.
        return top, (top / index if not os.path.isabs(index) else Path(index)) if index else gitdir / "index"
    return None


def _decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (index version 4 path compression): (value, next position)."""
    c = data[pos]
    pos += 1
    value = c & 0x7F
    while c & 0x80:
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos


class IndexListing:
    """The stage-0 entries of one index file under a prefix (the captures
    directory relative to the work tree, ending in ``/``; ``""`` at the top),
    read by :meth:`read` in one pass that looks no further than each entry's
    header and name.

    ``hash_len`` is the object id length in bytes (20 for SHA-1, 32 for
    SHA-256). The work is split so that :mod:`citelint.git.base` can start
    ``diff-files`` on the :meth:`racy` list before :meth:`captures` checks
    and decodes every name.
    """

    __slots__ = ("prefix", "hash_len", "_raw")

    def __init__(self, prefix: str, hash_len: int, raw: dict[bytes, tuple]):
        self.prefix, self.hash_len, self._raw = prefix, hash_len, raw

    @classmethod
    def read(cls, data: bytes, prefix: str) -> IndexListing | None:
        """Parse an index file's bytes (gitformat-index(5), versions 2 to 4)
        for the entries under ``prefix``; None when the index cannot be read
        this way (module docstring). The object format is not written in
        the index; the one whose entries and extensions tile the file
        exactly is taken."""
        if len(data) < 12 or data[:4] != b"DIRC":
            return None
        version, count = struct.unpack_from(">II", data, 4)
        if version not in (2, 3, 4):
            return None
        want = os.fsencode(prefix)
        for hash_len in (20, 32):
            try:
                raw = _walk(data, version, count, want, hash_len)
            except (struct.error, ValueError, IndexError):
                raw = None
            if raw is not None:
                return cls(prefix, hash_len, raw)
        return None

    def racy(self, index_second: int) -> list[str]:
        """Paths (relative to the work tree) of the entries under the prefix,
        shaped like a capture or not, that are racily clean: recorded mtime
        not older than the index file's, ``index_second`` (whole seconds,
        since git may compare seconds only; git's "racy git" problem,
        Documentation/technical/racy-git.txt in git's sources)."""
        prefix = self.prefix
        return [prefix + os.fsdecode(rel) for rel, fields in self._raw.items() if fields[2] >= index_second]

    def captures(self) -> dict[str, IndexEntry]:
        """The entries whose name under the prefix is a capture file's
        (``<64 hex>/<64 hex>.json``, ``.raw`` or ``.<16 hex>.sig``), keyed by
        that name."""
        raw = self._raw
        names = list(raw)
        # One translate over every name (NUL cannot occur in a path) gives each
        # name's shape; a record's shape is proof enough, anything else is
        # matched in full.
        shapes = b"\0".join(names).translate(_SHAPE_OF).split(b"\0")
        capture_name = _CAPTURE_NAME.fullmatch
        good = [rel for rel, shape in zip(names, shapes)
                if shape == _RECORD_SHAPE or (shape in _OTHER_SHAPES and capture_name(rel))]
        if not good:
            return {}
        # The unpacked header is the entry: no copy per field.
        return {name: _new_entry(IndexEntry, raw[rel])
                for name, rel in zip(b"\0".join(good).decode("ascii").split("\0"), good)}


def capture_entries(data: bytes, prefix: str) -> tuple[dict[str, IndexEntry], int] | None:
    """:meth:`IndexListing.captures` of an index file's bytes, and the object
    id length in bytes; None when the index cannot be read this way."""
    listing = IndexListing.read(data, prefix)
    return None if listing is None else (listing.captures(), listing.hash_len)


def _walk(data: bytes, version: int, count: int, want: bytes, hash_len: int) -> dict[bytes, tuple] | None:
    """The entries under ``want`` (bytes) for one object id length, each its
    name after ``want`` mapped to its unpacked header (the fields of
    :class:`IndexEntry`); None when the entries do not parse with this
    length or the index holds what cannot be used.

    Raises:
        struct.error, ValueError, IndexError: the bytes end early.
    """
    head = _HEADS[hash_len]
    unpack, fixed = head.unpack_from, head.size
    skip = len(want)
    out: dict[bytes, tuple] = {}
    pos, previous = 12, b""
    for _ in range(count):
        fields = unpack(data, pos)
        flags = fields[11]
        at = pos + fixed
        if fields[6] & 0o170000 == 0o040000:
            return None  # a sparse index: a directory entry may hold captures
        if flags & _EXTENDED:
            if version < 3:
                return None
            fields = (*fields[:11], flags | data[at] << 24 | data[at + 1] << 16)
            at += 2
        if version == 4:
            strip, at = _decode_varint(data, at)
            if strip > len(previous):
                return None
            end = data.index(b"\0", at)
            name = previous[:len(previous) - strip] + data[at:end]
            pos = end + 1
            previous = name
            if not name.startswith(want):
                continue
            rel = name[skip:]
        else:
            length = flags & _NAME_MASK
            end = at + length if length < _NAME_MASK else data.index(b"\0", at + _NAME_MASK)
            # Entries are NUL-padded to a multiple of eight bytes.
            pos += (end - pos + 8) & ~7
            if data[end] != 0:
                return None
            if not data.startswith(want, at):
                continue
            rel = data[at + skip:end]
        if flags & _STAGE_MASK:
            return None
        out[rel] = fields
    # Extensions follow the entries: a four-byte signature, a 32-bit size,
    # the payload; then the checksum. "link" is a split index, "sdir" a sparse one.
    end = len(data) - hash_len
    while pos + 8 <= end:
        signature = data[pos:pos + 4]
        if signature == b"link" or signature == b"sdir":
            return None
        pos += 8 + struct.unpack_from(">I", data, pos + 4)[0]
    return out if pos == end else None


def indexed_captures(index_file: Path, prefix: str) -> frozenset[str] | None:
    """Capture records (``<64 hex>/<64 hex>.json``, relative to the captures
    directory) that the index holds at stage 0 under ``prefix`` (see
    :func:`capture_entries`), for CL109.

    Returns None when the index cannot be read this way (module docstring);
    an absent index file is an empty index.
    """
    try:
        data = index_file.read_bytes()
    except FileNotFoundError:
        return frozenset()
    except OSError:
        return None
    found = capture_entries(data, prefix)
    if found is None:
        return None
    return frozenset(rel for rel in found[0] if rel.endswith(".json"))
