"""The schema quick check (citelint.reports.schema.quick_valid, citelint.reports.quickcheck): compiled
from the packaged schemas into Python source, positive-only against jsonschema (draft 2020-12)."""

from __future__ import annotations

import collections
import math
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry

from citelint.reports.quickcheck import Unsupported, compile_check
from citelint.reports.schema import load_schema, quick_valid, validate_facts


class Text(str):
    """A str subclass, as a YAML loader may build."""


class Mapping(dict):
    """A dict subclass, as a YAML loader may build."""


CITED = {"state": "cited", "label": "metric-0", "source": "https://bench.example/doc/00095",
         "captureSha256": "4c0c" * 16, "snippet": "Throughput was 1,234 requests per second."}
UNAVAILABLE = {"state": "unavailable", "label": "metric-1", "reason": "Not reported for this period."}
CONFIG = {"sources": ["https://a/"], "labels": {"x": {"unit": "u"}}, "capture": {"timeout_s": 5, "max_bytes": 10}}


def _jsonschema(name: str, at: str | None) -> Draft202012Validator:
    schema = load_schema(name)
    target = {"$id": schema["$id"], "$defs": schema["$defs"], "$ref": f"#/$defs/{at}"} if at else schema
    return Draft202012Validator(target, registry=Registry())


def _without(value: dict, key: str) -> dict:
    return {k: v for k, v in value.items() if k != key}


FACT_CASES = [
    ("cited branch", CITED, True),
    ("unavailable branch", UNAVAILABLE, True),
    ("str subclass values", {k: Text(v) if k != "state" else v for k, v in CITED.items()}, True),
    ("dict subclass fact", Mapping(CITED), True),
    ("ordered dict fact", collections.OrderedDict(UNAVAILABLE), True),
    ("snippet after a line separator", {**CITED, "snippet": "\u2028x"}, True),
    ("longest label", {**CITED, "label": "l" * 200}, True),
    ("extra key on cited", {**CITED, "value": 1}, False),
    ("extra key on unavailable", {**UNAVAILABLE, "note": "x"}, False),
    ("citation field on unavailable", {**UNAVAILABLE, "snippet": "x"}, False),
    ("reason on cited", {**CITED, "reason": "x"}, False),
    ("same key count, wrong key", {**_without(CITED, "snippet"), "reason": "x"}, False),
    ("no state", _without(CITED, "state"), False),
    ("unknown state", {**CITED, "state": "pending"}, False),
    ("state not a string", {**CITED, "state": 1}, False),
    ("label not a string", {**CITED, "label": 7}, False),
    ("label a bool", {**UNAVAILABLE, "label": True}, False),
    ("empty label", {**CITED, "label": ""}, False),
    ("label too long", {**CITED, "label": "l" * 201}, False),
    ("digest with a final newline", {**CITED, "captureSha256": "4c0c" * 16 + "\n"}, False),
    ("digest in upper case", {**CITED, "captureSha256": "4C0C" * 16}, False),
    ("short digest", {**CITED, "captureSha256": "4c0c" * 15}, False),
    ("blank snippet", {**CITED, "snippet": " \t\u00a0\u3000"}, False),
    ("blank reason", {**UNAVAILABLE, "reason": "\n"}, False),
    ("empty snippet", {**CITED, "snippet": ""}, False),
    ("fact a list", [CITED], False),
    ("fact a string", "cited", False),
    ("fact null", None, False),
] + [(f"cited without {key}", _without(CITED, key), False) for key in CITED] \
  + [(f"unavailable without {key}", _without(UNAVAILABLE, key), False) for key in UNAVAILABLE]


@pytest.mark.parametrize("value, expected", [pytest.param(v, e, id=i) for i, v, e in FACT_CASES])
def test_fact_quick_check_answers(value, expected) -> None:
    assert quick_valid("report.schema.json", value, "fact") is expected
    assert _jsonschema("report.schema.json", "fact").is_valid(value) is expected


def test_state_of_a_str_subclass_is_left_to_jsonschema() -> None:
    """const and enum compare types exactly: stricter than jsonschema, so the
    fact is judged (and accepted) by jsonschema instead."""
    fact = {**CITED, "state": Text("cited")}
    assert not quick_valid("report.schema.json", fact, "fact")
    assert _jsonschema("report.schema.json", "fact").is_valid(fact)


