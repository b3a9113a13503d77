"""Which files a check reads: the config's report and Markdown globs, applied
to the paths given on the command line or to the whole project.

Only the capture store and version-control or tool directories are never
walked; files that match no glob are skipped (a pre-commit hook passes every
changed file). A symlink is judged by where it leads and, failing that, by its
own name: one named like a report is checked (inside the project) or refused
(CL001), never passed over.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from citelint.config import Config, dir_prefix, relpath
from citelint.errors import UsageError
from citelint.reports.document import ParseFailure
from citelint.reports.loaders import decode_source, kind_of, read_source


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


class _Found(NamedTuple):
    """One file reached by a walk or named on the command line."""

    #: The absolute path as reached (through the named path and any links).
    lexical: str
    #: Where it really is (every symlink resolved): the file that is read.
    real: str
    #: Its name in the project: the real location of the folder holding its
    #: name, joined with the names below any folder link followed on the way.
    #: It differs from ``real`` only for a path through a symlink, and it is
    #: what a report glob is matched against when ``real`` matches none.
    name: str
    #: The path as given on the command line, or None for a file a walk found.
    named: str | None = None


def _walk(top: str, captures_dir: str, root: str, skipped: list[tuple[str, str]]) -> Iterator[_Found]:
    """Each file under the directory ``top``, in a stable order: a folder's
    files by name, then its folders by name, depth first.

    Never descends into version control or tool directories, nor into the
    capture store (its files are never reports, and a large store would
    dominate the walk: the store is recognised by its real location, so a
    walk through a symlinked alias of the project skips it too). A symlinked
    folder leading inside the project ``root`` is walked, its files named by
    the link (``reports/latest -> ../data`` holds ``reports/latest/q9.json``);
    each such target at most once, and never one enclosing the folder being
    walked, so a link loop ends. A folder link leading outside is not listed
    (it might lead to ``/``), whether walked to or named as ``top``: it is
    noted in ``skipped``. Below a real folder only a file that is itself a
    symlink needs ``realpath``: a ``DirEntry`` says which without a system
    call. A folder that cannot be listed is passed over, as ``os.walk`` does.
    """
    lexical_top, real_top = os.path.abspath(top), os.path.realpath(top)
    root_prefix = dir_prefix(root)
    # A named folder link inside the project is named where the link is, not
    # where it leads; an alias of the project from outside, where it leads.
    name_top = _name_in_project(lexical_top, top, root_prefix)
    if not name_top.startswith(root_prefix):
        name_top = real_top
    elif not (real_top.startswith(root_prefix) or real_top == root):
        # A folder link of the project, named (by a pre-commit hook too), that
        # leads outside: not listed, as in a walk (it might lead to ``/``).
        skipped.append((lexical_top, _outside_folder(real_top, root)))
        return
    followed: set[str] = set()
    # (lexical, real, name) of each folder still to list.
    stack = [(lexical_top, real_top, name_top)]
    while stack:
        lexical, real, name = stack.pop()
        try:
            with os.scandir(real) as listing:
                entries = sorted(listing, key=_name)
        except OSError:
            continue
        lexical_prefix, real_prefix, name_prefix = dir_prefix(lexical), dir_prefix(real), dir_prefix(name)
        folders = []
        for entry in entries:
            link = _is_symlink(entry)
            if _is_dir(entry):
                if entry.name in _SKIP_DIRS:
                    continue
                if not link:
                    if real_prefix + entry.name != captures_dir:
                        folders.append((lexical_prefix + entry.name, real_prefix + entry.name,
                                        name_prefix + entry.name))
                    continue
                target = os.path.realpath(real_prefix + entry.name)
                if not (target.startswith(root_prefix) or target == root):
                    skipped.append((lexical_prefix + entry.name, _outside_folder(target, root)))
                elif (target not in followed and target != captures_dir
                      and not dir_prefix(target).startswith(dir_prefix(captures_dir))
                      and not dir_prefix(real).startswith(dir_prefix(target))):
                    followed.add(target)
                    folders.append((lexical_prefix + entry.name, target, name_prefix + entry.name))
                continue
            path = real_prefix + entry.name
            yield _Found(lexical_prefix + entry.name, os.path.realpath(path) if link else path,
                         name_prefix + entry.name)
        stack.extend(reversed(folders))


def _outside_folder(target: str, root: str) -> str:
    """Why a folder link leading to ``target``, outside the project ``root``, is not walked."""
    return (f"not walked: it is a symlink to {target}, outside the project directory {root} "
            "(no report is read from outside the project)")


def _name_in_project(lexical: str, given: str, root_prefix: str) -> str:
    """The name in the project of the path ``given`` (``lexical`` once made
    absolute): ``lexical`` itself when it lies inside the project as spelled
    (a path through folder links keeps their names), else its folder's real
    location joined with its own name (a path through an alias of the project).
    A ``..`` is resolved by the system, not by spelling, so such a path is
    named the second way too."""
    if lexical.startswith(root_prefix) and ".." not in Path(given).parts:
        return lexical
    if os.path.dirname(lexical) == lexical:
        return lexical
    return os.path.join(os.path.realpath(os.path.dirname(lexical)), os.path.basename(lexical))


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


def given_target(name: str, content: bytes, kind: str, cwd: Path, syntax: str | None = None) -> Target:
    """A report given with its ``content`` rather than read from a file (the
    Python API's ``check_report`` and ``check_markdown``): ``kind``
    (``"report"`` or ``"markdown"``) is what it is checked as, whatever the
    globs say; ``name`` (relative to ``cwd``; it need not exist) is how
    findings name it; ``syntax`` (``"json"`` or ``"yaml"``) how a fact
    report is parsed, by default from ``name``'s extension (JSON unless it
    ends in ``.yaml`` or ``.yml``)."""
    path = os.path.normpath(os.path.join(cwd, name))
    if syntax is None:
        syntax = "markdown" if kind == "markdown" else ("yaml" if kind_of(path) == "yaml" else "json")
    return Target(Path(path), kind, content=content, display=relpath(path, cwd), syntax=syntax)


def select_targets(config: Config, paths: Sequence[str], cwd: Path) -> Selection:
    """Files to check. With no ``paths``, every file under the config root that
    matches a report or Markdown glob; otherwise the given files (and files
    under given directories) that match one.

    A file is matched by its real location (symlinks resolved), so a path
    given absolute, relative or through a symlinked directory is judged the
    same way. A symlink (or a path through a symlinked folder) whose name in
    the project matches a glob is a report too, although the file it leads
    to matches none (``reports/q9.json -> ../data/q9.txt``): it is checked
    as that file when the file is inside the project, and refused (a target
    with a ``refusal``, CL001) when it is outside it or in the capture store;
    it is never passed over. No file outside the project (the config's
    directory) is ever read. A file reached twice (a link beside the report
    it leads to) is checked once, under its own path when that is among the
    candidates. A named file that is not a report is listed in ``skipped``
    with the reason (a pre-commit hook passes every changed file, so this is
    information, not an error), as is a folder link a walk did not follow. A
    FIFO or device is selected like a file; reading it is refused later,
    never waited on.

    Each target carries its display path and its syntax, computed here once.

    Raises:
        UsageError: a given path does not exist (or cannot be examined).
    """
    captures_dir = str(config.captures_dir)
    root = os.path.realpath(config.root)
    root_prefix = dir_prefix(root)
    selection = Selection()
    candidates: list[_Found] = []
    if not paths:
        candidates = list(_walk(str(config.root), captures_dir, root, selection.skipped))
    for p in paths:
        # Joined as pathlib joins (``..`` kept for the system to resolve), once per named path.
        path = str(Path(cwd, p))
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            raise UsageError(f"{p}: no such file or directory") from None
        except OSError as exc:
            raise UsageError(f"{p}: {exc.strerror or exc}") from None
        lexical = os.path.abspath(path)
        if os.path.isdir(path):
            real_dir = os.path.realpath(path)
            if root.startswith(dir_prefix(real_dir)):
                path = root  # a folder holding the project: its part inside the project, not all of it
            elif not (real_dir == root or real_dir.startswith(root_prefix) or os.path.islink(path)):
                # Named, so never passed over in silence: no report outside the project is read.
                selection.skipped.append((p, f"a folder outside the project directory {root} (where the config "
                                             "is): nothing under it is read"))
                continue
            candidates.extend(_walk(path, captures_dir, root, selection.skipped))
        else:
            real = os.path.realpath(path)
            name = real if lexical == real else _name_in_project(lexical, p, root_prefix)
            candidates.append(_Found(lexical, real, name, p))
    display = _displayer(cwd)
    # One target per real file, named by its own path when that is among the
    # candidates (so a symlink to a report never hides the report itself).
    chosen: dict[str, tuple[_Found, Target]] = {}
    for found in candidates:
        target, why = _target(config, found, root, root_prefix, captures_dir, display)
        if target is None:
            if found.named is not None:
                selection.skipped.append((found.named, why))
            continue
        seen = chosen.get(found.real)
        if seen is None or (found.lexical == found.real and seen[0].lexical != found.real):
            chosen[found.real] = (found, target)
    selection.targets.extend(target for _, target in chosen.values())
    return selection


def _target(config: Config, found: _Found, root: str, root_prefix: str, captures_dir: str,
            display: Callable[[str], str]) -> tuple[Target | None, str]:
    """The target ``found`` is, or (None, why it is not a report)."""
    lexical, real, name = found.lexical, found.real, found.name
    inside = real.startswith(root_prefix) or real == root
    if inside:
        matched, why = config.classify(real)
        ext = kind_of(real)
        kind, why = _kind(matched, ext) if matched else (None, why)
        if kind:
            shown = lexical if lexical.startswith(root_prefix) else real
            # The kind follows the file read; the syntax, the name shown (they
            # differ only for a symlink renamed on the way).
            syntax = _syntax(kind, ext if shown == real else kind_of(shown))
            return Target(Path(shown), kind, display=display(shown), syntax=syntax), ""
        if name == real:
            return None, why
    # Reached through a symlink, and the file it leads to is no report where
    # it is: the name it has in the project decides.
    matched, name_why = config.classify(name)
    ext = kind_of(name)
    kind = _kind(matched, ext)[0] if matched else None
    if kind is None:
        return None, why if inside else (name_why if matched is None else "outside the project directory")
    shown = lexical if lexical.startswith(root_prefix) else name
    refusal = None
    if not inside:
        refusal = f"not read: it is a symlink to {real}, outside the project directory {root}"
    elif real == captures_dir or real.startswith(dir_prefix(captures_dir)):
        refusal = f"not read: it is a symlink to {real}, inside the captures directory (evidence, not a report)"
    return Target(Path(shown), kind, refusal, display=display(shown), syntax=_syntax(kind, ext)), ""


def read_target(target: Target) -> tuple[bytes, str] | ParseFailure:
    """The target's bytes and text: from standard input when it came from there."""
    return read_source(target.path) if target.content is None else decode_source(target.content)
