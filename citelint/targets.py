"""Which files a check reads: the config's report and Markdown globs, applied
to the paths given on the command line or to the whole project.

Only the capture store and version-control or tool directories are never
walked; files that match no glob are skipped (a pre-commit hook passes every
changed file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from citelint.config import Config
from citelint.loaders import kind_of


class UsageError(Exception):
    """A command-line problem (exit 2): a named path does not exist, etc."""


@dataclass(frozen=True)
class Target:
    """One file to check: absolute ``path``, ``kind`` ("report" or "markdown")."""

    path: Path
    kind: str


_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"}


def _walk(top: Path, captures_dir: Path) -> Iterable[Path]:
    """Files under ``top`` in a stable order, never descending into version
    control or tool directories, nor into the capture store (its files are
    never reports, and a large store would dominate the walk)."""
    skip = os.path.abspath(captures_dir)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in _SKIP_DIRS and os.path.join(dirpath, d) != skip)
        for name in sorted(filenames):
            yield Path(dirpath, name)


def select_targets(config: Config, paths: Sequence[str], cwd: Path) -> list[Target]:
    """Files to check. With no ``paths``, every file under the config root that
    matches a report or Markdown glob; otherwise the given files (and files
    under given directories) that match one. Others are skipped silently, as
    a pre-commit hook passes every changed file.

    Raises:
        UsageError: a given path does not exist.
    """
    candidates: list[Path] = []
    if not paths:
        candidates = list(_walk(config.root, config.captures_dir))
    for p in paths:
        path = Path(p) if os.path.isabs(p) else cwd / p
        if path.is_dir():
            candidates.extend(_walk(path, config.captures_dir))
        elif path.exists():
            candidates.append(path)
        else:
            raise UsageError(f"{p}: no such file or directory")
    seen: set[Path] = set()
    out = []
    for c in candidates:
        absolute = Path(os.path.abspath(c))
        if absolute in seen:
            continue
        seen.add(absolute)
        kind = config.classify(absolute)
        if kind == "report" and kind_of(absolute) not in ("json", "yaml"):
            kind = None
        if kind:
            out.append(Target(absolute, kind))
    return out
