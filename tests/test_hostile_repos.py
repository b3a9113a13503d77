"""A hostile contributor controls file types, symlinks and names: reads stay
inside the project, nothing is skipped silently, --fix writes only real files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from audit import watching
from conftest import SOURCE_A, Repo, run_cli


@pytest.fixture
def secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("outside") / "secret.json"
    path.write_text('{"facts": [{"state": "unavailable", "label": "sales", "reason": "SECRET-TOKEN"}]}')
    return path


@pytest.mark.parametrize("name", ["reports/evil.json", "reports/evil.md"])
@pytest.mark.parametrize("named", [False, True])
def test_a_symlink_leading_outside_is_never_read(repo: Repo, secret: Path, name: str, named: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    link = repo.root / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)
    with watching() as events:
        run = repo.check(name) if named else repo.check()
    assert run.code == 1
    assert run.findings("CL001") == [f"{name}:1:1: CL001 not read: it is a symlink to {secret}, outside the "
                                     f"project directory {repo.root.resolve()} [report-unreadable]"]
    assert not events.read(str(secret))
    assert "SECRET-TOKEN" not in run.out + run.err


def test_a_path_through_a_symlinked_directory_is_matched_by_its_real_location(
        repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo.report(repo.cited(snippet="not in the capture"))
    alias = tmp_path_factory.mktemp("elsewhere") / "alias"
    alias.symlink_to(repo.root, target_is_directory=True)
    direct = repo.check("reports/r.json")
    for given in (str(alias / "reports" / "r.json"), str(repo.root / "reports" / "r.json")):
        run = repo.check(given)
        assert run.code == 1 and run.findings("CL104") == direct.findings("CL104") != [], run.err


def test_a_file_matched_by_both_glob_lists_is_checked_as_its_extension_says(repo: Repo) -> None:
    repo.config(reports=["reports/**"], markdown=["reports/**"])
    repo.write("reports/answer.md", f"See [the source]({SOURCE_A}) and [this](https://example.org/invented).\n")
    repo.report(repo.cited())
    run = repo.check()
    assert run.findings("CL201") and "2 files" in run.out and "2 links (1 grounded)" in run.out


def test_a_report_glob_matching_a_text_file_says_why_it_was_skipped(repo: Repo) -> None:
    repo.config(reports=["reports/*"])
    repo.write("reports/notes.txt", "free text")
    run = repo.check("reports/notes.txt")
    assert run.err.startswith("citelint: skipped reports/notes.txt: matched by `reports`, but a fact report is "
                              "a .json, .yaml or .yml file\n")


def test_a_named_file_that_is_not_a_report_is_listed_as_skipped(repo: Repo) -> None:
    repo.write("package.json", "{}")
    run = repo.check("package.json")
    assert run.code == 0
    assert run.err.splitlines()[0] == ("citelint: skipped package.json: matches none of the config's `reports` or "
                                       "`markdown` globs")
    assert "skipped" not in repo.check("--quiet", "package.json").err


@pytest.mark.parametrize("captures", [".", "..", "./"])
def test_a_capture_store_overlapping_the_project_is_a_config_error(repo: Repo, captures: str) -> None:
    repo.config(captures=captures)
    run = repo.check()
    assert run.code == 2
    assert "would make the project itself the capture store" in run.err


def test_a_run_that_matches_nothing_says_so_and_fails_with_strict(repo: Repo) -> None:
    run = repo.check()
    assert run.code == 0
    assert "no file matched the config's `reports` or `markdown` globs, so nothing was checked" in run.err
    strict = repo.check("--strict")
    assert strict.code == 1 and "failing because of --strict" in strict.err


@pytest.mark.parametrize("how", ["file", "parent"])
def test_fix_never_writes_through_a_symlink(repo: Repo, how: str) -> None:
    real_dir = repo.root / "reports" / "2026"
    real_dir.mkdir(parents=True)
    real = real_dir / "answer.md"
    real.write_text("See [this](https://example.org/invented).\n")
    if how == "file":
        (repo.root / "reports" / "latest.md").symlink_to(real)
        name = "reports/latest.md"
    else:
        (repo.root / "reports" / "current").symlink_to(real_dir, target_is_directory=True)
        name = "reports/current/answer.md"
    before = real.read_bytes()
    run = repo.check("--fix", name)
    assert real.read_bytes() == before
    assert os.path.islink(repo.root / "reports" / ("latest.md" if how == "file" else "current"))
    assert f"note: --fix left {name} unchanged: " in run.out, run.out
    assert run.findings("CL201")


def test_a_symlink_to_a_report_never_hides_the_report_itself(repo: Repo) -> None:
    real = repo.write("reports/2026/answer.md", "See [this](https://example.org/invented).\n")
    (repo.root / "reports" / "latest.md").symlink_to(real)
    run = repo.check("--fix")
    assert real.read_text() == "See this.\n"
    assert "1 file" in run.out


def test_fix_still_fixes_a_regular_file(repo: Repo) -> None:
    path = repo.write("reports/answer.md", "See [this](https://example.org/invented).\n")
    run_cli("check", "--fix", cwd=repo.root)
    assert path.read_text() == "See this.\n"


# ---------------------------------------------------------------- work bounded by meaning

def _timed(repo: Repo) -> tuple[float, object]:
    import time

    start = time.perf_counter()
    run = repo.check("--jobs", "1")
    return time.perf_counter() - start, run


@pytest.mark.parametrize("kind", ["json", "yaml"])
def test_a_report_of_junk_facts_is_bounded(repo: Repo, kind: str) -> None:
    size = 1024 * 1024
    fact = {"state": "unavailable", "label": "sales", "reason": "not published"}
    if kind == "json":
        import json

        one = json.dumps(fact) + ", "
        clean = '{"facts": [' + (one * (size // len(one))).rstrip(", ") + "]}"
        junk = '{"facts": [' + ",".join(["1"] * (size // 2)) + "]}"
    else:
        one = "  - {state: unavailable, label: sales, reason: not published}\n"
        clean = "facts:\n" + one * (size // len(one))
        junk = "facts:\n" + "  - 1\n" * (size // 6)
    repo.write(f"reports/r.{kind}", clean)
    clean_time, clean_run = _timed(repo)
    assert clean_run.code == 1  # CL004: the label repeats; what matters is the time
    repo.write(f"reports/r.{kind}", junk)
    junk_time, run = _timed(repo)
    assert run.code == 1
    schema = run.findings("CL002")
    assert len(schema) == 101, run.out[-500:]
    assert "schema checking stopped at 100 findings in this file" in schema[-1]
    assert junk_time < 3 * clean_time + 2, (junk_time, clean_time)


def test_repeated_findings_are_capped_with_a_count(repo: Repo) -> None:
    facts = [{"state": "unavailable", "label": f"unknown-{i}", "reason": "n/a"} for i in range(250)]
    repo.report(*facts)
    run = repo.check()
    lines = run.findings("CL003")
    assert len(lines) == 101
    assert lines[-1].endswith("CL003 150 more CL003 (unknown-label) findings in this file not shown (at most 100 "
                              "per rule); fix these first [unknown-label]")


def test_near_miss_explanations_are_budgeted_per_capture(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import citelint.excerpts as excerpts

    # A budget of 20 explanations for this capture: 20 times its length in characters.
    monkeypatch.setattr(excerpts, "NEAR_MISS_CHARS", 20 * len(repo.records[SOURCE_A].text))
    facts_ = [repo.cited(label=f"l{i}", snippet=f"Synthetic source:  4{i} items") for i in range(30)]
    repo.config(labels=[f"l{i}" for i in range(30)])
    repo.report(*facts_)
    run = repo.check()
    misses = run.findings("CL104")
    assert len(misses) == 30
    explained = [m for m in misses if "not explained" not in m]
    assert len(explained) == 20
    assert sum("not explained: near misses are explained for at most 20 snippets against this capture" in m
               for m in misses) == 10


def test_a_short_capture_explains_every_miss(repo: Repo) -> None:
    facts_ = [repo.cited(label=f"l{i}", snippet=f"Synthetic source:  4{i} items") for i in range(30)]
    repo.config(labels=[f"l{i}" for i in range(30)])
    repo.report(*facts_)
    assert not [m for m in repo.check().findings("CL104") if "not explained" in m]


# ---------------------------------------------------------------- evidence that cannot be read

def test_a_corrupt_capture_is_cl103_at_the_link_and_fix_keeps_the_link(repo: Repo) -> None:
    from citelint.store.captures import capture_path

    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    path.write_text(path.read_text().replace("42 items", "43 items"))
    answer = repo.write("reports/answer.md", f"See [the source]({SOURCE_A}).\n")
    run = repo.check("--fix")
    assert run.code == 1
    assert not run.findings("CL201")
    [line] = run.findings("CL103")
    assert line.startswith(f"reports/answer.md:1:18: CL103 link to {SOURCE_A}: every capture of this source fails "
                           "verification"), line
    assert answer.read_text() == f"See [the source]({SOURCE_A}).\n"


# ---------------------------------------------------------------- nothing untrusted reaches a terminal raw

def test_control_characters_in_names_and_fields_are_escaped_everywhere(repo: Repo) -> None:
    from citelint.store.captures import make_record
    from citelint.store.writer import write_capture

    hostile_source = "https://example.org/\x1b[31mred\x07"
    repo.config(sources=[SOURCE_A, hostile_source], labels=["inventory"])
    write_capture(repo.root / "captures", make_record(hostile_source, "Text with \x1b]0;title\x07 inside it."))
    repo.write("reports/\x1b[2Jevil\x07.json", '{"facts": [{"state": "unavailable", "label": "nope\\u001b[1m", '
                                               '"reason": "x"}]}')
    for argv in (("check",), ("check", "--format", "github"), ("ls",), ("show", hostile_source)):
        run = run_cli(*argv, cwd=repo.root)
        shown = run.out + run.err
        assert "\x1b" not in shown and "\x07" not in shown, (argv, shown)
    assert "\\u001b" in run_cli("ls", cwd=repo.root).out


@pytest.mark.parametrize("stamp", ["2026-02-30T00:00:00Z", "2026-07-01 00:00:00Z", "2026-07-01T00:00:00+02:00",
                                   "2026-07-01T25:00:00Z", "yesterday"])
def test_a_capture_whose_retrieved_at_is_not_rfc3339_utc_is_corrupt(repo: Repo, stamp: str) -> None:
    import json

    from citelint.store.captures import capture_path

    record = repo.records[SOURCE_A]
    path = capture_path(repo.root / "captures", SOURCE_A, record.sha256)
    obj = json.loads(path.read_text())
    obj["retrievedAt"] = stamp
    path.write_text(json.dumps(obj) + "\n")
    repo.report(repo.cited())
    [line] = repo.check().findings("CL103")
    assert "is not an RFC 3339 UTC time" in line


@pytest.mark.parametrize("stamp", ["2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z"])
def test_capture_refuses_an_impossible_retrieved_at(repo: Repo, stamp: str, tmp_path: Path) -> None:
    held = tmp_path / "held.txt"
    held.write_text("text a pipeline already holds")
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(held), "--retrieved-at", stamp, cwd=repo.root)
    assert run.code == 2 and "must be a real RFC 3339 UTC time" in run.err


def test_a_config_that_is_a_symlink_leading_outside_is_a_usage_error(repo: Repo, secret: Path) -> None:
    config = repo.root / "citelint.yaml"
    outside = secret.parent / "citelint.yaml"
    outside.write_text(config.read_text())
    config.unlink()
    config.symlink_to(outside)
    run = repo.check()
    assert run.code == 2
    assert f"is a symlink to {outside}, outside its own directory" in run.err


def test_a_symlink_named_as_a_report_is_checked_as_the_file_it_leads_to(repo: Repo) -> None:
    """Issue 23: `reports/q9.json -> ../data/q9.txt` was skipped, the whole walk silent about it."""
    repo.report(repo.cited(snippet="not in the capture"), name="data/q9.txt")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "q9.json").symlink_to(Path("..", "data", "q9.txt"))
    for args in ((), ("reports/q9.json",), ("reports",), (str(repo.root / "reports" / "q9.json"),)):
        run = repo.check(*args)
        assert run.code == 1 and "skipped" not in run.err, (args, run.err)
        assert [f.split(":")[0] for f in run.findings()] == ["reports/q9.json"], args
        assert run.findings("CL104"), args


def test_a_symlinked_folder_inside_the_project_has_its_reports_checked_by_their_names(repo: Repo) -> None:
    repo.report(repo.cited(snippet="not in the capture"), name="data/q9.json")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "x").symlink_to(Path("..", "data"), target_is_directory=True)
    for args in ((), ("reports/x",), ("reports/x/q9.json",), ("reports",)):
        run = repo.check(*args)
        assert run.code == 1 and "1 file," in run.out, (args, run.out, run.err)
        assert [f.split(":")[0] for f in run.findings()] == ["reports/x/q9.json"], args
        assert run.findings("CL104"), args


def test_a_project_named_through_an_alias_still_checks_a_symlinked_report(
        repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo.report(repo.cited(snippet="not in the capture"), name="data/q9.txt")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "q9.json").symlink_to(Path("..", "data", "q9.txt"))
    alias = tmp_path_factory.mktemp("elsewhere") / "alias"
    alias.symlink_to(repo.root, target_is_directory=True)
    for given in (str(alias), str(alias / "reports" / "q9.json")):
        run = repo.check(given)
        assert run.code == 1 and run.findings("CL104"), (given, run.out, run.err)


def test_a_symlink_named_as_a_report_leading_into_the_store_is_refused(repo: Repo) -> None:
    record = next(iter((repo.root / "captures").rglob("*.json")))
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "ev.json").symlink_to(record)
    for args in ((), ("reports/ev.json",)):
        run = repo.check(*args)
        assert run.code == 1, (args, run.out, run.err)
        assert run.findings("CL001") == [f"reports/ev.json:1:1: CL001 not read: it is a symlink to {record.resolve()}, "
                                         "inside the captures directory (evidence, not a report) "
                                         "[report-unreadable]"], args


def test_folder_link_loops_end_and_each_report_is_checked_once(repo: Repo) -> None:
    repo.report(repo.cited(snippet="not in the capture"), name="reports/2026/a.json")
    (repo.root / "reports" / "2026" / "up").symlink_to(Path(".."), target_is_directory=True)
    (repo.root / "reports" / "self").symlink_to(Path("."), target_is_directory=True)
    (repo.root / "reports" / "a1").symlink_to(Path("2026"), target_is_directory=True)
    (repo.root / "reports" / "a2").symlink_to(Path("2026"), target_is_directory=True)
    for args in ((), ("reports",), ("reports/a1",)):
        run = repo.check(*args)
        assert run.code == 1 and "1 file," in run.out and len(run.findings("CL104")) == 1, (args, run.out)


def test_a_folder_link_leading_outside_is_not_walked_but_said(repo: Repo, secret: Path) -> None:
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "outdir").symlink_to(secret.parent, target_is_directory=True)
    with watching() as events:
        run = repo.check()
    assert f"citelint: skipped reports/outdir: not walked: it is a symlink to {secret.parent}, outside" in run.err
    assert not [p for p in events.listed if p.startswith(str(secret.parent))]
