"""Typed reads of an untrusted response dict, each failure a :class:`ResponseError` with its JSON path.

A saved response is provider (and model) output: any value may have the
wrong type, a bool where an integer belongs, or an offset outside its text.
The adapters read every value they use through these functions, so a bad
value is reported once, with the path of the value (``where``, e.g.
``output[1].content[0].annotations[2].end_index``), and never reaches the
offset arithmetic.
"""

from __future__ import annotations

from typing import Any

from citelint.escape import quoted
from citelint.imports.model import ResponseError

_MISSING = object()


def path(where: str, key: str | int) -> str:
    """The JSON path ``where`` extended by an object ``key`` (``a.b``) or a list index (``a[2]``)."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def kind(value: Any) -> str:
    """The JSON type of ``value`` for a message: ``null``, ``a boolean``, ``a number``, ``a string``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def obj(value: Any, where: str) -> dict[str, Any]:
    """``value`` itself when it is a JSON object.

    Raises:
        ResponseError: any other type (``where`` is its path).
    """
    if not isinstance(value, dict):
        raise ResponseError(f"expected an object at {where or 'the top level'}, found {kind(value)}", where)
    return value


def bodies(response: Any, request: Any) -> None:
    """Check that a saved ``response`` (and ``request``, unless None) is a JSON
    object at its top level, as every adapter's ``answer`` needs first.

    Raises:
        ResponseError: either is another type.
    """
    obj(response, "")
    if request is not None:
        obj(request, "")


def field(parent: dict[str, Any], key: str, where: str, expected: str, *, required: bool = True,
          default: Any = None) -> Any:
    """``parent[key]`` checked to be of type ``expected``: ``"object"``, ``"array"``,
    ``"string"``, ``"int"`` (a JSON integer; booleans and floats refused)
    or ``"bool"``.

    ``where`` is the path of ``parent``. A missing key, or JSON null, gives
    ``default`` unless ``required``.

    Raises:
        ResponseError: the key is missing or null but required, or holds another
            type (``where`` is the path of the key).
    """
    at = path(where, key)
    value = parent.get(key, _MISSING)
    if value is _MISSING or value is None:
        if required:
            raise ResponseError(f"{at} is missing" if value is _MISSING else f"{at} is null", at)
        return default
    ok = {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
    }[expected]
    if not ok:
        article = "an" if expected in ("object", "array", "int") else "a"
        name = "integer" if expected == "int" else expected
        raise ResponseError(f"{at} must be {article} {name}, found {kind(value)}", at)
    return value


def offset(parent: dict[str, Any], key: str, where: str, limit: int, unit: str, *,
           required: bool = True, default: int = 0) -> int:
    """``parent[key]`` as an offset in ``0..limit`` (inclusive: an exclusive end may equal ``limit``).

    ``unit`` names what ``limit`` counts (``"code points"``, ``"UTF-8 bytes"``)
    for the message.

    Raises:
        ResponseError: missing (when ``required``), not an integer, negative
            or past ``limit``.
    """
    value = field(parent, key, where, "int", required=required, default=default)
    at = path(where, key)
    if value < 0:
        raise ResponseError(f"{at} is negative ({value})", at)
    if value > limit:
        raise ResponseError(f"{at} is {value}, past the end of the text ({limit} {unit})", at)
    return value


def span(parent: dict[str, Any], keys: tuple[str, str], where: str, limit: int, unit: str, *,
         start_default: int | None = None) -> tuple[int, int]:
    """The ``(start, end)`` pair at ``parent[keys[0]]``, ``parent[keys[1]]``,
    each checked by :func:`offset`; a missing start is ``start_default``
    when that is given (proto3 JSON omits a zero), else an error.

    Raises:
        ResponseError: as :func:`offset`, or ``start > end`` (``where`` is the end's path).
    """
    start = offset(parent, keys[0], where, limit, unit, required=start_default is None,
                   default=start_default or 0)
    end = offset(parent, keys[1], where, limit, unit)
    if start > end:
        at = path(where, keys[1])
        raise ResponseError(f"{at} ({end}) is before {keys[0]} ({start})", at)
    return start, end


def show(value: str, limit: int = 80) -> str:
    """A provider-supplied string quoted for a message (ASCII, bounded), by :func:`citelint.escape.quoted`."""
    return quoted(value, limit)


def find_listed(value: Any, keys: tuple[str, ...], where: str = "") -> str | None:
    """The JSON path of the first non-empty array held by a key in ``keys``
    anywhere inside ``value`` (depth first, in document order), or None.
    The CLI asks this of a response from which an adapter imported no
    citation, so that citations in a shape it does not read are refused,
    not passed over. Nesting is bounded by the strict JSON reading."""
    if isinstance(value, dict):
        for key, item in value.items():
            at = path(where, key)
            if key in keys and isinstance(item, list) and item:
                return at
            found = find_listed(item, keys, at)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = find_listed(item, keys, path(where, i))
            if found is not None:
                return found
    return None
