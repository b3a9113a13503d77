"""Which files a check reads: the config's report and Markdown globs, applied
to the paths given on the command line or to the whole project.

Only the capture store and version-control or tool directories are never
walked; files that match no glob are skipped (a pre-commit hook passes every
changed file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from citelint.config import Config
from citelint.loaders import kind_of


class UsageError(Exception):
    """A command-line problem (exit 2): a named path does not exist, etc."""


@dataclass(frozen=True)
class Target:
    """One file to check: absolute ``path`` (as named, for display), ``kind``
    ("report" or "markdown"), and ``refusal``: why it must not be read (a
    symlink leading outside the project), reported as CL001 instead."""

    path: Path
    kind: str
    refusal: str | None = None
    #: The report's bytes when they came from standard input (``path`` then only
    #: names it: globs, format by extension, messages), else None: read ``path``.
    content: bytes | None = None


@dataclass
class Selection:
    """The files of a run: ``targets`` in a stable order, and ``skipped``:
    (path as given, why) for each named file that is not a report."""

    targets: list[Target] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"}


def _walk(top: Path, captures_dir: Path) -> Iterable[Path]:
    """Files under ``top`` in a stable order, never descending into version
    control or tool directories, nor into the capture store (its files are
    never reports, and a large store would dominate the walk). Directory
    symlinks are not followed."""
    skip = os.path.abspath(captures_dir)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in _SKIP_DIRS and os.path.join(dirpath, d) != skip)
        for name in sorted(filenames):
            yield Path(dirpath, name)


def _kind(config: Config, matched: str, path: Path) -> tuple[str | None, str]:
    """The kind a matched file is checked as: what its extension says
    (``.json``/``.yaml``/``.yml`` a fact report, ``.md`` Markdown), so a file
    matched by both glob lists is never dropped; other extensions only as
    Markdown."""
    ext = kind_of(path)
    if ext in ("json", "yaml"):
        return "report", ""
    if ext == "markdown" or matched == "markdown":
        return "markdown", ""
    return None, "matched by `reports`, but a fact report is a .json, .yaml or .yml file"


def stdin_target(config: Config, name: str, content: bytes, cwd: Path) -> Selection:
    """The one target of ``check - --stdin-filename NAME``: ``content`` checked as if it
    were the file ``name`` (relative to ``cwd``), which need not exist.

    Raises:
        UsageError: no report or Markdown glob of the project matches ``name``
            (outside the project, excluded, under captures/): a report given
            explicitly is never passed over in silence.
    """
    path = Path(name) if os.path.isabs(name) else cwd / name
    path = Path(os.path.normpath(path))
    matched, why = config.classify(path)
    kind, why = _kind(config, matched, path) if matched else (None, why)
    if kind is None:
        raise UsageError(f"--stdin-filename {name}: {why}, so the report on standard input would not be "
                         "checked; name a path the config's `reports` or `markdown` globs match")
    return Selection(targets=[Target(path, kind, content=content)])


def select_targets(config: Config, paths: Sequence[str], cwd: Path) -> Selection:
    """Files to check. With no ``paths``, every file under the config root that
    matches a report or Markdown glob; otherwise the given files (and files
    under given directories) that match one.

    A file is matched by its real location (symlinks resolved), so a path
    given absolute, relative or through a symlinked directory is judged the
    same way. A file whose real location is outside the project (the
    config's directory) is never read: if it sits where a report would, it
    is a target with a ``refusal``; a named file that is not a report is
    listed in ``skipped`` with the reason (a pre-commit hook passes every
    changed file, so this is information, not an error).

    Raises:
        UsageError: a given path does not exist.
    """
    candidates: list[tuple[Path, str | None]] = []
    if not paths:
        candidates = [(p, None) for p in _walk(config.root, config.captures_dir)]
    for p in paths:
        path = Path(p) if os.path.isabs(p) else cwd / p
        if path.is_dir():
            candidates.extend((f, None) for f in _walk(path, config.captures_dir))
        elif path.exists() or path.is_symlink():
            candidates.append((path, p))
        else:
            raise UsageError(f"{p}: no such file or directory")
    root = Path(os.path.realpath(config.root))
    # One entry per real file, named by its own path when that is among the
    # candidates (so a symlink to a report never hides the report itself).
    unique: dict[Path, tuple[Path, Path, str | None]] = {}
    for candidate, named in candidates:
        lexical = Path(os.path.abspath(candidate))
        real = Path(os.path.realpath(candidate))
        if real not in unique or (lexical == real and unique[real][0] != real):
            unique[real] = (lexical, real, named)
    selection = Selection()
    for lexical, real, named in unique.values():
        if not real.is_relative_to(root):
            matched, why = config.classify(lexical)
            kind = _kind(config, matched, lexical)[0] if matched else None
            if kind:
                selection.targets.append(Target(lexical, kind, f"not read: it is a symlink to {real}, outside the "
                                                               f"project directory {root}"))
            elif named is not None:
                selection.skipped.append((named, why if matched is None else "outside the project directory"))
            continue
        matched, why = config.classify(real)
        kind, why = _kind(config, matched, real) if matched else (None, why)
        if kind:
            selection.targets.append(Target(lexical if lexical.is_relative_to(root) else real, kind))
        elif named is not None:
            selection.skipped.append((named, why))
    return selection
