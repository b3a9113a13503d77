"""What every subcommand shares: exit statuses, the argparse subclass that
writes to the streams ``main`` was given, config loading, terminal tests.

Exit statuses are named here (actionlint's ``ExitStatus*`` shape) so no
command returns a bare number.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO

from citelint.config import Config, load_config as _load_config
from citelint.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from citelint.files import WriteRefused

EXIT_OK = 0  # nothing at error severity (warnings too, unless --strict)
EXIT_FINDINGS = 1  # at least one finding at error severity; capture/migrate: a source failed
EXIT_USAGE = 2  # bad arguments, unusable config, unreadable input path, internal error


class Exit(Exception):
    """Raised inside the CLI to end a command with ``status`` (never escapes ``main``)."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse that reports errors through our stderr and exit status.

    argparse writes help and ``--version`` to ``sys.stdout`` and calls
    ``sys.exit``; this subclass writes to the streams given to ``main`` and
    raises :class:`Exit`, so tests run the CLI in-process.
    """

    def __init__(self, *args: Any, stdout: TextIO | None = None, stderr: TextIO | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stdout = stdout
        self._stderr = stderr

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if file is None or file is sys.stdout:
            file = self._stdout or sys.stdout
        elif file is sys.stderr:
            file = self._stderr or sys.stderr
        if message:
            file.write(message)

    def error(self, message: str) -> None:  # type: ignore[override]
        err = self._stderr or sys.stderr
        self.print_usage(err)
        err.write(f"{self.prog}: error: {message}\n")
        raise Exit(EXIT_USAGE)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            (self._stderr or sys.stderr).write(message)
        raise Exit(status)


def add_command(sub: argparse._SubParsersAction, command: ModuleType, stdout: TextIO,
                stderr: TextIO) -> argparse.ArgumentParser:
    """Add the subcommand a command module declares to ``sub``; returns its
    parser. The module's docstring gives the one-line help (after
    ``citelint NAME``: on its first line) and the description (the rest);
    ``NAME`` and ``EPILOG`` (examples, kept as written) are its constants."""
    head, _, body = (command.__doc__ or "").partition("\n\n")
    parser: argparse.ArgumentParser = sub.add_parser(
        command.NAME, help=head.split(": ", 1)[-1].rstrip("."), description=" ".join(body.split()),
        epilog=command.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter, stdout=stdout, stderr=stderr)
    return parser


def add_config_option(p: argparse.ArgumentParser) -> None:
    """The ``--config FILE`` option every config-reading command takes."""
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="config file (default: citelint.yaml or [tool.citelint] found by walking up)")


def load_config(args: argparse.Namespace, err: TextIO) -> Config:
    """The config named by ``--config`` or discovered from the working directory.

    Raises:
        Exit: with EXIT_USAGE after printing the config error to ``err``.
    """
    try:
        return _load_config(args.config, Path.cwd())
    except ConfigError as exc:
        err.write(f"citelint: config error: {exc}\n")
        raise Exit(EXIT_USAGE) from None


def isatty(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal (False for closed or fake streams)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Output:
    """One file a command will write with the output writer
    (:func:`citelint.files.write_output`): the option that names it, its path,
    how it is written and what it must never replace.

    What is protected follows the file, not the working directory: the run's
    ``config`` (None when there is none, or it failed to load), the project
    the file lands in (the config found from its folder upward, as ``check``
    finds one from a path), ``config_file`` (the config named or discovered
    that failed to load: its file, and every captures directory and report
    glob it could name), any file named like a config, and the command's
    ``inputs`` (the files named on its command line).
    """

    def __init__(self, flag: str, path: Path | str, config: Config | None, *, mode: str = "replace",
                 reports: bool = True, exists_hint: str = "", config_file: Path | None = None,
                 inputs: Sequence[Path | str] = ()):
        self.flag, self.path, self.mode, self.config, self.reports = flag, Path(path), mode, config, reports
        #: Added to a create-only refusal of an existing file (say, "use --force to replace it").
        self.exists_hint = exists_hint
        self.config_file = Path(os.path.abspath(config_file)) if config_file is not None else None
        self.inputs = [Path(os.path.abspath(p)) for p in inputs]

    def _root(self) -> Path:
        """The project whose symlinked folders the writer refuses: the one the
        path as written lies in (a symlinked folder of it may point anywhere),
        else the one it resolves into, else the run's."""
        folder = Path(os.path.abspath(self.path)).parent
        for where in (folder, Path(os.path.realpath(folder))):
            landing = _project_config(where)
            if landing is not None:
                return landing.parent
        return self.config.root if self.config is not None else Path.cwd()

    def _protect(self, path: Path) -> str | None:
        from citelint.config import CONFIG_NAME, PYPROJECT, has_tool_table

        if self.config is not None:
            why = self.config.protects(path, reports=self.reports)
            if why:
                return why
        # In this order, so the message is the same on every run.
        for config_file in dict.fromkeys(f for f in (_project_config(path.parent), self.config_file) if f is not None):
            why = _guard(config_file, path, self.reports)
            if why:
                return why
        if path.name == CONFIG_NAME or (path.name == PYPROJECT and has_tool_table(path)):
            # Wherever it is: a file of this name is (or would become) some project's config.
            return "it is named like a citelint config; citelint never writes one: write elsewhere"
        for named in self.inputs:
            if _same_file(path, named):
                return "it is an input named on the command line; write the output elsewhere"
        return None

    def problem(self) -> str | None:
        """Why the file must not be written (the whole message for stderr), or None."""
        from citelint.files import WriteRefused, check_output

        try:
            check_output(self.path, mode=self.mode, root=self._root(), protect=self._protect)
        except WriteRefused as exc:
            return self._refused(exc)
        return None

    def write(self, data: str | bytes) -> str | None:
        """Write ``data`` (text is UTF-8); returns None, or the message saying
        why nothing was written (refused, or the write failed)."""
        from citelint.files import WriteRefused, write_output

        raw = data.encode("utf-8") if isinstance(data, str) else data
        try:
            write_output(self.path, raw, mode=self.mode, root=self._root(), protect=self._protect)
        except WriteRefused as exc:
            return self._refused(exc)
        except OSError as exc:
            return self._message(exc.strerror or str(exc))
        return None

    def same_file(self, other: Output) -> bool:
        """True when this output and ``other`` name one file (any spelling, a symlinked folder, a hard link)."""
        return _same_file(Path(os.path.abspath(self.path)), Path(os.path.abspath(other.path)))

    def _refused(self, exc: WriteRefused) -> str:
        return self._message(f"{exc.why}; {self.exists_hint}" if exc.exists and self.exists_hint else exc.why)

    def _message(self, why: str) -> str:
        from citelint.escape import terminal

        name = f"{self.flag} {self.path}" if self.flag else str(self.path)
        return f"cannot write {terminal(name)}: {terminal(why)}"


