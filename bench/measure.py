"""Whole-process measurements: wall time, CPU time and peak RSS of one child, medians of alternating runs.

Peak RSS and CPU time come from ``os.wait4`` on that child alone
(``ru_maxrss``, KiB on Linux; ``ru_utime + ru_stime``), not from
``getrusage(RUSAGE_CHILDREN)``, which accumulates every child waited for so
far and would mix citelint with its baseline. Every child is started by a
small spawner process of its own (:func:`run`): on Linux a child's
``ru_maxrss`` is at least the RSS of the process it was forked from (exec
records the peak of the memory it replaces), so children forked from a bench
holding a generated repository's data (hundreds of MiB for (i)) would all
report the bench's own size. A child's figures cover the
processes it waited for itself (``--jobs`` workers): CPU time as their sum,
peak RSS as the largest of them (not their sum; :func:`tree_peak` samples
the sum). Each :func:`alternate` also records the load average (one minute)
at its start and end, which every ratio line prints beside the ratio.
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
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
    cpu: float       #: user + system seconds of the child and of the children it waited for
    rss_mib: float


#: The spawner: reads one job a line (JSON: argv, cwd, env, err), starts it with its output
#: discarded and its standard error to the file ``err``, writes its pid, waits for it with
#: ``wait4`` and writes its exit status, wall time, CPU time and peak RSS (KiB).
_SPAWNER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["err"], "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(job["argv"], cwd=job["cwd"], stdout=subprocess.DEVNULL, stderr=err, env=job["env"])
        print(json.dumps({"pid": proc.pid}), flush=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    print(json.dumps({"status": status, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                      "rss": usage.ru_maxrss}), flush=True)
"""
_spawner: list[subprocess.Popen] = []


def _spawn() -> subprocess.Popen:
    if not _spawner:
        _spawner.append(subprocess.Popen([sys.executable, "-I", "-c", _SPAWNER], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, env={}))
        atexit.register(_spawner[0].kill)
    return _spawner[0]


def run(cmd: Cmd, *, on_start: Callable[[int], None] | None = None) -> Sample:
    """One run of ``cmd`` (stdout discarded); its exit status must be in ``cmd.expect``.

    ``on_start(pid)`` is called once the child is started (before it is waited for).
    The child is started by the spawner (see the module's docstring), which
    times it: wall time from its start to the end of ``wait4``.
    """
    import json

    spawner = _spawn()
    assert spawner.stdin is not None and spawner.stdout is not None
    with tempfile.NamedTemporaryFile() as err:
        spawner.stdin.write(json.dumps({"argv": [str(a) for a in cmd.argv], "cwd": str(cmd.cwd),
                                        "env": child_env(), "err": err.name}) + "\n")
        spawner.stdin.flush()
        pid = json.loads(spawner.stdout.readline())["pid"]
        if on_start is not None:
            on_start(pid)
        done = json.loads(spawner.stdout.readline())
        code = os.waitstatus_to_exitcode(done["status"])
        if code not in cmd.expect:
            err.seek(0)
            sys.exit(f"{' '.join(map(str, cmd.argv))} (in {cmd.cwd}) exited {code}: "
                     f"{err.read().decode(errors='replace')[-2000:]}")
    return Sample(done["wall"], done["cpu"], done["rss"] / 1024)


@dataclass(frozen=True)
class Stats:
    wall: float      #: median seconds
    cpu: float       #: median CPU seconds (user + system, the child and the children it waited for)
    rss_mib: float   #: largest peak RSS over the runs
    walls: tuple[float, ...]
    cpus: tuple[float, ...] = ()


class Measured(dict[str, Stats]):
    """:func:`alternate`'s result: Stats by command name, and the one-minute
    load average at the start and at the end of the measure."""

    load: tuple[float, float] = (0.0, 0.0)

    def ratio(self, a: str, b: str) -> str:
        """``ratio wall 1.42 (cpu 1.38)``: ``a`` over ``b``, medians."""
        return f"ratio wall {self[a].wall / self[b].wall:.2f} (cpu {self[a].cpu / self[b].cpu:.2f})"

    def load_text(self) -> str:
        """``load 1.9→2.1``."""
        return f"load {self.load[0]:.1f}\u2192{self.load[1]:.1f}"


