"""Strict YAML loading with a line and column for every JSON Pointer.

Reports and the config may be YAML. It is read through PyYAML's events with
no implicit typing for reports (every scalar is the string its author wrote:
``no``, ``2026-07-01`` and ``1:30`` stay strings) and the YAML 1.2 core
schema for the config; anchors, aliases, explicit tags, duplicate keys,
control characters, lone surrogates and nesting deeper than ``MAX_DEPTH``
are refused (DESIGN §2.3, §8). A failure is a :class:`ParseFailure` value.
"""

from __future__ import annotations

import re
from typing import Any

from citelint.loaders import _SURROGATE, _SURROGATE_MESSAGE, MAX_DEPTH, Document, ParseFailure, _LineIndex
from citelint.model import Position
from citelint.pointers import join as pointer_join, tokens as pointer_tokens


_CORE_NULL = re.compile(r"null|Null|NULL|~|")
_CORE_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN")


def _core_scalar(value: str) -> Any:
    """Resolve a plain scalar by the YAML 1.2 core schema (§10.3.2), never 1.1."""
    if _CORE_NULL.fullmatch(value):
        return None
    if _CORE_BOOL.fullmatch(value):
        return value.lower() == "true"
    if _CORE_INT.fullmatch(value):
        if value.startswith(("0o", "0x")):
            return int(value[2:], 8 if value[1] == "o" else 16)
        return int(value)
    if _CORE_FLOAT.fullmatch(value):
        return float(value.replace("inf", "Inf").replace("INF", "Inf").replace(".Inf", "inf")
                     .replace(".nan", "nan").replace(".NaN", "nan").replace(".NAN", "nan"))
    return value


def load_yaml_text(text: str, *, typed: bool = False) -> Document | ParseFailure:
    """Parse one YAML document strictly, recording positions for every pointer.

    With ``typed=False`` (reports) every scalar is the string as written.
    With ``typed=True`` (configuration) plain scalars follow the YAML 1.2
    core schema: ``true``/``false``, integers, floats and ``null``; ``no``,
    ``on`` and dates stay strings.
    """
    import yaml  # lazy: a JSON-only run never pays for it

    values: dict[str, Any] = {}
    keys: dict[str, Any] = {}
    # PyYAML also breaks lines at U+0085, U+2028 and U+2029; editors and
    # GitHub do not, so positions come from the marks' code-point index.
    lines = _LineIndex(text)

    def at(mark: Any) -> tuple[int, int]:
        return lines.position(mark.index)

    class Loader(yaml.BaseLoader):
        pass

    def fail(mark: Any, message: str) -> None:
        raise yaml.MarkedYAMLError(problem=message, problem_mark=mark)

    def build(ptr: str, depth: int) -> Any:
        loader = state["loader"]
        event = loader.peek_event()
        if isinstance(event, yaml.AliasEvent):
            fail(event.start_mark, "YAML aliases are not allowed in a report; write the value out")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            fail(event.start_mark, f"YAML anchors are not allowed in a report (&{anchor}); remove it")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!":
            fail(event.start_mark, f"explicit YAML tags are not allowed ({tag}); remove it")
        if depth > MAX_DEPTH:
            fail(event.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(event, yaml.ScalarEvent):
            if _SURROGATE.search(event.value):
                fail(event.start_mark, _SURROGATE_MESSAGE)
            loader.get_event()
            values[ptr] = (event.start_mark, event.end_mark)
            plain = event.style is None and event.implicit[0]
            if not (typed and plain):
                return event.value
            try:
                return _core_scalar(event.value)
            except ValueError:  # more digits than int() converts (CVE-2020-10735 limit)
                fail(event.start_mark, f"{'.'.join(pointer_tokens(ptr))}: the number {event.value[:20]}… has "
                                       f"{len(event.value)} digits, too many to be a sensible value")
        if isinstance(event, yaml.SequenceStartEvent):
            loader.get_event()
            out: list[Any] = []
            while not loader.check_event(yaml.SequenceEndEvent):
                out.append(build(pointer_join(ptr, len(out)), depth + 1))
            end = loader.get_event()
            values[ptr] = (event.start_mark, end.end_mark)
            return out
        if isinstance(event, yaml.MappingStartEvent):
            loader.get_event()
            mapping: dict[str, Any] = {}
            while not loader.check_event(yaml.MappingEndEvent):
                key_event = loader.peek_event()
                if not isinstance(key_event, yaml.ScalarEvent):
                    if isinstance(key_event, yaml.AliasEvent):
                        fail(key_event.start_mark, "YAML aliases are not allowed in a report")
                    fail(key_event.start_mark, "mapping keys must be plain strings")
                key = build("\x00key", depth + 1)
                if not isinstance(key, str):
                    key = key_event.value
                child = pointer_join(ptr, key)
                if key in mapping:
                    fl, fc = at(keys[child])
                    fail(key_event.start_mark, f"duplicate key {key!r} (first at {fl}:{fc}); keep one")
                keys[child] = key_event.start_mark
                mapping[key] = build(child, depth + 1)
            end = loader.get_event()
            values[ptr] = (event.start_mark, end.end_mark)
            return mapping
        fail(event.start_mark, f"unexpected YAML event {type(event).__name__}")
        return None  # unreachable

    try:
        loader = Loader(text)
    except yaml.reader.ReaderError as exc:
        # Raised before parsing: the reader refuses control characters outright.
        line, col = _LineIndex(text).position(exc.position)
        return ParseFailure(line, col, f"character U+{exc.character:04X} is not allowed in YAML; remove it "
                                       "or write it as an escape inside a double-quoted string")
    state = {"loader": loader}
    try:
        loader.get_event()  # StreamStart
        if loader.check_event(yaml.StreamEndEvent):
            data: Any = None
        else:
            loader.get_event()  # DocumentStart
            data = build("", 1)
            loader.get_event()  # DocumentEnd
            if not loader.check_event(yaml.StreamEndEvent):
                extra = loader.peek_event()
                fail(extra.start_mark, "more than one YAML document; a report is one document")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = (exc.problem or exc.context or "invalid YAML").strip()
        if mark is None:
            return ParseFailure(1, 1, message)
        return ParseFailure(*at(mark), message)
    except yaml.YAMLError as exc:
        return ParseFailure(1, 1, f"invalid YAML: {exc}")
    except RecursionError:
        return ParseFailure(1, 1, f"nesting deeper than {MAX_DEPTH} levels")
    finally:
        loader.dispose()
    values.pop("\x00key", None)

    def to_pos(entry: Any) -> Position:
        if isinstance(entry, tuple):
            start, end = entry
            return Position(*at(start), *at(end))
        return Position(*at(entry))

    return Document(data, values, keys, to_pos)
