#!/usr/bin/env python3
"""A report of junk facts: checking it must cost about what a clean report of
the same size costs, not hours (findings are capped per rule and file, and
positions are computed only for the findings shown).

Four reports of ``--mib`` MiB each, one per run, in a temporary directory:
JSON and YAML, each as junk (every fact a number, so every fact fails the
schema) and clean (valid unavailable facts sharing one label, so only the
CL004 duplicate-label findings, which are capped too). Prints, per format,
the seconds of each and the ratio junk / clean; with ``--rev REV`` the same
for that git revision in the same run (a temporary worktree on PYTHONPATH),
alternating. Nothing is asserted.

    python bench/junk_bench.py --mib 9.5         # just under the 10 MiB report bound
    python bench/junk_bench.py --mib 1 --rev 67ab015
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import Cmd, run

REPO_ROOT = Path(__file__).resolve().parents[1]


def write(root: Path, mib: float) -> dict[str, Path]:
    """One project per report kind under ``root``; returns kind -> project."""
    size = int(mib * 1024 * 1024)
    fact = {"state": "unavailable", "label": "sales", "reason": "not published"}
    one_json = json.dumps(fact) + ", "
    one_yaml = "  - {state: unavailable, label: sales, reason: not published}\n"
    bodies = {
        "json-clean": ("r.json", '{"facts": [' + (one_json * (size // len(one_json))).rstrip(", ") + "]}"),
        "json-junk": ("r.json", '{"facts": [' + ",".join(["1"] * (size // 2)) + "]}"),
        "yaml-clean": ("r.yaml", "facts:\n" + one_yaml * (size // len(one_yaml))),
        "yaml-junk": ("r.yaml", "facts:\n" + "  - 1\n" * (size // 6)),
    }
    out = {}
    for kind, (name, body) in bodies.items():
        project = root / kind
        (project / "reports").mkdir(parents=True)
        (project / "citelint.yaml").write_text("sources: [https://example.org/a.txt]\nlabels: [sales]\n")
        (project / "reports" / name).write_text(body, encoding="utf-8")
        out[kind] = project
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=float, default=9.5,
                        help="size of each report in MiB (default 9.5: reports are bounded at 10 MiB)")
    parser.add_argument("--rev", help="also time this git revision (e.g. 67ab015) in the same run")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="citelint-junk-"))
    trees = {"this checkout": str(REPO_ROOT)}
    try:
        projects = write(tmp / "data", args.mib)
        if args.rev:
            base = tmp / "rev"
            subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", "--quiet", str(base),
                            args.rev], check=True)
            trees = {args.rev: str(base), **trees}
        seconds: dict[tuple[str, str], float] = {}
        for kind, project in projects.items():
            for name, tree in trees.items():
                cmd = Cmd([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                           "from citelint.cli import main_exit; sys.argv[0] = 'citelint'; main_exit()",
                           tree, "check", "--quiet"], project, frozenset({1}))
                seconds[(name, kind)] = run(cmd).wall
        print(f"reports of {args.mib:g} MiB, whole processes, one run each")
        for name in trees:
            for fmt in ("json", "yaml"):
                junk, clean = seconds[(name, f"{fmt}-junk")], seconds[(name, f"{fmt}-clean")]
                print(f"  {name:<14} {fmt}: junk {junk:7.2f} s, clean {clean:7.2f} s; "
                      f"ratio junk / clean {junk / clean:.2f}")
    finally:
        if args.rev:
            subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tmp / "rev")],
                           check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
