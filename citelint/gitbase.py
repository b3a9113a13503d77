"""Diff-aware mode (``check --base REF``): the capture store as it was on a base revision.

Captures are append-only (DESIGN §1). To enforce that across a change, the
captures directory of a base revision is compared with the working tree:

- CL301: a new-layout capture file present on the base is modified, deleted
  or replaced (by a symlink, a directory, ...) in the working tree;
- CL302 (policy ``require_captures_on_base``): a fact leans on a capture that
  the base does not have, i.e. evidence arriving in the same change as the
  claim that needs it.

Which base (DESIGN §6): ``git merge-base REF HEAD``, so a branch that fell
behind its target is not blamed for captures added there since; where no
merge base can be computed (a shallow clone whose history stops short), the
tree of REF itself, which is right for the pull-request merge commit that
actions/checkout checks out by default (its first parent is the base).

Only read-only plumbing runs: ``rev-parse``, ``merge-base``, ``diff-index
--cached`` and ``diff-files`` (``ls-tree`` where the index cannot be used),
each with ``--no-optional-locks`` so the index is never refreshed or
rewritten. Trees and the index are read, blobs never, so a partial clone has
nothing to fetch.

A hook run costs what the change costs, not what the store holds:

- The base's captures are the index's entries, corrected where ``diff-index
  --cached`` says the base tree differs; git answers that from its cache of
  tree ids without opening unchanged subtrees, which ``ls-tree -r`` of a
  large store must.
- A base capture whose index entry has the base's blob id, that git
  compares by stat data (not assume-unchanged, skip-worktree or
  intent-to-add), that is not racily clean (below) and that ``diff-files``
  finds stat-clean is the file git indexed, so its bytes are the base's and
  it is not read. Every other surviving regular file is hashed here as git
  would hash it (``blob <size>\\0<bytes>``, no filters).

No configured command ever runs: the report author controls
``.gitattributes`` in a pull request, so git must never run a clean filter,
textconv or the like on a capture. ``diff-files`` would run the clean filter
for a *racily clean* entry (git's "racy git" problem, described in
Documentation/technical/racy-git.txt of git's sources): an entry whose
recorded mtime is not older than the index file may describe a file that
changed after it was indexed without its stat data showing it, so git
re-reads the file to compare contents. Those entries are found here first,
from the index file itself (its entries record their mtime, which git's
listings do not print), by whole seconds (git may compare seconds only);
they are left out of the ``diff-files`` pathspec and, when base captures,
hashed here. When too many to leave out, ``diff-files`` is not run and every
base capture is hashed. fsmonitor is switched off and stat checking set to
git's strict defaults for these commands, and submodules are never inspected.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
import subprocess
from pathlib import Path
from typing import Iterator, NamedTuple

from citelint.captures import sha256_hex

_ZERO_OID = re.compile(r"0{40}|0{64}")


class GitBaseError(Exception):
    """``--base`` cannot be used (exit 2): no git, not a repository, REF not
    in this clone, captures outside the repository. ``str()`` says what to do."""


class BaseNotFetched(GitBaseError):
    """The base revision is not in this clone (a shallow clone, an unfetched branch).
    ``check --base-missing skip`` turns it into a note instead of a usage error."""


class BaseEntry(NamedTuple):
    """A capture file on the base revision: ``rel`` is its path inside the
    captures directory (``<sha256(source)>/<sha256>.json``), ``oid`` its blob id."""

    rel: str
    oid: str


class Change(NamedTuple):
    """A base capture that the working tree no longer has as it was.

    ``kind`` is ``modified``, ``deleted`` or ``replaced`` (now a symlink,
    directory or other non-regular file); ``path`` is the absolute working
    tree path.
    """

    path: Path
    rel: str
    kind: str

    def message(self, base_commit: str, display: str) -> str:
        """The CL301 message for this change; ``display`` is the path as shown to the user."""
        short = base_commit[:12]
        what = {"modified": "was modified", "deleted": "was deleted",
                "replaced": "was replaced by a symlink or another kind of file"}[self.kind]
        noun = "signature file" if self.rel.endswith(".sig") else "capture"
        return (f"{noun} {what} since the base revision {short}; captures are append-only: restore it with "
                f"`git checkout {short} -- {display}` and add new evidence as a new capture")


#: Index-entry modes of a regular file.
_REGULAR_MODES = frozenset({"100644", "100755"})
#: Capture records, the raw bodies kept beside extracted ones, and signatures: all append-only.
_CAPTURE_REL = re.compile(r"[0-9a-f]{64}/[0-9a-f]{64}\.(?:json|raw|[0-9a-f]{16}\.sig)")
_CAPTURE_REL_BYTES = re.compile(rb"[0-9a-f]{64}/[0-9a-f]{64}\.(?:json|raw|[0-9a-f]{16}\.sig)")
#: Longest total length (characters) of the pathspecs that leave racily clean
#: files out of ``diff-files``: under the Windows command-line limit.
_EXCLUDE_BUDGET = 24_000
#: For every command that reads the index: never ask an fsmonitor (a
#: configured command, and git does not look at the files it vouches for),
#: and compare every stat field whatever the user's config relaxes.
_INDEX_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.checkStat=default", "-c", "core.trustctime=true",
                 "-c", "core.ignoreStat=false")


class BaseCaptures(NamedTuple):
    """The new-layout capture files of a base revision.

    ``ref`` is REF as given, ``commit`` the full id of the commit compared
    with (the merge base, or REF's own commit when ``via == "ref"``).
    ``vouched`` holds the entries whose working file the index vouched for
    when the base was loaded (module docstring); :meth:`changes` does not
    look at those again.
    """

    ref: str
    commit: str
    via: str
    captures_dir: Path
    entries: dict[str, BaseEntry]
    vouched: frozenset[str] = frozenset()

    def has_capture(self, source: str, sha256: str) -> bool:
        """True when the capture of (``source``, ``sha256``) exists on the base."""
        return f"{sha256_hex(source)}/{sha256}.json" in self.entries

    def changes(self) -> Iterator[Change]:
        """Base captures modified, deleted or replaced in the working tree (CL301),
        in path order.

        Entries the index vouched for cost nothing; each other one costs an
        ``lstat`` (and one per source directory), and a surviving regular
        file is read and hashed.
        """
        root = str(self.captures_dir)
        captures_real: bool | None = None
        real_dirs: dict[str, bool] = {}
        for rel in sorted(self.entries):
            if rel in self.vouched:
                continue
            entry = self.entries[rel]
            path = self.captures_dir / rel
            try:
                st = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                # NotADirectoryError: the source directory became a file.
                yield Change(path, rel, "deleted")
                continue
            sdir = rel.partition("/")[0]
            if sdir not in real_dirs:
                if captures_real is None:
                    captures_real = os.path.realpath(root) == root
                real_dirs[sdir] = captures_real and _is_real_dir(f"{root}/{sdir}")
            if not stat.S_ISREG(st.st_mode) or not real_dirs[sdir]:
                # A symlink (of the file or of a directory above it) could point at
                # anything; the append-only promise is about this path's bytes.
                yield Change(path, rel, "replaced")
                continue
            if blob_id(path, len(entry.oid)) != entry.oid:
                yield Change(path, rel, "modified")


def _is_real_dir(path: str) -> bool:
    """True when ``path`` is a directory and not a symlink."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def blob_id(path: Path, hex_len: int = 40) -> str:
    """Git's object id of ``path``'s bytes as a blob, without filters.

    ``hex_len`` picks the repository's object format: 40 for SHA-1, 64 for
    SHA-256 (the length of the ids ``ls-tree`` printed).
    """
    h = hashlib.sha256() if hex_len == 64 else hashlib.sha1()
    size = os.path.getsize(path)
    h.update(b"blob %d\0" % size)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _spawn(args: list[str], cwd: Path, *, pathspec_magic: bool = False) -> subprocess.Popen[bytes]:
    """Start ``git --no-optional-locks args`` in ``cwd`` (finish it with :func:`_finish`).

    Pathspecs are literal paths, never globs (with ``pathspec_magic`` each
    one says ``:(literal)`` itself); missing objects are never fetched from a
    promisor remote (a partial clone): --base reads only local data.

    Raises:
        GitBaseError: no ``git`` on PATH.
    """
    env = dict(os.environ)
    env["GIT_LITERAL_PATHSPECS"] = "0" if pathspec_magic else "1"
    for name in ("GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS"):
        env.pop(name, None)
    env["GIT_NO_LAZY_FETCH"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        return subprocess.Popen(["git", "--no-optional-locks", *args], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise GitBaseError("--base needs git, and no `git` executable is on PATH") from None


def _finish(proc: subprocess.Popen[bytes]) -> subprocess.CompletedProcess[bytes]:
    """Wait for ``proc`` and collect its output."""
    out, err = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _git(args: list[str], cwd: Path, *, pathspec_magic: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run git to completion (see :func:`_spawn`)."""
    return _finish(_spawn(args, cwd, pathspec_magic=pathspec_magic))


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"


def _index_stamp(path: Path) -> tuple[int, int, int, int] | None:
    """(mtime ns, ctime ns, size, inode) of the index file, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


#: Index entry flags (gitformat-index(5)).
_ASSUME_VALID, _EXTENDED, _STAGE_MASK, _NAME_MASK = 0x8000, 0x4000, 0x3000, 0x0FFF
_SKIP_WORKTREE, _INTENT_TO_ADD = 0x4000, 0x2000
_REGULAR_BITS = frozenset({0o100644, 0o100755})


def _decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Git's offset varint (index v4 path compression): (value, next position)."""
    c = data[pos]
    pos += 1
    value = c & 0x7F
    while c & 0x80:
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos


class _IndexListing:
    """The stage-0 entries under the captures directory of one index file.

    ``oids`` maps each regular-file entry shaped like a capture (path
    relative to the captures directory) to its blob id in hex;
    ``candidates`` holds those whose file git compares by stat data (not
    assume-unchanged, skip-worktree or intent-to-add) and that are not
    racily clean; ``racy`` holds the paths relative to the work tree of
    every racily clean entry (recorded mtime not older than the index file,
    by whole seconds, since git may compare seconds only), shaped like a
    capture or not.
    """

    __slots__ = ("oids", "candidates", "racy")

    def __init__(self) -> None:
        self.oids: dict[str, str] = {}
        self.candidates: set[str] = set()
        self.racy: list[str] = []


def _read_index(data: bytes, prefix: str, hash_len: int, index_second: int) -> _IndexListing | None:
    """Parse an index file's bytes (format versions 2 to 4, gitformat-index(5))
    for the entries under ``prefix``; ``hash_len`` is the object id length in
    bytes (20 or 32), ``index_second`` the index file's mtime in whole seconds.

    None when ``data`` cannot be parsed or holds what cannot be compared
    entry by entry: an unmerged entry under ``prefix`` (a conflict has no
    single blob id), a split index (entries kept in another file) or a
    sparse directory entry. The file is read directly because it records
    each entry's mtime, which git's listings do not print, so racily clean
    entries are known without an ``lstat`` per file.
    """
    if data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    head = struct.Struct(f">8xI12xI12x{hash_len}sH")
    fixed = head.size
    want = os.fsencode(prefix)
    skip = len(want)
    out = _IndexListing()
    pos, previous = 12, b""
    for _ in range(count):
        mtime, mode, oid, flags = head.unpack_from(data, pos)
        at = pos + fixed
        extended = 0
        if flags & _EXTENDED:
            if version < 3:
                return None
            extended = (data[at] << 8) | data[at + 1]
            at += 2
        if version == 4:
            strip, at = _decode_varint(data, at)
            if strip > len(previous):
                return None
            end = data.index(b"\0", at)
            name = previous[:len(previous) - strip] + data[at:end]
            pos = end + 1
            previous = name
        else:
            end = data.index(b"\0", at)
            name = data[at:end]
            if (flags & _NAME_MASK) != min(end - at, _NAME_MASK):
                return None
            # Entries are NUL-padded to a multiple of eight bytes.
            pos += (end - pos + 8) & ~7
        if stat.S_ISDIR(mode):
            return None  # a sparse index: a directory entry may hold base captures
        if not name.startswith(want):
            continue
        if flags & _STAGE_MASK:
            return None
        if mtime >= index_second:
            out.racy.append(os.fsdecode(name))
            racy = True
        else:
            racy = False
        if mode in _REGULAR_BITS and _CAPTURE_REL_BYTES.fullmatch(name, skip):
            rel = name[skip:].decode("ascii")
            out.oids[rel] = oid.hex()
            if not racy and not (flags & _ASSUME_VALID or extended & (_SKIP_WORKTREE | _INTENT_TO_ADD)):
                out.candidates.add(rel)
    while pos + 8 <= len(data) - hash_len:
        if data[pos:pos + 4] == b"link":
            return None
        pos += 8 + struct.unpack_from(">I", data, pos + 4)[0]
    return out


class _IndexProbe:
    """The index's entries under the captures directory, and ``diff-files``
    started on them, racily clean ones left out.

    ``listing`` is None (and no ``diff-files`` runs) when the index cannot
    be stat'ed, read or used (see :func:`_read_index`) or changes while read.
    """

    def __init__(self, worktree: Path, prefix: str, index_file: Path, hash_len: int):
        self.worktree, self.prefix, self.index_file = worktree, prefix, index_file
        self.listing: _IndexListing | None = None
        self._dirty: subprocess.Popen[bytes] | None = None
        self._stamp = _index_stamp(index_file)
        if self._stamp is None:
            return
        try:
            with open(index_file, "rb") as fh:
                data = fh.read()
            listing = _read_index(data, prefix, hash_len, self._stamp[0] // 1_000_000_000)
        except (OSError, struct.error, ValueError, IndexError, UnicodeDecodeError):
            return
        if listing is None or not self.unchanged():
            return
        self.listing = listing
        excludes = [":(exclude,literal)" + path for path in listing.racy]
        if listing.candidates and sum(len(x) + 1 for x in excludes) <= _EXCLUDE_BUDGET:
            self._dirty = _spawn([*_INDEX_CONFIG, "diff-files", "--name-only", "-z", "--ignore-submodules=all",
                                  "--", ":(literal)" + (prefix or "."), *excludes], worktree, pathspec_magic=True)

    def unchanged(self) -> bool:
        """True when the index file is as it was when first stat'ed."""
        return self._stamp is not None and _index_stamp(self.index_file) == self._stamp

    def vouched(self, differing: set[str]) -> frozenset[str]:
        """The base captures whose working file the index vouches for.

        ``differing`` holds the paths (relative to the captures directory)
        where the base tree and the index differ. Vouched: a candidate entry
        (see :class:`_IndexListing`) not in ``differing``, so with the base's
        blob id, that ``diff-files`` finds stat-clean (which also means
        present, of the same type and not behind a symlink), the index
        unchanged meanwhile. Empty when ``diff-files`` did not run or failed.
        """
        if self._dirty is None or self.listing is None:
            return frozenset()
        dirty = _finish(self._dirty)
        if dirty.returncode != 0 or not self.unchanged():
            return frozenset()
        skip = len(self.prefix)
        stale = {os.fsdecode(p)[skip:] for p in dirty.stdout.split(b"\0") if p}
        return frozenset(self.listing.candidates - differing - stale)

    def close(self) -> None:
        """Wait for a ``diff-files`` whose answer is not needed."""
        if self._dirty is not None and self._dirty.returncode is None:
            _finish(self._dirty)


def _entries_from_index(commit: str, probe: _IndexProbe) -> tuple[dict[str, BaseEntry], set[str]] | None:
    """The base's captures: the index's entries, corrected where ``diff-index
    --cached`` says the base tree differs (its ``src`` side is the base),
    and the paths (relative to the captures directory) where it differs.
    None when git fails or the index changed since it was read."""
    assert probe.listing is not None
    prefix = probe.prefix
    running = _spawn([*_INDEX_CONFIG, "diff-index", "--cached", "--no-renames", "-z", commit, "--", prefix or "."],
                     probe.worktree)
    entries = {rel: BaseEntry(rel, oid) for rel, oid in probe.listing.oids.items()}
    diff = _finish(running)
    if diff.returncode != 0:
        return None
    fields = diff.stdout.split(b"\0")
    if fields and not fields[-1]:
        fields.pop()
    if len(fields) % 2:
        return None
    differing = set()
    for meta, raw_path in zip(fields[::2], fields[1::2]):
        parts = meta.decode("ascii", "replace").split(" ")
        path = os.fsdecode(raw_path)
        if len(parts) != 5 or not parts[0].startswith(":") or not path.startswith(prefix):
            return None
        rel = path[len(prefix):]
        differing.add(rel)
        entries.pop(rel, None)
        if parts[0][1:] in _REGULAR_MODES and _CAPTURE_REL.fullmatch(rel):
            entries[rel] = BaseEntry(rel, parts[2])
    return (entries, differing) if probe.unchanged() else None


def _entries_from_tree(commit: str, real_top: Path, prefix: str) -> dict[str, BaseEntry]:
    """The base's captures by listing its tree (``ls-tree -r``).

    Raises:
        GitBaseError: git fails.
    """
    args = ["ls-tree", "-r", "-z", "--full-tree", commit] + (["--", prefix] if prefix else [])
    listing = _git(args, real_top)
    if listing.returncode != 0:
        raise GitBaseError(f"git ls-tree failed on base {commit[:12]}: {_first_line(listing.stderr)}")
    entries: dict[str, BaseEntry] = {}
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split()
        path = os.fsdecode(raw_path)
        if kind != "blob" or mode not in _REGULAR_MODES or not path.startswith(prefix):
            continue
        rel = path[len(prefix):]
        if _CAPTURE_REL.fullmatch(rel):
            entries[rel] = BaseEntry(rel, oid)
    return entries


def load_base(ref: str, captures_dir: Path, repo_dir: Path) -> BaseCaptures:
    """The new-layout captures of the base revision for ``ref``.

    ``captures_dir`` is the config's (absolute) captures directory;
    ``repo_dir`` is a directory inside the git work tree that holds it (the
    config's directory: the captures directory itself may be gone from the
    working tree, which is CL301 for all of it). Temporary files (``.tmp-*``),
    legacy-layout files and anything else not shaped like
    ``<64 hex>/<64 hex>.json`` are left out, so deleting them is no CL301.

    Raises:
        GitBaseError: git is missing; ``repo_dir`` is not in a work tree; ``ref``
            is not a commit in this clone (the message says to fetch it); the
            captures directory is outside the repository; git fails otherwise.
    """
    if not ref or ref.startswith("-"):
        # A ref starting with "-" would be read by git as an option.
        raise GitBaseError(f"--base {ref!r} is not a revision; give a commit, branch or tag")
    if _ZERO_OID.fullmatch(ref):
        raise GitBaseError(f"--base {ref} is git's null revision (a push that created the branch has no "
                           "previous commit); run without --base, or give the branch's base commit")
    # One rev-parse: the work tree's top, the index file (relative to
    # repo_dir; GIT_INDEX_FILE, a commit hook's temporary index, is taken
    # into account) and REF's commit, each on its own line.
    # The merge-base walk starts at once, beside rev-parse: a hook call waits for one git less.
    merge = _spawn(["merge-base", f"{ref}^{{commit}}", "HEAD"], repo_dir)
    try:
        parsed = _git(["rev-parse", "--show-toplevel", "--git-path", "index", "--verify", "--quiet",
                       f"{ref}^{{commit}}"], repo_dir)
    except GitBaseError:
        _finish(merge)
        raise
    lines = parsed.stdout.rstrip(b"\n").split(b"\n") if parsed.stdout else []
    if parsed.returncode != 0 or len(lines) != 3:
        _finish(merge)
        if len(lines) < 2:
            raise GitBaseError(f"--base needs a git work tree, and git cannot use {repo_dir} as one: "
                               f"{_first_line(parsed.stderr)}")
        raise BaseNotFetched(
            f"base revision {ref!r} is not in this clone; fetch it first, e.g. "
            f"`git fetch --depth=1 origin {ref}`; in GitHub Actions, check out with actions/checkout's "
            "`fetch-depth: 0` so the clone has it")
    toplevel = Path(os.fsdecode(lines[0]))
    index_file = Path(repo_dir, os.fsdecode(lines[1]))
    ref_commit = lines[2].decode("ascii").strip()

    real_top = Path(os.path.realpath(toplevel))
    try:
        # Lexical: if captures/ (or a folder above it) is now a symlink, the
        # base's captures/ entries are still the ones compared, and changes()
        # reports each of them as replaced.
        rel_dir = Path(os.path.normpath(captures_dir)).relative_to(real_top).as_posix()
    except ValueError:
        _finish(merge)
        raise GitBaseError(f"the captures directory {captures_dir} is outside the git repository "
                           f"{toplevel}; --base can only compare captures that git tracks") from None
    prefix = "" if rel_dir == "." else rel_dir + "/"
    # Reading the index (and starting diff-files) overlaps the merge-base walk.
    probe = _IndexProbe(real_top, prefix, index_file, len(ref_commit) // 2)
    try:
        merged = _finish(merge)
        if merged.returncode == 0 and merged.stdout.strip():
            commit, via = merged.stdout.decode("ascii").split()[0], "merge-base"
        else:
            # No merge base (a shallow clone, or unrelated histories): compare with
            # REF's own tree, as DESIGN §6 prescribes.
            commit, via = ref_commit, "ref"
        from_index = _entries_from_index(commit, probe) if probe.listing is not None else None
        vouched: frozenset[str] = frozenset()
        if from_index is None:
            entries = _entries_from_tree(commit, real_top, prefix)
        else:
            entries, differing = from_index
            vouched = probe.vouched(differing)
    finally:
        probe.close()
    return BaseCaptures(ref=ref, commit=commit, via=via, captures_dir=real_top / rel_dir if rel_dir != "."
                        else real_top, entries=entries, vouched=vouched)


def tracked_files(directory: Path) -> frozenset[str] | None:
    """Paths, relative to ``directory`` and in POSIX form, of the files under
    it that git tracks or has staged (everything in the index), for CL109.

    Returns None when ``directory`` is not inside a git work tree or git is
    not installed: the rule then stays silent. One ``git ls-files`` run,
    read-only (``--no-optional-locks``); nothing runs when no ``.git`` is
    found above ``directory``.
    """
    here = Path(os.path.abspath(directory))
    if not any((d / ".git").exists() for d in (here, *here.parents)) or not here.is_dir():
        return None
    try:
        listing = _git(["ls-files", "-z", "--cached", "--", "."], here)
    except GitBaseError:
        return None
    if listing.returncode != 0:
        return None
    return frozenset(os.fsdecode(p) for p in listing.stdout.split(b"\0") if p)
