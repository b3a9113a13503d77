#!/usr/bin/env python3
"""Findings identity: the current checkout's output against a reference revision's, byte for byte.

Performance work must not change a single finding. This runs ``citelint
check`` as of a git revision (default ``67ab015``, the last commit before
the performance work; checked out with ``git worktree add --detach`` into a
temporary directory, imported through ``PYTHONPATH``, removed afterwards)
and as of the current checkout (its working tree, uncommitted changes
included) on the same inputs, in ``text`` and ``json`` formats:

- ``examples``: ``examples/expertqa`` and ``examples/expertqa-faults``, as
  they are in the current checkout;
- ``expertqa``: the whole ExpertQA validation split converted the way
  ``bench/expertqa_validate.py`` converts it (base facts, every mutation
  group, the claims as snippets: about 15,000 facts in 3,200 reports);
- ``readmes``: each README of the README corpus as a Markdown report, with
  its own governed links as its approved, captured sources (the false-flag
  setup of ``bench/links_bench.py``: one folder, ``pyproject.toml`` and
  capture store per README). Each capture holds only its URL, so every
  cited prose quotation and number is a CL205 or CL206 finding;
- ``claims``: the ExpertQA answers as Markdown reports with their evidence
  passages as captures (``bench/expertqa_claims.py``), with the default
  rules and with CL205 and CL206 off: prose quotations accepted and missed,
  numbers found and not.

The inputs are generated once, by the current checkout, and both revisions
check the same files. Each revision runs in one Python process that calls
``citelint.cli.main`` for every job (from the job's directory), so 600
checks cost no 600 interpreter start-ups; both revisions run at the same
time. Compared: standard output and exit status. In json, the ``citelint``
version field is removed first (a release bumps it).

``--allow CL106`` (repeatable) is for a rule whose findings another change
alters on purpose: that rule's findings are dropped from both outputs (text:
its finding lines; json: its ``findings`` and ``semanticReview`` entries),
the counts (text: the digits of the ``citelint:`` summary line; json:
``counts``) and the exit status are no longer compared; everything else
still is, byte for byte.

Usage, from the repository root, with the virtual environment's Python::

    python bench/findings_identity.py                       # against 67ab015
    python bench/findings_identity.py --rev v0.1.0 --allow CL106
    python bench/findings_identity.py --only examples,expertqa

Exit 0 when every output is identical, 1 otherwise (the first differences are
printed), 2 when it could not run.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen

REPO_ROOT = gen.REPO_ROOT
DEFAULT_REV = "67ab015"
DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpus"
FORMATS = ("text", "json")
SETS = ("examples", "expertqa", "readmes", "claims")

#: Runs in the revision's interpreter: ``citelint.cli.main`` for each job read
#: from the file named by its argument, results as JSON on stdout.
DRIVER = r"""
import contextlib, io, json, os, sys
import citelint
from citelint.cli import main
with open(sys.argv[1], encoding="utf-8") as f:
    jobs = json.load(f)
results = {"module": os.path.dirname(os.path.abspath(citelint.__file__)), "jobs": []}
for cwd, argv in jobs:
    os.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    results["jobs"].append([code, out.getvalue(), err.getvalue()])
