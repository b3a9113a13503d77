"""Strict JSON loading with a line and column for every JSON Pointer, the
bounded reading of reports, and the one entry point for every report format.

With :mod:`citelint.reports.yaml` (YAML), this is the only code that parses
report or config syntax. A failure is a value (:class:`ParseFailure`), not an
exception, so one bad file never stops the others (the driver turns it into
a CL001 finding).

Strictness (DESIGN §2.3, §8): input must be UTF-8; duplicate keys, NaN,
Infinity and numbers that overflow to infinity are refused; YAML anchors,
aliases and explicit tags are refused and every YAML scalar stays the string
its author wrote (no YAML 1.1 implicit typing: ``no``, ``2026-07-01`` and
``1:30`` are strings); size and nesting are bounded.

Columns count Unicode code points, 1-based (SARIF ``unicodeCodePoints``).
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import os
import re
from pathlib import Path
from typing import Any, Callable, NamedTuple

from citelint import files
from citelint.model import Position
from citelint.reports.pointers import join as pointer_join

MAX_REPORT_BYTES = 10 * 1024 * 1024
MAX_DEPTH = 64

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = json.scanner.NUMBER_RE
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_MESSAGE = ("the string holds a lone surrogate (an escape such as \\ud800 with no pair), which is not "
                      "Unicode text; remove it or write the character itself")


class ParseFailure(NamedTuple):
    """Why a document could not be loaded, and where (1-based line, code-point column)."""

    line: int
    col: int
    message: str


class _Fail(Exception):
    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index
        self.message = message


class LineIndex:
    """Maps code-point offsets in a text to 1-based (line, column)."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def position(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, index) - 1
        return line + 1, index - self.starts[line] + 1


