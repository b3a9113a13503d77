"""Fact rules in finer detail than the golden cases in tests/cases/: parametrized
positions and messages, regressions, and the schema quick check."""

from __future__ import annotations

import json
import os

import pytest

from conftest import SOURCE_A, SOURCE_B, Repo


def one(run, rule: str) -> str:
    lines = run.findings(rule)
    assert len(lines) == 1, run.out
    return lines[0]


# ---------------------------------------------------------------- CL001

@pytest.mark.parametrize("content, where, words", [
    (b'{"facts": [\n  {"a": 1, "a": 2}]}', "2:12", "duplicate key 'a'"),
    (b'{"facts": [NaN]}', "1:12", "NaN"),
    (b'{"facts": [\n Infinity]}', "2:2", "NaN and Infinity"),
    (b'{"facts": [1e400]}', "1:12", "overflows to infinity"),
    (b'{"facts": [\n  "caf\xc3\xa9 \xff"]}', "2:9", "not valid UTF-8"),
    (b'{"facts": [}', "1:12", "expecting a value"),
    (b'{"facts": []} x', "1:15", "extra data"),
    (b"[" * 70 + b"]" * 70, "1:65", "nesting deeper than 64"),
])
def test_cl001_json(repo: Repo, content: bytes, where: str, words: str) -> None:
    repo.write("reports/r.json", content)
    line = one(repo.check(), "CL001")
    assert line.startswith(f"reports/r.json:{where}: CL001"), line
    assert words in line


@pytest.mark.parametrize("content, where, words", [
    ("facts:\n  - &a {state: cited}\n", "2:5", "anchors are not allowed"),
    ("x: &a [1]\nfacts: *a\n", "1:4", "anchors"),
    ("facts:\n  - !!str x\n", "2:5", "explicit YAML tags"),
    ("facts: []\nfacts: []\n", "2:1", "duplicate key 'facts'"),
    ("facts: [\n", "2:1", "expected"),
    ("facts: []\n---\nfacts: []\n", "2:1", "more than one YAML document"),
    ("facts:\n  - stat\x1be: cited\n", "2:9", "U+001B is not allowed in YAML"),
])
def test_cl001_yaml(repo: Repo, content: str, where: str, words: str) -> None:
    repo.write("reports/r.yaml", content)
    line = one(repo.check(), "CL001")
    assert line.startswith(f"reports/r.yaml:{where}: CL001"), line
    assert words in line


def test_cl001_alias_bomb_is_refused_fast(repo: Repo) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]"
              for i in range(1, 10)]
    repo.write("reports/r.yaml", "\n".join(lines) + "\n")
    assert one(repo.check(), "CL001").startswith("reports/r.yaml:1:5: CL001")


def test_cl001_oversized_report(repo: Repo) -> None:
    repo.write("reports/r.json", b" " * (10 * 1024 * 1024) + b'{"facts": []}')
    assert "larger than" in one(repo.check(), "CL001")


# ---------------------------------------------------------------- CL002

def col_of(text: str, needle: str) -> int:
    """1-based column of the only occurrence of ``needle`` in one-line ``text``."""
    assert text.count(needle) == 1
    return text.index(needle) + 1


@pytest.mark.parametrize("fact, at, words", [
    ({"state": "cited", "label": "inventory", "source": SOURCE_A, "captureSha256": "0" * 64}, "{",
     "missing snippet"),
    ({"state": "cited", "label": "inventory", "source": SOURCE_A, "captureSha256": "ABC", "snippet": "x" * 30},
     '"ABC"', "64 lowercase hex"),
    ({"state": "maybe", "label": "inventory"}, '"maybe"', 'state must be "cited" or "unavailable"'),
    ({"label": "inventory"}, "{", "missing state"),
    ({"state": "unavailable", "label": "inventory", "reason": "  "}, '"  "', "reason must not be empty"),
    ({"state": "unavailable", "label": 7, "reason": "x"}, "7", "label must be of type string"),
])
def test_cl002(repo: Repo, fact: dict, at: str, words: str) -> None:
    text = json.dumps(fact)
    repo.write("reports/r.json", '{"facts": [' + text + "]}")
    line = one(repo.check(), "CL002")
    assert line.startswith(f"reports/r.json:1:{col_of(text, at) + 11}: CL002"), line
    assert words in line


@pytest.mark.parametrize("pointer", ["/\u00b2", "/01"])
def test_cl002_facts_pointer_array_index_per_rfc_6901(repo: Repo, pointer: str) -> None:
    """Regression: a non-ASCII digit crashed; "01" is not an index (RFC 6901 §4)."""
    repo.config(sources=[SOURCE_A], labels=["inventory"], facts_pointer=pointer)
    repo.write("reports/r.json", "[[], []]")
    assert "no value at facts_pointer" in one(repo.check(), "CL002")


