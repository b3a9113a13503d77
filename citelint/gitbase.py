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

Only read-only plumbing runs: ``rev-parse``, ``merge-base`` and ``ls-tree``,
each with ``--no-optional-locks`` so the index is never refreshed or
rewritten. Trees are listed, blobs are never read: the working-tree files are
hashed here as git would hash them (``blob <size>\\0<bytes>``, no filters),
so no clean filter or other configured command is ever executed and a
partial clone has nothing to fetch.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from citelint.captures import sha256_hex

_HEX64 = re.compile(r"[0-9a-f]{64}")
_ZERO_OID = re.compile(r"0{40}|0{64}")


class GitBaseError(Exception):
    """``--base`` cannot be used (exit 2): no git, not a repository, REF not
    in this clone, captures outside the repository. ``str()`` says what to do."""


@dataclass(frozen=True)
class BaseEntry:
    """A capture file on the base revision: ``rel`` is its path inside the
    captures directory (``<sha256(source)>/<sha256>.json``), ``oid`` its blob id."""

    rel: str
    oid: str


@dataclass(frozen=True)
class Change:
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
        return (f"capture {what} since the base revision {short}; captures are append-only: restore it with "
                f"`git checkout {short} -- {display}` and add new evidence as a new capture")


@dataclass(frozen=True)
class BaseCaptures:
    """The new-layout capture files of a base revision.

    ``ref`` is REF as given, ``commit`` the full id of the commit compared
    with (the merge base, or REF's own commit when ``via == "ref"``).
    """

    ref: str
    commit: str
    via: str
    captures_dir: Path
    entries: dict[str, BaseEntry]

    def has_capture(self, source: str, sha256: str) -> bool:
        """True when the capture of (``source``, ``sha256``) exists on the base."""
        return f"{sha256_hex(source)}/{sha256}.json" in self.entries

    def changes(self) -> Iterator[Change]:
        """Base captures modified, deleted or replaced in the working tree (CL301),
        in path order. Each surviving regular file is read once and hashed."""
        for rel in sorted(self.entries):
            entry = self.entries[rel]
            path = self.captures_dir / rel
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                yield Change(path, rel, "deleted")
                continue
            except NotADirectoryError:
                # The source directory became a file: the capture is gone.
                yield Change(path, rel, "deleted")
                continue
            if not stat.S_ISREG(st.st_mode) or os.path.realpath(path) != str(path):
                # A symlink (of the file or of its directory) could point at
                # anything; the append-only promise is about this path's bytes.
                yield Change(path, rel, "replaced")
                continue
            if blob_id(path, len(entry.oid)) != entry.oid:
                yield Change(path, rel, "modified")


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


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    # Pathspecs are literal paths, never globs; never fetch missing objects
    # from a promisor remote (a partial clone): --base reads only local data.
    env["GIT_LITERAL_PATHSPECS"] = "1"
    env["GIT_NO_LAZY_FETCH"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        return subprocess.run(["git", "--no-optional-locks", *args], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except FileNotFoundError:
        raise GitBaseError("--base needs git, and no `git` executable is on PATH") from None


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"


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
    top = _git(["rev-parse", "--show-toplevel"], repo_dir)
    if top.returncode != 0:
        raise GitBaseError(f"--base needs a git work tree, and git cannot use {repo_dir} as one: "
                           f"{_first_line(top.stderr)}")
    toplevel = Path(os.fsdecode(top.stdout.rstrip(b"\n")))
    verified = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], toplevel)
    if verified.returncode != 0:
        raise GitBaseError(
            f"base revision {ref!r} is not in this clone; fetch it first, e.g. "
            f"`git fetch --depth=1 origin {ref}` (in GitHub Actions: actions/checkout with "
            "fetch-depth: 0, or the citelint action, which fetches it)")
    ref_commit = verified.stdout.decode("ascii").strip()
    merge = _git(["merge-base", ref_commit, "HEAD"], toplevel)
    if merge.returncode == 0 and merge.stdout.strip():
        commit, via = merge.stdout.decode("ascii").split()[0], "merge-base"
    else:
        # No merge base (a shallow clone, or unrelated histories): compare with
        # REF's own tree, as DESIGN §6 prescribes.
        commit, via = ref_commit, "ref"

    real_top = Path(os.path.realpath(toplevel))
    try:
        # Lexical: if captures/ (or a folder above it) is now a symlink, the
        # base's captures/ entries are still the ones compared, and changes()
        # reports each of them as replaced.
        rel_dir = Path(os.path.normpath(captures_dir)).relative_to(real_top).as_posix()
    except ValueError:
        raise GitBaseError(f"the captures directory {captures_dir} is outside the git repository "
                           f"{toplevel}; --base can only compare captures that git tracks") from None
    entries: dict[str, BaseEntry] = {}
    if rel_dir != ".":
        listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", rel_dir + "/"], real_top)
    else:
        listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit], real_top)
    if listing.returncode != 0:
        raise GitBaseError(f"git ls-tree failed on base {commit[:12]}: {_first_line(listing.stderr)}")
    prefix = "" if rel_dir == "." else rel_dir + "/"
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split()
        path = os.fsdecode(raw_path)
        if kind != "blob" or mode not in ("100644", "100755") or not path.startswith(prefix):
            continue
        rel = path[len(prefix):]
        parts = rel.split("/")
        if len(parts) == 2 and _HEX64.fullmatch(parts[0]) and parts[1].endswith(".json") \
                and _HEX64.fullmatch(parts[1][:-5]):
            entries[rel] = BaseEntry(rel, oid)
    return BaseCaptures(ref=ref, commit=commit, via=via, captures_dir=real_top / rel_dir if rel_dir != "."
                        else real_top, entries=entries)
