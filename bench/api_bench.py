#!/usr/bin/env python3
"""The Python API's start-up against ``citelint check``, one small file, whole processes.

A pipeline step that runs ``import citelint``, ``citelint.Project.open(".")``,
``.check([FILE])`` and ``.to_dict()`` (exit 0 when the result is ok) is
compared with ``citelint check FILE`` and with ``citelint check --format
json FILE`` (what the API's result equals: it locates every accepted
citation, which the text format only counts), in ``examples/expertqa``,
for the fact report of ``check_bench.py``'s (a) and the Markdown answer of
its (h).
Each pair runs alternating after one warm-up each (``measure.alternate``),
and both the wall time and the CPU time (user + system) of each child are
compared by their medians: CPU time is what other jobs on a shared machine
disturb least. Nothing is asserted.

Usage, from the repository root, with the virtual environment's Python::

    python bench/api_bench.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Cmd, alternate, seconds, tool

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


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="alternating runs of each side (default 21)")
    args = parser.parse_args(argv)
    for report in FILES:
        m = alternate({"API": api_cmd(report), "CLI": Cmd([tool("citelint"), "check", report], SMALL_REPO),
                       "CLI json": Cmd([tool("citelint"), "check", "--format", "json", report], SMALL_REPO)},
                      args.repeats)
        print(f"{report}: " + ", ".join(f"{name} {seconds(m[name].wall)} (cpu {seconds(m[name].cpu)})" for name in m)
              + f"; API / CLI {m.ratio('API', 'CLI')}; API / CLI json {m.ratio('API', 'CLI json')}; {m.load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
