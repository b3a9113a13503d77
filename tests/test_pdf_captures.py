"""PDF captures end to end: real PDFs made at test time, the real CLI.

The PDFs are drawn with fpdf2 (a real generator, a TrueType font embedded
with its ToUnicode map) or, for the decompression bomb, written by hand in
raw PDF syntax. Each test runs ``citelint capture`` and ``citelint check``
in-process in a temporary project, and the extractor (``pdf-text``, the
default, or ``pypdf``, which earlier captures name) runs as the capture
stage runs it: in its bounded child process. Nothing is mocked except the
module lookup that says an extractor's library is installed.

The document carries the artefacts a PDF's text layer really has: a
ligature character (U+FB01) drawn as one glyph, a word hyphenated at a line
break, two columns, Cyrillic, and page breaks (a form feed in the capture).
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import time
import zlib
from importlib.metadata import version
from pathlib import Path

import pytest

from citelint.capture.extract import EXTRACT_MEMORY_BYTES, extract_here, missing_install
from citelint.store.captures import Store, raw_path, sha256_hex, source_dir
from conftest import Run, corpus_path, run_cli

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
SOURCE = "https://example.org/annual-report.pdf"
STAMP = "2026-07-01T00:00:00Z"
PDF = "application/pdf"
PAGES = 3
LABELS = [f"quote-{i}" for i in range(1, 9)]

LIGATURE_LINE = "The \ufb01nancial statements were audited in March."
HYPHENATED = ("Careful text extrac-", "tion needs a named extractor.")
CYRILLIC = "Пример текста на русском языке."
PAGE_ONE_END = "Page one ends with this closing sentence."
PAGE_TWO_START = "Page two opens with a second sentence."
LEFT_COLUMN = ("Revenue rose 12% in the year.", "Staff grew to 40 people.", "Exports doubled.")
RIGHT_COLUMN = ("Costs fell 3% overall.", "Debt was repaid early.", "Imports held steady.")
PAGE_THREE = "The third page reports seven new offices."


# --------------------------------------------------------------------------- documents

def report_pdf() -> bytes:
    """Three A4 pages drawn line by line at explicit positions: page 1 the
    ligature, the hyphenated break and Cyrillic; page 2 two columns (the left
    drawn first, then the right at x = 110 mm on the same baselines); page 3
    one sentence."""
    if not FONT.is_file():
        pytest.skip(f"the DejaVu Sans font is not installed at {FONT} (fonts-dejavu-core)")
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    pdf.add_font("DejaVu", fname=str(FONT))
    pdf.set_font("DejaVu", size=11)
    pdf.add_page()
    pdf.text(20, 30, LIGATURE_LINE)
    pdf.text(20, 40, HYPHENATED[0])
    pdf.text(20, 46, HYPHENATED[1])
    pdf.text(20, 60, CYRILLIC)
    pdf.text(20, 280, PAGE_ONE_END)
    pdf.add_page()
    pdf.text(20, 30, PAGE_TWO_START)
    for x, column in ((20, LEFT_COLUMN), (110, RIGHT_COLUMN)):
        for i, line in enumerate(column):
            pdf.text(x, 50 + 6 * i, line)
    pdf.add_page()
    pdf.text(20, 30, PAGE_THREE)
    assert pdf.pages_count == PAGES
    return bytes(pdf.output())


HELVETICA = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(content: bytes, *, filters: bytes = b"", font: bytes = HELVETICA) -> bytes:
    """A one-page PDF in raw syntax, ``font`` (Helvetica) as font /F1, ``content`` its
    content stream (already encoded by ``filters``), with a correct xref."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d %s>>\nstream\n%s\nendstream" % (len(content), filters, content),
        font,
    ]
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


BOMB_INFLATED = 400 * 1024 * 1024


