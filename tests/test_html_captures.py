"""HTML captures (issue 11): record v2, the html-text extractor run in a
bounded child process, WHATWG decoding, raw bodies kept append-only, and
``--verify-extraction``. Real pages, a real local HTTPS server, real git.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citelint.capture import CaptureSettings, capture_one, record_text
from citelint.capture.extract import ExtractionFailed, extract_here, missing_install, run_extractor
from citelint.store.captures import Store, raw_path, sha256_hex, source_dir
from conftest import SOURCE_A, Repo, corpus_path, run_cli
from gitrepo import commit_all, git, init_repo
from servers import response
from test_fetch import ca, ca_file, files_under, serve  # noqa: F401  (fixtures)

HTML_SOURCE = "https://example.org/report.html"
PAGE = ("<!doctype html><html><head><title>Quarterly report</title><style>p{color:red}</style>"
        "<script>var hidden = 'script text';</script></head><body>"
        "<h1>Third quarter</h1>"
        "<p>Revenue rose&nbsp;12%\n   to 4.1 million in the <b>third</b> quarter.</p>"
        "<p hidden>This paragraph is hidden and never rendered.</p>"
        "<div style=\"display: none\">Display none text.</div>"
        "<template><p>Template text.</p></template><noscript>Enable scripts.</noscript>"
        "<p>The co&shy;operative grew by 3 stores.</p>"
        "</body></html>")


def html_project(repo: Repo, **capture: object) -> None:
    repo.config(sources=[SOURCE_A, HTML_SOURCE], capture=capture or {"timeout_s": 20})


def capture_page(repo: Repo, page: bytes | str, content_type: str = "text/html") -> tuple[int, str]:
    path = repo.write("page.html", page)
    run = run_cli("capture", "--source", HTML_SOURCE, "--from-file", str(path), "--content-type", content_type,
                  "--retrieved-at", "2026-07-01T00:00:00Z", cwd=repo.root)
    sha = run.out.split(" revision ")[1].split()[0] if " revision " in run.out else ""
    return run.code, sha if run.code == 0 else run.out + run.err


def record_of(repo: Repo, sha: str):
    return Store(repo.root / "captures").lookup(HTML_SOURCE, sha)


# --------------------------------------------------------------------------- the extractor

def test_html_capture_is_a_v2_record_with_its_raw_body(repo: Repo) -> None:
    html_project(repo)
    code, sha = capture_page(repo, PAGE)
    assert code == 0, sha
    rec = record_of(repo, sha)
    assert rec.format == "citelint.capture/2" and rec.extractor.name == "html-text"
    assert rec.extractor.options["encoding"] == "utf-8"
    raw = raw_path(repo.root / "captures", HTML_SOURCE, rec.raw_sha256)
    assert raw.read_bytes() == PAGE.encode() and rec.raw_sha256 == sha256_hex(PAGE.encode())
    text = rec.text
    assert "Revenue rose 12% to 4.1 million in the third quarter." in text  # nbsp copied as a space, runs collapsed
    assert "co\u00adoperative" in text  # a soft hyphen as the browser copies it
    for hidden in ("hidden and never", "Display none", "Template text", "Enable scripts", "script text", "color:red"):
        assert hidden not in text
    assert run_cli("ls", cwd=repo.root).out.count("html-text") == 1
    shown = run_cli("show", HTML_SOURCE, cwd=repo.root).out
    assert f"extractor:   html-text {rec.extractor.version}\nrawSha256:   {rec.raw_sha256}\n" in shown
    assert rec.extractor.options["w3lib"] and rec.extractor.options["libxml2"]


def test_keep_raw_false_writes_no_raw_file(repo: Repo) -> None:
    html_project(repo, keep_raw=False, timeout_s=20)
    code, sha = capture_page(repo, PAGE)
    assert code == 0, sha
    assert not list((repo.root / "captures").rglob("*.raw"))
    assert "raw not kept" in run_cli("ls", cwd=repo.root).out


@pytest.mark.parametrize("page, content_type, expected, encoding", [
    ("<meta charset=windows-1252><p>caf\xe9 cr\xe8me</p>".encode("cp1252"), "text/html", "café crème", "cp1252"),
    ("<p>caf\xe9 cr\xe8me</p>".encode("cp1252"), "text/html; charset=iso-8859-1", "café crème", "cp1252"),
    ("<meta charset=iso-8859-1><p>café crème</p>".encode(), "text/html; charset=utf-8", "café crème",
     "utf-8"),
    (b"\xef\xbb\xbf<meta charset=windows-1252><p>caf\xc3\xa9 cr\xc3\xa8me</p>", "text/html; charset=iso-8859-1",
     "café crème", "utf-8"),
    ("<p>caf\xe9 cr\xe8me</p>".encode("cp1252"), "text/html", "café crème", "cp1252"),
    ("<p>café crème</p>".encode(), "text/html", "café crème", "utf-8"),
    # A UTF-16 label in <meta> means UTF-8 (the prescan found it in ASCII bytes).
    ('<meta charset="utf-16"><p>café crème</p>'.encode(), "text/html", "café crème", "utf-8"),
    # The label utf-16 means UTF-16LE.
    ("<p>café crème</p>".encode("utf-16-le"), "text/html; charset=utf-16", "café crème", "utf-16-le"),
])
def test_html_is_decoded_as_browsers_decode_it(repo: Repo, page: bytes, content_type: str, expected: str,
                                               encoding: str) -> None:
    """WHATWG order: BOM, then the HTTP charset, then <meta charset>, then UTF-8 if valid, else windows-1252."""
    html_project(repo)
    code, sha = capture_page(repo, page, content_type)
    assert code == 0, sha
    rec = record_of(repo, sha)
    assert expected in rec.text and rec.extractor.options["encoding"] == encoding


def test_extraction_is_deterministic_in_and_across_processes(repo: Repo,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    page = gzip.decompress(next(corpus_path("article-html", "html").glob("*.html.gz")).read_bytes())
    once = extract_here("html-text", page, "text/html")
    assert extract_here("html-text", page, "text/html") == once
    child = run_extractor("html-text", page, "text/html", deadline_s=30)
    assert child == once
    html_project(repo)
    code, sha = capture_page(repo, page)
    assert code == 0 and record_of(repo, sha).text == once.text
    again = Repo(tmp_path_factory.mktemp("again"))
    html_project(again)
    code2, sha2 = capture_page(again, page)
    assert code2 == 0 and sha2 == sha

    def files(r: Repo) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in source_dir(r.root / "captures", HTML_SOURCE).iterdir()}
    assert files(repo) == files(again) and len(files(repo)) == 2


def test_extractor_not_installed_names_the_install_command(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "html_text" else real(name, *a))
    assert "pip install 'citelint-provenance[html]'" in missing_install("html-text")
    html_project(repo)
    code, out = capture_page(repo, PAGE)
    assert code == 1 and "pip install 'citelint-provenance[html]'" in out
    assert not (repo.root / "captures" / sha256_hex(HTML_SOURCE)).exists()


def test_deep_and_large_pages_are_extracted_whole(repo: Repo) -> None:
    """libxml2 stops at a depth of 256 and near 10 MB of text unless asked not to, and returns what it has."""
    deep = "<p>before</p>" + "<div>" * 300 + "inner" + "</div>" * 300 + "<p>after the deep part</p>"
    assert extract_here("html-text", deep.encode(), "text/html").text == "before\n\ninner\n\nafter the deep part"
    big = b"".join(b"<p>" + f"part {i} ".encode() + "漢".encode() * 1_000_000 + b"</p>" for i in range(4))
    assert "part 3 " in extract_here("html-text", big, "text/html").text


def test_huge_html_is_refused_within_the_deadline_and_nothing_is_written(repo: Repo) -> None:
    html_project(repo, timeout_s=1, max_bytes=64 * 1024 * 1024)
    # About 10 s of parsing for lxml and html-text (deep nesting is cut off
    # by libxml2's depth limit, so a wide page is the slow one).
    bomb = b"<html><body>" + b"<p>x</p>" * 1_000_000 + b"</body></html>"
    started = time.monotonic()
    code, out = capture_page(repo, bomb)
    elapsed = time.monotonic() - started
    assert code == 1 and "deadline" in out, out
    assert elapsed < 1 + 3.0, elapsed
    assert not (repo.root / "captures" / sha256_hex(HTML_SOURCE)).exists()


def test_child_limits_bound_memory_and_output() -> None:
    page = b"<p>" + b"word " * 200_000 + b"</p>"
    with pytest.raises(ExtractionFailed, match="over 1000 bytes"):
        run_extractor("html-text", page, "text/html", deadline_s=30, max_output_bytes=1000)
    table = b"<table>" + b"<tr><td>a<td>b" * 300_000  # about 1 GiB of tree for 4 MB of markup
    with pytest.raises(ExtractionFailed, match="ran out of memory|cannot be parsed"):
        run_extractor("html-text", table, "text/html", deadline_s=30, memory_bytes=256 * 1024 * 1024)


def test_child_does_not_import_from_the_working_directory(tmp_path: Path) -> None:
    """A report author's repository may hold a file named like one of ours."""
    (tmp_path / "citelint").mkdir()
    (tmp_path / "citelint" / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    code = ("import os, sys; from citelint.capture.extract import run_extractor; os.chdir(sys.argv[1]);"
            "print(run_extractor('html-text', b'<p>plain words here</p>', 'text/html', deadline_s=30).text)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0 and proc.stdout.strip() == "plain words here", proc.stderr


# --------------------------------------------------------------------------- config

@pytest.mark.parametrize("capture, words", [
    ({"content_types": ["text/plain", "image/png"]}, "image/png has no extractor"),
    ({"extractors": {"TEXT/HTML": "trafilatura", "text/html": "html-text"}}, "more than once"),
    ({"extractors": {"text/html": "pypdf"}}, "pypdf does not read text/html"),
    ({"extractors": {"text/html": "tika"}}, "tika"),
])
def test_extractor_config_errors(repo: Repo, capture: dict, words: str) -> None:
    repo.config(capture=capture)
    run = run_cli("capture", "--dry-run", cwd=repo.root)
    assert run.code == 2 and words in run.err, run.err


def test_trafilatura_is_selectable(repo: Repo) -> None:
    html_project(repo, extractors={"text/html": "trafilatura"}, timeout_s=20)
    article = "<html><body><nav>Home | About | Contact</nav><article><h1>Results</h1>" + \
        "".join(f"<p>Paragraph {i} of the article says that revenue rose by {i} percent in the quarter.</p>"
                for i in range(8)) + "</article><footer>Copyright</footer></body></html>"
    code, sha = capture_page(repo, article)
    assert code == 0, sha
    rec = record_of(repo, sha)
    assert rec.extractor.name == "trafilatura" and rec.extractor.options["deduplicate"] is False
    assert "Paragraph 3 of the article says that revenue rose by 3 percent" in rec.text


# --------------------------------------------------------------------------- content types (issue 23, item 3)

def test_an_html_page_without_content_type_is_refused_not_stored_as_text(repo: Repo) -> None:
    """A real page held by a pipeline, recorded with no --content-type: its markup never becomes evidence."""
    truth = json.loads(corpus_path("article-html", "ground-truth.json").read_text(encoding="utf-8"))
    page_id = sorted(truth)[0]
    page = gzip.decompress(corpus_path("article-html", "html", f"{page_id}.html.gz").read_bytes())
    source = truth[page_id]["url"]
    repo.config(sources=[source], capture={"timeout_s": 20})
    held = repo.write("page.html", page)
    before = files_under(repo.root / "captures")

    def capture(*extra: str):
        return run_cli("capture", "--source", source, "--from-file", str(held), *extra,
                       "--retrieved-at", "2026-07-01T00:00:00Z", cwd=repo.root)

    refused = capture()
    assert refused.code == 2 and refused.out == ""
    assert "page.html looks like text/html: pass --content-type text/html" in refused.err
    assert files_under(repo.root / "captures") == before

    as_html = capture("--content-type", "text/html")
    assert as_html.code == 0 and as_html.err == "", as_html.err
    # A sentence a person marked on the page (split as the corpus README says), now quotable.
    sentence = re.split(r"(?<=[.!?])\s+|\n", truth[page_id]["articleBody"])[1].strip()
    sha = as_html.out.split(" revision ")[1].split()[0]
    repo.write("reports/r.json", {"facts": [{"state": "cited", "label": "sales", "source": source,
                                             "captureSha256": sha, "snippet": sentence}]})
    assert repo.check().code == 0

    # Declared text/plain: recorded as the operator said, but never silently.
    as_text = capture("--content-type", "text/plain")
    assert as_text.code == 0 and as_text.out.startswith("captured: ")
    assert "warning:" in as_text.err and "looks like text/html but was recorded as text/plain" in as_text.err


@pytest.mark.parametrize("body, sniffed", [
    (b"<!DOCTYPE html>\n<html><p>Revenue rose 12%.</p>", "text/html"),
    (b"\xef\xbb\xbf \r\n\t<HTML lang=en><p>Revenue rose 12%.</p>", "text/html"),
    (b"<!-- saved from url=(0014)about:internet -->\n<p>Revenue rose 12%.</p>", "text/html"),
    (b"<p>Revenue rose 12%.</p>", "text/html"),
    (b"<a href='https://example.org'>Revenue rose 12%.</a>", "text/html"),
    (b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><p>Revenue rose 12%.</p></html>',
     "text/xml"),
    (b"%PDF-1.7\n% Revenue rose 12%.\n", "application/pdf"),
    (b"Revenue rose 12%.", None),
    (b"<pre>Revenue rose 12%.</pre>", None),  # "<p" must end the tag name: "<pre" is not "<p"
    (b"  <br/>Revenue rose 12%.", None),  # "/" does not end a tag name for WHATWG sniffing
    (b"x <html> Revenue rose 12%.", None),  # markup later in a text is still text
])
def test_an_undeclared_body_is_sniffed_as_whatwg_identifies_an_unknown_type(repo: Repo, body: bytes,
                                                                            sniffed: str | None) -> None:
    repo.config(sources=[SOURCE_A])
    path = repo.write("held.txt", body)
    before = files_under(repo.root / "captures")
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(path), cwd=repo.root)
    if sniffed is None:
        assert run.code == 0 and run.out.startswith("captured: ") and run.err == ""
        return
    assert run.code == 2 and run.out == "" and f"held.txt looks like {sniffed}" in run.err
    assert ": pass --content-type " in run.err
    assert ("--content-type text/html" if sniffed == "text/xml" else f"--content-type {sniffed}") in run.err
    assert files_under(repo.root / "captures") == before


@pytest.mark.parametrize("body, says", [
    # Each was stored as text/plain: WHATWG sniffing calls them an image, an archive, binary data.
    (b"GIF89a\x01\x00\x01\x00Revenue rose 12%.", "looks like image/gif (an image): there is no text in it"),
    (b"PK\x03\x04Revenue rose 12%.", "looks like application/zip (an archive): there is no text in it"),
    (b"hello\x00world", "looks like application/octet-stream (binary data: byte 0x00 at offset 5): a text holds "
                        "no such control byte"),
    (b"\x89PNG\r\n\x1a\n", "looks like image/png (an image)"),
    (b"\x1f\x8b\x08\x00", "looks like application/x-gzip (an archive)"),
    (b"Revenue rose 12%.\n" * 200 + b"\x07",  # past the 1445 bytes WHATWG reads: a capture holds all
     "looks like application/octet-stream (binary data: byte 0x07 at offset 3600)"),
    (b"%!PS-Adobe-3.0\n", "looks like application/postscript (a PostScript document): citelint extracts no text "
                          "from PostScript"),
    # An RSS feed is XML, but no XHTML page: text/html is not suggested for it.
    (b'<?xml version="1.0"?>\n<!-- feed -->\n<rss version="2.0"><channel><title>Revenue</title></channel></rss>',
     "looks like text/xml (an XML document, root <rss>): citelint extracts no text from XML other than an XHTML"),
    (b'<?xml version="1.0"?>\n<!DOCTYPE html>\n<x:html xmlns:x="http://www.w3.org/1999/xhtml"><x:p>R</x:p></x:html>',
     "looks like text/xml (an XHTML page): pass --content-type text/html (--content-type text/plain records "
     "the body itself, markup included)"),
    # A PDF's refusal speaks of its bytes, not of markup.
    (b"%PDF-1.7\n", "looks like application/pdf: pass --content-type application/pdf (--content-type text/plain "
                    "would record the PDF's bytes, not its text)"),
])
def test_an_undeclared_body_is_refused_with_advice_for_what_it_looks_like(repo: Repo, body: bytes, says: str) -> None:
    repo.config(sources=[SOURCE_A])
    path = repo.write("held.txt", body)
    before = files_under(repo.root / "captures")
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(path), cwd=repo.root)
    assert run.code == 2 and run.out == "" and f"citelint: {path} {says}" in run.err, run.err
    assert run.err.endswith("; nothing was written\n")
    assert files_under(repo.root / "captures") == before
    if b"XHTML" not in says.encode() and b"html" not in body:
        assert "text/html" not in run.err  # XHTML is suggested only for an <html> root


