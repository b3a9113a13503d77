"""Bytes on disk: bounded reads of regular files, the two writers, and the
one UTF-8 decoding rule for the text they hold.

Every reader of a report, config or capture, and every writer, goes through
here, so the safety rules live in one place. There are two writers, and
nothing in citelint writes a file any other way:

- the **evidence writer**, :func:`citelint.store.writer.write_evidence`
  (create-only, over :func:`write_exclusive`: captures, raw bodies,
  signatures), used only by ``capture``, ``migrate`` and ``attest``;
- the **output writer**, :func:`write_output`, for everything else
  (``--output-file``, ``--sarif-file``, ``--summary-file``, ``render -o``,
  ``import --out``, ``--fix``, ``init``): never through a symlink, never
  into a FIFO, device or directory, never over a file the caller protects
  (evidence, the config, a report), written whole or appended only to a
  regular file.

The low-level rules:

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
from collections.abc import Callable
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
        # The first read asks for the size fstat gave and one byte more (to see the
        # end): a read of a whole chunk allocates the chunk, which costs a small
        # file (a report of a few KiB) more than reading it.
        first = st.st_size + 1
        while remaining > 0:
            want = min(remaining, first or _READ_CHUNK)
            first = 0
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


# --------------------------------------------------------------------------- the output writer

#: How :func:`write_output` may write: ``replace`` creates the file or replaces
#: a regular one; ``create`` only creates; ``rewrite`` only replaces an existing
#: regular file (``--fix``); ``append`` adds to a regular file or creates it
#: (the step summary).
OUTPUT_MODES = ("replace", "create", "rewrite", "append")


_HARD_LINKS = "it has {} hard links, so appending would change the other names too; name a file of its own"


class WriteRefused(Exception):
    """:func:`write_output` will not write ``path``; ``why`` says why and what
    to do instead (``str()`` is ``why``). ``exists`` is True when the only
    reason is that a create-only write found the file there. Nothing was
    written."""

    def __init__(self, path: Path | str, why: str, *, exists: bool = False):
        super().__init__(why)
        self.path = path
        self.why = why
        self.exists = exists


def entry_kind(mode: int) -> str:
    """What a directory entry that is not a regular file is (``a symlink``,
    ``a FIFO``, ...), from its ``st_mode``, for a message."""
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def project_top(root: Path | str) -> Path:
    """The top of the git work tree holding ``root`` (the nearest ``.git`` above
    it), else ``root`` itself: the directory whose symlinks an author controls
    (a checkout brings its committed symlinks with it)."""
    here = Path(os.path.abspath(root))
    for top in (here, *here.parents):
        if os.path.lexists(top / ".git"):
            return top
    return here


def _symlink_inside(directory: str, top: str) -> str | None:
    """The first directory on the absolute path ``directory`` that is a
    symlink lying inside ``top`` (where it lies, not where it points), or None.

    A symlink outside the project (``/tmp`` on some systems) belongs to the
    machine, not to the report author, and is followed; one inside was put
    there by whoever controls the checkout, so it is not."""
    if os.path.realpath(directory) == directory:
        return None  # no symlink on the way: the common case costs one call
    parts = Path(directory).parts
    for i in range(1, len(parts)):
        here = os.path.join(*parts[:i + 1])
        if os.path.islink(here):
            home = os.path.realpath(os.path.dirname(here))
            if Path(home).is_relative_to(top):
                return here
    return None


def check_output(path: Path | str, *, mode: str = "replace", root: Path | str,
                 protect: Callable[[Path], str | None] | None = None) -> Path:
    """What :func:`write_output` checks before it writes, alone: a command
    vets every file it will write before doing any work, so a refused one
    fails fast and no other output is left half done.

    ``path`` is refused when it is a symlink (dangling or not), a directory,
    a FIFO, a device or a socket; when a directory on its path is a symlink
    inside the project (the git work tree holding ``root``, else ``root``);
    when its folder does not exist; when ``protect`` (given the resolved
    path) names a reason (evidence, the config, a report); and as ``mode``
    says (:data:`OUTPUT_MODES`): ``create`` refuses an existing file,
    ``rewrite`` a missing one, ``append`` a file with several hard links.

    Returns:
        The path with its folder resolved: where the file will be written.

    Raises:
        WriteRefused: the file must not be written (``why`` says why and what to do).
    """
    if mode not in OUTPUT_MODES:
        raise ValueError(f"mode must be one of {OUTPUT_MODES}, not {mode!r}")
    target = Path(os.path.abspath(path))
    top = os.path.realpath(project_top(root))
    link = _symlink_inside(str(target.parent), top)
    if link is not None:
        raise WriteRefused(path, f"the directory {link} on its path is a symlink inside the project; citelint "
                                 "never writes through one: name a path without it")
    folder = Path(os.path.realpath(target.parent))
    if not folder.is_dir():
        raise WriteRefused(path, f"{target.parent} is not a directory" if os.path.lexists(folder) else
                           f"the folder {target.parent} does not exist; create it first")
    real = folder / target.name
    try:
        st: os.stat_result | None = os.lstat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise WriteRefused(path, f"it cannot be inspected ({exc.strerror or exc})") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = entry_kind(st.st_mode)
        raise WriteRefused(path, ("it is a symlink; citelint never writes through one" if what == "a symlink" else
                                  f"it is {what}, not a regular file; citelint writes only regular files")
                           + ": name a new file or a regular one")
    why = protect(real) if protect is not None else None
    if why:
        raise WriteRefused(path, why)
    if mode == "create" and st is not None:
        raise WriteRefused(path, "it exists", exists=True)
    if mode == "rewrite" and st is None:
        raise WriteRefused(path, "it does not exist")
    if mode == "append" and st is not None and st.st_nlink > 1:
        raise WriteRefused(path, _HARD_LINKS.format(st.st_nlink))
    return real


def write_output(path: Path | str, data: bytes, *, mode: str = "replace", root: Path | str,
                 protect: Callable[[Path], str | None] | None = None) -> Path:
    """Write an output file: the one way citelint writes anything that is not evidence.

    First every refusal of :func:`check_output` (same arguments). Then the
    file is written whole: a new file appears complete under its name
    (:func:`write_exclusive`), an existing one is replaced in one rename
    keeping its permission bits (a symlink swapped in meanwhile is replaced,
    never written through), and ``append`` data goes in through one
    ``O_APPEND`` descriptor opened without following a symlink, refused if
    it is not a regular file with one link (appending to a hard link would
    change the other names too).

    Returns:
        The path written, its folder resolved.

    Raises:
        WriteRefused: the file must not be written (``why`` says why and what to do).
        OSError: the write itself failed (no space, permissions).
    """
    real = check_output(path, mode=mode, root=root, protect=protect)
    if mode == "append":
        _append(real, data, path)
    elif mode == "create" or (mode == "replace" and not os.path.lexists(real)):
        if not write_exclusive(real, data, tmp_prefix=f".tmp-{real.name}-"):
            if mode == "create":
                raise WriteRefused(path, "it appeared while citelint wrote it", exists=True)
            return write_output(path, data, mode=mode, root=root, protect=protect)
    else:
        replace_atomically(real, data, tmp_prefix=f".tmp-{real.name}-")
    return real


def _append(real: Path, data: bytes, shown: Path | str) -> None:
    """Append ``data`` to the regular file ``real`` (created when missing),
    refusing what the descriptor turns out to be if it is not one: the entry
    may have been swapped since it was inspected."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC
    try:
        fd = os.open(real, flags, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise WriteRefused(shown, "it is not a regular file; citelint appends only to a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise WriteRefused(shown, f"it is {entry_kind(st.st_mode)}; citelint appends only to a regular file")
        if st.st_nlink > 1:
            raise WriteRefused(shown, _HARD_LINKS.format(st.st_nlink))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
