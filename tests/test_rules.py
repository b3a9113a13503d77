"""Every fact rule: a failing case with its line and column, and a passing case."""

from __future__ import annotations

import json
import os

import pytest

from conftest import SOURCE_A, SOURCE_B, TEXT_A, Repo


def one(run, rule: str) -> str:
    lines = run.findings(rule)
    assert len(lines) == 1, run.out
    return lines[0]


def test_passing_report_has_no_findings(repo: Repo) -> None:
    repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "not published"})
    run = repo.check()
    assert (run.code, run.findings()) == (0, [])


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


def test_cl001_passing_yaml_keeps_scalars_as_strings(repo: Repo) -> None:
    """YAML 1.1 would turn these into a date, a boolean and a number; they stay strings."""
    repo.capture(SOURCE_B, "Measured 2026-07-01, answer no, at 1:30 exactly as written.")
    sha = repo.records[SOURCE_B].sha256
    repo.config(labels=["inventory", "no"])
    repo.write("reports/r.yaml", f"facts:\n  - state: cited\n    label: no\n    source: {SOURCE_B}\n"
                                 f"    captureSha256: {sha}\n    snippet: 2026-07-01\n"
                                 "  - state: unavailable\n    label: inventory\n    reason: 1:30\n")
    run = repo.check()
    # The snippet is short (CL105 warning) but it is the string "2026-07-01", found verbatim.
    assert run.code == 0, run.out
    assert run.findings("CL002") == [] and run.findings("CL104") == []


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


def test_cl002_message_follows_the_state_branch(repo: Repo) -> None:
    repo.report({"state": "cited", "label": "inventory", "source": SOURCE_A,
                 "captureSha256": repo.records[SOURCE_A].sha256})
    line = one(repo.check(), "CL002")
    assert "missing snippet" in line and "expected" not in line and "unavailable" not in line


def test_cl002_report_must_be_facts_object(repo: Repo) -> None:
    repo.write("reports/r.json", '{"facts": [], "extra": 1}')
    assert one(repo.check(), "CL002").startswith("reports/r.json:1:15: CL002 unexpected top-level key 'extra'")
    repo.write("reports/r.json", "[]")
    assert one(repo.check(), "CL002").startswith("reports/r.json:1:1: CL002")


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


# ---------------------------------------------------------------- CL003 / CL004

def test_cl003_unknown_label(repo: Repo) -> None:
    text = json.dumps({"facts": [{"state": "unavailable", "label": "revenu", "reason": "n/a"}]})
    repo.write("reports/r.json", text)
    line = one(repo.check(), "CL003")
    assert line.startswith(f"reports/r.json:1:{col_of(text, chr(34) + 'revenu')}: CL003 label 'revenu' is not approved")


def test_cl003_no_labels_configured(repo: Repo) -> None:
    repo.config(labels=[])
    repo.report({"state": "unavailable", "label": "sales", "reason": "n/a"})
    assert "no labels are approved" in one(repo.check(), "CL003")


def test_cl004_duplicate_label_points_at_second(repo: Repo) -> None:
    repo.write("reports/r.yaml", "facts:\n  - state: unavailable\n    label: sales\n    reason: a\n"
                                 "  - state: unavailable\n    label: sales\n    reason: b\n")
    line = one(repo.check(), "CL004")
    assert line.startswith("reports/r.yaml:6:12: CL004 label 'sales' appears again (first at line 2)")


# ---------------------------------------------------------------- CL101 / CL102 / CL103

def test_cl101_unapproved_source(repo: Repo) -> None:
    fact = repo.cited()
    fact["source"] = SOURCE_A + "?utm=1"
    text = json.dumps({"facts": [fact]})
    repo.write("reports/r.json", text)
    line = one(repo.check(), "CL101")
    assert line.startswith(f"reports/r.json:1:{col_of(text, '?utm=1') - len(SOURCE_A) - 1}: CL101")


def test_cl102_missing_revision_lists_others_without_using_them(repo: Repo) -> None:
    repo.report(repo.cited(captureSha256="a" * 64))
    line = one(repo.check(), "CL102")
    assert line.startswith("reports/r.json:7:24: CL102")
    assert repo.records[SOURCE_A].sha256[:12] in line and "never used" in line


def test_cl103_unknown_key_in_record(repo: Repo) -> None:
    from citelint.captures import capture_path

    repo.report(repo.cited())
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    record = json.loads(path.read_text())
    record["extra"] = 1
    path.write_text(json.dumps(record))
    line = one(repo.check(), "CL103")
    assert line.startswith("reports/r.json:7:24: CL103") and "unknown extra" in line