class Document:
    """A loaded document: ``data`` plus positions by JSON Pointer.

    ``locate(pointer)`` gives the value's position (for an object, its opening
    brace); ``locate_key(pointer)`` gives the position of the key that holds
    it, falling back to the value. Unknown pointers fall back to the nearest
    known ancestor, and finally to 1:1.
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


# --------------------------------------------------------------------------- bytes

def decode_utf8(raw: bytes) -> str | ParseFailure:
    """Decode ``raw`` by :func:`citelint.files.decode_utf8` (strict UTF-8,
    one leading BOM dropped).

    Returns the text, or a ParseFailure at the first invalid byte (its line
    and column counted in the valid prefix).
    """
    try:
        return files.decode_utf8(raw)
    except UnicodeDecodeError as exc:
        prefix = raw[: exc.start].decode("utf-8", "replace")
        line, col = LineIndex(prefix).position(len(prefix))
        return ParseFailure(line, col, f"file is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset "
                                       f"{exc.start} ({exc.reason}); save it as UTF-8")


def read_bounded(path: Path, limit: int = MAX_REPORT_BYTES) -> bytes | ParseFailure:
    """Read the regular file ``path`` (symlinks followed), at most ``limit``
    bytes; a larger file is a ParseFailure.

    Raises:
        OSError: the file cannot be opened or read, or is not a regular file
            (:class:`citelint.files.NotRegularFile`, ``strerror`` "not a
            regular file": a FIFO is refused, never waited on).
    """
    try:
        return files.read_regular(path, limit)
    except files.FileTooLarge:
        return ParseFailure(1, 1, f"file is larger than {limit} bytes; split the report")


# --------------------------------------------------------------------------- JSON

class _JsonParser:
    """Recursive-descent JSON (RFC 8259) built on the standard library's own
    string scanner and number pattern, recording each value's offsets."""

    def __init__(self, text: str):
        self.s = text
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, int] = {}

    def ws(self, i: int) -> int:
        return _WS.match(self.s, i).end()  # type: ignore[union-attr]

    def parse(self) -> Any:
        i = self.ws(0)
        value, i = self.value(i, "", 1)
        i = self.ws(i)
        if i != len(self.s):
            raise _Fail(i, "extra data after the JSON value")
        return value

    def value(self, i: int, ptr: str, depth: int) -> tuple[Any, int]:
        s = self.s
        if i >= len(s):
            raise _Fail(i, "expecting a value, found end of file")
        c = s[i]
        if c == '"':
            v, end = self.string(i)
        elif c == "{":
            v, end = self.obj(i, ptr, depth)
        elif c == "[":
            v, end = self.arr(i, ptr, depth)
        elif s.startswith("true", i):
            v, end = True, i + 4
        elif s.startswith("false", i):
            v, end = False, i + 5
        elif s.startswith("null", i):
            v, end = None, i + 4
        elif s.startswith(("NaN", "Infinity", "-Infinity"), i):
            raise _Fail(i, "NaN and Infinity are not JSON; write the number inside a snippet or nowhere")
        else:
            m = _NUMBER.match(s, i)
            if not m:
                raise _Fail(i, "expecting a value")
            integer, frac, exp = m.groups()
            end = m.end()
            if frac or exp:
                v = float(m.group())
                if v in (float("inf"), float("-inf")):
                    raise _Fail(i, f"number {m.group()} overflows to infinity")
            else:
                try:
                    v = int(integer)
                except ValueError:
                    raise _Fail(i, "integer has too many digits") from None
        self.values[ptr] = (i, end)
        return v, end

    def string(self, i: int) -> tuple[str, int]:
        """The JSON string whose opening quote is at ``i``, and the index after it."""
        try:
            v, end = json.decoder.scanstring(self.s, i + 1, True)
        except json.JSONDecodeError as exc:
            raise _Fail(exc.pos, exc.msg.lower()) from None
        if SURROGATE.search(v):
            # "\ud800" escapes decode to a lone surrogate: not Unicode text, and
            # no output format could carry it.
            raise _Fail(i, SURROGATE_MESSAGE)
        return v, end

    def enter(self, i: int, depth: int, close: str) -> tuple[int, bool]:
        """Enter the object or array whose opening bracket is at ``i``:
        the index of its first token, and whether ``close`` is that token."""
        if depth > MAX_DEPTH:
            raise _Fail(i, f"nesting deeper than {MAX_DEPTH} levels")
        i = self.ws(i + 1)
        return i, self.s.startswith(close, i)

    def after_member(self, i: int, close: str) -> tuple[int, bool]:
        """Past one member at ``i``: the index after ``close`` and True when
        the container ends there, else the next member's index and False."""
        i = self.ws(i)
        if self.s.startswith(close, i):
            return i + 1, True
        if not self.s.startswith(",", i):
            raise _Fail(i, f"expecting ',' or '{close}'")
        return self.ws(i + 1), False

    def obj(self, i: int, ptr: str, depth: int) -> tuple[dict[str, Any], int]:
        s = self.s
        out: dict[str, Any] = {}
        i, empty = self.enter(i, depth, "}")
        if empty:
            return out, i + 1
        while True:
            if i >= len(s) or s[i] != '"':
                raise _Fail(i, "expecting a property name in double quotes")
            key_at = i
            key, i = self.string(i)
            if key in out:
                first = self.keys[pointer_join(ptr, key)]
                raise _Fail(key_at, f"duplicate key {key!r} (first at offset {first}); keep one")
            child = pointer_join(ptr, key)
            self.keys[child] = key_at
            i = self.ws(i)
            if i >= len(s) or s[i] != ":":
                raise _Fail(i, "expecting ':' after the property name")
            i = self.ws(i + 1)
            out[key], i = self.value(i, child, depth + 1)
            i, done = self.after_member(i, "}")
            if done:
                return out, i

    def arr(self, i: int, ptr: str, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        i, empty = self.enter(i, depth, "]")
        if empty:
            return out, i + 1
        while True:
            v, i = self.value(i, pointer_join(ptr, len(out)), depth + 1)
            out.append(v)
            i, done = self.after_member(i, "]")
            if done:
                return out, i


class _NotFast(Exception):
    """The fast JSON path does not vouch for this input; use the full parser."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _NotFast  # a duplicate key: the full parser says where
    return out


def _no_constant(name: str) -> Any:
    raise _NotFast


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _NotFast
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant, parse_float=_finite_float)
#: A \uD800-\uDFFF escape: possibly a lone surrogate, which the full parser refuses.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _depth(value: Any) -> int:
    """Nesting depth of a decoded JSON value (a string or number is 0)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_STR_ONLY = frozenset({str})


def _too_deep(value: Any, depth: int) -> bool:
    """True when ``value``, sitting at nesting ``depth`` (the top level is
    1), holds a container deeper than MAX_DEPTH, as the full parser counts."""
    kind = type(value)
    if kind is dict:
        if set(map(type, value.values())) <= _STR_ONLY:  # a fact as the schema allows it
            return depth > MAX_DEPTH
    elif kind is not list:
        return False
    return depth + _depth(value) - 1 > MAX_DEPTH


class LazyDocument:
    """A JSON report parsed by the C ``json`` module, with positions on demand.

    A fact's span is found by walking the facts array only as far as the
    fact asked for (each element decoded by the C scanner), and the
    positions inside a fact by running the position-tracking parser over
    that fact alone; only a pointer outside the facts array parses the whole
    document again. So a clean report costs about one C parse, and a report
    of a million junk facts pays only for the findings it shows. Same
    interface as :class:`Document`.
    """

    def __init__(self, data: Any, text: str, spans: dict[str, tuple[int, int]] | None = None):
        self.data, self.text = data, text
        self.spans: dict[str, tuple[int, int]] = {} if spans is None else spans
        self._full: Document | None = None
        self._lines: LineIndex | None = None
        self._cursor: tuple[int, int] | None = None
        self._facts: dict[int, Document] = {}

    def _position(self, start: int, end: int) -> Position:
        if self._lines is None:
            self._lines = LineIndex(self.text)
        line, col = self._lines.position(start)
        end_line, end_col = self._lines.position(end)
        return Position(line, col, end_line, end_col)

    def full(self) -> Document:
        """The fully positioned document (parsed on first use)."""
        if self._full is None:
            doc = load_json_text(self.text)
            # fast_json accepts only what the full parser accepts.
            assert isinstance(doc, Document), doc
            self._full = doc
        return self._full

    def _span(self, index: int) -> tuple[int, int] | None:
        """Start and end offsets of ``/facts/<index>``, walking the array as far as needed."""
        key = f"/facts/{index}"
        if key in self.spans or self._cursor == (-1, -1):
            return self.spans.get(key)
        s = self.text
        if self._cursor is None:
            start = _facts_array_start(s)
            if start is None:
                self._cursor = (-1, -1)
                return None
            self._cursor = (0, _WS.match(s, start + 1).end())  # type: ignore[union-attr]
        n, i = self._cursor
        while n <= index:
            if s.startswith("]", i):
                self._cursor = (-1, -1)
                break
            _, end = _DECODER.raw_decode(s, i)
            self.spans[f"/facts/{n}"] = (i, end)
            i = _WS.match(s, end).end()  # type: ignore[union-attr]
            if s.startswith(",", i):
                i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
            n += 1
            self._cursor = (n, i)
        return self.spans.get(key)

    @staticmethod
    def _fact_of(pointer: str) -> int | None:
        """The index ``i`` when ``pointer`` is ``/facts/<i>`` or under it."""
        if not pointer.startswith("/facts/"):
            return None
        head = pointer[7:].split("/", 1)[0]
        if not (head.isdigit() and head.isascii()) or (len(head) > 1 and head[0] == "0"):
            return None
        return int(head)

    def _in_fact(self, pointer: str) -> tuple[int, Document] | None:
        """(index, positions within that fact) for a pointer under ``/facts/<i>``."""
        index = self._fact_of(pointer)
        if index is None:
            return None
        if index not in self._facts:
            span = self._span(index)
            if span is None:
                return None
            parser = _JsonParser(self.text)
            parser.value(span[0], f"/facts/{index}", 3)
            lines = self._lines or LineIndex(self.text)
            self._lines = lines
            self._facts[index] = Document(None, parser.values, dict(parser.keys), _to_pos(lines))
        return index, self._facts[index]

    def locate(self, pointer: str) -> Position:
        """Position of the value at ``pointer``."""
        index = self._fact_of(pointer)
        if index is not None and pointer == f"/facts/{index}":
            span = self._span(index)
            if span is not None:
                return self._position(*span)
        found = self._in_fact(pointer)
        if found is None:
            return self.full().locate(pointer)
        return found[1].locate(pointer)

    def locate_key(self, pointer: str) -> Position:
        """Position of the key whose value is at ``pointer`` (or of the value)."""
        found = self._in_fact(pointer)
        if found is None or pointer == f"/facts/{found[0]}":
            return self.full().locate_key(pointer)
        return found[1].locate_key(pointer)


def _facts_array_start(s: str) -> int | None:
    """Offset of the ``[`` of the top-level ``facts`` array, or None."""
    i = _WS.match(s, 0).end()  # type: ignore[union-attr]
    if not s.startswith("{", i):
        return None
    i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
    while s.startswith('"', i):
        key, i = json.decoder.scanstring(s, i + 1, True)
        i = _WS.match(s, i).end()  # type: ignore[union-attr]
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]  (past ":")
        if key == "facts":
            return i if s.startswith("[", i) else None
        _, i = _DECODER.raw_decode(s, i)
        i = _WS.match(s, i).end()  # type: ignore[union-attr]
        if not s.startswith(",", i):
            return None
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]
    return None