def test_a_text_with_escape_and_form_feed_is_still_text(repo: Repo) -> None:
    # ESC, FF, TAB, CR and LF are no binary data bytes (WHATWG): a terminal log stays text.
    repo.config(sources=[SOURCE_A])
    path = repo.write("held.txt", b"\x1b[1mRevenue\x1b[0m rose\t12%.\x0c\r\n")
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(path), cwd=repo.root)
    assert run.code == 0 and run.out.startswith("captured: ") and run.err == "", run.err


def test_record_text_refuses_an_undeclared_html_body(tmp_path: Path) -> None:
    from citelint.capture import ContentTypeUnclear

    url = "https://example.org/page.html"
    with pytest.raises(ContentTypeUnclear) as refused:
        record_text(tmp_path / "captures", url, PAGE, sources=[url])
    assert refused.value.sniffed == "text/html" and not (tmp_path / "captures").exists()


# --------------------------------------------------------------------------- check, hints, verify

def test_quotes_of_the_rendered_page_pass_and_artefacts_are_named(repo: Repo) -> None:
    html_project(repo)
    code, sha = capture_page(repo, PAGE)
    assert code == 0
    repo.records[HTML_SOURCE] = record_of(repo, sha)
    repo.report(repo.cited(source=HTML_SOURCE, snippet="Revenue rose 12% to 4.1 million in the third quarter."))
    assert repo.check().code == 0
    repo.report(repo.cited(source=HTML_SOURCE, snippet="The cooperative grew by 3 stores."),
                repo.cited(label="sales", source=HTML_SOURCE, snippet="This paragraph is hidden and never rendered."))
    run = repo.check()
    assert run.code == 1
    soft, hidden = run.findings("CL104")
    assert "soft hyphen" in soft and "extractor html-text" in soft and "not a sign of fabrication" in soft
    assert "html-text" not in hidden


