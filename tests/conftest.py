"""Shared fixtures: a real example repository on disk and an in-process CLI runner."""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from citelint.cli import main
from citelint.store.captures import CaptureRecord, make_record
from citelint.store.writer import write_capture

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"

SOURCE_A = "https://example.org/a.txt"
SOURCE_B = "https://example.org/b.txt"
TEXT_A = "Synthetic source: 42 items, measured on 2026-07-01. Inventory held steady at 42 items."
TEXT_B = "Another source: 17 items were sold in the second quarter."


def corpus_path(*parts: str) -> Path:
    """Path in ../shared/corpus, skipping the test when the corpus is absent (a plain clone)."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared corpus not available at {path} (a plain clone has no ../shared)")
    return path


def markdown_documents() -> list[str]:
    """Every real Markdown text the tests have: :func:`real_documents`, the CommonMark and
    GFM spec examples and the golden cases' Markdown reports; skips without the corpus."""
    texts = real_documents()
    for spec in ("commonmark", "gfm"):
        texts += [example["markdown"] for example in json.loads(corpus_path(spec, "spec.json").read_text("utf-8"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(Path(__file__).parent.glob("cases/*/*/reports/*.md"))]
    return texts


def claim_fields(found: list) -> list[tuple]:
    """Every field of each prose quotation or number (:func:`citelint.links.prose.claims`),
    each citation with what it says and where: what two readings must agree on."""
    return [(*(v for k, v in zip(item._fields, item) if k != "citations"),
             tuple((c.href, c.category, c.cited, c.line, c.col, c.start, c.end) for c in item.citations))
            for item in found]


def real_documents() -> list[str]:
    """The README corpus, the article pages' text and the ExpertQA answers (their ``[n]``
    markers linked to their attributions' URLs), in a fixed order; skips without the corpus."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(corpus_path("markdown-readmes").glob("*.md"))]
    truth = json.loads(corpus_path("article-html", "ground-truth.json").read_text(encoding="utf-8"))
    texts += [truth[key]["articleBody"] for key in sorted(truth)]
    with corpus_path("expertqa", "rand_val.jsonl").open(encoding="utf-8") as f:
        for line in f:
            for answer in json.loads(line)["answers"].values():
                urls = dict(e.partition(" ")[::2] for e in answer.get("attribution") or [])
                text = answer.get("answer_string") or ""
                for n, url in urls.items():
                    text = text.replace(n, f"[{n}]({url.strip()})")
                texts.append(text)
    return texts


@dataclass
class Run:
    """Outcome of one in-process CLI run."""

    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def findings(self, rule: str | None = None) -> list[str]:
        """Canonical finding lines (``path:line:col: CLxxx ...``), optionally of one rule."""
        found = [ln for ln in self.lines if ": CL" in ln and not ln.startswith(" ")]
        return [ln for ln in found if rule is None or f": {rule} " in ln]


@dataclass
class Repo:
    """A temporary repository with citelint.yaml, captures/ and reports/."""

    root: Path
    records: dict[str, CaptureRecord] = field(default_factory=dict)

    def config(self, **overrides: Any) -> None:
        data: dict[str, Any] = {
            "sources": [SOURCE_A, SOURCE_B],
            "labels": {"inventory": {"unit": "items", "period": "2026"}, "sales": None},
        }
        data.update(overrides)
        (self.root / "citelint.yaml").write_text(json.dumps(data, indent=2), encoding="utf-8")

    def capture(self, source: str, text: str, when: str = "2026-07-01T00:00:00Z") -> CaptureRecord:
        record = make_record(source, text, retrieved_at=when)
        write_capture(self.root / "captures", record)
        self.records[source] = record
        return record

    def write(self, rel: str, content: str | bytes | dict[str, Any]) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            content = json.dumps(content, indent=2, ensure_ascii=False)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return path

    def cited(self, label: str = "inventory", source: str = SOURCE_A, snippet: str = "Synthetic source: 42 items",
              **extra: Any) -> dict[str, Any]:
        fact = {"state": "cited", "label": label, "source": source,
                "captureSha256": self.records[source].sha256 if source in self.records else "0" * 64,
                "snippet": snippet}
        fact.update(extra)
        return fact

    def report(self, *facts: dict[str, Any], name: str = "reports/r.json") -> Path:
        return self.write(name, {"facts": list(facts)})

    def check(self, *args: str) -> Run:
        return run_cli("check", *args, cwd=self.root)


def run_cli(*argv: str, cwd: Path | None = None) -> Run:
    """Run ``citelint argv`` in-process in ``cwd``; return code and output."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = main(list(argv), stdout=out, stderr=err)
    finally:
        os.chdir(old)
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A repository with config, captures of SOURCE_A and SOURCE_B, and no reports yet."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    r = Repo(tmp_path)
    r.config()
    r.capture(SOURCE_A, TEXT_A)
    r.capture(SOURCE_B, TEXT_B)
    return r