def fast_json(text: str) -> LazyDocument | None:
    """Parse a JSON report with the standard library's C decoder.

    Returns None, and the caller uses :func:`load_json_text`, whenever the
    input is anything the full parser would refuse or word differently:
    a syntax error, a duplicate key, NaN or Infinity, a number that
    overflows or has too many digits, a possible lone surrogate, nesting
    deeper than ``MAX_DEPTH``, or a top level that is not an object.
    """
    if _SURROGATE_ESCAPE.search(text):
        return None
    try:
        data = _DECODER.decode(text)
    except (_NotFast, ValueError, RecursionError):
        return None
    if type(data) is not dict:
        return None
    for key, value in data.items():
        if key == "facts" and type(value) is list:
            if any(_too_deep(v, 3) for v in value):
                return None
        elif _too_deep(value, 2):
            return None
    return LazyDocument(data, text)


def load_json_text(text: str) -> Document | ParseFailure:
    """Parse JSON ``text`` strictly, recording positions for every pointer."""
    parser = _JsonParser(text)
    lines = LineIndex(text)
    try:
        data = parser.parse()
    except _Fail as exc:
        line, col = lines.position(exc.index)
        message = exc.message
        if message.startswith("duplicate key"):
            first = int(message.split("first at offset ")[1].split(")")[0])
            fl, fc = lines.position(first)
            message = message.replace(f"first at offset {first}", f"first at {fl}:{fc}")
        return ParseFailure(line, col, message)

    return Document(data, parser.values, dict(parser.keys), _to_pos(lines))


