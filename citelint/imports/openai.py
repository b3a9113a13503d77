"""OpenAI Responses and Chat Completions (OpenRouter) responses as an :class:`~citelint.imports.model.Answer`.

**Responses API** (``output[]``): items of type ``message`` hold
``content[]`` parts; each ``output_text`` part has ``text`` and
``annotations[]``:

- ``url_citation`` {``url``, ``title``, ``start_index``, ``end_index``}:
  the indices are **code points** into that part's ``text`` (not UTF-8
  bytes: on ``openai-responses-web-search.pydantic-ai`` and ``.vercel-ai``,
  whose texts hold non-ASCII characters before cited spans, code-point
  slicing gives exactly ``([domain](url))`` and byte slicing does not). The
  span is the inline Markdown link the model wrote, not the claim, so
  :attr:`Citation.inline` is set when the span holds a Markdown link to
  ``url``. URLs often end in ``?utm_source=openai`` (the provider's tag):
  they are kept as given, with a note. xAI's Responses API (the same
  shape) gives ``url_citation`` with ``url`` alone, no indices
  (``xai-responses-web-search.vercel-ai``): such a citation has no
  position, so it is :attr:`Citation.whole`, a source of the whole answer
  (listed after it), as is one whose indices are 0/0 (an empty span
  before the first character supports nothing); one index without the
  other is an error.
- ``file_citation`` {``file_id``, ``filename``, ``index``}: one position
  (the end of the cited sentence), so the citation is the empty span
  ``index..index``; ``title`` is the file name, ``url`` None (a source map
  supplies it).
- ``container_file_citation`` {``file_id``, ``filename``, ``container_id``,
  ``start_index``, ``end_index``}: a file the code interpreter produced;
  the span is the ``sandbox:`` destination of the model's own Markdown link
  (``openai-responses-code-interpreter.vercel-ai``), so it is ``inline``
  when it sits inside ``](...)``; kept with a note that it is no source.

``refusal`` parts become warnings. The text parts are joined with a blank
line between them; each part's offsets are shifted by where it starts.

**Chat Completions** (``choices[0].message``; OpenRouter's
OpenAI-compatible API): ``content`` with ``annotations[]`` of
``{type: url_citation, url_citation: {url, title, content, start_index,
end_index}}``. On ``openrouter-chat-completions-web-search.pydantic-ai``
every index is 0/0, i.e. no position: such a citation is
:attr:`Citation.whole` (listed after the answer), with a note; so is one
with no indices at all. Other indices are read as code points, as the
Responses API's (unconfirmed: that fixture is the only one). ``content`` is a page excerpt the provider
chose, not a verbatim quote of anything captured, so it goes into a note,
never into :attr:`Citation.quote`.

OpenAI citations never carry source text: ``quote`` is always None.

A Chat Completions object with a top-level ``citations`` or
``search_results`` list is Perplexity's shape
(:mod:`citelint.imports.perplexity`): it is refused with a
:class:`ShapeError`, since reading only its ``annotations`` would import
none of its citations and pass.

Validation: a wrong type, or an index that is negative, past its text or
before its start, is a :class:`ResponseError` naming the value's path. An
annotation of an unknown type is skipped with a warning (the rest of the
answer is usable, and the warning keeps it from passing silently).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from citelint.imports import shape
from citelint.imports.model import Answer, Citation, ResponseError, ShapeError

_UNIT = "code points"
_SEPARATOR = "\n\n"
#: The shapes this adapter reads, for the message refusing any other.
SHAPES = ("an OpenAI or xAI Responses object (output[])",
          "a Chat Completions object (choices[], annotations url_citation; OpenRouter)")
#: Top-level keys of Perplexity's Chat Completions, which this adapter does not read.
FOREIGN_CHAT_KEYS = ("citations", "search_results")
_NO_POSITION = "the provider gave no position: listed among the sources after the answer"


def recognises(response: object) -> bool:
    """True when ``response`` has one of :data:`SHAPES` (and not Perplexity's)."""
    if not isinstance(response, dict):
        return False
    if isinstance(response.get("output"), list):
        return True
    return isinstance(response.get("choices"), list) and not any(k in response for k in FOREIGN_CHAT_KEYS)


def answer(response: dict[str, Any], *, request: dict[str, Any] | None) -> Answer:
    """The answer and citations of an OpenAI ``response`` (a Responses
    object, or a Chat Completions object such as OpenRouter's).

    Args:
        response: the response, as :func:`citelint.imports.streams.load_response` returns it.
        request: the request body, or None. Offsets do not depend on it;
            only its type is checked.
    Returns:
        An :class:`Answer` with ``vendor="openai"``, citations ordered by end.
    Raises:
        ShapeError: neither shape, or Perplexity's (top-level citations).
        ResponseError: a bad value (``where`` is its path).
    """
    shape.bodies(response, request)
    if "output" in response:
        result = _responses(response)
    elif "choices" in response:
        foreign = [k for k in FOREIGN_CHAT_KEYS if k in response]
        if foreign:
            raise ShapeError(f"a Chat Completions object with a top-level {foreign[0]} list, which is "
                             f"Perplexity's shape", foreign[0])
        result = chat(response)
    else:
        raise ShapeError("neither an OpenAI Responses object (output[]) nor a Chat Completions object "
                         "(choices[])")
    result.citations.sort(key=lambda c: (c.end, c.start))
    return result


def _responses(response: dict[str, Any]) -> Answer:
    result = Answer("openai", "")
    output = shape.field(response, "output", "", "array")
    status = response.get("status")
    if status not in (None, "completed"):
        result.warnings.append(f"the response status is {shape.show(str(status))}, not completed: the answer "
                               f"may be cut short")
    sources = _search_sources(output)
    texts: list[str] = []
    base = 0
    for i, item in enumerate(output):
        where = f"output[{i}]"
        shape.obj(item, where)
        if item.get("type") != "message":
            continue
        for j, part in enumerate(shape.field(item, "content", where, "array")):
            at = f"{where}.content[{j}]"
            shape.obj(part, at)
            if part.get("type") == "refusal":
                refusal = shape.field(part, "refusal", at, "string", required=False, default="")
                result.warnings.append(f"{at}: the model refused: {shape.show(refusal, 200)}")
                continue
            if part.get("type") != "output_text":
                continue
            text = shape.field(part, "text", at, "string")
            if texts:
                base += len(_SEPARATOR)
            for k, note in enumerate(shape.field(part, "annotations", at, "array", required=False, default=[])):
                citation = _annotation(note, f"{at}.annotations[{k}]", text, base, sources, result)
                if citation is not None:
                    result.citations.append(citation)
            texts.append(text)
            base += len(text)
    result.text = _SEPARATOR.join(texts)
    end = len(result.text)
    result.citations = [replace(c, start=end, end=end) if c.whole else c for c in result.citations]
    if not texts:
        result.warnings.append("the response has no output_text: no answer to import")
    return result


def _search_sources(output: list[Any]) -> set[str]:
    """URLs in ``web_search_call.action.sources`` (present when the request included them)."""
    found: set[str] = set()
    for item in output:
        action = item.get("action") if isinstance(item, dict) and item.get("type") == "web_search_call" else None
        listed = action.get("sources") if isinstance(action, dict) else None
        for source in listed if isinstance(listed, list) else []:
            if isinstance(source, dict) and isinstance(source.get("url"), str):
                found.add(source["url"])
    return found


def _annotation(note: Any, where: str, text: str, base: int, sources: set[str], result: Answer) -> Citation | None:
    shape.obj(note, where)
    kind = shape.field(note, "type", where, "string")
    if kind == "url_citation":
        url = _url(note, where)
        notes = list(_url_notes(url))
        if sources and _without_tag(url) not in sources and url not in sources:
            notes.append("this URL is not among the web_search_call sources the provider listed")
        title = shape.field(note, "title", where, "string", required=False)
        start, end = (0, 0) if _no_span(note) else shape.span(note, ("start_index", "end_index"), where,
                                                               len(text), _UNIT)
        if start == end == 0 and text:
            # No indices (xAI), or 0/0 as OpenRouter gives them: a source of the answer, not of
            # its first character (the caller sets the position, the end of the whole answer).
            return Citation(-1, -1, kind, url=url, title=title or None, whole=True,
                            notes=tuple(notes + [_NO_POSITION]))
        inline = _links_to(text[start:end], url)
        return Citation(base + start, base + end, kind, url=url, title=title, inline=inline, notes=tuple(notes))
    if kind == "file_citation":
        index = shape.offset(note, "index", where, len(text), _UNIT)
        file_id = shape.field(note, "file_id", where, "string")
        filename = shape.field(note, "filename", where, "string", required=False)
        return Citation(base + index, base + index, kind, title=filename,
                        notes=(f"file {shape.show(file_id)} names no URL: the source map must supply it",))
    if kind == "container_file_citation":
        start, end = shape.span(note, ("start_index", "end_index"), where, len(text), _UNIT)
        filename = shape.field(note, "filename", where, "string", required=False)
        in_link = text[max(0, start - 2):start] == "](" and text[end:end + 1] == ")"
        return Citation(base + start, base + end, kind, title=filename, inline=in_link,
                        notes=("a file the code interpreter produced in its container, not a source: "
                               "nothing here to verify",))
    result.warnings.append(f"{where}: annotation of type {shape.show(kind)} is not imported")
    return None


def _no_span(note: dict[str, Any]) -> bool:
    """True when an annotation gives neither index (absent or null): no position at all."""
    return note.get("start_index") is None and note.get("end_index") is None


def _url(note: dict[str, Any], where: str) -> str:
    url = shape.field(note, "url", where, "string")
    if not url:
        raise ResponseError(f"{shape.path(where, 'url')} is empty", shape.path(where, "url"))
    return url


def _url_notes(url: str) -> tuple[str, ...]:
    query = parse_qsl(urlsplit(url).query, keep_blank_values=True) if "?" in url else []
    if ("utm_source", "openai") in query:
        return ("the URL carries the provider's ?utm_source=openai tag; it is kept as given "
                "(links.ignore_query_params can ignore it when checking)",)
    return ()


def _without_tag(url: str) -> str:
    return re.sub(r"[?&]utm_source=openai$", "", url)


def _links_to(span: str, url: str) -> bool:
    """True when ``span`` holds a Markdown inline link whose destination is ``url``."""
    return re.search(r"\]\(\s*<?" + re.escape(url) + r">?(?:\s+[\"'(][^)]*)?\s*\)", span) is not None


def chat(response: dict[str, Any]) -> Answer:
    """The answer of a Chat Completions object: ``choices[0].message``'s
    ``content`` and its ``url_citation`` annotations (module docstring).
    Shared with :mod:`citelint.imports.perplexity`, whose answers are Chat
    Completions too.

    Args:
        response: an object with ``choices`` (not checked for other keys).
    Returns:
        An :class:`Answer` with ``vendor="openai"``, citations in annotation order.
    Raises:
        ResponseError: ``choices`` empty or a bad value (``where`` is its path).
    """
    result = Answer("openai", "")
    choices = shape.field(response, "choices", "", "array")
    if not choices:
        raise ResponseError("choices is empty: no answer", "choices")
    if len(choices) > 1:
        result.warnings.append(f"{len(choices)} choices: only choices[0] is imported")
    where = "choices[0]"
    message = shape.field(shape.obj(choices[0], where), "message", where, "object")
    where += ".message"
    text = shape.field(message, "content", where, "string", required=False, default="")
    result.text = text
    if message.get("refusal"):
        result.warnings.append(f"{where}: the model refused: {shape.show(str(message['refusal']), 200)}")
    for k, note in enumerate(shape.field(message, "annotations", where, "array", required=False, default=[])):
        at = f"{where}.annotations[{k}]"
        shape.obj(note, at)
        kind = shape.field(note, "type", at, "string")
        if kind != "url_citation":
            result.warnings.append(f"{at}: annotation of type {shape.show(kind)} is not imported")
            continue
        inner = shape.field(note, "url_citation", at, "object")
        at += ".url_citation"
        url = _url(inner, at)
        notes = list(_url_notes(url))
        whole = _no_span(inner)
        start, end = (0, 0) if whole else shape.span(inner, ("start_index", "end_index"), at, len(text), _UNIT,
                                                      start_default=0)
        if whole:
            notes.append(_NO_POSITION)
        elif start == end == 0 and text:
            whole = True
            notes.append("the provider gave no position (start_index = end_index = 0): listed among the "
                         "sources after the answer")
        if whole:
            start = end = len(text)
        excerpt = shape.field(inner, "content", at, "string", required=False)
        if excerpt:
            notes.append("the provider's page excerpt (its choice of text, not a verbatim quote of a capture): "
                         + shape.show(excerpt, 200))
        title = shape.field(inner, "title", at, "string", required=False)
        result.citations.append(Citation(start, end, kind, url=url, title=title or None, whole=whole,
                                         inline=not whole and _links_to(text[start:end], url), notes=tuple(notes)))
    return result
