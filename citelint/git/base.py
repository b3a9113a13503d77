"""Diff-aware mode (``check --base REF``): the capture store as it was on a base revision.

Captures are append-only (DESIGN §1). To enforce that across a change, the
captures directory of a base revision is compared with the working tree (and
so is the reviews directory, whose records and signatures have the same
``<64 hex>/<64 hex>.json`` and ``.sig`` shapes and are append-only too:
:meth:`PendingBase.sibling`):

- CL301: a new-layout capture file present on the base is modified, deleted
  or replaced (by a symlink, a directory, ...) in the working tree, or
  removed from or changed in the index (what the next commit holds) while
  the working file keeps the base's bytes;
- CL302 (policy ``require_captures_on_base``): a fact leans on a capture that
  the base does not have, i.e. evidence arriving in the same change as the
  claim that needs it.

Which base (DESIGN §6): ``git merge-base REF HEAD``, so a branch that fell
behind its target is not blamed for captures added there since; where no
merge base can be computed (a shallow clone whose history stops short), the
tree of REF itself, which is right for the pull-request merge commit that
actions/checkout checks out by default (its first parent is the base).

Only read-only plumbing runs (:mod:`citelint.git.proc`): one ``rev-parse``
(``merge-base`` beside a second one only when that fails, and for
``--base HEAD`` before the first commit ``symbolic-ref`` and two more
``rev-parse``, which find HEAD unborn: the base is then git's empty tree,
since nothing can have been modified), ``diff-index
--cached`` and ``diff-files`` (``ls-tree`` where the index cannot be used),
each with ``--no-optional-locks`` so the index is never refreshed or
rewritten. Trees and the index are read, blobs never, so a partial clone has
nothing to fetch.

A hook run costs what the change costs, not what the store holds:

- The base's captures are the index's entries (read from the index file by
  :mod:`citelint.git.index`), corrected where ``diff-index --cached`` says
  the base tree differs; git answers that from its cache of tree ids
  without opening unchanged subtrees, which ``ls-tree -r`` of a large store
  must.
- A base capture whose index entry has the base's blob id, that git
  compares by stat data (not assume-unchanged, skip-worktree or
  intent-to-add), that is not racily clean (below) and that ``diff-files``
  finds stat-clean is the file git indexed, so its bytes are the base's and
  it is not read. Every other surviving regular file is hashed here as git
  would hash it (``blob <size>\\0<bytes>``, no filters).
- The three overlap: ``diff-files`` starts as soon as the index file is
  parsed, while ``rev-parse`` still runs, and ``diff-index`` once it ends.

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

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from citelint.git.index import find_worktree
from citelint.git.probe import (
    INDEX_CONFIG,
    BaseNotFetched,
    GitBaseError,
    IndexProbe,
    base_entries,
    entries_from_tree,
    spawn,
    tracked_files,
)
from citelint.git.proc import Git
from citelint.git.resolve import REPO_ENV, Resolving, captures_prefix
from citelint.store.captures import sha256_hex

__all__ = ["BaseCaptures", "BaseNotFetched", "Change", "GitBaseError", "PendingBase", "blob_id",
           "load_base", "tracked_files"]


class Change(NamedTuple):
    """A base capture that the working tree no longer has as it was.

    ``kind`` is ``modified``, ``deleted``, ``unindexed`` (gone from the
    index, still in the working tree), ``restaged`` (changed in the index,
    not in the working tree), ``replaced`` (now a symlink,
    directory or other non-regular file, or behind a symlink loop) or
    ``unreadable`` (``reason`` says why: it cannot be shown to be unchanged);
    ``path`` is the absolute working tree path.
    """

    path: Path
    rel: str
    kind: str
    reason: str = ""
    #: True for a file of the review ledger (reviews/), False for a capture's.
    ledger: bool = False

    def message(self, base_commit: str, display: str) -> str:
        """The CL301 message for this change; ``display`` is the path as shown to the user."""
        short = base_commit[:12]
        what = {"modified": "was modified", "deleted": "was deleted",
                "unindexed": "was removed from git's index (`git rm --cached`: the next commit deletes it, "
                             "though the file is still in the working tree)",
                "restaged": "was changed in git's index (the next commit changes it, though the file in the "
                            "working tree is unchanged)",
                "replaced": "was replaced by a symlink or another kind of file",
                "unreadable": f"cannot be read ({self.reason}), so it cannot be shown unchanged"}[self.kind]
        if self.ledger:
            noun = "review signature" if self.rel.endswith(".sig") else "review record"
            return (f"{noun} {what} since the base revision {short}; reviews are append-only: restore it with "
                    f"`git checkout {short} -- {display}` and record a changed judgment as a new review "
                    "(`citelint review --approve` or `--reject`)")
        noun = "signature file" if self.rel.endswith(".sig") else "capture"
        return (f"{noun} {what} since the base revision {short}; captures are append-only: restore it with "
                f"`git checkout {short} -- {display}` and add new evidence as a new capture")


class BaseCaptures(NamedTuple):
    """The new-layout capture files of a base revision.

    ``ref`` is REF as given, ``commit`` the full id of the commit compared
    with (the merge base, or REF's own commit when ``via == "ref"``; git's
    empty tree when ``via == "unborn"``: REF is HEAD before the first commit).
    ``entries`` maps each capture file on the base (its path inside the
    captures directory: ``<sha256(source)>/<sha256>.json``, a ``.raw`` body
    or a ``.sig`` signature) to its blob id. ``vouched`` holds the entries whose working file the index vouched for
    when the base was loaded (module docstring); :meth:`changes` does not
    look at those again. ``indexed`` is what the index read on the way says
    for CL109 (see :meth:`citelint.check.grounding.GitTracking.adopt`), None when
    it was not used. ``unindexed`` holds the entries the index no longer has
    (``git rm --cached``): the next commit deletes them, though the file is
    still in the working tree, where pre-commit leaves it (it stashes changes
    to tracked files only). ``restaged`` holds those whose index entry is no
    longer the base's blob as a regular file: the next commit changes them,
    whatever the working file holds.
    """

    ref: str
    commit: str
    via: str
    captures_dir: Path
    entries: dict[str, str]
    vouched: frozenset[str] = frozenset()
    indexed: tuple[str, str, frozenset[str]] | None = None
    unindexed: frozenset[str] = frozenset()
    restaged: frozenset[str] = frozenset()
    #: True when this is the review ledger's directory rather than the captures directory.
    ledger: bool = False

    def shown(self) -> str:
        """The base revision as messages name it: a short commit id, or HEAD
        before its first commit."""
        return f"{self.ref} (no commit yet)" if self.via == "unborn" else self.commit[:12]

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
            oid = self.entries[rel]
            path = self.captures_dir / rel
            try:
                st = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                # NotADirectoryError: the source directory became a file.
                yield Change(path, rel, "deleted", ledger=self.ledger)
                continue
            except OSError as exc:
                # ELOOP: the source directory is now a symlink loop.
                yield Change(path, rel, "replaced", ledger=self.ledger) if exc.errno == errno.ELOOP else \
                    Change(path, rel, "unreadable", exc.strerror or type(exc).__name__, self.ledger)
                continue
            if rel in self.unindexed:
                # On disk, but gone from what the next commit holds.
                yield Change(path, rel, "unindexed", ledger=self.ledger)
                continue
            sdir = rel.partition("/")[0]
            if sdir not in real_dirs:
                if captures_real is None:
                    captures_real = os.path.realpath(root) == root
                real_dirs[sdir] = captures_real and _is_real_dir(f"{root}/{sdir}")
            if not stat.S_ISREG(st.st_mode) or not real_dirs[sdir]:
                # A symlink (of the file or of a directory above it) could point at
                # anything; the append-only promise is about this path's bytes.
                yield Change(path, rel, "replaced", ledger=self.ledger)
                continue
            try:
                modified = blob_id(path, len(oid)) != oid
            except OSError as exc:
                yield Change(path, rel, "unreadable", exc.strerror or type(exc).__name__, self.ledger)
                continue
            if modified:
                yield Change(path, rel, "modified", ledger=self.ledger)
            elif rel in self.restaged:
                # The working file is the base's, but the next commit holds the index's blob.
                yield Change(path, rel, "restaged", ledger=self.ledger)


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


class PendingBase:
    """The captures of the base revision for ``ref`` (see :func:`load_base`),
    loading while the check goes on.

    The constructor starts git: ``rev-parse`` (unless ``resolving`` already
    runs it for this work tree), and ``diff-files`` on the index file that
    :func:`citelint.git.index.find_worktree` names. :meth:`resolve`, called
    before the check writes anything, waits for ``rev-parse``, raises its
    errors and starts ``diff-index``; :meth:`result` collects the rest.
    What was started on a guess is kept only if ``rev-parse`` names the same
    work tree and index file. :meth:`close` waits for every process left.

    Raises:
        GitBaseError: as :func:`citelint.git.resolve.check_ref`, or no git.
    """

    def __init__(self, ref: str, captures_dir: Path, repo_dir: Path, resolving: Resolving | None = None,
                 *, ledger: bool = False):
        self.ref, self._captures_dir, self._repo_dir, self._ledger = ref, captures_dir, repo_dir, ledger
        self._probe: IndexProbe | None = None
        self._diff: Git | None = None
        self._result: BaseCaptures | None = None
        self._settled: tuple[Path, str, str, str] | None = None
        if resolving is not None and not resolving.serves(ref, repo_dir):
            resolving.close()
            resolving = None
        self._early = resolving is not None
        self._resolving = resolving or Resolving(ref, repo_dir)
        try:
            guess = self._resolving.worktree
            if guess is not None:
                guess_top = Path(os.path.realpath(guess[0]))
                guess_prefix = captures_prefix(captures_dir, guess_top)
                if guess_prefix is not None:
                    self._probe = (self._resolving.take_probe(guess_top, guess_prefix, guess[1])
                                   or IndexProbe(guess_top, guess_prefix, guess[1]))
        except BaseException:
            self.close()
            raise

    def sibling(self, directory: Path) -> PendingBase:
        """The same comparison for the review ledger's ``directory``, after
        :meth:`resolve`: it shares this one's ``rev-parse`` (no second one
        runs) and starts its own ``diff-files`` and ``diff-index`` over that
        directory; its changes are :class:`Change` with ``ledger`` set.

        Raises:
            GitBaseError: as :meth:`resolve`, for ``directory``.
        """
        assert self._settled is not None, "resolve() first"
        sibling = PendingBase(self.ref, directory, self._repo_dir, self._resolving, ledger=True)
        try:
            sibling.resolve()
        except BaseException:
            sibling.close()
            raise
        return sibling

    def resolve(self) -> None:
        """Wait for ``rev-parse`` and start ``diff-index``; idempotent.

        Raises:
            GitBaseError: ``repo_dir`` is not in a work tree; the captures
                directory is outside the repository; no git.
            BaseNotFetched: REF is not a commit in this clone.
        """
        if self._settled is not None:
            return
        try:
            resolved = self._resolving.result()
        except GitBaseError:
            if not self._early:
                raise
            # Asked from where the command started: ask again from the config's directory.
            self._resolving, self._early = Resolving(self.ref, self._repo_dir), False
            resolved = self._resolving.result()
        toplevel, index_file = resolved.toplevel, resolved.index_file
        real_top = Path(os.path.realpath(toplevel))
        prefix = captures_prefix(self._captures_dir, real_top)
        what = "reviews directory" if self._ledger else "captures directory"
        if prefix is None:
            raise GitBaseError(f"the {what} {self._captures_dir} is outside the git repository "
                               f"{toplevel}; --base can only compare evidence that git tracks")
        inner = find_worktree(self._captures_dir) if not REPO_ENV & os.environ.keys() else None
        if inner is not None and os.path.realpath(inner[0]) != str(real_top):
            # A submodule (or a repository nested inside this one): its files are
            # not in this repository's index or trees, so none would be compared.
            raise GitBaseError(f"the {what} {self._captures_dir} belongs to the git work tree "
                               f"{inner[0]} (a submodule?), not to {toplevel}, the config's; --base can only "
                               "compare captures that the config's repository tracks: put them there, or the "
                               "config in the work tree that holds them")
        if resolved.unborn:
            # The first commit: compared with the empty tree, every capture is new.
            commit, via = resolved.ref_commit, "unborn"
        elif resolved.merge_base is not None:
            commit, via = resolved.merge_base, "merge-base"
        else:
            # No merge base (a shallow clone, or unrelated histories): compare with
            # REF's own tree, as DESIGN §6 prescribes.
            commit, via = resolved.ref_commit, "ref"
        self._diff = spawn([*INDEX_CONFIG, "diff-index", "--cached", "--no-renames", "-z", commit, "--",
                             prefix or "."], real_top)
        probe = self._probe
        if probe is None or not probe.same(real_top, prefix, index_file):
            if probe is not None:
                probe.close()
            self._probe = IndexProbe(real_top, prefix, index_file)
        self._settled = (real_top, prefix, commit, via)

    def indexed(self) -> tuple[str, str, frozenset[str]] | None:
        """What the index file read says for CL109 (see
        :meth:`citelint.check.grounding.GitTracking.adopt`), after :meth:`resolve`;
        None when it could not be used."""
        assert self._settled is not None and self._probe is not None
        listing = self._probe.listing
        if listing is None or listing.hash_len * 2 != len(self._settled[2]):
            return None
        return self._probe.indexed()

    def result(self) -> BaseCaptures:
        """The base's captures; waits for git. Idempotent.

        Raises:
            GitBaseError, BaseNotFetched: as :meth:`resolve`; git fails.
        """
        if self._result is not None:
            return self._result
        self.resolve()
        assert self._settled is not None and self._probe is not None and self._diff is not None
        real_top, prefix, commit, via = self._settled
        probe, indexed = self._probe, self.indexed()
        from_index = base_entries(self._diff, probe) if indexed is not None else None
        vouched: frozenset[str] = frozenset()
        unindexed = restaged = frozenset[str]()
        if from_index is None:
            entries, indexed = entries_from_tree(commit, real_top, prefix), None
        else:
            entries, differing = from_index
            vouched = probe.vouched(differing)
            # What the next commit holds is the index: a base capture it drops or
            # changes is CL301 even when the working file still has the base's bytes.
            held = {rel: probe.holds(rel, entries[rel]) for rel in differing if rel in entries}
            unindexed = frozenset(rel for rel, ok in held.items() if ok is None)
            restaged = frozenset(rel for rel, ok in held.items() if ok is False)
        self._result = BaseCaptures(
            ref=self.ref, commit=commit, via=via, captures_dir=real_top / prefix[:-1] if prefix else real_top,
            entries=entries, vouched=vouched, indexed=indexed, unindexed=unindexed,
            restaged=restaged, ledger=self._ledger)
        self.close()
        return self._result

    def close(self) -> None:
        """Wait for every git process still running (their answers unused)."""
        for process in (self._resolving, self._diff, self._probe):
            if process is not None:
                process.close()


def load_base(ref: str, captures_dir: Path, repo_dir: Path) -> BaseCaptures:
    """The new-layout captures of the base revision for ``ref``, at once
    (:class:`PendingBase` loads them while other work goes on).

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
    pending = PendingBase(ref, captures_dir, repo_dir)
    try:
        return pending.result()
    finally:
        pending.close()