def test_cl002_facts_pointer_embeds_facts_in_a_larger_document(repo: Repo) -> None:
    repo.config(sources=[SOURCE_A, SOURCE_B], labels=["inventory", "sales"], facts_pointer="/data/facts")
    repo.write("reports/r.json", {"title": "ignored", "data": {"facts": [repo.cited(), {"state": "x"}]}})
    run = repo.check()
    assert run.code == 1
    # Line 13 is `        "state": "x"` (8 spaces of indent, then 9 characters of key).
    assert one(run, "CL002").startswith("reports/r.json:13:18: CL002 state must be")
    repo.write("reports/r.json", {"title": "ignored", "data": {"facts": [repo.cited()]}})
    assert repo.check().code == 0


# ---------------------------------------------------------------- CL103

def test_cl103_symlink_leaving_the_store(repo: Repo, tmp_path_factory) -> None:
    from citelint.store.captures import source_dir

    outside = tmp_path_factory.mktemp("outside")
    real = source_dir(repo.root / "captures", SOURCE_A)
    (outside / real.name).mkdir()
    for f in real.iterdir():
        (outside / real.name / f.name).write_bytes(f.read_bytes())
        f.unlink()
    real.rmdir()
    os.symlink(outside / real.name, real)
    repo.report(repo.cited())
    assert "symlink" in one(repo.check(), "CL103")


# ---------------------------------------------------------------- CL104

@pytest.mark.parametrize("snippet, kind, code_point", [
    ("Synthetic source: 42 items,  measured", "whitespace", "U+0020"),
    ("Synthetic source: 42\u00a0items, measured", "non-breaking space", "U+00A0"),
    ("Synthetic source: 42 it\u200bems, measured", "invisible character", "U+200B"),
    ("Synthetic source: 42 it\u00adems, measured", "soft hyphen", "U+00AD"),
])
def test_cl104_near_miss_hints(repo: Repo, snippet: str, kind: str, code_point: str) -> None:
    repo.report(repo.cited(snippet=snippet))
    line = one(repo.check(), "CL104")
    assert f"near miss ({kind}" in line and code_point in line, line


# ---------------------------------------------------------------- CL107

def test_cl107_legacy_layout_then_migrate(repo: Repo) -> None:
    from citelint.store.captures import sha256_hex

    legacy_text = "Legacy source text: 5 items in stock."
    src = "https://example.org/legacy.txt"
    legacy = repo.root / "captures" / f"{sha256_hex(src)}.json"
    legacy.write_text(json.dumps({"source": src, "text": legacy_text, "sha256": sha256_hex(legacy_text),
                                  "accessedAt": "2025-01-02T03:04:05.000Z"}))
    repo.report(repo.cited())
    run = repo.check()
    assert run.code == 1
    assert one(run, "CL107").startswith(f"captures/{legacy.name}:1:1: CL107 1 legacy capture")
    # check never migrates
    assert not (repo.root / "captures" / sha256_hex(src)).exists()
    from conftest import run_cli

    mig = run_cli("migrate", cwd=repo.root)
    assert mig.code == 0 and ": migrated: " in mig.out
    assert legacy.exists()  # nothing deleted
    assert repo.check().code == 0


def test_migrate_refuses_corrupt_legacy_record(repo: Repo) -> None:
    from citelint.store.captures import sha256_hex
    from conftest import run_cli

    src = "https://example.org/legacy.txt"
    legacy = repo.root / "captures" / f"{sha256_hex(src)}.json"
    legacy.write_text(json.dumps({"source": src, "text": "tampered", "sha256": sha256_hex("original"),
                                  "accessedAt": "2025-01-02T03:04:05Z"}))
    mig = run_cli("migrate", cwd=repo.root)
    assert mig.code == 1 and "refused" in mig.out
    assert not (repo.root / "captures" / sha256_hex(src)).exists()


# ---------------------------------------------------------------- schema and positions

def test_cl002_digest_with_trailing_newline_is_a_schema_error(repo: Repo) -> None:
    """Python's `$` matches before a final newline; the length bound keeps the digest exact."""
    repo.report(repo.cited(captureSha256=repo.records[SOURCE_A].sha256 + "\n"))
    run = repo.check()
    assert run.code == 1 and "64 lowercase hex" in one(run, "CL002")


SAMPLES = [None, True, False, 0, -1, 1, 1.5, 70000000, "", " ", "x", "off", "error", "CL105", "/a/b",
           "0" * 64, "a" * 64 + "\n", [], ["x"], ["x", "x"], [1], [1, 1.0], {}, {"a": 1}, {"unit": "u"}]


