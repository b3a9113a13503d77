"""Counts, lists and hints that tell the truth, and exit 2 that still speaks in CI."""

from __future__ import annotations

import json

import pytest

from citelint.escape import is_invisible
from citelint.excerpts import count_overlapping, explain_miss, shown_digests
from conftest import SOURCE_A, Repo


@pytest.mark.parametrize("snippet", ["\u200b", " \u00a0\u2007", "\u00ad\u200d", "\u202e\u2066\u2069",
                                     "\ufe0f\U000e0101", "\u3164\u2800", "\U000e0041\n\t"])
def test_invisible_snippets(snippet: str) -> None:
    assert is_invisible(snippet)


@pytest.mark.parametrize("snippet", ["a", "\u200bx", "😀", "١", "\u0301e"])
def test_visible_snippets(snippet: str) -> None:
    assert not is_invisible(snippet)


#: Default_Ignorable_Code_Point, as Unicode 15.1's DerivedCoreProperties.txt lists it.
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]


def test_every_default_ignorable_and_unassigned_code_point_is_invisible() -> None:
    """Issue 23: a hand list let U+17B4, U+180B, U+2065, U+FFF0 and unassigned U+0378 through."""
    for lo, hi in DEFAULT_IGNORABLE:
        for code in range(lo, hi + 1):
            assert is_invisible(chr(code) * 2), hex(code)
    assert is_invisible("\u0378\U0001fffe")  # unassigned, a noncharacter (both Cn)
    assert not is_invisible("\U000f0000")  # private use is shown (as a glyph or a box), so it is visible


def test_invisible_snippet_is_an_error_even_when_it_occurs(repo: Repo) -> None:
    repo.capture(SOURCE_A, "Invisible\u200b\u200bmarks\u200b\u200b hide here, and the rest is plain text.")
    repo.report(repo.cited(snippet="\u200b\u200b"))
    run = repo.check()
    assert run.code == 1
    assert run.findings("CL108") == [
        "reports/r.json:8:18: CL108 snippet has no visible character (only whitespace, zero-width or format "
        "characters); quote readable text from the capture [snippet-invisible]"]
    assert not run.findings("CL901")


@pytest.mark.parametrize("snippet", ["Elided text … passage", "Elided text ... passage", "Elided [...] passage"])
def test_a_snippet_with_an_ellipsis_is_told_it_is_one_passage(repo: Repo, snippet: str) -> None:
    """Prose quotations may elide (CL205); a fact's snippet is one contiguous passage, and CL104 says so."""
    repo.capture(SOURCE_A, "Elided text stands here; the rest of the passage is plain text.")
    repo.report(repo.cited(snippet=snippet))
    run = repo.check()
    [finding] = run.findings("CL104")
    assert "a snippet is one contiguous passage of the capture and cannot elide with an ellipsis" in finding
    repo.report(repo.cited(snippet="Elided text stands here"))
    assert "cannot elide" not in repo.check().out


def test_cl108_cannot_be_lowered(repo: Repo) -> None:
    repo.config(rules={"CL108": "warning"})
    run = repo.check()
    assert run.code == 2 and "CL108" in run.err


def test_overlapping_occurrences_are_counted() -> None:
    assert count_overlapping("aa", "aaaa") == 3
    assert count_overlapping("abab", "ababab") == 2
    assert count_overlapping("x", "yyy") == 0


def test_digests_side_by_side_are_whole_and_a_lone_one_is_cut() -> None:
    a = "0123456789abcdef" + "0" * 48
    b = "0123456789abcdef" + "1" * 48
    c = "f" * 64
    assert shown_digests([a, b, c]) == {a: a, b: b, c: c}
    assert shown_digests([c, c]) == {c: c[:12] + "…"}


def test_missing_variation_selector_is_named() -> None:
    hint = explain_miss("I love it \u2764 a lot, really", "Quote: I love it \u2764\ufe0f a lot, really.")
    assert "variation selector" in hint and "U+FE0F VARIATION SELECTOR-16" in hint


def test_schema_failures_count_as_invalid_facts(repo: Repo) -> None:
    repo.report(repo.cited(), {"state": "cited", "label": "sales"}, {"state": "unavailable", "label": "x"})
    run = repo.check("--format", "json")
    counts = json.loads(run.out)["counts"]
    assert (counts["factsCited"], counts["factsUnavailable"], counts["factsInvalid"]) == (1, 0, 2)
    assert "3 facts (1 cited, 0 unavailable, 2 invalid)" in run.err


def test_strict_quiet_prints_the_warnings_that_fail(repo: Repo) -> None:
    repo.report(repo.cited(snippet="42 items"))  # CL105: short snippet, a warning
    quiet = repo.check("--quiet")
    assert quiet.code == 0 and not quiet.findings()
    strict = repo.check("--strict", "--quiet")
    assert strict.code == 1
    assert [f.split(": ")[1].split()[0] for f in strict.findings()] == ["CL105"]
    assert not [ln for ln in strict.lines if "CL901" in ln]


