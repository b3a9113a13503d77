"""Configuration discovery and validation (DESIGN §2.1): bad config is exit 2 with file, key and line."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from citelint.config import glob_to_regex, load_config
from citelint.configfile import toml_loads
from citelint.errors import ConfigError
from citelint.reports.yaml import RUN_MIN
from conftest import Repo, run_cli


def test_found_by_walking_up(repo: Repo) -> None:
    sub = repo.root / "reports" / "deep"
    sub.mkdir(parents=True)
    repo.report(repo.cited())
    run = run_cli("check", cwd=sub)
    assert run.code == 0
    # Paths print relative to the working directory.
    assert "1 file" in run.out


def test_neither_anywhere_suggests_init(tmp_path: Path) -> None:
    run = run_cli("check", cwd=tmp_path)
    assert run.code == 2
    assert "citelint init" in run.err


def test_both_in_one_place_is_an_error(repo: Repo) -> None:
    (repo.root / "pyproject.toml").write_text("[tool.citelint]\nsources = []\n")
    run = repo.check()
    assert run.code == 2 and "keep one of them" in run.err


def test_pyproject_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.citelint]\nlabels = ["a"]\n'
                                            'sources = ["https://example.org/"]\n\n[tool.citelint.capture]\n'
                                            "timeout_s = 5\n")
    config = load_config(None, tmp_path)
    assert config.sources == ["https://example.org/"] and config.capture.timeout_s == 5


def test_pyproject_bad_key_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.citelint]\nlabels = ["a"]\nsourcez = []\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:3:1: unknown key 'sourcez'"):
        load_config(None, tmp_path)


def test_pyproject_syntax_error_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.citelint]\nlabels = ["a"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml:\d+:\d+: invalid TOML"):
        load_config(None, tmp_path)


@pytest.mark.parametrize("yaml_text, where, words", [
    ("sources: []\ncapture:\n  timeout_s: -1\n", "3:3", "capture.timeout_s"),
    ("sources: []\nlables: []\n", "2:1", "unknown key 'lables'"),
    ("sources: [\n", "2:1", "expected"),
    ("rules:\n  CL104: warning\n", "2:3", "cannot be lowered"),
    ("rules:\n  CL101: off\n", "2:3", "cannot be lowered"),
    ("rules:\n  CL999: off\n", "2:3", "unknown rule"),
    ("capture:\n  allow_private_addresses: no\n", "2:3", "must be true or false, not a string ('no')"),
    ("sources: []\nreports: ['[z-a]']\n", "2:11", "invalid glob"),
])
def test_invalid_yaml_config_is_exit_2_with_line(repo: Repo, yaml_text: str, where: str, words: str) -> None:
    (repo.root / "citelint.yaml").write_text(yaml_text)
    run = repo.check()
    assert run.code == 2
    assert f"citelint.yaml:{where}:" in run.err and words in run.err, run.err


def test_locked_rule_may_be_raised_and_warning_lowered(repo: Repo) -> None:
    repo.config(rules={"CL105": "error", "CL106": "off", "CL104": "error"})
    repo.report(repo.cited(snippet="42 items"))
    run = repo.check()
    assert run.code == 1 and run.findings("CL105")


def test_explicit_config_overrides_discovery(repo: Repo, tmp_path_factory) -> None:
    other = tmp_path_factory.mktemp("elsewhere")
    run = run_cli("check", "--config", str(repo.root / "citelint.yaml"), cwd=other)
    assert run.code == 0
    run = run_cli("check", "--config", "missing.yaml", cwd=other)
    assert run.code == 2 and "not found" in run.err


@pytest.mark.parametrize("pattern, yes, no", [
    ("reports/**/*.json", ["reports/a.json", "reports/x/y/a.json"], ["reports/a.yaml", "other/a.json"]),
    ("**/*.md", ["a.md", "x/y/a.md"], ["a.mdx"]),
    ("docs/*.md", ["docs/a.md"], ["docs/x/a.md"]),
    ("r?.json", ["r1.json"], ["r12.json"]),
])
def test_globs(pattern: str, yes: list[str], no: list[str]) -> None:
    rx = glob_to_regex(pattern)
    assert all(rx.match(p) for p in yes) and not any(rx.match(p) for p in no)


def test_files_outside_globs_are_skipped_and_captures_never_matched(repo: Repo) -> None:
    repo.config(reports=["**/*.json"])
    repo.write("notes/other.txt", "x")
    run = repo.check("notes/other.txt", "citelint.yaml")
    assert run.code == 0 and "0 files" in run.out
    # captures/*.json match **/*.json but are never reports.
    run = repo.check()
    assert "0 files" in run.out


def test_exclude_and_missing_path(repo: Repo) -> None:
    repo.config(exclude=["reports/skip/**"])
    repo.report({"state": "bogus"}, name="reports/skip/bad.json")
    assert repo.check().code == 0
    run = repo.check("nope.json")
    assert run.code == 2 and "no such file" in run.err


def test_pyproject_tool_must_be_a_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("tool = 1\n")
    with pytest.raises(ConfigError, match="must be a table"):
        load_config(Path("pyproject.toml"), tmp_path)


def test_glob_with_backslash_in_brackets_compiles() -> None:
    assert glob_to_regex("a[\\]b").match("a\\b")


def test_label_patterns_match_whole_labels_with_only_star_special(repo: Repo) -> None:
    from citelint.config import load_config
    repo.config(labels={"revenue": {"unit": "million"}, "claim-*": {"description": "prose"},
                        "q?[1]*": None, "*-end": {"unit": "u"}})
    labels = load_config(None, repo.root).labels
    assert "claim-1" in labels and "claim-a-b" in labels and "claim-é" in labels and "claim-a b" not in labels
    # * is one or more characters, none of them whitespace (of any kind) or invisible.
    for label in ("claim-", "claim-a\nb", "claim-\u202e1", "claim-\u200b", "claim-\x00", "claim- ", "claim-\u00a0",
                  "claim-\u3000", "claim-1 ", "claim-1\u2060", "claim-\u3164", "claim-1\ufe0f"):
        assert label not in labels and labels.get(label) is None, repr(label)
    assert "Claim-1" not in labels and "xclaim-1" not in labels and "claim" not in labels
    assert "q?[1]x" in labels and "qa1x" not in labels  # ? and [ are literal
    assert labels["revenue"].unit == "million"
    assert labels.get("claim-end").description == "prose"  # first pattern in config order wins
    assert labels.get("x-end").unit == "u"
    assert labels.patterns == ["claim-*", "q?[1]*", "*-end"]
    assert list(labels) == ["revenue", "claim-*", "q?[1]*", "*-end"]


def test_labels_that_differ_only_in_whitespace_cannot_escape_cl004(repo: Repo) -> None:
    """Issue 23, item 7: "claim-1" and "claim-1 " look identical; the second is CL002, not a new label."""
    repo.config(labels={"claim-*": {}, "revenue": {}})
    repo.report(*({"state": "unavailable", "label": label, "reason": "not in the sources"}
                  for label in ("claim-1", "claim-1 ", "claim-\u00a0", "claim-\u3000", "\trevenue")))
    run = repo.check()
    assert run.code == 1
    edged = run.findings("CL002")
    assert len(edged) == 4 and all("begins or ends with whitespace" in message for message in edged)
    # The same facts in YAML: the same rule.
    repo.write("reports/r.yaml", 'facts:\n  - {state: unavailable, label: "claim-2\\u3000", reason: x}\n')
    assert "begins or ends with whitespace" in repo.check("reports/r.yaml").findings("CL002")[0]


@pytest.mark.parametrize("labels", [["revenue "], {" claim-*": {}}, {"claim-*\u00a0": None}])
def test_a_config_label_with_whitespace_at_an_end_is_refused(repo: Repo, labels: object) -> None:
    repo.config(labels=labels)
    run = repo.check()
    assert run.code == 2 and "begins or ends with whitespace" in run.err, run.err


@pytest.mark.parametrize("labels", [["revenue", "revenue\u200b"], {"claim\u17b4-*": {}}, ["net\u00a0income"],
                                    ["q\u0378"], ["sales\u180b"]])
def test_a_config_label_holding_an_invisible_character_is_refused(repo: Repo, labels: object) -> None:
    """Issue 23: an approved "revenue\u200b" beside "revenue" lets two facts share one visible label."""
    repo.config(labels=labels)
    run = repo.check()
    assert run.code == 2 and "holds the invisible character U+" in run.err, run.err


def test_a_config_label_with_an_inner_space_is_kept(repo: Repo) -> None:
    repo.config(labels=["net income", "claim *"])
    repo.report({"state": "unavailable", "label": "net income", "reason": "x"},
                {"state": "unavailable", "label": "claim 1", "reason": "y"})
    assert repo.check().code == 0


@pytest.mark.parametrize("labels", [{"*": None}, {"**": {}}, ["revenue", "*"], {"": None}])
def test_a_label_pattern_that_approves_everything_is_refused(repo: Repo, labels: object) -> None:
    repo.config(labels=labels)
    run = repo.check()
    words = "an empty name approves no label" if labels == {"": None} else "would approve every label"
    assert run.code == 2 and words in run.err, run.err


# ----------------------------------------------------------------- many sources in [tool.citelint]

#: Lines of an array's string items, and lines that look like them but are something else to TOML.
TOML_ITEMS = ['  "https://example.org/a",\n', '  "https://example.org/a",\n', '"https://example.org/é?q=1#f",\n',
              '    "a b",  \n', '  "reports/**/*.json",\n']
TOML_ODD = ['  "a\\u00e9",\n', "  'literal',\n", '  "x" ,\n', '  "x", # c\n', '  "",\n', '  "a\\"b",\n',
            '  "tab\there",\n', '  "last"\n', '  # comment\n', '\n', '  1,\n', '  "citelint_collapsed_0",\n',
            '  "cr\rlf",\n', '  """,\n', '  "a",\r  "b",\n']
