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
import sys
import time
from pathlib import Path

import pytest

from citelint.git import base as gitbase
from citelint.git.index import ASSUME_VALID, INTENT_TO_ADD, SKIP_WORKTREE, capture_entries
from citelint.store.captures import capture_path, make_record
from citelint.store.writer import write_capture
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


def test_unborn_head_compares_with_ref_tree(branched: Repo) -> None:
    """On an orphan branch HEAD names no commit: rev-parse cannot answer for
    REF...HEAD, and the base is REF's own tree, with the note saying so."""
    git(branched.root, "switch", "--quiet", "--orphan", "fresh")  # the orphan starts with no files
    (branched.root / "citelint.yaml").write_text(git(branched.root, "show", "main:citelint.yaml") + "\n")
    run = branched.check("--base", "main")
    assert [ln.split(": ")[1][:24] for ln in run.findings()] == ["CL301 capture was delete"] * 2, run.out + run.err
    assert "--base: compared captures with main's own tree" in run.out


def test_spelling_with_two_dots_is_asked_the_long_way(branched: Repo) -> None:
    """`a..b` is git's own range syntax: never glued into REF...HEAD."""
    run = branched.check("--base", "main..feature")
    assert run.code == 2 and "base revision 'main..feature' is not in this clone" in run.err, run.err
    run = branched.check("--base", "main^{commit}")
    assert (run.code, run.findings()) == (0, []), run.out + run.err


def test_criss_cross_history_uses_the_merge_base_git_picks(branched: Repo) -> None:
    """Two best merge bases: the one `git merge-base` prints is compared with."""
    root = branched.root
    git(root, "switch", "--quiet", "main")
    for branch, name in (("main", "m"), ("feature", "f")):
        git(root, "switch", "--quiet", branch)
        (root / f"{name}.txt").write_text(name)
        commit_all(root, f"{name} 1")
    git(root, "switch", "--quiet", "main")
    git(root, "merge", "--quiet", "--no-ff", "-m", "m merges f", "feature~0")
    git(root, "switch", "--quiet", "feature")
    git(root, "merge", "--quiet", "--no-ff", "-m", "f merges m", "main~1")
    bases = git(root, "merge-base", "--all", "main", "HEAD").split()
    assert len(bases) == 2
    from citelint.git import base as gitbase

    loaded = gitbase.load_base("main", root / "captures", root)
    assert (loaded.commit, loaded.via) == (git(root, "merge-base", "main", "HEAD"), "merge-base")
    rel = capture_rel(branched, SOURCE_A)
    (root / rel).write_text("{}\n")
    assert [ln.split(": ")[1][:5] for ln in branched.check("--base", "main").findings()] == ["CL301"]


@pytest.mark.parametrize("elsewhere", ["another repository", "no repository"])
def test_started_from_outside_the_configs_repository(branched: Repo, tmp_path_factory: pytest.TempPathFactory,
                                                     elsewhere: str) -> None:
    """The CLI asks git about REF from where it starts, before it reads the
    config; from another work tree (or none) the answer is asked again from
    the config's directory, and the findings are the ones given inside."""
    rel = capture_rel(branched, SOURCE_A)
    (branched.root / rel).write_text("{}\n")
    inside = branched.check("--base", "main")
    outside = tmp_path_factory.mktemp("outside")
    if elsewhere == "another repository":
        init_repo(outside)
        (outside / "x.txt").write_text("x")
        commit_all(outside, "unrelated")
    run = run_cli("check", "--config", str(branched.root / "citelint.yaml"), "--base", "main",
                  str(branched.root / "captures"), cwd=outside)
    assert run.code == inside.code == 1, run.out + run.err
    assert [ln.split(": ", 1)[1].split(";")[0] for ln in run.findings()] == \
        [ln.split(": ", 1)[1].split(";")[0] for ln in inside.findings()]


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


# ------------------------------------------------------------------ reading only what may differ

_OPENED: list[str] = []
_WATCH: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCH and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        if path.startswith(_WATCH[0]):
            _OPENED.append(path)


_AUDITING: list[bool] = []


def _watch_opens(under: Path) -> None:
    """Record every file opened under ``under`` from now until :func:`_stop_watching`."""
    if not _AUDITING:
        sys.addaudithook(_audit)  # audit hooks cannot be removed; _WATCH gates this one
        _AUDITING.append(True)
    _OPENED.clear()
    _WATCH[:] = [str(under) + os.sep]


