#!/usr/bin/env python3
"""The harnesses' cost, whole processes, each against a baseline in the same run.

(p) ``pytest --co -q`` of a one-test file with the plugin loaded (as every
    pytest run of a project that installed citelint loads it) against
    ``-p no:citelint``: what the inert plugin costs a test run without --citelint.
(q) ``pytest --citelint`` on ``examples/expertqa`` (11 reports, 11 items)
    against the same pytest run without ``--citelint`` (pytest's own start-up,
    nothing collected) and against ``citelint check`` there: the difference of
    the first two is what the items cost, next to what the check costs.
(r) ``citelint context --format anthropic`` on ``examples/expertqa`` (every
    approved source) against ``citelint check`` there.
(s) ``citelint mcp`` started by the SDK's stdio client, its tools listed and
    one ``find_quote`` answered, against ``citelint check`` of one report.

Medians of alternating runs after one warm-up each (``measure.alternate``),
wall and CPU time. Nothing is asserted.

Usage, from the repository root, with the virtual environment's Python::

    python bench/harness_bench.py [--repeats 11] [--only p,q,r,s]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Cmd, alternate, seconds, tool

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = REPO_ROOT / "examples" / "expertqa"


def mcp_cmd() -> Cmd:
    """A process that starts ``citelint mcp`` through the SDK's client, lists the tools and
    asks one find_quote, as an agent's first exchange does."""
    code = f'''
import sys, anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

async def main():
    params = StdioServerParameters(command={tool("citelint")!r}, args=["mcp"], cwd={str(EXAMPLE)!r})
    async with Client(params) as client:
        await client.list_tools()
        listed = (await client.call_tool("list_sources", {{}})).structured_content
        source = listed["sources"][0]["source"]
        await client.call_tool("find_quote", {{"source": source, "text": "children"}})

anyio.run(main)
'''
    return Cmd([sys.executable, "-c", code], EXAMPLE)


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=11, help="alternating runs of each side (default 11)")
    parser.add_argument("--only", default="p,q,r,s", help="the rows to run, comma-separated (default all)")
    args = parser.parse_args(argv)
    rows = set(args.only.split(","))
    check = Cmd([tool("citelint"), "check", "--quiet"], EXAMPLE)
    if "p" in rows:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
            base = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "--rootdir", tmp]
            m = alternate({"plugin": Cmd(base, Path(tmp)), "none": Cmd([*base, "-p", "no:citelint"], Path(tmp))},
                          args.repeats)
        print(f"(p) pytest --co, plugin loaded {seconds(m['plugin'].wall)} vs not {seconds(m['none'].wall)}; "
              f"{m.ratio('plugin', 'none')}; {m.load_text()}")
    if "q" in rows:
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(EXAMPLE)]
        # Without --citelint nothing is collected: pytest exits 5 (no tests ran).
        bare = Cmd([*base, str(EXAMPLE)], EXAMPLE, frozenset({5}))
        m = alternate({"pytest": Cmd([*base, "--citelint", str(EXAMPLE)], EXAMPLE), "bare": bare, "check": check},
                      args.repeats)
        # CPU time: the items' wall time is a small difference of two large, noisy medians.
        items = m["pytest"].cpu - m["bare"].cpu
        print(f"(q) pytest --citelint examples/expertqa cpu {seconds(m['pytest'].cpu)}, without --citelint "
              f"cpu {seconds(m['bare'].cpu)}: the 11 items cpu {seconds(items)}; citelint check cpu "
              f"{seconds(m['check'].cpu)} (wall {seconds(m['check'].wall)}); items / check cpu "
              f"{items / m['check'].cpu:.2f}; {m.load_text()}")
    if "r" in rows:
        context = Cmd([tool("citelint"), "context", "--format", "anthropic"], EXAMPLE)
        m = alternate({"context": context, "check": check}, args.repeats)
        print(f"(r) citelint context --format anthropic {seconds(m['context'].wall)} vs citelint check "
              f"{seconds(m['check'].wall)}; {m.ratio('context', 'check')}; {m.load_text()}")
    if "s" in rows:
        one = Cmd([tool("citelint"), "check", "reports/q2.json"], EXAMPLE)
        m = alternate({"mcp": mcp_cmd(), "check": one}, args.repeats)
        print(f"(s) citelint mcp: start, list, one find_quote {seconds(m['mcp'].wall)} vs citelint check of one "
              f"report {seconds(m['check'].wall)}; {m.ratio('mcp', 'check')}; {m.load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
