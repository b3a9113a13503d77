"""``citelint render``: the reader view, run as a real process and read with lxml's HTML parser.

Assertions are about what a reader's browser builds: a verified excerpt is a
``blockquote`` with ``cite``, its source link, capture date and digest; an
unavailable fact says so and where to check; a fact or link that failed the
check is never shown as verified; nothing can run or load; hostile text is
shown, never obeyed.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import cmarkgfm
import pytest
from lxml import html as lxml_html

from citelint.model import RULES
from citelint.output.sanitize import markdown_to_safe_html
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, TEXT_A, Repo

HOSTILE = "<script>alert(1)</script> ::error::pwned \x1b[31mred \u202eevil"
CHECK_AT = "https://stats.example/inventory"


def render(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citelint render ARGS`` as a real process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run([sys.executable, "-m", "citelint", "render", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def page(text: str) -> lxml_html.HtmlElement:
    return lxml_html.document_fromstring(text)


def assert_self_contained(doc: lxml_html.HtmlElement, raw: str) -> None:
    """No script, no external load, a strict policy allowing exactly the page's one style."""
    assert raw.startswith("<!DOCTYPE html>") and doc.get("lang") == "en"
    assert not doc.xpath("//script | //img | //iframe | //object | //embed | //link | //form | //@style")
    assert not [a for a in doc.xpath("//@*") if a.attrname.startswith("on")]
    [csp] = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    [style] = doc.xpath("//style")
    digest = base64.b64encode(hashlib.sha256(style.text.encode("utf-8")).digest()).decode("ascii")
    assert csp == f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    assert doc.xpath("//head/meta[1]/@charset") == ["utf-8"]


@pytest.fixture
def facts_repo(repo: Repo) -> Repo:
    repo.config(labels={"inventory": {"description": "Inventory stayed flat.", "unit": "units"},
                        "sales": {"description": "Sales in Q2.", "check_at": CHECK_AT},
                        "headcount": {"check_at": "the annual report, page 4"},
                        "margin": None})
    repo.report(
        repo.cited(snippet="Inventory held steady at 42 items."),
        {"state": "unavailable", "label": "sales", "reason": "not published yet"},
        {"state": "unavailable", "label": "headcount", "reason": "not in any source"},
        repo.cited("margin", source=SOURCE_B, snippet="17 items were sold in the third quarter"),
    )
    return repo


