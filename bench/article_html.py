"""HTML quote recall on real article pages (shared/corpus/article-html).

For each page: record it with ``citelint capture --source URL --from-file
PAGE --content-type text/html`` (the configured extractor), write a fact
report citing every sentence of the human-written article text verbatim,
run ``citelint check --format json``, and count the sentences accepted
(no CL104). Sentences are split as the corpus README says: after ``.``,
``!`` or ``?`` followed by whitespace and at every newline, kept at 40-400
characters.

    python bench/article_html.py                    # every extractor citelint has
    python bench/article_html.py --extractor html-text --misses
    python bench/article_html.py --libraries        # also candidate libraries outside citelint

The snippet side is never normalised: a sentence passes only if it occurs
verbatim in the capture's text.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "article-html"


def sentences(body: str) -> list[str]:
    """The article's sentences of 40-400 characters, as the corpus README splits them."""
    out = []
    for line in body.split("\n"):
        for part in re.split(r"(?<=[.!?])\s+", line):
            part = part.strip()
            if 40 <= len(part) <= 400:
                out.append(part)
    return out


def pages(corpus: Path) -> list[tuple[str, str, bytes, list[str]]]:
    """(id, url without fragment, html bytes, sentences) per page, sorted by id."""
    truth = json.loads((corpus / "ground-truth.json").read_text(encoding="utf-8"))
    out = []
    for pid in sorted(truth):
        url = truth[pid]["url"].split("#")[0]
        html = gzip.decompress((corpus / "html" / f"{pid}.html.gz").read_bytes())
        out.append((pid, url, html, sentences(truth[pid]["articleBody"])))
    return out


def through_citelint(extractor: str, corpus_pages) -> dict[str, list[bool]]:
    """Accepted-or-not per sentence per page, by capture + check in a scratch project."""
    from citelint.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources = sorted({url for _, url, _, _ in corpus_pages})
        reports: dict[str, list[dict]] = {}
        (root / "citelint.yaml").write_text(json.dumps({
            "sources": sources, "reports": ["reports/*.json"],
            "capture": {"extractors": {"text/html": extractor}},
        }), encoding="utf-8")
        for pid, url, html, sents in corpus_pages:
            page = root / f"{pid}.html"
            page.write_bytes(html)
            out, err = io.StringIO(), io.StringIO()
            code = main(["capture", "--config", str(root / "citelint.yaml"), "--source", url, "--from-file",
                         str(page), "--content-type", "text/html", "--retrieved-at", "2019-11-01T00:00:00Z"],
                        stdout=out, stderr=err)
            if code != 0:
                sys.exit(f"capture of {pid} failed: {out.getvalue()}{err.getvalue()}")
            sha = out.getvalue().split(" revision ")[1].split()[0]
            reports[pid] = [{"state": "cited", "label": f"p{pid[:12]}-{i}", "source": url, "captureSha256": sha,
                             "snippet": s} for i, s in enumerate(sents)]
        labels = [fact["label"] for facts in reports.values() for fact in facts]
        config = json.loads((root / "citelint.yaml").read_text(encoding="utf-8"))
        (root / "citelint.yaml").write_text(json.dumps({**config, "labels": labels}), encoding="utf-8")
        (root / "reports").mkdir()
        for pid, facts in reports.items():
            # One fact a line: fact i is on line i + 2, where its findings point.
            lines = ",\n".join(json.dumps(f) for f in facts)
            (root / "reports" / f"{pid}.json").write_text('{"facts": [\n' + lines + "\n]}\n", encoding="utf-8")
        out = io.StringIO()
        main(["check", "--config", str(root / "citelint.yaml"), "--format", "json"], stdout=out, stderr=io.StringIO())
        findings = json.loads(out.getvalue())["findings"]
    missed: dict[str, set[int]] = {}
    for f in findings:
        if f["severity"] == "error":
            if f["rule"] != "CL104":
                sys.exit(f"unexpected finding: {f}")
            missed.setdefault(Path(f["path"]).stem, set()).add(f["line"] - 2)
    for pid, lines in missed.items():
        if len(lines) >= 100:
            sys.exit(f"{pid}: 100 or more misses, over the per-file finding cap; measure it alone")
    return {pid: [i not in missed.get(pid, ()) for i in range(len(facts))] for pid, facts in reports.items()}


def by_library(fn, corpus_pages) -> dict[str, list[bool]]:
    """Accepted-or-not per sentence per page, by a plain substring test on ``fn(html_bytes)``."""
    result = {}
    for pid, _, html, sents in corpus_pages:
        text = fn(html)
        result[pid] = [s in text for s in sents]
    return result


def _libraries():
    out = {}
    try:
        import html_text
        out["html-text defaults (outside citelint)"] = lambda b: html_text.extract_text(b.decode("utf-8"))
    except ImportError:
        pass
    try:
        import inscriptis
        out["inscriptis defaults (outside citelint)"] = lambda b: inscriptis.get_text(b.decode("utf-8"))
    except ImportError:
        pass
    try:
        from resiliparse.extract.html2text import extract_plain_text
        out["resiliparse full page (outside citelint)"] = \
            lambda b: extract_plain_text(b.decode("utf-8"), main_content=False)
    except ImportError:
        pass
    return out


def summary(name: str, result: dict[str, list[bool]]) -> str:
    total = sum(len(v) for v in result.values())
    ok = sum(sum(v) for v in result.values())
    low = sorted(pid[:8] for pid, v in result.items() if v and sum(v) / len(v) < 0.8)
    listed = " (" + ", ".join(low) + ")" if low else ""
    return f"| {name} | {ok}/{total} | {100 * ok / total:.2f}% | {len(low)}{listed} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--extractor", action="append",
                    help="citelint extractor(s) to measure (default: html-text, trafilatura)")
    ap.add_argument("--libraries", action="store_true", help="also measure candidate libraries directly")
    ap.add_argument("--misses", action="store_true", help="print each missed sentence")
    args = ap.parse_args()
    corpus_pages = pages(args.corpus)
    print("| extractor | sentences accepted | share | pages under 80% |\n|---|---|---|---|")
    for name in args.extractor or ["html-text", "trafilatura"]:
        result = through_citelint(name, corpus_pages)
        print(summary(f"citelint capture + check, `{name}`", result), flush=True)
        if args.misses:
            for pid, _, _, sents in corpus_pages:
                for s, ok in zip(sents, result[pid]):
                    if not ok:
                        print(f"  miss {pid[:8]}: {s!r}")
    if args.libraries:
        for name, fn in _libraries().items():
            print(summary(name, by_library(fn, corpus_pages)), flush=True)


if __name__ == "__main__":
    main()
