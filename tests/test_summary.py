"""The step summary (``--summary-file``), parsed as GitHub shows it.

The Markdown is rendered by cmark-gfm (GitHub's parser; raw HTML kept, as
GitHub keeps ``<details>``, ``<summary>`` and ``<b>``), then read with
lxml's HTML parser: the assertions are about the structure a reviewer sees
(verdict heading, a list per file, links, the collapsible review list),
not about Markdown spelling.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from lxml import html as lxml_html

from citelint.facts import CONTEXT_CHARS
from citelint.model import AcceptedFact, CheckResult, Finding
from citelint.output import RenderOptions
from citelint.output.summary import SUMMARY_MAX_BYTES, blob_url, render
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, Repo

SHA = "0123456789abcdef0123456789abcdef01234567"
GITHUB = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo/reports", "GITHUB_SHA": SHA}

#: Text from a hostile report: a script tag, workflow commands, a terminal escape, a bidi override.
HOSTILE = "<script>alert(1)</script> ::error::pwned\n::add-mask::x \x1b[31mred \u202eevil"


def check_process(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``citelint check ARGS`` as a real process, as CI runs it."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environ.update(env or {}, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "citelint", "check", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def shown(markdown: str) -> lxml_html.HtmlElement:
    """The summary as a browser's tree, after GitHub's Markdown rendering."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return lxml_html.fromstring(f"<div>{rendered}</div>")


def test_failing_run_verdict_first_findings_listed_per_file_with_links(repo: Repo, tmp_path: Path) -> None:
    repo.report(repo.cited(snippet="not in the capture at all, sadly"), name="reports/a.json")
    repo.write("reports/deep/" + "very-long-folder-name/" * 6 + "b.md", "See [x](https://invented.example/p).\n")
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary), env=GITHUB)
    assert run.returncode == 1, run.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "## citelint: failed: 2 errors"
    tree = shown(text)
    assert tree.xpath("string(//h2[1])") == "citelint: failed: 2 errors"
    # No table: each file is a heading followed by a list, so a long path never
    # pushes the message off-screen.
    assert not tree.xpath("//table")
    files = [h.text_content() for h in tree.xpath("//h4")]
    assert files == ["reports/a.json (1)", "reports/deep/" + "very-long-folder-name/" * 6 + "b.md (1)"]
    items = tree.xpath("//h4/following-sibling::ul[1]/li")
    assert [li.xpath("string(a[1])") for li in items] == ["CL104", "CL201"]
    links = [li.xpath("a[2]/@href")[0] for li in items]
    assert links == [f"https://github.com/octo/reports/blob/{SHA}/reports/a.json#L8",
                     f"https://github.com/octo/reports/blob/{SHA}/reports/deep/" + "very-long-folder-name/" * 6
                     + "b.md#L1"]
    assert "snippet not found" in items[0].text_content()
    # The rejected URL in the message is text, never a link.
    assert not tree.xpath("//a[contains(@href, 'invented')]")


def test_locations_are_not_links_without_the_github_variables(repo: Repo, tmp_path: Path) -> None:
    repo.report(repo.cited(snippet="not in the capture at all, sadly"))
    summary = tmp_path / "summary.md"
    assert check_process(repo.root, "--summary-file", str(summary)).returncode == 1
    tree = shown(summary.read_text(encoding="utf-8"))
    [item] = tree.xpath("//h4/following-sibling::ul[1]/li")
    assert [a.text_content() for a in item.xpath("a")] == ["CL104"]  # the rule's help link only
    assert "line 8, col 18" in item.text_content()


