"""Bytes on disk: bounded reads of regular files, exclusive and atomic
writes, and the one UTF-8 decoding rule for the text they hold.

Every reader of a report, config or capture, and every writer of a capture
or a ``--fix``, goes through here, so the safety rules live in one place:

- a read opens without blocking and refuses anything but a regular file
  (a FIFO or a device would otherwise block or never end), and never reads
  more than its limit;
- a write goes to a temporary file in the destination's directory, is
  fsynced, and then either takes a name that must not exist yet
  (:func:`write_exclusive`) or replaces one in a single rename
  (:func:`replace_atomically`), so no reader ever sees a partial file.

Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_READ_CHUNK = 1 << 20
_BOM = "\ufeff"


class NotRegularFile(OSError):
    """The path names a FIFO, device, socket or directory. ``strerror`` is
    ``"not a regular file"``."""

    def __init__(self, path: Path | str):
        super().__init__(errno.EINVAL, "not a regular file", str(path))


class FileTooLarge(Exception):
    """A file is over the byte limit of the read.

    ``size`` is its size in bytes by ``fstat`` (refused unread), or None when
    it grew past ``limit`` while being read; ``limit`` is the limit in bytes.
    """

    def __init__(self, path: Path | str, size: int | None, limit: int):
        super().__init__(f"{path}: over the {limit} byte limit")
        self.size = size
        self.limit = limit


def read_regular(path: Path | str, limit: int, *, follow_symlinks: bool = True) -> bytes:
    """Read the whole regular file ``path``, at most ``limit`` bytes.

    The file is opened with ``O_NONBLOCK`` and checked with ``fstat`` before
    any read, so a FIFO or device is refused instead of blocking forever.
    With ``follow_symlinks=False`` a final symlink is refused (``ELOOP``).

    Returns:
        The file's bytes.

    Raises:
        NotRegularFile: ``path`` is not a regular file.
        FileTooLarge: the file is larger than ``limit`` bytes (by ``fstat``,
            or by what was read when it grew meanwhile).
        OSError: the file cannot be opened or read (``FileNotFoundError``,
            ``ELOOP`` for a refused symlink, ...).
    """
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow_symlinks else _NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path)
        if st.st_size > limit:
            raise FileTooLarge(path, st.st_size, limit)
        chunks = []
        remaining, got = limit + 1, 0
        while remaining > 0:
            want = min(remaining, _READ_CHUNK)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            got += len(chunk)
            if len(chunk) < want and got == st.st_size:
                # A regular file reads short only at its end (POSIX read()), and
                # this is the size fstat gave: no read just to see the end.
                break
        data = b"".join(chunks)
        if len(data) > limit:
            raise FileTooLarge(path, None, limit)
        return data
    finally:
        os.close(fd)


def decode_utf8(raw: bytes) -> str:
    """Decode ``raw`` as strict UTF-8 and drop one leading BOM.

    A single U+FEFF at the start is an encoding signature, not text; a second
    one, or one elsewhere, stays as text.

    Raises:
        UnicodeDecodeError: ``raw`` is not valid UTF-8 (``start`` is the byte
            offset of the first bad byte, ``reason`` says why).
    """
    text = raw.decode("utf-8")
    return text[1:] if text.startswith(_BOM) else text


# --------------------------------------------------------------------------- writes

def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (looping over short writes), then fsync."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def _create_filled(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` (``O_EXCL``: it must not exist), fill it with ``data``
    and fsync it; a failure after creation removes it again."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, mode)
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except BaseException:
        os.unlink(path)
        raise


def _write_temporary(directory: Path, data: bytes, prefix: str, mode: int) -> Path:
    """A new fsynced file ``<directory>/<prefix><16 hex>`` holding ``data``."""
    import secrets  # only a writer needs it: a check's start-up does not

    tmp = directory / f"{prefix}{secrets.token_hex(8)}"
    _create_filled(tmp, data, mode)
    return tmp


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def fsync_dir(directory: Path) -> None:
    """fsync ``directory`` so a new name in it survives a crash (best effort:
    some filesystems cannot open or sync a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_exclusive(path: Path, data: bytes, *, tmp_prefix: str, mode: int = 0o644) -> bool:
    """Create ``path`` holding ``data``; never replace an existing file.

    ``data`` goes to ``<tmp_prefix><random>`` in the same directory, is
    fsynced, then hard-linked to ``path`` (``os.link`` fails if the name
    exists, so of concurrent writers one wins and no reader sees a partial
    file). Where the filesystem has no hard links, ``path`` is created with
    ``O_CREAT|O_EXCL`` and filled instead (a reader may then see it while it
    fills; a failure removes it). The temporary file is always removed.
    ``mode`` is the permission bits, before the umask.

    Returns:
        True when ``path`` was created, False when it existed already.

    Raises:
        OSError: the directory cannot be written.
    """
    tmp = _write_temporary(path.parent, data, tmp_prefix, mode)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:
            try:
                _create_filled(path, data, mode)
            except FileExistsError:
                return False
        fsync_dir(path.parent)
        return True
    finally:
        _remove(tmp)


def replace_atomically(path: Path, data: bytes, *, tmp_prefix: str) -> None:
    """Replace the file ``path`` with ``data`` in one rename, keeping its
    permission bits.

    ``data`` goes to ``<tmp_prefix><random>`` in the same directory, is
    fsynced, then renamed over ``path`` (``os.replace``): a reader sees the
    old file or the new one, never a mix. A symlink at ``path`` is replaced
    by the new file, never written through.

    Raises:
        OSError: ``path`` does not exist, or the directory cannot be written.
    """
    mode = path.stat().st_mode & 0o7777
    tmp = _write_temporary(path.parent, data, tmp_prefix, 0o600)
    try:
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def unsafe_to_replace(path: Path, root: Path) -> str | None:
    """Why ``path`` must not be replaced (``check --fix``), or None when it may:
    it must be a regular file inside ``root``, reached through no symlink at
    all, so a fix never writes anywhere the author pointed a link at."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"it cannot be inspected ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return "it is a symlink or not a regular file"
    real = os.path.realpath(path)
    if real != os.path.abspath(path):
        return "a directory on its path is a symlink"
    if not Path(real).is_relative_to(os.path.realpath(root)):
        return "it is outside the project directory"
    return None
