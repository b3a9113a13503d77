"""Reading a report or config: its bytes, bounded, as strict UTF-8, then loaded by its kind.

:func:`read_source` (or :func:`decode_source` for bytes already read) gives
the bytes and their text; :func:`load_text` the document, by
:mod:`citelint.reports.json` or :mod:`citelint.reports.yaml`; :func:`kind_of`
what a name says the kind is. With those two parsers this is the only code
that reads report or config syntax. A failure is a value
(:class:`~citelint.reports.document.ParseFailure`), not an exception, so
one bad file never stops the others (the driver turns it into a CL001 finding).

Strictness (DESIGN §2.3, §8): input must be UTF-8; duplicate keys, NaN,
Infinity and numbers that overflow to infinity are refused; YAML anchors,
aliases and explicit tags are refused and every YAML scalar stays the string
its author wrote (no YAML 1.1 implicit typing: ``no``, ``2026-07-01`` and
``1:30`` are strings); size and nesting are bounded.
"""

from __future__ import annotations

import os
from pathlib import Path

from citelint import files
from citelint.reports.document import Document, LineIndex, ParseFailure
from citelint.reports.json import LazyDocument, fast_json, load_json_text

MAX_REPORT_BYTES = 10 * 1024 * 1024


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


def load_text(text: str, kind: str, *, typed: bool = False) -> Document | LazyDocument | ParseFailure:
    """Parse ``text`` as ``kind`` (``"json"`` or ``"yaml"``).

    JSON goes through :func:`fast_json` first, so a report whose findings
    need no position costs about one ``json`` C-parse; anything it does not
    vouch for goes to the position-tracking parser, which words the failure.
    """
    if kind == "json":
        return fast_json(text) or load_json_text(text)
    # YAML (and PyYAML) load only for a YAML document.
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
