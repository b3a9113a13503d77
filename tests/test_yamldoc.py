"""YAML loading (citelint.reports.yaml): libyaml's events must give exactly what
PyYAML's pure-Python parser gives (values, positions, refusals, messages).

The pure-Python loader is the reference: every test compares against it as
well as against positions and messages written out by hand, with non-ASCII
text before the positions so that a byte offset could not pass for a
code-point column.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from citelint.model import Position
from citelint.reports.document import Document, ParseFailure
from citelint.reports.yaml import COLLAPSE_MIN_CHARS, RUN_MIN, _collapse, _load, _PositionsOnDemand, load_yaml_text
from conftest import SOURCE_A, Repo, run_cli

REPO_ROOT = Path(__file__).resolve().parents[1]

needs_libyaml = pytest.mark.skipif(not getattr(yaml, "__with_libyaml__", False),
                                   reason="PyYAML was built without libyaml")


def snapshot(loaded: Document | ParseFailure) -> tuple[Any, ...]:
    """Everything a caller can observe: data (with types), every value's and key's position."""
    if isinstance(loaded, ParseFailure):
        return ("failure", loaded.line, loaded.col, loaded.message)
    assert loaded._to_pos is not None
    return ("document", repr(loaded.data),
            {p: loaded._to_pos(v) for p, v in loaded._values.items()},
            {p: loaded._to_pos(v) for p, v in loaded._keys.items()})


def pure(text: str, typed: bool = False) -> Document | ParseFailure:
    """The reference: PyYAML's pure-Python parser."""
    return _load(text, typed, yaml, yaml.BaseLoader)


def by_libyaml(loaded: Document) -> bool:
    """Whether the marks behind a document came from libyaml (its marks are a C type)."""
    return all(type(start).__module__ == "yaml._yaml" for start, _ in loaded._values.values())


# ----------------------------------------------------------------- accepted documents

