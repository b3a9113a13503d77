#!/usr/bin/env python3
"""Benchmarks of ``citelint check``, reported as ratios measured in one run.

(a) **startup**: ``citelint check`` on one small real report against
    ``check-jsonschema --schemafile schemas/report.schema.json`` on the same
    report. Both run as whole processes, alternating, and the medians are
    compared. citelint does more (schema, labels, capture lookup, digest,
    substring search, semantic review), so it must still be faster; when it
    is not, the script prints the slowest imports (``python -X importtime``).
    The script also asserts that checking fact reports imports none of
    urllib3, cmarkgfm, ada_url (the capture and Markdown stacks).
(b) **throughput**: 10,000 facts in 1,000 reports citing 1,000 captures of
    about 100 KB each (deterministic pseudo-random text, generated in a
    temporary directory), ``citelint check`` against a floor script that only
    reads, parses (``json``) and hashes each capture once and does the
    substring searches. Both run as whole processes.

Usage, from the repository root (results go into bench/README.md by hand)::

    python bench/check_bench.py            # both
    python bench/check_bench.py --only a   # or b

The binaries are taken from the directory of the running interpreter
(``citelint``, ``check-jsonschema``), so run it with the virtual
environment's Python.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SMALL_REPO = REPO_ROOT / "examples" / "expertqa"
SMALL_REPORT = "reports/q2.json"
#: Modules whose import means the fact-report path pulled in the capture or Markdown stack
#: (top-level packages, or a citelint sub-package by its two-part name).
FORBIDDEN = ("urllib3", "cmarkgfm", "ada_url", "citelint.capture", "citelint.fetch")


def tool(name: str) -> str:
    """Path of console script ``name`` next to the running interpreter (else on PATH)."""
    candidate = BIN / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        sys.exit(f"{name} not found next to {sys.executable} or on PATH; install citelint[test]")
    return found


def timed(cmd: list[str], cwd: Path, expect: set[int]) -> float:
    """Wall-clock seconds of one run of ``cmd``; its exit status must be in ``expect``."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in expect:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return elapsed


def alternate(commands: dict[str, tuple[list[str], set[int]]], cwd: Path, runs: int) -> dict[str, float]:
    """Run each command ``runs`` times, alternating, after one warm-up each; return the medians."""
    for cmd, expect in commands.values():
        timed(cmd, cwd, expect)  # warm the page cache and write .pyc files
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (cmd, expect) in commands.items():
            times[name].append(timed(cmd, cwd, expect))
    return {name: statistics.median(t) for name, t in times.items()}


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


def bench_startup(runs: int) -> None:
    """(a): citelint check vs check-jsonschema on one small report."""
    report = SMALL_REPORT
    facts = len(json.loads((SMALL_REPO / report).read_text(encoding="utf-8"))["facts"])
    schema = os.path.relpath(REPO_ROOT / "schemas" / "report.schema.json", SMALL_REPO)
    medians = alternate({
        "citelint check": ([tool("citelint"), "check", report], {0}),
        "check-jsonschema": ([tool("check-jsonschema"), "--schemafile", schema, report], {0}),
    }, SMALL_REPO, runs)
    ratio = medians["citelint check"] / medians["check-jsonschema"]
    print(f"(a) one small report ({report} of examples/expertqa, {facts} cited facts), "
          f"whole processes, median of {runs} alternating runs")
    for name, value in medians.items():
        print(f"    {name:<18}{value * 1000:8.0f} ms")
    print(f"    ratio citelint / check-jsonschema: {ratio:.2f}"
          f" ({'faster' if ratio < 1 else 'SLOWER'}, while also checking labels, captures, digests, snippets)")
    # Where citelint's start-up goes (always shown; the point of this benchmark
    # is to keep it small). When citelint is not faster, show the second level too.
    depth = 1 if ratio < 1 else 3
    print("    slowest imports of `citelint check`, one run with -X importtime (cumulative ms):")
    for us, name in [row for row in slowest_imports(SMALL_REPO, report) if len(row[1]) - len(row[1].lstrip()) <= depth][:8]:
        print(f"      {us / 1000:7.1f}  {name.strip()}")
    loaded = forbidden_imports(SMALL_REPO, report)
    assert not loaded, f"checking a fact report imported {loaded}; keep those imports lazy"
    print(f"    fact-report check imports none of {', '.join(FORBIDDEN)}: ok")


# --------------------------------------------------------------------------- (b)