def test_verify_extraction_reproduces_and_catches_tampering(repo: Repo) -> None:
    html_project(repo)
    code, sha = capture_page(repo, PAGE)
    assert code == 0
    run = run_cli("capture", "--verify-extraction", cwd=repo.root)
    assert run.code == 0 and f"reproduced: {HTML_SOURCE} revision {sha}: by html-text" in run.out, run.out
    assert "3 capture(s): 1 reproduced, 2 plain text" in run.out
    raw = raw_path(repo.root / "captures", HTML_SOURCE, record_of(repo, sha).raw_sha256)
    raw.write_bytes(raw.read_bytes().replace(b"12%", b"13%"))
    run = run_cli("capture", "--verify-extraction", HTML_SOURCE, cwd=repo.root)
    assert run.code == 1 and "differs:" in run.out and "altered" in run.out, run.out
    raw.unlink()
    run = run_cli("capture", "--verify-extraction", cwd=repo.root)
    assert run.code == 1 and "differs:" in run.out and "though capture.keep_raw is on" in run.out, run.out
    html_project(repo, keep_raw=False, timeout_s=20)
    run = run_cli("capture", "--verify-extraction", cwd=repo.root)
    assert run.code == 0 and "not verifiable" in run.out, run.out
    run = run_cli("capture", "--verify-extraction", "https://example.org/typo.html", cwd=repo.root)
    assert run.code == 1 and "no capture of this source verifies" in run.out, run.out


