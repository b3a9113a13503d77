"""``check --shard K/N`` and ``citelint merge``: N shards merged print exactly what one run prints.

Every comparison runs the real CLI in-process (``citelint.cli.main``) on real
projects: the bundled examples, the golden cases, a generated repository
with many sources (several revisions each, failing facts, Markdown reports
with CL201, CL205 and CL206, more findings of one rule in one report than
the per-file cap) and a real git repository with ``--base`` (CL301). Shard
files are validated against ``schemas/shard.schema.json``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry

import audit
from citelint import __version__
from citelint.check.shard import shard_of
from citelint.cli import main
from citelint.store.captures import make_record
from citelint.store.writer import write_capture
from conftest import REPO_ROOT
from gitrepo import commit_all, git, init_repo
from test_cases import case_folders, materialise, read_lines

SCHEMA = json.loads((REPO_ROOT / "schemas" / "shard.schema.json").read_text(encoding="utf-8"))

#: Output option sets compared: stdout, every side file and the exit code must be equal.
OPTION_SETS = (
    ("--format", "text", "--review"),
    ("--format", "json", "--sarif-file", "{out}/run.sarif", "--summary-file", "{out}/summary.md"),
    ("--format", "github", "--strict"),
    ("--format", "summary", "--quiet", "--statistics"),
    ("--format", "sarif", "--output-file", "{out}/out.sarif", "--exit-zero"),
)


def cli(cwd: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(list(argv), stdout=out, stderr=err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def side_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


def shard_files(project: Path, n: int, where: Path, check_args: tuple[str, ...] = ()) -> list[Path]:
    """Run the N shards of ``check CHECK_ARGS`` in ``project``, each writing its file under ``where``."""
    where.mkdir(parents=True, exist_ok=True)
    files = []
    validator = Draft202012Validator(SCHEMA, registry=Registry())
    for k in range(1, n + 1):
        path = where / f"shard-{k}-of-{n}.json"
        code, out, err = cli(project, "check", *check_args, "--shard", f"{k}/{n}", "--output-file", str(path))
        assert (code, out) == (0, ""), err
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert [e.message for e in validator.iter_errors(doc)] == []
        files.append(path)
    return files


def run_with(project: Path, scratch: Path, command: list[str], options: tuple[str, ...]) -> tuple:
    """(exit code, stdout, stderr, side files) of one run with ``options`` (``{out}`` is a fresh folder).
    The github format's stop-commands token is random in every run, so it is the one thing replaced."""
    folder = scratch / f"out-{len(list(scratch.glob('out-*')))}"
    folder.mkdir(parents=True)
    code, out, err = cli(project, *command, *(o.replace("{out}", str(folder)) for o in options))
    token = re.search(r"^::stop-commands::([0-9a-f]+)$", out, re.MULTILINE)
    if token:
        out = out.replace(token[1], "TOKEN")
    return code, out, err.replace(str(folder), "{out}"), side_files(folder)


def assert_same_as_unsharded(project: Path, scratch: Path, check_args: tuple[str, ...] = (),
                             ns: tuple[int, ...] = (1, 2, 3, 4), option_sets: tuple = OPTION_SETS) -> None:
    shards = {n: shard_files(project, n, scratch / f"shards-{n}", check_args) for n in ns}
    for options in option_sets:
        expected = run_with(project, scratch, ["check", *check_args], options)
        for n in ns:
            merged = run_with(project, scratch, ["merge", *map(str, reversed(shards[n]))], options)
            assert merged == expected, (n, options)


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_SHA", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("example", ["expertqa", "expertqa-faults", "model-output"])
def test_examples_merge_to_the_unsharded_output(example: str, tmp_path: Path) -> None:
    project = tmp_path / example
    shutil.copytree(REPO_ROOT / "examples" / example, project)
    assert_same_as_unsharded(project, tmp_path / "scratch")


