"""The index reader CL109 uses agrees with git on real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from citelint.git.index import INTENT_TO_ADD, capture_entries, find_worktree, indexed_captures
from citelint.store.captures import make_record
from citelint.store.writer import write_capture
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


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_reader_agrees_with_git_ls_files(tmp_path: Path, version: str) -> None:
    """Versions 2, 3 (extended flags) and 4 (compressed paths) of the index."""
    init_repo(tmp_path)
    rels = _store(tmp_path, 12)
    (tmp_path / "evidence" / "captures" / "not-a-capture.json").write_text("{}")
    git(tmp_path, "add", "evidence/captures/" + rels[0], "evidence/captures/" + rels[1],
        "evidence/captures/not-a-capture.json")
    git(tmp_path, "commit", "--quiet", "--no-verify", "-m", "two")
    git(tmp_path, "add", "evidence/captures/" + rels[2])  # staged, not committed
    git(tmp_path, "add", "-N", "evidence/captures/" + rels[3])  # intent to add: extended flags (version 3)
    # Shaped almost like captures: a body that is not .raw, upper-case hex, a path one level too deep.
    near = [rels[4][:-5] + ".rbw", rels[5][:64] + "/" + rels[5][65:129].upper() + ".json", "x/" + rels[6],
            rels[7][:-5] + ".raw", rels[8][:-5] + "." + "0" * 16 + ".sig"]
    for rel in near:
        path = tmp_path / "evidence" / "captures" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        git(tmp_path, "add", "evidence/captures/" + rel)
    git(tmp_path, "update-index", "--index-version", version)
    top, index = find_worktree(tmp_path / "evidence" / "captures")
    assert top == tmp_path
    found = indexed_captures(index, "evidence/captures/")
    assert found == frozenset(r for r in _git_listing(tmp_path) if r != "not-a-capture.json" and r not in near)
    assert set(rels[:4]) == found
    entries, hash_len = capture_entries(index.read_bytes(), "evidence/captures/")
    assert hash_len == 20
    stages = git(tmp_path, "ls-files", "--stage", "--", "evidence/captures/").splitlines()
    assert {rel: e.oid.hex() for rel, e in entries.items()} == {
        line.partition("\t")[2].removeprefix("evidence/captures/"): line.split()[1]
        for line in stages if not any(x in line for x in ["not-a-capture", *near[:3]])}
    assert set(near[3:]) <= set(entries)
    assert [rel for rel, e in entries.items() if e.flags & INTENT_TO_ADD] == [rels[3]]


def test_sha256_repository_and_a_prefix_at_the_top(tmp_path: Path) -> None:
    init_repo(tmp_path)
    git(tmp_path, "init", "--quiet", "--object-format=sha256", "s")
    root = tmp_path / "s"
    record = make_record("https://example.org/x.txt", "text")
    out = write_capture(root, record)
    git(root, "add", "--all")
    entries, hash_len = capture_entries((root / ".git" / "index").read_bytes(), "")
    assert hash_len == 32
    assert [e.oid.hex() for e in entries.values()] == [git(root, "ls-files", "--stage").split()[1]]
    assert list(entries) == [out.path.relative_to(root).as_posix()]


def _conflicted(root: Path) -> None:
    """A merge conflict on a capture-shaped path under evidence/captures/."""
    rel = "evidence/captures/" + "a" * 64 + "/" + "b" * 64 + ".json"
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text("base\n")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "--no-verify", "-m", "base")
    git(root, "switch", "--quiet", "--create", "other")
    (root / rel).write_text("other\n")
    git(root, "commit", "--quiet", "--no-verify", "-am", "other")
    git(root, "switch", "--quiet", "main")
    (root / rel).write_text("main\n")
    git(root, "commit", "--quiet", "--no-verify", "-am", "main")
    git(root, "merge", "--quiet", "other", check=False)


@pytest.mark.parametrize("layout", ["conflict", "split", "truncated", "not an index"])
def test_an_index_this_reader_cannot_vouch_for_is_left_to_git(tmp_path: Path, layout: str) -> None:
    """A conflict under the captures directory has no single blob id; a split
    index keeps entries in another file; a cut or foreign file is no index."""
    init_repo(tmp_path)
    _store(tmp_path, 3)
    if layout == "conflict":
        _conflicted(tmp_path)
    else:
        git(tmp_path, "add", "--all")
    index = tmp_path / ".git" / "index"
    if layout == "split":
        git(tmp_path, "update-index", "--split-index")
        assert list((tmp_path / ".git").glob("sharedindex.*"))
    elif layout == "truncated":
        index.write_bytes(index.read_bytes()[:-30])
    elif layout == "not an index":
        index.write_bytes(b"DIRC" + bytes(40))
    assert capture_entries(index.read_bytes(), "evidence/captures/") is None
    assert indexed_captures(index, "evidence/captures/") is None


def test_no_work_tree_no_answer(tmp_path: Path) -> None:
    assert find_worktree(tmp_path) is None or find_worktree(tmp_path)[0] != tmp_path


def test_a_relative_index_file_is_read_from_the_top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git reads a relative GIT_INDEX_FILE from the work tree's top, wherever it was started."""
    init_repo(tmp_path)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    monkeypatch.setenv("GIT_INDEX_FILE", ".git/index")
    monkeypatch.chdir(tmp_path / "deep")
    assert find_worktree(tmp_path / "deep" / "er") == (tmp_path, tmp_path / ".git" / "index")
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "elsewhere"))
    assert find_worktree(tmp_path / "deep") == (tmp_path, tmp_path / "elsewhere")
