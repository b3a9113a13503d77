"""What a large check keeps between its phases: cited facts in columns, no report's bytes,
nothing of an accepted citation when the output only counts them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citelint.check import run as check
from citelint.check.cited import CitedGroups
from citelint.check.grounding import GitTracking
from citelint.check.targets import select_targets, stdin_target
from citelint.config import load_config
from citelint.facts import Citation
from citelint.model import CheckResult
from conftest import SOURCE_A, SOURCE_B, Repo


def _two_reports(repo: Repo) -> None:
    repo.report(repo.cited(), repo.cited(label="sales", snippet="not in the capture"), name="reports/a.json")
    repo.report(repo.cited(label="sales", source=SOURCE_B, snippet=repo.records[SOURCE_B].text[:30]),
                name="reports/b.json")


def test_a_report_changed_between_the_phases_is_placed_at_1_1_with_a_note(repo: Repo) -> None:
    """Positions of the second phase's findings come from the file read again; a
    file that changed meanwhile is not the report that was checked."""
    _two_reports(repo)
    config = load_config(None, repo.root)
    steady = check.run_check(config, [], repo.root)
    (miss,) = [f for f in steady.findings if f.rule == "CL104"]
    assert (miss.path, miss.line) == ("reports/a.json", 15) and miss.col > 1
    assert not steady.warnings_text

    def rewrite(done: int, total: int) -> None:
        if done == total:  # the first phase is over: the file changes under the check
            (repo.root / "reports" / "a.json").write_text('{"facts": []}\n', encoding="utf-8")

    changed = check.run_check(config, [], repo.root, progress=rewrite)
    (moved,) = [f for f in changed.findings if f.rule == "CL104"]
    assert (moved.path, moved.line, moved.col, moved.message) == ("reports/a.json", 1, 1, miss.message)
    assert changed.warnings_text == ["1 report file changed while being checked (reports/a.json), so some of "
                                     "their findings are placed at 1:1; check again"]


def test_report_bytes_are_kept_only_for_a_report_given_in_memory(repo: Repo) -> None:
    _two_reports(repo)
    config = load_config(None, repo.root)
    tracking = GitTracking(config, repo.root)
    on_disk = check._phase_one_here(list(enumerate(select_targets(config, [], repo.root).targets, 1)), config,
                                    repo.root, False, tracking, CheckResult())
    assert [(r.display, r.raw) for r in on_disk.reports] == [("reports/a.json", None), ("reports/b.json", None)]
    content = (repo.root / "reports" / "a.json").read_bytes()
    given = check._phase_one_here(list(enumerate(stdin_target(config, "reports/a.json", content,
                                                              repo.root).targets, 1)),
                                  config, repo.root, False, tracking, CheckResult())
    assert [r.raw for r in given.reports] == [content]
    # Its findings are placed from those bytes, whatever the file now holds.
    (repo.root / "reports" / "a.json").write_text("{}", encoding="utf-8")
    result = check.run_check(config, [], repo.root, stdin=("reports/a.json", content))
    assert [(f.rule, f.line) for f in result.findings] == [("CL104", 15)]


def test_nothing_of_an_accepted_citation_is_kept_when_the_output_only_counts(repo: Repo) -> None:
    _two_reports(repo)
    config = load_config(None, repo.root)
    listed = check.run_check(config, [], repo.root)
    counted = check.run_check(config, [], repo.root, keep_accepted=False)
    assert len(listed.accepted) == 2 and len(listed.notices) == 2
    assert (counted.accepted, counted.notices) == ([], [])
    assert counted.review_count == listed.review_count == 2
    assert counted.findings == listed.findings
    # The command line keeps them for the formats that list them, and for --review.
    text = repo.check("--format", "text")
    assert "2 accepted citations to review for meaning" in text.out
    review = repo.check("--format", "text", "--review")
    assert review.out.count("“") == 2
    listing = json.loads(repo.check("--format", "json").out)
    assert len(listing["semanticReview"]) == 2


def test_cited_groups_keep_run_order_through_a_workers_hand_back() -> None:
    def fact(source: str, snippet: str, label: str = "l") -> dict[str, str]:
        return {"state": "cited", "label": label, "source": source, "captureSha256": "a" * 64, "snippet": snippet}

    first, later = CitedGroups(), CitedGroups()
    first.add(1, [Citation(0, fact(SOURCE_A, "one")), Citation(3, fact(SOURCE_B, "two"), True)])
    later.add(7, [Citation(2**31, fact(SOURCE_A, "three", "m"))])
    handed = CitedGroups.unpack(later.pack())
    assert handed.count == later.count == 1
    first.extend(handed)
    assert first.count == 3 and handed.count == 0
    groups = first.take_sorted()
    assert [key for key, _ in groups] == [(SOURCE_A, "a" * 64), (SOURCE_B, "a" * 64)]
    rebuilt = [(order, c.index, c.fact["snippet"], c.fact["label"], c.rejected)
               for key, column in groups for order, c in column.citations(*key)]
    assert rebuilt == [(1, 0, "one", "l", False), (7, 2**31, "three", "m", False), (1, 3, "two", "l", True)]
    assert groups[0][1].citations(*groups[0][0])[0][1].fact == fact(SOURCE_A, "one")
    assert first.take_sorted() == []


def test_cited_groups_joined_into_empty_ones_are_taken_whole() -> None:
    """The first phase's last join puts every fact of a run into groups that hold none:
    they take the columns as they are (a copy would hold a million facts twice)."""
    def fact(snippet: str) -> dict[str, str]:
        return {"state": "cited", "label": "l", "source": SOURCE_A, "captureSha256": "a" * 64, "snippet": snippet}

    full, empty = CitedGroups(), CitedGroups()
    full.add(3, [Citation(0, fact("one")), Citation(1, fact("two"))])
    buffers = full._facts.snippets
    empty.extend(full)
    assert empty._facts.snippets is buffers and full.count == 0 and empty.count == 2
    empty.add(4, [Citation(0, fact("three"))])
    (key, column), = empty.take_sorted()
    assert [(order, c.index, c.fact["snippet"]) for order, c in column.citations(*key)] == \
        [(3, 0, "one"), (3, 1, "two"), (4, 0, "three")]


def test_loading_in_workers_drops_each_target_once_loaded(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """With workers, the first phase holds no target it is done with, as one process does not:
    the list it is given is emptied, and each chunk's targets are dropped once joined."""
    monkeypatch.setattr(check, "MIN_REPORTS_PER_PROCESS", 1)
    for r in range(6):
        repo.report(repo.cited(), name=f"reports/r{r}.json")
    repo.write("reports/answer.md", f"See [a]({SOURCE_A}).\n")
    config = load_config(None, repo.root)
    results = []
    for n in (1, 2):
        numbered = list(enumerate(select_targets(config, [], repo.root).targets, 1))
        result = CheckResult()
        one = check._phase_one(numbered, config, repo.root, False, GitTracking(config, repo.root), result, n=n)
        assert all(item[0] == 0 for item in numbered)  # each (order, target) replaced once checked
        results.append(([r.display for r in one.reports], one.citations.count, result.files, result.links_governed))
    assert results[0] == results[1] == ([f"reports/r{r}.json" for r in range(6)], 6, 7, 1)


