"""Quotability of PDF captures on ../shared/corpus/pdf-real (issue 26), and capture speed.

For each document of the corpus, the share of its reference sentences
accepted as fact snippets, in two forms:

- **one line**, as a person writes a quotation: a line-end hyphen and the
  whitespace after it joined with no space, every other whitespace run one
  space (the corpus README's rule), and a ligature (U+FB00-U+FB06) typed as
  its letters;
- **lines**, the sentence with the line breaks the reference extractors gave it.

Columns: ``capture`` is what a user gets. Each document is captured by
``citelint capture --from-file ... --content-type application/pdf`` (the
default PDF extractor, in its bounded child process) into a temporary
project, both forms are cited as facts, ``citelint check --format json``
runs, and a sentence is accepted when its fact has no CL104 finding. The
other columns are computed outside citelint with the same test CL104
applies (the snippet is a substring of the text, code point for code
point): pypdf's plain ``extract_text``, pdfminer.six's ``extract_text``
(default layout parameters), PyMuPDF's ``get_text`` and poppler's
``pdftotext``, pages joined by a form feed; PyMuPDF and pdftotext only
when installed (a comparison, never a dependency: PyMuPDF is AGPL).

Speed: the capture extractor and citelint's ``pypdf`` extractor (pypdf's
plain ``extract_text``) are each run on every document in the child process
the capture stage uses, in the same run, alternating; pages per second and
the ratio. Then a generated 100-page, two-column PDF (fpdf2) is captured
with the default deadline (``capture.timeout_s``).

    python bench/pdf_bench.py [--corpus ../shared/corpus/pdf-real] [--repeats 3]
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from citelint.capture.extract import run_extractor  # noqa: E402
from citelint.settings import DEFAULT_EXTRACTORS, DEFAULT_TIMEOUT_S  # noqa: E402

PDF = "application/pdf"
CHUNK = 50
CAPTURE = dict(DEFAULT_EXTRACTORS)[PDF]
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "st", "\ufb06": "st"}
_HYPHEN_BREAK = re.compile(r"-[^\S\n]*\n\s*")
_RUN = re.compile(r"\s+")


def one_line(sentence: str) -> str:
    """``sentence`` as a person writes it on one line (module docstring)."""
    flat = _RUN.sub(" ", _HYPHEN_BREAK.sub("-", sentence))
    return "".join(LIGATURES.get(c, c) for c in flat)


def _pypdf(raw: bytes) -> str:
    import pypdf

    return "\f".join(p.extract_text(extraction_mode="plain") or "" for p in pypdf.PdfReader(io.BytesIO(raw)).pages)


def _pdfminer(raw: bytes) -> str:
    from pdfminer.high_level import extract_text

    return extract_text(io.BytesIO(raw))


def _pymupdf(raw: bytes) -> str:
    import pymupdf  # type: ignore[import-not-found]

    return "\f".join(page.get_text() for page in pymupdf.open(stream=raw, filetype="pdf"))


def _pdftotext(raw: bytes) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", "-", "-"], input=raw, capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def comparisons() -> dict[str, Callable[[bytes], str]]:
    """The comparison extractors installed here, by column name."""
    import importlib.util

    out: dict[str, Callable[[bytes], str]] = {"pypdf": _pypdf, "pdfminer.six": _pdfminer}
    if importlib.util.find_spec("pymupdf") is not None:
        out["PyMuPDF"] = _pymupdf
    if shutil.which("pdftotext"):
        out["pdftotext"] = _pdftotext
    return out


def citelint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "citelint", *args], cwd=cwd, capture_output=True, text=True)


def capture_column(name: str, raw: bytes, sentences: list[str], work: Path) -> tuple[list[bool], list[bool], str]:
    """Capture ``raw`` with citelint and check both forms of every sentence:
    (accepted on one line, accepted as lines, what capture said on stderr)."""
    root = work / name
    root.mkdir()
    source = f"https://example.org/{name}.pdf"
    (root / "citelint.yaml").write_text(json.dumps({"sources": [source], "labels": {"s-*": {}},
                                                    "reports": ["reports/*.json"]}), encoding="utf-8")
    (root / "doc.pdf").write_bytes(raw)
    done = citelint("capture", "--source", source, "--from-file", "doc.pdf", "--content-type", PDF,
                    "--retrieved-at", "2026-12-01T00:00:00Z", cwd=root)
    if done.returncode != 0:
        return [False] * len(sentences), [False] * len(sentences), (done.stdout + done.stderr).strip()
    sha = done.stdout.split(" revision ")[1].split()[0]
    forms = [one_line(s) for s in sentences] + sentences
    facts = [{"state": "cited", "label": f"s-{i}", "source": source, "captureSha256": sha, "snippet": s}
             for i, s in enumerate(forms)]
    (root / "reports").mkdir()
    # Reports of CHUNK facts, one fact a line (the first on line 3): check shows at most 100
    # findings of a rule per file, and a finding's file and line name its fact.
    for first in range(0, len(facts), CHUNK):
        lines = ",\n".join(json.dumps(f, ensure_ascii=False) for f in facts[first:first + CHUNK])
        (root / "reports" / f"r{first // CHUNK:04d}.json").write_text('{\n"facts": [\n' + lines + "\n]}\n",
                                                                      encoding="utf-8")
    check = citelint("check", "--format", "json", cwd=root)
    missed = {int(f["path"][-9:-5]) * CHUNK + f["line"] - 3 for f in json.loads(check.stdout)["findings"]
              if f["rule"] == "CL104"}
    ok = [i not in missed for i in range(len(forms))]
    return ok[:len(sentences)], ok[len(sentences):], done.stderr.strip()


def pct(ok: list[bool]) -> str:
    return f"{100 * sum(ok) / len(ok):5.1f}%" if ok else "    -"


def speed(docs: list[tuple[str, bytes, int]], repeats: int) -> None:
    """Pages per second of the capture extractor and of citelint's pypdf extractor, alternating."""
    times = {CAPTURE: 0.0, "pypdf": 0.0}
    pages = sum(n for _, _, n in docs) * repeats
    for _ in range(repeats):
        for name, raw, _n in docs:
            for extractor in (CAPTURE, "pypdf"):
                start = time.perf_counter()
                try:
                    run_extractor(extractor, raw, PDF, deadline_s=DEFAULT_TIMEOUT_S)
                except Exception as exc:  # noqa: BLE001 - a refusal still took its time
                    print(f"  {extractor} on {name}: {exc}")
                times[extractor] += time.perf_counter() - start
    rate = {k: pages / v for k, v in times.items()}
    print(f"\nspeed, {pages} pages ({repeats} rounds, child process included): {CAPTURE} {rate[CAPTURE]:.1f} pages/s, "
          f"pypdf plain {rate['pypdf']:.1f} pages/s; ratio {rate[CAPTURE] / rate['pypdf']:.2f}")


