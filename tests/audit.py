"""An audit hook (PEP 578) that records what a command opens, writes and connects.

CI runs as root, so file permissions prove nothing; the hook records every
open (with whether it writes), every write-like file operation and every
socket use instead. Audit hooks cannot be removed once added, so the hook is
installed once and only records inside :func:`watching`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_CHANGES = ("socket.connect", "socket.bind", "socket.getaddrinfo", "os.rename", "os.replace", "os.remove",
            "os.unlink", "os.mkdir", "os.chmod", "os.link", "os.symlink", "os.truncate", "os.utime",
            "shutil.rmtree")


@dataclass
class Events:
    """What happened while watching: ``opened`` (path, writing) pairs,
    ``changes`` (event, arguments) of write-like operations and sockets, and
    ``listed``: the real path of every directory listed (``os.scandir``,
    ``os.listdir``)."""

    opened: list[tuple[str, bool]] = field(default_factory=list)
    changes: list[tuple[str, str]] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)

    @property
    def writes(self) -> list[tuple[str, str]]:
        """Every open for writing and every change: empty for a read-only command."""
        return [("open", path) for path, writing in self.opened if writing] + self.changes

    def read(self, path: str) -> bool:
        """True when ``path`` (or a path under it) was opened."""
        return any(p == path or p.startswith(path.rstrip("/") + "/") for p, _ in self.opened)


_CURRENT: list[Events | None] = [None]
_INSTALLED = [False]


def _hook(event: str, args: tuple) -> None:
    events = _CURRENT[0]
    if events is None:
        return
    if event == "open":
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                  (isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
        if isinstance(path, (str, bytes, os.PathLike)):
            events.opened.append((os.path.realpath(os.fsdecode(path)), writing))
    elif event in ("os.scandir", "os.listdir"):
        if isinstance(args[0], (str, bytes, os.PathLike)):
            events.listed.append(os.path.realpath(os.fsdecode(args[0])))
    elif event in _CHANGES:
        events.changes.append((event, repr(args[:2])))


@contextmanager
def watching() -> Iterator[Events]:
    """Record events until the block ends (set ``sys.dont_write_bytecode``
    first, or lazy imports writing ``.pyc`` files show up as writes)."""
    if not _INSTALLED[0]:
        sys.addaudithook(_hook)
        _INSTALLED[0] = True
    events = Events()
    _CURRENT[0] = events
    try:
        yield events
    finally:
        _CURRENT[0] = None
