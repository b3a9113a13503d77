"""scripts/new_rule.py, run in a temporary copy of the files it edits."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

#: What the script reads and writes; model.py renders docs/rules.md.
FILES = ["README.md", "docs/rules.md", "citelint/model.py", "citelint/rules.json", "scripts/new_rule.py"]


def copy(tmp_path: Path) -> Path:
    """The files the script touches, copied under ``tmp_path`` at their repository paths."""
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, tmp_path / rel)
    return tmp_path


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The copy's script, run from another directory than the copy's root."""
    return subprocess.run([sys.executable, str(root / "scripts" / "new_rule.py"), *args],
                          capture_output=True, text=True, cwd=root / "docs")


def test_new_rule_writes_the_row_the_cases_and_the_docs(tmp_path: Path) -> None:
    root = copy(tmp_path)
    before = (root / "citelint" / "rules.json").read_text(encoding="utf-8").splitlines()
    done = run(root, "CL110", "capture-too-old", "--severity", "warning")
    assert done.returncode == 0, done.stderr

    # One row more, in id order, and every other row as it was, byte for byte.
    after = (root / "citelint" / "rules.json").read_text(encoding="utf-8").splitlines()
    [added] = [line for line in after if line not in before]
    rows = [line.rstrip(",") for line in after if line != added]
    assert rows == [line.rstrip(",") for line in before]
    ids = [row["id"] for row in json.loads("\n".join(after))]
    assert ids == sorted(ids) and ids.index("CL110") == ids.index("CL109") + 1
    row = json.loads(added.rstrip(","))
    assert (row["id"], row["name"], row["severity"]) == ("CL110", "capture-too-old", "warning")

    docs = (root / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "\n## CL110 capture-too-old\n\nDefault severity: **warning**." in docs
    assert docs.index("## CL109 ") < docs.index("## CL110 ") < docs.index("## CL201 ")
    readme = (root / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- rules-table")[1].split("<!-- /rules-table -->")[0]
    lines = [ln for ln in table.splitlines() if ln.startswith("| CL")]
    assert lines[lines.index(next(ln for ln in lines if ln.startswith("| CL109 "))) + 1].startswith(
        "| CL110 | capture-too-old | warning | TODO")
    # Outside the table, the README is unchanged.
    original = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.split("<!-- rules-table")[0] == original.split("<!-- rules-table")[0]
    assert readme.split("<!-- /rules-table -->")[1] == original.split("<!-- /rules-table -->")[1]

    cases = root / "tests" / "cases" / "CL110-capture-too-old"
    assert sorted(p.name for p in cases.iterdir()) == ["fail-todo", "pass-todo"]
    for case in cases.iterdir():
        assert {p.name for p in case.iterdir()} == {"citelint.yaml", "captures", "reports", "expected.out",
                                                     "README.md"}
        assert json.loads((case / "reports" / "r.json").read_text()) == {"facts": []}


def test_new_rule_refuses_a_taken_id_or_name_and_changes_nothing(tmp_path: Path) -> None:
    root = copy(tmp_path)
    catalog = (root / "citelint" / "rules.json").read_bytes()
    for args in (["CL104", "something-new"], ["CL999", "snippet-not-found"]):
        done = run(root, *args)
        assert done.returncode != 0 and "already in citelint/rules.json" in done.stderr
    assert (root / "citelint" / "rules.json").read_bytes() == catalog
    assert not (root / "tests").exists()
    for args in (["CL1", "x"], ["CL110", "Not_Kebab"]):
        assert run(root, *args).returncode == 2


def test_docs_mode_regenerates_what_the_catalog_says(tmp_path: Path) -> None:
    root = copy(tmp_path)
    path = root / "citelint" / "rules.json"
    path.write_text(path.read_text(encoding="utf-8").replace("snippet-ambiguous", "snippet-vague"),
                    encoding="utf-8")
    assert run(root, "--docs").returncode == 0
    assert "\n## CL105 snippet-vague\n" in (root / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "| CL105 | snippet-vague | warning |" in (root / "README.md").read_text(encoding="utf-8")