def test_a_large_run_checks_every_fact_as_before(tmp_path: Path) -> None:
    """Many reports citing few captures: columns and the streamed findings give what the
    fact-by-fact reading gives, in order, with the accepted list in report order."""
    repo = Repo(tmp_path)
    repo.config()
    repo.capture(SOURCE_A, " ".join(f"word{i}" for i in range(400)))
    repo.capture(SOURCE_B, " ".join(f"term{i}" for i in range(400)))
    for r in range(30):
        repo.report(*[repo.cited(label=f"l{f}" if f != 3 else "inventory", source=(SOURCE_A, SOURCE_B)[(r + f) % 2],
                                 snippet=" ".join(f"{('word', 'term')[(r + f) % 2]}{r * 7 + f + k}" for k in range(4))
                                 + (" x" * (f == 4)))
                      for f in range(6)], name=f"reports/r{r:02}.json")
    repo.config(labels=[f"l{f}" for f in range(6)] + ["inventory"])
    result = check.run_check(load_config(None, repo.root), [], repo.root)
    assert [f.rule for f in result.findings] == ["CL104"] * 30
    # Emitted capture by capture (the formatters order them): SOURCE_A's reports first.
    assert [(f.path, f.line) for f in result.findings] == [(f"reports/r{r:02}.json", 36)
                                                           for r in [*range(0, 30, 2), *range(1, 30, 2)]]
    assert [(a.path, a.label) for a in result.accepted] == [(f"reports/r{r:02}.json", f"l{f}" if f != 3 else
                                                             "inventory") for r in range(30) for f in range(6)
                                                            if f != 4]
