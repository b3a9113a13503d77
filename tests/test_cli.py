"""Command line behaviour: help, version, exit codes, formats, neutralised output."""

from __future__ import annotations

import json

import pytest

from conftest import SOURCE_A, Repo, run_cli
from citelint import __version__


def test_help_has_examples_and_exit_codes() -> None:
    run = run_cli("check", "--help")
    assert run.code == 0
    assert "examples:" in run.out and "exit codes: 0 clean, 1 findings" in run.out


@pytest.mark.parametrize("command", ["check", "ls", "show", "migrate", "capture", "init", "rule", "attest"])
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
    assert "| error | CL104 |" in text and "<script>" not in text and "### Semantic review (1)" in text


def test_ls_and_show(repo: Repo) -> None:
    run = run_cli("ls", cwd=repo.root)
    assert run.code == 0 and SOURCE_A in run.out and "2 capture(s), 0 corrupt" in run.out
    run = run_cli("show", SOURCE_A, cwd=repo.root)
    assert run.code == 0 and "Synthetic source: 42 items" in run.out
    sha = repo.records[SOURCE_A].sha256
    assert run_cli("show", SOURCE_A, "--revision", sha[:8], cwd=repo.root).code == 0
    assert run_cli("show", SOURCE_A, "--revision", "ffff", cwd=repo.root).code == 1
    assert run_cli("show", "https://nowhere.example/", cwd=repo.root).code == 1


def test_rule_explains_with_examples() -> None:
    run = run_cli("rule", "CL104")
    assert run.code == 0 and "fails:" in run.out and "passes:" in run.out
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
    assert "<a " not in rendered and "evil" in rendered
    # Messages quote with apostrophes; they must render as apostrophes, not as the
    # visible text "&#x27;" (which cmark would write as "&amp;#x27;").
    assert "&amp;#x27;" not in rendered and "label 'zz'" in rendered
