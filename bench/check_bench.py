#!/usr/bin/env python3
"""Benchmarks of ``citelint check``, each a ratio against a baseline measured in the same run.

Every measure runs whole processes, alternating with its baseline, and
compares medians; it prints one line ending in its ratios of wall time and
CPU time (user + system, the children a process waited for included) and the
one-minute load average at the measure's start and end. Nothing here asserts
anything about time (only (a) asserts which modules get imported).

(a) one small real report: ``citelint check`` vs ``check-jsonschema`` on it.
(b) 10,000 facts / 1,000 reports / 1,000 captures of 100,000 characters, ``--jobs 1``, vs the floors.
(c) many small reports: 30,000 facts / 3,000 reports of 10 / 3,000 captures of
    30,000 characters vs the floors.
(d) 100,000 facts / 10,000 reports / 10,000 captures of 100,000 characters
    (about 1 GB, generated in a temporary directory): wall time vs the floors,
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
(i) opt-in: 1,000,000 facts / 100,000 reports of 10 / 10,000 captures of
    100,000 characters (about 1 GB of captures and 0.3 GB of reports, generated
    by the bench, never committed), text format, ``--jobs 1`` vs the floors;
    peak RSS of each process.
(j) opt-in: the repository of (i), ``--jobs 2`` vs ``--jobs 1``; peak RSS of
    the largest process, and summed over the process tree of ``--jobs 2``
    (one more run, sampled from ``/proc``: see ``measure.tree_peak``).
(k) the hook call (``citelint check --jobs 1 FILE``, the ``citelint`` hook's
    entry) on one report (5 facts) in a git repository whose config
    approves 10,000 sources vs the same repository approving its 10 cited
    sources only: the cost of the config on a hook call. Also the 10,000
    written as JSON (``citelint.yaml`` in flow style, one item a line) and as
    ``[tool.citelint]`` in ``pyproject.toml``, each vs the same 10.
(l) shards: (b)'s repository checked as N = 4 shards run one after another
    (``check --shard K/4``) plus ``citelint merge`` vs one unsharded run
    (all ``--jobs 1``): the merged output must be byte-identical (checked,
    the bench stops otherwise); each shard's wall over the unsharded wall,
    beside its target 0.25 + p, where p is the share every shard repeats:
    a run whose only work is starting and loading and schema-checking every
    report (``check --shard 1/4 --dry-run``) over the unsharded wall. The
    unsharded ``--format json`` run is shown beside it: a shard records what
    json prints (every accepted citation located), which text only counts.
(m) the hook call on a Markdown report of three links to captured sources,
    with (b)'s 1,000 captures (100 KB each) in the store, the config
    approving all 1,000 sources vs approving the 3 linked: what a Markdown
    check pays for sources its links do not name.

The floors are processes of their own. The **grouped floor**
(``bench/floor_grouped.py``, standard library only, nothing imported from
``bench/`` or citelint) parses every report, groups the snippets by capture,
then reads, parses and SHA-256-hashes each capture once, searches its
snippets and drops it: bounded memory, the shape citelint itself uses. The
**caching floor** (``--floor DIR``, ``gen.floor``, the floor of earlier
rounds, kept for continuity) reads the reports in order and keeps every
capture it has read. The **rules floor** (``floor_grouped.py --rules``) is
the grouped floor plus what citelint's default rules require of each fact
beyond finding it (the least of CL002's schema, CL004, CL105's second search,
CL106's listing of the source's revisions), so citelint's ratio to it is
its overhead rather than its rules. Every row against a floor prints all
three ratios.

Usage, from the repository root, with the virtual environment's Python (the
console scripts are taken from the interpreter's ``bin/``)::

    python bench/check_bench.py                    # (a)-(h), (k) and (l)
    python bench/check_bench.py --only b,c         # some of them
    python bench/check_bench.py --only d --repeats 1
    python bench/check_bench.py --only i,j --keep /tmp/cb   # the 1M-fact rows (opt-in)
    python bench/check_bench.py --keep /tmp/cb     # generate into (or reuse) /tmp/cb/<measure>
    python bench/check_bench.py --only b,i,k --scale 0.01 --repeats 1   # smoke run: a hundredth of the counts
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
from measure import Cmd, Stats, alternate, seconds, tool, tree_peak

REPO_ROOT = gen.REPO_ROOT
SMALL_REPO = REPO_ROOT / "examples" / "expertqa"
SMALL_REPORT = "reports/q2.json"
SMALL_MARKDOWN = "reports/q2-answer.md"
#: Modules whose import means the fact-report path pulled in the capture or Markdown stack
#: (top-level packages, or a citelint sub-package by its two-part name).
FORBIDDEN = ("urllib3", "cmarkgfm", "ada_url", "citelint.capture")

#: measure -> default number of alternating runs (after one warm-up each, except (d), (e), (i), (j)).
RUNS = {"a": 11, "b": 3, "c": 3, "d": 3, "e": 3, "f": 11, "g": 3, "h": 11, "i": 3, "j": 3, "k": 11, "l": 3,
        "m": 11}
#: Measures run only when --only names them (their data takes long to generate and to check).
OPT_IN = ("i", "j")

#: Generated repositories: name -> keyword arguments of gen.write_repo ("k": gen.write_hook_pair).
SHAPES: dict[str, dict[str, int]] = {
    "b": dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=100_000),
    "c": dict(sources=3000, reports=3000, facts_per_report=10, capture_chars=30_000),
    "d": dict(sources=10_000, reports=10_000, facts_per_report=10, capture_chars=100_000),
    "g": dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=100_000, older_revisions=4),
    "i": dict(sources=10_000, reports=100_000, facts_per_report=10, capture_chars=100_000),
    "k": dict(sources=10, reports=10, facts_per_report=5, capture_chars=100_000, extra_sources=9_990),
}
#: (f)'s git history: keyword arguments of gen.write_history.
HISTORY = dict(captures=2000, commits=500)
#: The arguments --scale multiplies (counts; never a capture's size or facts per report).
SCALED = ("sources", "reports", "extra_sources", "captures", "commits")


def scaled(shape: dict[str, int], scale: float) -> dict[str, int]:
    """``shape`` with its counts (:data:`SCALED`) multiplied by ``scale`` (at least 1 each).

    A shape with ``extra_sources`` ((k)) keeps its cited sources and reports: only
    the config grows or shrinks."""
    if scale == 1:
        return dict(shape)
    keys = ("extra_sources",) if "extra_sources" in shape else SCALED
    return {k: max(1, round(v * scale)) if k in keys else v for k, v in shape.items()}


class Data:
    """Generated repositories, made on first use: under ``keep`` (reused across
    runs while the marker records the same shape) or in a temporary directory
    removed at the end."""

    def __init__(self, keep: Path | None, scale: float = 1.0, shapes: dict[str, dict[str, int]] | None = None):
        self._tmp = None if keep else tempfile.TemporaryDirectory(prefix="citelint-bench-")
        self.base = keep or Path(self._tmp.name)
        self.scale = scale
        self.shapes = SHAPES if shapes is None else shapes
        self._repos: dict[str, gen.Repo] = {}

    def shape(self, name: str) -> dict[str, object]:
        """What the marker of ``name`` records: the generator's arguments."""
        if name == "g-none":
            return {"without_older_revisions_of": self.shape("g")}
        if name in ("k-10", "k-10k"):
            return {"hook_pair": self.shape("k")}
        if name == "f":
            return {"history": scaled(HISTORY, self.scale)}
        return dict(scaled(self.shapes[name], self.scale))

    def repo(self, name: str) -> tuple[gen.Repo, float]:
        """(repository, seconds spent generating it now)."""
        if name in self._repos:
            return self._repos[name], 0.0
        root = self.base / name
        shape = self.shape(name)
        t0 = time.perf_counter()
        repo = gen.cached_repo(root, shape)
        if repo is None:
            shutil.rmtree(root, ignore_errors=True)
            if name == "g-none":
                with_old, _ = self.repo("g")
                repo = gen.copy_without(with_old, root, with_old.older)
            else:
                repo = gen.write_repo(root, **scaled(self.shapes[name], self.scale))
            gen.write_marker(root, shape, repo)
        self._repos[name] = repo
        return repo, time.perf_counter() - t0

    def hook_pair(self) -> tuple[gen.Repo, gen.Repo, float]:
        """(k): (repository approving its cited sources, the same approving many more, seconds generating)."""
        small, large = self.base / "k-10", self.base / "k-10k"
        shape = self.shape("k-10")
        t0 = time.perf_counter()
        cached = gen.cached_repo(small, shape), gen.cached_repo(large, shape)
        if cached[0] is not None and cached[1] is not None:
            return cached[0], cached[1], 0.0
        for root in (small, large):
            shutil.rmtree(root, ignore_errors=True)
        repos = gen.write_hook_pair(small, large, **scaled(self.shapes["k"], self.scale))
        for repo in repos:
            gen.write_marker(repo.root, shape, repo)
        return repos[0], repos[1], time.perf_counter() - t0

    def path(self, name: str) -> Path:
        return self.base / name

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def floor_cmd(root: Path) -> Cmd:
    """The caching floor (``gen.floor``), in a process of its own."""
    return Cmd([sys.executable, str(Path(__file__).resolve()), "--floor", str(root)], root)


