"""Whole-process measurements: wall time and peak RSS of one child, medians of alternating runs.

Peak RSS comes from ``os.wait4`` on that child alone (``ru_maxrss``, KiB on
Linux), not from ``getrusage(RUSAGE_CHILDREN)``, which is the maximum over
every child waited for so far and would mix citelint with its baseline.
A child's figure covers the processes it waited for itself, as the largest
of them (not their sum).
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent

#: Bytecode cache for every measured process. An installed citelint (and its
#: baseline tools) runs from compiled bytecode: pip compiles a wheel at install,
#: and an editable install compiles on first import. With
#: PYTHONDONTWRITEBYTECODE set (some CI images and sandboxes set it) every run
#: would compile citelint's modules again, so the benchmarks unset it and keep
#: the bytecode of both sides in one temporary directory, filled by the warm-up.
PYCACHE = Path(tempfile.mkdtemp(prefix="citelint-bench-pyc-"))
atexit.register(shutil.rmtree, PYCACHE, True)


def child_env() -> dict[str, str]:
    """The environment of a measured process (see :data:`PYCACHE`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def tool(name: str) -> str:
    """Path of console script ``name`` next to the running interpreter (else on PATH)."""
    candidate = BIN / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        sys.exit(f"{name} not found next to {sys.executable} or on PATH; pip install '.[test]' from a checkout")
    return found


@dataclass(frozen=True)
class Cmd:
    argv: list[str]
    cwd: Path
    expect: frozenset[int] = frozenset({0})


@dataclass(frozen=True)
class Sample:
    wall: float
    rss_mib: float


def run(cmd: Cmd) -> Sample:
    """One run of ``cmd`` (stdout discarded); its exit status must be in ``cmd.expect``."""
    env = child_env()
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd.argv, cwd=cmd.cwd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in cmd.expect:
            err.seek(0)
            sys.exit(f"{' '.join(cmd.argv)} (in {cmd.cwd}) exited {code}: "
                     f"{err.read().decode(errors='replace')[-2000:]}")
    return Sample(wall, usage.ru_maxrss / 1024)


@dataclass(frozen=True)
class Stats:
    wall: float      #: median seconds
    rss_mib: float   #: largest peak RSS over the runs
    walls: tuple[float, ...]


def alternate(commands: dict[str, Cmd], runs: int, warmup: bool = True) -> dict[str, Stats]:
    """Run each command ``runs`` times, alternating (after one warm-up each unless
    ``warmup`` is false: the page cache and .pyc files are already warm)."""
    if warmup:
        for cmd in commands.values():
            run(cmd)
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            samples[name].append(run(cmd))
    return {name: Stats(statistics.median(s.wall for s in ss), max(s.rss_mib for s in ss),
                        tuple(s.wall for s in ss)) for name, ss in samples.items()}


def seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
