"""The worked example in examples/: the clean part passes, each deliberate fault is found
at its place with its rule, and the committed files are what the build script makes."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import sys
from pathlib import Path

import pytest

from citelint.cli import main
from conftest import REPO_ROOT, corpus_path

EXAMPLES = REPO_ROOT / "examples"
CLEAN = EXAMPLES / "expertqa"
FAULTS = EXAMPLES / "expertqa-faults"
FINDING = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<rule>CL\d{3}) (?P<message>.*)$")

#: The faults of expertqa-faults/reports/faults.json in report order: the rule each
#: must raise, the key it points at (a value, or for CL002 the key itself), and
#: words its message must contain.
EXPECTED_FAULTS = [
    ("CL104", "snippet", "value", "snippet not found"),                 # another source's sentence
    ("CL104", "snippet", "value", "does occur in revision"),            # digest of the other revision
    ("CL104", "snippet", "value", "near miss (curly vs straight quotes)"),  # curly quote straightened
    ("CL002", "source", "key", "cannot carry 'source'"),                # partial unavailable fact
    ("CL101", "source", "value", "not in the approved `sources`"),      # URL with no passage, cited
]


def load_builder():  # type: ignore[no-untyped-def]
    """examples/build_expertqa.py as a module (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location("build_expertqa", EXAMPLES / "build_expertqa.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def check(where: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """Run ``citelint check`` in-process in ``where``; return (exit code, stdout, stderr)."""
    monkeypatch.chdir(where)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def findings(out: str) -> list[re.Match[str]]:
    """Finding lines (not the indented semantic-review entries)."""
    return [m for m in map(FINDING.match, out.splitlines()) if m]


def test_clean_example_passes_with_semantic_review(monkeypatch: pytest.MonkeyPatch) -> None:
    reports = sorted((CLEAN / "reports").glob("*.json"))
    facts = [f for r in reports for f in json.loads(r.read_text(encoding="utf-8"))["facts"]]
    cited = sum(f["state"] == "cited" for f in facts)
    assert cited >= 20 and len(facts) > cited, "the example needs cited facts and unavailable facts"

    # A few citations ship reviewed, signed by the example reviewer: a first run shows both states.
    reviewed = len(list((CLEAN / "reviews").glob("*/*.json")))
    assert 0 < reviewed < cited and len(list((CLEAN / "reviews").glob("*/*.sig"))) == reviewed

    code, out, err = check(CLEAN, monkeypatch)

    assert code == 0, out + err
    assert findings(out) == [], out
    assert out.splitlines()[-1].startswith(f"{cited - reviewed} accepted citations to review for meaning")
    markdown = list((CLEAN / "reports").glob("*.md"))
    links = sum(text.count("](http") + text.count("<http") for text in (p.read_text(encoding="utf-8")
                                                                         for p in markdown))
    assert markdown and links
    assert out.splitlines()[-2] == (
        f"citelint: {len(reports) + len(markdown)} files, {len(facts)} facts ({cited} cited, "
        f"{len(facts) - cited} unavailable), {links} links ({links} grounded): 0 errors, 0 warnings, "
        f"{cited - reviewed} for semantic review, {reviewed} reviewed: supports")


def test_clean_example_reviews_count_only_with_the_reviewers_key(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped reviews are signed by the key the example's allowed-signers file lists; without
    that line they do not count, and each note says what was checked."""
    import shutil

    for record in (CLEAN / "reviews").glob("*/*.json"):
        note = json.loads(record.read_bytes())["note"]
        assert len(note) > 60 and ("passage" in note or "sentence" in note)
    copy = tmp_path / "expertqa"
    shutil.copytree(CLEAN, copy)
    signers = copy / ".citelint" / "review_signers"
    signers.write_text("".join(line for line in signers.read_text().splitlines(keepends=True)
                               if line.startswith("#")), encoding="ascii")
    code, out, _ = check(copy, monkeypatch)
    assert code == 0 and "reviewed: supports" not in out and out.count("does not count: ") == 3


def test_clean_example_captures_are_real_passages_with_two_revisions() -> None:
    from citelint.store.captures import Store

    records = [rec for _, rec in Store(CLEAN / "captures").iter_records()]
    assert all(not isinstance(r, Exception) for r in records)
    by_source: dict[str, list[str]] = {}
    for rec in records:
        by_source.setdefault(rec.source, []).append(rec.retrieved_at)
    assert 20 <= len(records) <= 60
    # Two passages of one URL are two revisions, one strictly newer than the other.
    multi = [times for times in by_source.values() if len(times) > 1]
    assert multi and all(len(set(times)) == len(times) for times in multi)
    size = sum(p.stat().st_size for p in CLEAN.rglob("*") if p.is_file())
    assert size < 1_000_000


def _expected_positions(report: Path) -> list[tuple[int, int]]:
    """(line, column) each EXPECTED_FAULTS entry must be reported at, found in the report's text."""
    lines = report.read_text(encoding="utf-8").splitlines()
    starts = [n for n, ln in enumerate(lines) if ln.strip() == "{" and n > 0]  # each fact's opening brace
    assert len(starts) == len(EXPECTED_FAULTS), "faults.json has one fact per expected fault"
    positions = []
    for start, (_, key, where, _) in zip(starts, EXPECTED_FAULTS):
        n = next(n for n in range(start, len(lines)) if f'"{key}": ' in lines[n])
        col = lines[n].index(f'"{key}": ')
        if where == "value":
            col += len(f'"{key}": ')
        positions.append((n + 1, col + 1))
    return positions


def test_faults_example_reports_exactly_the_deliberate_faults(monkeypatch: pytest.MonkeyPatch) -> None:
    positions = _expected_positions(FAULTS / "reports" / "faults.json")

    code, out, err = check(FAULTS, monkeypatch)

    assert code == 1, out + err
    got = sorted((m for m in findings(out) if m["path"] == "reports/faults.json"),
                 key=lambda m: (int(m["line"]), int(m["col"])))
    assert [(int(m["line"]), m["rule"]) for m in got] == \
        [(line, rule) for (line, _), (rule, *_) in zip(positions, EXPECTED_FAULTS)]
    text = (FAULTS / "reports" / "faults.json").read_text(encoding="utf-8").splitlines()
    for m, (line, col) in zip(got, positions):
        if m["rule"] == "CL104":
            # At the snippet's first differing character: inside the value, at or after its start.
            assert col <= int(m["col"]) < len(text[line - 1]), m.group(0)
        else:
            assert int(m["col"]) == col, m.group(0)
    for m in sorted(got, key=lambda m: int(m["line"])):
        words = EXPECTED_FAULTS[[p[0] for p in positions].index(int(m["line"]))][3]
        assert words in m["message"], m.group(0)
    # The Markdown answer cites one URL that was never retrieved: one CL201, at
    # the first character of that destination, and nothing else.
    (answer,) = FAULTS.joinpath("reports").glob("*.md")
    markdown = [m for m in findings(out) if m["path"] != "reports/faults.json"]
    assert [(m["path"], m["rule"]) for m in markdown] == [(f"reports/{answer.name}", "CL201")]
    line = answer.read_text(encoding="utf-8").splitlines()[int(markdown[0]["line"]) - 1]
    url = markdown[0]["message"].split()[2].rstrip(":")
    assert line.index(url) + 1 == int(markdown[0]["col"])
    assert "6 errors, 0 warnings" in out.splitlines()[-1]


def test_faults_match_the_build_scripts_list() -> None:
    builder = load_builder()
    assert [(rule, key) for _, rule, key, _ in builder.FAULTS] == [(r, k) for r, k, *_ in EXPECTED_FAULTS]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuilding_the_example_gives_the_committed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = corpus_path("expertqa", "rand_val.jsonl")
    builder = load_builder()

    assert builder.main(["--corpus", str(corpus), "--out", str(tmp_path)]) == 0

    for name in ("expertqa", "expertqa-faults"):
        built, committed = _tree(tmp_path / name), _tree(EXAMPLES / name)
        assert sorted(built) == sorted(committed), name
        changed = [path for path in built if built[path] != committed[path]]
        assert changed == [], f"{name}: rebuilt files differ from the committed ones; rerun the build script"


MODEL_OUTPUT = EXAMPLES / "model-output"


def test_model_output_example_passes_and_is_what_its_commands_make(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/model-output checks clean, and its README's commands, run on its own
    request and response, make exactly its committed captures and reports."""
    code, out, err = check(MODEL_OUTPUT, monkeypatch)
    assert code == 0, out + err
    assert "2 links (2 grounded): 0 errors" in out and "2 facts (2 cited" in out
    work = tmp_path / "model-output"
    work.mkdir()
    for name in ("citelint.yaml", "request.json", "response.json", "sources.yaml"):
        (work / name).write_bytes((MODEL_OUTPUT / name).read_bytes())
    (work / "reports").mkdir()
    monkeypatch.chdir(work)
    run = lambda *argv: main(list(argv), stdout=io.StringIO(), stderr=io.StringIO())  # noqa: E731
    assert run("capture", "--from-request", "anthropic", "request.json", "--source-map", "sources.yaml",
               "--retrieved-at", "2026-12-01T00:00:00Z") == 0
    base = ["import", "anthropic", "response.json", "--request", "request.json", "--source-map", "sources.yaml"]
    assert run(*base, "--out", "reports/answer.md") == 0
    assert run(*base, "--as", "facts", "--out", "reports/answer.json") == 0
    made = {k: v for k, v in _tree(work).items() if k.startswith(("captures/", "reports/"))}
    committed = {k: v for k, v in _tree(MODEL_OUTPUT).items()
                 if k.startswith(("captures/", "reports/")) and k != "captures/.gitattributes"}
    assert made == committed