def test_blob_url_encodes_the_path_and_refuses_malformed_variables(tmp_path: Path) -> None:
    (tmp_path / "sub dir").mkdir()
    assert blob_url(GITHUB, tmp_path / "sub dir", tmp_path) == \
        f"https://github.com/octo/reports/blob/{SHA}/sub%20dir/"
    assert blob_url(GITHUB, tmp_path, None) == f"https://github.com/octo/reports/blob/{SHA}/"
    for key, bad in (("GITHUB_SERVER_URL", "javascript:alert(1)//"), ("GITHUB_REPOSITORY", "a/b)[x](y"),
                     ("GITHUB_SHA", "main")):
        assert blob_url({**GITHUB, key: bad}, tmp_path, None) == ""
    assert blob_url(GITHUB, tmp_path, tmp_path / "elsewhere") == ""
    result = CheckResult(findings=[Finding("reports/a (1).json", 3, 1, "CL002", "error", "m")], files=1)
    out = io.StringIO()
    render(result, out, RenderOptions(blob_url=f"https://github.com/octo/reports/blob/{SHA}/"))
    [href] = shown(out.getvalue()).xpath("//li/a[2]/@href")
    assert href == f"https://github.com/octo/reports/blob/{SHA}/reports/a%20%281%29.json#L3"


def test_clean_run_passes_and_semantic_review_is_collapsible_with_snippet_in_context(
        repo: Repo, tmp_path: Path) -> None:
    repo.report(repo.cited(snippet="measured on 2026-07-01"),
                repo.cited(label="sales", snippet="Inventory held steady"))
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary), env=GITHUB)
    assert run.returncode == 0, run.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## citelint: passed\n\n1 file, 2 facts (2 cited, 0 unavailable)")
    tree = shown(text)
    assert "No findings." in tree.text_content()
    [details] = tree.xpath("//details")
    assert details.xpath("string(summary)").startswith("Semantic review: 2 unreviewed citations to read")
    entries = details.xpath(".//li")
    assert [e.xpath("string(strong)") for e in entries] == ["inventory", "sales"]
    # The label's unit hint; the snippet in bold with words of the capture around it.
    assert "unit 'items' does not appear in the snippet" in entries[0].text_content()
    quote = entries[0].xpath(".//blockquote")[0]
    assert quote.xpath("string(.//b)") == "measured on 2026-07-01"
    # The capture starts 27 characters before the snippet: all of it, no "…".
    assert quote.xpath("string(p[1])") == \
        "Synthetic source: 42 items, measured on 2026-07-01. Inventory held steady at 42 items."
    assert SOURCE_A in quote.text_content() and "captured 2026-07-01T00:00:00Z" in quote.text_content()
    assert entries[0].xpath("a/@href") == [f"https://github.com/octo/reports/blob/{SHA}/reports/r.json#L3"]


def test_hostile_text_in_snippets_messages_and_file_names_is_escaped(repo: Repo, tmp_path: Path) -> None:
    text = "Intro words here. " + HOSTILE + " and more words after it."
    repo.capture(SOURCE_A, text)
    name = "reports/<script>x\u202e::error::" + ".json"
    repo.report(repo.cited(snippet=HOSTILE), {"state": "unavailable", "label": HOSTILE, "reason": "r"}, name=name)
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary))
    assert run.returncode == 1, run.stderr
    raw = summary.read_text(encoding="utf-8")
    for bad in ("<script", "\x1b", "\u202e", "::error::", "::add-mask::"):
        assert bad not in raw, bad
    tree = shown(raw)
    assert not tree.xpath("//script") and not tree.xpath("//a[not(starts-with(@href, 'https://github.com/'))]")
    page = tree.text_content()
    # Shown as text a reviewer can read: the tag, the command, the escapes made visible.
    assert "reports/<script>x\\u202e::error::.json" in page
    assert "<script>alert(1)</script> ::error::pwned ::add-mask::x \\u001b[31mred \\u202eevil" in page
    [bold] = tree.xpath("//details//b")
    assert bold.text_content() == "<script>alert(1)</script> ::error::pwned ::add-mask::x \\u001b[31mred \\u202eevil"