json.dump(results, sys.stdout)
"""

Job = tuple[str, Path, list[str]]  # (name, working directory, argv after "citelint")


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO_ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


# --------------------------------------------------------------------------- inputs

def example_jobs() -> list[Job]:
    return [(f"examples/{name} --format {fmt}", REPO_ROOT / "examples" / name, ["check", "--format", fmt])
            for name in ("expertqa", "expertqa-faults") for fmt in FORMATS]


def expertqa_jobs(tmp: Path, corpus: Path) -> list[Job]:
    import expertqa_validate

    tree = expertqa_validate.build_tree(tmp / "expertqa", corpus / "expertqa")
    return [(f"ExpertQA validation split --format {fmt}", tree.root, ["check", "--format", fmt])
            for fmt in FORMATS]


def claims_jobs(tmp: Path, corpus: Path) -> list[Job]:
    import expertqa_claims

    root = tmp / "claims"
    expertqa_claims.build(corpus / "expertqa", root)
    return [(f"ExpertQA answers as Markdown, {config} --format {fmt}", root,
             ["check", "--config", config, "--format", fmt])
            for config in ("citelint.yaml", "citelint-off.yaml") for fmt in FORMATS]


def readme_jobs(tmp: Path, corpus: Path) -> list[Job]:
    import links_bench

    files = sorted((corpus / "markdown-readmes").glob("*.md"))
    if not files:
        raise FileNotFoundError(f"no Markdown files in {corpus / 'markdown-readmes'}")
    texts = [f.read_text(encoding="utf-8") for f in files]
    root = tmp / "readmes"
    work = [(root / f"{n:03d}", file, list(dict.fromkeys(cited)))
            for n, (file, cited) in enumerate(zip(files, links_bench.sources_of(texts)))]
    with ProcessPoolExecutor() as pool:
        list(pool.map(_write_readme, work, chunksize=8))
    return [(f"README {file.name} --format {fmt}", folder, ["check", "--format", fmt])
            for folder, file, _ in work for fmt in FORMATS]


def _write_readme(work: tuple[Path, Path, list[str]]) -> None:
    """One README's folder: the README, its sources in ``pyproject.toml``, a capture of each.

    A store per README: one shared store of every README's sources would make
    each check list tens of thousands of source folders it never cites.
    TOML, not YAML: a README's thousand sources parse in milliseconds (a JSON
    string with ensure_ascii=False is a TOML basic string).
    """
    folder, file, sources = work
    for source in sources:
        gen.write_record(folder / "captures", source, f"captured text of {source}\n", gen.CITED_AT)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file.name).write_bytes(file.read_bytes())
    (folder / "pyproject.toml").write_text(
        f"[tool.citelint]\nmarkdown = [{json.dumps(file.name)}]\nsources = [\n"
        + "".join(f"  {json.dumps(u, ensure_ascii=False)},\n" for u in sources) + "]\n", encoding="utf-8")


# --------------------------------------------------------------------------- running

def start(python_path: Path, jobs_file: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "CITELINT_DEBUG")}
    env["PYTHONPATH"] = str(python_path)
    return subprocess.Popen([sys.executable, "-c", DRIVER, str(jobs_file)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=python_path)


def collect(proc: subprocess.Popen, python_path: Path) -> list[tuple[int, str, str]]:
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"citelint at {python_path} failed: {err.decode(errors='replace')[-3000:]}")
    results = json.loads(out)
    if Path(results["module"]).resolve() != (python_path / "citelint").resolve():
        sys.exit(f"imported citelint from {results['module']}, not from {python_path}")
    return [tuple(r) for r in results["jobs"]]


# --------------------------------------------------------------------------- comparing

_VERSION = re.compile(r'^  "citelint": "[^"\n]*",\n', re.MULTILINE)
_FINDING = re.compile(r"^\s*\S.*?:\d+:\d+: (CL\d{3}) ")


def normalise(fmt: str, stdout: str, allow: set[str]) -> str:
    """What is compared: the output minus the version, and minus the allowed rules' findings."""
    if fmt == "json":
        stdout = _VERSION.sub("", stdout, count=1)
        if not allow:
            return stdout
        try:
            doc = json.loads(stdout)
        except ValueError:
            return stdout
        for key in ("findings", "semanticReview"):
            if isinstance(doc.get(key), list):
                doc[key] = [f for f in doc[key] if f.get("rule") not in allow]
        doc.pop("counts", None)
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if not allow:
        return stdout
    lines = []
    for line in stdout.splitlines(keepends=True):
        m = _FINDING.match(line)
        if m and m.group(1) in allow:
            continue
        lines.append(re.sub(r"\d+", "#", line) if line.startswith("citelint: ") else line)
    return "".join(lines)


