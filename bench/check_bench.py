#!/usr/bin/env python3
"""Benchmarks of ``citelint check``, each a ratio against a baseline measured in the same run.

Every measure runs whole processes, alternating with its baseline, and
compares medians; it prints one line ending in its ratio. Nothing here
asserts anything about time (only (a) asserts which modules get imported).

(a) one small real report: ``citelint check`` vs ``check-jsonschema`` on it.
(b) 10,000 facts / 1,000 reports / 1,000 captures of 100,000 characters vs the floor.
(c) many small reports: 30,000 facts / 3,000 reports of 10 / 3,000 captures of
    30,000 characters vs the floor.
(d) 100,000 facts / 10,000 reports / 10,000 captures of 100,000 characters
    (about 1 GB, generated in a temporary directory): wall time vs the floor,
    and the peak RSS of the citelint process.
(e) the same repository, ``--jobs 2`` vs ``--jobs 1`` (skipped while
    ``citelint check`` has no ``--jobs``).
(f) the pre-commit hook call with ``--base`` vs without, one small report, in
    a git repository whose 2,000 captures came in over 500 commits: the
    ``citelint-all`` hook runs ``--base HEAD`` on a commit being made, here
    ``--base HEAD~1`` after it (the last commit's captures are the change).
(g) CL106: 1,000 sources with the cited revision and 4 older ones vs the same
    1,000 sources with the cited revision only (same reports, same captures
    cited; 10,000 facts in 1,000 reports).
(h) one small Markdown answer vs one small fact report (``examples/expertqa``:
    ``reports/q2-answer.md``, 4 links, vs ``reports/q2.json``, 4 cited facts).

The floor (``--floor DIR``, a process of its own) reads and ``json``-parses each
report, reads, parses and SHA-256-hashes each cited capture once, and searches
each snippet: what any checker must do at least.

Usage, from the repository root, with the virtual environment's Python (the
console scripts are taken from the interpreter's ``bin/``)::

    python bench/check_bench.py                    # all measures
    python bench/check_bench.py --only b,c         # some of them
    python bench/check_bench.py --only d --repeats 1
    python bench/check_bench.py --keep /tmp/cb     # generate into (or reuse) /tmp/cb/<measure>
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen
from measure import Cmd, alternate, seconds, tool

REPO_ROOT = gen.REPO_ROOT
SMALL_REPO = REPO_ROOT / "examples" / "expertqa"
SMALL_REPORT = "reports/q2.json"
SMALL_MARKDOWN = "reports/q2-answer.md"
#: Modules whose import means the fact-report path pulled in the capture or Markdown stack
#: (top-level packages, or a citelint sub-package by its two-part name).
FORBIDDEN = ("urllib3", "cmarkgfm", "ada_url", "citelint.capture", "citelint.fetch")

#: measure -> default number of alternating runs (after one warm-up each, except (d) and (e)).
RUNS = {"a": 11, "b": 3, "c": 3, "d": 3, "e": 3, "f": 11, "g": 3, "h": 11}

#: Generated repositories: name -> keyword arguments of gen.write_repo.
SHAPES = {
    "b": dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=100_000),
    "c": dict(sources=3000, reports=3000, facts_per_report=10, capture_chars=30_000),
    "d": dict(sources=10_000, reports=10_000, facts_per_report=10, capture_chars=100_000),
    "g": dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=100_000, older_revisions=4),
}


class Data:
    """Generated repositories, made on first use: under ``keep`` (reused across
    runs) or in a temporary directory removed at the end."""

    def __init__(self, keep: Path | None):
        self._tmp = None if keep else tempfile.TemporaryDirectory(prefix="citelint-bench-")
        self.base = keep or Path(self._tmp.name)
        self._repos: dict[str, gen.Repo] = {}

    def repo(self, name: str) -> tuple[gen.Repo, float]:
        """(repository, seconds spent generating it now)."""
        if name in self._repos:
            return self._repos[name], 0.0
        root = self.base / name
        marker = root / ".generated.json"
        t0 = time.perf_counter()
        if marker.exists():
            meta = json.loads(marker.read_text())
            repo = gen.Repo(root, **{k: v for k, v in meta.items() if k != "older"},
                            older=[Path(p) for p in meta["older"]])
        else:
            shutil.rmtree(root, ignore_errors=True)
            if name == "g-none":
                with_old, _ = self.repo("g")
                repo = gen.copy_without(with_old, root, with_old.older)
            else:
                repo = gen.write_repo(root, **SHAPES[name])
            meta = {k: v for k, v in vars(repo).items() if k != "root"}
            marker.write_text(json.dumps({**meta, "older": [str(p) for p in repo.older]}))
        self._repos[name] = repo
        return repo, time.perf_counter() - t0

    def path(self, name: str) -> Path:
        return self.base / name

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def floor_cmd(root: Path) -> Cmd:
    return Cmd([sys.executable, str(Path(__file__).resolve()), "--floor", str(root)], root)


def describe(repo: gen.Repo) -> str:
    return (f"{repo.facts:,} facts / {repo.reports:,} reports / {repo.capture_files:,} capture files "
            f"of {repo.sources:,} sources ({repo.capture_bytes / 1e6:,.0f} MB)")


def citelint_supports(option: str) -> bool:
    out = subprocess.run([tool("citelint"), "check", "--help"], capture_output=True, text=True).stdout
    return re.search(rf"(^|\s){re.escape(option)}\b", out) is not None


# --------------------------------------------------------------------------- (a)

def forbidden_imports(cwd: Path, report: str) -> list[str]:
    """Modules of FORBIDDEN that a fact-report check imports (run in a fresh process)."""
    probe = ("import io, json, sys\n"
             "from citelint.cli import main\n"
             f"code = main(['check', {report!r}], stdout=io.StringIO(), stderr=io.StringIO())\n"
             f"names = {{p for m in sys.modules for p in (m.split('.')[0], '.'.join(m.split('.')[:2]))}}\n"
             f"print(json.dumps([code, sorted(names & {set(FORBIDDEN)!r})]))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True)
    code, loaded = json.loads(out.stdout)
    if code != 0:
        sys.exit(f"citelint check {report} exited {code} in the import probe")
    return loaded


def slowest_imports(cwd: Path, report: str, top: int = 12) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the slowest imports of ``citelint check``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "citelint", "check", report],
                          cwd=cwd, capture_output=True, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(2)) <= 3:  # top-level and first-level imports only
            rows.append((int(m.group(1)), m.group(2) + m.group(3)))
    return sorted(rows, reverse=True)[:top]


def bench_a(data: Data, runs: int, verbose: bool) -> None:
    facts = len(json.loads((SMALL_REPO / SMALL_REPORT).read_text(encoding="utf-8"))["facts"])
    schema = os.path.relpath(REPO_ROOT / "schemas" / "report.schema.json", SMALL_REPO)
    m = alternate({
        "citelint": Cmd([tool("citelint"), "check", SMALL_REPORT], SMALL_REPO),
        "check-jsonschema": Cmd([tool("check-jsonschema"), "--schemafile", schema, SMALL_REPORT], SMALL_REPO),
    }, runs)
    loaded = forbidden_imports(SMALL_REPO, SMALL_REPORT)
    assert not loaded, f"checking a fact report imported {loaded}; keep those imports lazy"
    ratio = m["citelint"].wall / m["check-jsonschema"].wall
    if verbose or ratio >= 1:
        # Where citelint's start-up goes; the second level too when it is not faster.
        depth = 1 if ratio < 1 else 3
        print("    slowest imports of `citelint check`, one run with -X importtime (cumulative ms):")
        rows = [r for r in slowest_imports(SMALL_REPO, SMALL_REPORT) if len(r[1]) - len(r[1].lstrip()) <= depth]
        for us, name in rows[:8]:
            print(f"      {us / 1000:7.1f}  {name.strip()}")
    print(f"(a) one report ({SMALL_REPORT} of examples/expertqa, {facts} cited facts; imports none of "
          f"{', '.join(FORBIDDEN)}): citelint {seconds(m['citelint'].wall)}, check-jsonschema "
          f"{seconds(m['check-jsonschema'].wall)}; ratio citelint / check-jsonschema {ratio:.2f}")


# --------------------------------------------------------------------------- (b) (c) (d): vs the floor

def vs_floor(letter: str, data: Data, runs: int, what: str, *, warmup: bool = True, rss: bool = False) -> None:
    repo, generated = data.repo(letter)
    m = alternate({"citelint": Cmd([tool("citelint"), "check"], repo.root), "floor": floor_cmd(repo.root)},
                  runs, warmup=warmup)
    ratio = m["citelint"].wall / m["floor"].wall
    memory = (f"; peak RSS citelint {m['citelint'].rss_mib:,.0f} MiB, floor {m['floor'].rss_mib:,.0f} MiB"
              if rss else "")
    print(f"({letter}) {what}: {describe(repo)}, generated in {generated:.0f} s{memory}; "
          f"citelint {seconds(m['citelint'].wall)}, floor {seconds(m['floor'].wall)}; "
          f"ratio citelint / floor {ratio:.2f}")


def bench_b(data: Data, runs: int, verbose: bool) -> None:
    vs_floor("b", data, runs, "throughput")


def bench_c(data: Data, runs: int, verbose: bool) -> None:
    vs_floor("c", data, runs, "many small reports")


def bench_d(data: Data, runs: int, verbose: bool) -> None:
    # No warm-up: the repository was just written (or read by (e)), so the page
    # cache is warm, and one run of each takes about a minute.
    vs_floor("d", data, runs, "scale, text format", warmup=False, rss=True)


def bench_e(data: Data, runs: int, verbose: bool) -> None:
    if not citelint_supports("--jobs"):
        print("(e) --jobs 2 vs --jobs 1: skipped: --jobs not supported by this citelint")
        return
    repo, generated = data.repo("d")
    m = alternate({jobs: Cmd([tool("citelint"), "check", "--jobs", jobs], repo.root) for jobs in ("2", "1")},
                  runs, warmup=False)
    print(f"(e) --jobs 2 vs --jobs 1 ({os.cpu_count()} cores): {describe(repo)}, generated in {generated:.0f} s; "
          f"peak RSS of the largest process --jobs 2 {m['2'].rss_mib:,.0f} MiB, --jobs 1 {m['1'].rss_mib:,.0f} MiB; "
          f"--jobs 2 {seconds(m['2'].wall)}, --jobs 1 {seconds(m['1'].wall)}; ratio wall --jobs 2 / --jobs 1 "
          f"{m['2'].wall / m['1'].wall:.2f}")


# --------------------------------------------------------------------------- (f) (g) (h)

def bench_f(data: Data, runs: int, verbose: bool) -> None:
    root = data.path("f")
    t0 = time.perf_counter()
    if not (root / ".git").is_dir() or not (root / "reports" / "r.json").exists():
        shutil.rmtree(root, ignore_errors=True)
        gen.write_history(root, captures=2000, commits=500)
    generated = time.perf_counter() - t0
    report = "reports/r.json"
    m = alternate({
        "base": Cmd([tool("citelint"), "check", "--base", "HEAD~1", report], root),
        "plain": Cmd([tool("citelint"), "check", report], root),
    }, runs)
    print(f"(f) hook call, one report of 5 facts, git history of 2,000 captures over 500 commits "
          f"(generated in {generated:.0f} s): --base HEAD~1 {seconds(m['base'].wall)}, without "
          f"{seconds(m['plain'].wall)}; ratio --base / without {m['base'].wall / m['plain'].wall:.2f}")


def bench_g(data: Data, runs: int, verbose: bool) -> None:
    old, generated = data.repo("g")
    none, copied = data.repo("g-none")
    m = alternate({"older": Cmd([tool("citelint"), "check"], old.root),
                   "none": Cmd([tool("citelint"), "check"], none.root)}, runs)
    print(f"(g) CL106, {old.facts:,} facts / {old.reports:,} reports / {old.sources:,} sources: "
          f"4 older revisions each ({old.capture_files:,} files, {old.capture_bytes / 1e6:,.0f} MB) "
          f"{seconds(m['older'].wall)}, none ({none.capture_files:,} files) {seconds(m['none'].wall)} "
          f"(generated in {generated + copied:.0f} s); ratio older / none {m['older'].wall / m['none'].wall:.2f}")


def bench_h(data: Data, runs: int, verbose: bool) -> None:
    text = (SMALL_REPO / SMALL_MARKDOWN).read_text(encoding="utf-8")
    links = len(re.findall(r"https?://", text))
    m = alternate({
        "markdown": Cmd([tool("citelint"), "check", SMALL_MARKDOWN], SMALL_REPO),
        "facts": Cmd([tool("citelint"), "check", SMALL_REPORT], SMALL_REPO),
    }, runs)
    print(f"(h) one small file each (examples/expertqa): {SMALL_MARKDOWN} ({len(text.encode()):,} bytes, "
          f"{links} links) {seconds(m['markdown'].wall)}, {SMALL_REPORT} {seconds(m['facts'].wall)}; "
          f"ratio Markdown / facts {m['markdown'].wall / m['facts'].wall:.2f}")


MEASURES = {"a": bench_a, "b": bench_b, "c": bench_c, "d": bench_d, "e": bench_e, "f": bench_f,
            "g": bench_g, "h": bench_h}


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(MEASURES),
                        help="comma-separated measures to run, of " + ",".join(MEASURES) + " (default: all)")
    parser.add_argument("--repeats", type=int,
                        help="alternating runs per measure (default: " +
                             ", ".join(f"{k} {v}" for k, v in RUNS.items()) + ")")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) DIR/<measure> instead of a temporary "
                        "directory")
    parser.add_argument("--verbose", "-v", action="store_true", help="(a): always list the slowest imports")
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)  # the floor process
    args = parser.parse_args(argv)
    if args.floor:
        facts, found = gen.floor(args.floor)
        return 0 if facts and found == facts else 1
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = sorted(set(only) - set(MEASURES))
    if unknown:
        parser.error(f"unknown measure {', '.join(unknown)}; choose from {', '.join(MEASURES)}")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}")
    data = Data(args.keep)
    try:
        for letter in MEASURES:
            if letter in only:
                t0 = time.perf_counter()
                MEASURES[letter](data, args.repeats or RUNS[letter], args.verbose)
                if args.verbose:
                    print(f"    ({letter} took {time.perf_counter() - t0:.0f} s)")
    finally:
        data.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
