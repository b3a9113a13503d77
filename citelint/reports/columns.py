"""Where a character of a decoded string value is written in its source (CL104's column).

A finding about a snippet points at its first character that differs from
the capture; that character's column depends on how the report wrote the
string: JSON and YAML escapes take several source characters for one.
"""

from __future__ import annotations

from citelint.model import Position


def _line_at(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text``, without its line break ('' past the end)."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:end if end >= 0 else len(text)].rstrip("\r")


def char_position(text: str, pos: Position, at: int) -> Position:
    """Where character ``at`` (a code-point index into the decoded string) of the
    string value located at ``pos`` is written in ``text``: ``pos`` with its start
    moved there, when the value is on one line as a JSON or YAML double-quoted
    string (backslash escapes read per RFC 8259 §7 and YAML 1.2 §5.7), a YAML
    single-quoted one (``''`` is one quote) or a plain scalar; ``pos`` itself
    otherwise (a block scalar, a value broken across lines, ``at`` past its end).
    """
    if at <= 0:
        return pos
    line = _line_at(text, pos.line)
    i = pos.col - 1
    if i >= len(line):
        return pos
    quote = line[i]
    if quote in "|>":
        return pos
    if quote not in "\"'":
        if pos.end_line not in (None, pos.line) or (pos.end_col is not None and pos.col + at >= pos.end_col):
            return pos
        return Position(pos.line, pos.col + at, pos.end_line, pos.end_col)
    j, n = i + 1, 0
    widths = {"u": 6, "U": 10, "x": 4}
    while j < len(line) and n < at:
        c = line[j]
        if c == quote:
            if quote == "'" and line[j + 1:j + 2] == "'":
                j, n = j + 2, n + 1
                continue
            return pos  # the closing quote: ``at`` is past the end
        if c == "\\" and quote == '"':
            kind = line[j + 1:j + 2]
            step = widths.get(kind, 2)
            if kind == "u" and 0xD800 <= int(line[j + 2:j + 6] or "0", 16) < 0xDC00 \
                    and line[j + 6:j + 8] == "\\u":
                step = 12  # a UTF-16 surrogate pair is one character
            j += step
        else:
            j += 1
        n += 1
    return Position(pos.line, j + 1, pos.end_line, pos.end_col) if n == at and j < len(line) else pos