def grouped_floor_cmd(root: Path, rules: bool = False) -> Cmd:
    """The grouped floor (``floor_grouped.py``), or with ``rules`` the rules floor
    (``--rules``): exits 0 only when it found every snippet."""
    return Cmd([sys.executable, str(Path(__file__).resolve().parent / "floor_grouped.py"),
                *(["--rules"] if rules else []), str(root)], root)


def timing(stats: Stats) -> str:
    """``1.23 s (cpu 1.20 s)``: medians."""
    return f"{seconds(stats.wall)} (cpu {seconds(stats.cpu)})"


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
          f"{', '.join(FORBIDDEN)}): citelint {timing(m['citelint'])}, check-jsonschema "
          f"{timing(m['check-jsonschema'])}; citelint / check-jsonschema {m.ratio('citelint', 'check-jsonschema')}, "
          f"{m.load_text()}")


# --------------------------------------------------------------------------- (b) (c) (d): vs the floor

def vs_floor(letter: str, data: Data, runs: int, what: str, *, warmup: bool = True, rss: bool = False,
             args: tuple[str, ...] = ()) -> None:
    repo, generated = data.repo(letter)
    m = alternate({"citelint": Cmd([tool("citelint"), "check", *args], repo.root),
                   "grouped": grouped_floor_cmd(repo.root), "rules": grouped_floor_cmd(repo.root, rules=True),
                   "caching": floor_cmd(repo.root)},
                  runs, warmup=warmup)
    memory = (f"; peak RSS citelint {m['citelint'].rss_mib:,.0f} MiB, grouped floor {m['grouped'].rss_mib:,.0f} MiB, "
              f"caching floor {m['caching'].rss_mib:,.0f} MiB" if rss else "")
    command = " ".join(["citelint check", *args])
    print(f"({letter}) {what}: {describe(repo)}, generated in {generated:.0f} s{memory}; "
          f"{command} {timing(m['citelint'])}, grouped floor {timing(m['grouped'])}, "
          f"rules floor {timing(m['rules'])}, caching floor {timing(m['caching'])}; "
          f"citelint / grouped floor {m.ratio('citelint', 'grouped')}, "
          f"citelint / rules floor {m.ratio('citelint', 'rules')}, "
          f"citelint / caching floor {m.ratio('citelint', 'caching')}, {m.load_text()}")