CONFIG_CASES = [
    ("as written", CONFIG, True),
    ("labels as a list", {"labels": ["a", "b"]}, True),
    ("labels as an empty list", {"labels": []}, True),
    ("label without metadata", {"labels": {"x": None}}, True),
    ("label metadata in a dict subclass", {"labels": Mapping(x=Mapping(unit="u"))}, True),
    ("largest timeout", {"capture": {"timeout_s": 3600}}, True),
    ("fractional timeout", {"capture": {"timeout_s": 0.5}}, True),
    ("rule override", {"rules": {"CL105": "off"}}, True),
    ("extractor", {"capture": {"extractors": {"text/html": "pypdf"}}}, True),
    ("timeout a bool", {"capture": {"timeout_s": True}}, False),
    ("max_bytes a bool", {"capture": {"max_bytes": True}}, False),
    ("max_bytes a float", {"capture": {"max_bytes": 1.5}}, False),
    ("zero timeout", {"capture": {"timeout_s": 0}}, False),
    ("timeout too long", {"capture": {"timeout_s": 3600.5}}, False),
    ("max_bytes too large", {"capture": {"max_bytes": 67108865}}, False),
    ("content_types empty", {"capture": {"content_types": []}}, False),
    ("duplicate sources", {"sources": ["a", "a"]}, False),
    ("duplicate list labels", {"labels": ["a", "a"]}, False),
    ("labels neither branch", {"labels": "a"}, False),
    ("label metadata with an extra key", {"labels": {"x": {"colour": "red"}}}, False),
    ("label metadata a string", {"labels": {"x": "u"}}, False),
    ("rule id pattern", {"rules": {"CL10": "off"}}, False),
    ("rule severity", {"rules": {"CL105": "loud"}}, False),
    ("extractor media type", {"capture": {"extractors": {"html": "pypdf"}}}, False),
    ("unknown top-level key", {"source": []}, False),
    ("unknown capture key", {"capture": {"timeout": 5}}, False),
    ("facts_pointer not a pointer", {"facts_pointer": "a"}, False),
    ("config a list", [], False),
]


@pytest.mark.parametrize("value, expected", [pytest.param(v, e, id=i) for i, v, e in CONFIG_CASES])
def test_config_quick_check_answers(value, expected) -> None:
    assert quick_valid("config.schema.json", value) is expected
    assert _jsonschema("config.schema.json", None).is_valid(value) is expected


@pytest.mark.parametrize("config", [{"capture": {"max_bytes": 5.0}}, {"capture": {"timeout_s": math.nan}}])
def test_an_integral_float_or_nan_is_left_to_jsonschema(config) -> None:
    """jsonschema counts 5.0 as an integer and NaN as within every bound; the
    quick check judges neither (json.loads reads NaN)."""
    assert not quick_valid("config.schema.json", config)
    assert _jsonschema("config.schema.json", None).is_valid(config)