def flate_bomb_pdf() -> bytes:
    """A valid one-page PDF whose content stream, a text operator and then
    400 MiB of spaces, is FlateDecode'd to about 400 KB. It has a font, so
    an extractor must inflate it to look for text."""
    deflate = zlib.compressobj(9)
    parts = [deflate.compress(b"BT /F1 12 Tf 72 720 Td (Nothing but spaces follow.) Tj ET\n")]
    chunk = b" " * (1 << 20)
    parts += [deflate.compress(chunk) for _ in range(BOMB_INFLATED // len(chunk))]
    parts.append(deflate.flush())
    return raw_pdf(b"".join(parts), filters=b"/Filter /FlateDecode ")


@pytest.fixture(scope="module")
def pdf_bytes() -> bytes:
    return report_pdf()


# --------------------------------------------------------------------------- projects

@pytest.fixture(autouse=True)
def _not_in_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


PYPDF = {"extractors": {PDF: "pypdf"}}


def make_project(root: Path, **capture) -> Path:
    """A citelint.yaml (JSON is YAML) approving SOURCE and LABELS."""
    root.mkdir(parents=True, exist_ok=True)
    data = {"sources": [SOURCE], "reports": ["reports/*.json"], "labels": LABELS}
    if capture:
        data["capture"] = capture
    (root / "citelint.yaml").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return root


def capture_pdf(root: Path, data: bytes, name: str = "held.pdf") -> Run:
    held = root / name
    held.write_bytes(data)
    return run_cli("capture", "--source", SOURCE, "--from-file", str(held), "--content-type", PDF,
                   "--retrieved-at", STAMP, cwd=root)


def captured_sha(run: Run) -> str:
    assert run.code == 0 and run.lines[0].startswith(f"captured: {SOURCE} revision "), run.out + run.err
    return run.lines[0].split(" revision ")[1].split()[0]


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def check_json(root: Path, sha: str, *snippets: str) -> tuple[int, dict]:
    facts = [{"state": "cited", "label": label, "source": SOURCE, "captureSha256": sha, "snippet": snippet}
             for label, snippet in zip(LABELS[:len(snippets)], snippets, strict=True)]
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "r.json").write_text(json.dumps({"facts": facts}, ensure_ascii=False, indent=2),
                                             encoding="utf-8")
    run = run_cli("check", "--format", "json", cwd=root)
    assert run.code in (0, 1), run.out + run.err
    return run.code, json.loads(run.out)


@pytest.fixture(scope="module", params=["pdf-text", "pypdf"])
def captured(request: pytest.FixtureRequest, pdf_bytes: bytes,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """One project with the report PDF captured by each extractor: (root, revision sha256, extractor)."""
    root = make_project(tmp_path_factory.mktemp("pdf-project"), **(PYPDF if request.param == "pypdf" else {}))
    old = os.environ.pop("GITHUB_ACTIONS", None)
    try:
        sha = captured_sha(capture_pdf(root, pdf_bytes))
    finally:
        if old is not None:
            os.environ["GITHUB_ACTIONS"] = old
    return root, sha, request.param


# --------------------------------------------------------------------------- capture

def test_a_pdf_capture_is_a_v2_record_with_its_raw_body(pdf_bytes, captured):
    root, sha, name = captured
    captures = root / "captures"
    pdf_sha = hashlib.sha256(pdf_bytes).hexdigest()
    raw = raw_path(captures, SOURCE, pdf_sha)
    record_file = source_dir(captures, SOURCE) / f"{sha}.json"
    assert files_under(captures) == sorted([raw, record_file])
    assert raw.name == f"{pdf_sha}.raw" and raw.read_bytes() == pdf_bytes

    doc = json.loads(record_file.read_text(encoding="ascii"))
    assert doc["format"] == "citelint.capture/2"
    if name == "pypdf":
        assert doc["extractor"] == {"name": "pypdf", "version": version("pypdf"),
                                    "options": {"extractionMode": "plain", "pageSeparator": "\f"}}
    else:
        assert (doc["extractor"]["name"], doc["extractor"]["version"]) == ("pdf-text", version("pdfminer.six"))
    assert (doc["rawSha256"], doc["bytes"], doc["contentType"], doc["retrievedAt"]) == \
        (pdf_sha, len(pdf_bytes), PDF, STAMP)
    assert doc["sha256"] == sha == sha256_hex(doc["text"])
    from jsonschema import Draft202012Validator

    from citelint.reports.schema import load_schema

    Draft202012Validator(load_schema("capture.schema.json")).validate(doc)

    text = doc["text"]
    assert text.count("\f") == PAGES - 1
    pages = text.split("\f")
    assert pages[2] == PAGE_THREE
    assert Store(captures).lookup(SOURCE, sha).text == text
    if name == "pypdf":  # every layout line break kept, the ligature glyph as drawn
        assert LIGATURE_LINE in pages[0] and CYRILLIC in pages[0] and "\n".join(HYPHENATED) in pages[0]
        assert all(line in pages[1] for line in LEFT_COLUMN + RIGHT_COLUMN)
        return
    # pdf-text: as a reader quotes it. The ligature as letters, the hyphenated
    # lines one paragraph with the hyphen kept, each column a paragraph, read
    # left column first; the page map and the verdicts recorded.
    assert pages[0].split("\n") == [LIGATURE_LINE.replace("\ufb01", "fi"), "Careful text extrac-tion needs a named "
                                    "extractor.", CYRILLIC, PAGE_ONE_END]
    assert pages[1].split("\n") == [PAGE_TWO_START, " ".join(LEFT_COLUMN), " ".join(RIGHT_COLUMN)]
    starts = [0, len(pages[0]) + 1, len(pages[0]) + len(pages[1]) + 2]
    assert doc["extractor"]["options"]["pages"] == [{"start": at, "label": None, "verdict": "usable"}
                                                    for at in starts]


def test_quotes_from_the_extracted_text_are_accepted(captured):
    root, sha, name = captured
    if name == "pypdf":
        quotes = (LIGATURE_LINE, "\n".join(HYPHENATED))
    else:  # on one line, as a reader writes them
        quotes = ("The financial statements were audited in March.",
                  "Careful text extrac-tion needs a named extractor.")
    code, doc = check_json(root, sha, CYRILLIC, LEFT_COLUMN[0], RIGHT_COLUMN[1], PAGE_THREE,
                           *quotes, f"{PAGE_ONE_END}\f{PAGE_TWO_START}")
    assert code == 0 and doc["findings"] == [], doc["findings"]
    assert doc["counts"]["factsCited"] == 7


@pytest.mark.parametrize("snippet, words", [
    # Plain "fi" where the PDF draws the U+FB01 ligature glyph (pdf-text writes the letters).
    ("The financial statements were audited", ("ligature",)),
    # The word joined where the page breaks it as "extrac-" / "tion".
    ("Careful text extraction needs a named extractor.", ("hyphen",)),
    # A space where the capture separates pages with a form feed.
    (f"{PAGE_ONE_END} {PAGE_TWO_START}", ("form feed",)),
], ids=["ligature", "hyphenation", "page-break"])
def test_quotes_missing_an_extraction_artefact_are_refused_with_a_hint(captured, snippet, words):
    root, sha, name = captured
    if name == "pdf-text" and "ligature" in words:
        # pdf-text writes the letters (the plain quote is accepted above): the glyph is the near miss.
        snippet = snippet.replace("fi", "\ufb01")
    code, doc = check_json(root, sha, snippet)
    assert code == 1
    assert [f["rule"] for f in doc["findings"]] == ["CL104"], doc["findings"]
    finding = doc["findings"][0]
    assert (finding["path"], finding["severity"]) == ("reports/r.json", "error")
    made_by = f"pypdf {version('pypdf')}" if name == "pypdf" else f"pdf-text {version('pdfminer.six')}"
    assert f"extractor {made_by}" in finding["message"], finding["message"]
    for word in words:
        assert word in finding["message"], finding["message"]


def test_the_same_pdf_captures_to_identical_bytes(pdf_bytes, tmp_path):
    stores = []
    for name in ("one", "two"):
        root = make_project(tmp_path / name)
        captured_sha(capture_pdf(root, pdf_bytes))
        captures = root / "captures"
        stores.append({p.relative_to(captures): p.read_bytes() for p in files_under(captures)})
    assert stores[0] == stores[1] and len(stores[0]) == 2

    # The child process and this process extract the same text.
    here = [extract_here("pdf-text", pdf_bytes, PDF) for _ in range(2)]
    record = next(json.loads(data) for path, data in stores[0].items() if path.suffix == ".json")
    assert here[0] == here[1]
    assert here[0].text == record["text"]
    assert here[0].extractor.to_obj() == record["extractor"]


def test_a_decompression_bomb_is_refused_by_pdf_text_within_the_deadline(tmp_path):
    # pdfminer.six inflates a stream whole: pdf-text inflates each at most
    # 64 MiB first, and refuses the document past that.
    root = make_project(tmp_path / "project", timeout_s=5)
    held = root / "bomb.pdf"
    held.write_bytes(flate_bomb_pdf())
    start = time.monotonic()
    run = run_cli("capture", "--source", SOURCE, "--from-file", str(held), "--content-type", PDF, cwd=root)
    assert time.monotonic() - start < 20
    assert run.code == 1 and run.lines[0].startswith(f"refused: {SOURCE}: the PDF is over a safety limit, as a "
                                                     "decompression bomb is (object 4 inflates to more than "), run.out
    assert "Traceback" not in run.out + run.err
    assert files_under(root / "captures") == []


def test_a_decompression_bomb_is_refused_in_bounded_time_and_memory(tmp_path):
    root = make_project(tmp_path / "project", timeout_s=5, **PYPDF)
    bomb = flate_bomb_pdf()
    assert len(bomb) < 1_000_000
    held = root / "bomb.pdf"
    held.write_bytes(bomb)

    start = time.monotonic()
    run = run_cli("capture", "--source", SOURCE, "--from-file", str(held), "--content-type", PDF, cwd=root)
    elapsed = time.monotonic() - start
    assert elapsed < 20, elapsed
    assert run.code == 1 and run.lines[0].startswith(f"refused: {SOURCE}: "), run.out + run.err
    assert "the PDF is over a pypdf safety limit, as a decompression bomb is (" in run.lines[0], run.out
    assert "Traceback" not in run.out + run.err
    # Raw bodies are written only after a successful extraction: nothing at all.
    assert files_under(root / "captures") == []

    # In-process too, the bomb is a refusal (ValueError), not a crash.
    with pytest.raises(ValueError, match="decompression bomb"):
        extract_here("pypdf", bomb, PDF)

    # The child, run as the capture stage runs it, never inflates the 400 MiB:
    # its peak resident size is measured for that one process (wait4). It is
    # started by a small launcher, not by this test process: a forked child's
    # peak counts the parent's resident pages it copied before exec, and after
    # a few thousand tests pytest alone is over 400 MiB.
    launcher = ("import json, os, subprocess, sys\n"
                "with open(sys.argv[1], 'rb') as stdin:\n"
                "    child = subprocess.Popen([sys.executable, '-P', '-m', 'citelint.capture.extract', 'pypdf', "
                f"{PDF!r}], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                "    _, status, usage = os.wait4(child.pid, 0)\n"
                "print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss]))\n")
    out = subprocess.run([sys.executable, "-c", launcher, str(held)], cwd=tmp_path, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    code, maxrss = json.loads(out)
    peak = maxrss * (1 if sys.platform == "darwin" else 1024)
    assert code != 0
    assert peak < BOMB_INFLATED < EXTRACT_MEMORY_BYTES, peak


@pytest.mark.parametrize("body", [
    random.Random(0).randbytes(64 * 1024),
    b"%PDF-1.7\n" + random.Random(1).randbytes(64 * 1024),
], ids=["random-bytes", "pdf-header-then-random"])
def test_a_body_that_is_not_a_pdf_is_refused(tmp_path, body):
    root = make_project(tmp_path)
    run = capture_pdf(root, body, "garbage.pdf")
    assert run.code == 1, run.out + run.err
    assert len(run.lines) == 1 and run.lines[0].startswith(f"refused: {SOURCE}: the PDF cannot be read ("), run.out
    assert "Traceback" not in run.out + run.err
    assert files_under(root / "captures") == []


def test_verify_extraction_reproduces_then_notices_an_altered_raw_body(pdf_bytes, tmp_path):
    # A pypdf capture, as earlier releases made by default, stays valid and
    # reproducible beside pdf-text.
    root = make_project(tmp_path, **PYPDF)
    sha = captured_sha(capture_pdf(root, pdf_bytes))
    make_project(tmp_path)
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 0, run.out + run.err
    assert run.lines == [f"reproduced: {SOURCE} revision {sha}: by pypdf {version('pypdf')}",
                         "1 capture(s): 1 reproduced"]

    raw = raw_path(root / "captures", SOURCE, hashlib.sha256(pdf_bytes).hexdigest())
    with raw.open("ab") as f:
        f.write(b"\n")
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 1, run.out + run.err
    assert run.lines[0].startswith(f"differs: {SOURCE} revision {sha}: the raw body {raw.name} ")
    assert "altered" in run.lines[0] and run.lines[1] == "1 capture(s): 1 differs"


def test_verify_extraction_compares_the_page_map(pdf_bytes, tmp_path):
    root = make_project(tmp_path)
    sha = captured_sha(capture_pdf(root, pdf_bytes))
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 0, run.out + run.err
    assert run.lines == [f"reproduced: {SOURCE} revision {sha}: by pdf-text {version('pdfminer.six')}",
                         "1 capture(s): 1 reproduced"]

    # The page map is an output check relies on: a record whose map was
    # edited (its text and digest untouched) does not reproduce.
    record_file = source_dir(root / "captures", SOURCE) / f"{sha}.json"
    doc = json.loads(record_file.read_text(encoding="ascii"))
    doc["extractor"]["options"]["pages"][1]["label"] = "ii"
    record_file.chmod(0o644)
    record_file.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="ascii")
    run = run_cli("capture", "--verify-extraction", cwd=root)
    assert run.code == 1, run.out + run.err
    assert run.lines[0].startswith(f"differs: {SOURCE} revision {sha}: same text, but the page map differs "
                                   "at page 2 (recorded 3 pages, re-run 3)"), run.out


@pytest.mark.parametrize("extractor, module", [("pdf-text", "pdfminer"), ("pypdf", "pypdf")])
def test_without_its_library_capture_refuses_with_the_install_command(pdf_bytes, tmp_path, monkeypatch,
                                                                      extractor, module):
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name.split(".")[0] == module else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert "pip install 'citelint-provenance[pdf]'" in missing_install(extractor)
    assert missing_install("identity") is None

    root = make_project(tmp_path, **(PYPDF if extractor == "pypdf" else {}))
    run = capture_pdf(root, pdf_bytes)
    assert run.code == 1, run.out + run.err
    assert run.lines[0].startswith(f"refused: {SOURCE}: the {extractor} extractor is not installed")
    assert "pip install 'citelint-provenance[pdf]'" in run.lines[0]
    assert files_under(root / "captures") == []


@pytest.mark.parametrize("pages, words", [
    (0, "found no text"),
    (1, "encrypted with a password"),
], ids=["no-text-layer", "password"])
def test_pdfs_with_nothing_to_cite_are_refused(tmp_path, pages, words):
    fpdf = pytest.importorskip("fpdf")
    doc = fpdf.FPDF()
    doc.add_page()
    if pages:
        doc.set_font("Helvetica", size=12)
        doc.cell(text="Behind a password: revenue rose 12% in the quarter.")
        doc.set_encryption(owner_password="owner", user_password="secret")
    else:
        doc.rect(10, 10, 50, 50)  # a page with drawing and no text, like a scan without a text layer
    root = make_project(tmp_path)
    run = capture_pdf(root, bytes(doc.output()))
    assert run.code == 1 and run.lines[0].startswith(f"refused: {SOURCE}: ") and words in run.out, run.out + run.err
    assert "Traceback" not in run.out + run.err
    assert files_under(root / "captures") == []


# --------------------------------------------------------------------------- page-located quotations

def test_page_located_quotations_are_verified_on_their_pages(pdf_bytes, tmp_path):
    from citelint.links.directive import format_text_directive

    root = make_project(tmp_path)
    config = json.loads((root / "citelint.yaml").read_text(encoding="utf-8"))
    (root / "citelint.yaml").write_text(json.dumps({**config, "markdown": ["reports/*.md"]}), encoding="utf-8")
    sha = captured_sha(capture_pdf(root, pdf_bytes))
    quotes = [
        ("Revenue rose 12% in the year. Staff grew to 40 people.", f"capture:{sha} pages:2"),
        (PAGE_TWO_START, f"capture:{sha} pages:1-2"),
        (PAGE_THREE, f"capture:{sha} pages:1"),  # on page 3
        (PAGE_THREE, f"capture:{sha} pages:3-4"),  # the capture has 3 pages
        ("Costs fell 3% overall in every office.", f"capture:{sha} pages:2"),  # nowhere
        (PAGE_THREE, "pages:3"),  # no revision named: the newest, on page 3
        (PAGE_THREE, f"capture:{sha} pages:0"),  # no such page number
    ]
    (root / "reports").mkdir()
    (root / "reports" / "r.md").write_text("".join(
        f"Quote [{i}]({SOURCE}#{format_text_directive(text)} \"{title}\").\n\n"
        for i, (text, title) in enumerate(quotes, start=1)), encoding="utf-8")
    run = run_cli("check", "--format", "json", cwd=root)
    findings = {f["line"]: f for f in json.loads(run.out)["findings"]}
    assert sorted(findings) == [5, 7, 9, 13], run.out
    assert [findings[line]["rule"] for line in (5, 7, 9, 13)] == ["CL204", "CL204", "CL204", "CL202"]
    assert "quotation not found on page 1 of capture " in findings[5]["message"]
    assert "it is on page 3;" in findings[5]["message"], findings[5]["message"]
    assert "the link title names pages 3-4, but capture " in findings[7]["message"]
    assert "has 3 pages" in findings[7]["message"]
    assert "quotation not found on page 2 of capture " in findings[9]["message"], findings[9]["message"]
    assert "names no pages: write pages:3 or pages:3-4" in findings[13]["message"]
    assert run.code == 1


# --------------------------------------------------------------------------- real text layers (the corpus)

def corpus_pdf(name: str) -> tuple[bytes, list[dict]]:
    folder = corpus_path("pdf-real", name)
    return ((folder / "document.pdf").read_bytes(),
            json.loads((folder / "sentences.json").read_text(encoding="utf-8"))["sentences"])


def one_line(sentence: str) -> str:
    """A reference sentence as a reader writes it: the corpus README's rule."""
    return re.sub(r"\s+", " ", re.sub(r"-[^\S\n]*\n\s*", "-", sentence))


@pytest.mark.parametrize("name", ["pdfminer--kampo", "pdfminer--nlp2004slides"])
def test_cjk_text_layers_pypdf_garbles_are_read_by_pdf_text(tmp_path, name):
    """A vertical Japanese gazette and Japanese slides: pypdf maps their glyphs to
    characters of a dozen unrelated scripts, which capture calls garbled (the
    gazette's one page: refused); pdf-text reads them, and a reader's quote is accepted."""
    raw, sentences = corpus_pdf(name)
    old = make_project(tmp_path / "pypdf", **PYPDF)
    run = capture_pdf(old, raw)
    if name == "pdfminer--kampo":
        assert run.code == 1 and run.lines == [
            f"refused: {SOURCE}: the pypdf extractor found no text to cite: the page's text layer is garbled; a "
            "garbled text layer maps glyphs to the wrong characters; the pdf-text extractor may read it"], run.out
        assert files_under(old / "captures") == []
    else:
        assert run.code == 0, run.out + run.err
        warning = run.err.strip()
        assert warning.startswith(f"citelint: warning: {SOURCE}: pages 1 (garbled), 2 (garbled), "), warning
        assert warning.endswith("have no usable text layer: they need OCR, which citelint does not do; nothing "
                                "on them can be cited"), warning

    root = make_project(tmp_path / "pdf-text")
    run = capture_pdf(root, raw)
    sha = captured_sha(run)
    assert run.err == ""  # every page usable: no warning
    text = Store(root / "captures").lookup(SOURCE, sha).text
    quotes = [one_line(s["text"]) for s in sentences]
    found = [q for q in quotes if q in text]
    assert len(found) >= 0.9 * len(quotes), (len(found), len(quotes))
    quotes = found[:len(LABELS)]
    code, doc = check_json(root, sha, *quotes)
    assert code == 0 and doc["counts"]["factsCited"] == len(quotes), [f["message"] for f in doc["findings"]]


def test_a_page_without_text_is_reported_and_a_document_without_any_refused(tmp_path):
    fpdf = pytest.importorskip("fpdf")
    doc = fpdf.FPDF()
    doc.set_font("Helvetica", size=12)
    doc.add_page()
    doc.cell(text="The first page holds the only sentence with a text layer.")
    doc.add_page()
    doc.rect(10, 10, 50, 50)  # drawn, no text: a scanned page
    root = make_project(tmp_path / "mixed")
    run = capture_pdf(root, bytes(doc.output()))
    sha = captured_sha(run)
    assert run.err == (f"citelint: warning: {SOURCE}: page 2 (no text) has no usable text layer: it needs OCR, "
                       "which citelint does not do; nothing on them can be cited\n")
    record = Store(root / "captures").lookup(SOURCE, sha)
    assert record.extractor is not None
    assert [p["verdict"] for p in record.extractor.options["pages"]] == ["usable", "no text"]

    blank = fpdf.FPDF()
    for _ in range(2):
        blank.add_page()
        blank.rect(10, 10, 50, 50)
    root = make_project(tmp_path / "blank")
    run = capture_pdf(root, bytes(blank.output()))
    assert run.code == 1 and run.lines == [
        f"refused: {SOURCE}: the pdf-text extractor found no text to cite: none of its 2 pages has a usable "
        "text layer (2 without text, 0 garbled); a scanned PDF needs OCR, which citelint does not do"], run.out
    assert files_under(root / "captures") == []


def test_a_font_with_no_unicode_map_is_garbled_not_captured(tmp_path):
    """A composite font (Identity-H) with no ToUnicode map: no glyph maps to a
    character (pdfminer's ``(cid:N)``), which pdf-text writes as U+FFFD."""
    font = (b"<< /Type /Font /Subtype /Type0 /BaseFont /Hidden /Encoding /Identity-H /DescendantFonts "
            b"[<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Hidden /CIDSystemInfo << /Registry (Adobe) "
            b"/Ordering (Identity) /Supplement 0 >> /DW 500 >> ] >>")
    content = b"BT /F1 12 Tf 72 720 Td <0012003400560078009a00bc00de> Tj ET"
    pdf = raw_pdf(content, font=font)
    root = make_project(tmp_path)
    run = capture_pdf(root, pdf)
    assert run.code == 1 and run.lines == [
        f"refused: {SOURCE}: the pdf-text extractor found no text to cite: the page's text layer is garbled; a "
        "garbled text layer maps glyphs to the wrong characters, and OCR is not citelint's business"], run.out
    assert files_under(root / "captures") == []