def bench_b(data: Data, runs: int, verbose: bool) -> None:
    # One process, as the Scale issue measures the per-fact cost (two would halve the wall time of a
    # run whose floor has one).
    vs_floor("b", data, runs, "throughput", args=("--jobs", "1"))


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
          f"--jobs 2 {timing(m['2'])}, --jobs 1 {timing(m['1'])}; --jobs 2 / --jobs 1 {m.ratio('2', '1')}, "
          f"{m.load_text()}")


def bench_i(data: Data, runs: int, verbose: bool) -> None:
    # No warm-up, as (d): the data was just written (or read by an earlier run), and a run takes minutes.
    vs_floor("i", data, runs, "growth in reports, text format", warmup=False, rss=True,
             args=("--format", "text", "--jobs", "1"))


def bench_j(data: Data, runs: int, verbose: bool) -> None:
    if not citelint_supports("--jobs"):
        print("(j) --jobs 2 vs --jobs 1: skipped: --jobs not supported by this citelint")
        return
    repo, generated = data.repo("i")
    commands = {jobs: Cmd([tool("citelint"), "check", "--format", "text", "--jobs", jobs], repo.root)
                for jobs in ("2", "1")}
    m = alternate(commands, runs, warmup=False)
    tree = tree_peak(commands["2"])
    if tree is None:
        summed = "summed over the process tree: not measured (no /proc children list)"
    else:
        summed = (f"--jobs 2 tree in one more run, sampled every 10 ms ({tree.processes} processes, at most "
                  f"{tree.together} at once): summed RSS {tree.rss_mib:,.0f} MiB, PSS {tree.pss_mib:,.0f} MiB, "
                  f"peaks (VmHWM) of the processes alive together {tree.hwm_mib:,.0f} MiB")
    print(f"(j) growth in reports, --jobs 2 vs --jobs 1 ({os.cpu_count()} cores): {describe(repo)}, generated in "
          f"{generated:.0f} s; peak RSS --jobs 1 {m['1'].rss_mib:,.0f} MiB, --jobs 2 largest process "
          f"{m['2'].rss_mib:,.0f} MiB, {summed}; --jobs 2 {timing(m['2'])}, --jobs 1 {timing(m['1'])}; "
          f"--jobs 2 / --jobs 1 {m.ratio('2', '1')}, {m.load_text()}")


