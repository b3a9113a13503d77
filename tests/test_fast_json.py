"""The C-decoder fast path for JSON reports agrees with the position-tracking parser."""

from __future__ import annotations

import json
import random

import pytest

from citelint.reports.loaders import Document, LazyDocument, ParseFailure, fast_json, load_json_text
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