def _shardable(case: Path) -> bool:
    args = read_lines(case / "args")
    return "--fix" not in args and "-" not in args and not any(a.startswith("--stdin") for a in args)


@pytest.mark.parametrize("case", [c for c in case_folders() if _shardable(c)],
                         ids=lambda c: f"{c.parent.name}/{c.name}")
def test_golden_cases_merge_to_the_unsharded_output(case: Path, tmp_path: Path) -> None:
    project = tmp_path / "work"
    materialise(case, project)
    args = tuple(a for a in read_lines(case / "args") if a not in ("--strict", "--quiet", "--review"))
    assert_same_as_unsharded(project, tmp_path / "scratch", args, ns=(1, 2, 3), option_sets=OPTION_SETS[:3])


def _generated(root: Path, sources: int = 24) -> None:
    """A project with ``sources`` sources of 2-3 revisions each (CL106), fact reports
    citing them well and badly, and Markdown reports with CL201, CL205 and CL206."""
    urls = [f"https://data.example/{i}.txt" for i in range(sources)]
    labels = {f"m{i}": {"unit": "items"} for i in range(8)}
    labels["claim-*"] = {}
    (root / "citelint.yaml").parent.mkdir(parents=True, exist_ok=True)
    (root / "citelint.yaml").write_text(json.dumps({"sources": urls, "labels": labels,
                                                    "markdown": ["reports/**/*.md"]}), encoding="utf-8")
    revisions: dict[str, list[str]] = {}
    for i, url in enumerate(urls):
        for r in range(2 + i % 2):
            text = (f"Source {i} revision {r}: the plant made {100 + i} items in 2026, "
                    f"and shipped {i * 7 + r} crates. Output rose {i % 9}% on the year.")
            record = make_record(url, text, retrieved_at=f"2026-0{r + 1}-01T00:00:00Z")
            write_capture(root / "captures", record)
            revisions.setdefault(url, []).append(record.sha256)
    reports = root / "reports"
    reports.mkdir(exist_ok=True)
    for n in range(9):
        facts = []
        for j in range(14):
            i = (n * 5 + j) % sources
            url, digest = urls[i], revisions[urls[i]][j % len(revisions[urls[i]])]
            snippet = f"the plant made {100 + i} items in 2026" if j % 4 else f"shipped {i} boxes"
            facts.append({"state": "cited", "label": f"m{j % 8}" if j < 8 else f"claim-{j}", "source": url,
                          "captureSha256": digest, "snippet": snippet})
        facts.append({"state": "unavailable", "label": "claim-x", "reason": "not published"})
        if n == 3:
            facts.append({"state": "cited", "label": "nope", "source": "https://elsewhere.example/",
                          "captureSha256": "0" * 64, "snippet": "anything at all here"})
            facts.append({"state": "cited", "label": "m1", "snippet": "no source"})
        (reports / f"r{n}.json").write_text(json.dumps({"facts": facts}, indent=1), encoding="utf-8")
    # More CL104 findings in one report than the per-file cap, across every source's shard.
    many = [{"state": "cited", "label": f"claim-{j}", "source": urls[j % sources],
             "captureSha256": revisions[urls[j % sources]][0], "snippet": f"nowhere to be found {j}"}
            for j in range(260)]
    (reports / "many.json").write_text(json.dumps({"facts": many}), encoding="utf-8")
    (reports / "broken.json").write_text("{\"facts\": [", encoding="utf-8")
    for n in range(5):
        i, k = n % sources, (n * 3 + 1) % sources
        (reports / f"a{n}.md").write_text(
            f"# Answer {n}\n\nThe plant made {100 + i} items in 2026 [source]({urls[i]}).\n\n"
            f"It said “the plant made {999} items in the year 2026” [s]({urls[i]}).\n\n"
            f"Shipping reached {4242 + n} crates [k]({urls[k]}).\n\n"
            f"See [rose](https://data.example/{k}.txt#:~:text=Output%20rose) and "
            f"[made up](https://invented.example/{n}) too.\n", encoding="utf-8")