def test_config_error_under_github_annotates_and_summarises(repo: Repo, tmp_path_factory) -> None:
    (repo.root / "citelint.yaml").write_text("sources: [\n", encoding="utf-8")
    summary = tmp_path_factory.mktemp("s") / "summary.md"
    run = repo.check("--format", "github", "--summary-file", str(summary))
    assert run.code == 2
    [annotation] = run.lines
    assert annotation.startswith("::error title=citelint::check did not run: config error: ")
    assert run.err.startswith("citelint: config error: ")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## citelint: did not run (exit 2)\n\n**The check did not run** (exit 2): config error")
    assert "Fix the problem above" in text


def test_usage_error_under_github_annotates(repo: Repo) -> None:
    run = repo.check("--format", "github", "reports/missing.json")
    assert run.code == 2
    assert run.out == "::error title=citelint::check did not run: reports/missing.json: no such file or directory\n"


def test_usage_error_in_text_format_prints_only_stderr(repo: Repo) -> None:
    run = repo.check("reports/missing.json")
    assert (run.code, run.out) == (2, "")
    assert run.err == "citelint: reports/missing.json: no such file or directory\n"


# ---------------------------------------------------------------- values Python can't hold sensibly

@pytest.mark.parametrize("name, content", [
    ("r.json", '{"facts": [{"state": "unavailable", "label": "sales", "reason": "\\ud800 x"}]}'),
    ("r.yaml", 'facts:\n  - state: unavailable\n    label: sales\n    reason: "\\ud800 x"\n'),
])
def test_lone_surrogate_in_a_report_is_cl001(repo: Repo, name: str, content: str) -> None:
    repo.write(f"reports/{name}", content)
    for fmt in ("text", "json", "sarif", "github"):
        run = repo.check("--format", fmt)
        assert run.code == 1, run.err
        if fmt == "json":
            [finding] = json.loads(run.out)["findings"]
            assert (finding["rule"], finding["line"] > 0) == ("CL001", True)
        else:
            assert "lone surrogate" in run.out
    [line] = repo.check().findings("CL001")
    assert line.startswith(f"reports/{name}:{'1:65' if name.endswith('json') else '4:13'}: CL001 the string "
                           "holds a lone surrogate"), line


def test_surrogate_pair_escape_is_text(repo: Repo) -> None:
    repo.write("reports/r.json", '{"facts": [{"state": "unavailable", "label": "sales", "reason": "\\ud83d\\ude00"}]}')
    assert repo.check().code == 0


@pytest.mark.parametrize("value, words", [
    ("9" * 5000, "capture.timeout_s: the number 99999999999999999999… has 5000 digits"),
    (".nan", "capture.timeout_s: nan is not a number a setting can hold"),
    ("-.inf", "capture.timeout_s: -inf is not a number a setting can hold"),
])
def test_config_numbers_python_cannot_hold_sensibly(repo: Repo, value: str, words: str) -> None:
    (repo.root / "citelint.yaml").write_text(f"sources: [https://example.org/a.txt]\ncapture:\n  timeout_s: {value}\n",
                                             encoding="utf-8")
    run = repo.check()
    assert run.code == 2 and words in run.err, run.err
    assert "internal error" not in run.err


def test_config_surrogate_in_sources_names_its_place(repo: Repo) -> None:
    (repo.root / "citelint.yaml").write_text('sources: ["https://example.org/\\ud800"]\n', encoding="utf-8")
    run = repo.check()
    assert run.code == 2
    assert run.err.startswith("citelint: config error: citelint.yaml:1:11: the string holds "
                              "a lone surrogate"), run.err


def test_pyproject_numbers_python_cannot_hold_sensibly(repo: Repo) -> None:
    (repo.root / "citelint.yaml").unlink()
    (repo.root / "pyproject.toml").write_text(
        '[tool.citelint]\nsources = ["https://example.org/a"]\n[tool.citelint.capture]\nmax_bytes = '
        + "9" * 5000 + "\n", encoding="utf-8")
    run = repo.check()
    assert run.code == 2 and "pyproject.toml:4:1: max_bytes: a number has too many digits" in run.err, run.err


# ---------------------------------------------------------------- output streams

def _console(*args: str, cwd, **kwargs):  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    code = "import sys; from citelint.cli import main_exit; sys.argv = ['citelint', *sys.argv[1:]]; main_exit()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, **kwargs)


