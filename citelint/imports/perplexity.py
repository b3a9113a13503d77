"""Perplexity Chat Completions responses as an :class:`~citelint.imports.model.Answer`.

Perplexity answers in the Chat Completions shape (``choices[0].message.content``)
and lists its sources at the top level of the response, outside the message:

- ``citations``: a list of URL strings;
- ``search_results``: a list of ``{title, url, date, ...}`` objects (newer
  responses; where both are given, ``citations[i]`` is ``search_results[i].url``).

The answer refers to them by inline markers ``[n]``, 1-based indices into
that list, with no offsets and no quoted text
(``perplexity-chat-completions-citations.vercel-ai``: markers ``[1]`` to
``[7]``, some in runs such as ``[2][3][5][7]``; ``[4]`` never appears).
So:

- each marker is a citation of the text before it, its span the marker
  itself (:attr:`Citation.marker`): the report turns the marker into a
  link to the n-th URL, keeping the model's number as the link text;
- a marker whose number names no listed source (``[0]``, or past the end)
  is a citation with no URL: not linked, never dropped (a source map can
  still name it, by the marker as written: ``"[9]": https://...``);
- a listed source that no marker names is a citation of the whole answer
  (:attr:`Citation.whole`), listed after it with its number in the list
  (``Sources: [[4]](URL)``): the provider reports it as cited, so it is
  governed like the others;
- a URL that ``search_results`` lists and ``citations`` does not (the two
  lists disagree) is a whole-answer citation too, listed after the others
  with the report's own number: the markers index ``citations``, so none
  can name it, but the provider reported it as a source.

A marker is ``[digits]`` not followed by ``(`` or ``:`` (the model's own
Markdown link or link reference definition) and not inside a code span or
a fenced code block (``a[1]`` in code is an index, not a citation).

The message itself is read by :func:`citelint.imports.openai.chat`, so
``annotations`` (OpenAI's ``url_citation``), refusals and several choices
are handled as for any Chat Completions object. A list that is not a list
of URL strings (or of objects with a ``url`` string) is a
:class:`ResponseError` naming its path.
"""

from __future__ import annotations

import re
from typing import Any

from citelint.imports import openai, shape
from citelint.imports.model import Answer, Citation, ResponseError, ShapeError

#: The shapes this adapter reads, for the message refusing any other.
SHAPES = ("a Chat Completions object (choices[]) with top-level citations[] and/or search_results[] "
          "and [n] markers in the text",)

_MARKER = re.compile(r"\[([0-9]{1,6})\](?![(:])")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def recognises(response: object) -> bool:
    """True when ``response`` is a Chat Completions object that lists
    Perplexity's ``citations`` or ``search_results``."""
    return (isinstance(response, dict) and isinstance(response.get("choices"), list)
            and any(k in response for k in ("citations", "search_results")))


