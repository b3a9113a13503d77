"""The C-decoder fast path for JSON reports agrees with the position-tracking parser."""

from __future__ import annotations

import json
import random

import pytest

from citelint.reports.document import Document, ParseFailure
from citelint.reports.json import LazyDocument, fast_json, load_json_text
from conftest import REPO_ROOT

EXAMPLE_REPORTS = sorted((REPO_ROOT / "examples").glob("*/reports/*.json"))


def _texts() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in EXAMPLE_REPORTS]
    texts.append('{"facts": []}')
    texts.append('  {\n"$schema": "x",\r\n "facts" : [ {"a": "b"} ,\n\t{"c": [1, 2.5, -0, true, null]} ] }  \n')
    texts.append('{"facts": [{"state": "cited", "snippet": "caf\\u00e9 \\"q\\" \\ud83d\\ude00"}]}')
    texts.append('{"other": {"x": [[[]]]}, "facts": {"not": "a list"}}')
    return texts


@pytest.mark.parametrize("text", _texts())
def test_fast_path_agrees_with_the_full_parser(text: str) -> None:
    slow = load_json_text(text)
    assert isinstance(slow, Document)
    fast = fast_json(text)
    if fast is None:
        return  # the full parser is used: nothing to agree on
    assert isinstance(fast, LazyDocument)
    assert fast.data == slow.data
    facts = fast.data.get("facts")
    if isinstance(facts, list):
        for i in range(len(facts)):
            assert fast.locate(f"/facts/{i}") == slow.locate(f"/facts/{i}")
            for key in facts[i] if isinstance(facts[i], dict) else ():
                assert fast.locate(f"/facts/{i}/{key}") == slow.locate(f"/facts/{i}/{key}")
                assert fast.locate_key(f"/facts/{i}/{key}") == slow.locate_key(f"/facts/{i}/{key}")


def test_the_examples_take_the_fast_path() -> None:
    assert EXAMPLE_REPORTS
    for path in EXAMPLE_REPORTS:
        assert isinstance(fast_json(path.read_text(encoding="utf-8")), LazyDocument), path


@pytest.mark.parametrize("text", [
    '{"facts": [\n  {"a": 1, "a": 2}]}',
    '{"facts": [], "facts": []}',
    '{"facts": [NaN]}',
    '{"facts": [\n Infinity]}',
    '{"facts": [1e400]}',
    '{"facts": [' + "9" * 5000 + ']}',
    '{"facts": [}',
    '{"facts": []} x',
    "[" * 70 + "]" * 70,
    '{"facts": [' + "[" * 63 + "]" * 63 + "]}",
    '{"x": ' + "[" * 64 + "]" * 64 + ', "facts": []}',
    '{"facts": [{"state": "\\ud800"}]}',
    '{"facts": [{"state": "a\tb"}]}',
])
def test_fast_path_declines_what_the_full_parser_refuses(text: str) -> None:
    assert fast_json(text) is None
    assert isinstance(load_json_text(text), ParseFailure)


def test_a_top_level_that_is_not_an_object_goes_to_the_full_parser() -> None:
    assert fast_json('["facts"]') is None
    assert isinstance(load_json_text('["facts"]'), Document)


def test_random_mutations_never_accepted_by_the_fast_path_alone() -> None:
    """Whatever the fast path accepts, the full parser accepts with the same data."""
    rng = random.Random(7)
    base = [p.read_text(encoding="utf-8") for p in EXAMPLE_REPORTS[:3]]
    alphabet = '{}[],:"\\ \n0123456789eE.-+tfnaNI\u00e9'
    for _ in range(3000):
        text = rng.choice(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text))
            op = rng.random()
            if op < 0.4:
                text = text[:at] + rng.choice(alphabet) + text[at:]
            elif op < 0.8:
                text = text[:at] + text[at + 1:]
            else:
                text = text[:at] + text[at:at + 40] + text[at:]
        fast = fast_json(text)
        if fast is None:
            continue
        slow = load_json_text(text)
        assert isinstance(slow, Document), (text, slow)
        assert json.dumps(fast.data, sort_keys=True) == json.dumps(slow.data, sort_keys=True)


@pytest.mark.parametrize("text", [
    '{"a": 1,\r\n "a": 2}',                               # duplicate key (CRLF before it)
    '{"x":\r\n NaN}', '[1e400]', '[' + '1' * 5000 + ']',  # constants, overflow, too many digits
    '{"s": "\\ud800"}', '["\\udfff\\ud800"]',             # lone surrogate escapes
    '[' * 65 + ']' * 65, '{"a":' * 70 + '1' + '}' * 70,  # nesting past MAX_DEPTH
    '[' * 100_000 + ']' * 100_000,                       # past the C decoder's recursion limit
    '{"a": 1}\r\n{"b": 2}', 'data: {}\n\n', '',          # more than one value, not JSON at all
])
def test_strict_json_refuses_what_the_report_parser_refuses_in_its_words(text: str) -> None:
    from citelint.reports.json import strict_json

    slow = load_json_text(text)
    assert isinstance(slow, ParseFailure)
    assert strict_json(text) == slow


def test_a_failure_is_placed_by_the_lines_before_it() -> None:
    assert load_json_text('{"a": 1,\r\n "a": 2}') == ParseFailure(2, 2, "duplicate key 'a' (first at 1:2); keep one")
    assert load_json_text('{"x":\r\n\r\n NaN}')[:2] == (3, 2)
    assert load_json_text('{"a": 1}\r\n{"b": 2}') == ParseFailure(2, 1, "extra data after the JSON value")


def test_strict_json_gives_any_value_the_policy_accepts() -> None:
    from citelint.reports.json import strict_json

    assert strict_json('[1, "\\ud83d\\ude00", {"a": null}]') == [1, "\U0001F600", {"a": None}]
    assert strict_json(" 12 ") == 12
    deep = '[' * 64 + ']' * 64
    assert strict_json(deep) == json.loads(deep)