def _stop_watching() -> list[str]:
    _WATCH.clear()
    return list(_OPENED)


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path ``gitbase.blob_id`` hashes, relative to the captures directory."""
    calls: list[str] = []
    real = gitbase.blob_id

    def counting(path: Path, hex_len: int = 40) -> str:
        calls.append(Path(path).parent.name[:8] + "/" + Path(path).name[:8])
        return real(path, hex_len)

    monkeypatch.setattr(gitbase, "blob_id", counting)
    return calls


def _short_rel(path: Path) -> str:
    return path.parent.name[:8] + "/" + path.name[:8]


def _age_and_commit(root: Path, message: str) -> None:
    """Commit everything with every capture's mtime an hour in the past, so no
    index entry is racily clean (as in a store committed long ago)."""
    old = time.time_ns() - 3600 * 10**9
    for path in (root / "captures").rglob("*"):
        if path.is_file():
            os.utime(path, ns=(old, old))
    commit_all(root, message)


@pytest.fixture
def store_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Repo, list[Path]]:
    """A repository whose ``main`` holds 300 captures committed long ago, on
    the ``feature`` branch; returns it and the capture files."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    root = tmp_path / "r"
    init_repo(root)
    r = Repo(root)
    sources = [f"https://example.org/doc/{i}.txt" for i in range(300)]
    r.config(sources=sources)
    files = [write_capture(root / "captures", make_record(s, f"Document {i}: {i * 7} items were counted.",
                                                         retrieved_at="2026-07-01T00:00:00Z")).path
             for i, s in enumerate(sources)]
    _age_and_commit(root, "base: 300 captures")
    git(root, "switch", "--quiet", "--create", "feature")
    return r, files


def test_unchanged_large_store_reads_no_capture(store_repo: tuple[Repo, list[Path]], hashed: list[str]) -> None:
    r, files = store_repo
    r.capture("https://example.org/doc/0.txt", "A new revision added by this change, 8 items.")
    commit_all(r.root, "a new capture")  # new, and racily clean: still nothing of the base is read
    _watch_opens(r.root / "captures")
    try:
        run = r.check("--base", "main")
    finally:
        opened = _stop_watching()
    assert (run.code, run.findings()) == (0, []), run.out + run.err
    assert hashed == [] and opened == []


def test_index_file_versions_and_flags_parse_like_git(store_repo: tuple[Repo, list[Path]]) -> None:
    """The index reader agrees with `git ls-files --stage` for index versions 2,
    3 (extended flags: skip-worktree, intent-to-add) and 4 (compressed paths),
    and leaves out of the candidates what git does not compare by stat."""
    r, files = store_repo
    git(r.root, "update-index", "--skip-worktree", files[1].relative_to(r.root).as_posix())
    git(r.root, "update-index", "--assume-unchanged", files[2].relative_to(r.root).as_posix())
    extra = r.capture("https://example.org/doc/new.txt", "Intent to add only: 3 items.")
    git(r.root, "add", "--intent-to-add", "captures")
    index = r.root / ".git" / "index"
    for version in (3, 4, 2):
        if version == 2:
            git(r.root, "update-index", "--no-skip-worktree", files[1].relative_to(r.root).as_posix())
            git(r.root, "rm", "--quiet", "--cached", "-r", str(capture_path(r.root / "captures", extra.source,
                                                                           extra.sha256).relative_to(r.root)))
        git(r.root, "update-index", f"--index-version={version}")
        found = capture_entries(index.read_bytes(), "captures/")
        assert found is not None and found[1] == 20, version
        listing = found[0]
        want = {}
        for line in git(r.root, "ls-files", "--stage", "--", "captures/").splitlines():
            meta, _, path = line.partition("\t")
            mode, oid, _stage = meta.split()
            want[path.removeprefix("captures/")] = oid
        assert {rel: e.oid.hex() for rel, e in listing.items()} == want, version
        assert all(e.mode == 0o100644 for e in listing.values())
        skipped = {files[2]} | ({files[1]} if version != 2 else set())
        not_stat_checked = ASSUME_VALID | SKIP_WORKTREE | INTENT_TO_ADD
        assert {(r.root / "captures" / rel) for rel, e in listing.items() if e.flags & not_stat_checked} == \
            skipped | ({capture_path(r.root / "captures", extra.source, extra.sha256)} if version != 2 else set())


def test_capture_modified_without_git_add_is_hashed_and_cl301(store_repo: tuple[Repo, list[Path]],
                                                               hashed: list[str]) -> None:
    r, files = store_repo
    files[5].write_bytes(files[5].read_bytes().replace(b"items", b"itemz"))
    run = r.check("--base", "main")
    rel = files[5].relative_to(r.root).as_posix()
    assert [ln.split(": ")[1][:5] for ln in run.findings()] == ["CL301"], run.out
    assert f"{rel}:1:1: CL301 capture was modified" in run.out
    assert hashed == [_short_rel(files[5])]


