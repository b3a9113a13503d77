"""One import: a saved model response (and its request, source map) turned
into a report's text, as ``citelint import`` and ``Project.import_response``
both run it.

Nothing here reads or writes a file, prints or exits: the caller hands in
the bytes or parsed values and gets the report text and its messages back.
The response is model output, untrusted: nothing here writes a capture.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citelint.errors import UsageError

if TYPE_CHECKING:
    from citelint.imports.model import Answer
    from citelint.imports.write import Written

#: The vendors an adapter reads, in the command line's order.
VENDORS = ("anthropic", "openai", "gemini", "cohere", "perplexity")
#: The kinds of report an import writes.
KINDS = ("markdown", "facts")
#: Keys that list citations in some vendor's shape: a response from which nothing was imported
#: but that holds one of them non-empty is in a shape the chosen adapter does not read.
_CITATION_KEYS = ("citations", "search_results")
#: How an adapter's message starts when the problem is in the request, not the response.
_IN_REQUEST = "in the request: "


class ImportRefused(UsageError):
    """The import cannot produce a report (nothing is written): an input that
    does not parse, a response of a shape the adapter does not read, or no
    citation that can be a fact. ``str()`` is the whole message; ``notes``
    the messages about citations to show before it (one line each)."""

    def __init__(self, message: str, notes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.notes = notes


@dataclass(frozen=True)
class Converted:
    """An import's outcome: the adapter's ``answer`` and the ``written`` report."""

    answer: Answer
    written: Written


def adapter(vendor: str) -> Any:
    """The adapter module of ``vendor`` (one of :data:`VENDORS`)."""
    return importlib.import_module(f"citelint.imports.{vendor}")


def unknown_shape(vendor: str, response: Any, what: str, api: bool = False) -> str:
    """The message refusing a response of a shape ``vendor``'s adapter does
    not read: ``what`` it is, the shapes the adapter reads, and the vendor
    whose adapter recognises it, when exactly one does (named as the command
    line's, or with ``api`` as ``Project.import_response``'s argument)."""
    known = " or ".join(adapter(vendor).SHAPES)
    others = [v for v in VENDORS if v != vendor and adapter(v).recognises(response)]
    other = (f"vendor={others[0]!r}" if api else f"citelint import {others[0]}") if len(others) == 1 else ""
    hint = f"; it looks like a {others[0]} response: try {other}" if other else ""
    reader = f"the {vendor} importer" if api else f"citelint import {vendor}"
    return f"{what}; {reader} reads {known}{hint}"


def parse_response(vendor: str, data: bytes, name: str) -> Any:
    """The response saved in ``data`` (a file named ``name``, for messages): its
    JSON, or a saved stream reassembled (:func:`citelint.imports.streams.load_response`).

    Raises:
        ImportRefused: it does not parse.
    """
    from citelint.imports.model import ResponseError
    from citelint.imports.streams import load_response

    try:
        return load_response(vendor, data, name)
    except ResponseError as exc:
        raise ImportRefused(str(exc)) from None


def parse_request(data: bytes, name: str) -> Any:
    """The request body in ``data``, strict JSON.

    Raises:
        ImportRefused: it does not parse.
    """
    from citelint.imports.documents import load_json
    from citelint.imports.model import ResponseError

    try:
        return load_json(data, name)
    except ResponseError as exc:
        raise ImportRefused(str(exc)) from None


def parse_source_map(data: bytes, name: str) -> dict[str, str]:
    """The source map in ``data`` (JSON when ``name`` ends in ``.json``, else YAML): key -> URL.

    Raises:
        ImportRefused: it does not parse, or is not an object of absolute http(s) URLs.
    """
    from citelint.imports.model import ResponseError
    from citelint.imports.sourcemap import load_source_map

    try:
        return load_source_map(data, name)
    except ResponseError as exc:
        raise ImportRefused(str(exc)) from None


def convert(vendor: str, response: Any, *, request: Any = None, source_map: dict[str, str] | None = None,
            as_: str = "markdown", response_name: str = "<response>", request_name: str = "<request>",
            api: bool = False) -> Converted:
    """The report of ``response`` (``vendor``'s parsed response) as ``as_``
    (one of :data:`KINDS`): each citation linked through the request's
    documents and ``source_map``, or marked as not linked. Messages name
    options as the command line spells them, or with ``api`` as
    ``Project.import_response``'s arguments.

    Raises:
        ImportRefused: a response (or request) the adapter cannot read, one of
            a shape it does not read, an answer that is not text, or (``facts``)
            no citation that can be a fact.
    """
    from citelint.imports import shape
    from citelint.imports.model import ResponseError, ShapeError
    from citelint.imports.write import fact_report, markdown_report

    if vendor not in VENDORS:
        raise UsageError(f"vendor {vendor!r} is not one of {', '.join(VENDORS)}")
    if as_ not in KINDS:
        raise UsageError(f"as_ {as_!r} is not one of {', '.join(KINDS)}")
    try:
        answer = adapter(vendor).answer(response, request=request)
    except ResponseError as exc:
        message, name = str(exc), response_name
        if message.startswith(_IN_REQUEST) and request is not None:
            message, name = message[len(_IN_REQUEST):], request_name
        # Messages that already name the JSON path are not given it twice.
        where = f"{exc.where}: " if exc.where and exc.where not in message else ""
        if isinstance(exc, ShapeError):
            message = unknown_shape(vendor, response, message, api)
        raise ImportRefused(f"{name}: {where}{message}") from None
    listed = None if answer.citations or answer.skipped else shape.find_listed(response, _CITATION_KEYS)
    if listed is not None:
        # Nothing imported from a response that lists citations would pass citations that were there.
        raise ImportRefused(f"{response_name}: " + unknown_shape(
            vendor, response, f"{listed} lists citations, but none were imported", api))
    try:
        answer.text.encode("utf-8")
    except UnicodeEncodeError:
        raise ImportRefused(f"{response_name}: the answer text holds lone surrogates (\\ud800-style escapes), "
                            "which are not text") from None
    try:
        written = (fact_report if as_ == "facts" else markdown_report)(answer, source_map or {})
    except ResponseError as exc:
        raise ImportRefused(str(exc)) from None
    if as_ == "facts" and not written.items and not written.unlinked:
        raise ImportRefused("no citation can be a fact (each needs cited text, a source and a known "
                            "capture); nothing written; try " + ("as_='markdown'" if api else "--as markdown"),
                            tuple(written.messages))
    return Converted(answer, written)


def unlinked_summary(unlinked: int, total: int, allowed: bool) -> str:
    """The line that counts the citations not linked."""
    if allowed:
        return (f"{unlinked} of {total} citations not linked (--allow-unlinked): each is marked "
                "[n: not linked] in the report")
    return (f"{unlinked} of {total} citations not linked: pass --source-map FILE with an entry for each "
            "(its line above names the keys), or --allow-unlinked to write them marked")
