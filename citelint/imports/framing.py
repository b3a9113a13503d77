"""The framing of a saved response file, and the strict JSON inside it.

:func:`frames` tells three framings apart by the bytes:

- a **whole JSON value** (the whole response);
- **server-sent events** (WHATWG HTML "Server-sent events" §9.2.6 framing:
  ``event:``, ``data:``, ``id:``, ``retry:`` fields, ``:`` comments, blank
  lines ending an event, LF, CRLF or CR line ends; several ``data:`` lines
  of one event joined by LF; ``data: [DONE]`` ends the stream). The
  pydantic-ai recorder pads some events with spaces inside the JSON; that
  is JSON whitespace and parses. A line that is none of these is an error;
- **one JSON event per line**, as vercel/ai's ``*.chunks.txt`` fixtures
  (a first JSON object followed by more: ``Extra data`` to the decoder).

JSON is read strictly (DESIGN §8) by :func:`decode_json`: duplicate keys,
NaN, Infinity, numbers that overflow and lone surrogate escapes are
refused, since a last-wins duplicate would let one file say two things and
a lone surrogate has no UTF-8 form to count offsets in; nesting deeper than
:data:`MAX_DEPTH` is refused (the C decoder's ``RecursionError`` included).
Each failure is a :class:`~citelint.imports.model.ResponseError` whose
message starts with ``name:line`` and, where one position is to blame,
``:col`` (1-based, code points).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from citelint.imports import shape
from citelint.imports.model import ResponseError

#: The report loader's limit, so a depth refused here is worded with the same number.
MAX_DEPTH = 64

_LINE_END = re.compile(r"\r\n|\r|\n")
_SSE_FIELD = re.compile(r"(event|data|id|retry)(?::|$)")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(ValueError):
    """A JSON value the strict reading refuses (duplicate key, non-finite number)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"duplicate key {shape.show(key)}")
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _finite(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"number {literal[:40]} overflows to infinity")
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_finite)


def _problem(value: Any) -> str | None:
    """Why a decoded JSON value is refused after decoding: containers nested
    deeper than MAX_DEPTH, or a string (or key) holding a lone surrogate
    (a ``\\ud800`` escape with no pair: not Unicode text, and it would make
    every later UTF-8 encoding fail). None when it is fine. Iterative, so no
    recursion limit applies."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"the string {shape.show(item, 40)} holds a lone surrogate escape, which is not Unicode text"
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return f"JSON nested deeper than {MAX_DEPTH} levels"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, (str, dict, list)))
    return None


def decode_json(text: str, name: str, line: int = 1, col: int = 1) -> Any:
    """Decode one JSON value that starts at ``line``:``col`` of the file ``name``.

    Raises:
        ResponseError: bad syntax (with the file position of the error),
            a refused value (with its position), or nesting deeper than
            MAX_DEPTH.
    """
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise _reported(text, name, line, col) or \
            ResponseError(f"{name}:{_where(line, col, exc.lineno, exc.colno)}: not JSON: {exc.msg}") from None
    except _Refused as exc:
        raise _reported(text, name, line, col) or ResponseError(f"{name}:{line}: {exc}") from None
    except RecursionError:
        raise ResponseError(f"{name}:{line}: JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        # int() refuses more than 4300 digits (CVE-2020-10735 guard): the report loader says where.
        raise _reported(text, name, line, col) or \
            ResponseError(f"{name}:{line}: a number has too many digits") from None
    problem = _problem(value)
    if problem:
        raise _reported(text, name, line, col) or ResponseError(f"{name}:{line}: {problem}")
    return value


def _where(line: int, col: int, inner_line: int, inner_col: int) -> str:
    """``line:col`` in the file of position ``inner_line:inner_col`` of a value starting at ``line:col``."""
    return f"{line + inner_line - 1}:{inner_col + (col - 1 if inner_line == 1 else 0)}"


def _reported(text: str, name: str, line: int, col: int) -> ResponseError | None:
    """The error the report loader's position-tracking parser finds in ``text`` (a
    value starting at ``line``:``col`` of ``name``), worded and placed as for reports;
    None when it finds none (a limit only the strict decoding here applies). Run only
    on the error path."""
    from citelint.reports.loaders import ParseFailure, load_json_text

    failure = load_json_text(text)
    if isinstance(failure, ParseFailure):
        return ResponseError(f"{name}:{_where(line, col, failure.line, failure.col)}: {failure.message}")
    return None


def _sse_events(text: str, name: str) -> Iterator[tuple[int, int, str, str]]:
    """(line and column where the event's data starts, event name, data)
    for each event of a server-sent event stream; ``[DONE]`` ends it."""
    lines = _LINE_END.split(text)
    data: list[str] = []
    event, first, col = "", 0, 1
    for number, line in enumerate(lines + [""], start=1):
        if line == "":
            if data:
                body = "\n".join(data)
                if body.strip() == "[DONE]":
                    return
                yield first, col, event, body
            data, event = [], ""
            continue
        if line.startswith(":"):
            continue
        match = _SSE_FIELD.match(line)
        if not match:
            raise ResponseError(f"{name}:{number}: not a server-sent event line (event:, data:, id:, retry: "
                                f"or a : comment): {shape.show(line, 60)}")
        skip = match.end() + (1 if line[match.end():].startswith(" ") else 0)
        value = line[skip:]
        if match.group(1) == "data":
            if not data:
                first, col = number, skip + 1
            data.append(value)
        elif match.group(1) == "event":
            event = value


def frames(text: str, name: str) -> tuple[Any, list[tuple[int, str, Any]] | None]:
    """The content of the file ``name`` (decoded ``text``): either (the whole
    JSON value, None) or (None, [(line, event name or '', event value)...]).

    Raises:
        ResponseError: an empty file, bad framing or bad JSON (the message
            names the line).
    """
    stripped = text.lstrip()
    if not stripped:
        raise ResponseError(f"{name}: empty file, no response")
    try:
        whole = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        if stripped[0] not in "{[" and not stripped.startswith('"'):
            return None, [(n, ev, decode_json(body, name, n, c)) for n, c, ev, body in _sse_events(text, name)]
        if exc.msg != "Extra data" or not stripped.startswith("{"):
            return decode_json(text, name, 1), None  # raises, with the position
    except (ValueError, RecursionError):  # _Refused, or int()'s digit limit
        return decode_json(text, name, 1), None
    else:
        problem = _problem(whole)
        if problem:
            raise _reported(text, name, 1, 1) or ResponseError(f"{name}: {problem}")
        return whole, None
    events = []
    for number, line in enumerate(_LINE_END.split(text), start=1):
        if line.strip():
            events.append((number, "", decode_json(line, name, number)))
    return None, events