def test_cl103_symlink_leaving_the_store(repo: Repo, tmp_path_factory) -> None:
    from citelint.captures import source_dir

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


def test_cl104_quotes_and_normalization(repo: Repo) -> None:
    repo.capture(SOURCE_B, "The caf\u00e9 said \u201cwe sold 17 items\u201d in the second quarter.")
    repo.report(repo.cited(source=SOURCE_B, snippet='said "we sold 17 items" in the second'))
    line = one(repo.check(), "CL104")
    assert "curly vs straight quotes" in line and "U+201C" in line and "U+0022" in line
    repo.report(repo.cited(source=SOURCE_B, snippet="The cafe\u0301 said \u201cwe sold"))
    line = one(repo.check(), "CL104")
    assert "Unicode normalization" in line and "U+0065" in line and "U+00E9" in line


def test_cl104_plain_miss_reports_the_longest_prefix(repo: Repo) -> None:
    repo.report(repo.cited(snippet="Synthetic source: 43 items"))
    line = one(repo.check(), "CL104")
    assert "the first 19 characters occur" in line and "U+0033" in line


def test_cl104_snippet_from_another_revision_is_named_not_used(repo: Repo) -> None:
    old = repo.records[SOURCE_A]
    repo.capture(SOURCE_A, "Revised source: 43 items were counted on 2026-08-01.", when="2026-08-01T00:00:00Z")
    repo.report(repo.cited(snippet="Revised source: 43 items were counted", captureSha256=old.sha256))
    line = one(repo.check(), "CL104")
    assert "it does occur in revision" in line


# ---------------------------------------------------------------- CL105 / CL106 (warnings)

def test_cl105_short_and_repeated_snippets_warn(repo: Repo) -> None:
    repo.report(repo.cited(snippet="42 items"))
    run = repo.check()
    assert run.code == 0
    assert one(run, "CL105").startswith("reports/r.json:8:18: CL105 snippet is only 8 characters")
    assert repo.check("--strict").code == 1
    repo.capture(SOURCE_B, "the count was 17 items in all; the count was 17 items in all")
    repo.report(repo.cited(source=SOURCE_B, snippet="the count was 17 items in all"))
    assert "occurs 2 times" in one(repo.check(), "CL105")


def test_cl105_can_be_turned_off(repo: Repo) -> None:
    repo.config(rules={"CL105": "off"})
    repo.report(repo.cited(snippet="42 items"))
    run = repo.check("--strict")
    assert (run.code, run.findings()) == (0, [])


def test_cl106_newer_capture_warns(repo: Repo) -> None:
    old = repo.records[SOURCE_A]
    repo.capture(SOURCE_A, TEXT_A + " Updated.", when="2026-09-01T00:00:00Z")
    repo.report(repo.cited(captureSha256=old.sha256))
    run = repo.check()
    assert run.code == 0
    assert one(run, "CL106").startswith("reports/r.json:7:24: CL106") and "2026-09-01" in run.out
    repo.report(repo.cited())  # now names the newest revision
    assert repo.check().findings("CL106") == []


# ---------------------------------------------------------------- CL107

def test_cl107_legacy_layout_then_migrate(repo: Repo) -> None:
    from citelint.captures import sha256_hex

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
    from citelint.captures import sha256_hex
    from conftest import run_cli

    src = "https://example.org/legacy.txt"
    legacy = repo.root / "captures" / f"{sha256_hex(src)}.json"
    legacy.write_text(json.dumps({"source": src, "text": "tampered", "sha256": sha256_hex("original"),
                                  "accessedAt": "2025-01-02T03:04:05Z"}))
    mig = run_cli("migrate", cwd=repo.root)
    assert mig.code == 1 and "refused" in mig.out
    assert not (repo.root / "captures" / sha256_hex(src)).exists()


# ---------------------------------------------------------------- CL901

def test_cl901_names_missing_unit_and_period(repo: Repo) -> None:
    repo.report(repo.cited(snippet="Inventory held steady at 42 items"))
    run = repo.check()
    assert run.code == 0
    (notice,) = [ln for ln in run.lines if ": CL901 " in ln]
    assert "period '2026' does not appear" in notice and "unit" not in notice
    assert "1 for semantic review" in run.out
    assert repo.check("--quiet").out.count("CL901") == 0


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

    from citelint.schema import load_schema, quick_valid

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
