"""Reading a config file: its YAML or TOML text parsed with positions, and
the wording of what is wrong with it (DESIGN §2.1). :mod:`citelint.config`
validates and resolves what this reads; every failure here is a
:class:`~citelint.errors.ConfigError` naming the file, the line and the key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from citelint.errors import ConfigError
from citelint.reports.document import ParseFailure, placeholder_prefix, quoted_items, splice_runs
from citelint.reports.loaders import read_source
from citelint.reports.pointers import join as pointer_join
from citelint.reports.quickcheck import all_strings
from citelint.reports.yaml import RUN_MIN, load_yaml_text

PYPROJECT = "pyproject.toml"


def toml_key_line(text: str, key: str) -> int | None:
    """Line where ``key`` is written inside ``[tool.citelint]`` (for messages)."""
    in_table = False
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = bool(re.match(r"\[\s*tool\.citelint\s*[\].]", stripped))
            if in_table and key and re.match(rf"\[\s*tool\.citelint\.{re.escape(key)}\s*\]", stripped):
                return n
            continue
        if in_table and key and re.match(rf"['\"]?{re.escape(key)}['\"]?\s*=", stripped):
            return n
    return None


def yaml_hint(text: str, line: int, problem: str) -> str:
    """A hint for a YAML syntax error at 1-based ``line``: what usually causes ``problem``."""
    lines = text.splitlines()
    above = next((lines[i].strip() for i in range(min(line, len(lines)) - 2, -1, -1)
                  if lines[i].strip() and not lines[i].lstrip().startswith("#")), "")
    if "block sequence" in problem or "block mapping" in problem:
        if re.search(r":\s*(\[\s*\]|\{\s*\})\s*(#.*)?$", above):
            return (f"the key above (`{above.split(':')[0]}`) already has a value (`[]` or `{{}}`), so the "
                    "indented lines cannot belong to it: delete the `[]`/`{}` and keep the items below it")
        return "check the indentation of this line against the lines above it"
    if "'\\t'" in problem or "\\t" in problem:
        return "YAML does not allow tabs for indentation: indent with spaces"
    if "expected ',' or ']'" in problem or "expected ',' or '}'" in problem:
        return "a `[` or `{` is not closed: close it, or write the list one `- item` per line"
    if "found unexpected end of stream" in problem or "while scanning a quoted scalar" in problem:
        return "a quote is not closed"
    if "mapping values are not allowed" in problem:
        return "a value holds `: `: quote the value"
    return "fix the syntax at this position"


#: A TOML array's string item and its comma: a basic string holding no
#: quote, backslash or control character, so it has no escape and its value
#: is its text. A run of them has spaces and newlines between (a lone CR is
#: not TOML: it ends a run rather than being read past); it starts with a
#: literal, which the regular-expression engine finds at C speed.
_TOML_ITEM = '"[^"\\\\\x00-\x1f\x7f]+",'
_TOML_RUN = re.compile(f"{_TOML_ITEM}(?:(?: |\r?\n)*{_TOML_ITEM}){{{RUN_MIN - 1},}}")


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, with runs of :data:`~citelint.reports.yaml.RUN_MIN`
    or more string items and their commas (``"https://...",``, one a line or
    many: a config's 10,000 sources) read by regular expressions rather than
    by tomllib's pure-Python parser.

    Each run is replaced by one item holding a placeholder written nowhere
    in ``text``; found, once, as a list item of what tomllib reads, the
    placeholder was read as a value of an array followed by its comma (in a
    multi-line string, a comment or a key it would not be a whole item),
    and each item of the run reads the same way from the same state of the
    array, so the data are tomllib's with the run's values in its place
    (:func:`~citelint.reports.document.splice_runs`). Any failure or doubt
    loads ``text`` whole: its data, and every error, are tomllib's.

    Raises:
        tomllib.TOMLDecodeError, ValueError: as ``tomllib.loads(text)``.
    """
    import tomllib

    found = list(_TOML_RUN.finditer(text))
    if found:
        marker = placeholder_prefix(text)
        pieces: list[str] = []
        runs: dict[str, list[Any]] = {}
        done = 0
        for n, match in enumerate(found):
            placeholder = f"{marker}{n}"
            runs[placeholder] = quoted_items(match.group())
            pieces += [text[done:match.start()], f'"{placeholder}",']
            done = match.end()
        pieces.append(text[done:])
        try:
            data = splice_runs(tomllib.loads("".join(pieces)), runs)
        except (tomllib.TOMLDecodeError, ValueError):
            data = None  # the whole text gives the error, and its position
        if data is not None:
            return data
    return tomllib.loads(text)


