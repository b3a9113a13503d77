"""The index reader CL109 uses agrees with git on real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from citelint.captures import make_record, write_capture
from citelint.gitindex import find_worktree, indexed_captures
from gitrepo import git, init_repo


def _store(root: Path, n: int) -> list[str]:
    rels = []
    for i in range(n):
        record = make_record(f"https://example.org/{i}.txt", f"text {i}")
        out = write_capture(root / "evidence" / "captures", record)
        rels.append(out.path.relative_to(root / "evidence" / "captures").as_posix())
    return rels


def _git_listing(root: Path) -> frozenset[str]:
    out = git(root / "evidence" / "captures", "ls-files", "--cached", "--", ".")
    return frozenset(line for line in out.splitlines() if line)


@pytest.mark.parametrize("version", ["2", "3"])
def test_the_reader_agrees_with_git_ls_files(tmp_path: Path, version: str) -> None:
    init_repo(tmp_path)
    rels = _store(tmp_path, 12)
    (tmp_path / "evidence" / "captures" / "not-a-capture.json").write_text("{}")
    git(tmp_path, "add", "evidence/captures/" + rels[0], "evidence/captures/" + rels[1], "evidence/captures/not-a-capture.json")
    git(tmp_path, "commit", "--quiet", "--no-verify", "-m", "two")
    git(tmp_path, "add", "evidence/captures/" + rels[2])  # staged, not committed
    git(tmp_path, "add", "-N", "evidence/captures/" + rels[3])  # intent to add: extended flags (version 3)
    git(tmp_path, "update-index", "--index-version", version)
    top, index = find_worktree(tmp_path / "evidence" / "captures")
    assert top == tmp_path
    found = indexed_captures(index, "evidence/captures/")
    assert found == frozenset(r for r in _git_listing(tmp_path) if r != "not-a-capture.json")
    assert set(rels[:4]) == found


def test_index_version_4_is_left_to_git(tmp_path: Path) -> None:
    init_repo(tmp_path)
    rels = _store(tmp_path, 2)
    git(tmp_path, "add", "--all")
    git(tmp_path, "update-index", "--index-version", "4")
    top, index = find_worktree(tmp_path)
    assert indexed_captures(index, "evidence/captures/") is None
    assert rels


def test_no_work_tree_no_answer(tmp_path: Path) -> None:
    assert find_worktree(tmp_path) is None or find_worktree(tmp_path)[0] != tmp_path