def test_ten_thousand_citations_stay_under_one_mebibyte_with_verdict_counts_and_a_cut_note(
        repo: Repo, tmp_path: Path) -> None:
    """10,000 accepted citations made a 1.32 MB summary, which GitHub refuses."""
    labels = [f"claim-{i}" for i in range(10_000)]
    repo.config(labels={"claim-*": None})
    snippet = "Synthetic source: 42 items, measured on 2026-07-01."
    repo.report(*(repo.cited(label, snippet=snippet) for label in labels))
    repo.write("reports/bad.json", {"facts": [repo.cited("claim-x", snippet="nowhere in the capture, at all")]})
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary))
    assert run.returncode == 1, run.stderr
    raw = summary.read_bytes()
    assert len(raw) < SUMMARY_MAX_BYTES < 1024 * 1024
    text = raw.decode("utf-8")
    assert text.startswith("## citelint: failed: 1 error\n\n2 files, 10001 facts (10001 cited")
    assert "10000 for semantic review" in text.split("\n")[2]
    tree = shown(text)
    cut = tree.xpath("//p[strong[starts-with(., 'Cut to stay under')]]")[0].text_content()
    shown_entries = len(tree.xpath("//details//li"))
    assert 1000 < shown_entries < 10_000
    assert f"{10_000 - shown_entries:,} of 10,000 semantic-review entries are not shown" in cut
    assert "--format json" in cut and "--sarif-file" in cut
    # The finding is kept whole, ahead of the review list; the details element is closed.
    assert tree.xpath("string(//h4[1])") == "reports/bad.json (1)"
    assert text.rstrip().endswith("</details>")


def test_cap_cuts_findings_too_and_says_so() -> None:
    findings = [Finding(f"reports/r{i:04d}.json", 1, 1, "CL002", "error", "x" * 1400) for i in range(2000)]
    out = io.StringIO()
    render(CheckResult(findings=findings, files=2000), out, RenderOptions())
    raw = out.getvalue().encode("utf-8")
    assert len(raw) < SUMMARY_MAX_BYTES
    tree = shown(out.getvalue())
    assert tree.xpath("string(//h2)") == "citelint: failed: 2,000 errors"
    listed = len(tree.xpath("//h4/following-sibling::ul/li"))
    assert 100 < listed < 2000
    assert f"{2000 - listed:,} of 2,000 findings are not shown" in tree.text_content()


def test_accepted_facts_carry_context_and_capture_date(repo: Repo) -> None:
    """The check result carries what the summary shows, so the summary reads no capture."""
    from citelint.check.run import run_check
    from citelint.config import load_config

    repo.capture(SOURCE_A, "w" * 100 + " before words: the snippet here, then after words " + "z" * 100)
    repo.report(repo.cited(snippet="the snippet here"))
    result = run_check(load_config(None, repo.root), [], repo.root)
    [accepted] = result.accepted
    before, after = accepted.context
    assert len(before) == len(after) == CONTEXT_CHARS
    assert before.endswith(" before words: ") and after.startswith(", then after words ")
    assert accepted.retrieved_at == "2026-07-01T00:00:00Z"
    # The JSON output keeps its documented keys.
    assert "context" not in json.loads(repo.check("--format", "json").out)["accepted"][0]


def test_exit_2_summary_says_the_check_did_not_run(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    (repo.root / "citelint.yaml").write_text("sources: [\n<script>\u202e\n", encoding="utf-8")
    # Outside the project, as $GITHUB_STEP_SUMMARY is: a config that does not parse
    # may name any file of its project as evidence, so none of them gets the summary.
    inside = repo.write("summary.md", "earlier step\n")
    run = check_process(repo.root, "--summary-file", str(inside))
    assert run.returncode == 2 and inside.read_text(encoding="utf-8") == "earlier step\n"
    assert "cannot be read, so which files of its project are evidence or reports is unknown" in run.stderr
    summary = tmp_path_factory.mktemp("runner") / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    run = check_process(repo.root, "--summary-file", str(summary), "--format", "github")
    assert run.returncode == 2
    assert run.stdout.startswith("::error title=citelint::check did not run: config error")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## citelint: did not run (exit 2)\n\n")
    tree = shown(text)
    assert tree.xpath("string(//h2)") == "citelint: did not run (exit 2)"
    assert "The check did not run (exit 2): config error" in tree.text_content()
    assert "<script" not in text and "\u202e" not in text


@pytest.mark.parametrize("strict, heading", [(False, "citelint: passed with 1 warning"),
                                             (True, "citelint: failed: 1 warning (--strict)")])
def test_warnings_verdict_depends_on_strict(repo: Repo, tmp_path: Path, strict: bool, heading: str) -> None:
    repo.report(repo.cited(snippet="42 items"))  # CL105: occurs twice, a warning
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary), *(["--strict"] if strict else []))
    assert run.returncode == (1 if strict else 0)
    assert summary.read_text(encoding="utf-8").splitlines()[0] == "## " + heading


