"""Which base revision ``--base REF`` names: resolved to a commit (or the empty tree
before the first one) by git processes started beside the check."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from citelint.git.index import find_worktree
from citelint.git.probe import (
    BaseNotFetched,
    GitBaseError,
    IndexProbe,
    first_line,
    run_git,
    spawn,
)
from citelint.git.proc import Git

_ZERO_OID = re.compile(r"0{40}|0{64}")
_HEX_LINE = re.compile(rb"\^?(?:[0-9a-f]{40}|[0-9a-f]{64})")
#: Spellings of HEAD itself: the pre-commit hook's ``--base HEAD``.
_HEAD = frozenset({"HEAD", "@"})
#: git's empty tree, per object format: the base of a first commit.
_EMPTY_TREE = {"sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
               "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"}
#: Environment that tells git where the repository is, whatever the directory.
REPO_ENV = frozenset({"GIT_DIR", "GIT_WORK_TREE"})
#: The work tree's top and the index file (relative to the directory git runs
#: in; GIT_INDEX_FILE, a commit hook's temporary index, is taken into account).
_REV_PARSE = ("rev-parse", "--show-toplevel", "--git-path", "index")



class _Resolved(NamedTuple):
    """What ``rev-parse`` says of REF: the work tree's top, the index file, REF's
    commit, and the merge base of REF and HEAD (None when there is none).
    ``unborn``: REF is HEAD before the first commit, and ``ref_commit`` is
    git's empty tree (nothing was committed, so nothing can have changed)."""

    toplevel: Path
    index_file: Path
    ref_commit: str
    merge_base: str | None
    unborn: bool = False


def captures_prefix(captures_dir: Path, real_top: Path) -> str | None:
    """The captures directory relative to the work tree's (real) top, as a
    pathspec prefix: ``""`` at the top, else ending in ``/``; None outside it.

    Lexical: if captures/ (or a folder above it) is now a symlink, the base's
    captures/ entries are still the ones compared, and
    :meth:`BaseCaptures.changes` reports each of them as replaced.
    """
    try:
        rel = Path(os.path.normpath(captures_dir)).relative_to(real_top).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel + "/"


def start_resolving(ref: str, repo_dir: Path) -> Git | None:
    """Start the one ``rev-parse`` that answers :func:`_resolve` in the common
    case: ``REF^{commit}...HEAD`` prints both commits and their merge bases.
    None for a REF whose spelling holds ``..`` (that syntax is git's own)."""
    if ".." in ref:
        return None
    return spawn([*_REV_PARSE, f"{ref}^{{commit}}...HEAD"], repo_dir)


def _resolve(ref: str, repo_dir: Path, running: Git | None) -> _Resolved:
    """What ``rev-parse`` says of REF in ``repo_dir``, from ``running`` (see
    :func:`start_resolving`); when that fails or is None, from the two
    processes it replaces (``rev-parse --verify`` and ``merge-base``), which
    tell an unborn HEAD (no merge base) from a REF this clone lacks.

    Raises:
        GitBaseError: git is missing, or ``repo_dir`` is not in a work tree.
        BaseNotFetched: REF is not a commit in this clone.
    """
    if running is not None:
        parsed = running.finish()
        lines = parsed.stdout.rstrip(b"\n").split(b"\n")
        # top, index, HEAD, REF, then ^<merge base> for each merge base, in the
        # order merge-base ranks them (both ask git's get_merge_bases).
        if parsed.returncode == 0 and len(lines) >= 4 and all(_HEX_LINE.fullmatch(x) for x in lines[2:]):
            bases = [x[1:].decode("ascii") for x in lines[4:] if x.startswith(b"^")]
            return _Resolved(Path(os.fsdecode(lines[0])), Path(repo_dir, os.fsdecode(lines[1])),
                             lines[3].decode("ascii"), bases[0] if bases else None)
    merge = spawn(["merge-base", f"{ref}^{{commit}}", "HEAD"], repo_dir)
    try:
        parsed = run_git([*_REV_PARSE, "--verify", "--quiet", f"{ref}^{{commit}}"], repo_dir)
    finally:
        merged = merge.finish()
    lines = parsed.stdout.rstrip(b"\n").split(b"\n") if parsed.stdout else []
    if parsed.returncode != 0 or len(lines) != 3 or not _HEX_LINE.fullmatch(lines[2]) or lines[2][:1] == b"^":
        if len(lines) < 2:
            raise GitBaseError(f"--base needs a git work tree, and git cannot use {repo_dir} as one: "
                               f"{first_line(parsed.stderr)}")
        empty = _unborn_head_tree(repo_dir) if ref in _HEAD else None
        if empty is not None:
            return _Resolved(Path(os.fsdecode(lines[0])), Path(repo_dir, os.fsdecode(lines[1])), empty, None,
                             unborn=True)
        raise BaseNotFetched(
            f"base revision {ref!r} is not in this clone; fetch it first, e.g. "
            f"`git fetch --depth=1 origin {ref}`; in GitHub Actions, check out with actions/checkout's "
            "`fetch-depth: 0` so the clone has it")
    base = merged.stdout.split()[0].decode("ascii") if merged.returncode == 0 and merged.stdout.strip() else None
    return _Resolved(Path(os.fsdecode(lines[0])), Path(repo_dir, os.fsdecode(lines[1])),
                     lines[2].decode("ascii").strip(), base)


