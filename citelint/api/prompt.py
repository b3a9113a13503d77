"""The prompt and the answer from Python: :meth:`citelint.Project.context`
(the permissible sources, as ``citelint context`` prints them) and
:meth:`~citelint.Project.import_response` (a model's cited answer as a
report's text, as ``citelint import`` writes it), and the frozen dataclasses
they return, :class:`Context` and :class:`Imported`.

Both run the functions their commands run (:func:`citelint.context.build`,
:func:`citelint.imports.convert.convert`); nothing here prints, exits or
writes a file: a model's answer never becomes a capture.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citelint.errors import UsageError

if TYPE_CHECKING:
    from citelint.config import Config


@dataclass(frozen=True)
class Context:
    """The permissible sources for a prompt, as ``citelint context`` gives them.

    ``format`` is the format asked for; ``text`` exactly what ``citelint
    context --format FORMAT`` prints; ``value`` the same as data: for
    ``anthropic`` the list of ``document`` content blocks (put them in a
    Messages request's user content), for ``openai`` the list of
    ``input_text`` parts, for ``text`` and ``markdown`` the string itself.
    ``documents`` holds one ``(source URL, capture sha256)`` pair per
    document given, in order; ``dropped`` the sources left out because they
    did not fit in ``max_chars``, in order; ``notes`` one line each about an
    approved source left out (no usable capture) or a newer revision not
    given (what the command prints on standard error); ``chars`` how many
    characters (code points) of source text are given (what ``max_chars``
    bounds).
    """

    format: str
    text: str
    value: Any
    documents: tuple[tuple[str, str], ...]
    dropped: tuple[str, ...]
    notes: tuple[str, ...]
    chars: int


@dataclass(frozen=True)
class Imported:
    """A model's cited answer as a report, as ``citelint import`` writes it
    (nothing is written: the caller writes ``text`` where its config's globs
    check it).

    ``text`` is the report (Markdown, or a fact report's JSON text), ``kind``
    ``"markdown"`` or ``"facts"``; ``citations`` how many citations the
    response holds; ``items`` how many links (Markdown) or cited facts (facts)
    the report holds; ``unlinked`` the numbers of the citations that could
    be given no source URL (each marked in ``text``); ``notes`` the messages
    about citations the command prints on standard error, one line each
    (naming this API's arguments where the command names its options).
    """

    text: str
    kind: str
    citations: int
    items: int
    unlinked: tuple[int, ...]
    notes: tuple[str, ...]


def context(config: Config, sources: Sequence[str] | None, revisions: Sequence[str] | None, batch: str | None,
            fmt: str, max_chars: int | None) -> Context:
    """:meth:`citelint.Project.context` for ``config``.

    Raises:
        UsageError: as :func:`citelint.context.build`, and nothing to give.
    """
    from citelint.context import build

    for name, given in (("sources", sources), ("revisions", revisions)):
        if isinstance(given, (str, bytes)):
            raise UsageError(f"{name} takes a list, not one string")
    built = build(config, config.root, fmt, sources=list(sources or ()), revisions=list(revisions or ()),
                  batch=batch, max_chars=max_chars)
    if not built.kept:
        why = ("none fits in max_chars" if built.dropped
               else "no approved source has a committed, verified capture")
        raise UsageError(f"nothing to give: {why}" + "".join(f"; {note}" for note in built.notes))
    value: Any = json.loads(built.text) if fmt in ("anthropic", "openai") else built.text
    documents = tuple((r.source, r.sha256) for item in built.kept for r in item.records)
    return Context(fmt, built.text, value, documents, tuple(item.source for item in built.dropped),
                   tuple(built.notes), sum(item.chars for item in built.kept))


def _bytes(value: object, what: str) -> bytes:
    """``value`` (a mapping, str or bytes) as the bytes a saved file would hold.

    Raises:
        UsageError: it is none of those, or a mapping that is not JSON data.
    """
    if isinstance(value, Mapping) or (what != "source_map" and isinstance(value, list)):
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8", "surrogatepass")
        except (TypeError, ValueError) as exc:
            raise UsageError(f"import_response: {what} is not JSON data: {exc}") from None
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise UsageError(f"import_response: {what} takes a mapping, str or bytes, got {type(value).__name__}")


#: The importer's notes name the command line's options; the API's name its own arguments.
_ARGUMENTS = (("(--request)", "(request=)"), ("give --request", "give request="),
              ("with --source-map", "with source_map="), ("(--source-map FILE)", "(source_map=)"),
              ("use --as markdown", "use as_='markdown'"))


def _own_words(note: str) -> str:
    """``note`` with the command line's option names as the API's arguments."""
    for flag, argument in _ARGUMENTS:
        note = note.replace(flag, argument)
    return note


def import_response(response: object, vendor: str, request: object, source_map: object, as_: str,
                    allow_unlinked: bool) -> Imported:
    """:meth:`citelint.Project.import_response`.

    Raises:
        UsageError: as :func:`citelint.imports.convert.convert`; citations not
            linked without ``allow_unlinked``.
    """
    from citelint.imports.convert import KINDS, VENDORS, convert, parse_request, parse_response, parse_source_map

    if vendor not in VENDORS:
        raise UsageError(f"import_response: vendor {vendor!r} is not one of {', '.join(VENDORS)}")
    if as_ not in KINDS:
        raise UsageError(f"import_response: as_ {as_!r} is not one of {', '.join(KINDS)}")
    loaded = parse_response(vendor, _bytes(response, "response"), "response")
    asked = None if request is None else parse_request(_bytes(request, "request"), "request")
    urls = {} if source_map is None else parse_source_map(_bytes(source_map, "source_map"), "source_map")
    converted = convert(vendor, loaded, request=asked, source_map=urls, as_=as_, response_name="response",
                        request_name="request", api=True)
    written, total = converted.written, len(converted.answer.citations)
    notes = tuple(_own_words(note) for note in written.messages)
    if written.unlinked and not allow_unlinked:
        raise UsageError("\n".join([
            f"{len(written.unlinked)} of {total} citations not linked: pass source_map with an entry for each "
            "(the lines below name the keys), or allow_unlinked=True to have them marked in the report",
            *notes]))
    return Imported(written.text, as_, total, written.items, tuple(written.unlinked), notes)