def test_a_generated_repository_merges_to_the_unsharded_output(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project)
    code, out, _ = cli(project, "check")
    for rule in ("CL101", "CL104", "CL106", "CL001", "CL002", "CL003", "CL201", "CL205", "CL206"):
        assert f" {rule} " in out, rule
    assert "more CL104 (snippet-not-found) findings in this file not shown" in out
    assert_same_as_unsharded(project, tmp_path / "scratch")


def test_shards_with_two_processes_merge_to_one_process_s_output(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project)
    urls = [f"https://data.example/{i}.txt" for i in range(24)]
    for n in range(240):  # enough fact reports for the first phase to fork a worker
        facts = [{"state": "cited", "label": "m1", "source": urls[(n + j) % 24], "captureSha256": "0" * 64,
                  "snippet": "the plant made items"} for j in range(2)]
        (project / "reports" / f"extra-{n:03d}.json").write_text(json.dumps({"facts": facts}), encoding="utf-8")
    scratch = tmp_path / "scratch"
    shards = shard_files(project, 3, scratch / "shards", ("--jobs", "2"))
    for options in OPTION_SETS[:2]:
        expected = run_with(project, scratch, ["check", "--jobs", "1"], options)
        assert run_with(project, scratch, ["merge", *map(str, shards)], options) == expected


def test_shards_run_in_a_folder_of_the_project_merge_there(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=6)
    # Findings name files from the working directory; a report path's shard is the same from anywhere.
    assert_same_as_unsharded(project / "reports", tmp_path / "scratch", ("a1.md", "r2.json", "../citelint.yaml"),
                             ns=(2, 3), option_sets=OPTION_SETS[:2])


def test_base_in_a_real_git_repository_merges_to_the_unsharded_output(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=10)
    init_repo(project)
    commit_all(project, "base")
    changed = next(p for p in sorted((project / "captures").rglob("*.json")))
    changed.write_bytes(changed.read_bytes().replace(b"Source", b"Sauce"))  # CL301 (and CL103)
    extra = make_record("https://data.example/3.txt", "Source 3, untracked: 103 items.",
                        retrieved_at="2026-09-01T00:00:00Z")
    write_capture(project / "captures", extra)  # CL106 for the others, CL109 when cited
    git(project, "add", "--all", "reports")
    code, out, _ = cli(project, "check", "--base", "HEAD")
    assert " CL301 " in out
    assert_same_as_unsharded(project, tmp_path / "scratch", ("--base", "HEAD"), ns=(1, 2, 4))


def test_review_files_that_do_not_count_merge_in_the_order_one_run_reads_them(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project)
    _, out, _ = cli(project, "check", "--format", "json")
    fingerprints = [a["fingerprint"] for a in json.loads(out)["accepted"] if a["fingerprint"]]
    assert len(fingerprints) > 30
    for n, fp in enumerate(fingerprints[::2]):
        (project / "reviews" / fp).mkdir(parents=True)
        (project / "reviews" / fp / f"{n:064x}.json").write_text("{}", encoding="utf-8")
    (project / "reviews" / "stray.txt").write_text("not a review", encoding="utf-8")
    _, out, _ = cli(project, "check")
    assert "more review files do not count" in out or out.count("does not count") > 1
    assert_same_as_unsharded(project, tmp_path / "scratch", ns=(2, 3), option_sets=OPTION_SETS[:2])


def test_each_capture_is_read_by_exactly_one_shard(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project)
    for md in (project / "reports").glob("*.md"):
        md.unlink()  # a Markdown report reads the captures its links name, in its own shard
    sys.dont_write_bytecode = True
    readers: dict[str, list[int]] = {}
    for k in range(1, 5):
        with audit.watching() as events:
            code, _, err = cli(project, "check", "--shard", f"{k}/4", "--output-file", str(tmp_path / f"{k}.json"))
        assert code == 0, err
        captures = os.path.realpath(project / "captures")
        for path in {p for p, _ in events.opened if p.startswith(captures + "/") and p.endswith(".json")}:
            readers.setdefault(path, []).append(k)
    every = {os.path.realpath(p) for p in (project / "captures").rglob("*.json")}
    assert set(readers) == every
    assert {path: ks for path, ks in readers.items() if len(ks) != 1} == {}