def test_review_entries_match_their_accepted_fact() -> None:
    """Each entry shows its own fact's snippet, found by position."""
    fact = AcceptedFact("r.json", 3, 5, "cited", "l1", source="https://e.org/", capture_sha256="ab" * 32,
                        snippet="first", offset=0, context=("", " tail"))
    # A long capture: whole words of context only, and "…" where it goes on.
    other = AcceptedFact("r.json", 9, 5, "cited", "l2", source="https://e.org/", capture_sha256="ab" * 32,
                         snippet="second", offset=500, context=("x" * 30 + " partial words before ", " after" * 20))
    notices = [Finding("r.json", 9, 5, "CL901", "notice", "m2"), Finding("r.json", 3, 5, "CL901", "notice", "m1")]
    out = io.StringIO()
    render(CheckResult(notices=notices, accepted=[fact, other], files=1), out, RenderOptions())
    tree = shown(out.getvalue())
    assert [li.xpath("string(strong)") for li in tree.xpath("//details//li")] == ["l1", "l2"]
    assert [b.text_content() for b in tree.xpath("//details//b")] == ["first", "second"]
    quotes = [q.xpath("string(p[1])") for q in tree.xpath("//details//blockquote")]
    assert quotes[0] == "first tail"
    assert quotes[1] == "… partial words before second" + " after" * 9 + "…"


def _differences(tree: lxml_html.HtmlElement) -> list[tuple[str, str, list[str]]]:
    """Each ``<pre>`` of the findings: its cited line, its capture line, its marked characters."""
    out = []
    for pre in tree.xpath(".//pre"):
        lines = pre.text_content().strip("\n").split("\n")
        out.append((lines[0], lines[1], [b.text_content() for b in pre.xpath(".//b")]))
    return out