ACCEPTED = {
    "block mapping after non-ASCII": "é: ü\nschlüssel: 日本語 und 😀 x\nnext: [a, b]\n",
    "crlf": "größe: 1\r\nliste:\r\n  - ä\r\n  - 'ö'\r\n",
    "unicode line breaks in quoted scalars": "a: 'x\u2028y'\nb: \"p\x85q\"\nc: 'z\u2029w'\nd: ü\n",
    "scalar styles": ("plain: mehr\n  zeilen\nsq: 'it''s — ja'\ndq: \"tab\\tü\\u00e9\\x41\\/\"\n"
                      "lit: |\n  eins\n  zwei\nfold: >-\n  drei\n\n  vier\nkeep: |+\n  x\n\n"
                      "ind: |2\n   drei Leerzeichen\nlast: ok\n"),
    "flow collections": "q: [é, {k: v, \"l\": 'w'}, [x, y], a: b]\nr: {}\ns: []\n",
    "empty values in block context": "a:\nb:\n  -\n  - \n  - x\nc: # Kommentar\n",
    "explicit keys": "? é\n: 1\n? 'ß'\n: 2\n",
    "document markers": "--- # Kopf\nclé: valeur\n... # Ende\n",
    "empty stream": "",
    "comment only": "# nur ein Kommentar — ü\n",
    "empty document": "---\n",
    "scalar document": "'ein Satz — ü'\n",
    "core schema values": ("t: true\nf: False\nn: ~\ne:\ni: -12\no: 0o17\nh: 0x1F\nx: 1.5e3\ninf: -.inf\n"
                           "nan: .NaN\nno: no\non: on\ndate: 2026-07-01\ntime: 1:30\nq: '1'\n"
                           "big: 123456789012345678901\n"),
    "long and nested": "facts:\n" + "".join(f"  - {{label: „l{i}“, n: {i}, tags: [ä, ö]}}\n" for i in range(200)),
    "simple key of 1000 characters": "k" * 1000 + ": v\n",
    "pointer escapes": "a/b: 1\nc~d: 2\n\"\": 3\n",
}


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("text", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_libyaml_loads_exactly_what_pure_python_loads(text: str, typed: bool) -> None:
    loaded = load_yaml_text(text, typed=typed)
    assert isinstance(loaded, Document)
    assert snapshot(loaded) == snapshot(pure(text, typed))


@needs_libyaml
@pytest.mark.parametrize("text", [text for name, text in ACCEPTED.items()
                                  if name not in ("empty stream", "comment only")])
def test_libyaml_does_the_parsing(text: str) -> None:
    assert by_libyaml(load_yaml_text(text))  # type: ignore[arg-type]
    assert not by_libyaml(pure(text))  # type: ignore[arg-type]


@needs_libyaml
def test_libyaml_marks_count_code_points_not_bytes() -> None:
    # Each of é, 日, 😀 is 2, 3 and 4 bytes in UTF-8 and one code point.
    text = "é: 日本語 😀 x\nk: [ä, 😀, ü]\n"
    parser = yaml.cyaml.CParser(text)
    events = []
    while not isinstance(event := parser.get_event(), yaml.StreamEndEvent):
        events.append(event)
    scalars = {e.value: e.start_mark for e in events if isinstance(e, yaml.ScalarEvent)}
    assert {v: (m.index, m.line, m.column) for v, m in scalars.items()} == {
        "é": (0, 0, 0), "日本語 😀 x": (3, 0, 3), "k": (11, 1, 0), "ä": (15, 1, 4), "😀": (18, 1, 7),
        "ü": (21, 1, 10)}
    doc = load_yaml_text(text)
    assert isinstance(doc, Document) and by_libyaml(doc)
    assert doc.locate("/é") == Position(1, 4, 1, 11)
    assert doc.locate("/k/2") == Position(2, 11, 2, 12)
    assert doc.locate_key("/k") == Position(2, 1)


def test_positions_are_code_point_columns_on_editor_lines() -> None:
    # PyYAML and libyaml count U+2028 as a line break; editors and GitHub do not.
    doc = load_yaml_text("a: 'x\u2028y'\nb: ü — c\n\u00e9: [x, 😀, z]\n")
    assert isinstance(doc, Document)
    assert doc.locate("/a") == Position(1, 4, 1, 9)
    assert doc.locate("/b") == Position(2, 4, 2, 9)
    assert doc.locate("/é/2") == Position(3, 11, 3, 12)


def test_core_schema_typing_for_the_config() -> None:
    doc = load_yaml_text(ACCEPTED["core schema values"], typed=True)
    assert isinstance(doc, Document)
    data = doc.data
    assert (data["t"], data["f"], data["n"], data["e"], data["i"], data["o"], data["h"]) == (
        True, False, None, None, -12, 15, 31)
    assert data["x"] == 1500.0 and data["inf"] == float("-inf") and data["nan"] != data["nan"]
    assert (data["no"], data["on"], data["date"], data["time"], data["q"]) == ("no", "on", "2026-07-01", "1:30", "1")
    assert data["big"] == 123456789012345678901
    untyped = load_yaml_text(ACCEPTED["core schema values"])
    assert isinstance(untyped, Document) and set(map(type, untyped.data.values())) == {str}


# ----------------------------------------------------------------- refusals and syntax errors

REFUSED = [
    ("ü: 1\nfacts:\n  - é: &a {state: cited}\n", 3, 8, "YAML anchors are not allowed in a report (&a); remove it"),
    ("ü: [1]\nfacts: *a\n", 2, 8, "YAML aliases are not allowed in a report; write the value out"),
    ("ü: x\n*a : 1\n", 2, 1, "YAML aliases are not allowed in a report"),
    ("facts:\n  - é: !!str x\n", 2, 8, "explicit YAML tags are not allowed (tag:yaml.org,2002:str); remove it"),
    ("fäcts: []\nfäcts: []\n", 2, 1, "duplicate key 'fäcts' (first at 1:1); keep one"),
    ("x: {ü: 1, é: 2, ü: 3}\n", 1, 17, "duplicate key 'ü' (first at 1:5); keep one"),
    ("? [é]\n: 1\n", 1, 3, "mapping keys must be plain strings"),
    ("é: []\n---\nü: []\n", 2, 1, "more than one YAML document; a report is one document"),
    ("é: 1\nfacts:\n  - stat\x1be: cited\n", 3, 9, "character U+001B is not allowed in YAML; remove it or write it "
                                                   "as an escape inside a double-quoted string"),
    ("é: \"\\ud800\"\n", 1, 4, "the string holds a lone surrogate (an escape such as \\ud800 with no pair), which "
                               "is not Unicode text; remove it or write the character itself"),
    ("é: \"\\ud83d\\ude00\"\n", 1, 4, "the string holds a lone surrogate (an escape such as \\ud800 with no pair), "
                                      "which is not Unicode text; remove it or write the character itself"),
    ("é: x\ud800\n", 1, 5, "character U+D800 is not allowed in YAML; remove it or write it as an escape inside a "
                           "double-quoted string"),
    ("é: " + "[" * 70 + "]" * 70 + "\n", 1, 67, "nesting deeper than 64 levels"),
    ("ä:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 70)), 64, 127, "nesting deeper than 64 levels"),
    ("é: [ü\n", 2, 1, "expected ',' or ']', but got '<stream end>'"),
    ("é: []\n  - ü\n", 2, 3, "expected <block end>, but found '<block sequence start>'"),
    ("é:\n\t- ü\n", 2, 1, "found character '\\t' that cannot start any token"),
    ("é: 'ü\n", 2, 1, "found unexpected end of stream"),
    ("é: ü: x\n", 1, 5, "mapping values are not allowed here"),
    ("é: |+#\n  x\n", 1, 6, "expected chomping or indentation indicators, but found '#'"),
    ("sources: [https://example.org/ü?x=1]\n", 1, 32, "expected ',' or ']', but got '?'"),
    ("é: x\n  ü\tz: 1\n", 2, 4, "found character '\\t' that cannot start any token"),
]


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("text, line, col, message", REFUSED)
def test_refusals_keep_their_position_and_wording(text: str, line: int, col: int, message: str,
                                                  typed: bool) -> None:
    assert load_yaml_text(text, typed=typed) == ParseFailure(line, col, message)
    assert snapshot(pure(text, typed)) == ("failure", line, col, message)


def test_a_number_too_long_for_int_is_refused_in_the_config_only() -> None:
    text = "é: 1\nlimits:\n  ü: " + "9" * 5000 + "\n"
    assert load_yaml_text(text, typed=True) == ParseFailure(
        3, 6, "limits.ü: the number 99999999999999999999… has 5000 digits, too many to be a sensible value")
    loaded = load_yaml_text(text)
    assert isinstance(loaded, Document) and loaded.data["limits"]["ü"] == "9" * 5000
    key = "9" * 5000 + ": 1\n"
    assert load_yaml_text(key, typed=True) == pure(key, True)
    assert isinstance(load_yaml_text(key, typed=True), ParseFailure)


# ----------------------------------------------------------------- where libyaml reads differently

DIVERGENT = {
    # libyaml skips a BOM at the start of any line; PyYAML keeps it in the key.
    "BOM at a line start": ("é: b\n\ufeffc: d\n", {"é": "b", "\ufeffc": "d"}),
    "leading BOM": ("\ufeffé: b\nc: d\n", {"é": "b", "c": "d"}),
    # An empty flow value: libyaml marks it at the next token, PyYAML after the colon.
    "empty flow mapping value": ("x: {é: , ü: }\n", {"x": {"é": "", "ü": ""}}),
    "empty flow pair value": ("x: [é: , b]\n", {"x": [{"é": ""}, "b"]}),
    # A tab inside a plain scalar, a comment glued to a directive: libyaml
    # accepts what PyYAML refuses.
    "tab inside a plain scalar": ("é: multi\n  li\tne\n", "found character '\\t' that cannot start any token"),
    "comment glued to a directive": ("%YAML 1.2#\n---\nclé: v\n", "expected a digit or ' ', but found '#'"),
    "directive": ("%YAML 1.2\n---\nclé: v\n", {"clé": "v"}),
    # An empty value with the non-specific tag: plain (so null when typed) for PyYAML only.
    "empty value tagged !": ("é:\n  - !\n", {"é": [""]}),
}


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("text, data", DIVERGENT.values(), ids=DIVERGENT.keys())
def test_where_libyaml_differs_pure_python_decides(text: str, data: Any, typed: bool) -> None:
    loaded = load_yaml_text(text, typed=typed)
    assert snapshot(loaded) == snapshot(pure(text, typed))
    if isinstance(data, str):
        assert isinstance(loaded, ParseFailure) and loaded.message == data
    elif not typed:
        assert isinstance(loaded, Document) and loaded.data == data


def test_positions_of_empty_flow_values_and_bom_lines() -> None:
    doc = load_yaml_text("x: {é: , ü: }\n")
    assert isinstance(doc, Document)
    assert doc.locate("/x/é") == Position(1, 7, 1, 7) and doc.locate("/x/ü") == Position(1, 12, 1, 12)
    doc = load_yaml_text("é: b\n\ufeffc: d\n")
    assert isinstance(doc, Document) and doc.locate("/\ufeffc") == Position(2, 5, 2, 6)
    assert load_yaml_text("é:\n  - !\n", typed=True).data == {"é": [None]}  # type: ignore[union-attr]


def test_without_libyaml_the_pure_python_parser_loads_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    for text in ACCEPTED.values():
        loaded = load_yaml_text(text, typed=True)
        assert isinstance(loaded, Document) and not (loaded._values and by_libyaml(loaded))
        assert snapshot(loaded) == snapshot(pure(text, True))
    assert load_yaml_text(REFUSED[0][0]) == ParseFailure(*REFUSED[0][1:])


# ----------------------------------------------------------------- mutated documents

SEEDS = [
    "facts:\n  - state: cited\n    label: umsätze\n    source: https://example.org/ä\n    snippet: \"12 % — ü\"\n",
    "sources:\n  - https://example.org/a\nlabels: [umsatz, 'x', \"y\"]\nlimits: {max: 10, ratio: 0.5, on: no}\n",
    "a: |\n  eins\n  zwei\nb: >-\n  drei\n\nc: 'it''s'\nd: |+#\n  e\n",
    "- [a, b, {c: d}]\n- ? x\n  : y\n- !!str z\n- &a q\n- *a\n- !\n",
    "%YAML 1.2\n---\nclé: valeur # Kommentar\n...\n",
    "x: \"esc \\t \\u00e9 \\x41 \\/ \\N \\_ \\L \\P \\e\"\ny: 'single\n  folded'\n",
    "k: v\r\nk2:\r\n  - 1\r\n  - 2\r\n",
    "日本: 語\n\"quoted key\": 0x1F\n? complex\n: 1e3\n",
    "[a: b, c, {d: e}, \"f\": g, h: , {i: }]\n",
    "sources: [https://example.org/a, https://example.org/b,\n  https://example.org/c]\n",
]
PIECES = list("-?:,[]{}#&*!|>'\"%@` \t\n\r\\~/.019abxé日") + [
    "\x85", "\u2028", "\ufeff", "\x07", "😀", "\r\n", "- ", ": ", "---\n", "...\n", "\\ud800", ".inf", "null"]


def mutate(text: str, rnd: random.Random) -> str:
    chars = list(text)
    for _ in range(rnd.randint(1, 3)):
        i = rnd.randrange(len(chars) + 1)
        op = rnd.random()
        if op < 0.4 or not chars:
            chars.insert(i, rnd.choice(PIECES))
        elif op < 0.7:
            del chars[min(i, len(chars) - 1)]
        else:
            chars[min(i, len(chars) - 1)] = rnd.choice(PIECES)
    return "".join(chars)


def test_mutated_documents_load_exactly_as_pure_python_loads_them() -> None:
    rnd = random.Random(20261202)
    loaded_by_libyaml = 0
    for _ in range(1500):
        text = mutate(rnd.choice(SEEDS), rnd)
        typed = rnd.random() < 0.5
        loaded = load_yaml_text(text, typed=typed)
        assert snapshot(loaded) == snapshot(pure(text, typed)), repr(text)
        loaded_by_libyaml += isinstance(loaded, Document) and bool(loaded._values) and by_libyaml(loaded)
    if getattr(yaml, "__with_libyaml__", False):
        assert loaded_by_libyaml > 300


# ----------------------------------------------------------------- through the command line

def test_config_error_positions_count_code_points(tmp_path: Path) -> None:
    (tmp_path / "citelint.yaml").write_text("# Quellen für „Umsatz“\nsources: [https://example.org/é—ü, 12]\n"
                                            "labels: [umsatz]\n", encoding="utf-8")
    run = run_cli("check", cwd=tmp_path)
    assert run.code == 2
    assert "config error: citelint.yaml:2:36: sources.1 must be a string, not a number ('12')" in run.err


def test_a_large_block_and_flow_config_loads(tmp_path: Path) -> None:
    urls = [f"https://example.org/b{i}/é" for i in range(3000)]
    for text, line in (("sources:\n" + "".join(f"  - {u}\n" for u in urls) + "labels: [x]\n", 3003),
                       ("sources: [" + ", ".join(urls) + "]\nlabels: [x]\n", 3)):
        (tmp_path / "citelint.yaml").write_text(text + "rules: {CL104: loud}\n", encoding="utf-8")
        run = run_cli("check", cwd=tmp_path)
        assert run.code == 2 and f"config error: citelint.yaml:{line}:9: rules.CL104: 'loud'" in run.err, run.err


def test_yaml_report_finding_positions_after_non_ascii(repo: Repo) -> None:
    repo.capture(SOURCE_A, "Synthetic source: 42 items")
    repo.write("reports/r.yaml", "# Bericht — „Quartal“\nfacts:\n"
                                 "  - {snippet: 'Synthetic — ü', state: cited, label: inventory, "
                                 f"source: '{SOURCE_A}', captureSha256: ABC}}\n")
    lines = repo.check().findings("CL002")
    # ABC is the 116th code point of its line (the 119th byte).
    assert len(lines) == 1 and lines[0].startswith("reports/r.yaml:3:116: CL002 captureSha256"), lines


def test_check_on_a_json_only_project_never_imports_yaml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.citelint]\nsources = ["https://example.org/a"]\n'
                                             'labels = ["x"]\n', encoding="utf-8")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "r.json").write_text('{"facts": []}', encoding="utf-8")
    code = ("import sys\nfrom citelint.cli import main\ncode = main(['check'])\n"
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'yaml'))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                         cwd=tmp_path).stdout
    assert out.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("item", ["https://example.org/a?b=1", "plain words", "null", "~", "True", "false", "12",
                                  "0x1F", "0o17", "-3", "+4.5", ".inf", ".nan", "no", "on", "2026-07-01", "1:30",
                                  "a?b", "'quoted'", '"double"', "!tagged x", "&anchor x", "*alias", "[]", "{}"])