def compare(jobs: list[Job], old: list, new: list, allow: set[str], rev: str, show: int = 5) -> int:
    """Print the first differences; return how many jobs differ."""
    differing = 0
    for (name, _, argv), (old_code, old_out, old_err), (new_code, new_out, new_err) in zip(jobs, old, new):
        fmt = argv[argv.index("--format") + 1]
        a, b = normalise(fmt, old_out, allow), normalise(fmt, new_out, allow)
        same_code = allow or old_code == new_code
        if a == b and same_code:
            continue
        differing += 1
        if differing > show:
            continue
        print(f"DIFFERENT: {name}: exit {old_code} at {rev}, {new_code} now")
        diff = list(difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True),
                                         fromfile=rev, tofile="current", n=1))
        for line in diff[:30]:
            print("    " + line.rstrip("\n"))
        if len(diff) > 30:
            print(f"    ... {len(diff) - 30} more diff lines")
        if not diff and old_err != new_err:
            print(f"    stderr at {rev}: {old_err.strip()[-300:]}\n    stderr now: {new_err.strip()[-300:]}")
    if differing > show:
        print(f"... and {differing - show} more differing outputs")
    return differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default=DEFAULT_REV, help=f"reference revision (default {DEFAULT_REV})")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE",
                        help="a rule whose findings may differ (repeatable); see the module docstring")
    parser.add_argument("--only", default=",".join(SETS), help="comma-separated input sets, of " + ",".join(SETS))
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help="folder holding expertqa/ and markdown-readmes/ (default ../shared/corpus)")
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if set(only) - set(SETS):
        parser.error(f"--only: choose from {', '.join(SETS)}")
    allow = {r.upper() for r in args.allow}
    bad = sorted(r for r in allow if not re.fullmatch(r"CL\d{3}", r))
    if bad:
        parser.error(f"--allow takes rule ids such as CL106, not {', '.join(bad)}")
    try:
        commit = git("rev-parse", "--verify", f"{args.rev}^{{commit}}")
    except subprocess.CalledProcessError:
        print(f"findings_identity: unknown revision {args.rev}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="citelint-identity-") as tmp_name:
        tmp = Path(tmp_name)
        reference = tmp / "reference"
        git("worktree", "add", "--detach", "--quiet", str(reference), commit)
        try:
            jobs: list[Job] = []
            try:
                if "examples" in only:
                    jobs += example_jobs()
                if "expertqa" in only:
                    jobs += expertqa_jobs(tmp, args.corpus)
                if "readmes" in only:
                    jobs += readme_jobs(tmp, args.corpus)
                if "claims" in only:
                    jobs += claims_jobs(tmp, args.corpus)
            except FileNotFoundError as exc:
                print(f"findings_identity: {exc}", file=sys.stderr)
                return 2
            t_inputs = time.perf_counter() - t0
            jobs_file = tmp / "jobs.json"
            jobs_file.write_text(json.dumps([[str(cwd), argv] for _, cwd, argv in jobs]), encoding="utf-8")
            procs = [(start(reference, jobs_file), reference), (start(REPO_ROOT, jobs_file), REPO_ROOT)]
            old, new = (collect(p, path) for p, path in procs)
        finally:
            git("worktree", "remove", "--force", str(reference))
    broken = [name for (name, _, _), (code, _, _) in zip(jobs, old) if code not in (0, 1)]
    if broken:
        # Identical usage errors would prove nothing: the inputs themselves are wrong.
        print(f"findings_identity: citelint at {args.rev} exited 2 on {len(broken)} inputs, e.g. {broken[0]}: "
              f"{old[jobs.index(next(j for j in jobs if j[0] == broken[0]))][2].strip()[-300:]}", file=sys.stderr)
        return 2
    differing = compare(jobs, old, new, allow, args.rev)
    elapsed = time.perf_counter() - t0
    statuses = Counter(code for code, _, _ in new)
    allowed = f", findings of {', '.join(sorted(allow))} allowed to differ" if allow else ""
    print(f"findings identity against {args.rev} ({commit[:12]}){allowed}: {len(jobs)} outputs "
          f"({', '.join(only)}; text and json; exit 0: {statuses[0]}, exit 1: {statuses[1]}), "
          f"{differing} different; inputs {t_inputs:.0f} s, "
          f"total {elapsed:.0f} s")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