def test_verify_extraction_reports_a_text_the_extractor_does_not_make(repo: Repo) -> None:
    """A record whose text was edited and re-hashed (so CL103 passes) no longer matches its raw body."""
    from citelint.store.captures import make_record
    from citelint.store.writer import write_capture

    html_project(repo)
    code, sha = capture_page(repo, PAGE)
    rec = record_of(repo, sha)
    forged = make_record(HTML_SOURCE, rec.text.replace("12%", "21%"), retrieved_at=rec.retrieved_at,
                         content_type=rec.content_type, wire_bytes=rec.bytes, extractor=rec.extractor,
                         raw_sha256=rec.raw_sha256)
    write_capture(repo.root / "captures", forged)
    run = run_cli("capture", "--verify-extraction", cwd=repo.root)
    assert run.code == 1 and f"differs: {HTML_SOURCE} revision {forged.sha256}: the text differs" in run.out, run.out


def test_record_over_the_capture_file_limit_is_refused(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import citelint.store.captures

    monkeypatch.setattr(citelint.store.captures, "MAX_CAPTURE_FILE_BYTES", 2000)
    html_project(repo)
    code, out = capture_page(repo, "<p>" + "long sentence of words " * 200 + "</p>")
    assert code == 1 and "over the 2000 byte limit" in out, out
    assert not (repo.root / "captures" / sha256_hex(HTML_SOURCE)).exists()  # no raw body left behind either


@pytest.mark.parametrize("occupant", ["fifo", "symlink", "directory", "other bytes"])
def test_an_entry_squatting_on_the_raw_name_is_refused(repo: Repo, occupant: str) -> None:
    import os

    html_project(repo)
    raw = raw_path(repo.root / "captures", HTML_SOURCE, sha256_hex(PAGE.encode()))
    raw.parent.mkdir(parents=True)
    {"fifo": lambda: os.mkfifo(raw), "symlink": lambda: raw.symlink_to("/etc/passwd"),
     "directory": raw.mkdir, "other bytes": lambda: raw.write_bytes(b"<p>other</p>")}[occupant]()
    code, out = capture_page(repo, PAGE)
    assert code == 1 and "inspect it by hand" in out, out
    assert [p.name for p in raw.parent.iterdir()] == [raw.name]


def test_the_parents_own_limits_do_not_break_extraction(repo: Repo) -> None:
    """CI containers set hard limits below what the child asks for; the child takes what it can have."""
    html_project(repo)
    page = repo.write("page.html", PAGE)
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_CPU, (120, 120));"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31)); from citelint.cli import main;"
            "sys.exit(main(['capture', '--source', sys.argv[1], '--from-file', sys.argv[2], '--content-type',"
            " 'text/html']))")
    proc = subprocess.run([sys.executable, "-c", code, HTML_SOURCE, str(page)], capture_output=True, text=True,
                          cwd=repo.root)
    assert proc.returncode == 0 and proc.stdout.startswith("captured: "), proc.stdout + proc.stderr