@pytest.mark.parametrize("typed", [False, True])
def test_sequence_items_read_as_the_same_scalar_in_a_mapping(item: str, typed: bool) -> None:
    """A sequence's plain items are decided without a call per item; every item reads as
    the same value (or the same refusal) as in a mapping, with its position, in block and flow style."""
    for seq, mapping, at in ((f"- first\n- {item}\n", f"k: first\nv: {item}\n", "/1"),
                             (f"[first, {item}]\n", f"{{k: first, v: {item}}}\n", "/1")):
        a, b = load_yaml_text(seq, typed=typed), load_yaml_text(mapping, typed=typed)
        if isinstance(b, ParseFailure) or isinstance(a, ParseFailure):
            assert isinstance(a, ParseFailure) and isinstance(b, ParseFailure), (seq, a, b)
            assert a.message.replace("]", "}") == b.message.replace("]", "}")
            continue
        value = b.data["v"]
        assert a.data[1] == value or (value != value and a.data[1] != a.data[1]), (seq, a.data, b.data)
        i = seq.index(item, seq.index("first") + 5)
        pos = a.locate(at)
        assert (pos.line, pos.col) == (seq[:i].count("\n") + 1, i - seq.rfind("\n", 0, i))


# ----------------------------------------------------------------- runs read by a regular expression

