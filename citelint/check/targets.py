"""Which files a check reads: the config's report and Markdown globs, applied
to the paths given on the command line or to the whole project.

Only the capture store and version-control or tool directories are never
walked; files that match no glob are skipped (a pre-commit hook passes every
changed file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from citelint.config import Config, dir_prefix, relpath
from citelint.errors import UsageError
from citelint.reports.loaders import kind_of


class Target(NamedTuple):
    """One file to check: absolute ``path`` (as named, for display), ``kind``
    ("report" or "markdown"), and ``refusal``: why it must not be read (a
    symlink leading outside the project), reported as CL001 instead."""

    path: Path
    kind: str
    refusal: str | None = None
    #: The report's bytes when they came from standard input (``path`` then only
    #: names it: globs, format by extension, messages), else None: read ``path``.
    content: bytes | None = None
    #: ``path`` as findings print it (:func:`citelint.config.relpath` from the
    #: run's directory); empty when the target was made without one.
    display: str = ""
    #: How a fact report is parsed, from ``path``'s extension: ``"json"`` or
    #: ``"yaml"`` (``"markdown"`` for a Markdown report); empty when unknown.
    syntax: str = ""


class Selection:
    """The files of a run: ``targets`` in a stable order, and ``skipped``:
    (path as given, why) for each named file that is not a report."""

    def __init__(self, targets: list[Target] | None = None, skipped: list[tuple[str, str]] | None = None):
        self.targets: list[Target] = [] if targets is None else targets
        self.skipped: list[tuple[str, str]] = [] if skipped is None else skipped


_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"}


def _walk(top: str, captures_dir: str) -> Iterator[tuple[str, str]]:
    """(absolute path as reached from ``top``, real path) of each file under
    the directory ``top``, in a stable order: a folder's files by name, then
    its folders by name, depth first.

    Never descends into version control or tool directories, nor into the
    capture store (its files are never reports, and a large store would
    dominate the walk: the store is recognised by its real location, so a
    walk through a symlinked alias of the project skips it too). Directory
    symlinks are not followed, so below the real ``top`` only a file that is
    itself a symlink needs ``realpath``: a ``DirEntry`` says which without a
    system call. A folder that cannot be listed is passed over, as
    ``os.walk`` does.
    """
    stack = [(os.path.abspath(top), os.path.realpath(top))]
    while stack:
        lexical, real = stack.pop()
        try:
            with os.scandir(real) as listing:
                entries = sorted(listing, key=_name)
        except OSError:
            continue
        lexical_prefix, real_prefix = dir_prefix(lexical), dir_prefix(real)
        folders = []
        for entry in entries:
            link = _is_symlink(entry)
            if _is_dir(entry):
                # A symlinked folder is not walked (it is judged where it leads,
                # if that is named); the store and tool folders never.
                if not link and entry.name not in _SKIP_DIRS and real_prefix + entry.name != captures_dir:
                    folders.append((lexical_prefix + entry.name, real_prefix + entry.name))
                continue
            path = real_prefix + entry.name
            yield lexical_prefix + entry.name, os.path.realpath(path) if link else path
        stack.extend(reversed(folders))


def _name(entry: os.DirEntry) -> str:
    return entry.name


def _is_dir(entry: os.DirEntry) -> bool:
    """``entry`` is a folder or a symlink to one (``os.walk``'s test; an
    entry that cannot be examined counts as a file)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_symlink(entry: os.DirEntry) -> bool:
    """``entry`` is a symlink; one that cannot be examined is treated as
    one, so its location is resolved rather than assumed."""
    try:
        return entry.is_symlink()
    except OSError:
        return True


def _kind(matched: str, ext: str | None) -> tuple[str | None, str]:
    """The kind a matched file is checked as, given ``ext``, the
    :func:`~citelint.reports.loaders.kind_of` of its name: what its extension says
    (``.json``/``.yaml``/``.yml`` a fact report, ``.md`` Markdown), so a file
    matched by both glob lists is never dropped; other extensions only as
    Markdown."""
    if ext in ("json", "yaml"):
        return "report", ""
    if ext == "markdown" or matched == "markdown":
        return "markdown", ""
    return None, "matched by `reports`, but a fact report is a .json, .yaml or .yml file"


def _syntax(kind: str, ext: str | None) -> str:
    """How a target of ``kind`` whose shown name has extension ``ext`` is parsed."""
    return (ext or "json") if kind == "report" else "markdown"