@pytest.mark.parametrize("name, content_type, words", [
    ("identity", "text/plain", "not an extraction"),
    ("html-text", "text/html\x00x", "control characters"),
])
def test_run_extractor_refuses_what_it_cannot_run(name: str, content_type: str, words: str) -> None:
    with pytest.raises(ExtractionFailed, match=words):
        run_extractor(name, b"<p>text</p>", content_type, deadline_s=10)


# --------------------------------------------------------------------------- fetched, committed, checked

def test_fetched_html_over_https_end_to_end_with_git(repo: Repo, serve, ca_file: str) -> None:
    page = "<html><body><p>Fetched over TLS:&nbsp;revenue rose 12% in the third quarter of 2026.</p></body></html>"
    server = serve(response(body=page.encode("cp1252"), headers=[("Content-Type", "text/html; charset=windows-1252")]))
    url = server.url("/report.html")
    repo.config(sources=[SOURCE_A, url], capture={"timeout_s": 20, "allow_private_addresses": True,
                                                  "ca_file": ca_file})
    run = run_cli("capture", url, cwd=repo.root)
    assert run.code == 0, run.out + run.err
    sha = run.out.split(" revision ")[1].split()[0]
    rec = Store(repo.root / "captures").lookup(url, sha)
    assert rec.content_type == "text/html; charset=windows-1252" and rec.extractor.options["encoding"] == "cp1252"
    repo.records[url] = rec
    repo.report(repo.cited(source=url, snippet="Fetched over TLS: revenue rose 12% in the third quarter of 2026."))
    init_repo(repo.root)
    commit_all(repo.root, "capture and report")
    assert repo.check().code == 0
    git(repo.root, "switch", "--quiet", "--create", "feature")
    raw = raw_path(repo.root / "captures", url, rec.raw_sha256)
    raw.write_bytes(raw.read_bytes() + b"<!-- edited -->")
    run = repo.check("--base", "main")
    rel = raw.relative_to(repo.root).as_posix()
    assert run.code == 1 and any(f"{rel}:1:1: CL301 capture was modified" in ln for ln in run.findings()), run.out


