"""Command line behaviour: help, version, exit codes, formats, neutralised output."""

from __future__ import annotations

import json
import re

import pytest

from citelint import __version__
from citelint.model import DOCS_URL
from citelint.output import FORMATTERS
from conftest import SOURCE_A, SOURCE_B, Repo, run_cli


def test_help_has_examples_and_exit_codes() -> None:
    run = run_cli("check", "--help")
    assert run.code == 0
    assert "examples:" in run.out and "exit codes: 0 clean, 1 findings" in run.out


@pytest.mark.parametrize("command", [
    "check", "ls", "show", "migrate", "capture", "init", "rule", "attest", "context", "mcp"])
def test_every_command_help_has_examples(command: str) -> None:
    run = run_cli(command, "--help")
    assert run.code == 0 and "examples:" in run.out


def test_version_and_bad_arguments() -> None:
    run = run_cli("--version")
    assert run.code == 0 and __version__ in run.out
    run = run_cli("check", "--format", "xml")
    assert run.code == 2 and "invalid choice" in run.err
    assert run_cli().code == 2


def test_github_format_is_automatic_in_actions(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.report(repo.cited(snippet="missing words here"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = repo.check()
    assert run.code == 1
    assert run.lines[0].startswith("::error file=reports/r.json,line=8,col=18,endColumn=38,"
                                   "title=citelint (CL104)::snippet not found")


def test_json_format_and_summary_on_stderr(repo: Repo) -> None:
    repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "n/a"})
    run = repo.check("--format", "json")
    assert run.code == 0
    doc = json.loads(run.out)
    assert doc["citelint"] == __version__ and doc["counts"]["factsCited"] == 1
    cited = next(a for a in doc["accepted"] if a["state"] == "cited")
    from conftest import TEXT_A

    assert TEXT_A[cited["offset"]:].startswith(cited["snippet"])
    assert "citelint: 1 file" in run.err


def test_terminal_escapes_from_reports_are_neutralised(repo: Repo) -> None:
    # Untrusted text reaches messages through file names, labels and sources.
    repo.report(repo.cited(label="\x1b]0;owned\x07lab\u202eel", source="https://x.example/\x1b[2J"),
                name="reports/\x1b[31mred.json")
    run = repo.check()
    assert run.code == 1
    assert "\x1b" not in run.out and "\x07" not in run.out and "\u202e" not in run.out
    assert "reports/\\u001b[31mred.json:" in run.out


def test_summary_file_is_appended(repo: Repo, tmp_path_factory) -> None:
    repo.report(repo.cited(snippet="a | b <script>"), repo.cited(label="sales", snippet="Synthetic source: 42 items"))
    summary = tmp_path_factory.mktemp("s") / "summary.md"
    summary.write_text("previous\n")
    run = repo.check("--summary-file", str(summary))
    assert run.code == 1
    text = summary.read_text()
    assert text.startswith("previous\n## citelint")
    assert "- **error** [CL104](" in text and "<script>" not in text
    assert "<summary>Semantic review: 1 unreviewed citation to read" in text


def test_ls_and_show(repo: Repo) -> None:
    run = run_cli("ls", cwd=repo.root)
    assert run.code == 0 and SOURCE_A in run.out and "2 capture(s), 0 corrupt" in run.out
    run = run_cli("show", SOURCE_A, cwd=repo.root)
    assert run.code == 0 and "Synthetic source: 42 items" in run.out
    sha = repo.records[SOURCE_A].sha256
    assert run_cli("show", SOURCE_A, "--revision", sha[:8], cwd=repo.root).code == 0
    assert run_cli("show", SOURCE_A, "--revision", "ffff", cwd=repo.root).code == 1
    assert run_cli("show", "https://nowhere.example/", cwd=repo.root).code == 1


def test_show_names_revisions_tied_for_newest_instead_of_picking_one(repo: Repo) -> None:
    """Issue 23, item 4: with two revisions in the same second, `show SOURCE` has no newest to show."""
    first = repo.records[SOURCE_A]
    second = repo.capture(SOURCE_A, "Synthetic source, recaptured: 43 items.", first.retrieved_at)
    run = run_cli("show", SOURCE_A, cwd=repo.root)
    assert run.code == 2 and run.out == ""
    assert "2 revisions of this source share the newest retrievedAt" in run.err
    assert first.sha256 in run.err and second.sha256 in run.err and "--revision" in run.err
    assert run_cli("show", SOURCE_A, "--revision", second.sha256[:12], cwd=repo.root).code == 0
    newer = repo.capture(SOURCE_A, "Synthetic source, a day later: 44 items.", "2026-07-02T00:00:00Z")
    run = run_cli("show", SOURCE_A, cwd=repo.root)
    assert run.code == 0 and f"revision:    {newer.sha256}" in run.out


def test_rule_explains_with_examples() -> None:
    run = run_cli("rule", "CL104")
    assert run.code == 0 and "fails:" in run.out and "passes:" in run.out
    assert "\nWhy: The guarantee is that every cited excerpt occurs verbatim" in run.out
    assert "\nHow to fix: Copy the snippet character for character" in run.out
    assert run_cli("rule", "snippet-not-found").code == 0
    assert run_cli("rule", "CL999").code == 2


def test_summary_never_links_untrusted_urls(repo: Repo, tmp_path_factory) -> None:
    """Regression: the step summary turned a rejected URL into a live link."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    repo.write("reports/s.md", "See [x](https://evil.example/phish) or www.evil.example or a@evil.example.\n")
    repo.report({"state": "unavailable", "label": "zz", "reason": "n/a"})  # CL003 label 'zz'...
    summary = tmp_path_factory.mktemp("s") / "summary.md"
    run = repo.check("--summary-file", str(summary))
    assert run.code == 1
    rendered = cmarkgfm.github_flavored_markdown_to_html(summary.read_text(), options=Options.CMARK_OPT_UNSAFE)
    # The only links are the rules' help pages: no URL from a report is ever live.
    hrefs = re.findall(r'<a href="([^"]*)"', rendered)
    assert hrefs and all(h.startswith(DOCS_URL + "#cl") for h in hrefs) and "evil" in rendered
    # Messages quote with apostrophes; they must render as apostrophes, not as the
    # visible text "&#x27;" (which cmark would write as "&amp;#x27;").
    assert "&amp;#x27;" not in rendered and "label 'zz'" in rendered


def _cli(repo: Repo, *args: str, stdin: bytes = b"", env: dict | None = None):
    import os
    import subprocess
    import sys

    full = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "GITHUB_ACTIONS")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "citelint", *args], cwd=repo.root, input=stdin,
                          capture_output=True, env=full)


def test_clean_run_reads_clean_and_review_lists_citations(repo: Repo) -> None:
    repo.report(repo.cited(), name="reports/r.json")
    run = repo.check()
    assert run.code == 0 and run.findings() == [] and ": CL901 " not in run.out
    assert run.lines[-1] == ("1 accepted citation to review for meaning (citelint proves the excerpt, not that it "
                             "supports its label): `citelint check --review` lists them")
    listed = repo.check("--review")
    assert "semantic review (CL901): 1 accepted citation" in listed.out
    assert "  inventory  reports/r.json:3" in listed.out and "“Synthetic source: 42 items”" in listed.out
    assert "semantic review (CL901)" not in repo.check("--review", "--quiet").out


def test_statistics_exit_zero_and_output_file(repo: Repo) -> None:
    repo.report(repo.cited(snippet="Synthetic source: 43 items"), repo.cited("sales", snippet="not there at all"),
                repo.cited("inventory", snippet="42 items"), name="reports/r.json")
    stats = repo.check("--statistics")
    assert stats.code == 1 and stats.findings() == []
    assert stats.lines[:3] == ["2  CL104  snippet-not-found  (error)", "1  CL004  duplicate-label  (error)",
                               "1  CL105  snippet-ambiguous  (warning)"] or "CL104" in stats.lines[0], stats.out
    assert repo.check("--exit-zero").code == 0
    target = repo.root / "out.txt"
    written = repo.check("--output-file", str(target), "--exit-zero")
    assert written.code == 0 and written.out == "" and written.err.startswith("citelint: 1 file")
    assert "CL104" in target.read_text(encoding="utf-8")
    assert repo.check("--output-file", str(repo.root / "no" / "dir" / "x.txt")).code == 2
    # Written whole or not at all: never through a symlink, never into a FIFO, never over a report.
    import os

    victim = repo.root / "victim.txt"
    victim.write_text("keep me")
    (repo.root / "out.lnk").symlink_to(victim)
    refused = repo.check("-o", str(repo.root / "out.lnk"))
    assert refused.code == 2 and "symlink" in refused.err and victim.read_text() == "keep me"
    os.mkfifo(repo.root / "fifo")
    assert repo.check("-o", str(repo.root / "fifo")).code == 2
    report = repo.root / "reports" / "r.json"
    before = report.read_bytes()
    over = repo.check("-o", str(report))
    assert over.code == 2 and "it is a report the config matches" in over.err and report.read_bytes() == before
    again = repo.check("--output-file", str(target), "--exit-zero")  # an existing regular file is replaced
    assert again.code == 0 and "CL104" in target.read_text(encoding="utf-8")


def test_report_on_stdin_is_checked_as_the_named_file(repo: Repo) -> None:
    good = json.dumps({"facts": [repo.cited()]}).encode()
    bad = json.dumps({"facts": [repo.cited(snippet="Synthetic source: 43 items")]}).encode()
    ok = _cli(repo, "check", "-", "--stdin-filename", "reports/draft.json", stdin=good)
    assert ok.returncode == 0, ok.stderr
    failed = _cli(repo, "check", "-", "--stdin-filename", "reports/draft.json", stdin=bad)
    assert failed.returncode == 1 and failed.stdout.decode().startswith("reports/draft.json:1:")
    assert not (repo.root / "reports" / "draft.json").exists()
    for name in ("notes/draft.json", "/etc/draft.json", "captures/x.json"):
        refused = _cli(repo, "check", "-", "--stdin-filename", name, stdin=bad)
        assert refused.returncode == 2 and b"would not be checked" in refused.stderr, refused.stderr
    for args in (["check", "-"], ["check", "--stdin-filename", "reports/x.json"],
                 ["check", "-", "--stdin-filename", "reports/x.json", "--fix"]):
        refused = _cli(repo, *args, stdin=good)
        assert refused.returncode == 2 and b"standard input" in refused.stderr, refused.stderr
    huge = _cli(repo, "check", "-", "--stdin-filename", "reports/x.json", stdin=b" " * (10 * 1024 * 1024 + 5))
    assert huge.returncode == 1 and b"larger than" in huge.stdout


def test_force_color_and_no_color(repo: Repo) -> None:
    repo.report(repo.cited(snippet="Synthetic source: 43 items"), name="reports/r.json")
    forced = _cli(repo, "check", env={"FORCE_COLOR": "1"})
    assert b"\x1b[31mCL104" in forced.stdout
    assert b"\x1b[" not in _cli(repo, "check", env={"NO_COLOR": "1"}).stdout
    assert b"\x1b[" not in _cli(repo, "check", env={"FORCE_COLOR": "0"}).stdout
    assert b"\x1b[" not in _cli(repo, "check", "--color", "never", env={"FORCE_COLOR": "1"}).stdout


def test_ls_and_show_as_json(repo: Repo) -> None:
    record = repo.records[SOURCE_A]
    listed = run_cli("ls", "--format", "json", cwd=repo.root)
    assert listed.code == 0
    doc = json.loads(listed.out)
    assert doc["format"] == "citelint.ls/1" and doc["corrupt"] == [] and doc["legacy"] == []
    [entry] = [c for c in doc["captures"] if c["source"] == SOURCE_A]
    assert entry["revision"] == record.sha256 and entry["bytes"] == record.bytes and entry["extractor"] is None
    assert entry["signatures"] == [] and entry["batch"] is None
    bad = repo.root / entry["path"]
    bad.write_text(bad.read_text().replace("42 items", "43 items"))
    broken = json.loads(run_cli("ls", "--format", "json", cwd=repo.root).out)
    assert [c["path"] for c in broken["corrupt"]] == [entry["path"]]
    assert run_cli("ls", "--format", "json", cwd=repo.root).code == 1
    shown = run_cli("show", SOURCE_B, "--format", "json", cwd=repo.root)
    assert shown.code == 0
    data = json.loads(shown.out)
    assert data["text"] == repo.records[SOURCE_B].text and data["revision"] == repo.records[SOURCE_B].sha256


@pytest.mark.parametrize("mark", ["\u061c", "\u200e", "\u200f", "\u202e", "\u2066", "\u2069"])
def test_every_bidi_mark_is_made_visible(mark: str) -> None:
    """Regression: U+061C ARABIC LETTER MARK was passed through by every escaper."""
    from citelint.escape import html_text, markdown_cell, terminal

    code = f"u{ord(mark):04x}"
    for shown in (terminal(f"a{mark}b"), html_text(f"a{mark}b"), markdown_cell(f"a{mark}b")):
        assert mark not in shown and code in shown


def test_review_entries_are_built_only_when_read_and_match_their_count(repo: Repo) -> None:
    from citelint.check.run import run_check
    from citelint.config import load_config

    repo.config(labels={"inventory": None, "sales": None, "stock": None})
    repo.report(repo.cited(), repo.cited(label="sales", snippet="Inventory held steady"),
                {"state": "unavailable", "label": "stock", "reason": "not published"}, name="reports/r.json")
    result = run_check(load_config(None, repo.root), [], repo.root)
    # Counted without locating a fact: the entries wait until a formatter reads them.
    assert result.review_count == 2 and result.__dict__["_notices"] == [] and result.__dict__["_accepted"] == []
    assert sorted((n.path, n.line, n.col, n.rule) for n in result.notices) == [
        ("reports/r.json", 3, 5, "CL901"), ("reports/r.json", 10, 5, "CL901")]
    assert result.review_count == len(result.notices) == 2
    assert [(a.line, a.state, a.label) for a in result.accepted] == [
        (3, "cited", "inventory"), (10, "cited", "sales"), (17, "unavailable", "stock")]


def test_semantic_review_raised_to_a_warning_is_a_finding_at_each_fact(repo: Repo) -> None:
    repo.config(rules={"CL901": "warning"})
    repo.report(repo.cited(), repo.cited(label="sales", snippet="Inventory held steady"), name="reports/r.json")
    run = repo.check()
    assert run.code == 0
    assert [line.split(" [")[0] for line in run.findings("CL901")] == [
        "reports/r.json:3:5: CL901 label 'inventory' is not verified by citelint, only the excerpt: period '2026' "
        "does not appear in the snippet",
        "reports/r.json:10:5: CL901 label 'sales' is not verified by citelint, only the excerpt: check that the "
        "snippet supports this label"]
    assert "for semantic review" not in run.out and "to review for meaning" not in run.out
    assert repo.check("--strict").code == 1


@pytest.mark.parametrize("fmt", sorted(FORMATTERS))
def test_what_the_check_does_for_a_format_is_its_registry_entry(repo: Repo, fmt: str) -> None:
    """The CLI asks the format's properties, never its name: the summary line goes to
    stderr for a machine-readable format, and a check that cannot run says why on the
    output of a format with a did-not-run notice."""
    form = FORMATTERS[fmt]
    repo.report(repo.cited(snippet="Inventory held steady at 42 items."))
    run = repo.check("--format", fmt)
    assert run.code == 0 and run.err.startswith("citelint: 1 file") == form.machine
    (repo.root / "citelint.yaml").write_text("sources: 3\n", encoding="utf-8")
    broken = repo.check("--format", fmt)
    assert broken.code == 2 and broken.err.startswith("citelint: config error")
    assert ("check did not run" in broken.out) == form.not_run and bool(broken.out) == form.not_run


def fresh_check(argv: list[str], shown: str) -> str:
    """Run ``citelint argv`` in-process in a fresh interpreter in ``examples/expertqa``, then
    print its exit status and the expression ``shown`` (of ``sys.modules``); the output."""
    import subprocess
    import sys

    from conftest import REPO_ROOT

    code = ("import io, sys\nfrom citelint.cli import main\n"
            f"code = main({argv!r}, stdout=io.StringIO(), stderr=io.StringIO())\n"
            f"print(code, {shown})\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT / "examples" / "expertqa",
                         capture_output=True, text=True)
    return out.stdout + out.stderr


def test_a_fact_report_check_loads_neither_markdown_checking_nor_the_evidence_writer() -> None:
    """A read-only check of one fact report, in a fresh interpreter: the Markdown stage
    (cmark-gfm, prose claims) and the writer of captures are never imported."""
    out = fresh_check(["check", "reports/q2.json"], "sorted(m for m in sys.modules if m in ("
                      "'citelint.check.markdown', 'citelint.store.writer', 'citelint.links', 'cmarkgfm'))")
    assert out == "0 []\n", out


def test_a_check_loads_no_harness_library() -> None:
    """``citelint check`` in a fresh interpreter imports neither the harnesses nor their
    libraries (LangChain, the MCP SDK, pytest), whatever is installed."""
    out = fresh_check(["check"], "sorted({m.split('.')[0] for m in sys.modules} & {'langchain_core', 'mcp', "
                      "'pytest', 'anyio', 'pydantic'}), sorted(m for m in sys.modules "
                      "if m.startswith('citelint.integrations'))")
    assert out == "0 [] []\n", out
