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

JSON is read by the reports' one strict policy
(:func:`citelint.reports.json.strict_json`): duplicate keys, NaN, Infinity,
numbers that overflow, lone surrogate escapes and nesting deeper than
:data:`~citelint.reports.document.MAX_DEPTH` are refused, since a last-wins
duplicate would let one file say two things and a lone surrogate has no
UTF-8 form to count offsets in. Each failure is a
:class:`~citelint.imports.model.ResponseError` whose message starts with
``name:line:col`` (1-based, code points), worded and placed as for reports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from citelint.imports import shape
from citelint.imports.model import ResponseError
from citelint.reports.document import ParseFailure
from citelint.reports.json import EXTRA_DATA, strict_json

_LINE_END = re.compile(r"\r\n|\r|\n")
_SSE_FIELD = re.compile(r"(event|data|id|retry)(?::|$)")


def decode_json(text: str, name: str, line: int = 1, col: int = 1) -> Any:
    """Decode one JSON value that starts at ``line``:``col`` of the file ``name``.

    Raises:
        ResponseError: the value is not JSON, or the strict policy refuses it;
            the message gives the file position of the failure.
    """
    value = strict_json(text, (line, col))
    if isinstance(value, ParseFailure):
        raise _failed(value, name)
    return value


def _failed(failure: ParseFailure, name: str) -> ResponseError:
    """The error of ``failure`` (placed in the file) in the file ``name``."""
    return ResponseError(f"{name}:{failure.line}:{failure.col}: {failure.message}")


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
    whole = strict_json(text)
    if not isinstance(whole, ParseFailure):
        return whole, None
    if stripped[0] not in "{[" and not stripped.startswith('"'):
        return None, [(n, ev, decode_json(body, name, n, c)) for n, c, ev, body in _sse_events(text, name)]
    if whole.message != EXTRA_DATA or not stripped.startswith("{"):
        raise _failed(whole, name)
    events = []
    for number, line in enumerate(_LINE_END.split(text), start=1):
        if line.strip():
            events.append((number, "", decode_json(line, name, number)))
    return None, events