#: Item values for runs: plain URLs, repeats, and every kind a run must not take as a plain string
#: (null and boolean words, a key, a comment, an indicator, a line break to YAML, a tab, a space).
RUN_VALUES = ["https://example.org/a", "https://example.org/a", "https://example.org/é—ü?q=1#frag", "a:b", "a#b",
              "/path/%41", "x-y", "_u", "n", "no", "null", "True", "FALSE", "nulls", "key:", "#comment", "-x",
              ":x", "?x", "*alias", "&anchor x", "!tag x", "'q'", '"d"', "[a]", "{b}", "12", ".5", "~",
              "a\u2028b", "a\x85b", "a\xa0b", "a\ufeffb", "a\tb", "a b", "a: b", "😀", "é", "citelint_collapsed_0"]
#: (before, indentation, after) of a run of items: a sequence where it belongs, and places where
#: lines that look like items are something else (a block scalar, a flow collection, a quoted or
#: multi-line plain scalar, the continuation of the last item).
RUN_CONTEXTS = [
    ("sources:\n", "  ", "labels: [x]\n"), ("sources:\n", "", "labels:\n- x\n"), ("", "", ""),
    ("a:\n  b:\n", "    ", "  c: 1\n"), ("- - first\n", "  ", "- last\n"), ("k: |\n", "  ", "z: 1\n"),
    ("k: >-\n", "  ", ""), ("k: plain\n", "  ", "z: 1\n"), ('k: "quoted\n', "  ", '  end"\n'),
    ("k: [\n", "  ", "]\n"), ("k: [a,\n", "  ", "  b]\n"), ("k:\n", "  ", "    continued\n"),
    ("k:\n", "  ", "    deeper: 1\n"), ("k:\n", "  ", "  # comment\n  - after\n"), ("%YAML 1.2\n---\n", "", ""),
    ("note: citelint_collapsed_0\nk:\n", "  ", ""), ("k: &a\n", "  ", ""), ("k: !!seq\n", "  ", ""),
    ("k:\n", "  ", "k: again\n"), ("[\n" * 62 + "{k:\n", "  ", ""), ("k:\n", "  ", "  - end"),
]