def test_capture_modified_and_staged_is_cl301(store_repo: tuple[Repo, list[Path]], hashed: list[str]) -> None:
    r, files = store_repo
    files[7].write_bytes(files[7].read_bytes() + b"\n")
    git(r.root, "add", files[7].relative_to(r.root).as_posix())
    run = r.check("--base", "main")
    assert [ln.split(": ")[1][:26] for ln in run.findings()] == ["CL301 capture was modified"], run.out
    assert hashed == [_short_rel(files[7])]


def test_capture_assume_unchanged_is_still_compared(store_repo: tuple[Repo, list[Path]],
                                                     hashed: list[str]) -> None:
    """git does not look at an assume-unchanged file, so the index cannot vouch for it."""
    r, files = store_repo
    git(r.root, "update-index", "--assume-unchanged", files[9].relative_to(r.root).as_posix())
    files[9].write_bytes(files[9].read_bytes().replace(b"items", b"itemz"))
    run = r.check("--base", "main")
    assert [ln.split(": ")[1][:26] for ln in run.findings()] == ["CL301 capture was modified"], run.out
    assert hashed == [_short_rel(files[9])]


def test_racily_clean_capture_is_hashed_and_no_filter_runs(store_repo: tuple[Repo, list[Path]],
                                                          hashed: list[str]) -> None:
    """A capture modified in the same second as `git add` indexed it, its size
    and mtime unchanged, has stat data that still matches the index: git would
    re-read it through the clean filter a pull request's .gitattributes names.
    It is hashed here instead, and diff-files never sees it."""
    r, files = store_repo
    marker = r.root.parent / "filter-ran"
    (r.root / ".gitattributes").write_text("captures/** filter=probe\n")
    git(r.root, "config", "filter.probe.clean", f"touch '{marker}'; cat")
    racy, clean_but_racy = files[11], files[12]
    second = time.time_ns() // 10**9 * 10**9
    for path in (racy, clean_but_racy):
        os.utime(path, ns=(second, second))
    git(r.root, "add", racy.relative_to(r.root).as_posix(), clean_but_racy.relative_to(r.root).as_posix())
    racy.write_bytes(racy.read_bytes().replace(b"items", b"itemz"))  # same size
    os.utime(racy, ns=(second, second))
    # The index written in that same second: both entries are racily clean.
    os.utime(r.root / ".git" / "index", ns=(second, second))
    marker.unlink(missing_ok=True)
    run = r.check("--base", "main")
    rel = racy.relative_to(r.root).as_posix()
    assert [ln.split(": ")[0] for ln in run.findings()] == [f"{rel}:1:1"], run.out
    assert "CL301 capture was modified" in run.out
    assert sorted(hashed) == sorted([_short_rel(racy), _short_rel(clean_but_racy)])
    assert not marker.exists(), "git ran a clean filter"


def test_deleted_and_replaced_captures_of_a_vouched_store(store_repo: tuple[Repo, list[Path]],
                                                         hashed: list[str]) -> None:
    """Deleted, replaced by a symlink, its directory replaced by a symlink: the
    index still holds the base's blob ids, and each is CL301 all the same."""
    r, files = store_repo
    deleted, linked, dir_linked = files[20], files[21], files[22]
    deleted.unlink()
    copy = r.root.parent / "copy.json"
    copy.write_bytes(linked.read_bytes())
    linked.unlink()
    linked.symlink_to(copy)
    moved = r.root.parent / "moved-dir"
    dir_linked.parent.rename(moved)
    dir_linked.parent.symlink_to(moved)
    run = r.check("--base", "main")
    kinds = {ln.split(":")[0]: ln.split(": ")[1].split()[:4] for ln in run.findings()}
    assert kinds == {
        deleted.relative_to(r.root).as_posix(): ["CL301", "capture", "was", "deleted"],
        linked.relative_to(r.root).as_posix(): ["CL301", "capture", "was", "replaced"],
        dir_linked.relative_to(r.root).as_posix(): ["CL301", "capture", "was", "replaced"],
    }, run.out
    assert hashed == []


def test_captures_directory_replaced_by_symlink_in_a_vouched_store(store_repo: tuple[Repo, list[Path]],
                                                                   hashed: list[str]) -> None:
    r, files = store_repo
    (r.root / "captures").rename(r.root / "real-captures")
    (r.root / "captures").symlink_to("real-captures")
    run = r.check("--base", "main")
    cl301 = run.findings("CL301")
    assert len(cl301) == len(files) and all("was replaced by a symlink" in ln for ln in cl301), run.out
    assert hashed == []


