"""The strict document layer both report parsers share: a loaded document, a failure, positions.

:mod:`citelint.reports.json` and :mod:`citelint.reports.yaml` parse; both
give a :class:`Document` (data plus positions by JSON Pointer) or a
:class:`ParseFailure` (a value, never an exception, so one bad file never
stops the others), refuse nesting deeper than :data:`MAX_DEPTH` and lone
surrogates with the same words, and count positions alike (:class:`LineIndex`):
1-based lines broken at ``\\n``, ``\\r\\n`` and ``\\r`` only, columns in
Unicode code points (SARIF ``unicodeCodePoints``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from citelint.model import Position

#: Containers nested deeper than this (the top level is 1) are refused, in every format, in these words.
MAX_DEPTH = 64
DEPTH_MESSAGE = f"nesting deeper than {MAX_DEPTH} levels"

SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_MESSAGE = ("the string holds a lone surrogate (an escape such as \\ud800 with no pair), which is not "
                     "Unicode text; remove it or write the character itself")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTAINERS = (dict, list)
_SCALARS = frozenset({str, int, float, bool, type(None)})


class ParseFailure(NamedTuple):
    """Why a document could not be loaded, and where (1-based line, code-point column)."""

    line: int
    col: int
    message: str


class LineIndex:
    """Maps code-point offsets in a text to 1-based (line, column)."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def position(self, index: int) -> tuple[int, int]:
        """(line, column) of the code point at ``index`` (the end of the text included)."""
        line = bisect.bisect_right(self.starts, index) - 1
        return line + 1, index - self.starts[line] + 1

    def span(self, entry: int | tuple[int, int]) -> Position:
        """The :class:`Position` of an offset, or of a (start, end) pair of offsets."""
        start, end = entry if isinstance(entry, tuple) else (entry, None)
        line, col = self.position(start)
        if end is None:
            return Position(line, col)
        return Position(line, col, *self.position(end))


class Document:
    """A loaded document: ``data`` plus positions by JSON Pointer.

    ``values`` and ``keys`` map a pointer to what its parser recorded for the
    value and for the key holding it (offsets, or a parser's marks), which
    ``to_pos`` turns into a :class:`Position`. ``locate(pointer)`` gives the
    value's position (for an object, its opening brace); ``locate_key(pointer)``
    gives the position of the key that holds it, falling back to the value.
    Unknown pointers fall back to the nearest known ancestor, and finally to 1:1.
    """

    def __init__(self, data: Any, values: dict[str, Any] | None = None, keys: dict[str, Any] | None = None,
                 to_pos: Callable[[Any], Position] | None = None):
        self.data = data
        self._values: dict[str, Any] = {} if values is None else values
        self._keys: dict[str, Any] = {} if keys is None else keys
        self._to_pos = to_pos

    def _find(self, table: dict[str, Any], pointer: str) -> Position:
        probe = pointer
        while True:
            if probe in table:
                assert self._to_pos is not None
                return self._to_pos(table[probe])
            if probe in self._values:
                assert self._to_pos is not None
                return self._to_pos(self._values[probe])
            if not probe:
                return Position(1, 1)
            probe = probe.rsplit("/", 1)[0]

    def locate(self, pointer: str) -> Position:
        """Position of the value at ``pointer``."""
        return self._find(self._values, pointer)

    def locate_key(self, pointer: str) -> Position:
        """Position of the key whose value is at ``pointer`` (or of the value)."""
        return self._find(self._keys, pointer)


def placeholder_prefix(text: str) -> str:
    """A prefix of letters and underscores written nowhere in ``text``: the
    placeholders a run of items is replaced by (prefix and a number) are
    then written nowhere in it either, and a plain scalar or a basic string."""
    prefix = "citelint_collapsed_"
    while prefix in text:
        prefix += "_"
    return prefix


_QUOTED_ITEM = re.compile('"([^"]*)",')


def quoted_items(run: str) -> list[str]:
    """The values of ``run``: items ``"value",`` (no value holding a quote)
    with white space between them, as a YAML flow sequence or a TOML array
    writes them one a line. One ``split`` when the space between items is
    the same throughout (the usual case), a regular expression otherwise."""
    end = run.find('",')
    values = run[1:-2].split(run[end:run.find('"', end + 2) + 1])
    # Each value adds two quotes: fewer values than that means unequal space between some items.
    return values if run.count('"') == 2 * len(values) else _QUOTED_ITEM.findall(run)


def splice_runs(data: Any, runs: dict[str, list[Any]]) -> Any:
    """``data``, loaded from a text in which each run of list items was
    replaced by one placeholder item (a string written nowhere else), with
    each placeholder item replaced by its run's values, in place of it.

    ``runs`` maps each placeholder to its values; it is emptied as they are
    found. Returns None when a placeholder is anywhere but an item of a list
    (a key, a mapping's value, inside no list), or is not found, once: the
    text then did not read as the runs assumed, and the caller loads it whole.
    Walks only what the parser built (the runs themselves are not walked).
    """
    missing = object()

    def walk(node: Any) -> Any:
        if type(node) is list:
            out: list[Any] = []
            for item in node:
                if type(item) is str and item in runs:
                    out += runs.pop(item)
                elif type(item) in _CONTAINERS:
                    inner = walk(item)
                    if inner is missing:
                        return missing
                    out.append(inner)
                else:
                    out.append(item)
            return out
        if type(node) is dict:
            mapping: dict[Any, Any] = {}
            for key, value in node.items():
                if key in runs or (type(value) is str and value in runs):
                    return missing
                inner = walk(value) if type(value) in _CONTAINERS else value
                if inner is missing:
                    return missing
                mapping[key] = inner
            return mapping
        return missing if type(node) is str and node in runs else node

    spliced = walk(data)
    return None if runs or spliced is missing else spliced


def too_deep(value: Any, depth: int = 1) -> bool:
    """True when ``value``, sitting at nesting ``depth`` (the top level is 1),
    is or holds a container deeper than :data:`MAX_DEPTH`, as the parsers count.

    For values a decoder made without counting (the C ``json`` decoder).
    Iterative, so no recursion limit applies; a container holding only
    scalars (a fact, as the schema allows it) is decided by one set test.
    """
    if type(value) not in _CONTAINERS:
        return False
    stack = [(value, depth)]
    while stack:
        item, at = stack.pop()
        if at > MAX_DEPTH:
            return True
        children = item.values() if type(item) is dict else item
        if _SCALARS.issuperset(map(type, children)):
            continue
        stack.extend((child, at + 1) for child in children if type(child) in _CONTAINERS)
    return False