#: (before, after) a run: an array where it belongs, and places where such lines are not array items.
TOML_CONTEXTS = [("[tool.citelint]\nsources = [\n", "]\nlabels = ['x']\n"), ("a = [\n", "  \"end\"\n]\n"),
                 ('a = """\n', '"""\n'), ("a = '''\n", "'''\n"), ("[t]\n", ""), ("a = {\n", "}\n"),
                 ("a = [[\n", "]]\n"), ("# c\na = [ # open\n", "] # close\n"), ("a = [\n", ""),
                 ("note = 'citelint_collapsed_0'\na = [\n", "]\n"), ("a = [\n", "]\nb = [\n  \"x\",\n]\n")]


def toml_outcome(load: Any, text: str) -> tuple[Any, ...]:
    try:
        return ("data", repr(load(text)))
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        return ("error", type(exc).__name__, str(exc))


def test_toml_runs_read_by_regular_expressions_give_tomllibs_data_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """toml_loads reads long runs of string items without tomllib's parser; for awkward
    inputs of every kind it gives exactly what tomllib gives, data or error."""
    rnd = random.Random(20261203)
    parsed: list[str] = []
    real = tomllib.loads

    def loads(text: str) -> dict[str, Any]:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(tomllib, "loads", loads)  # counted, not replaced: which texts tomllib reads
    taken = fell_back = 0
    for _ in range(800):
        before, after = rnd.choice(TOML_CONTEXTS)
        lines = [rnd.choice(TOML_ITEMS) if rnd.random() < 0.93 else rnd.choice(TOML_ODD)
                 for _ in range(rnd.randint(RUN_MIN - 3, 3 * RUN_MIN))]
        if rnd.random() < 0.3:  # many items on one line
            lines = [line.strip(" \n") + rnd.choice([" ", "", "  "]) for line in lines]
        text = before + "".join(lines) + after
        if rnd.random() < 0.2:
            text = text.replace("\n", "\r\n")
        parsed.clear()
        fast = toml_outcome(toml_loads, text)
        read = list(parsed)
        assert fast == toml_outcome(real, text), repr(text)
        # One text read, not the whole one: the runs were read by the expressions.
        taken += len(read) == 1 and read[0] != text
        fell_back += len(read) == 2
    assert taken > 150 and fell_back > 150, (taken, fell_back)


def test_a_pyproject_of_many_sources_keeps_its_error_lines(tmp_path: Path) -> None:
    urls = [f"https://example.org/doc/{i:05}" for i in range(3000)]
    body = "".join(f'  "{u}",\n' for u in urls)
    for tail, where in (("]\nlabels = ['x']\nrules = {CL104 = 'loud'}\n", "3007:1: rules.CL104: 'loud'"),
                        ("]\nlables = ['x']\n", "3006:1: unknown key 'lables'"),
                        ("\nlabels = ['x']\n", "3006:1: invalid TOML: Invalid value (at line 3006, column 1)")):
        # The last source's line is left open: "]" or the next line follows its comma.
        (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.citelint]\nsources = [\n" +
                                                 body[:-1] + tail, encoding="utf-8")
        run = run_cli("check", cwd=tmp_path)
        assert run.code == 2 and f"config error: pyproject.toml:{where}" in run.err, run.err