def hundred_pages() -> bytes:
    """A 100-page A4 PDF, two full columns of 9-point text on each page (about
    5,000 characters a page, as a dense two-column paper; fpdf2, core font)."""
    import random

    from fpdf import FPDF

    rng = random.Random(26)
    words = ["revenue", "rose", "fell", "quarter", "report", "statement", "annual", "figures", "growth",
             "office", "staff", "cost", "market", "share", "price", "value", "budget", "audit", "review"]
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=9)
    pdf.set_auto_page_break(False)  # each column fills its page: 100 pages, not more
    for _ in range(100):
        pdf.add_page()
        for x in (15, 110):
            pdf.set_xy(x, 20)
            text = " ".join(rng.choice(words) for _ in range(390)) + "."
            pdf.multi_cell(85, 4, text)
    assert pdf.pages_count == 100
    return bytes(pdf.output())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdf-real")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the speed measure (default 3)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    others = comparisons()
    columns = ["capture", *others]
    totals: dict[str, tuple[list[bool], list[bool]]] = {c: ([], []) for c in columns}
    docs = []
    print(f"capture = citelint capture with the default PDF extractor ({CAPTURE}); each cell: one line / lines")
    print(f"{'document':42s} {'pages':>5s} {'refs':>5s}  " + "  ".join(f"{c:>15s}" for c in columns))
    notes = []
    with tempfile.TemporaryDirectory(prefix="citelint-pdf-bench-") as tmp:
        for folder in sorted(p for p in args.corpus.iterdir() if (p / "document.pdf").is_file()):
            raw = (folder / "document.pdf").read_bytes()
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            sentences = [s["text"] for s in json.loads((folder / "sentences.json").read_text(encoding="utf-8"))
                         ["sentences"]]
            docs.append((folder.name, raw, int(meta.get("pages") or 0)))
            cells = {}
            one, lines, said = capture_column(folder.name, raw, sentences, Path(tmp))
            cells["capture"] = (one, lines)
            if said:
                notes.append(f"{folder.name}: {said}")
            for column, extract in others.items():
                try:
                    text = extract(raw)
                except Exception as exc:  # noqa: BLE001 - a comparison extractor failing is a row of zeros
                    notes.append(f"{folder.name}: {column} failed: {exc}")
                    text = ""
                cells[column] = ([one_line(s) in text for s in sentences], [s in text for s in sentences])
            for column in columns:
                totals[column][0].extend(cells[column][0])
                totals[column][1].extend(cells[column][1])
            print(f"{folder.name:42s} {meta.get('pages', '?'):>5} {len(sentences):>5d}  "
                  + "  ".join(f"{pct(cells[c][0])} / {pct(cells[c][1])}" for c in columns), flush=True)
    print(f"{'overall':42s} {sum(n for *_, n in docs):>5d} {len(totals['capture'][0]):>5d}  "
          + "  ".join(f"{pct(totals[c][0])} / {pct(totals[c][1])}" for c in columns))
    for note in notes:
        print(f"  note: {note}")
    speed(docs, args.repeats)
    raw = hundred_pages()
    import resource

    for extractor in (CAPTURE, "pypdf"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            done = run_extractor(extractor, raw, PDF, deadline_s=DEFAULT_TIMEOUT_S)
            what = f"{len(done.text)} characters"
        except Exception as exc:  # noqa: BLE001 - the deadline passing is the measurement
            what = f"refused: {exc}"
        took = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        print(f"100-page two-column PDF ({len(raw)} bytes): {extractor} in {took:.1f} s ({cpu:.1f} s of CPU), "
              f"{what} (default deadline {DEFAULT_TIMEOUT_S:g} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