def test_commit_hook_index_is_the_one_read(store_repo: tuple[Repo, list[Path]], hashed: list[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit hook is given GIT_INDEX_FILE (the index being committed): that
    one, not .git/index, says what is staged."""
    r, files = store_repo
    other = r.root / ".git" / "hook-index"
    other.write_bytes((r.root / ".git" / "index").read_bytes())
    files[30].write_bytes(files[30].read_bytes() + b"\n")
    git(r.root, "add", files[30].relative_to(r.root).as_posix(), env=git_env({"GIT_INDEX_FILE": str(other)}))
    os.utime(other, ns=(time.time_ns() + 5 * 10**9,) * 2)
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    run = r.check("--base", "main")
    assert [ln.split(": ")[1][:26] for ln in run.findings()] == ["CL301 capture was modified"], run.out
    assert hashed == [_short_rel(files[30])]


# ------------------------------------------------------------------ what a hostile change or an odd setup tries

def test_source_directory_made_a_symlink_loop_is_cl301(store_repo: tuple[Repo, list[Path]]) -> None:
    """git's diff-files skips a file it cannot lstat (ELOOP) with only a
    message: that vouches for nothing, and the capture is reported."""
    r, files = store_repo
    sdir = files[40].parent
    for f in sdir.iterdir():
        f.unlink()
    sdir.rmdir()
    sdir.symlink_to(sdir.name)  # points at itself
    run = r.check("--base", "main")
    assert run.code == 1, run.out + run.err
    assert [ln.split(": ")[1][:62] for ln in run.findings()] == [
        "CL301 capture was replaced by a symlink or another kind of file"[:62]], run.out


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_unreadable_capture_is_cl301(store_repo: tuple[Repo, list[Path]]) -> None:
    r, files = store_repo
    files[41].chmod(0)
    try:
        run = r.check("--base", "main")
    finally:
        files[41].chmod(0o644)
    assert "CL301 capture cannot be read (Permission denied)" in run.out, run.out + run.err


def test_a_revision_that_excludes_is_no_base(branched: Repo) -> None:
    run = branched.check("--base", "^main")
    assert run.code == 2 and "--base '^main' is not a revision" in run.err, run.err


def test_captures_in_a_submodule_are_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The superproject's index and trees hold only the submodule's commit, so
    no capture inside it could be compared: say so instead of passing."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    inner = tmp_path / "inner"
    init_repo(inner)
    write_capture(inner / "captures", make_record(SOURCE_A, "Synthetic source: 42 items."))
    commit_all(inner, "captures")
    outer = tmp_path / "outer"
    init_repo(outer)
    git(outer, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", f"file://{inner}", "sub")
    r = Repo(outer)
    r.config(captures="sub/captures")
    commit_all(outer, "base")
    run = r.check("--base", "main")
    assert run.code == 2 and "(a submodule?)" in run.err, run.out + run.err


def test_linked_worktree_hook_run_from_a_subdirectory(branched: Repo, tmp_path_factory: pytest.TempPathFactory,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook of a linked worktree gets GIT_DIR (and no GIT_WORK_TREE): git then
    answers from where it runs, so the answer asked from a subdirectory is
    not the config's, and it is asked again from the config's directory."""
    linked = tmp_path_factory.mktemp("linked") / "wt"
    git(branched.root, "worktree", "add", "--quiet", "-b", "other", str(linked), "main")
    rel = capture_rel(branched, SOURCE_A)
    (linked / rel).write_text("{}\n")
    (linked / "reports").mkdir(exist_ok=True)
    monkeypatch.setenv("GIT_DIR", str(branched.root / ".git" / "worktrees" / "wt"))
    run = run_cli("check", "--config", str(linked / "citelint.yaml"), "--base", "main", cwd=linked / "reports")
    assert run.code == 1, run.out + run.err
    assert [ln.split(": ")[1][:26] for ln in run.findings()] == ["CL301 capture was modified"]


def test_a_captures_directory_other_than_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI starts comparing `captures/` before it reads the config; a
    config naming another directory gets that one compared instead."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    init_repo(tmp_path)
    r = Repo(tmp_path)
    r.config(captures="evidence")
    decoy = write_capture(tmp_path / "captures", make_record(SOURCE_B, "Not the store: 7 items.")).path
    real = write_capture(tmp_path / "evidence", make_record(SOURCE_A, "The store: 42 items.")).path
    commit_all(tmp_path, "base")
    git(tmp_path, "switch", "--quiet", "--create", "feature")
    decoy.write_text("{}\n")
    assert (r.check("--base", "main").code, r.check("--base", "main").findings()) == (0, [])
    real.write_text("{}\n")
    run = r.check("--base", "main")
    assert [ln.split(":")[0] for ln in run.findings()] == [real.relative_to(tmp_path).as_posix()], run.out