# --------------------------------------------------------------------------- (f) (g) (h)

def bench_f(data: Data, runs: int, verbose: bool) -> None:
    root = data.path("f")
    shape = data.shape("f")
    history = scaled(HISTORY, data.scale)
    t0 = time.perf_counter()
    if gen.read_marker(root, shape) is None:
        shutil.rmtree(root, ignore_errors=True)
        gen.write_history(root, **history)
        gen.write_marker(root, shape)
    generated = time.perf_counter() - t0
    report = "reports/r.json"
    m = alternate({
        "base": Cmd([tool("citelint"), "check", "--base", "HEAD~1", report], root),
        "plain": Cmd([tool("citelint"), "check", report], root),
    }, runs)
    print(f"(f) hook call, one report of 5 facts, git history of {history['captures']:,} captures over "
          f"{history['commits']:,} commits (generated in {generated:.0f} s): --base HEAD~1 {timing(m['base'])}, "
          f"without {timing(m['plain'])}; --base / without {m.ratio('base', 'plain')}, {m.load_text()}")


def bench_g(data: Data, runs: int, verbose: bool) -> None:
    old, generated = data.repo("g")
    none, copied = data.repo("g-none")
    m = alternate({"older": Cmd([tool("citelint"), "check"], old.root),
                   "none": Cmd([tool("citelint"), "check"], none.root)}, runs)
    print(f"(g) CL106, {old.facts:,} facts / {old.reports:,} reports / {old.sources:,} sources: "
          f"4 older revisions each ({old.capture_files:,} files, {old.capture_bytes / 1e6:,.0f} MB) "
          f"{timing(m['older'])}, none ({none.capture_files:,} files) {timing(m['none'])} "
          f"(generated in {generated + copied:.0f} s); older / none {m.ratio('older', 'none')}, {m.load_text()}")


def bench_h(data: Data, runs: int, verbose: bool) -> None:
    text = (SMALL_REPO / SMALL_MARKDOWN).read_text(encoding="utf-8")
    links = len(re.findall(r"https?://", text))
    m = alternate({
        "markdown": Cmd([tool("citelint"), "check", SMALL_MARKDOWN], SMALL_REPO),
        "facts": Cmd([tool("citelint"), "check", SMALL_REPORT], SMALL_REPO),
    }, runs)
    print(f"(h) one small file each (examples/expertqa): {SMALL_MARKDOWN} ({len(text.encode()):,} bytes, "
          f"{links} links) {timing(m['markdown'])}, {SMALL_REPORT} {timing(m['facts'])}; "
          f"Markdown / facts {m.ratio('markdown', 'facts')}, {m.load_text()}")


