"""Which capture files git has, tracked or staged: what CL109 asks of every cited capture,
and what ``citelint context`` and the MCP server give (committed evidence only).

Read from the index file (:mod:`citelint.git.index`); git itself is asked
(:func:`citelint.git.probe.tracked_files`) only for an index the reader does not vouch for.
"""

from __future__ import annotations

import os
from pathlib import Path

from citelint.git.index import find_worktree, indexed_captures


def captures_git_has(captures_dir: Path,
                     adopted: tuple[str, str, frozenset[str]] | None = None) -> frozenset[str] | None:
    """The files under ``captures_dir`` that git has, tracked or staged (everything in the
    index), as POSIX paths relative to it (``<sha256(source)>/<sha256>.json``), for CL109 and
    ``citelint context``: read from the index file itself, else asked of git (a process) when
    the index is not one :func:`citelint.git.index.indexed_captures` can read.

    ``adopted`` is an index already read this run (``--base`` reads it): (its real path, the
    captures directory's prefix in it, what it holds), used only when it is this index and
    prefix. Returns None outside a git work tree, or when git cannot say (no git installed):
    then nothing is known to be missing from git, and CL109 stays silent.
    """
    found = find_worktree(captures_dir)
    if found is None:
        return None
    top, index = found
    try:
        rel = Path(os.path.abspath(captures_dir)).relative_to(top).as_posix()
    except ValueError:
        return None
    prefix = "" if rel == "." else rel + "/"
    if adopted is not None and adopted[:2] == (os.path.realpath(index), prefix):
        return adopted[2]
    files = indexed_captures(index, prefix)
    if files is None:
        # An index the reader does not vouch for: ask git (slower: a process, and the
        # process modules load only now, off a hook call's usual path).
        from citelint.git.probe import tracked_files

        files = tracked_files(captures_dir)
    return files
