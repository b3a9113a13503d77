"""What git and the index file say of the captures directory, for ``--base``
(:mod:`citelint.git.base`, whose docstring gives the reasons) and CL109.

- :class:`IndexProbe`: one index file's capture entries, and ``diff-files``
  started on them at once with racily clean entries left out, so the index
  can vouch for working files without a clean filter ever running;
- :func:`base_entries` and :func:`entries_from_tree`: the base revision's
  captures, from the index corrected by ``diff-index --cached``, or from
  ``ls-tree``;
- :func:`tracked_files`: what the index holds, asked of git (the fallback of
  :func:`citelint.git.tracked.captures_git_has`).

Every git process is read-only plumbing started by :func:`spawn`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from citelint.errors import CitelintError
from citelint.git.index import ASSUME_VALID, INTENT_TO_ADD, SKIP_WORKTREE, IndexEntry, IndexListing
from citelint.git.proc import Completed, Git, GitMissing


class GitBaseError(CitelintError):
    """``--base`` cannot be used (exit 2): no git, not a repository, REF not
    in this clone, captures outside the repository. ``str()`` says what to do."""


class BaseNotFetched(GitBaseError):
    """The base revision is not in this clone (a shallow clone, an unfetched branch).
    ``check --base-missing skip`` turns it into a note instead of a usage error."""


#: Index-entry modes of a regular file.
_REGULAR_MODES = frozenset({"100644", "100755"})
#: Capture records, the raw bodies kept beside extracted ones, and signatures: all append-only.
_CAPTURE_REL = re.compile(r"[0-9a-f]{64}/[0-9a-f]{64}\.(?:json|raw|[0-9a-f]{16}\.sig)")
#: Longest total length (characters) of the pathspecs that leave racily clean
#: files out of ``diff-files``: under the Windows command-line limit.
_EXCLUDE_BUDGET = 24_000
#: For every command that reads the index: never ask an fsmonitor (a
#: configured command, and git does not look at the files it vouches for),
#: and compare every stat field whatever the user's config relaxes.
INDEX_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.checkStat=default", "-c", "core.trustctime=true",
                "-c", "core.ignoreStat=false")


def spawn(args: list[str], cwd: Path, *, pathspec_magic: bool = False) -> Git:
    """Start ``git --no-optional-locks args`` in ``cwd`` (see :mod:`citelint.git.proc`:
    literal pathspecs unless ``pathspec_magic``, no lazy fetch); ``.finish()`` waits for it.

    Raises:
        GitBaseError: no ``git`` on PATH.
    """
    try:
        return Git(args, cwd, pathspec_magic=pathspec_magic)
    except GitMissing:
        raise GitBaseError("--base needs git, and no `git` executable is on PATH") from None


def run_git(args: list[str], cwd: Path, *, pathspec_magic: bool = False) -> Completed:
    """Run git to completion (see :func:`spawn`)."""
    return spawn(args, cwd, pathspec_magic=pathspec_magic).finish()


def first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"


def _index_stamp(path: Path) -> tuple[int, int, int, int] | None:
    """(mtime ns, ctime ns, size, inode) of the index file, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


_REGULAR_BITS = frozenset({0o100644, 0o100755})
#: Entries git does not compare by stat data, so the index cannot vouch for their files.
_NOT_STAT_CHECKED = ASSUME_VALID | SKIP_WORKTREE | INTENT_TO_ADD