def test_expertqa_faults_summary_shows_cited_and_captured_text_for_each_cl104(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    run = check_process(REPO_ROOT / "examples" / "expertqa-faults", "--summary-file", str(summary), env=GITHUB)
    assert run.returncode == 1, run.stderr
    tree = shown(summary.read_text(encoding="utf-8"))
    items = [li for li in tree.xpath("//h4/following-sibling::ul[1]/li") if li.xpath("string(a[1])") == "CL104"]
    assert len(items) == 3
    diffs = [_differences(li) for li in items]
    assert all(len(d) == 1 for d in diffs)
    # Faults 1 and 2: nothing of the capture starts like the snippet; the cited text is shown all the same.
    for (cited, captured, marked), start in zip((d[0] for d in diffs[:2]),
                                               ("Exposure to domestic violence", "However, you can exclude")):
        assert cited.startswith(f"cited:   {start}") and "no passage of this capture" in captured
        assert marked == []
    # Fault 3: the snippet's straight apostrophe over the capture's curly one, in the same column.
    cited, captured, marked = diffs[2][0]
    assert cited.removeprefix("cited:   ").startswith("…children or even towards pets – children's emotional")
    assert captured.removeprefix("capture: ").startswith("…children or even towards pets – children\u2019s emotional")
    assert cited.index("'") == captured.index("\u2019")
    assert marked == ["'", "\u2019"]
    assert ("The cited text has U+0027 APOSTROPHE where the capture has U+2019 RIGHT SINGLE QUOTATION MARK."
            in items[2].text_content())
    # The location links to the line at the commit, as for every finding.
    assert items[2].xpath("a[2]/@href") == [
        f"https://github.com/octo/reports/blob/{SHA}/examples/expertqa-faults/reports/faults.json#L22"]


def test_quotation_misses_cl204_and_cl205_show_both_texts_with_invisible_characters_named(
        repo: Repo, tmp_path: Path) -> None:
    repo.config(markdown=["reports/**/*.md"])
    repo.capture(SOURCE_B, "Another source: 17\u00a0items were sold in the second quarter, and <b>more</b>.",
                 when="2026-08-01T00:00:00Z")  # the newest revision, so the one both quotations are checked against
    repo.write("reports/q.md", (
        "Sales [were up](https://example.org/b.txt#:~:text=17%20items%20were%20sold) this year.\n\n"
        'The source says "17 items were sold in the second quarter, and <b>less</b>." '
        "[1](https://example.org/b.txt)\n"))
    summary = tmp_path / "summary.md"
    run = check_process(repo.root, "--summary-file", str(summary))
    assert run.returncode == 1, run.stderr
    raw = summary.read_text(encoding="utf-8")
    assert "<b>less" not in raw and "<b>more" not in raw  # the report's and the capture's markup, escaped
    tree = shown(raw)
    rules = [li.xpath("string(a[1])") for li in tree.xpath("//h4/following-sibling::ul[1]/li")]
    assert rules == ["CL204", "CL205"]
    (cl204,), (cl205,) = (_differences(li) for li in tree.xpath("//h4/following-sibling::ul[1]/li"))
    # A space against a no-break space: neither is visible, so each is named in the line itself.
    assert cl204[2] == ["⟨U+0020⟩", "⟨U+00A0⟩"]
    assert cl204[0] == "cited:   17⟨U+0020⟩items were sold"
    assert cl204[1].startswith("capture: 17⟨U+00A0⟩items were sold in the second quarter")
    assert "where the capture has U+00A0 NO-BREAK SPACE" in tree.text_content()
    # CL205 against the prose quotation: the capture's own text at the first difference, markup as text.
    assert cl205[2] == ["l", "<"]
    assert cl205[0].endswith("second quarter, and less.") and cl205[1].endswith("second quarter, and <b>more</b>.")
    assert not tree.xpath("//pre//b[not(parent::pre)]")  # only citelint's marks are elements


def test_hostile_capture_text_at_a_difference_is_escaped(repo: Repo, tmp_path: Path) -> None:
    repo.capture(SOURCE_A, "Intro words here. " + HOSTILE + " and more words after it.")
    repo.report(repo.cited(snippet="Intro words here. <script>alert(2)</script> ::error::pwned"))
    summary = tmp_path / "summary.md"
    assert check_process(repo.root, "--summary-file", str(summary)).returncode == 1
    raw = summary.read_text(encoding="utf-8")
    for bad in ("<script", "\x1b", "\u202e", "::error::", "::add-mask::"):
        assert bad not in raw, bad
    tree = shown(raw)
    assert not tree.xpath("//script")
    [(cited, captured, marked)] = _differences(tree)
    assert marked == ["2", "1"]
    assert "<script>alert(" in cited and "<script>alert(" in captured


def _review_entries(text: str) -> list[tuple[str, str]]:
    """(file heading, label) of each entry of the summary's semantic-review list."""
    tree = shown(text)
    details = [d for d in tree.xpath("//details") if d.xpath("string(summary)").startswith("Semantic review")]
    if not details:
        return []
    return [(li.xpath("string(preceding::h4[1])"), li.xpath("string(strong)")) for li in details[0].xpath(".//li")]


def test_with_base_the_review_list_holds_only_the_citations_the_change_added(repo: Repo, tmp_path: Path) -> None:
    from citelint.fingerprints import fact_fingerprint
    from conftest import run_cli
    from gitrepo import commit_all, git, init_repo

    init_repo(repo.root)
    repo.report(repo.cited(snippet="measured on 2026-07-01"),
                repo.cited(label="sales", snippet="Inventory held steady"), name="reports/old.json")
    commit_all(repo.root, "reviewed repository")
    git(repo.root, "checkout", "--quiet", "-b", "change")
    # A pull-request-shaped change: one report moved (its citations are not new), one added.
    git(repo.root, "mv", "reports/old.json", "reports/moved.json")
    snippet = "17 items were sold in the second quarter"
    repo.report(repo.cited(label="sales", source=SOURCE_B, snippet=snippet), name="reports/new.json")
    commit_all(repo.root, "add a report")
    summary = tmp_path / "summary.md"
    assert check_process(repo.root, "--base", "main", "--summary-file", str(summary)).returncode == 0
    text = summary.read_text(encoding="utf-8")
    assert _review_entries(text) == [("reports/new.json", "sales")]
    assert "2 more unreviewed citations were already on the base" in shown(text).text_content()
    fingerprint = fact_fingerprint("sales", SOURCE_B, repo.records[SOURCE_B].sha256, snippet)
    command = f"citelint review --approve {fingerprint[:16]} --by NAME"
    assert shown(text).xpath(f"//details//li/code[.='{command}']")
    # Without --base every unreviewed citation is listed.
    summary.unlink()
    assert check_process(repo.root, "--summary-file", str(summary)).returncode == 0
    assert len(_review_entries(summary.read_text(encoding="utf-8"))) == 3
    # Approving the added one clears the list; the summary names who judged it.
    assert run_cli("review", "--approve", fingerprint[:16], "--by", "ada@example.org", cwd=repo.root).code == 0
    commit_all(repo.root, "review")
    summary.unlink()
    assert check_process(repo.root, "--base", "main", "--summary-file", str(summary)).returncode == 0
    text = summary.read_text(encoding="utf-8")
    assert _review_entries(text) == []
    page = shown(text).text_content()
    assert "No unreviewed citation was added by this change (2 unreviewed citations on the base" in page
    assert "reviewed: supports, by ada@example.org at " in page
    # A base with no merge base (an unrelated history): every citation counts as added.
    git(repo.root, "checkout", "--quiet", "--orphan", "unrelated")
    commit_all(repo.root, "unrelated history")
    git(repo.root, "checkout", "--quiet", "change")
    summary.unlink()
    assert check_process(repo.root, "--base", "unrelated", "--summary-file", str(summary)).returncode == 0
    assert sorted(_review_entries(summary.read_text(encoding="utf-8"))) == [
        ("reports/moved.json", "inventory"), ("reports/moved.json", "sales")]


def test_quotations_join_the_review_list_with_their_sentence_and_approve_line(repo: Repo, tmp_path: Path) -> None:
    repo.config(markdown=["reports/**/*.md"])
    repo.write("reports/a.md", 'It says "Another source: 17 items were sold in the second quarter" '
                               "[1](https://example.org/b.txt), and <b>more</b>.\n")
    summary = tmp_path / "summary.md"
    assert check_process(repo.root, "--summary-file", str(summary)).returncode == 0
    raw = summary.read_text(encoding="utf-8")
    assert "<b>more" not in raw
    [item] = shown(raw).xpath("//details//li")
    assert item.xpath("string(strong)") == "quotation"
    assert item.xpath("string(.//blockquote//b)") == "Another source: 17 items were sold in the second quarter"
    assert item.xpath("string(.//blockquote/p[1])").startswith('It says "Another source')
    assert item.xpath("string(code)").startswith("citelint review --approve ")


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_report_name_that_is_not_utf8_is_shown_escaped_in_the_summary_and_the_reader_view(repo: Repo,
                                                                                           tmp_path: Path) -> None:
    """A file name with a byte that is not UTF-8 decodes to a lone surrogate, which a
    UTF-8 file cannot hold: the Markdown and HTML outputs show it as ``\\udcff``."""
    repo.report(repo.cited(snippet="not in the capture at all"), name="reports/r.json")
    name = os.fsdecode(b"reports/q\xff.json")
    os.rename(repo.root / "reports" / "r.json", repo.root / name)
    summary, sarif = tmp_path / "summary.md", tmp_path / "out.sarif"
    run = repo.check("--summary-file", str(summary), "--sarif-file", str(sarif))
    assert run.code == 1, run.err
    assert "q\\\\udcff\\.json" in summary.read_text(encoding="utf-8")
    assert json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    from conftest import run_cli

    for fmt in ("html", "md"):
        out = tmp_path / f"view.{fmt}"
        rendered = run_cli("render", name, "--format", fmt, "-o", str(out), cwd=repo.root)
        assert rendered.code == 1, rendered.err
        assert "q\\udcff" in out.read_text(encoding="utf-8").replace("\\\\", "\\")
