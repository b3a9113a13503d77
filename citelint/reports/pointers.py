"""JSON Pointers (RFC 6901): building, splitting and resolving them.

Every position citelint reports in a JSON or YAML document is found through
a pointer, so loaders, the schema messages, the config and the fact rules
share these helpers.
"""

from __future__ import annotations

import re

#: RFC 6901 §4: an array index is ``0`` or ASCII digits without a leading zero.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")

#: Returned by :func:`resolve` when no value sits at the pointer.
MISSING = object()


def join(base: str, token: str | int) -> str:
    """Append one reference token to a JSON Pointer, escaping ``~`` and ``/`` (RFC 6901 §3)."""
    return f"{base}/{str(token).replace('~', '~0').replace('/', '~1')}"


def tokens(pointer: str) -> list[str]:
    """Split a JSON Pointer into unescaped tokens (RFC 6901 §4); ``""`` is the whole document."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def resolve(data: object, pointer: str) -> object:
    """The value at ``pointer`` in ``data`` (nested dicts and lists), or :data:`MISSING`."""
    node = data
    for token in tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and _ARRAY_INDEX.fullmatch(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node
