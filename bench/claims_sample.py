"""Claims in prose (CL205, CL206) on the real ExpertQA answers: counts, and a sample to classify by hand.

Run from the repository root::

    python bench/claims_sample.py [--corpus ../shared/corpus/expertqa] [--sample 50] [--keep DIR]

Every answer of both validation splits becomes a Markdown report with its
``[n]`` markers linked to their attribution URLs, ``[[n]](<URL>)``, as
``bench/expertqa_links.py`` renders them; every URL the system retrieved with
a passage becomes a source whose capture is those passages (all of them for
that URL, in corpus order, joined by a blank line), written by citelint's own
evidence writer. An attribution with no passage was not retrieved, so its link
is ungrounded (CL201) and its sentence's numbers are not checked.
``citelint check --format json`` then runs once, in this process's
interpreter, over the whole tree.

Printed: answers, sources, cited sentences (sentences with at least one link,
by citelint's own sentence rule) and those with a captured citation; the
CL205 and CL206 counts and CL206 per 100 of each; then ``--sample`` CL206
findings drawn with ``random.Random(24)``, each with the words around the
number, and how many of them have the same digits in the capture in any
spelling (grouping or decimal separators, spaces): the figure the rule
should have matched. A person classifies the sample (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import expertqa_links  # noqa: E402

from citelint.links import sentences  # noqa: E402
from citelint.links.blocks import Detector  # noqa: E402
from citelint.store.captures import make_record  # noqa: E402
from citelint.store.writer import write_capture  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "expertqa"
_LINK = re.compile(r"\[\\\[(\d+)\\\]\]\(<[^>]*>\)")


def build(root: Path, corpus: Path) -> dict[str, int]:
    """Write the project (config, captures, reports) into ``root``; the counts of what it holds."""
    passages: dict[str, list[str]] = {}
    answers = []
    for system, answer in expertqa_links.records(corpus):
        for claim in answer.get("claims") or ():
            for evidence in claim.get("evidence") or ():
                head, sep, passage = evidence.partition("\n\n")
                m = expertqa_links._ATTRIBUTION.match(head.strip())
                if m and sep and passage.strip() and passage not in passages.setdefault(m.group(2), []):
                    passages[m.group(2)].append(passage)
        answers.append((system, expertqa_links.render(answer["answer_string"], answer.get("attribution") or [])))
    passages = {url: texts for url, texts in passages.items() if texts}
    for url, texts in passages.items():
        write_capture(root / "captures", make_record(url, "\n\n".join(texts), retrieved_at="2026-01-01T00:00:00Z"))
    (root / "reports").mkdir()
    cited = grounded = 0
    for i, (system, markdown) in enumerate(answers):
        (root / "reports" / f"a{i:04d}-{system}.md").write_text(markdown, encoding="utf-8")
        det = Detector(markdown)
        for k in range(len(det.leaves)):
            b = det.block(k)
            if not b.links:
                continue
            for s, _t, e in sentences.split_sentences(b, sentences.mark_pairs(b.text, b.code)):
                hrefs = [href for a, _e, href, _ in b.links if s <= a < e]
                if hrefs:
                    cited += 1
                    grounded += any(h in passages for h in hrefs)
    (root / "citelint.yaml").write_text(json.dumps({"sources": sorted(passages), "labels": {},
                                                    "markdown": ["reports/*.md"]}), encoding="utf-8")
    return {"answers": len(answers), "sources": len(passages), "cited sentences": cited,
            "sentences with a captured citation": grounded}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--keep", type=Path, help="build the project here (an empty or new folder) and keep it")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    root = args.keep or Path(tempfile.mkdtemp(prefix="citelint-claims-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        counts = build(root, args.corpus)
        run = subprocess.run([sys.executable, "-m", "citelint", "check", "--format", "json"], cwd=root,
                             capture_output=True, text=True, check=False)
        doc = json.loads(run.stdout)
        rules = Counter(f["rule"] for f in doc["findings"])
        for key, value in counts.items():
            print(f"{key}: {value:,}")
        print(f"quotations accepted: {doc['counts']['quotations']}")
        for rule in ("CL205", "CL206"):
            print(f"{rule}: {rules[rule]} ({100 * rules[rule] / counts['cited sentences']:.1f} per 100 cited "
                  f"sentences, {100 * rules[rule] / counts['sentences with a captured citation']:.1f} per 100 "
                  "with a captured citation)")
        captures = {}
        for path in (root / "captures").rglob("*.json"):
            record = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(record, dict) and "source" in record:
                captures[record["source"]] = record["text"]
        numbers = [f for f in doc["findings"] if f["rule"] == "CL206"]
        random.Random(24).shuffle(numbers)
        sample = sorted(numbers[:args.sample], key=lambda f: (f["path"], f["line"], f["column"]))
        spelled = 0
        print(f"\nsample of {len(sample)} CL206 (random.Random(24)):")
        for k, f in enumerate(sample):
            line = (root / f["path"]).read_text(encoding="utf-8").splitlines()[f["line"] - 1]
            col = f["column"] - 1
            before, after = _LINK.sub(r"[\1]", line[:col])[-60:], _LINK.sub(r"[\1]", line[col:])[:30]
            number = re.search(r"number [-+−±$€£¥₹₩₽¢]*([\d.,' \u00a0\u2009\u202f]*\d)", f["message"])
            digits = re.sub(r"\D", "", number.group(1)) if number else ""
            same = any(re.sub(r"\D", "", m.group(0)) == digits
                       for source, text in captures.items() if repr(source[:100])[:-1] in f["message"]
                       for m in re.finditer(r"\d[\d.,' \u00a0\u2009\u202f]*\d|\d", text))
            spelled += same
            print(f"{k:3} {f['path']}:{f['line']}:{f['column']}  …{before}⟦{after}…"
                  + ("  [same digits in the capture]" if same else ""))
        print(f"\nwith the same digits in the capture in another spelling: {spelled} of {len(sample)}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