def alternate(commands: dict[str, Cmd], runs: int, warmup: bool = True) -> Measured:
    """Run each command ``runs`` times, alternating (after one warm-up each unless
    ``warmup`` is false: the page cache and .pyc files are already warm)."""
    load_start = os.getloadavg()[0]
    if warmup:
        for cmd in commands.values():
            run(cmd)
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            samples[name].append(run(cmd))
    result = Measured({name: Stats(statistics.median(s.wall for s in ss), statistics.median(s.cpu for s in ss),
                                   max(s.rss_mib for s in ss), tuple(s.wall for s in ss), tuple(s.cpu for s in ss))
                       for name, ss in samples.items()})
    result.load = (load_start, os.getloadavg()[0])
    return result


# --------------------------------------------------------------------------- summed memory of a process tree

def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _fields_kib(path: str, names: tuple[str, ...]) -> dict[str, int]:
    """The ``Name:  123 kB`` lines ``names`` of a /proc file (empty once the process is gone)."""
    found: dict[str, int] = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in names:
                    found[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        return {}
    return found


@dataclass(frozen=True)
class TreePeak:
    """Memory of a process tree, sampled: each figure the largest sum seen at one sample."""

    sample: Sample        #: the run itself (wait4's figures: rss_mib is its largest process)
    rss_mib: float        #: sum of VmRSS over the live processes
    pss_mib: float        #: sum of Pss (shared pages split between the processes that map them)
    hwm_mib: float        #: sum of VmHWM (each process's own peak so far) over the live processes
    processes: int        #: processes seen in the tree over the run (the child included)
    together: int         #: most processes alive at one sample


def tree_peak(cmd: Cmd, interval: float = 0.01) -> TreePeak | None:
    """One run of ``cmd`` while a thread reads ``/proc`` every ``interval``
    seconds, walking the child's tree (the child and its descendants).

    At each sample it sums over the live processes their ``VmRSS`` (pages
    shared copy-on-write after a fork count in every process that maps
    them), their ``Pss`` (shared pages split between them) and their
    ``VmHWM`` (each process's own peak so far, kept by the kernel); each
    figure is the largest sum seen. The RSS and PSS sums miss peaks shorter
    than ``interval``; the VmHWM sum bounds the tree's RSS at any sampled
    moment from above (the peaks of processes alive together need not
    coincide). None where ``/proc`` does not list children (not Linux). Not
    for timing: the sampling thread takes CPU.
    """
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"):
        return None
    best = {"VmRSS": 0, "Pss": 0, "VmHWM": 0}
    seen: set[int] = set()
    most = [0]
    done = threading.Event()
    root: list[int] = []

    def sample() -> None:
        while not done.wait(interval):
            total = dict.fromkeys(best, 0)
            stack, alive = list(root), 0
            while stack:
                pid = stack.pop()
                status = _fields_kib(f"/proc/{pid}/status", ("VmRSS", "VmHWM"))
                if not status:  # gone, or a zombie (no memory left)
                    continue
                alive += 1
                seen.add(pid)
                status.update(_fields_kib(f"/proc/{pid}/smaps_rollup", ("Pss",)))
                for name, value in status.items():
                    total[name] += value
                stack += _children(pid)
            most[0] = max(most[0], alive)
            for name, value in total.items():
                best[name] = max(best[name], value)

    thread = threading.Thread(target=sample, daemon=True)

    def started(pid: int) -> None:
        root.append(pid)
        thread.start()

    try:
        result = run(cmd, on_start=started)
    finally:
        done.set()
        if thread.is_alive():
            thread.join()
    return TreePeak(result, best["VmRSS"] / 1024, best["Pss"] / 1024, best["VmHWM"] / 1024, len(seen), most[0])


def seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
