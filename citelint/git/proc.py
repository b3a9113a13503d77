"""Starting read-only git plumbing for ``--base`` and CL109, and collecting what it prints.

A hook call with ``--base`` starts a few short git processes. Where the
platform has ``posix_spawn`` they are started with :func:`os.posix_spawnp`
and read through :mod:`select`: the :mod:`subprocess` module (with the
``locale``, ``threading``, ``signal`` and ``selectors`` imports it brings)
costs a hook call about 7 ms to import, more than any one of these git
processes takes to run. Elsewhere (Windows) :mod:`subprocess` starts them.

Every process gets the same guard rails: ``--no-optional-locks`` (git never
refreshes or rewrites the index), literal pathspecs, no lazy fetch from a
promisor remote (a partial clone), no terminal prompt, stdin from the null
device.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class GitMissing(Exception):
    """No ``git`` executable on PATH."""


class Completed(NamedTuple):
    """A finished git process: its argument vector, exit code (negative: the
    signal that ended it, as :mod:`subprocess` reports it), and the bytes it
    wrote to stdout and stderr."""

    args: list[str]
    returncode: int
    stdout: bytes
    stderr: bytes


def _environment(pathspec_magic: bool) -> dict[str, str]:
    """The environment of a git process: pathspecs literal unless each one says
    ``:(literal)`` itself (``pathspec_magic``), no lazy fetch, no prompt."""
    env = dict(os.environ)
    env["GIT_LITERAL_PATHSPECS"] = "0" if pathspec_magic else "1"
    for name in ("GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS"):
        env.pop(name, None)
    env["GIT_NO_LAZY_FETCH"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


class Git:
    """One running ``git --no-optional-locks -C cwd args`` process; :meth:`finish` waits for it.

    Raises:
        GitMissing: no ``git`` on PATH.
        OSError: the process cannot be started for another reason.
    """

    def __init__(self, args: list[str], cwd: os.PathLike[str] | str, *, pathspec_magic: bool = False):
        self.args = ["git", "--no-optional-locks", "-C", os.fspath(cwd), *args]
        env = _environment(pathspec_magic)
        self._result: Completed | None = None
        if not hasattr(os, "posix_spawnp"):
            import subprocess

            try:
                self._popen: subprocess.Popen[bytes] | None = subprocess.Popen(
                    self.args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except FileNotFoundError:
                raise GitMissing() from None
            return
        self._popen = None
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            # os.pipe() descriptors are not inherited; dup2 onto 0-2 makes copies that are.
            self._pid = os.posix_spawnp("git", self.args, env, file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)])
        except FileNotFoundError:
            os.close(out_r)
            os.close(err_r)
            raise GitMissing() from None
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(null)
            os.close(out_w)
            os.close(err_w)
        self._fds = (out_r, err_r)

    def finish(self) -> Completed:
        """Wait for the process and collect its output (both pipes are drained
        together, so neither can fill up and stall git). Idempotent."""
        if self._result is not None:
            return self._result
        if self._popen is not None:
            out, err = self._popen.communicate()
            self._result = Completed(self.args, self._popen.returncode, out, err)
            return self._result
        import select

        chunks: dict[int, list[bytes]] = {fd: [] for fd in self._fds}
        open_fds = list(self._fds)
        try:
            poller = select.poll()
            for fd in open_fds:
                poller.register(fd, select.POLLIN)
            while open_fds:
                for fd, _event in poller.poll():
                    data = os.read(fd, 1 << 16)
                    if data:
                        chunks[fd].append(data)
                    else:
                        poller.unregister(fd)
                        open_fds.remove(fd)
        finally:
            for fd in self._fds:
                os.close(fd)
            _, status = os.waitpid(self._pid, 0)
        out_r, err_r = self._fds
        self._result = Completed(self.args, os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]),
                                 b"".join(chunks[err_r]))
        return self._result

    def close(self) -> None:
        """Wait for the process if its answer is not needed (so it leaves no zombie)."""
        self.finish()