def clashing_outputs(outputs: Sequence[Output]) -> str | None:
    """The message refusing two outputs that name one file (each writer
    would undo or mix into the other's), or None."""
    from citelint.escape import terminal

    for n, first in enumerate(outputs):
        for second in outputs[n + 1:]:
            if first.same_file(second):
                return (f"cannot write {terminal(f'{first.flag} {first.path}')} and "
                        f"{terminal(f'{second.flag} {second.path}')}: they name the same file; give each "
                        "output its own file")
    return None


def _project_config(folder: Path) -> Path | None:
    """The config file of the project ``folder`` lies in (found walking up,
    as ``check`` discovers one), or None outside any project. When one
    directory holds both kinds of config, the ``citelint.yaml``: the other
    is protected by its name."""
    from citelint.config import CONFIG_NAME, discover

    try:
        return discover(folder)
    except ConfigError:
        for directory in (folder, *folder.parents):
            if (directory / CONFIG_NAME).is_file():
                return directory / CONFIG_NAME
        return None


def _guard(config_file: Path, path: Path, reports: bool) -> str | None:
    """Why ``path`` is protected by the config file ``config_file``: by its
    config, or, when that does not load, by what can be read of it
    (:func:`citelint.config.salvage_config`), or as part of its project
    when nothing can."""
    from citelint.config import dir_prefix, load_config, salvage_config

    try:
        return load_config(config_file, config_file.parent).protects(path, reports=reports)
    except ConfigError:
        pass
    salvaged = salvage_config(config_file)
    if salvaged is None:
        root = Path(os.path.abspath(config_file)).parent
        real = os.path.realpath(path)
        for spelled in {str(root), os.path.realpath(root)}:
            if real.startswith(dir_prefix(spelled)):
                return (f"the config {config_file} cannot be read, so which files of its project are evidence "
                        "or reports is unknown: write outside the project, or fix the config")
        return None
    for config in salvaged:
        why = config.protects(path, reports=reports)
        if why:
            return why
    return None


def _same_file(path: Path, other: Path) -> bool:
    """True when ``path`` and ``other`` are one file: the same resolved path, or one inode."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False