class IndexProbe:
    """One index file's entries under the captures directory, and ``diff-files``
    started on them at once, racily clean ones left out.

    ``listing`` is None (and no ``diff-files`` runs) when the index cannot
    be stat'ed, read or used (see :class:`citelint.git.index.IndexListing`)
    or changes while read; ``entries`` its capture entries (empty then).
    """

    def __init__(self, worktree: Path, prefix: str, index_file: Path):
        self.worktree, self.prefix, self.index_file = worktree, prefix, index_file
        self.listing: IndexListing | None = None
        self.entries: dict[str, IndexEntry] = {}
        self._racy: set[str] = set()
        self._dirty: Git | None = None
        self._indexed: tuple[str, str, frozenset[str]] | None = None
        self._stamp = _index_stamp(index_file)
        if self._stamp is None:
            return
        try:
            with open(index_file, "rb") as fh:
                data = fh.read()
        except OSError:
            return
        listing = IndexListing.read(data, prefix)
        if listing is None or not self.unchanged():
            return
        self.listing = listing
        racy = listing.racy(self._stamp[0] // 1_000_000_000)
        excludes = [":(exclude,literal)" + path for path in racy]
        if sum(len(x) + 1 for x in excludes) <= _EXCLUDE_BUDGET:
            self._dirty = spawn([*INDEX_CONFIG, "diff-files", "--name-only", "-z", "--ignore-submodules=all",
                                  "--", ":(literal)" + (prefix or "."), *excludes], worktree, pathspec_magic=True)
        skip = len(prefix)
        self._racy = {path[skip:] for path in racy}
        # Checking and decoding every name overlaps diff-files.
        self.entries = listing.captures()

    def unchanged(self) -> bool:
        """True when the index file is as it was when first stat'ed."""
        return self._stamp is not None and _index_stamp(self.index_file) == self._stamp

    def same(self, worktree: Path, prefix: str, index_file: Path) -> bool:
        """True when this probe read ``index_file`` for ``prefix`` of ``worktree``."""
        return ((self.worktree, self.prefix) == (worktree, prefix)
                and os.path.realpath(self.index_file) == os.path.realpath(index_file))

    def vouched(self, differing: set[str]) -> frozenset[str]:
        """The base captures whose working file the index vouches for.

        ``differing`` holds the paths (relative to the captures directory)
        where the base tree and the index differ. Vouched: an entry of a
        regular file that git compares by stat data (not assume-unchanged,
        skip-worktree or intent-to-add), not racily clean, not in
        ``differing`` (so with the base's blob id), that ``diff-files``
        finds stat-clean (which also means present, of the same type and
        not behind a symlink), the index unchanged meanwhile. Empty when
        ``diff-files`` did not run or failed.
        """
        if self._dirty is None:
            return frozenset()
        dirty = self._dirty.finish()
        # git skips, with a message and exit code 0, an entry it cannot lstat
        # for any reason but ENOENT or ENOTDIR (a symlink loop, EACCES): then
        # its silence vouches for nothing.
        if dirty.returncode != 0 or dirty.stderr or not self.unchanged():
            return frozenset()
        skip = len(self.prefix)
        stale = {os.fsdecode(p)[skip:] for p in dirty.stdout.split(b"\0") if p}
        stale |= differing | self._racy
        return frozenset(rel for rel, e in self.entries.items()
                         if e.mode in _REGULAR_BITS and not e.flags & _NOT_STAT_CHECKED and rel not in stale)

    def indexed(self) -> tuple[str, str, frozenset[str]] | None:
        """(index file's real path, prefix, capture records at stage 0) for CL109
        (:meth:`citelint.check.grounding.GitTracking.adopt`), or None when unread."""
        if self.listing is None:
            return None
        if self._indexed is None:
            self._indexed = (os.path.realpath(self.index_file), self.prefix,
                             frozenset(rel for rel in self.entries if rel.endswith(".json")))
        return self._indexed

    def holds(self, rel: str, oid: str) -> bool | None:
        """Whether the index has ``rel`` as a regular file with blob ``oid``
        (what the next commit holds there); None when it has no entry for it."""
        entry = self.entries.get(rel)
        if entry is None:
            return None
        return entry.mode in _REGULAR_BITS and entry.oid.hex() == oid

    def close(self) -> None:
        """Wait for a ``diff-files`` whose answer is not needed."""
        if self._dirty is not None:
            self._dirty.finish()


def base_entries(running: Git, probe: IndexProbe) -> tuple[dict[str, str], set[str]] | None:
    """The base's captures: the index's entries, corrected where ``diff-index
    --cached`` (``running``) says the base tree differs (its ``src`` side is
    the base), and the paths (relative to the captures directory) where it
    differs. None when git fails or the index changed since it was read."""
    assert probe.listing is not None
    prefix = probe.prefix
    entries = {rel: e.oid.hex() for rel, e in probe.entries.items() if e.mode in _REGULAR_BITS}
    diff = running.finish()
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
            entries[rel] = parts[2]
    return (entries, differing) if probe.unchanged() else None


def entries_from_tree(commit: str, real_top: Path, prefix: str) -> dict[str, str]:
    """The base's captures by listing its tree (``ls-tree -r``).

    Raises:
        GitBaseError: git fails.
    """
    args = ["ls-tree", "-r", "-z", "--full-tree", commit] + (["--", prefix] if prefix else [])
    listing = run_git(args, real_top)
    if listing.returncode != 0:
        raise GitBaseError(f"git ls-tree failed on base {commit[:12]}: {first_line(listing.stderr)}")
    entries: dict[str, str] = {}
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
            entries[rel] = oid
    return entries


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
        listing = run_git(["ls-files", "-z", "--cached", "--", "."], here)
    except GitBaseError:
        return None
    if listing.returncode != 0:
        return None
    return frozenset(os.fsdecode(p) for p in listing.stdout.split(b"\0") if p)


def files_at(commit: str, directory: Path) -> list[tuple[str, str]]:
    """(path relative to ``directory``, blob id) of each regular file under
    ``directory`` in ``commit``'s tree (``ls-tree -r``, read-only).

    Raises:
        GitBaseError: git is missing or fails.
    """
    listing = run_git(["ls-tree", "-r", "-z", commit], directory)
    if listing.returncode != 0:
        raise GitBaseError(f"git ls-tree failed on base {commit[:12]}: {first_line(listing.stderr)}")
    files = []
    for record in listing.stdout.split(b"\0"):
        meta, _, raw_path = record.partition(b"\t")
        if not record or len(meta.split()) != 3:
            continue
        mode, kind, oid = meta.decode("ascii").split()
        if kind == "blob" and mode in _REGULAR_MODES:
            files.append((os.fsdecode(raw_path), oid))
    return files


def read_blob(oid: str, directory: Path) -> bytes:
    """The bytes of the blob ``oid`` (``cat-file blob``, read-only).

    Raises:
        GitBaseError: git is missing or fails.
    """
    shown = run_git(["cat-file", "blob", oid], directory)
    if shown.returncode != 0:
        raise GitBaseError(f"git cat-file failed on {oid[:12]}: {first_line(shown.stderr)}")
    return shown.stdout
