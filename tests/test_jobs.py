"""--jobs: the same output, byte for byte, for any number of processes."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from citelint.check import run as check
from citelint.check.parallel import AUTO_JOBS_MIN_CAPTURES, job_count
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, TEXT_A, TEXT_B, Repo


def _busy_repo(repo: Repo) -> Repo:
    """Reports citing shared captures, with every kind of finding, and Markdown."""
    rng = random.Random(3)
    repo.capture(SOURCE_A, TEXT_A + " A later revision.", when="2026-08-01T00:00:00Z")  # CL106 for the old one
    repo.capture(SOURCE_A, TEXT_A)
    snippets = ["Synthetic source: 42 items", "Inventory held steady", "42 items", "Synthetic source: 43 items",
                "\u200b"]
    for r in range(40):
        facts = []
        for f in range(rng.randint(1, 6)):
            source = rng.choice([SOURCE_A, SOURCE_B, "https://example.org/unapproved"])
            facts.append(repo.cited(label=rng.choice(["inventory", "sales", "nope"]) + ("" if f < 2 else str(f)),
                                    source=source, snippet=rng.choice(snippets + [TEXT_B[:30]])))
        facts.append({"state": "unavailable", "label": "inventory", "reason": "not published"})
        repo.report(*facts, name=f"reports/r{r:02}.json")
    repo.write("reports/broken.json", '{"facts": [')
    repo.write("reports/y.yaml", f"facts:\n  - state: cited\n    label: sales\n    source: {SOURCE_B}\n"
                                 f"    captureSha256: '{repo.records[SOURCE_B].sha256}'\n    snippet: Another source\n")
    repo.write("reports/answer.md", f"See [a]({SOURCE_A}) and [b](https://example.org/never) and <{SOURCE_B}>.\n")
    return repo


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "summary"])
def test_output_is_identical_for_any_number_of_processes(repo: Repo, fmt: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Both phases cut into chunks that several processes share (the
    threshold lowered so these 43 files are loaded by every process too)."""
    monkeypatch.setattr(check, "MIN_REPORTS_PER_PROCESS", 1)
    _busy_repo(repo)
    runs = [repo.check("--format", fmt, "--jobs", str(n)) for n in (1, 2, 3)]
    first = runs[0]
    assert first.code == 1 and first.out
    outs = [re.sub(r"[0-9a-f]{32}", "<token>", r.out) if fmt == "github" else r.out  # random per run
            for r in runs]
    for other, out in zip(runs[1:], outs[1:]):
        assert (other.code, out, other.err) == (first.code, outs[0], first.err)


def test_the_faulty_example_is_identical_with_two_processes(tmp_path: Path) -> None:
    from conftest import run_cli

    example = tmp_path / "faults"
    shutil.copytree(REPO_ROOT / "examples" / "expertqa-faults", example)
    one = run_cli("check", "--format", "json", "--jobs", "1", cwd=example)
    two = run_cli("check", "--format", "json", "--jobs", "2", cwd=example)
    assert one.code == two.code == 1
    assert one.out == two.out


def test_automatic_job_count() -> None:
    assert job_count(None, AUTO_JOBS_MIN_CAPTURES - 1) == 1
    assert job_count(3, 1) == 3
    assert job_count(None, AUTO_JOBS_MIN_CAPTURES) >= 1


def test_the_per_file_hook_runs_in_one_process() -> None:
    hooks = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "entry: citelint check --jobs 1\n" in hooks