@pytest.mark.parametrize("schema", [
    {"anyOf": [{"type": "string"}]},
    {"type": "object", "properties": {"a": {"format": "email"}}},
    {"type": "string", "items": {"not": {}}},  # never applies to a string; still not judged
    {"oneOf": [{"type": "null"}, {"type": "array", "contains": {}}]},
    {"$ref": "#/$defs/a", "$defs": {"a": {"if": {}}}},
    {"$ref": "https://example.org/remote.json"},
    {"$ref": "#/$defs/missing"},
    {"$ref": "#/$defs/a~1b", "$defs": {"a/b": {}}},
    {"properties": {"a": {"$id": "https://example.org/inner", "$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
    {"type": ["string", "null"]},
    {"minLength": 1.5},
    {"minItems": True},
    {"uniqueItems": 1},
    {"maximum": "10"},
    {"pattern": "("},
    {"oneOf": []},
    {"required": "a"},
    {"enum": "ab"},
    {"enum": [[1]]},  # Python's == takes [True] for [1]
    {"const": {"a": 1}},
])
def test_a_schema_outside_the_implemented_keywords_is_never_judged(schema) -> None:
    with pytest.raises(Unsupported):
        compile_check(schema, schema.get("$defs", {}), root=True)


SAMPLES = [None, True, False, 0, 1, -1, 2.5, 5.0, math.nan, "", " ", "a", "ab", "abc", Text("ab"), "12", "12\n",
           "x12", "b", [], ["a"], ["a", "a"], [1], [[]], [[[]]], [None, 1], {}, {"kind": "leaf"},
           {"kind": "leaf", "n": 1}, {"kind": "pair", "left": {}, "right": {}}, {"kind": 1}, {"a": 1}, {"ab": "x"},
           Mapping(kind="leaf", n=2), {1: "x"}, {"kind": Text("leaf"), "n": 1}, {"a": 1, "c": "x"}, {"b": "x"}]

SYNTHETIC = {
    "recursive tree": {"$ref": "#/$defs/node", "$defs": {"node": {"oneOf": [
        {"type": "object", "required": ["kind", "n"], "additionalProperties": False,
         "properties": {"kind": {"const": "leaf"}, "n": {"type": "integer", "minimum": 1}}},
        {"type": "object", "required": ["kind", "left", "right"], "additionalProperties": False,
         "properties": {"kind": {"const": "pair"}, "left": {"$ref": "#/$defs/node"},
                        "right": {"$ref": "#/$defs/node"}}}]}}},
    "nested arrays": {"$ref": "#/$defs/a", "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}},
    "discriminated union of untyped branches": {"oneOf": [
        {"required": ["kind"], "properties": {"kind": {"const": "leaf"}}},
        {"required": ["kind"], "properties": {"kind": {"const": "pair"}}, "minLength": 2}]},
    "counted scalar union": {"oneOf": [{"type": "string", "minLength": 2}, {"type": "string", "maxLength": 2},
                                       {"type": "number", "exclusiveMinimum": 0}]},
    "open record": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}, "b": {}},
                    "additionalProperties": {"type": "string"}, "propertyNames": {"maxLength": 2}},
    "closed record with optional keys": {"type": "object", "required": ["kind"], "additionalProperties": False,
                                         "properties": {"kind": {"enum": ["leaf", 1, None]}, "n": True}},
    "required keys with untyped properties": {"required": ["a", "b"], "properties": {"a": {}, "b": {"maxLength": 1}}},
    "closed record with an unconstrained key": {"additionalProperties": False, "required": ["a", "b"],
                                                "properties": {"a": True, "b": {"maxLength": 1}}},
    "untyped keywords": {"minLength": 2, "maximum": 1, "minItems": 1, "uniqueItems": True, "required": ["kind"]},
    "mixed enum and const": {"oneOf": [{"enum": [1, "a", None, 2.5]}, {"const": False}, {"const": 5.0}]},
    "anchored pattern": {"type": "string", "pattern": "^[0-9]{2}$"},
    "pattern with alternation": {"pattern": "^a|b"},
    "pattern anywhere": {"pattern": "[0-9]"},
    "boolean schemas": {"properties": {"a": False, "kind": True}, "items": False},
    # Lists of strings (the config's sources, globs, labels) are judged by one call, not a loop.
    "unique non-empty strings": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True},
    "strings of two or more": {"type": "array", "items": {"type": "string", "minLength": 2}},
    "any strings": {"type": "array", "items": {"type": "string"}},
}


@pytest.mark.parametrize("schema", list(SYNTHETIC.values()), ids=list(SYNTHETIC))
def test_compiled_check_is_never_laxer_than_jsonschema(schema) -> None:
    check = compile_check(schema, schema.get("$defs", {}), root=True)
    validator = Draft202012Validator(schema, registry=Registry())
    values = SAMPLES + [{"kind": "pair", "left": s, "right": {"kind": "leaf", "n": 1}} for s in SAMPLES] + \
        [[s] for s in SAMPLES] + [{"a": s} for s in SAMPLES] + [{"a": 1, "b": s} for s in SAMPLES] + \
        [["abc", s] for s in SAMPLES] + [["ab", "ab"], ["ab", "cd", ""]]
    answers = [check(value) for value in values]
    for value, answer in zip(values, answers):
        if answer:
            assert validator.is_valid(value), value
    # Never vacuous: each schema accepts and refuses something it should.
    assert any(answers) and not all(answers)
    judged_valid = [value for value in values if validator.is_valid(value)]
    assert sum(answers) >= len(judged_valid) // 2