def test_closed_stdout_is_exit_2_with_one_line(repo: Repo) -> None:
    import os

    repo.report(repo.cited())
    done = _console("check", cwd=repo.root, stdout=None, pass_fds=(), preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr == "citelint: standard output is closed; nothing could be reported\n"


def test_non_utf8_stdout_is_exit_2_with_one_line(repo: Repo) -> None:
    import os

    repo.report(repo.cited())
    done = _console("check", cwd=repo.root, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("citelint: standard output uses the ascii encoding") and \
        done.stderr.count("\n") == 1


def test_char_position_reads_escapes_quotes_and_plain_scalars() -> None:
    """CL104 points at the snippet's first differing character: its column in the
    source, escapes (JSON, YAML double and single quotes) counted as one character."""
    from citelint.model import Position
    from citelint.reports.columns import char_position

    text = 'x\n  "snippet": "a\\"b\\u00e9\\ud83d\\ude00c",\n'
    start = Position(2, 14, 2, 41)
    assert text.splitlines()[1][13] == '"'
    cols = [char_position(text, start, at).col for at in range(6)]
    # a, \", b, \u00e9, the surrogate pair (one character), c
    assert cols == [14, 16, 18, 19, 25, 37]
    assert char_position(text, start, 7) == start  # past the end: the value's start
    yaml_text = "snippet: 'it''s here'\nplain: two words here\n"
    assert char_position(yaml_text, Position(1, 10, 1, 22), 3).col == 15  # '' is one quote
    assert char_position(yaml_text, Position(2, 8, 2, 22), 4).col == 12
    block = "snippet: |\n  text\n"
    assert char_position(block, Position(1, 10, 2, 7), 2) == Position(1, 10, 2, 7)


def test_a_fact_reports_its_label_source_and_snippet_problems_at_once(repo: Repo) -> None:
    """An unapproved label (CL003) no longer hides a snippet miss (CL104); a fact that
    fails the schema still has its label judged."""
    repo.report(repo.cited(label="nope", snippet="Synthetic source: 43 items"),
                {"state": "unavailable", "label": "also-nope"}, name="reports/r.json")
    run = repo.check()
    assert run.code == 1
    assert sorted(f.split(": ")[1].split()[0] for f in run.findings()) == ["CL002", "CL003", "CL003", "CL104"], \
        run.out
    assert "label 'nope' is not approved" in run.out and "label 'also-nope' is not approved" in run.out
    assert "semantic review" not in run.out


@pytest.mark.parametrize("snippet, capture, cited, captured", [
    # A zero-width space the reader cannot see: the capture's text resumes one character on.
    ("the rate is 0.18 EUR per kilometre", "Today the rate is 0.18\u200b EUR per kilometre.", "", "\u200b"),
    # A composed letter against a decomposed one (NFC vs NFD).
    ("the caf\u00e9 said we sold 17 items", "so the cafe\u0301 said we sold 17 items", "\u00e9", "e"),
    # The start occurs, then one digit differs.
    ("the program cost the state roughly $500,000", "the program cost the state roughly $449,000 in", "5", "4"),
])
def test_a_miss_keeps_both_texts_at_the_first_difference(snippet: str, capture: str, cited: str,
                                                         captured: str) -> None:
    from citelint.excerpts import explain_miss_at

    miss = explain_miss_at(snippet, capture)
    d = miss.difference
    assert d.aligned
    # Both texts share what comes before; each goes on from the differing character.
    assert snippet[:miss.at].endswith(d.before) and snippet[miss.at:].startswith(d.cited)
    assert (d.before + d.captured) in capture
    if cited:
        assert d.cited.startswith(cited)
    assert d.captured.startswith(captured)


def test_a_miss_with_nothing_alike_shows_the_cited_text_and_the_nearest_passage() -> None:
    from citelint.excerpts import explain_miss_at

    d = explain_miss_at("Nothing of this sentence is in the capture at all.",
                        "A capture about other things.").difference
    assert not d.aligned and d.before == "" and d.cited.startswith("Nothing of this") and d.captured == ""


@pytest.mark.parametrize("snippet, capture, at, captured", [
    # A backquote folds to an apostrophe inside a run of plain ASCII: the miss points at it.
    ("say 'yes' now please", "we say `yes` now please", 4, "`yes` now"),
    # A run of spaces in the snippet, one space in the capture, after a long plain run.
    ("a long plain run  then a gap", "x a long plain run then a gap", 17, "then a gap"),
    # A run of spaces and a line break in the capture, between plain runs.
    ("rate rose to 4.1 million", "rate rose  to\n4.1 million", 10, " to\n4.1"),
])
def test_a_near_miss_points_into_plain_text_at_the_character_that_differs(snippet: str, capture: str, at: int,
                                                                          captured: str) -> None:
    from citelint.excerpts import explain_miss_at

    miss = explain_miss_at(snippet, capture)
    assert miss.hint.startswith("near miss (") and f"at snippet character {at + 1} " in miss.hint
    assert miss.at == at and miss.difference.captured.startswith(captured)