def test_a_source_and_a_path_belong_to_one_shard_whatever_the_process() -> None:
    # The first 8 bytes of SHA-256, big-endian, mod N: fixed values, not Python's salted hash().
    head = int.from_bytes(hashlib.sha256(b"https://example.org/a.txt").digest()[:8], "big")
    assert [shard_of("https://example.org/a.txt", n) for n in (1, 2, 3, 4)] == [1, *[head % n + 1 for n in (2, 3, 4)]]
    # A report path's shard is its path's relative to the project root, wherever the check runs.
    assert shard_of("reports/a.md", 3) == int.from_bytes(hashlib.sha256(b"reports/a.md").digest()[:8], "big") % 3 + 1


def test_dry_run_lists_each_shard_s_sources_and_reports_and_checks_nothing(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=6)
    listed_sources, listed_reports = [], []
    for k in (1, 2, 3):
        code, out, err = cli(project, "check", "--shard", f"{k}/3", "--dry-run")
        assert (code, err) == (0, "")
        head, *rest = out.splitlines()
        assert head.startswith(f"shard {k}/3: ")
        listed_sources += [line.split()[1].rstrip(":") for line in rest if line.startswith("source ")]
        listed_reports += [line.split()[1] for line in rest if line.startswith(("facts ", "markdown "))]
    cited = {f"https://data.example/{i}.txt" for i in range(6)} | {"https://elsewhere.example/"}
    assert sorted(listed_sources) == sorted(cited)
    assert sorted(listed_reports) == sorted(p.relative_to(project).as_posix()
                                            for p in (project / "reports").iterdir())


