"""Diff-aware mode (``check --base REF``) with real git commits: CL301 and CL302.

Each test builds a real repository: ``main`` holds the config, two captures
and (usually) nothing else; a ``feature`` branch makes the change under
review. The check runs in-process with ``--base main``, the way a pull
request is checked against its target branch. The plain cases (a capture
modified, deleted or added; CL302 with and without the policy) are golden
cases in tests/cases/CL301-*/ and CL302-*/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citelint.captures import make_record, write_capture
from conftest import SOURCE_A, SOURCE_B, Repo, run_cli
from gitrepo import commit_all, git, git_env, init_repo

SOURCE_C = "https://example.org/c.txt"
TEXT_C = "Third source: 9 items arrived late in the third quarter of the year."


@pytest.fixture
def branched(repo: Repo) -> Repo:
    """``repo`` committed on ``main`` (config, captures of A and B), with the
    ``feature`` branch checked out on top of it."""
    repo.config(sources=[SOURCE_A, SOURCE_B, SOURCE_C])
    init_repo(repo.root)
    commit_all(repo.root, "base: config and captures")
    git(repo.root, "switch", "--quiet", "--create", "feature")
    return repo


def capture_rel(repo: Repo, source: str) -> str:
    rec = repo.records[source]
    path = write_capture(repo.root / "captures", rec).path
    return path.relative_to(repo.root).as_posix()


# ------------------------------------------------------------------ CL301

def test_whole_source_directory_deleted_is_cl301_for_each_capture(branched: Repo) -> None:
    second = make_record(SOURCE_A, "A later revision of source A: 43 items.", retrieved_at="2026-08-01T00:00:00Z")
    write_capture(branched.root / "captures", second)
    git(branched.root, "switch", "--quiet", "main")
    commit_all(branched.root, "second revision of A")
    git(branched.root, "switch", "--quiet", "--force-create", "feature")
    sdir = (branched.root / capture_rel(branched, SOURCE_A)).parent
    for f in sdir.iterdir():
        f.unlink()
    sdir.rmdir()
    sdir.write_text("not a directory any more\n")
    run = branched.check("--base", "main")
    assert [ln.split(": ")[1].split(" ")[0:4] for ln in run.findings()] == \
        [["CL301", "capture", "was", "deleted"]] * 2, run.out


def test_capture_replaced_by_symlink_is_cl301(branched: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    rel = capture_rel(branched, SOURCE_A)
    path = branched.root / rel
    copy = tmp_path_factory.mktemp("elsewhere") / "copy.json"
    copy.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(copy)  # identical bytes behind the link, but no longer the committed file
    run = branched.check("--base", "main")
    assert any(f"{rel}:1:1: CL301 capture was replaced by a symlink" in ln for ln in run.findings()), run.out


def test_captures_directory_swapped_for_a_symlink_is_cl301(branched: Repo) -> None:
    """Regression: with captures/ resolved through a symlink, the base's captures
    were never compared, so deleting one behind the link passed."""
    rel = capture_rel(branched, SOURCE_A)
    (branched.root / "captures").rename(branched.root / "fake")
    (branched.root / "captures").symlink_to("fake")
    (branched.root / "fake" / Path(rel).relative_to("captures")).unlink()
    run = branched.check("--base", "main")
    cl301 = [ln for ln in run.findings() if ": CL301 " in ln]
    assert len(cl301) == 2 and any("deleted" in ln for ln in cl301) and any("replaced" in ln for ln in cl301)


def test_cl301_applies_whatever_paths_are_given(branched: Repo) -> None:
    """pre-commit passes only changed reports; a changed capture is still found."""
    branched.report(branched.cited())
    rel = capture_rel(branched, SOURCE_B)
    (branched.root / rel).unlink()
    run = branched.check("reports/r.json", "--base", "main")
    assert [ln.split(": ")[1][:5] for ln in run.findings()] == ["CL301"], run.out


def test_temporary_and_legacy_files_may_go(branched: Repo) -> None:
    """`.tmp-*` leftovers of an interrupted write and legacy-layout files are not
    append-only evidence: removing them is no CL301 (DESIGN §2.2)."""
    git(branched.root, "switch", "--quiet", "main")
    sdir = (branched.root / capture_rel(branched, SOURCE_A)).parent
    (sdir / ".tmp-0123456789abcdef").write_text("partial")
    legacy = branched.root / "captures" / f"{'a' * 64}.json"
    legacy.write_text("{}\n")
    (branched.root / "captures" / "README").write_text("notes\n")
    commit_all(branched.root, "leftovers")
    git(branched.root, "switch", "--quiet", "--force-create", "feature")
    for p in (sdir / ".tmp-0123456789abcdef", legacy, branched.root / "captures" / "README"):
        p.unlink()
    commit_all(branched.root, "clean up")
    run = branched.check("--base", "main")
    assert (run.code, run.findings()) == (0, []), run.out


def test_merge_base_not_the_tip_of_ref(branched: Repo) -> None:
    """main gains a capture after the branch was cut: the branch lacks it, but
    that is not a deletion by this change (the merge base has no such file)."""
    git(branched.root, "switch", "--quiet", "main")
    write_capture(branched.root / "captures", make_record(SOURCE_C, TEXT_C, retrieved_at="2026-07-02T00:00:00Z"))
    commit_all(branched.root, "capture C on main")
    git(branched.root, "switch", "--quiet", "feature")
    assert not (branched.root / "captures").joinpath(
        make_record(SOURCE_C, TEXT_C).sha256).exists()
    run = branched.check("--base", "main")
    assert (run.code, run.findings()) == (0, []), run.out


def test_sha256_object_format_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blob ids are computed for the repository's object format (64 hex digits here)."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "--quiet", "--object-format=sha256", "--initial-branch=main")
    r = Repo(root)
    r.config()
    r.capture(SOURCE_A, "Synthetic source: 42 items, measured on 2026-07-01.")
    commit_all(root, "base")
    run = r.check("--base", "main")
    assert (run.code, run.findings()) == (0, []), run.out + run.err
    path = next((root / "captures").rglob("*.json"))
    path.write_bytes(path.read_bytes() + b"\n")
    assert [ln.split(": ")[1][:5] for ln in r.check("--base", "main").findings()] == ["CL301"]


# ------------------------------------------------------------------ CL302

def test_capture_merged_first_then_report_is_clean(branched: Repo) -> None:
    branched.config(sources=[SOURCE_A, SOURCE_B, SOURCE_C], labels=["inventory", "late"],
                    require_captures_on_base=True)
    branched.capture(SOURCE_C, TEXT_C)
    commit_all(branched.root, "capture C")
    git(branched.root, "switch", "--quiet", "main")
    git(branched.root, "merge", "--quiet", "--no-ff", "-m", "merge capture C", "feature")
    git(branched.root, "switch", "--quiet", "--create", "report")
    branched.report(branched.cited("late", SOURCE_C, "9 items arrived late in the third"))
    commit_all(branched.root, "report citing C")
    run = branched.check("--base", "main")
    assert (run.code, run.findings()) == (0, []), run.out


# ------------------------------------------------------------------ usage errors and shallow clones

def test_missing_base_says_to_fetch_it(branched: Repo) -> None:
    run = branched.check("--base", "origin/main")
    assert run.code == 2
    assert run.err.startswith("citelint: base revision 'origin/main' is not in this clone; fetch it first")
    assert "Traceback" not in run.err


def test_not_a_repository_and_null_revision(repo: Repo) -> None:
    run = repo.check("--base", "main")
    assert run.code == 2 and "--base needs a git work tree" in run.err, run.err
    init_repo(repo.root)
    commit_all(repo.root, "base")
    run = repo.check("--base", "0" * 40)
    assert run.code == 2 and "null revision" in run.err, run.err
    run = repo.check("--base=--output=/tmp/x")
    assert run.code == 2 and "is not a revision" in run.err, run.err


def test_shallow_clone_compares_with_ref_tree(branched: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A depth-1 clone has no merge base: the fetched REF's own tree is used,
    and until REF is fetched the error says to fetch it."""
    rel = capture_rel(branched, SOURCE_A)
    (branched.root / rel).write_text("{}\n")
    commit_all(branched.root, "break a capture")
    base = git(branched.root, "rev-parse", "main")
    clone = tmp_path_factory.mktemp("shallow") / "clone"
    git(clone.parent, "clone", "--quiet", "--depth=1", "--branch=feature", f"file://{branched.root}", str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"

    run = run_cli("check", "--base", base, cwd=clone)
    assert run.code == 2 and "fetch it first" in run.err, run.err

    git(clone, "fetch", "--quiet", "--depth=1", "origin", base)
    run = run_cli("check", "--base", base, cwd=clone)
    assert run.code == 1
    assert [ln.split(": ")[1][:5] for ln in run.findings()] == ["CL301"], run.out
    assert f"--base: compared captures with {base}'s own tree" in run.out


def test_index_is_never_written(branched: Repo) -> None:
    """Only read-only plumbing with --no-optional-locks: the index keeps its bytes
    and its timestamp even when the working tree is stat-dirty."""
    rel = capture_rel(branched, SOURCE_A)
    os.utime(branched.root / rel, (1, 1))  # stat-dirty: `git status` would refresh the index
    index = branched.root / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    run = branched.check("--base", "main")
    assert run.code == 0, run.out + run.err
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (branched.root / ".git" / "index.lock").exists()


def test_json_output_carries_cl301(branched: Repo) -> None:
    rel = capture_rel(branched, SOURCE_B)
    (branched.root / rel).unlink()
    run = branched.check("--base", "main", "--format", "json")
    doc = json.loads(run.out)
    assert [(f["rule"], f["path"], f["line"], f["column"], f["severity"]) for f in doc["findings"]] == \
        [("CL301", rel, 1, 1, "error")]
    assert git_env()["GIT_CONFIG_NOSYSTEM"] == "1"
