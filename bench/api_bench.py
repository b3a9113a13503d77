#!/usr/bin/env python3
"""The Python API's start-up against ``citelint check``, one small file, whole processes.

A pipeline step that runs ``import citelint``, ``citelint.Project.open(".")``,
``.check([FILE])`` and ``.to_dict()`` (exit 0 when the result is ok) is
compared with ``citelint check FILE``, in ``examples/expertqa``, for the
fact report of ``check_bench.py``'s (a) and the Markdown answer of its (h).
Each pair runs alternating after one warm-up each (``measure.run``), and
both the wall time and the CPU time (user + system) of each child are
compared by their medians: CPU time is what other jobs on a shared machine
disturb least. Nothing is asserted.

Usage, from the repository root, with the virtual environment's Python::

    python bench/api_bench.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Cmd, run, seconds, tool

REPO_ROOT = Path(__file__).resolve().parents[1]
SMALL_REPO = REPO_ROOT / "examples" / "expertqa"
FILES = ("reports/q2.json", "reports/q2-answer.md")


def api_cmd(report: str) -> Cmd:
    """A process checking ``report`` through the public API, exiting as ``citelint check`` would."""
    code = ("import sys, citelint\n"
            f"result = citelint.Project.open('.').check([{report!r}])\n"
            "result.to_dict()\n"
            "sys.exit(0 if result.ok else 1)\n")
    return Cmd([sys.executable, "-c", code], SMALL_REPO)


def timed(cmd: Cmd) -> tuple[float, float]:
    """(wall, CPU) seconds of one run: CPU is this process's children's usage
    gained over the run, which is that one child's (runs are sequential)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run(cmd).wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="alternating runs of each side (default 21)")
    args = parser.parse_args(argv)
    for report in FILES:
        sides = {"API": api_cmd(report), "CLI": Cmd([tool("citelint"), "check", report], SMALL_REPO)}
        for cmd in sides.values():
            run(cmd)  # warm-up: page cache and bytecode
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        for _ in range(args.repeats):
            for name, cmd in sides.items():
                samples[name].append(timed(cmd))
        wall = {name: statistics.median(w for w, _ in s) for name, s in samples.items()}
        cpu = {name: statistics.median(c for _, c in s) for name, s in samples.items()}
        print(f"{report}: wall API {seconds(wall['API'])}, CLI {seconds(wall['CLI'])}, ratio "
              f"{wall['API'] / wall['CLI']:.2f}; CPU API {seconds(cpu['API'])}, CLI {seconds(cpu['CLI'])}, "
              f"ratio {cpu['API'] / cpu['CLI']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