def test_fact_report_renders_evidence_estimate_and_failures_apart(facts_repo: Repo, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    run = render(facts_repo.root, "reports/r.json", "-o", str(out))
    assert run.returncode == 1, run.stderr  # rendered, then exit 1 as `check` would: the report has an error
    raw = out.read_text(encoding="utf-8")
    doc = page(raw)
    assert_self_contained(doc, raw)
    assert doc.xpath("string(//h1)") == "reports/r.json"
    assert doc.xpath("string(//p[@class='verdict']/span)") == "failed"
    articles = doc.xpath("//article")
    assert [a.get("class") for a in articles] == ["fact verified", "fact unavailable", "fact unavailable",
                                                  "fact rejected"]
    verified, sales, headcount, rejected = articles
    # The excerpt: a quotation with its source, capture date and short digest, apart from the claim.
    [quote] = verified.xpath(".//blockquote")
    assert quote.get("cite") == SOURCE_A and quote.text_content() == "Inventory held steady at 42 items."
    assert verified.xpath("string(.//p[@class='claim'])") == "Claim Inventory stayed flat."
    assert not verified.xpath(".//p[@class='claim']//blockquote")
    caption = verified.xpath(".//figcaption")[0]
    assert caption.xpath(".//cite/a/@href") == [SOURCE_A]
    assert caption.xpath(".//time/@datetime") == ["2026-07-01T00:00:00Z"]
    assert caption.xpath("string(.//code)") == facts_repo.records[SOURCE_A].sha256[:12]
    assert "unit 'units' does not appear in the snippet" in verified.xpath("string(.//p[@class='review'])")
    # Unavailable: unverified, the reason, and where the reader can check (a link, or words).
    assert "unverified" in sales.xpath("string(.//h3)")
    assert "not published yet" in sales.text_content() and not sales.xpath(".//blockquote")
    assert sales.xpath(".//p[@class='where']/a/@href") == [CHECK_AT]
    assert headcount.xpath("string(.//p[@class='where'])") == "Where to check the annual report, page 4"
    assert not headcount.xpath(".//p[@class='where']/a")
    # Failed the check (CL104): no quotation, nothing of its evidence, the finding instead.
    assert not rejected.xpath(".//blockquote") and "third quarter" not in rejected.text_content()
    assert "not verified" in rejected.xpath("string(.//h3)")
    assert rejected.xpath(".//ul[@class='problems']/li/a/text()") == ["CL104"]
    # The sources list names only the revision that verified facts quote.
    assert [li.xpath("string(.//cite)") for li in doc.xpath("//ul[@class='sources']/li")] == [SOURCE_A]


def test_unavailable_without_check_at_says_none_is_configured(repo: Repo) -> None:
    repo.report({"state": "unavailable", "label": "sales", "reason": "n/a"})
    run = render(repo.root, "reports/r.json")
    assert run.returncode == 0, run.stderr
    doc = page(run.stdout)
    assert "not configured" in doc.xpath("string(//p[@class='where'])")
    assert doc.xpath("string(//p[@class='verdict']/span)") == "passed"
    assert doc.xpath("string(//section[h2='Captured sources used']/p)").startswith("None")


def test_a_fact_with_an_error_is_never_verified_even_when_its_snippet_occurs(repo: Repo) -> None:
    """A duplicate label (CL004) rejects both facts although each snippet is exact."""
    repo.report(repo.cited(snippet="Synthetic source: 42 items"), repo.cited(snippet="Inventory held steady"))
    doc = page(render(repo.root, "reports/r.json").stdout)
    assert [a.get("class") for a in doc.xpath("//article")] == ["fact rejected", "fact rejected"]
    assert not doc.xpath("//blockquote")


def test_hostile_text_is_escaped_in_html(repo: Repo, tmp_path: Path) -> None:
    repo.capture(SOURCE_A, "Before. " + HOSTILE + " After.")
    repo.config(labels={"claim-*": {"check_at": "javascript:alert(1)"}})
    name = "reports/\u202eevil<b>.json"
    repo.report(repo.cited("claim-<img/src=x/onerror=alert(1)>", snippet=HOSTILE),
                {"state": "unavailable", "label": "claim-2", "reason": HOSTILE}, name=name)
    out = tmp_path / "h.html"
    run = render(repo.root, name, "-o", str(out))
    assert run.returncode == 0, run.stderr
    raw = out.read_text(encoding="utf-8")
    for bad in ("<script", "<img", "<b>", "\x1b", "\u202e"):
        assert bad not in raw, bad
    doc = page(raw)
    assert_self_contained(doc, raw)
    assert doc.xpath("string(//h1)") == "reports/\\u202eevil<b>.json"
    assert doc.xpath("string(//blockquote)") == "<script>alert(1)</script> ::error::pwned \\u001b[31mred \\u202eevil"
    assert doc.xpath("string(//article[1]/h3/text())") == "claim-<img/src=x/onerror=alert(1)>"
    # A check_at that is not an http(s) URL is shown as words, never as a link.
    assert not doc.xpath("//a[starts-with(@href, 'javascript')]")
    assert "javascript:alert(1)" in doc.xpath("string(//p[@class='where'])")
    assert "\u202e" not in run.stderr


def test_markdown_report_flattens_ungrounded_links_and_marks_quotations(repo: Repo) -> None:
    repo.write("reports/a.md", (
        "# Answer\n\n"
        f"Grounded [a]({SOURCE_A}), invented [b](https://invented.example/x) and "
        "<https://invented.example/auto>, bare https://invented.example/bare too.\n\n"
        f"Quoted [held steady]({SOURCE_A}#:~:text=Inventory%20held%20steady), and a quotation of an "
        "uncaptured page [q](https://invented.example/q#:~:text=hello).\n\n"
        "<script>alert(1)</script>\n\nA <a href=\"https://invented.example/raw\">raw</a> tag and "
        "![img](https://x.example/i.png)\n"))
    run = render(repo.root, "reports/a.md")
    assert run.returncode == 1, run.stderr  # the view of a failing report, and the check's status
    doc = page(run.stdout)
    assert_self_contained(doc, run.stdout)
    body = doc.xpath("//div[@class='body']")[0]
    assert body.xpath(".//h3/text()") == ["Answer"]  # the report's h1, under the page's h1 and h2
    hrefs = body.xpath(".//a[not(contains(@class, 'mark'))]/@href")
    assert hrefs == [SOURCE_A, f"{SOURCE_A}#:~:text=Inventory%20held%20steady"]
    # The verified quotation link refers to its evidence, shown under the report without hovering.
    assert body.xpath(".//a[contains(@class, 'mark')]/@href") == ["#evidence-1"]
    [note] = doc.xpath("//ol[@class='notes']/li")
    assert note.get("id") == "evidence-1"
    assert note.xpath("string(.//blockquote)") == "Inventory held steady"
    assert note.xpath("string(.//cite)") == SOURCE_A and "captured 2026-07-01T00:00:00Z" in note.text_content()
    assert "✓ excerpt verified by citelint" in note.xpath("string(.//span[@class='badge ok'])")
    # The failed quotation link's text is struck through where it stands, not only tagged.
    assert body.xpath("string(.//span[@class='span-bad'])") == "q"
    assert not doc.xpath("//a[contains(@href, 'invented')]")
    text = body.text_content()
    for visible in ("invented b", "https://invented.example/auto", "https://invented.example/bare", "raw"):
        assert visible in text
    marks = [(m.get("class"), m.text_content()) for m in body.xpath(".//*[contains(@class, 'mark')]")]
    quoted = ("mark ok", "✓ quotation verified (evidence 1)") if "CL204" in RULES else \
        ("mark warn", "quotation not checked")
    assert marks == [("mark bad", "✗ link removed: not verified")] * 3 + [quoted] + \
        [("mark bad", "✗ quotation not found in the source"), ("mark bad", "✗ link removed: not verified")]
    assert "CL201" in body.xpath(".//span[@class='mark bad']/@title")[0]
    assert body.xpath("string(.//span[@class='image'])") == "[image: img]"
    assert [li.xpath("string(.//cite)") for li in doc.xpath("//ul[@class='sources']/li")] == [SOURCE_A]


def test_format_md_is_the_same_reader_view_in_markdown(facts_repo: Repo) -> None:
    facts_repo.capture(SOURCE_A, TEXT_A)
    run = render(facts_repo.root, "reports/r.json", "--format", "md")
    assert run.returncode == 1, run.stderr
    doc = lxml_html.fromstring("<div>" + cmarkgfm.github_flavored_markdown_to_html(run.stdout) + "</div>")
    assert doc.xpath("string(//h1)") == "reports/r.json"
    assert [h.text_content() for h in doc.xpath("//h3")] == [
        "inventory (✓ excerpt verified by citelint)", "sales (unverified: not available)",
        "headcount (unverified: not available)", "margin (✗ not verified: failed the check)"]
    assert doc.xpath("string(//blockquote)").strip() == "Inventory held steady at 42 items."
    assert [a.get("href") for a in doc.xpath("//a")] == [SOURCE_A, CHECK_AT, SOURCE_A]


def test_markdown_output_of_a_markdown_report_flattens_and_marks(repo: Repo) -> None:
    repo.write("reports/a.md", f"See [a]({SOURCE_A}) and [b](https://invented.example/x).\n")
    run = render(repo.root, "reports/a.md", "--format", "md")
    assert run.returncode == 1, run.stderr
    assert f"[a]({SOURCE_A})" in run.stdout and "b *(✗ link removed: not verified)*" in run.stdout
    assert "](https://invented.example" not in run.stdout


@pytest.mark.parametrize("example, report, classes, status", [
    ("expertqa", "reports/q1.json", ["fact verified"] * 7, 0),
    ("expertqa-faults", "reports/faults.json", ["fact rejected"] * 5, 1),
])
def test_examples_render(example: str, report: str, classes: list[str], status: int, tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    run = render(REPO_ROOT / "examples" / example, report, "-o", str(out))
    assert run.returncode == status, run.stderr
    doc = page(out.read_text(encoding="utf-8"))
    assert [a.get("class") for a in doc.xpath("//article")] == classes
    assert len(doc.xpath("//blockquote[@cite]")) == classes.count("fact verified")


def test_output_file_is_written_whole_and_replaced(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo.report(repo.cited(snippet="Inventory held steady at 42 items."))
    folder = tmp_path_factory.mktemp("out")
    out = folder / "r.html"
    out.write_text("old", encoding="utf-8")
    assert render(repo.root, "reports/r.json", "-o", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in folder.iterdir()] == ["r.html"]  # no temporary file left
    out.unlink()
    assert render(repo.root, "reports/r.json", "-o", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_render_exits_as_check_does_so_a_failing_report_is_not_published(repo: Repo, tmp_path: Path) -> None:
    """`citelint render r.json -o r.html && publish` publishes nothing for a
    failing report: the view is written (marked failed), then exit 1 as
    `check` exits; --exit-zero makes it 0, as in `check`."""
    repo.report(repo.cited(snippet="Synthetic source: 43 items"))  # CL104
    out, published = tmp_path / "r.html", tmp_path / "published"
    script = f"{sys.executable} -m citelint render reports/r.json -o {out} && touch {published}"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}, "PYTHONPATH": str(REPO_ROOT)}
    shell = subprocess.run(["sh", "-c", script], cwd=repo.root, env=env, capture_output=True, text=True)
    assert shell.returncode == 1 and not published.exists(), shell.stderr
    assert page(out.read_text(encoding="utf-8")).xpath("string(//p[@class='verdict']/span)") == "failed"
    assert repo.check().code == 1
    zero = render(repo.root, "reports/r.json", "--exit-zero")
    assert zero.returncode == 0 and "failed" in zero.stdout
    repo.report(repo.cited(snippet="Synthetic source: 42 items"))
    assert render(repo.root, "reports/r.json", "-o", str(out)).returncode == repo.check().code == 0


def test_render_strict_fails_on_warnings_as_check_strict_does(repo: Repo, tmp_path: Path) -> None:
    """A pipeline gating on `check --strict` gates its publish step the same
    way: `render --strict -o r.html && publish` publishes nothing for a report
    with warnings (the view is still written); --exit-zero still wins."""
    repo.report(repo.cited(snippet="42 items"))  # CL105: shorter than 20 characters, a warning
    assert repo.check().code == 0 and repo.check("--strict").code == 1
    out, published = tmp_path / "r.html", tmp_path / "published"
    script = f"{sys.executable} -m citelint render --strict reports/r.json -o {out} && touch {published}"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}, "PYTHONPATH": str(REPO_ROOT)}
    shell = subprocess.run(["sh", "-c", script], cwd=repo.root, env=env, capture_output=True, text=True)
    assert shell.returncode == 1 and not published.exists() and out.exists(), shell.stderr
    assert render(repo.root, "reports/r.json").returncode == 0
    assert render(repo.root, "reports/r.json", "--strict", "--exit-zero").returncode == 0
    assert "--strict" in render(REPO_ROOT, "--help").stdout