def _to_pos(lines: LineIndex) -> Callable[[Any], Position]:
    """Turn the JSON parser's recorded offsets (a start, or (start, end)) into Positions."""
    def to_pos(entry: Any) -> Position:
        start, end = entry if isinstance(entry, tuple) else (entry, None)
        line, col = lines.position(start)
        if end is None:
            return Position(line, col)
        el, ec = lines.position(end)
        return Position(line, col, el, ec)
    return to_pos


# --------------------------------------------------------------------------- YAML

def load_text(text: str, kind: str, *, typed: bool = False) -> Document | LazyDocument | ParseFailure:
    """Parse ``text`` as ``kind`` (``"json"`` or ``"yaml"``).

    JSON goes through :func:`fast_json` first, so a report whose findings
    need no position costs about one ``json`` C-parse; anything it does not
    vouch for goes to the position-tracking parser, which words the failure.
    """
    if kind == "json":
        return fast_json(text) or load_json_text(text)
    # YAML (and PyYAML) load only for a YAML document; yamldoc builds on this module.
    from citelint.reports.yaml import load_yaml_text

    return load_yaml_text(text, typed=typed)


_KINDS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown", ".markdown": "markdown"}


def kind_of(path: Path | str) -> str | None:
    """``"json"``, ``"yaml"`` or ``"markdown"`` from the suffix of the last
    component of ``path`` (case-insensitive), else None.

    The suffix is ``PurePath.suffix``'s (the name from its last dot, when
    that dot is neither first nor last, so ``.json`` alone is a name, not a
    suffix), read from the string without building a path object per call.
    """
    text = os.fspath(path).rstrip(os.sep)
    name = text[text.rfind(os.sep) + 1:]
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        return _KINDS.get(name[dot:].lower())
    return None


def decode_source(raw: bytes, limit: int = MAX_REPORT_BYTES) -> tuple[bytes, str] | ParseFailure:
    """:func:`read_source` for bytes already read (a report on standard input)."""
    if len(raw) > limit:
        return ParseFailure(1, 1, f"file is larger than {limit} bytes; split the report")
    text = decode_utf8(raw)
    if isinstance(text, ParseFailure):
        return text
    return raw, text


def read_source(path: Path, limit: int = MAX_REPORT_BYTES) -> tuple[bytes, str] | ParseFailure:
    """Read a report (fact or Markdown) or config: the raw bytes and their
    strict UTF-8 text (one leading BOM dropped), at most ``limit`` bytes.

    Returns a ParseFailure, never raises, when the file cannot be read, is
    not a regular file (a FIFO is refused, never waited on), is too large or
    is not UTF-8.
    """
    try:
        raw = read_bounded(path, limit)
    except OSError as exc:
        return ParseFailure(1, 1, f"cannot read the file: {exc.strerror or exc}")
    if isinstance(raw, ParseFailure):
        return raw
    text = decode_utf8(raw)
    if isinstance(text, ParseFailure):
        return text
    return raw, text


def load_file(path: Path, *, typed: bool = False) -> Document | LazyDocument | ParseFailure:
    """Read, bound, decode and parse a JSON or YAML file (never raises)."""
    source = read_source(path)
    if isinstance(source, ParseFailure):
        return source
    return load_text(source[1], kind_of(path) or "json", typed=typed)