def make_vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Pseudo-words, a few with the non-ASCII characters real pages carry."""
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    words = ["".join(rng.choice(letters[:12 + i % 14]) for _ in range(rng.randint(2, 10))) for i in range(size)]
    for i in range(0, size, 97):
        words[i] = words[i] + rng.choice(["\u2019s", "\u00e9", "\u2014", "\u00a0km", "\u201cq\u201d"])
    return words


def make_corpus(root: Path, *, captures: int, reports: int, facts_per_report: int, capture_bytes: int,
                seed: int = 20261129) -> None:
    """Write a citelint repository with ``captures`` sources of ~``capture_bytes`` and the reports."""
    sys.path.insert(0, str(REPO_ROOT))
    from citelint.captures import make_record, write_capture

    rng = random.Random(seed)
    vocab = make_vocabulary(rng)
    sources, records = [], []
    for i in range(captures):
        words: list[str] = []
        size = 0
        while size < capture_bytes:
            chunk = rng.choices(vocab, k=2000)
            words += chunk
            size += sum(map(len, chunk)) + len(chunk)
        text = " ".join(words)[:capture_bytes]
        source = f"https://bench.example/doc/{i:04d}"
        record = make_record(source, text, retrieved_at="2026-01-01T00:00:00Z")
        write_capture(root / "captures", record)
        sources.append(source)
        records.append(record)
    labels = [f"metric-{k}" for k in range(facts_per_report)]
    (root / "citelint.yaml").write_text(json.dumps({"sources": sources, "labels": labels}, indent=1) + "\n",
                                        encoding="utf-8")
    reports_dir = root / "reports"
    reports_dir.mkdir()
    for r in range(reports):
        facts = []
        for k in range(facts_per_report):
            rec = records[rng.randrange(captures)]
            length = rng.randint(40, 200)
            start = rng.randrange(len(rec.text) - length)
            facts.append({"state": "cited", "label": labels[k], "source": rec.source,
                          "captureSha256": rec.sha256, "snippet": rec.text[start:start + length]})
        (reports_dir / f"r{r:04d}.json").write_text(json.dumps({"facts": facts}, indent=2, ensure_ascii=False),
                                                    encoding="utf-8")


def floor(root: Path) -> int:
    """The floor: read and parse every report, read, parse and hash each capture once, search.

    Returns the number of snippets found (for a sanity check against citelint).
    """
    import hashlib

    texts: dict[tuple[str, str], str | None] = {}
    found = 0
    for report in sorted((root / "reports").iterdir()):
        for fact in json.loads(report.read_text(encoding="utf-8"))["facts"]:
            key = (fact["source"], fact["captureSha256"])
            if key not in texts:
                src = hashlib.sha256(key[0].encode()).hexdigest()
                record = json.loads((root / "captures" / src / f"{key[1]}.json").read_bytes())
                text = record["text"]
                ok = hashlib.sha256(text.encode()).hexdigest() == key[1]
                texts[key] = text if ok else None
            text = texts[key]
            found += text is not None and fact["snippet"] in text
    return found


def bench_throughput(runs: int, keep: Path | None) -> None:
    """(b): 10,000 facts / 1,000 reports / 1,000 captures of ~100 KB."""
    tmp = Path(tempfile.mkdtemp(prefix="citelint-bench-"))
    root = keep or tmp
    try:
        t0 = time.perf_counter()
        root.mkdir(parents=True, exist_ok=True)
        if not (root / "citelint.yaml").exists():
            make_corpus(root, captures=1000, reports=1000, facts_per_report=10, capture_bytes=100_000)
        generated = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (root / "captures").rglob("*.json"))
        medians = alternate({
            "citelint check": ([tool("citelint"), "check"], {0}),
            "floor": ([sys.executable, str(Path(__file__).resolve()), "--floor", str(root)], {0}),
        }, root, runs)
        ratio = medians["citelint check"] / medians["floor"]
        print(f"(b) 10,000 facts in 1,000 reports citing 1,000 captures ({size / 1e6:.0f} MB of capture files; "
              f"generated in {generated:.0f} s), whole processes, median of {runs} alternating runs")
        for name, value in medians.items():
            print(f"    {name:<18}{value:8.2f} s")
        print(f"    ratio citelint / floor: {ratio:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["a", "b"], help="run one benchmark")
    parser.add_argument("--runs-a", type=int, default=11, help="alternating runs of (a) (default 11)")
    parser.add_argument("--runs-b", type=int, default=3, help="alternating runs of (b) (default 3)")
    parser.add_argument("--keep", type=Path, help="(b): generate into (or reuse) this directory")
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)  # the floor process of (b)
    args = parser.parse_args(argv)
    if args.floor:
        found = floor(args.floor)
        return 0 if found == 10_000 else 1
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}")
    if args.only in (None, "a"):
        bench_startup(args.runs_a)
    if args.only in (None, "b"):
        bench_throughput(args.runs_b, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