#: Flow items (one double-quoted item and its comma a line, as JSON is written), and (before, after)
#: a run of them: a flow sequence where they belong, and places where such lines are something else.
FLOW_VALUES = ["https://example.org/a", "https://example.org/a", "a b", " lead", "#x", "a: b", "é — ü", "- x",
               "null", "12", "a\\\"b", "a\\nb", "it's", "a\tb", "a\u2028b", "a\x85b", "", "citelint_collapsed_0"]
FLOW_CONTEXTS = [("sources: [\n", "]\n"), ('{"sources": [\n', '  "last"\n ],\n "labels": ["x"]}\n'),
                 ("k: {\n", "}\n"), ("k:\n", ""), ("k: |\n", "z: 1\n"), ('k: "\n', '"\n'), ("[[\n", "]]\n"),
                 ("- [\n", "  ]\n- x\n"), ("k: [ # open\n", "  # c\n  z]\n"), ("k: [\n", ""),
                 ("k: [a,\n", "  {q: 1}, [b]]\n"), ("k: [\n", "  ? x\n]\n")]


def observed(loaded: Document | ParseFailure) -> tuple[Any, ...]:
    """What a caller observes through the public interface: data (with types), or the failure."""
    if isinstance(loaded, ParseFailure):
        return ("failure", loaded.line, loaded.col, loaded.message)
    return ("document", repr(loaded.data))