def answer(response: dict[str, Any], *, request: dict[str, Any] | None) -> Answer:
    """The answer and citations of a Perplexity ``response``.

    Args:
        response: the response, as :func:`citelint.imports.streams.load_response` returns it.
        request: the request body, or None (only its type is checked).
    Returns:
        An :class:`Answer` with ``vendor="perplexity"``: one citation per
        ``[n]`` marker, one whole-answer citation per listed source that no
        marker names, ordered by end.
    Raises:
        ShapeError: not a Chat Completions object.
        ResponseError: a bad value (``where`` is its path).
    """
    shape.bodies(response, request)
    if not isinstance(response.get("choices"), list):
        raise ShapeError("not a Chat Completions object (choices[])", "choices")
    result = openai.chat(response)
    result.vendor = "perplexity"
    sources, unlisted = _sources(response, result.warnings)
    text = result.text
    code = _code_ranges(text)
    named: set[int] = set()
    for m in _MARKER.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        n = int(m.group(1))
        if 1 <= n <= len(sources):
            url, title, where = sources[n - 1]
            named.add(n - 1)
            result.citations.append(Citation(m.start(), m.end(), "citation_marker", url=url, title=title,
                                             marker=m.group(1), notes=(f"the answer's marker [{n}]: {where}",)))
        else:
            # The marker as written is its source map key: the one name the operator can give it a URL by.
            result.citations.append(Citation(m.start(), m.end(), "citation_marker", marker=m.group(1),
                                             key=m.group(0), notes=(
                f"the answer's marker [{n}] names no source: the response lists {len(sources)}",)))
    for i, (url, title, where) in enumerate(sources):
        if i not in named:
            result.citations.append(Citation(len(text), len(text), "citation", url=url, title=title, whole=True,
                                             marker=str(i + 1), notes=(f"{where} is named by no [n] marker: "
                                                                       "listed among the sources after the answer",)))
    for url, title, where in unlisted:
        result.citations.append(Citation(len(text), len(text), "citation", url=url, title=title, whole=True,
                                         notes=(f"{where} lists a URL that citations[] does not: no [n] "
                                                "marker can name it, so it is listed among the sources after "
                                                "the answer",)))
    result.citations.sort(key=lambda c: (c.end, c.start))
    return result


_Source = tuple[str, str | None, str]


def _sources(response: dict[str, Any], warnings: list[str]) -> tuple[list[_Source], list[_Source]]:
    """The listed sources, 1-based as the markers count them: (URL, title,
    where it is listed). ``citations`` gives the URLs when present;
    ``search_results`` the titles (and the URLs when ``citations`` is absent).
    Second, the ``search_results`` whose URL ``citations`` does not list
    (each URL once): sources no marker can name, never dropped."""
    urls = shape.field(response, "citations", "", "array", required=False)
    results = shape.field(response, "search_results", "", "array", required=False)
    found: list[tuple[str, str | None, str]] = []
    titles: list[str | None] = []
    result_urls: list[str] = []
    for i, item in enumerate(results or []):
        where = f"search_results[{i}]"
        shape.obj(item, where)
        result_urls.append(_nonempty(item, "url", where))
        titles.append(shape.field(item, "title", where, "string", required=False) or None)
    if urls is None:
        return [(url, titles[i], f"search_results[{i}]") for i, url in enumerate(result_urls)], []
    for i, url in enumerate(urls):
        where = f"citations[{i}]"
        if not isinstance(url, str):
            raise ResponseError(f"{where} must be a string (a URL), found {shape.kind(url)}", where)
        if not url:
            raise ResponseError(f"{where} is empty", where)
        title = titles[i] if i < len(titles) and result_urls[i] == url else None
        found.append((url, title, where))
    if results is not None and result_urls != list(urls):
        warnings.append(f"citations[] ({len(urls)}) and search_results[] ({len(result_urls)}) do not list the "
                        "same URLs in the same order: the [n] markers are read as indices into citations[]")
    unlisted: list[_Source] = []
    seen = set(urls)
    for i, url in enumerate(result_urls):
        if url not in seen:
            seen.add(url)
            unlisted.append((url, titles[i], f"search_results[{i}]"))
    return found, unlisted


def _nonempty(item: dict[str, Any], key: str, where: str) -> str:
    value = shape.field(item, key, where, "string")
    if not value:
        raise ResponseError(f"{shape.path(where, key)} is empty", shape.path(where, key))
    return value


def _code_ranges(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds fenced code blocks and code spans (CommonMark's
    backtick and tilde fences, backtick strings of equal length), as
    ``(start, end)`` offsets. An approximation of the renderer that errs
    towards code: a marker it hides stays the model's text, unlinked, and
    the listed source it named is still listed after the answer."""
    ranges = [m.span() for m in _FENCE.finditer(text)]
    for m in _CODE_SPAN.finditer(text):
        if not any(a <= m.start() < b for a, b in ranges):
            ranges.append(m.span())
    return ranges
