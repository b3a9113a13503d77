"""The pytest plugin, run by pytest's own ``pytester``: ``pytest --citelint`` collects each
report as an item failing with its findings (the bundled examples: one failing item per
faulty report), the ``citelint_project`` fixture and ``assert_grounded`` in a pipeline
test, inert without ``--citelint``, and nothing but pytest imported when it loads.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citelint.store.captures import sha256_hex
from conftest import REPO_ROOT, run_cli

pytest_plugins = ("pytester",)

SOURCE = "https://example.org/q3.txt"
TEXT = "Revenue rose 12% to $4.1 million in the third quarter, the company said."


def cli_errors(project: Path) -> dict[str, list[str]]:
    """What ``citelint check --format json`` finds at error severity, by report."""
    run = run_cli("check", "--format", "json", cwd=project)
    out: dict[str, list[str]] = {}
    for f in json.loads(run.out)["findings"]:
        if f["severity"] == "error":
            out.setdefault(f["path"], []).append(f"{f['path']}:{f['line']}:{f['column']}: {f['rule']}")
    return out


@pytest.mark.parametrize("example", ["expertqa-faults", "expertqa"])
def test_citelint_collects_one_item_per_report_failing_as_check_does(pytester: pytest.Pytester,
                                                                    example: str) -> None:
    project = REPO_ROOT / "examples" / example
    faulty = cli_errors(project)
    reports = json.loads(run_cli("check", "--format", "json", cwd=project).out)["counts"]["files"]
    result = pytester.runpytest_subprocess("--citelint", "-p", "no:cacheprovider", str(project))
    result.assert_outcomes(failed=len(faulty), passed=reports - len(faulty))
    assert bool(faulty) == (example == "expertqa-faults")
    text = result.stdout.str()
    for path, findings in faulty.items():
        result.stdout.fnmatch_lines([f"FAILED *examples/{example}/{path}::citelint*"])  # CI=true: the line is not cut
        for finding in findings:  # the failure text is the findings, as the CLI gives them
            assert finding in text, finding
    assert "Traceback" not in text


def write_project(root: Path) -> None:
    (root / "citelint.yaml").write_text(json.dumps({"sources": [SOURCE], "markdown": ["reports/*.md"],
                                                    "labels": ["revenue"]}), encoding="utf-8")
    (root / "body.txt").write_text(TEXT, encoding="utf-8")
    run = run_cli("capture", "--source", SOURCE, "--from-file", "body.txt", "--retrieved-at",
                  "2026-12-01T10:00:00Z", cwd=root)
    assert run.code == 0, run.err
    (root / "body.txt").unlink()
    (root / "reports").mkdir()


def test_fixture_and_assert_grounded_in_a_pipeline_test(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.makepyfile(test_pipeline=f'''
        import pytest
        from citelint.integrations.pytest_plugin import assert_grounded

        GOOD = "Revenue [rose 12%]({SOURCE}#:~:text=Revenue%20rose%2012%25)."
        BAD = "Revenue [rose 15%]({SOURCE}#:~:text=Revenue%20rose%2015%25)."

        def test_good(citelint_project):
            result = assert_grounded(GOOD, citelint_project)
            assert result.ok and result.counts.links == 1

        def test_bad_answer(citelint_project):
            assert_grounded(BAD, citelint_project, name="answer.md")

        def test_fact_report(citelint_project):
            fact = {{"state": "cited", "label": "revenue", "source": "{SOURCE}",
                     "captureSha256": "{sha256_hex(TEXT)}", "snippet": "Revenue rose 12%"}}
            assert_grounded({{"facts": [fact]}}, citelint_project)
            with pytest.raises(AssertionError, match="CL104"):
                assert_grounded({{"facts": [dict(fact, snippet="Revenue rose 13%")]}}, citelint_project)

        def test_default_project_is_the_working_directory():
            assert_grounded(GOOD)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    text = result.stdout.str()
    assert "answer.md:1:" in text and "CL204" in text  # the findings, not a traceback of ours
    assert "::citelint" not in text  # without --citelint, no report is collected


def test_reports_in_a_project_and_a_broken_config(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    reports = pytester.path / "reports"
    (reports / "good.md").write_text(f"Revenue [rose 12%]({SOURCE}#:~:text=Revenue%20rose%2012%25).\n",
                                     encoding="utf-8")
    (reports / "bad.md").write_text("See [an invented page](https://example.org/invented).\n", encoding="utf-8")
    (reports / "notes.txt").write_text("not a report\n", encoding="utf-8")
    result = pytester.runpytest("--citelint", "-p", "no:cacheprovider", "-m", "citelint")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*FAILED reports/bad.md::citelint*"])
    assert "reports/bad.md:1:24: CL201 ungrounded link https://example.org/invented" in result.stdout.str()
    (pytester.path / "citelint.yaml").write_text("sources: 3\n", encoding="utf-8")
    result = pytester.runpytest("--citelint", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FAILED citelint.yaml::citelint-config*"])
    assert "sources" in result.stdout.str() and "Traceback" not in result.stdout.str()
    # Only the reports' folder collected: the broken config still fails, once, never a silent pass.
    (pytester.path / "tests").mkdir(exist_ok=True)
    (pytester.path / "tests" / "test_ok.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    result = pytester.runpytest("--citelint", "-p", "no:cacheprovider", "reports", "tests")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*FAILED *citelint.yaml::citelint-config*"])
    (pytester.path / "tests" / "test_ok.py").unlink()
    # Two configs in one folder: the check refuses to choose, and so does the plugin.
    (pytester.path / "two").mkdir()
    write_project(pytester.path / "two")
    (pytester.path / "two" / "pyproject.toml").write_text("[tool.citelint]\nsources = []\n", encoding="utf-8")
    (pytester.path / "two" / "reports" / "r.md").write_text("Nothing cited.\n", encoding="utf-8")
    result = pytester.runpytest("--citelint", "-p", "no:cacheprovider", "two")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FAILED two/citelint.yaml::citelint-config*"])
    assert "both citelint.yaml and [tool.citelint]" in result.stdout.str()


def test_the_plugin_imports_only_pytest_when_it_loads() -> None:
    # pytest first: what the plugin adds to a process that runs pytest is citelint's own three modules.
    code = ("import sys, pytest\nbefore = set(sys.modules)\nimport citelint.integrations.pytest_plugin\n"
            "print(sorted(set(sys.modules) - before))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.replace("'", '"')) == ["citelint", "citelint.integrations",
                                                  "citelint.integrations.pytest_plugin"]