#: Put first in every generated document: texts shorter than COLLAPSE_MIN_CHARS are loaded whole.
PADDING = "# " + "padding " * (COLLAPSE_MIN_CHARS // 8) + "\n"


def run_document(rnd: random.Random) -> str:
    return PADDING + run_body(rnd)


def run_body(rnd: random.Random) -> str:
    if rnd.random() < 0.4:
        before, after = rnd.choice(FLOW_CONTEXTS)
        indent = rnd.choice(["", " ", "  "])
        values = [rnd.choice(FLOW_VALUES[:5]) if rnd.random() < 0.9 else rnd.choice(FLOW_VALUES)
                  for _ in range(rnd.randint(RUN_MIN - 3, 3 * RUN_MIN))]
        if rnd.random() < 0.3:  # many on one line, as JSON without indentation is written
            lines = [f'"{v}",{rnd.choice([" ", "", "  "])}' for v in values]
        else:
            lines = [f'{indent}"{v}",{rnd.choice(["", "", " "])}\n' for v in values]
        if rnd.random() < 0.2:  # a line inside the run that is not a flow item alone on its line
            lines.insert(rnd.randrange(len(lines)), rnd.choice(["  x,\n", "  'y',\n", '  "z", "w",\n', "\n",
                                                                "  # c\n", '  "v"\n', '  "k": 1,\n']))
        text = before + "".join(lines) + after
        return mutate(text, rnd) if rnd.random() < 0.3 else text
    before, indent, after = rnd.choice(RUN_CONTEXTS)
    plain = [v for v in RUN_VALUES[:9]]
    values = [rnd.choice(plain) if rnd.random() < 0.9 else rnd.choice(RUN_VALUES)
              for _ in range(rnd.randint(RUN_MIN - 3, 3 * RUN_MIN))]
    lines = [f"{indent}- {v}\n" for v in values]
    if rnd.random() < 0.2:  # a line inside the run that is not an item at its indentation
        lines.insert(rnd.randrange(len(lines)), rnd.choice([f"{indent}  more\n", "\n", f"{indent}# c\n",
                                                            f"{indent}-  two spaces\n", f"{indent} - x\n"]))
    text = before + "".join(lines) + after
    if rnd.random() < 0.2:
        text = text.replace("\n", "\r\n")
    if rnd.random() < 0.3:
        text = mutate(text, rnd)
    return text


def test_runs_read_by_a_regular_expression_give_the_same_data_positions_and_failures() -> None:
    """positions_on_demand reads runs of block and flow items without an event per item; for awkward
    inputs of every kind, a caller sees exactly the data, the positions and the failures of
    the event-by-event load."""
    rnd = random.Random(20261203)
    collapsed = fell_back = 0
    for _ in range(1200):
        text = run_document(rnd)
        typed = rnd.random() < 0.7
        whole = load_yaml_text(text, typed=typed)
        on_demand = load_yaml_text(text, typed=typed, positions_on_demand=True)
        assert observed(on_demand) == observed(whole), repr(text)
        if isinstance(whole, Document):
            assert isinstance(on_demand, Document)
            for pointer in list(whole._values) + list(whole._keys):
                assert on_demand.locate(pointer) == whole.locate(pointer), (text, pointer)
                assert on_demand.locate_key(pointer) == whole.locate_key(pointer), (text, pointer)
        was_collapsed = isinstance(on_demand, _PositionsOnDemand)
        collapsed += was_collapsed
        fell_back += not was_collapsed and _collapse(text) is not None
    # Both branches are exercised: runs read by the expression, and runs that were not what they looked like.
    assert collapsed > 150 and fell_back > 300, (collapsed, fell_back)


def test_a_config_of_many_sources_keeps_its_error_positions(tmp_path: Path) -> None:
    """Errors in a config whose sources are read as a run still name the line and column."""
    urls = [f"https://example.org/doc/{i:05}" for i in range(5000)]
    cases = [
        (urls[:2500] + [urls[10]] + urls[2500:], "1:1: sources: ['https://example.org/doc/00000', "),
        (urls[:4000] + ["12"] + urls[4000:], "4002:5: sources.4000 must be a string, not a number ('12')"),
        (urls + ["null"], "5002:5: sources.5000 must be a string, not empty"),
    ]
    for sources, where in cases:
        (tmp_path / "citelint.yaml").write_text("sources:\n" + "".join(f"  - {u}\n" for u in sources) +
                                                "labels: [x]\n", encoding="utf-8")
        run = run_cli("check", cwd=tmp_path)
        assert run.code == 2 and f"config error: citelint.yaml:{where}" in run.err, run.err
