"""Strict JSON with a line and column for every JSON Pointer: the one JSON policy.

Reports are read by :func:`fast_json` (the standard library's C decoder,
positions on demand: :class:`LazyDocument`) and, for anything it does not
vouch for, by :func:`load_json_text` (a position-tracking parser, whose
words and positions are the reference); JSON inside saved model responses
is read by :func:`strict_json`, the same way. Strictness (DESIGN §2.3,
§8): duplicate keys, NaN, Infinity, numbers that overflow to infinity or
have more digits than ``int()`` converts, lone surrogate escapes and
nesting deeper than :data:`~citelint.reports.document.MAX_DEPTH` are
refused; a failure is a :class:`~citelint.reports.document.ParseFailure`.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
from typing import Any

from citelint.model import Position
from citelint.reports.document import (
    DEPTH_MESSAGE,
    MAX_DEPTH,
    SURROGATE,
    SURROGATE_MESSAGE,
    Document,
    LineIndex,
    ParseFailure,
    too_deep,
)
from citelint.reports.pointers import join as pointer_join

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = json.scanner.NUMBER_RE
#: The words of a value followed by more text (what tells JSON lines from one JSON value).
EXTRA_DATA = "extra data after the JSON value"


class _Fail(Exception):
    """The position-tracking parser's refusal: its code-point ``index`` in the text, and why."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index
        self.message = message


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
            raise _Fail(i, EXTRA_DATA)
        return value

    def value(self, i: int, ptr: str, depth: int) -> tuple[Any, int]:
        s = self.s
        if i >= len(s):
            raise _Fail(i, "expecting a value, found end of file")
        c = s[i]
        v: Any
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
            v, end = json.decoder.scanstring(self.s, i + 1, True)  # type: ignore[attr-defined]  # not in typeshed
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
            raise _Fail(i, DEPTH_MESSAGE)
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


class _Refused(ValueError):
    """A value the C decoder met that the strict policy refuses: the position-tracking parser words it."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Refused  # a duplicate key
    return out


def _no_constant(name: str) -> Any:
    raise _Refused


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _Refused
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant, parse_float=_finite_float)
#: A \uD800-\uDFFF escape: possibly a lone surrogate, which the position-tracking parser refuses. (Text
#: decoded from UTF-8 holds no surrogate itself: UTF-8 cannot encode one.)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _decoded(text: str) -> Any:
    """The value of ``text`` by the C decoder, when it vouches that the strict
    policy accepts it (no surrogate escape, nothing refused, nesting within bounds).

    Raises:
        ValueError: the decoder does not vouch (a syntax error, a refused value,
            a possible lone surrogate, too deep); the position-tracking parser says why.
    """
    if _SURROGATE_ESCAPE.search(text):
        raise _Refused
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise _Refused from None
    # Nesting deeper than MAX_DEPTH takes more containers than that: a text with fewer
    # opening brackets (in strings too) cannot hold it, and needs no walk.
    if text.count("{") + text.count("[") > MAX_DEPTH and too_deep(value):
        raise _Refused
    return value


def strict_json(text: str, origin: tuple[int, int] = (1, 1)) -> Any:
    """One JSON value of ``text`` (decoded from UTF-8), read by the strict policy.

    The C decoder reads it whenever it can vouch for it; anything else is
    parsed by :func:`load_json_text`, whose failure is returned, placed in
    the file where ``text`` starts at ``origin`` (line, column).

    Returns:
        The value, or a :class:`~citelint.reports.document.ParseFailure`.
        Never raises.
    """
    try:
        return _decoded(text)
    except ValueError:
        pass
    doc = load_json_text(text, origin)
    return doc if isinstance(doc, ParseFailure) else doc.data


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
        return self._lines.span((start, end))

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
            self._facts[index] = Document(None, parser.values, dict(parser.keys), lines.span)
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
        key, i = json.decoder.scanstring(s, i + 1, True)  # type: ignore[attr-defined]  # not in typeshed
        i = _WS.match(s, i).end()  # type: ignore[union-attr]
        i = _WS.match(s, i + 1).end()  # type: ignore[union-attr]  # past ":"
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
    try:
        data = _decoded(text)
    except ValueError:
        return None
    return LazyDocument(data, text) if type(data) is dict else None


def load_json_text(text: str, origin: tuple[int, int] = (1, 1)) -> Document | ParseFailure:
    """Parse JSON ``text`` strictly, recording positions for every pointer.

    ``origin`` is the (line, column) of its file where ``text`` starts (a
    value inside a stream), so that a failure's positions, its own and the
    one its message names, are the file's.

    Returns the :class:`~citelint.reports.document.Document`, or the first
    failure. Never raises.
    """
    parser = _JsonParser(text)
    try:
        data = parser.parse()
    except _Fail as exc:
        # Only the lines up to the failure are counted: a stream framing tried as one
        # JSON value fails at once, and must not pay for the whole file.
        lines = LineIndex(text[:exc.index + 1])

        def place(index: int) -> tuple[int, int]:
            line, col = lines.position(index)
            return origin[0] + line - 1, col + (origin[1] - 1 if line == 1 else 0)

        line, col = place(exc.index)
        message = exc.message
        if message.startswith("duplicate key"):
            first = int(message.split("first at offset ")[1].split(")")[0])
            fl, fc = place(first)
            message = message.replace(f"first at offset {first}", f"first at {fl}:{fc}")
        return ParseFailure(line, col, message)

    return Document(data, parser.values, dict(parser.keys), LineIndex(text).span)