def test_capture_one_python_api_extracts_html(serve, ca_file: str, tmp_path: Path) -> None:
    server = serve(response(body=PAGE.encode(), headers=[("Content-Type", "text/html")]))
    url = server.url("/p.html")
    opts = CaptureSettings(timeout_s=20, ca_file=ca_file, allow_private_addresses=True)
    outcome = capture_one(tmp_path / "captures", url, [url], opts)
    assert outcome.status == "captured", outcome
    assert Store(tmp_path / "captures").lookup(url, outcome.sha256).extractor.name == "html-text"
    held = record_text(tmp_path / "held", url, PAGE.encode(), sources=[url], content_type="text/html",
                       timeout_s=20)
    assert held.sha256 == outcome.sha256


def test_check_never_imports_an_extractor(repo: Repo) -> None:
    """The hook's start-up stays lean: checking an extracted capture reads committed text only."""
    html_project(repo)
    code, sha = capture_page(repo, PAGE)
    repo.records[HTML_SOURCE] = record_of(repo, sha)
    repo.report(repo.cited(source=HTML_SOURCE, snippet="The cooperative grew by 3 stores."))
    probe = ("import io, sys; from citelint.cli import main; code = main(['check'], stdout=io.StringIO());"
             "print(code, sorted(m for m in sys.modules if m.split('.')[0] in "
             "('lxml', 'html_text', 'w3lib', 'pypdf', 'trafilatura', 'urllib3') or m.startswith('citelint.capture.')))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=repo.root)
    assert proc.stdout.split(" ", 1) == ["1", "[]\n"], proc.stdout + proc.stderr


def test_fetched_pdf_over_https_end_to_end(repo: Repo, serve, ca_file: str) -> None:
    fpdf = pytest.importorskip("fpdf")
    doc = fpdf.FPDF()
    for line in ("Page one: revenue rose 12% in the third quarter.", "Page two: costs fell by 3% over the year."):
        doc.add_page()
        doc.set_font("Helvetica", size=12)
        doc.cell(text=line)
    body = bytes(doc.output())
    server = serve(response(body=body, headers=[("Content-Type", "application/pdf")]))
    url = server.url("/report.pdf")
    repo.config(sources=[SOURCE_A, url], capture={"timeout_s": 20, "allow_private_addresses": True,
                                                  "ca_file": ca_file})
    run = run_cli("capture", url, cwd=repo.root)
    assert run.code == 0, run.out + run.err
    rec = Store(repo.root / "captures").lookup(url, run.out.split(" revision ")[1].split()[0])
    assert rec.extractor.name == "pdf-text" and rec.text.count("\f") == 1
    assert raw_path(repo.root / "captures", url, rec.raw_sha256).read_bytes() == body
    repo.records[url] = rec
    repo.report(repo.cited(source=url, snippet="Page two: costs fell by 3% over the year."))
    init_repo(repo.root)
    commit_all(repo.root, "capture and report")
    assert repo.check().code == 0


@pytest.mark.parametrize("snippet, capture, kind", [
    ("text extraction is hard", "text extrac-\ntion is hard", "hyphenation at a line break"),
    ("text extraction is hard", "text extrac- \ntion is hard", "hyphenation at a line break"),  # trailing space
    ("a well-known fact here", "a well-\nknown fact here", "hyphenation at a line break"),
    ("the financial report", "the \ufb01nancial report", "ligature"),
    ("page one ends. Page two", "page one ends.\fPage two", "form feed (a page break)"),
])
def test_extraction_artefacts_are_named_with_the_extractor(snippet: str, capture: str, kind: str) -> None:
    from citelint.excerpts import explain_miss

    assert explain_miss(snippet, capture, "pypdf 7.1.1").startswith(f"near miss ({kind}):")
    assert "as extractor pypdf 7.1.1 wrote the text" in explain_miss(snippet, capture, "pypdf 7.1.1")
    assert "extractor" not in explain_miss(snippet, capture)  # a plain-text capture: no extractor to name