def _displayer(cwd: Path) -> Callable[[str], str]:
    """:func:`citelint.config.relpath` from ``cwd`` for absolute, normalised
    paths, with ``cwd`` made absolute once for the whole selection."""
    start = os.path.abspath(cwd)
    prefix = dir_prefix(start)
    if os.sep != "/":
        return lambda path: relpath(path, start)
    return lambda path: path[len(prefix):] if path.startswith(prefix) and path != start else relpath(path, start)


def checked_as(config: Config, path: str) -> tuple[str | None, str]:
    """What ``citelint check`` checks the absolute, normalised ``path`` as
    (``"report"`` or ``"markdown"``), as it selects files: a glob of either
    list matches it and its extension allows the kind; or ``(None, why not)``.
    The file need not exist: writers ask before they write."""
    matched, why = config.classify(path)
    return _kind(matched, kind_of(path)) if matched else (None, why)


def stdin_target(config: Config, name: str, content: bytes, cwd: Path) -> Selection:
    """The one target of ``check - --stdin-filename NAME``: ``content`` checked as if it
    were the file ``name`` (relative to ``cwd``), which need not exist.

    Raises:
        UsageError: no report or Markdown glob of the project matches ``name``
            (outside the project, excluded, under captures/): a report given
            explicitly is never passed over in silence.
    """
    path = os.path.normpath(os.path.join(cwd, name))
    ext = kind_of(path)
    kind, why = checked_as(config, path)
    if kind is None:
        raise UsageError(f"--stdin-filename {name}: {why}, so the report on standard input would not be "
                         "checked; name a path the config's `reports` or `markdown` globs match")
    return Selection(targets=[Target(Path(path), kind, content=content, display=relpath(path, cwd),
                                     syntax=_syntax(kind, ext))])


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
    changed file, so this is information, not an error). A FIFO or device
    is selected like a file; reading it is refused later, never waited on.

    Each target carries its display path and its syntax, computed here once.

    Raises:
        UsageError: a given path does not exist (or cannot be examined).
    """
    captures_dir = str(config.captures_dir)
    # (lexical, real, as named on the command line or None).
    candidates: list[tuple[str, str, str | None]] = []
    if not paths:
        candidates = [(lexical, real, None) for lexical, real in _walk(str(config.root), captures_dir)]
    for p in paths:
        # Joined as pathlib joins (``..`` kept for the system to resolve), once per named path.
        path = str(Path(cwd, p))
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            raise UsageError(f"{p}: no such file or directory") from None
        except OSError as exc:
            raise UsageError(f"{p}: {exc.strerror or exc}") from None
        if os.path.isdir(path):
            candidates.extend((lexical, real, None) for lexical, real in _walk(path, captures_dir))
        else:
            candidates.append((os.path.abspath(path), os.path.realpath(path), p))
    root = os.path.realpath(config.root)
    root_prefix = dir_prefix(root)
    display = _displayer(cwd)
    # One entry per real file, named by its own path when that is among the
    # candidates (so a symlink to a report never hides the report itself).
    unique: dict[str, tuple[str, str, str | None]] = {}
    for lexical, real, named in candidates:
        seen = unique.get(real)
        if seen is None or (lexical == real and seen[0] != real):
            unique[real] = (lexical, real, named)
    selection = Selection()
    for lexical, real, named in unique.values():
        if not real.startswith(root_prefix) and real != root:
            matched, why = config.classify(lexical)
            ext = kind_of(lexical)
            kind = _kind(matched, ext)[0] if matched else None
            if kind:
                selection.targets.append(Target(Path(lexical), kind, f"not read: it is a symlink to {real}, outside "
                                                                     f"the project directory {root}",
                                                display=display(lexical), syntax=_syntax(kind, ext)))
            elif named is not None:
                selection.skipped.append((named, why if matched is None else "outside the project directory"))
            continue
        matched, why = config.classify(real)
        ext = kind_of(real)
        kind, why = _kind(matched, ext) if matched else (None, why)
        if kind:
            shown = lexical if lexical.startswith(root_prefix) else real
            # The kind follows the file read; the syntax, the name shown (they
            # differ only for a symlink renamed on the way).
            syntax = _syntax(kind, ext if shown == real else kind_of(shown))
            selection.targets.append(Target(Path(shown), kind, display=display(shown), syntax=syntax))
        elif named is not None:
            selection.skipped.append((named, why))
    return selection