@pytest.mark.parametrize(("args", "says"), [
    (["--shard", "0/3"], "1 <= K <= N"), (["--shard", "4/3"], "1 <= K <= N"), (["--shard", "a/b"], "K/N"),
    (["--shard", "1/2", "--fix"], "--fix"), (["--shard", "1/2", "--format", "text"], "citelint merge"),
    (["--shard", "1/2", "--sarif-file", "x.sarif"], "--sarif-file to `citelint merge`"),
    (["--shard", "1/2", "--summary-file", "s.md"], "--summary-file to `citelint merge`"),
    (["--shard", "1/2", "--statistics"], "--statistics to `citelint merge`"),
    (["--shard", "1/2", "-", "--stdin-filename", "reports/r0.json"], "standard input"),
    (["--dry-run"], "--dry-run goes with --shard"),
])
def test_shard_usage_errors_say_what_to_write(args: list[str], says: str, tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    code, out, err = cli(project, "check", *args)
    assert (code, out) == (2, "")
    assert says in err and "Traceback" not in err


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_merge_refuses_what_is_not_one_whole_run(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    three = shard_files(project, 3, tmp_path / "three")
    two = shard_files(project, 2, tmp_path / "two")

    def refused(*files: Path | str, cwd: Path = project) -> str:
        code, out, err = cli(cwd, "merge", *map(str, files))
        assert (code, out) == (2, ""), err
        assert "Traceback" not in err
        return err

    assert "missing: give all 3 shard files" in refused(three[0], three[2])
    assert "are both shard 1/3" in refused(three[0], three[0], three[1], three[2])
    assert "merge the shards of one run" in refused(three[0], three[1], two[1])
    other = shard_files(project, 3, tmp_path / "paths", ("reports/r1.json",))
    assert "in the paths given" in refused(three[0], three[1], other[2])
    _edit(other[2], lambda d: d.update(citelint="0.0.0"))
    assert "written by citelint 0.0.0" in refused(three[0], three[1], other[2])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert f"{bad} is not a shard file: it is not UTF-8 JSON" in refused(bad)
    bad.write_text(json.dumps({"format": "citelint.output/1"}), encoding="utf-8")
    assert "its format is 'citelint.output/1'" in refused(bad)
    shutil.copy(three[0], bad)
    _edit(bad, lambda d: d["shard"].update(k="one"))
    assert "schemas/shard.schema.json): at /shard/k" in refused(bad)
    assert "cannot read" in refused(tmp_path / "absent.json")
    # Another config: the merge's own, or the shards'.
    (project / "citelint.yaml").write_text((project / "citelint.yaml").read_text() + "\n", encoding="utf-8")
    assert "checked another config" in refused(*three)
    changed = shard_files(project, 3, tmp_path / "changed")
    assert "the config's digest" in refused(three[0], three[1], changed[2])
    # Where it runs: the findings name files from the shards' directory.
    assert "run the merge where the shards ran" in refused(*changed, cwd=project / "reports")


def test_merge_refuses_accepted_columns_and_notices_no_shard_writes_in_words(tmp_path: Path) -> None:
    """The accepted facts are columns of one length, a written notice always has its place, and
    whether the merge makes the CL901 notices is the run's: anything else is refused, exit 2."""
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one, two = shard_files(project, 2, tmp_path / "s")
    bad = tmp_path / "bad.json"

    def refused(edit) -> str:  # type: ignore[no-untyped-def]
        shutil.copy(one, bad)
        _edit(bad, edit)
        code, out, err = cli(project, "merge", str(bad), str(two), "--format", "json")
        assert (code, out) == (2, ""), err
        assert "Traceback" not in err and "internal error" not in err
        return err

    assert "at /accepted: its columns differ in length (order 1" in refused(
        lambda d: d["accepted"].update(order=d["accepted"]["order"][:1]))
    assert "schemas/shard.schema.json): at /accepted" in refused(lambda d: d["accepted"].pop("label"))
    assert "at /accepted/line/0: an accepted fact's line and column are both null" in refused(
        lambda d: d["accepted"]["line"].__setitem__(0, 3))
    assert "schemas/shard.schema.json): at /accepted/snippet/0" in refused(
        lambda d: d["accepted"]["snippet"].__setitem__(0, 7))
    assert "schemas/shard.schema.json): at /notices/0/line" in refused(
        lambda d: d["notices"][0].update(line=None))
    assert "in whether CL901 is a notice" in refused(lambda d: d["run"].update(reviewNotices=False))
    assert "its format is 'citelint.shard/1', not 'citelint.shard/2'" in refused(
        lambda d: d.update(format="citelint.shard/1"))


@pytest.mark.parametrize("severity", ["notice", "warning", "off"])
def test_reviews_and_cl901_at_any_severity_merge_to_the_unsharded_output(severity: str, tmp_path: Path) -> None:
    """The merge makes the CL901 notices of the accepted facts it places only when CL901 is a
    notice and no review judges the fact, as one run does (raised, CL901 is a shard's finding)."""
    project = tmp_path / "gen"
    _generated(project, sources=6)
    _, out, _ = cli(project, "check", "--format", "json")
    fingerprints = [a["fingerprint"] for a in json.loads(out)["accepted"] if a["fingerprint"]]
    assert cli(project, "review", "--approve", *fingerprints[::3], "--by", "ada@example.org", "--note", "read")[0] == 0
    assert cli(project, "review", "--reject", *fingerprints[1::5], "--by", "bo@example.org", "--note", "no")[0] == 0
    config = json.loads((project / "citelint.yaml").read_text(encoding="utf-8"))
    (project / "citelint.yaml").write_text(json.dumps({**config, "rules": {"CL901": severity}}), encoding="utf-8")
    doc = json.loads(cli(project, "check", "--format", "json")[1])
    assert (len(doc["semanticReview"]) > 10) == (severity == "notice")
    assert (" CL901 " in cli(project, "check")[1]) == (severity == "warning")
    assert_same_as_unsharded(project, tmp_path / "scratch", ns=(1, 3), option_sets=OPTION_SETS[:3])


def test_merge_never_writes_over_a_shard_file_or_a_report(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    files = shard_files(project, 2, tmp_path / "s")
    before = files[0].read_bytes()
    for target in (files[0], project / "reports" / "r1.json"):
        code, out, err = cli(project, "merge", *map(str, files), "--output-file", str(target))
        assert code == 2 and "cannot write" in err
    assert files[0].read_bytes() == before
    (tmp_path / "link.txt").symlink_to(project / "reports" / "r1.json")
    code, _, err = cli(project, "merge", *map(str, files), "--sarif-file", str(tmp_path / "link.txt"))
    assert code == 2 and "cannot write" in err


def test_shard_files_record_what_decides_the_findings(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    path = shard_files(project, 2, tmp_path / "s")[1]
    doc = json.loads(path.read_text(encoding="utf-8"))
    digest = hashlib.sha256((project / "citelint.yaml").read_bytes()).hexdigest()
    assert doc["shard"] == {"k": 2, "n": 2} and doc["citelint"] == __version__
    assert doc["run"] == {"config": digest, "directory": ".", "paths": [], "base": None, "baseMissing": "error",
                          "baseCommit": None, "reports": doc["run"]["reports"], "reviewNotices": True}
    assert re.fullmatch("[0-9a-f]{64}", doc["run"]["reports"])
    assert json.loads(shard_files(project, 2, tmp_path / "t")[0].read_text())["run"] == doc["run"]
    # Shard 1 alone holds the run's notes; the others' lists are empty.
    assert doc["warnings"] == [] and doc["skipped"] == []


def _accepted(doc: dict) -> list[dict]:
    """A shard file's accepted facts (columns) as one dict each."""
    columns = doc["accepted"]
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def test_the_merge_places_what_shards_leave_unplaced_and_refuses_it_unplaceable(tmp_path: Path) -> None:
    """A shard writes the accepted facts of report files with a null line and how to read each
    report again (``place``), and not their CL901 notices; the merge places them and makes their
    notices as one run does, and refuses an unplaced fact that no ``place`` entry covers."""
    project = tmp_path / "gen"
    _generated(project, sources=4)
    files = shard_files(project, 2, tmp_path / "s")
    docs = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    unplaced = [a for d in docs for a in _accepted(d) if a["line"] is None]
    assert unplaced and all(a["column"] is None for a in unplaced)
    assert len(unplaced) == sum(len(d["accepted"]["order"]) for d in docs)  # every one is a report file's
    # The only notices written are placed ones of Markdown reports (their quotations' CL901).
    assert all(n["path"].endswith(".md") for d in docs for n in d["notices"])
    placed = {r["path"] for d in docs for r in d["place"]}
    assert {a["path"] for a in unplaced} <= placed
    assert all(r["kind"] == "json" and r["factsPointer"] == "/facts" for d in docs for r in d["place"])
    whole = cli(project, "check", "--format", "json")[1]
    assert cli(project, "merge", *map(str, files), "--format", "json")[1] == whole
    for doc, path in zip(docs, files):
        doc["place"] = []
        path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = cli(project, "merge", *map(str, files), "--format", "json")
    assert (code, out) == (2, "") and "has no place and no shard says how to place it" in err


def test_merge_reads_shard_files_from_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    files = shard_files(project, 3, tmp_path / "s")
    expected = cli(project, "check")
    data = b"".join(f.read_bytes() for f in files)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert cli(project, "merge", "-") == expected
    # Standard input is bounded as a file is.
    from citelint.cli import merge

    monkeypatch.setattr(merge, "MAX_SHARD_BYTES", len(data) - 1)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = cli(project, "merge", "-")
    assert (code, out) == (2, "") and f"over {len(data) - 1} bytes" in err, err


def test_merge_refuses_deep_nesting_and_unknown_rules_in_words(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one, two = shard_files(project, 2, tmp_path / "two")
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "citelint.shard/2", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    code, out, err = cli(project, "merge", str(deep), str(two))
    assert (code, out) == (2, ""), err
    assert f"{deep} is not a shard file: its JSON is nested too deeply" in err
    for field in ("findings", "notices", "more"):
        doc = json.loads(one.read_text(encoding="utf-8"))
        if doc[field]:
            doc[field][0]["rule"] = "CL999"
        else:
            doc[field] = [{"path": "reports/r1.json", "rule": "CL999", "count": 1}]
        bad = tmp_path / f"{field}.json"
        bad.write_text(json.dumps(doc), encoding="utf-8")
        code, out, err = cli(project, "merge", str(bad), str(two))
        assert (code, out) == (2, ""), err
        assert "internal error" not in err
        assert "CL999 is no rule of this citelint" in err


@contextlib.contextmanager
def _rewritten_between_phases(reports: list[Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Inside the block, each check gives every file of ``reports`` a leading line between its
    two phases (so what it places late is placed at 1:1); after it, the files are as they were."""
    import citelint.check.run as run

    originals = {path: path.read_bytes() for path in reports}
    verify = run.verify_groups

    def changing(*args, **kwargs):  # type: ignore[no-untyped-def]
        for path in reports:
            path.write_bytes(b"\n" + path.read_bytes())
        return verify(*args, **kwargs)

    monkeypatch.setattr(run, "verify_groups", changing)
    try:
        yield
    finally:
        monkeypatch.setattr(run, "verify_groups", verify)
        for path, data in originals.items():
            path.write_bytes(data)


def test_a_report_changed_while_a_later_shard_checks_it_is_noted_by_the_merge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=6)
    reports = sorted((project / "reports").glob("*.json"))
    files = [tmp_path / "shard-1.json", tmp_path / "shard-2.json"]
    assert cli(project, "check", "--shard", "1/2", "-o", str(files[0]))[0] == 0
    with _rewritten_between_phases(reports, monkeypatch):  # only while shard 2 checks
        assert cli(project, "check", "--shard", "2/2", "-o", str(files[1]))[0] == 0
    doc = json.loads(files[1].read_text(encoding="utf-8"))
    placed = {f["path"] for f in doc["findings"] if f["key"][0] == 1 and (f["line"], f["column"]) == (1, 1)}
    assert placed, "shard 2 placed none of its citations' findings at 1:1"
    code, out, err = cli(project, "merge", *map(str, files), "--format", "json")
    notes = [note for note in json.loads(out)["warnings"] if "changed while being checked" in note]
    assert len(notes) == 1 and int(notes[0].split()[0]) >= len(placed), notes


def test_merge_refuses_shards_that_found_other_reports(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one = shard_files(project, 2, tmp_path / "before")[0]
    report = project / "reports" / "r0.json"
    report.write_bytes(report.read_bytes() + b"\n")  # another checkout: the same facts, other bytes
    two = shard_files(project, 2, tmp_path / "after")[1]
    code, out, err = cli(project, "merge", str(one), str(two))
    assert (code, out) == (2, ""), err
    assert "in the reports it found" in err
    (project / "reports" / "added.md").write_text("# An added report\n", encoding="utf-8")
    three = shard_files(project, 2, tmp_path / "added")[0]
    code, out, err = cli(project, "merge", str(three), str(two))
    assert (code, out) == (2, "") and "in the reports it found" in err, err


def test_merge_refuses_a_symlink_or_a_fifo_as_a_shard_file(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one, two = shard_files(project, 2, tmp_path / "s")
    link = tmp_path / "link.json"
    link.symlink_to(one)
    code, out, err = cli(project, "merge", str(link), str(two))
    assert (code, out) == (2, "") and f"cannot read {link}: it is a symlink" in err, err
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    code, out, err = cli(project, "merge", str(fifo), str(two))
    assert (code, out) == (2, "") and f"cannot read {fifo}: not a regular file" in err, err


def test_merge_refuses_a_lone_surrogate_no_check_writes_in_words(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one, two = shard_files(project, 2, tmp_path / "s")
    doc = json.loads(one.read_text(encoding="utf-8"))
    doc["findings"][0]["message"] += "\ud800"
    one.write_text(json.dumps(doc), encoding="utf-8")
    for fmt in ("text", "json", "sarif", "github", "summary"):
        code, out, err = cli(project, "merge", str(one), str(two), "--format", fmt)
        assert code == 2, err  # the github format also annotates that the check did not run
        assert "at /findings/0/message holds a lone surrogate" in err and "internal error" not in err


@pytest.mark.parametrize("key", [[5, 1, 0], [0, 2, 0], [0, 1, "0"], [1, "s", "d", 1, 0], [1, 0, "d", 1, 0, 0]])
def test_merge_refuses_an_ordering_key_no_shard_writes(key: list, tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    one, two = shard_files(project, 2, tmp_path / "s")
    doc = json.loads(one.read_text(encoding="utf-8"))
    doc["findings"][0]["key"] = key  # a finding the merge would drop or misplace
    one.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = cli(project, "merge", str(one), str(two))
    assert (code, out) == (2, ""), err
    assert "at /findings/0/key" in err


def test_merge_names_the_missing_shards_of_a_huge_n_at_once(tmp_path: Path) -> None:
    project = tmp_path / "gen"
    _generated(project, sources=4)
    path = tmp_path / "s.json"
    assert cli(project, "check", "--shard", f"1/{10**12}", "-o", str(path))[0] == 0
    code, out, err = cli(project, "merge", str(path))
    assert (code, out) == (2, ""), err
    assert f"shards 2/{10**12}, 3/{10**12}, 4/{10**12}, 5/{10**12}, 6/{10**12} and {10**12 - 6} more missing" in err


def test_reports_changed_before_the_accepted_facts_are_built_are_noted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "expertqa"
    shutil.copytree(REPO_ROOT / "examples" / "expertqa", project)
    reports = sorted((project / "reports").glob("*.json"))  # no finding: only accepted facts need positions
    originals = {path: path.read_bytes() for path in reports}

    def changed_run(*argv: str) -> tuple[int, str, str]:
        with _rewritten_between_phases(reports, monkeypatch):
            return cli(project, *argv)

    doc = json.loads(changed_run("check", "--format", "json")[1])
    # The accepted facts and their CL901 notices are built when the formatter reads them, after the phases.
    assert any((a["line"], a["column"]) == (1, 1) for a in doc["accepted"])
    notes = [note for note in doc["warnings"] if "changed while being checked" in note]
    assert len(notes) == 1, doc["warnings"]
    files = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for k, path in enumerate(files, 1):
        assert changed_run("check", "--shard", f"{k}/2", "-o", str(path))[0] == 0
    # A shard leaves the accepted facts of a report file to the merge to place, from the file as the
    # merge finds it: the bytes checked (restored here) place them as an unchanged run does ...
    merged = json.loads(cli(project, "merge", *map(str, files), "--format", "json")[1])
    assert merged == json.loads(cli(project, "check", "--format", "json")[1])
    # ... and other bytes place them at 1:1, with the note, as the run that read them changed.
    for path in reports:
        path.write_bytes(b"\n" + originals[path])
    merged = json.loads(cli(project, "merge", *map(str, files), "--format", "json")[1])
    assert merged["warnings"] == doc["warnings"]
    assert merged["accepted"] == doc["accepted"]
    # The CL901 notices the merge makes from the shards' accepted facts stand where those are, at 1:1.
    assert merged["semanticReview"] == doc["semanticReview"] and doc["semanticReview"]
    assert all((n["line"], n["column"]) == (1, 1) for n in merged["semanticReview"])