def bench_k(data: Data, runs: int, verbose: bool) -> None:
    small, large, generated = data.hook_pair()
    report = sorted((small.root / "reports").iterdir())[0].relative_to(small.root).as_posix()
    approved = {name: len(gen.config_sources(repo.root)) for name, repo in (("small", small), ("large", large))}
    # The large config in the other styles a config is written in: hard-link copies, made anew each run.
    styled = {}
    for style in ("json", "toml"):
        root = data.path(f"k-10k-{style}")
        shutil.rmtree(root, ignore_errors=True)
        gen.copy_without(large, root, [])
        gen.restyle_config(root, style)
        styled[style] = root
    # The `citelint` pre-commit hook's entry, given the changed file.
    hook = [tool("citelint"), "check", "--jobs", "1", report]
    m = alternate({"large": Cmd(hook, large.root), "small": Cmd(hook, small.root),
                   **{style: Cmd(hook, root) for style, root in styled.items()}}, runs)
    per_report = small.facts // small.reports
    print(f"(k) hook call, citelint check --jobs 1 {report} ({per_report} facts), git repository of "
          f"{small.sources:,} cited sources (generated in {generated:.0f} s): config approving "
          f"{approved['large']:,} sources {timing(m['large'])}, approving {approved['small']:,} {timing(m['small'])}; "
          f"{approved['large']:,} / {approved['small']:,} sources {m.ratio('large', 'small')}; the "
          f"{approved['large']:,} written as JSON (citelint.yaml) {timing(m['json'])}, {m.ratio('json', 'small')}, "
          f"as [tool.citelint] in pyproject.toml {timing(m['toml'])}, {m.ratio('toml', 'small')}; {m.load_text()}")


# --------------------------------------------------------------------------- (l)

def bench_l(data: Data, runs: int, verbose: bool) -> None:
    if not citelint_supports("--shard"):
        print("(l) shards: skipped: --shard not supported by this citelint")
        return
    repo, generated = data.repo("b")
    n = 4
    with tempfile.TemporaryDirectory(prefix="citelint-shards-") as tmp:
        files = [str(Path(tmp) / f"shard-{k}.json") for k in range(1, n + 1)]
        check = [tool("citelint"), "check", "--jobs", "1"]
        whole = Cmd(check, repo.root, frozenset({0, 1}))
        merge = Cmd([tool("citelint"), "merge", *files], repo.root, frozenset({0, 1}))
        shards = {f"shard {k}": Cmd([*check, "--shard", f"{k}/{n}", "--output-file", files[k - 1]], repo.root)
                  for k in range(1, n + 1)}
        dry = Cmd([*check, "--shard", f"1/{n}", "--dry-run"], repo.root)
        # A shard records what any format needs (every accepted citation, located, with its
        # context), which the text format never builds: the json run shows what that costs.
        as_json = Cmd([*check, "--format", "json"], repo.root, frozenset({0, 1}))
        # Alternating in this order, each merge reads the shard files of the same round.
        m = alternate({"whole": whole, **shards, "merge": merge, "loading": dry, "json": as_json}, runs)
        outputs = [subprocess.run(cmd.argv, cwd=repo.root, capture_output=True) for cmd in (whole, merge)]
        if (outputs[0].returncode, outputs[0].stdout) != (outputs[1].returncode, outputs[1].stdout):
            sys.exit("(l) citelint merge does not print what the unsharded check prints")
    p = m["loading"].wall / m["whole"].wall
    each = ", ".join(f"{name} {timing(m[name])} ({m[name].wall / m['whole'].wall:.2f}x)" for name in shards)
    worst = max(m[name].wall for name in shards) / m["whole"].wall
    total = (sum(m[name].wall for name in shards) + m["merge"].wall) / m["whole"].wall
    print(f"(l) shards, N = {n} one after another + merge: {describe(repo)}, generated in {generated:.0f} s; output "
          f"byte-identical ({len(outputs[0].stdout):,} bytes); unsharded {timing(m['whole'])} (--format json "
          f"{timing(m['json'])}, {m['json'].wall / m['whole'].wall:.2f}x); {each}; merge "
          f"{timing(m['merge'])}; loading every report (p) {timing(m['loading'])}, p = {p:.2f}; slowest shard / "
          f"unsharded {worst:.2f} against the target 0.25 + p = {0.25 + p:.2f}; all shards + merge / unsharded "
          f"{total:.2f}, {m.load_text()}")


