"""The README's rule table is the catalog in citelint/model.py, row for row."""

from __future__ import annotations

from citelint.model import RULES
from conftest import REPO_ROOT


def test_readme_rule_table_matches_catalog() -> None:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- rules-table")[1].split("<!-- /rules-table -->")[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| CL")]
    expected = [f"| {r.id} | {r.name} | {r.severity} | {r.summary} |" for r in RULES.values()]
    assert rows == expected


def test_every_rule_has_examples_and_says_why_and_how_to_fix() -> None:
    assert all(r.bad and r.good and r.summary for r in RULES.values())
    missing = [r.id for r in RULES.values() if len(r.why) < 40 or len(r.fix) < 20]
    assert not missing, f"rules without a why/fix text in citelint/rules.json: {missing}"


def test_rules_doc_is_generated_from_catalog() -> None:
    """docs/rules.md is what `citelint rule --markdown` prints; helpUri anchors point into it."""
    from citelint.model import rules_markdown

    text = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert text == rules_markdown()
    for r in RULES.values():
        assert f"\n## {r.id} {r.name}\n" in text
        assert r.help_uri.endswith(f"#{r.id.lower()}-{r.name}")


def test_every_install_line_names_the_distribution_citelint_provenance() -> None:
    """Issue 23, item 9: `citelint` on the package index is an unrelated tool; an install line
    (docs, --help, messages, workflows) that names it installs that tool instead."""
    import re
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    command = re.compile(r"\b(?:pip3?|pipx|uv(?: pip| tool)?)\s+(?:install|add)\s+([^`;&|)\n]*)")

    def wrong(line: str) -> bool:
        """Whether a pip/pipx/uv install command on ``line`` asks for the distribution `citelint`."""
        for m in command.finditer(line):
            for word in m.group(1).split():
                name = re.split(r"[\[@=<>~!;]", word.strip("'\""), maxsplit=1)[0]
                if name.lower() == "citelint":
                    return True
        return False

    found = []
    for name in tracked.decode("utf-8").split("\0"):
        path = REPO_ROOT / name
        if not name or name.startswith(("tests/cases/", "tests/output/")) or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if wrong(line)]
    assert not found, "install lines naming the unrelated `citelint` package:\n" + "\n".join(found)