def load_raw(path: Path, shown: str) -> tuple[Any, Any]:
    """Return (data, locator) where locator(pointer, key=False) -> (line, col) | None.
    ``shown`` is how messages name the file."""
    if path.name == PYPROJECT:
        import tomllib

        try:
            text = path.read_text(encoding="utf-8")
            data = toml_loads(text)
        except UnicodeDecodeError:
            raise ConfigError(f"{shown}: not valid UTF-8") from None
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
            if m:
                where = f"{m.group(1)}:{m.group(2)}"
            else:  # "(at end of document)"
                lines = text.splitlines() or [""]
                where = f"{len(lines)}:{len(lines[-1]) + 1}"
            raise ConfigError(f"{shown}:{where}: invalid TOML: {exc}") from None
        except ValueError:
            # tomllib's int() refuses more than 4300 digits (CVE-2020-10735).
            m = re.search(r"^\s*([^=\n]+?)\s*=\s*[-+]?[0-9_]{4301,}", text, re.M)
            where = f"{text.count(chr(10), 0, m.start(1)) + 1}:1: {m.group(1)}: " if m else ""
            raise ConfigError(f"{shown}:{where}a number has too many digits to be a sensible value") from None
        tool = data.get("tool", {})
        table = tool.get("citelint", {}) if isinstance(tool, dict) else None
        if not isinstance(table, dict):
            line = toml_key_line(text, "") or 1
            raise ConfigError(f"{shown}:{line}:1: [tool.citelint] must be a table of keys")

        def toml_locate(pointer: str) -> tuple[int, int] | None:
            parts = pointer.strip("/").split("/")
            line = toml_key_line(text, parts[0]) if parts and parts[0] else None
            return (line, 1) if line else None

        return table, toml_locate

    source = read_source(path)
    if isinstance(source, ParseFailure):
        raise ConfigError(f"{shown}:{source.line}:{source.col}: {source.message}")
    doc = load_yaml_text(source[1], typed=True, positions_on_demand=True)
    if isinstance(doc, ParseFailure):
        message = doc.message
        if message.startswith(("expected", "found", "while", "mapping values", "did not find", "could not")):
            # PyYAML's own wording: say what kind of error it is and what usually causes it.
            message = f"invalid YAML: {message}; {yaml_hint(source[1], doc.line, message)}"
        raise ConfigError(f"{shown}:{doc.line}:{doc.col}: {message}")

    def yaml_locate(pointer: str) -> tuple[int, int] | None:
        pos = doc.locate_key(pointer)
        return pos.line, pos.col

    return ({} if doc.data is None else doc.data), yaml_locate


def schema_error_message(error: Any) -> tuple[str, str]:
    """(pointer, message) for one jsonschema error on the config."""
    pointer = ""
    for token in error.absolute_path:
        pointer = pointer_join(pointer, token)
    key = ".".join(str(t) for t in error.absolute_path) or "(top level)"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        if extra:
            pointer = pointer_join(pointer, extra[0])
            allowed = ", ".join(sorted(error.schema.get("properties", {})))
            where = key + "." + extra[0] if key != "(top level)" else extra[0]
            return pointer, f"unknown key {where!r}; allowed here: {allowed}"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return pointer, (f"{key} must be {' or '.join(YAML_KINDS.get(str(w), str(w)) for w in wanted)}, not "
                         f"{yaml_kind(error.instance)}; see schemas/config.schema.json")
    return pointer, f"{key}: {error.message}"


#: JSON Schema types as a YAML author names them.
YAML_KINDS = {"array": "a list (one `- item` per line)", "object": "a mapping of keys", "string": "a string",
               "boolean": "true or false", "integer": "a whole number", "number": "a number", "null": "empty"}


def yaml_kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    kind = {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number",
            type(None): "empty"}.get(type(value), type(value).__name__)
    return kind if kind in ("a mapping", "a list", "empty") else f"{kind} ({str(value)[:40]!r})"


def non_finite(node: Any) -> tuple[str, float] | None:
    """(JSON Pointer, value) of the first non-finite float (``.inf``, ``.nan``) in the loaded
    config, or None.

    Walked without building a pointer per value: a config with 10,000 sources
    pays for the walk, not for 10,000 pointer strings."""
    if isinstance(node, float):
        return None if math.isfinite(node) else ("", node)
    if isinstance(node, dict):
        items: Iterable[tuple[Any, Any]] = node.items()
    elif isinstance(node, list):
        if all_strings(node, 0):
            return None  # the common case: a list of sources or globs, decided at C speed
        items = enumerate(node)
    else:
        return None
    for key, value in items:
        inner = non_finite(value) if isinstance(value, (float, dict, list)) else None
        if inner is not None:
            return pointer_join("", key) + inner[0], inner[1]
    return None
