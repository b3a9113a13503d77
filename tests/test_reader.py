"""The reader view built from the check result alone (``run_check(detail=True)``).

The check keeps what ``citelint render`` needs (every fact's place, a
Markdown report's text and its links with their verdicts), so the view is
never a second reading of the report; a plain check keeps none of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citelint.check import run as check_run
from citelint.check.run import run_check
from citelint.config import load_config
from citelint.model import CheckResult, FactPlace
from citelint.reader.build import reader_view
from conftest import SOURCE_A, Repo


def check(repo: Repo, *paths: str, **options: Any) -> CheckResult:
    """``run_check`` in ``repo`` of ``paths`` (none: every report)."""
    return run_check(load_config(None, repo.root), list(paths), repo.root, **options)


def test_a_plain_check_keeps_no_detail(repo: Repo) -> None:
    repo.report(repo.cited())
    repo.write("reports/a.md", f"[a]({SOURCE_A})\n")
    assert check(repo).details is None


def test_findings_and_accepted_facts_carry_their_fact_index(repo: Repo) -> None:
    repo.config(labels={"inventory": None, "sales": None, "stock": None})
    repo.report({"state": "unavailable", "label": "sales", "reason": "n/a"}, repo.cited(snippet="not in the capture"),
                {"state": "cited", "label": "nope"}, repo.cited("stock", snippet="Inventory held steady at 42 items."))
    result = check(repo, "reports/r.json", detail=True)
    assert {(f.rule, f.fact_index) for f in result.findings} == {("CL002", 2), ("CL003", 2), ("CL104", 1)}
    assert [(a.label, a.fact_index) for a in result.accepted] == [("sales", 0), ("stock", 3)]
    assert [n.fact_index for n in result.notices] == [3]
    assert result.details is not None
    places = result.details["reports/r.json"].facts
    assert places is not None and [(p.label, p.line) for p in places] == [
        ("sales", 3), ("inventory", 8), ("nope", 15), ("stock", 19)]


def test_the_view_joins_by_index_not_by_position(repo: Repo) -> None:
    """Two facts on one line: each gets its own findings and verdict."""
    repo.write("reports/r.json", '{"facts": [{"state": "unavailable", "label": "sales", "reason": "n/a"}, '
                                 '{"state": "unavailable", "label": "nope", "reason": "n/a"}]}')
    result = check(repo, "reports/r.json", detail=True)
    view = reader_view(result, "reports/r.json", load_config(None, repo.root), "counts")
    assert [(item.label, item.line, item.status, [f.rule for f in item.problems]) for item in view.facts] == [
        ("sales", 1, "unavailable", []), ("nope", 1, "rejected", ["CL003"])]
    assert view.problems == ()


def test_a_report_that_does_not_load_keeps_no_facts(repo: Repo) -> None:
    repo.write("reports/r.json", "{not json")
    result = check(repo, "reports/r.json", detail=True)
    assert result.details is not None and result.details["reports/r.json"].facts is None
    view = reader_view(result, "reports/r.json", load_config(None, repo.root), "counts")
    assert view.facts == () and [f.rule for f in view.problems] == ["CL001"]


def test_markdown_detail_has_every_link_with_its_verdict(repo: Repo) -> None:
    repo.write("reports/a.md", f"[ok]({SOURCE_A}) [bad](https://invented.example/x) <mailto:a@example.org>\n")
    result = check(repo, "reports/a.md", detail=True)
    assert result.details is not None
    detail = result.details["reports/a.md"]
    assert detail.kind == "markdown" and detail.markdown.startswith("[ok]")
    assert [(v.link.href, v.error, [f.rule for f in v.findings]) for v in detail.links] == [
        (SOURCE_A, False, []), ("https://invented.example/x", True, ["CL201"]), ("mailto:a@example.org", False, [])]


def test_a_link_past_the_per_rule_cap_is_not_vouched(repo: Repo) -> None:
    """Its CL201 prints no finding of its own (one line counts the rest), yet it is no grounded link."""
    cap = check_run.FINDINGS_PER_RULE
    repo.write("reports/a.md", "".join(f"[x{i}](https://invented.example/{i})\n\n" for i in range(cap + 1)))
    result = check(repo, "reports/a.md", detail=True)
    view = reader_view(result, "reports/a.md", load_config(None, repo.root), "counts")
    assert view.vouched == frozenset() and f"invented.example/{cap}" not in view.markdown
    assert [m.kind for m in view.marks] == ["removed"] * (cap + 1) and view.marks[-1].problems == ()


def test_details_are_the_same_for_any_number_of_processes(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_run, "MIN_REPORTS_PER_PROCESS", 1)
    for n in range(4):
        repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "n/a"},
                    name=f"reports/r{n}.json")
    repo.write("reports/bad.json", "[")
    one, two = check(repo, jobs=1, detail=True), check(repo, jobs=2, detail=True)
    assert one.details == two.details and one.details is not None and len(one.details) == 5
    assert one.details["reports/r0.json"].facts == (FactPlace(3, 5, "inventory"), FactPlace(10, 5, "sales"))
    assert [(f.path, f.fact_index) for f in one.ordered()] == [(f.path, f.fact_index) for f in two.ordered()]
    assert [(a.path, a.fact_index) for a in one.accepted] == [(a.path, a.fact_index) for a in two.accepted]


def test_render_checks_with_detail(repo: Repo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`citelint render` asks the check for the detail, and reads the report no second time."""
    from citelint.cli import main
    from citelint.reports import loaders

    repo.report(repo.cited())
    reads: list[Path] = []
    real = loaders.read_source

    def counted(path: Path, *args: Any) -> Any:
        reads.append(path)
        return real(path, *args)

    monkeypatch.setattr(loaders, "read_source", counted)
    from citelint.check import targets

    monkeypatch.setattr(targets, "read_source", counted)  # every target is read through read_target
    monkeypatch.chdir(repo.root)
    assert main(["render", "reports/r.json", "-o", str(tmp_path / "r.html")]) == 0
    assert len(reads) == 1 and "Synthetic source: 42 items" in (tmp_path / "r.html").read_text(encoding="utf-8")
