"""Which capture files git's index holds, read from the index file itself.

CL109 asks, on every hook call, whether the cited captures are tracked or
staged. Starting git for that would cost more than the rest of a small
check, so the index file is read directly: one pass of a regular expression
over its bytes finds every entry shaped like a capture under the captures
directory, and each match is confirmed by the entry's own name-length field
(gitformat-index(5), versions 2 and 3). Anything else (index version 4's
compressed paths, a split index, an unreadable file) returns None and the
caller asks git instead. Nothing here writes or starts a process.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_EXTENDED, _STAGE_MASK, _NAME_MASK = 0x4000, 0x3000, 0x0FFF
_CAPTURE = rb"[0-9a-f]{64}/[0-9a-f]{64}\.json"


def find_worktree(directory: Path) -> tuple[Path, Path] | None:
    """(work tree top, index file) of the git work tree holding ``directory``,
    from the nearest ``.git`` above it (a directory, or a ``gitdir:`` file as
    in linked worktrees); ``GIT_INDEX_FILE`` names the index when set, as in
    a commit hook. None outside a work tree."""
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
        return top, Path(index) if index else gitdir / "index"
    return None


def indexed_captures(index_file: Path, prefix: str) -> frozenset[str] | None:
    """Capture files (``<64 hex>/<64 hex>.json``, relative to the captures
    directory) that the index holds at stage 0 under ``prefix`` (the captures
    directory relative to the work tree, ending in ``/``; ``""`` at the top).

    Returns None when the index cannot be read this way (see the module
    docstring); an absent index file is an empty index.
    """
    try:
        data = index_file.read_bytes()
    except FileNotFoundError:
        return frozenset()
    except OSError:
        return None
    if data[:4] != b"DIRC" or int.from_bytes(data[4:8], "big") not in (2, 3) or b"link" in data[-64:-20]:
        return None
    pattern = re.compile(re.escape(os.fsencode(prefix)) + b"(" + _CAPTURE + b")\x00")
    found = set()
    for m in pattern.finditer(data):
        name_len = m.end() - 1 - m.start()
        flags_at = m.start() - 2
        flags = int.from_bytes(data[flags_at:m.start()], "big")
        if flags & _EXTENDED or (flags & _NAME_MASK) != min(name_len, _NAME_MASK):
            # Version 3 puts two bytes of extended flags between flags and name.
            flags_at = m.start() - 4
            flags = int.from_bytes(data[flags_at:flags_at + 2], "big")
            if not flags & _EXTENDED or (flags & _NAME_MASK) != min(name_len, _NAME_MASK):
                continue
        if flags & _STAGE_MASK == 0:
            found.add(m.group(1).decode("ascii"))
    return frozenset(found)