def test_patterns_keep_python_search_semantics() -> None:
    """Draft 2020-12 §6.3.3 pattern: a match anywhere; ``$`` before a final newline (Python's re, as jsonschema)."""
    def check(pattern: str):
        return compile_check({"pattern": pattern}, {}, root=True)
    assert check("^[0-9]{2}$")("12\n") and not check("^[0-9]{2}$")("x12")
    assert check("^a|b")("xb") and not check("^a|b")("xc")
    assert check(r"\S")(" x ") and not check(r"\S")("\u2003") and not check(r"\S")("")


def test_non_space_pattern_agrees_with_isspace_on_every_code_point() -> None:
    r"""The quick check tests ``\S`` with str.isspace; re must agree for every character."""
    pattern = re.compile(r"\S")
    disagree = [c for c in range(0x110000) if (pattern.search(chr(c)) is None) != chr(c).isspace()]
    assert disagree == []


def test_deep_recursion_is_unknown_not_a_crash() -> None:
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    check = compile_check(SYNTHETIC["nested arrays"], SYNTHETIC["nested arrays"]["$defs"], root=True)
    assert check([[[]]]) is True
    assert check(nested) is False
    cycle = {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}
    assert compile_check(cycle, cycle["$defs"], root=True)(1) is False


def test_validate_facts_reports_only_the_facts_the_quick_check_refuses() -> None:
    facts = [CITED, {**CITED, "value": 1}, UNAVAILABLE, 5, {"state": "cited"}, Mapping(UNAVAILABLE)]
    assert list(validate_facts(facts, "/a~1b")) == [
        ("/a~1b/1/value", "facts have no 'value' field: a number lives inside the snippet or nowhere; remove it",
         True),
        ("/a~1b/3", "a fact must be an object, got number", False),
        *[("/a~1b/4", f"missing {key}: a cited fact needs state, label, source, captureSha256, snippet", False)
          for key in ("label", "source", "captureSha256", "snippet")],
    ]
    assert list(validate_facts([CITED] * 1000, "/facts")) == []
    assert list(validate_facts({"0": CITED}, "/facts")) == [("/facts", "facts must be an array, got object", False)]


def test_the_precompiled_checks_are_current_and_used() -> None:
    from citelint.reports import _quickchecks, schema

    committed = (Path(schema.__file__).parent / "_quickchecks.py").read_text(encoding="utf-8")
    assert committed == schema.quick_checks_source(), (
        "citelint/reports/_quickchecks.py is stale: regenerate it as citelint.reports.schema.quick_checks_source says")
    for name, at in schema.PRECOMPILED:
        assert schema._quick_check(name, at) is _quickchecks.CHECKS[f"{name}#{at}" if at else name]


def test_a_generated_module_answers_as_the_compiled_check() -> None:
    from citelint.reports.quickcheck import compile_check, module_source

    defs = {"leaf": {"type": "string", "pattern": "^a", "minLength": 2},
            "node": {"type": "object", "required": ["kind"], "additionalProperties": False,
                     "properties": {"kind": {"enum": ["x", "y", 3]}, "size": {"type": "number", "minimum": 1.5},
                                    "tags": {"type": "array", "items": {"$ref": "#/$defs/leaf"},
                                             "uniqueItems": True},
                                    "child": {"$ref": "#/$defs/node"}}}}
    schema = {"$ref": "#/$defs/node"}
    namespace: dict = {}
    exec(compile(module_source({"toy": (schema, defs, False)}, {"toy.json": "0" * 64}, "toy"), "<toy>", "exec"),
         namespace)
    generated, compiled = namespace["CHECKS"]["toy"], compile_check(schema, defs)
    values = [{}, {"kind": "x"}, {"kind": 3}, {"kind": 3.0}, {"kind": "z"}, {"kind": "x", "size": 1.5},
              {"kind": "x", "size": 1}, {"kind": "y", "size": True}, {"kind": "x", "tags": ["ab", "ac"]},
              {"kind": "x", "tags": ["ab", "ab"]}, {"kind": "x", "tags": ["b"]}, {"kind": "x", "other": 1},
              {"kind": "x", "child": {"kind": "y", "child": {"kind": "q"}}}, {"kind": "x", "child": {"kind": "y"}},
              "x", None, [], {"kind": None}]
    answers = [compiled(v) for v in values]
    assert [generated(v) for v in values] == answers
    assert True in answers and False in answers
    assert namespace["DIGESTS"] == {"toy.json": "0" * 64}
