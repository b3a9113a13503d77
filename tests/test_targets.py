"""File selection works on directory entries and strings: the same targets,
order, refusals and display paths whichever way the project is named, the
capture store never listed, and string prefixes that are not path prefixes
never taken for one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path, PurePath

import pytest

from audit import watching
from citelint.check.targets import select_targets
from citelint.config import load_config, relpath
from citelint.reports.loaders import kind_of
from conftest import Repo, run_cli

FACTS = '{"facts": []}\n'


@pytest.fixture
def secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("outside") / "secret.json"
    path.write_text('{"facts": [{"state": "unavailable", "label": "sales", "reason": "SECRET-TOKEN"}]}')
    return path


def _displays(repo: Repo, *paths: str, cwd: Path | None = None) -> list[str]:
    cwd = cwd or repo.root
    return [t.display for t in select_targets(load_config(None, repo.root), list(paths), cwd).targets]


def test_the_walk_never_lists_the_capture_store(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo.config(reports=["**/*.json"])
    repo.report(repo.cited())
    alias = tmp_path_factory.mktemp("elsewhere") / "alias"
    alias.symlink_to(repo.root, target_is_directory=True)
    config = load_config(None, repo.root)
    store = str((repo.root / "captures").resolve())
    # A report glob matching every JSON file would match the capture records
    # too: the store is passed over by its real location, however the
    # project is named.
    for args in ([], ["."], ["reports/.."], [str(alias)]):
        with watching() as events:
            targets = select_targets(config, args, repo.root).targets
        assert [t.display for t in targets] == ["reports/r.json"], args
        assert str(repo.root.resolve()) in events.listed
        assert not [p for p in events.listed if p == store or p.startswith(store + "/")], args


def test_the_order_is_the_walk_order_however_the_project_is_named(
        repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo.config(reports=["**/*.json"])
    for name in ("reports/b.json", "reports/a.json", "reports/sub/c.json", "top.json", "reports/B.json"):
        repo.write(name, FACTS)
    # A symlink inside the store that leads to a report: never seen, so it
    # cannot move the report ahead of its neighbours.
    (repo.root / "captures" / "link.json").symlink_to(repo.root / "reports" / "a.json")
    alias = tmp_path_factory.mktemp("elsewhere") / "alias"
    alias.symlink_to(repo.root, target_is_directory=True)
    expected = ["citelint.yaml", "top.json", "reports/B.json", "reports/a.json", "reports/b.json", "reports/sub/c.json"]
    assert _displays(repo) == [p for p in expected if p.endswith(".json")]
    for named in (".", "reports/..", str(alias)):
        assert _displays(repo, named) == [p for p in expected if p.endswith(".json")], named
    assert _displays(repo, "..", cwd=repo.root / "reports") == [
        "../top.json", "B.json", "a.json", "b.json", "sub/c.json"]


def test_a_symlinked_folder_to_reports_checks_each_report_once_under_its_own_path(repo: Repo) -> None:
    repo.report(repo.cited(snippet="not in the capture"), name="reports/2026/answer.json")
    (repo.root / "reports" / "current").symlink_to(repo.root / "reports" / "2026", target_is_directory=True)
    whole = repo.check()
    assert whole.code == 1 and "1 file," in whole.out
    assert [f.split(":")[0] for f in whole.findings()] == ["reports/2026/answer.json"]
    named = repo.check("reports/current")
    assert named.code == 1 and "1 file," in named.out
    # Named through the link, shown through the link, judged where it leads.
    assert [f.split(":")[0] for f in named.findings()] == ["reports/current/answer.json"]
    assert named.findings("CL104") and [f.split(":", 1)[1] for f in named.findings()] == \
        [f.split(":", 1)[1] for f in whole.findings()]


def test_a_symlink_deep_in_a_walked_folder_leading_outside_is_refused_unread(
        repo: Repo, secret: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    link = repo.root / "reports" / "a" / "b" / "evil.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    with watching() as events:
        run = repo.check()
    assert run.code == 1
    assert run.findings("CL001") == [f"reports/a/b/evil.json:1:1: CL001 not read: it is a symlink to {secret}, "
                                     f"outside the project directory {repo.root.resolve()} [report-unreadable]"]
    assert not events.read(str(secret)) and "SECRET-TOKEN" not in run.out + run.err


def test_a_named_folder_leading_outside_is_neither_listed_nor_read(
        repo: Repo, secret: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Named as a pre-commit hook names a committed folder link: it might lead to /, so it is
    # not walked, and it says so.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "outdir").symlink_to(secret.parent, target_is_directory=True)
    with watching() as events:
        run = repo.check("reports/outdir")
    assert f"citelint: skipped reports/outdir: not walked: it is a symlink to {secret.parent}, outside the " \
           f"project directory {repo.root.resolve()}" in run.err, run.err
    assert not events.read(str(secret)) and "SECRET-TOKEN" not in run.out + run.err
    assert not [p for p in events.listed if p.startswith(str(secret.parent))]
    # The walk of the project itself does not follow the folder link either.
    whole = repo.check()
    assert "nothing was checked" in whole.err and "skipped reports/outdir: not walked" in whole.err


def test_a_name_that_only_starts_like_the_project_is_outside_it(repo: Repo, tmp_path: Path) -> None:
    sibling = tmp_path.parent / (tmp_path.name + "-other") / "reports" / "r.json"
    sibling.parent.mkdir(parents=True)
    sibling.write_text(FACTS)
    run = repo.check(str(sibling))
    assert run.code == 0 and "0 files" in run.out
    assert run.err.startswith(f"citelint: skipped ../{sibling.parents[1].name}/reports/r.json: outside the "
                              f"project directory {repo.root.resolve()} (where the config is)\n"), run.err


def test_a_folder_that_only_starts_like_the_store_holds_reports(repo: Repo) -> None:
    repo.config(reports=["**/*.json"])
    repo.write("captures-old/r.json", '{"facts": [{"state": "unavailable", "label": "bogus", "reason": "x"}]}')
    run = repo.check()
    assert run.code == 1 and run.findings("CL003")[0].startswith("captures-old/r.json:")
    record = next((repo.root / "captures").rglob("*.json"))
    named = repo.check(str(record.relative_to(repo.root)))
    assert named.code == 0 and "0 files" in named.out
    assert named.err.endswith(": inside the captures directory (evidence, not a report)\n"), named.err


def test_targets_carry_their_display_path_and_syntax(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in ("reports/a.json", "reports/b.yaml", "reports/c.yml", "reports/d.md"):
        repo.write(name, FACTS)
    config = load_config(None, repo.root)
    elsewhere = tmp_path_factory.mktemp("cwd")
    for cwd in (repo.root, repo.root / "reports", elsewhere, Path("/")):
        targets = select_targets(config, [str(repo.root / "reports")], cwd).targets
        assert [t.display for t in targets] == [os.path.relpath(t.path, cwd) for t in targets] == \
            [relpath(t.path, cwd) for t in targets]
        assert [(t.kind, t.syntax) for t in targets] == [("report", "json"), ("report", "yaml"), ("report", "yaml"),
                                                         ("markdown", "markdown")]


def test_a_named_path_that_does_not_exist_is_a_usage_error(repo: Repo) -> None:
    repo.report(repo.cited())
    for name in ("reports/missing.json", "reports/r.json/inside.json"):
        run = repo.check(name)
        assert run.code == 2 and run.err == f"citelint: {name}: no such file or directory\n", run.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_found_by_the_walk_is_refused_never_waited_on(repo: Repo) -> None:
    (repo.root / "reports" / "sub").mkdir(parents=True)
    os.mkfifo(repo.root / "reports" / "sub" / "pipe.json")
    done = subprocess.run([sys.executable, "-m", "citelint", "check"], cwd=repo.root, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0] == ("reports/sub/pipe.json:1:1: CL001 cannot read the file: not a regular "
                                           "file [report-unreadable]")


@pytest.mark.parametrize("name", ["a.json", "A.JSON", ".json", "..json", "a.", "a..yml", "x/y.md", "x.md/y",
                                  "x.y/z.markdown", "a.json/", "", ".", "/", "a.b.yaml", "x/.md", "notes.txt"])
def test_kind_of_reads_the_suffix_pathlib_reads(name: str) -> None:
    suffix = PurePath(name).suffix.lower()
    expected = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown", ".markdown": "markdown"}
    assert kind_of(name) == expected.get(suffix)
    assert kind_of(Path(name)) == expected.get(suffix)


@pytest.mark.parametrize(("path", "cwd"), [
    ("/p/r/a.json", "/p"), ("/p/r/a.json", "/p/r"), ("/p/r/a.json", "/p/rr"), ("/p/rr/a.json", "/p/r"),
    ("/p/r", "/p/r"), ("/p", "/p/r"), ("/p/r/a.json", "/"), ("/", "/"), ("/p/r/a.json", "/p/r/"),
    ("/p/r/../s/a.json", "/p/r"), ("/p/r/a.json", "/p/./r"), ("/q/a.json", "/p/r"),
])
def test_relpath_is_os_relpath_in_posix_form(path: str, cwd: str) -> None:
    assert relpath(path, cwd) == relpath(Path(path), Path(cwd)) == \
        PurePath(os.path.relpath(path, cwd)).as_posix()


def test_stdin_filename_carries_its_display_path(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b'{"facts": [{"state": "unavailable", "label": "bogus", "reason": "x"}]}')))
    (repo.root / "reports").mkdir()
    run = run_cli("check", "-", "--stdin-filename", "new.json", cwd=repo.root / "reports")
    assert run.code == 1 and run.findings("CL003")[0].startswith("new.json:1:"), run.out + run.err


def test_a_named_folder_outside_the_project_says_so_and_a_parent_is_walked_only_inside(
        repo: Repo, tmp_path: Path) -> None:
    """`citelint check ../outside` read nothing and said nothing (exit 0, "0 files"): a named
    folder outside the project is listed as skipped; `citelint check ..` walks only the project."""
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "a.md").write_text("[x](https://evil.example/)\n", encoding="utf-8")
    run = repo.check(str(outside))
    assert "a folder outside the project directory" in run.err and "nothing under it is read" in run.err
    (repo.root / "reports").mkdir(exist_ok=True)
    (repo.root / "reports" / "r.json").write_text(FACTS)
    parent = repo.check("..")
    assert "1 file" in parent.out and "outside" not in parent.err