def _unborn_head_tree(repo_dir: Path) -> str | None:
    """git's empty tree id when HEAD is unborn (a branch with no commit yet:
    the pre-commit hook's ``--base HEAD`` on a first commit), else None.

    Asked only after ``HEAD^{commit}`` failed to resolve: HEAD is then a
    symbolic ref to a branch that does not exist yet, or broken.
    """
    if run_git(["symbolic-ref", "--quiet", "HEAD"], repo_dir).returncode != 0:
        return None
    if run_git(["rev-parse", "--quiet", "--verify", "HEAD"], repo_dir).returncode == 0:
        return None  # HEAD names an object that is no commit: not unborn
    fmt = run_git(["rev-parse", "--show-object-format"], repo_dir)
    return _EMPTY_TREE.get(fmt.stdout.decode("ascii", "replace").strip()) if fmt.returncode == 0 else None


def check_ref(ref: str) -> None:
    """Refuse what cannot be a base revision before git sees it.

    Raises:
        GitBaseError: REF is empty, would read as an option, or is the null id.
    """
    if not ref or ref.startswith(("-", "^")):
        # A ref starting with "-" would be read by git as an option; "^REF"
        # means every commit but REF's history, which is no base.
        raise GitBaseError(f"--base {ref!r} is not a revision; give a commit, branch or tag")
    if _ZERO_OID.fullmatch(ref):
        raise GitBaseError(f"--base {ref} is git's null revision (a push that created the branch has no "
                           "previous commit); run without --base, or give the branch's base commit")


class Resolving:
    """``rev-parse`` of REF, started in ``directory`` as soon as the command
    line is read: the CLI starts it before it reads the config, which names
    the captures directory, so git answers while the config is parsed.

    Raises:
        GitBaseError: REF cannot be a revision (:func:`check_ref`), or no git.
    """

    def __init__(self, ref: str, directory: Path, captures_guess: Path | None = None):
        check_ref(ref)
        self.ref, self.directory = ref, Path(directory)
        self.worktree = find_worktree(self.directory)
        self._running = start_resolving(ref, self.directory)
        self._resolved: _Resolved | None = None
        self._probe: IndexProbe | None = None
        if captures_guess is not None and self.worktree is not None and not REPO_ENV & os.environ.keys():
            # The captures directory the config is likely to name (its default):
            # diff-files starts on it now, and is kept if the config agrees.
            top = Path(os.path.realpath(self.worktree[0]))
            prefix = captures_prefix(captures_guess, top)
            if prefix is not None:
                self._probe = IndexProbe(top, prefix, self.worktree[1])

    def take_probe(self, worktree: Path, prefix: str, index_file: Path) -> IndexProbe | None:
        """The index read and ``diff-files`` started on the guessed captures
        directory, when it is this one; None (and that one waited for) when not."""
        probe, self._probe = self._probe, None
        if probe is not None and not probe.same(worktree, prefix, index_file):
            probe.close()
            return None
        return probe

    def serves(self, ref: str, repo_dir: Path) -> bool:
        """True when this answers for ``ref`` in ``repo_dir``: the same REF, and
        ``repo_dir`` in the same work tree with the same index file. When
        ``GIT_DIR`` or ``GIT_WORK_TREE`` is set, git answers from where it
        runs (without ``GIT_WORK_TREE``, that directory is the work tree's
        top), so only the same directory will do."""
        if ref != self.ref:
            return False
        if REPO_ENV & os.environ.keys():
            return os.path.realpath(self.directory) == os.path.realpath(repo_dir)
        return self.worktree is not None and find_worktree(repo_dir) == self.worktree

    def result(self) -> _Resolved:
        """What ``rev-parse`` says (see :func:`_resolve`); waits for it once.

        Raises:
            GitBaseError, BaseNotFetched: as :func:`_resolve`.
        """
        if self._resolved is None:
            running, self._running = self._running, None
            self._resolved = _resolve(self.ref, self.directory, running)
        return self._resolved

    def close(self) -> None:
        """Wait for a ``rev-parse`` (and a ``diff-files``) whose answer is not needed."""
        if self._running is not None:
            self._running.close()
        if self._probe is not None:
            self._probe.close()
