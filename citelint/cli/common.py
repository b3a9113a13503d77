"""What every subcommand shares: exit statuses, the argparse subclass that
writes to the streams ``main`` was given, config loading, terminal tests.

Exit statuses are named here (actionlint's ``ExitStatus*`` shape) so no
command returns a bare number.
"""

from __future__ import annotations

import argparse
import sys
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

    Without a config (``import`` outside a project, a ``check`` whose config
    failed to load) the defaults a config in the working directory would
    have are protected: ``citelint.yaml`` and ``captures/``.
    """

    def __init__(self, flag: str, path: Path | str, config: Config | None, *, mode: str = "replace",
                 reports: bool = True, exists_hint: str = ""):
        if config is None:
            cwd = Path.cwd().resolve()
            config = Config(path=cwd / "citelint.yaml", root=cwd, captures_dir=cwd / "captures")
        self.flag, self.path, self.mode, self.config, self.reports = flag, Path(path), mode, config, reports
        #: Added to a create-only refusal of an existing file (say, "use --force to replace it").
        self.exists_hint = exists_hint

    def _protect(self, path: Path) -> str | None:
        return self.config.protects(path, reports=self.reports)

    def problem(self) -> str | None:
        """Why the file must not be written (the whole message for stderr), or None."""
        from citelint.files import WriteRefused, check_output

        try:
            check_output(self.path, mode=self.mode, root=self.config.root, protect=self._protect)
        except WriteRefused as exc:
            return self._refused(exc)
        return None

    def write(self, data: str | bytes) -> str | None:
        """Write ``data`` (text is UTF-8); returns None, or the message saying
        why nothing was written (refused, or the write failed)."""
        from citelint.files import WriteRefused, write_output

        raw = data.encode("utf-8") if isinstance(data, str) else data
        try:
            write_output(self.path, raw, mode=self.mode, root=self.config.root, protect=self._protect)
        except WriteRefused as exc:
            return self._refused(exc)
        except OSError as exc:
            return self._message(exc.strerror or str(exc))
        return None

    def _refused(self, exc: WriteRefused) -> str:
        return self._message(f"{exc.why}; {self.exists_hint}" if exc.exists and self.exists_hint else exc.why)

    def _message(self, why: str) -> str:
        from citelint.escape import terminal

        name = f"{self.flag} {self.path}" if self.flag else str(self.path)
        return f"cannot write {terminal(name)}: {terminal(why)}"