def _mutations(value, depth=0):
    """The value itself, then the value with each nested position replaced by each sample."""
    yield value
    if depth > 3:
        return
    if isinstance(value, dict):
        for key in list(value) + ["unknown"]:
            for sample in SAMPLES:
                yield {**value, key: sample}
            if key in value:
                yield {k: v for k, v in value.items() if k != key}
                for sub in _mutations(value[key], depth + 1):
                    yield {**value, key: sub}
    elif isinstance(value, list) and value:
        for sub in _mutations(value[0], depth + 1):
            yield [sub] + value[1:]


@pytest.mark.parametrize("schema_name, at, good", [
    ("report.schema.json", "fact", {"state": "cited", "label": "l", "source": "s", "captureSha256": "a" * 64,
                                    "snippet": "x"}),
    ("report.schema.json", "fact", {"state": "unavailable", "label": "l", "reason": "r"}),
    ("config.schema.json", None, {"sources": ["https://a/"], "labels": {"x": {"unit": "u"}, "y": None},
                                  "rules": {"CL105": "off"}, "capture": {"timeout_s": 5, "max_bytes": 10},
                                  "links": {"allow": ["x"], "relative": "pass"}, "reports": ["*.json"],
                                  "facts_pointer": "/a", "require_captures_on_base": True}),
])
def test_quick_check_never_accepts_what_jsonschema_rejects(schema_name, at, good) -> None:
    """The quick check spares clean runs from importing jsonschema; it must never be laxer."""
    from jsonschema import Draft202012Validator
    from referencing import Registry

    from citelint.reports.schema import load_schema, quick_valid

    schema = load_schema(schema_name)
    target = {"$id": schema["$id"], "$defs": schema["$defs"], "$ref": f"#/$defs/{at}"} if at else schema
    validator = Draft202012Validator(target, registry=Registry())
    assert quick_valid(schema_name, good, at)
    checked = 0
    for variant in _mutations(good):
        checked += 1
        if quick_valid(schema_name, variant, at):
            assert validator.is_valid(variant), variant
    assert checked > 100


def test_yaml_positions_count_only_cr_and_lf_as_line_breaks(repo: Repo) -> None:
    """Regression: PyYAML counts U+2028 as a line break; editors and GitHub do not."""
    repo.write("reports/r.yaml", 'facts:\n- state: unavailable\n  label: "a\u2028b"\n  reason: x\n'
                                 "- state: unavailable\n  label: zz\n  reason: x\n")
    lines = repo.check().findings("CL003")
    assert [ln.split(": CL003")[0] for ln in lines] == ["reports/r.yaml:3:10", "reports/r.yaml:6:10"]


def test_unexpected_key_with_slash_points_at_the_key(repo: Repo) -> None:
    text = json.dumps({"facts": [{**repo.cited(), "a/b~c": 1}]})
    repo.write("reports/r.json", text)
    line = one(repo.check(), "CL002")
    assert line.startswith(f"reports/r.json:1:{col_of(text, chr(34) + 'a/b~c')}: CL002")


# ---------------------------------------------------------------- rules switched off do no work

def test_rules_switched_off_do_no_work(repo: Repo) -> None:
    """With CL105 off the capture is searched once per snippet (never a second time for
    uniqueness); with CL106 off the source's revisions are never listed. Observed on the
    real run: str.find calls on the capture text (a profile hook sees each C call) and the
    directories listed (an audit hook)."""
    import sys

    import audit
    from citelint.check.run import run_check
    from citelint.config import load_config

    sys.dont_write_bytecode = True
    repo.capture(SOURCE_A, "Synthetic source: 42 items, and again: Synthetic source: 42 items.",
                 when="2026-06-01T00:00:00Z")
    old = repo.records[SOURCE_A]
    repo.capture(SOURCE_A, "Synthetic source: 42 items, newer wording.", when="2026-07-01T00:00:00Z")
    repo.report(dict(repo.cited(snippet="Synthetic source: 42 items"), captureSha256=old.sha256))
    folder = os.path.realpath(repo.root / "captures")

    def run(rules: dict[str, str]) -> tuple[list[str], int, list[str]]:
        repo.config(rules=rules)
        finds = [0]

        def profile(_frame, event, arg):  # type: ignore[no-untyped-def]
            searched = getattr(arg, "__self__", None)
            if event == "c_call" and getattr(arg, "__name__", "") == "find" and searched == old.text:
                finds[0] += 1

        with audit.watching() as events:
            sys.setprofile(profile)
            try:
                result = run_check(load_config(None, repo.root), [], repo.root)
            finally:
                sys.setprofile(None)
        listed = [p for p in events.listed if p.startswith(folder) and p != folder]
        return sorted(f.rule for f in result.findings), finds[0], listed

    rules_on, finds_on, listed_on = run({})
    assert rules_on == ["CL105", "CL106"] and listed_on
    rules_off, finds_off, listed_off = run({"CL105": "off", "CL106": "off"})
    assert rules_off == [] and listed_off == []
    assert finds_off == 1 < finds_on  # the snippet found once; no search for (or count of) others
