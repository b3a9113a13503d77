"""The README's rule table is the catalog in citelint/model.py, row for row."""

from __future__ import annotations

from conftest import REPO_ROOT
from citelint.model import RULES


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
