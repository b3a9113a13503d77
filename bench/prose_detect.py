"""Prose quotation detection on real text: how many, how many cited, a sample to check by hand, speed.

Run from the repository root::

    python bench/prose_detect.py [--repeats 3] [--sample 30] [--json out.json]

Two corpora (../shared/corpus): the README corpus (``markdown-readmes/*.md``,
Markdown as written) and the article pages (``article-html/ground-truth.json``,
each page's human-written ``articleBody``, paragraphs separated by blank
lines, read as Markdown). For each, :func:`citelint.links.prose.quotations`
(defaults: ``min_chars`` 20, ``min_segment_chars`` 12) is run on every
document and the detections are counted by kind (marks, blockquote), with
citations, with a bracketed insertion, with a too-short segment; and
:func:`~citelint.links.prose.cited_numbers` is counted too.

The sample is deterministic: ``--sample`` detections drawn with
``random.Random(24)`` from all detections of both corpora in document order,
printed with file, line, column, marks and text, for a person to classify
(real quotation or not, and if not, why).

Speed: best-of-``--repeats`` wall time of ``quotations()`` over the README
corpus, as MB/s of UTF-8 Markdown, next to ``links.check`` (every link
judged against an allowlist of the document's own governed links, as in
bench/links_bench.py) in the same run.
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus"

from citelint import links  # noqa: E402
from citelint.links.locate import extract  # noqa: E402
from citelint.links.prose import cited_numbers, quotations  # noqa: E402


def readmes() -> list[tuple[str, str]]:
    return [(Path(f).name, Path(f).read_text(encoding="utf-8"))
            for f in sorted(glob.glob(str(CORPUS / "markdown-readmes" / "*.md")))]


def articles() -> list[tuple[str, str]]:
    truth = json.loads((CORPUS / "article-html" / "ground-truth.json").read_text(encoding="utf-8"))
    return [(f"article {key}", truth[key]["articleBody"]) for key in sorted(truth)]


def count(docs: list[tuple[str, str]]) -> tuple[dict, list[tuple[str, object]]]:
    found = [(name, q) for name, text in docs for q in quotations(text)]
    numbers = sum(len(cited_numbers(text)) for _, text in docs)
    stats = {
        "documents": len(docs),
        "MB": round(sum(len(text.encode("utf-8")) for _, text in docs) / 1e6, 2),
        "quotations": len(found),
        "marks": sum(q.kind == "marks" for _, q in found),
        "blockquote": sum(q.kind == "blockquote" for _, q in found),
        "with citations": sum(bool(q.citations) for _, q in found),
        "with an insertion": sum(bool(q.insertions) for _, q in found),
        "with a short segment": sum(bool(q.short_segments) for _, q in found),
        "by marks": {},
        "cited numbers": numbers,
    }
    for _, q in found:
        key = q.marks or "blockquote"
        stats["by marks"][key] = stats["by marks"].get(key, 0) + 1
    return stats, found


def best_of(repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    corpora = {"README corpus": readmes(), "article pages": articles()}
    result: dict = {}
    everything: list[tuple[str, object]] = []
    for name, docs in corpora.items():
        stats, found = count(docs)
        result[name] = stats
        everything.extend(found)
        print(f"{name}: {json.dumps(stats, ensure_ascii=False)}")

    texts = [text for _, text in corpora["README corpus"]]
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    allowlists = [links.LinkEvidence(links.Allowlist({link.cited for link in extract(t)
                                                      if link.category == "governed"})) for t in texts]
    quote_s = best_of(args.repeats, lambda: [quotations(t) for t in texts])
    numbers_s = best_of(args.repeats, lambda: [cited_numbers(t) for t in texts])
    check_s = best_of(args.repeats, lambda: [links.check(t, a) for t, a in zip(texts, allowlists)])
    result["speed MB/s"] = {"quotations": round(mb / quote_s, 2), "cited_numbers": round(mb / numbers_s, 2),
                            "links.check": round(mb / check_s, 2)}
    print(f"speed on the README corpus ({mb:.2f} MB, best of {args.repeats}): "
          + ", ".join(f"{k} {v} MB/s" for k, v in result["speed MB/s"].items()))

    rng = random.Random(24)
    picked = sorted(rng.sample(range(len(everything)), min(args.sample, len(everything))))
    result["sample"] = []
    print(f"\nsample of {len(picked)} detections (random.Random(24)):")
    for n, i in enumerate(picked, 1):
        doc, q = everything[i]
        entry = {"document": doc, "line": q.line, "col": q.col, "marks": q.marks or "blockquote",
                 "text": q.text, "citations": [link.cited for link in q.citations]}
        result["sample"].append(entry)
        shown = q.text if len(q.text) <= 110 else q.text[:107] + "..."
        print(f"{n:2}. {doc}:{q.line}:{q.col} {entry['marks']} {len(q.citations)} cited: {shown!r}")
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
