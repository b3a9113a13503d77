"""SARIF 2.1.0 output (``--format sarif``, ``--sarif-file``) and the JSON output schema.

SARIF is validated against the OASIS schema in ../shared/corpus/sarif; the
JSON output against this repository's schemas/output.schema.json. Both are
produced by real check runs over a repository with errors, warnings and
semantic-review notices.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing

from citelint import __version__
from citelint.model import RULES, CheckResult, Finding
from citelint.output import FORMATTERS, RenderOptions, sarif as sarif_format
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, Repo, corpus_path


def no_remote_refs() -> referencing.Registry:
    """A registry that resolves nothing: a remote $ref must fail, never fetch."""
    return referencing.Registry()


def sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(corpus_path("sarif", "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=no_remote_refs())


def assert_valid(validator: jsonschema.protocols.Validator, doc: Any) -> None:
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])


@pytest.fixture
def mixed(repo: Repo) -> Repo:
    """Errors (CL104 and CL004, CL003), a warning (CL105), two accepted facts
    with semantic-review notices, and a label after non-BMP characters on one line."""
    repo.report(
        repo.cited(),                                                   # accepted: CL901 notice
        repo.cited("sales", SOURCE_B, "17 items"),                      # CL105: short snippet
        repo.cited("sales", SOURCE_A, "Synthetic source: 43 items"),    # CL104 (and CL004 duplicate)
        name="reports/mixed.json")
    repo.write("reports/wide.json", '{"facts":[{"state":"unavailable","reason":"état 😀🎉 non publié",'
                                    '"label":"収益"}]}')
    return repo


def test_registry_has_sarif() -> None:
    assert "sarif" in FORMATTERS


def test_sarif_validates_and_carries_version_rules_and_locations(mixed: Repo) -> None:
    run = mixed.check("--format", "sarif")
    assert run.code == 1
    assert run.err.startswith("citelint: 2 files"), run.err  # the summary goes to stderr
    log = json.loads(run.out)
    assert_valid(sarif_validator(), log)

    assert log["version"] == "2.1.0"
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("citelint", __version__)
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    for descriptor in driver["rules"]:
        rule = RULES[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["helpUri"] == rule.help_uri
        assert rule.summary in descriptor["help"]["text"] and rule.bad in descriptor["help"]["text"]
        assert descriptor["help"]["markdown"]
    assert sarif_run["columnKind"] == "unicodeCodePoints"

    results = sarif_run["results"]
    by_rule = {r["ruleId"]: r for r in results}
    # Accepted citations are not problems: no result, only their count.
    assert {r["ruleId"] for r in results} == {"CL003", "CL004", "CL104", "CL105"}
    for r in results:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert len(r["partialFingerprints"]["citelint/v1"]) == 64
    assert [r["level"] for r in results] == ["error", "error", "error", "warning"]
    assert by_rule["CL105"]["level"] == "warning"
    assert sarif_run["properties"]["counts"]["errors"] == 3
    # The CL004 pair is not accepted, so one accepted citation remains.
    assert sarif_run["properties"]["acceptedCitations"] == 1
    for descriptor in driver["rules"]:
        rule = RULES[descriptor["id"]]
        assert rule.why in descriptor["help"]["text"] and rule.fix in descriptor["help"]["markdown"]

    text_run = mixed.check()
    for r in results:
        loc = r["locations"][0]["physicalLocation"]
        canonical = f"{loc['artifactLocation']['uri']}:{loc['region']['startLine']}:" \
                    f"{loc['region']['startColumn']}: {r['ruleId']} {r['message']['text']}"
        assert any(ln.strip().startswith(canonical) for ln in text_run.lines), canonical


def test_columns_count_code_points(mixed: Repo) -> None:
    """After 'é', two emoji (outside the BMP: two UTF-16 units each) and CJK, the
    column is the code-point index, as columnKind says."""
    line = (mixed.root / "reports/wide.json").read_text(encoding="utf-8")
    expected = line.index('"収益"') + 1
    assert expected != len(line[: line.index('"収益"')].encode("utf-16-le")) // 2 + 1
    log = json.loads(mixed.check("--format", "sarif").out)
    [cl003] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "CL003"]
    region = cl003["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (1, expected)


def test_sarif_file_alongside_text_and_json(mixed: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    out_dir = tmp_path_factory.mktemp("sarif")
    text = mixed.check("--sarif-file", str(out_dir / "a.sarif"))
    assert text.findings("CL104") and text.out.splitlines()[-2].startswith("citelint: 2 files")
    as_json = mixed.check("--format", "json", "--sarif-file", str(out_dir / "b.sarif"))
    assert json.loads(as_json.out)["counts"]["errors"] == 3
    a = json.loads((out_dir / "a.sarif").read_text(encoding="utf-8"))
    b = json.loads((out_dir / "b.sarif").read_text(encoding="utf-8"))
    assert a == b
    assert_valid(sarif_validator(), a)


def test_sarif_file_unwritable_is_usage_error(mixed: Repo) -> None:
    run = mixed.check("--sarif-file", str(mixed.root / "no" / "such" / "dir" / "x.sarif"))
    assert run.code == 2
    assert "cannot write --sarif-file" in run.err and "does not exist" in run.err and "Traceback" not in run.err


def test_quiet_sarif_has_errors_only(mixed: Repo) -> None:
    log = json.loads(mixed.check("--format", "sarif", "--quiet").out)
    assert {r["level"] for r in log["runs"][0]["results"]} == {"error"}


def test_regions_and_uris_from_findings() -> None:
    """End positions map to SARIF's exclusive end column; a path with spaces or
    '#' becomes a valid relative URI; an end before the start is dropped."""
    result = CheckResult(findings=[
        Finding("docs/a b#1.md", 3, 5, "CL201", "error", "ungrounded", 3, 19),
        Finding("docs/x.md", 4, 2, "CL201", "error", "spans lines", 6, 1),
        Finding("docs/y.md", 7, 9, "CL202", "error", "inverted", 7, 3),
    ])
    out = io.StringIO()
    sarif_format.render(result, out, RenderOptions(version="9.9.9"))
    log = json.loads(out.getvalue())
    assert_valid(sarif_validator(), log)
    locs = [r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"]]
    assert locs[0]["artifactLocation"]["uri"] == "docs/a%20b%231.md"
    assert locs[0]["region"] == {"startLine": 3, "startColumn": 5, "endColumn": 19}
    assert locs[1]["region"] == {"startLine": 4, "startColumn": 2, "endLine": 6, "endColumn": 1}
    assert locs[2]["region"] == {"startLine": 7, "startColumn": 9}
    assert log["runs"][0]["tool"]["driver"]["version"] == "9.9.9"


# ------------------------------------------------------------------ JSON output schema

def output_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=no_remote_refs())


def test_json_output_matches_its_schema(mixed: Repo) -> None:
    mixed.report({"state": "unavailable", "label": "sales", "reason": "not published"}, mixed.cited(),
                 name="reports/ok.json")
    doc = json.loads(mixed.check("--format", "json").out)
    assert_valid(output_validator(), doc)
    assert doc["citelint"] == __version__
    states = sorted(a["state"] for a in doc["accepted"])
    # mixed.json's two "sales" facts are a CL004 pair, so neither is accepted.
    assert states == ["cited", "cited", "unavailable"]
    assert doc["semanticReview"] and doc["findings"]


def test_json_schema_rejects_what_it_should(mixed: Repo) -> None:
    doc = json.loads(mixed.check("--format", "json").out)
    validator = output_validator()
    doc["findings"][0]["column"] = 0
    assert not validator.is_valid(doc)
    doc = json.loads(mixed.check("--format", "json").out)
    doc["extra"] = 1
    assert not validator.is_valid(doc)


def test_output_schema_ships_with_the_package() -> None:
    """The wheel force-includes schemas/ (pyproject), so the output schema is there too."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"schemas" = "citelint/schemas"' in text
    assert Path(REPO_ROOT / "schemas" / "output.schema.json").is_file()