@pytest.mark.parametrize("args, message", [
    (["reports/missing.json"], "no such file"),
    (["notes.txt"], "cannot render notes.txt"),
    (["reports/r.json", "-o", "/nonexistent-dir/x.html"], "cannot write -o /nonexistent-dir/x.html"),
    (["reports/r.json", "--format", "pdf"], "invalid choice"),
])
def test_usage_errors_exit_2(repo: Repo, args: list[str], message: str) -> None:
    repo.report({"state": "unavailable", "label": "sales", "reason": "n/a"})
    repo.write("notes.txt", "not a report")
    run = render(repo.root, *args)
    assert run.returncode == 2 and message in run.stderr and run.stdout == ""


def test_config_error_exits_2(repo: Repo) -> None:
    (repo.root / "citelint.yaml").write_text("labels: {a: {check_at: 3}}\n", encoding="utf-8")
    repo.report({"state": "unavailable", "label": "a", "reason": "n/a"})
    run = render(repo.root, "reports/r.json")
    assert run.returncode == 2 and "check_at" in run.stderr


def test_help_has_examples() -> None:
    run = render(REPO_ROOT, "--help")
    assert run.returncode == 0 and "examples:" in run.stdout and "--format md" in run.stdout


def test_sanitizer_keeps_only_vouched_links_and_no_active_content() -> None:
    md = ("[ok](https://a.example/) [no](https://b.example/) [frag](#x) "
          "<a href='https://a.example/'>raw</a> [js](javascript:alert(1))\n\n"
          "<script>alert(1)</script>\n\n<img src=https://x.example/i.png onerror=alert(1)>\n\n"
          "| a |\n|:-:|\n| b |\n\n- [x] done\n")
    out = markdown_to_safe_html(md, frozenset({"https://a.example/"}), unlinked=lambda: "<i>unlinked</i>")
    doc = lxml_html.fromstring(f"<div>{out}</div>")
    assert doc.xpath("//a/@href") == ["https://a.example/", "#x"]
    assert doc.xpath("//a[1]/@rel") == ["noopener noreferrer"]
    assert len(doc.xpath("//i")) == 2  # "no" and "js" unwrapped, each marked
    assert not doc.xpath("//script | //img | //@onerror | //@style")
    assert doc.xpath("//td/@align") == ["center"]
    assert doc.xpath("//input/@type") == ["checkbox"] and doc.xpath("//input/@disabled") == ["disabled"]


