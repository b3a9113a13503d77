"""Golden cases: one folder per rule under tests/cases/, each holding small real
projects and the exact output of `citelint check` on them.

tests/cases/README.md describes a case folder. To rewrite every expected file
from the current output (then review the diff):

    CITELINT_REGEN=1 pytest tests/test_cases.py tests/output
"""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import pytest

from citelint.cli import main
from citelint.model import RULES
from gitrepo import git, git_env, init_repo

CASES = Path(__file__).resolve().parent / "cases"
REGEN = os.environ.get("CITELINT_REGEN") == "1"

#: Files of a case folder that describe the run rather than belong to the project.
META = {"unstaged", "README.md", "args", "deleted", "base", "change", "expected.out", "expected.err", "expected-after"}

#: A fixed author and date make the base commit's id, which CL301 messages name, the same on every run.
GIT_FIXED = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


def rule_folders() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir())


def case_folders() -> list[Path]:
    return [case for rule in rule_folders() for case in sorted(p for p in rule.iterdir() if p.is_dir())]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside .git) by POSIX relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def materialise(case: Path, work: Path) -> None:
    """Build the project of ``case`` in ``work``.

    A case with ``base/`` is a git change: ``base/`` is committed, then
    ``change/`` is written over it and the paths in ``deleted`` are removed,
    then staged but not committed, as a pre-commit hook sees them (with an
    ``unstaged`` file in the case, left unstaged too).
    Otherwise the case folder itself (less its META files) is the project.
    """
    if (case / "base").is_dir():
        shutil.copytree(case / "base", work)
        init_repo(work)
        git(work, "add", "--all")
        git(work, "commit", "--quiet", "--no-verify", "-m", "base", env=git_env(GIT_FIXED))
        if (case / "change").is_dir():
            shutil.copytree(case / "change", work, dirs_exist_ok=True)
        for rel in read_lines(case / "deleted"):
            (work / rel).unlink()
        if not (case / "unstaged").exists():
            # What a pre-commit hook sees: the change staged, not committed.
            git(work, "add", "--all")
    else:
        shutil.copytree(case, work, ignore=lambda d, names: META & set(names) if Path(d) == case else ())


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def run_case(case: Path, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, dict[str, bytes]]:
    """Run ``citelint check ARGS`` in the case's project; return (expected.out text, stderr, changed files)."""
    materialise(case, work)
    before = snapshot(work)
    monkeypatch.chdir(work)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *read_lines(case / "args")], stdout=out, stderr=err)
    after = snapshot(work)
    assert set(before) <= set(after), f"files deleted by the run: {sorted(set(before) - set(after))}"
    changed = {rel: data for rel, data in after.items() if before.get(rel) != data}
    return f"# exit {code}\n{out.getvalue()}", err.getvalue(), changed


def regenerate(case: Path, out: str, err: str, changed: dict[str, bytes]) -> None:
    (case / "expected.out").write_text(out, encoding="utf-8", newline="")
    (case / "expected.err").unlink(missing_ok=True)
    if err:
        (case / "expected.err").write_text(err, encoding="utf-8", newline="")
    shutil.rmtree(case / "expected-after", ignore_errors=True)
    for rel, data in changed.items():
        target = case / "expected-after" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def test_case_folders_are_the_rule_catalog() -> None:
    """`ls tests/cases` is the rule index: a rule without its golden case fails here."""
    assert [p.name for p in rule_folders()] == sorted(f"{r.id}-{r.name}" for r in RULES.values())


@pytest.mark.parametrize("rule", rule_folders(), ids=lambda p: p.name)
def test_every_rule_has_a_failing_and_a_passing_case(rule: Path) -> None:
    kinds = sorted({case.name.split("-")[0] for case in rule.iterdir() if case.is_dir()})
    assert kinds == ["fail", "pass"], f"{rule.name}: case names must start with fail- or pass-, both present"


@pytest.mark.parametrize("case", case_folders(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)  # else the format would switch to github
    out, err, changed = run_case(case, tmp_path / "project", monkeypatch)
    if REGEN:
        regenerate(case, out, err, changed)
    expected_err = case / "expected.err"
    after = case / "expected-after"
    assert out == (case / "expected.out").read_text(encoding="utf-8")
    assert err == (expected_err.read_text(encoding="utf-8") if expected_err.exists() else "")
    assert changed == (snapshot(after) if after.is_dir() else {})
    # The folder name says whether the rule fires; the output must agree.
    rule_id = case.parent.name.split("-")[0]
    fires = re.search(rf"\b{rule_id}\b", out + err) is not None
    assert fires == case.name.startswith("fail-"), f"{case.name}: {rule_id} {'present' if fires else 'absent'}"