def test_fingerprints_follow_a_finding_whose_line_moved(repo: Repo) -> None:
    """Two commits: the same CL104 finding, moved down by inserted facts, keeps its
    fingerprint; a new finding gets a new one, and identical findings differ by rank."""
    from gitrepo import git, init_repo

    init_repo(repo.root)
    bad = repo.cited(snippet="Synthetic source: 43 items")
    repo.report(bad, name="reports/r.json")
    git(repo.root, "add", "--all")
    git(repo.root, "commit", "-qm", "first")
    before = {r["message"]["text"]: (r["partialFingerprints"]["citelint/v1"], r["locations"][0])
              for r in json.loads(repo.check("--format", "sarif").out)["runs"][0]["results"]}
    repo.report({"state": "unavailable", "label": "sales", "reason": "not published"}, bad, name="reports/r.json")
    git(repo.root, "commit", "-qam", "second")
    after = {r["message"]["text"]: (r["partialFingerprints"]["citelint/v1"], r["locations"][0])
             for r in json.loads(repo.check("--format", "sarif").out)["runs"][0]["results"]}
    [message] = [m for m in before if "CL104" in m or "not found" in m]
    assert before[message][0] == after[message][0]
    assert before[message][1] != after[message][1]  # it did move
    finding = Finding(path="r.json", line=3, col=1, end_line=None, end_col=None, rule="CL003",
                      severity="error", message="label 'x' is not approved (first at line 3)")
    moved = Finding(path="r.json", line=9, col=1, end_line=None, end_col=None, rule="CL003",
                    severity="error", message="label 'x' is not approved (first at line 7)")
    assert sarif_format.fingerprint(finding, 0) == sarif_format.fingerprint(moved, 0)
    assert sarif_format.fingerprint(finding, 0) != sarif_format.fingerprint(finding, 1)


def test_results_are_capped_for_code_scanning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif_format, "MAX_RESULTS", 3)
    result = CheckResult()
    for i in range(5):
        result.findings.append(Finding(path="r.json", line=i + 1, col=1, end_line=None, end_col=None,
                                       rule="CL104", severity="error", message=f"snippet {i} not found"))
    log = sarif_format.to_dict(result, RenderOptions())
    [run] = log["runs"]
    assert len(run["results"]) == 3
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert "2 more findings are not in this log" in note["message"]["text"]
    assert_valid(sarif_validator(), log)
