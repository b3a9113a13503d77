#!/usr/bin/env python3
"""What claims in prose (CL205, CL206) cost a Markdown check of the ExpertQA answers.

Both validation splits (``rand_val.jsonl``, ``domain_val.jsonl``) are written
into a temporary repository by citelint's own writer, as
``examples/build_expertqa.py`` converts them (its functions are used): every
evidence passage becomes a capture of its URL (two passages of one URL, two
revisions), and every answer becomes a Markdown report
``reports/<split>-q<n>.md``: the question as a heading, then the answer with
each ``[n]`` marker that has an attribution written as the citation link
``[[n]](URL)``. A marker whose URL has no passage still links it (CL201: the
same in both configurations).

Then ``citelint check`` runs as whole processes, one warm-up each, then
alternating ``--repeats`` times: with the default rules, and with a second
config file that sets ``rules: {CL205: off, CL206: off}``. Printed: best and
median wall time and CPU time (user + system of the process and the
processes it waited for, from ``os.wait4``) of each, the ratios on / off,
the CL205 and CL206 findings and accepted prose quotations of the default
run (``--format json``), and the cited sentences: sentences (the citation
rule of docs/quotations.md) holding a link to a captured source, so that
CL206 per 100 cited sentences can be read off.

Run from the repository root with the virtual environment's Python::

    python bench/expertqa_claims.py [--repeats 11] [--corpus ../shared/corpus/expertqa] [--keep DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from measure import child_env, tool  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "expertqa"
SPLITS = (("rand", "rand_val.jsonl"), ("domain", "domain_val.jsonl"))
_MARKER = re.compile(r"\[(\d+)\]")


def _load_builder() -> Any:
    """examples/build_expertqa.py (not a package), so the conversion is literally the same."""
    spec = importlib.util.spec_from_file_location("build_expertqa", ROOT / "examples" / "build_expertqa.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def answer_markdown(question: dict[str, Any]) -> str | None:
    """The question's answer as Markdown with ``[[n]](URL)`` citation links; None without an answer."""
    answer = next((a for _, a in sorted(question.get("answers", {}).items()) if a.get("answer_string")), None)
    if answer is None:
        return None
    urls: dict[str, str] = {}
    for entry in answer.get("attribution") or []:
        number, _, url = entry.strip().partition(" ")
        if url.strip():
            urls.setdefault(number.strip("[]"), url.strip())
    body = _MARKER.sub(lambda m: f"[[{m.group(1)}]]({urls[m.group(1)]})" if m.group(1) in urls else m.group(0),
                       answer["answer_string"])
    return f"# {question['question']}\n\n{body}\n"


def build(corpus: Path, root: Path) -> tuple[int, list[str]]:
    """Write the repository under ``root``: captures, reports and both configs. Returns
    (reports written, the captured sources)."""
    from citelint.store.writer import write_capture

    bx = _load_builder()
    claims = []
    reports = root / "reports"
    reports.mkdir(parents=True)
    written = 0
    for split, name in SPLITS:
        questions = bx.load_questions(corpus / name)
        claims.extend(bx.iter_claims(questions, prefix=f"{split}-"))
        for n, question in enumerate(questions, 1):
            markdown = answer_markdown(question)
            if markdown is not None:
                (reports / f"{split}-q{n}.md").write_text(markdown, encoding="utf-8")
                written += 1
    conv = bx.convert(claims)
    for records in conv.captures.values():
        for record in records:
            write_capture(root / "captures", record)
    sources = list(conv.captures)
    config = {"captures": "captures", "reports": [], "markdown": ["reports/*.md"], "sources": sources,
              "labels": {}}
    (root / "citelint.yaml").write_text(json.dumps(config, indent=1), encoding="utf-8")
    off = {**config, "rules": {"CL205": "off", "CL206": "off"}}
    (root / "citelint-off.yaml").write_text(json.dumps(off, indent=1), encoding="utf-8")
    return written, sources


def run(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole ``citelint check`` process (exit 0 or 1)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.stderr.close()
    if code not in (0, 1):
        sys.exit(f"{' '.join(argv)} exited {code}: {err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def cited_sentences(root: Path, sources: list[str]) -> int:
    """Sentences of the reports (citelint's citation rule) that hold a link to a captured source."""
    from citelint.links import Allowlist, link_sentences
    from citelint.links.locate import extract

    captured = Allowlist(sources)
    total = 0
    for path in sorted((root / "reports").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        starts = [link.start for link in extract(text) if link.category == "governed"
                  and captured.captured_source(link.cited) is not None]
        by_start = link_sentences(text, starts)
        total += len({(by_start[s]) for s in starts if s in by_start})
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--keep", type=Path, help="write the repository here (must not exist) and keep it")
    args = parser.parse_args(argv)
    if not all((args.corpus / name).is_file() for _, name in SPLITS):
        print(f"no ExpertQA splits in {args.corpus}", file=sys.stderr)
        return 2
    tmp = None
    if args.keep is not None:
        root = args.keep
    else:
        tmp = tempfile.mkdtemp(prefix="citelint-expertqa-claims-")
        root = Path(tmp) / "repo"
    try:
        reports, sources = build(args.corpus, root)
        citelint = tool("citelint")
        commands = {"on": [citelint, "check", "--config", "citelint.yaml"],
                    "off": [citelint, "check", "--config", "citelint-off.yaml"]}
        proc = subprocess.run([*commands["on"], "--format", "json"], cwd=root, capture_output=True,
                              env=child_env(), check=False)
        doc = json.loads(proc.stdout)
        rules = [f["rule"] for f in doc["findings"]]
        prose = sum(a.get("kind") == "quotation" and a.get("form") == "prose" for a in doc.get("accepted", []))
        size = sum(p.stat().st_size for p in (root / "reports").glob("*.md"))
        print(f"{reports} reports ({size / 1e6:.2f} MB of Markdown), {len(sources)} captured sources")
        print(f"default rules: CL205 {rules.count('CL205')}, CL206 {rules.count('CL206')}, "
              f"CL201 {rules.count('CL201')}; prose quotations accepted {prose}")
        sentences = cited_sentences(root, sources)
        print(f"cited sentences {sentences}: CL206 per 100 cited sentences "
              f"{100 * rules.count('CL206') / max(sentences, 1):.1f}")
        for argv_ in commands.values():
            run(argv_, root)  # warm-up: page cache and bytecode
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, argv_ in commands.items():
                samples[name].append(run(argv_, root))
        stats = {}
        for name, ss in samples.items():
            walls, cpus = [w for w, _ in ss], [c for _, c in ss]
            stats[name] = (min(walls), statistics.median(walls), min(cpus), statistics.median(cpus))
            print(f"{name:3s}: wall best {stats[name][0] * 1000:.0f} ms, median {stats[name][1] * 1000:.0f} ms; "
                  f"CPU best {stats[name][2] * 1000:.0f} ms, median {stats[name][3] * 1000:.0f} ms")
        on, off = stats["on"], stats["off"]
        per = sorted(a[0] / b[0] for a, b in zip(samples["on"], samples["off"]))
        print(f"ratio on / off ({args.repeats} alternating runs): wall best {on[0] / off[0]:.2f}, "
              f"median {on[1] / off[1]:.2f}; CPU best {on[2] / off[2]:.2f}, median {on[3] / off[3]:.2f}; "
              f"median of per-run wall ratios {statistics.median(per):.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