def test_a_report_the_check_refuses_to_open_is_not_opened_by_render(
        repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.json"
    outside.write_text('{"facts": [{"state": "unavailable", "label": "sales", "reason": "SECRET-TEXT"}]}',
                       encoding="utf-8")
    (repo.root / "reports").mkdir(exist_ok=True)
    (repo.root / "reports" / "link.json").symlink_to(outside)
    run = render(repo.root, "reports/link.json")
    assert run.returncode == 1, run.stderr  # CL001
    doc = page(run.stdout)
    assert "SECRET-TEXT" not in run.stdout and not doc.xpath("//article")
    assert doc.xpath("//section[h2='Other findings']//li/a/text()") == ["CL001"]


def test_only_grounded_links_stay_links(repo: Repo) -> None:
    """Regression: `https:evil.example/d` is site-relative on GitHub (so check lets it pass), but a
    page opened from file:// resolves it to https://evil.example/d: the reader view unlinks every
    link that is not grounded, relative and mailto: ones included."""
    repo.write("reports/a.md", f"[ok]({SOURCE_A}) [d](https:evil.example/d) [e](https:/evil.example/e) "
                               "[r](/etc/passwd) [q](?x=1) [m](mailto:a@example.org)\n")
    run = render(repo.root, "reports/a.md")
    assert run.returncode == 0, run.stderr
    body = page(run.stdout).xpath("//div[@class='body']")[0]
    assert body.xpath(".//a/@href") == [SOURCE_A]
    assert all(word in body.text_content() for word in ("d", "e", "r", "q", "m"))


def test_markdown_view_keeps_the_report_below_what_citelint_wrote(repo: Repo) -> None:
    """Regression: an unclosed comment or fence at the end of the report swallowed the
    sources and findings sections of the Markdown reader view."""
    repo.write("reports/a.md", f"## Captured sources used\n\n- [https://evil.example/x]({SOURCE_A})\n\n<!--\n")
    run = render(repo.root, "reports/a.md", "--format", "md")
    assert run.returncode == 0, run.stderr
    ours = run.stdout.index("## Captured sources used\n\n- [")
    theirs = run.stdout.index("## Report, as its author wrote it")
    assert ours < theirs and run.stdout.index("Rendered by citelint") < theirs
    html_out = cmarkgfm.github_flavored_markdown_to_html(run.stdout)
    assert "Rendered by citelint" in html_out.split("<!--")[0]


def test_sources_tied_for_newest_are_each_listed(repo: Repo) -> None:
    """Issue 23, item 4: two revisions of one source with the same retrievedAt; the reader view
    names both rather than one picked by digest order."""
    first = repo.records[SOURCE_A]
    second = repo.capture(SOURCE_A, TEXT_A + " A second wording, captured in the same second.", first.retrieved_at)
    repo.write("reports/a.md", f"See [the source]({SOURCE_A}).\n")
    run = render(repo.root, "reports/a.md", "--format", "md")
    assert run.returncode == 0, run.stderr
    listed = run.stdout.split("## Captured sources used\n\n")[1].split("\n\n")[0]
    assert listed.count(SOURCE_A) >= 2 and first.sha256[:12] in listed and second.sha256[:12] in listed


CLAIMS_REPORT = (
    "# Answer\n\n"
    'The source says "Another source: 17 items were sold in the second quarter" [1](https://example.org/b.txt), '
    "and that 18 were sold later [2](https://example.org/b.txt).\n\n"
    'It adds that "Synthetic source: 43 items, measured on" [3](https://example.org/a.txt).\n\n'
    "About 35 percent was lost [4](https://invented.example/lost). Then 12 more, with no citation.\n")


def test_markdown_view_shows_each_quotation_and_number_where_it_stands(repo: Repo) -> None:
    repo.config(markdown=["reports/**/*.md"])
    repo.write("reports/a.md", CLAIMS_REPORT)
    run = render(repo.root, "reports/a.md")
    assert run.returncode == 1, run.stderr
    doc = page(run.stdout)
    assert_self_contained(doc, run.stdout)
    body = doc.xpath("//div[@class='body']")[0]
    # The verified prose quotation: set apart, numbered, its evidence under the report.
    assert body.xpath("string(.//span[@class='span-ok'])") == \
        '"Another source: 17 items were sold in the second quarter"'
    assert body.xpath(".//a[contains(@class, 'mark')]/@href") == ["#evidence-1"]
    [note] = doc.xpath("//ol[@class='notes']/li")
    assert note.xpath("string(.//blockquote)") == "Another source: 17 items were sold in the second quarter"
    assert note.xpath("string(.//cite)") == SOURCE_B
    assert note.xpath("string(.//code/@title)") == repo.records[SOURCE_B].sha256
    assert "In the sentence: “The source says" in note.text_content()
    assert "not yet reviewed by a person" in note.text_content()
    # The misquotation (CL205) is struck through in the sentence, with the reason in words.
    [bad] = body.xpath(".//span[@class='span-bad']")
    assert bad.text_content() == '"Synthetic source: 43 items, measured on"'
    assert bad.getnext().text_content() == "✗ quotation not found in the cited source"
    assert "CL205" in bad.getnext().get("title")
    # The figure the capture lacks (CL206), the one whose only citation was removed, the uncited one.
    figures = [(s.text_content(), s.getnext().text_content()) for s in body.xpath(".//span[@class='span-warn']")]
    assert figures == [
        ("18", "⚠ figure not found in the cited source"),
        ("35", "⚠ unverified figure: its citation failed the check and was removed "
               "(https://invented.example/lost): check it there"),
        ("12", "⚠ unverified figure: the sentence cites no source for it")]
    assert not doc.xpath("//a[contains(@href, 'invented')]")  # where to check is text, never a link
    assert "1 quotation verified, 1 not verified; 3 figures not verified" in doc.xpath("string(//p[@class='verdict'])")


def test_markdown_format_marks_spans_and_lists_the_evidence_before_the_report(repo: Repo) -> None:
    repo.config(markdown=["reports/**/*.md"])
    repo.write("reports/a.md", CLAIMS_REPORT)
    run = render(repo.root, "reports/a.md", "--format", "md")
    assert run.returncode == 1, run.stderr
    out = run.stdout
    evidence, report = out.index("## Evidence for the quotations"), out.index("## Report, as its author wrote it")
    assert evidence < report
    assert "1. **✓ excerpt verified by citelint**, not yet reviewed by a person" in out
    body = out[report:]
    assert ('⟦"Another source: 17 items were sold in the second quarter"⟧ *(✓ quotation verified: evidence [1] '
            "above)*") in body
    assert '⟦"Synthetic source: 43 items, measured on"⟧ *(✗ quotation not found in the cited source)*' \
        in body
    assert "⟦18⟧ *(⚠ figure not found in the cited source)*" in body
    assert "⟦12⟧ *(⚠ unverified figure: the sentence cites no source for it)*" in body


def test_hostile_quoted_text_in_the_evidence_notes_is_shown_never_obeyed(repo: Repo) -> None:
    repo.config(markdown=["reports/**/*.md"])
    repo.capture(SOURCE_A, "Before. <script>alert(1)</script> and \u202eevil words here. After.",
                 when="2026-08-01T00:00:00Z")
    repo.write("reports/a.md", 'It says "&lt;script&gt;alert(1)&lt;/script&gt; and \u202eevil words here" '
                               f"[1]({SOURCE_A}).\n")
    for fmt in ("html", "md"):
        run = render(repo.root, "reports/a.md", "--format", fmt)
        assert run.returncode == 0, run.stderr
        # What citelint writes; in Markdown the report's own text follows it as written.
        ours = run.stdout if fmt == "html" else run.stdout[:run.stdout.index("## Report, as its author")]
        assert "<script" not in ours and "\u202e" not in ours
        if fmt == "md":
            assert "   > &lt;script&gt;alert\\(1\\)&lt;/script&gt; and \\\\u202eevil words here\n" in ours
        if fmt == "html":
            doc = page(run.stdout)
            assert_self_contained(doc, run.stdout)
            assert doc.xpath("string(//ol[@class='notes']//blockquote)") == \
                "<script>alert(1)</script> and \\u202eevil words here"


def test_three_tiers_in_words_with_the_reviewer_named(repo: Repo) -> None:
    from citelint.fingerprints import fact_fingerprint
    from conftest import run_cli

    repo.report(repo.cited(snippet="measured on 2026-07-01"),
                repo.cited(label="sales", snippet="Inventory held steady"),
                repo.cited(label="inventory2", snippet="Synthetic source: 42 items"))
    repo.config(labels={"inventory": None, "sales": None, "inventory2": None})
    sha = repo.records[SOURCE_A].sha256
    approve = fact_fingerprint("inventory", SOURCE_A, sha, "measured on 2026-07-01")[:16]
    reject = fact_fingerprint("sales", SOURCE_A, sha, "Inventory held steady")[:16]
    assert run_cli("review", "--approve", approve, "--by", "ada@example.org", "--note", "the date line",
                   cwd=repo.root).code == 0
    assert run_cli("review", "--reject", reject, "--by", "bo@example.org", "--note", "that is stock, not sales",
                   cwd=repo.root).code == 0
    run = render(repo.root, "reports/r.json")
    assert run.returncode == 1, run.stderr  # CL903 is an error
    doc = page(run.stdout)
    heads = [(a.get("class"), a.xpath("string(h3/span)")) for a in doc.xpath("//article")]
    assert heads == [("fact verified", "✓ reviewed: supports"),
                     ("fact verified disputed", "✗ reviewed: does not support"),
                     ("fact verified", "✓ excerpt verified by citelint")]
    texts = [a.text_content() for a in doc.xpath("//article")]
    assert "by ada@example.org" in texts[0] and "the date line" in texts[0]
    assert "by bo@example.org" in texts[1] and "that is stock, not sales" in texts[1]
    assert doc.xpath("string(//article[2]//blockquote)") == "Inventory held steady"  # the excerpt is still shown
    assert "Not yet reviewed by a person" in texts[2]
    md = render(repo.root, "reports/r.json", "--format", "md").stdout
    assert "### inventory (✓ reviewed: supports)" in md and "### sales (✗ reviewed: does not support)" in md
    assert "### inventory2 (✓ excerpt verified by citelint)" in md