# --------------------------------------------------------------------------- (m)

def bench_m(data: Data, runs: int, verbose: bool) -> None:
    repo, generated = data.repo("b")
    cited = json.loads((repo.root / "citelint.yaml").read_text(encoding="utf-8"))["sources"]  # JSON: gen.write_repo
    linked = [cited[5], cited[len(cited) // 2], cited[-1]]
    markdown = "# An answer\n\n" + "".join(f"A claim from source {k + 1} [{k + 1}]({url}).\n\n"
                                           for k, url in enumerate(linked))
    roots = {}
    for name, approved in (("all", cited), ("linked", linked)):
        # Hard-link copies of (b)'s captures, with a config of their own and the one Markdown report.
        root = roots[name] = data.path(f"m-{name}")
        shutil.rmtree(root, ignore_errors=True)
        gen.copy_without(repo, root, sorted((repo.root / "reports").iterdir()) + [repo.root / "citelint.yaml"])
        gen.write_atomic(root / "citelint.yaml", json.dumps({"sources": approved, "labels": [],
                                                             "markdown": ["answer.md"]}, indent=1) + "\n")
        gen.write_atomic(root / "answer.md", markdown)
    hook = [tool("citelint"), "check", "--jobs", "1", "answer.md"]
    m = alternate({name: Cmd(hook, root) for name, root in roots.items()}, runs)
    print(f"(m) Markdown hook call, citelint check --jobs 1 answer.md (3 links to captured sources), (b)'s "
          f"{len(cited):,} captures of {repo.capture_bytes / max(1, len(cited)) / 1e3:.0f} KB (generated in "
          f"{generated:.0f} s): config approving all {len(cited):,} {timing(m['all'])}, approving the 3 linked "
          f"{timing(m['linked'])}; {len(cited):,} / 3 {m.ratio('all', 'linked')}, {m.load_text()}")


MEASURES = {"a": bench_a, "b": bench_b, "c": bench_c, "d": bench_d, "e": bench_e, "f": bench_f,
            "g": bench_g, "h": bench_h, "i": bench_i, "j": bench_j, "k": bench_k, "l": bench_l, "m": bench_m}


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = ",".join(k for k in MEASURES if k not in OPT_IN)
    parser.add_argument("--only", default=default,
                        help="comma-separated measures to run, of " + ",".join(MEASURES) +
                             f" (default: {default}; {', '.join(OPT_IN)} only when named)")
    parser.add_argument("--repeats", type=int,
                        help="alternating runs per measure (default: " +
                             ", ".join(f"{k} {v}" for k, v in RUNS.items()) + ")")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) DIR/<measure> instead of a temporary "
                        "directory")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every generated count (sources, reports, (f)'s captures and commits, "
                             "(k)'s approved sources) by this factor, for a smoke run (default: 1)")
    parser.add_argument("--verbose", "-v", action="store_true", help="(a): always list the slowest imports")
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)  # the floor process
    args = parser.parse_args(argv)
    if args.floor:  # the caching floor's process
        facts, found = gen.floor(args.floor)
        return 0 if facts and found == facts else 1
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = sorted(set(only) - set(MEASURES))
    if unknown:
        parser.error(f"unknown measure {', '.join(unknown)}; choose from {', '.join(MEASURES)}")
    if args.scale <= 0:
        parser.error("--scale must be positive")
    scale = "" if args.scale == 1 else f"; --scale {args.scale:g}: generated counts scaled, not the table's shapes"
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}, "
          f"load {os.getloadavg()[0]:.1f}{scale}")
    data = Data(args.keep, args.scale)
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
