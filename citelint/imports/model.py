"""What every provider adapter hands on: an :class:`Answer` and its :class:`Citation` values.

An adapter (:mod:`citelint.imports.anthropic`, :mod:`~citelint.imports.openai`,
:mod:`~citelint.imports.gemini`, :mod:`~citelint.imports.cohere`,
:mod:`~citelint.imports.perplexity`) turns one saved response, already reassembled
from a stream where it was one (:mod:`citelint.imports.streams`), into an
:class:`Answer`; :mod:`citelint.imports.write` turns that into a report.
Offsets here are always code-point indices into :attr:`Answer.text`,
whatever unit the provider counted in.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class ResponseError(ValueError):
    """A saved response (or request) that cannot be imported. ``str()`` is a
    message for the user; ``where`` is the JSON path of the offending value
    (e.g. ``content[2].citations[0].end_char_index``), '' for the whole file."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


class ShapeError(ResponseError):
    """A response of a shape the chosen adapter does not read (another
    vendor's, or none known). The CLI adds the shapes the adapter reads
    (its ``SHAPES``) and, when another adapter recognises the response,
    which ``citelint import`` to use instead."""


@dataclass(frozen=True)
class Citation:
    """One citation attached to a span of the answer.

    ``start``/``end`` are code-point offsets into :attr:`Answer.text` of the
    span the citation supports (``end`` exclusive); the import writes the link
    right after ``end``, unless ``inline`` says the span already is the
    model's own Markdown link to ``url`` (OpenAI), which is then kept as it is.
    ``kind`` is the provider's citation type (``char_location``,
    ``url_citation``, ``grounding_chunk``...). ``url`` is the source URL the
    provider named (None when it named none: the source map must supply one).
    ``document`` is the provider's 0-based index of the cited document or
    chunk (Anthropic ``document_index`` or ``search_result_index``, Gemini
    grounding chunk index) and ``title`` its title: the keys a source map
    matches. ``quote`` is the cited text exactly as the provider returned it
    (None: the provider returned none, so only the URL can be governed);
    ``truncated`` is True when the provider cut it (a trailing ``...``).
    ``capture`` is the sha256 of the capture text the quote must be checked
    against, when it can be derived from the request
    (:func:`citelint.imports.documents.document_text`). ``notes`` are
    messages for the operator about this citation (a provider redirect URL,
    an offset disagreement). ``entities`` is True when the provider's quote
    is an excerpt that may hold HTML character references such as
    ``&#x27;`` (Anthropic web search): the writer decodes them, and only
    them, before quoting.

    ``whole`` is True when the provider gave the citation no position
    (xAI's ``url_citation`` without indices, Perplexity's ``citations``
    that no ``[n]`` marker names, OpenRouter's 0/0 indices): it stands for
    the answer as a whole, ``start == end == len(text)``, and the report
    lists it among the sources after the answer rather than tie it to the
    last sentence. ``marker`` is set when the span is the model's own
    citation marker (Perplexity's ``[2]``): it holds the marker's number as
    written (``"2"``), and the report turns the marker itself into the link
    (``[[2]](URL)``) instead of adding a second number beside it; on a
    whole-answer citation it is the number the provider's list gives it,
    used as its link text for the same reason.
    ``key`` is the provider's own identifier of the source (Cohere's
    source ``id``, ``"doc:0"``): a source map key, tried after the title.
    ``pages`` is the range of PDF pages the quote is on (first, last;
    1-based, inclusive), for a page-located citation (Anthropic
    ``page_location``): the writer puts it in the link title
    (``pages:3-4``), and ``check`` verifies the quote within those pages.
    ``page_text`` is True when the quote is the provider's own extraction
    of a PDF (Anthropic ``page_location``), which the writer transforms
    (:func:`citelint.imports.write.quotation`).
    """

    start: int
    end: int
    kind: str
    url: str | None = None
    title: str | None = None
    document: int | None = None
    quote: str | None = None
    truncated: bool = False
    capture: str | None = None
    inline: bool = False
    notes: tuple[str, ...] = ()
    entities: bool = False
    whole: bool = False
    marker: str | None = None
    key: str | None = None
    pages: tuple[int, int] | None = None
    page_text: bool = False


@dataclass
class Answer:
    """A model's answer: its ``text`` (all text parts joined as the provider
    counts them) and its ``citations`` in order of ``end``. ``vendor`` is
    the adapter's name (``anthropic``, ``openai``, ``gemini``, ``cohere``,
    ``perplexity``); ``warnings`` are messages about
    the whole response (no request given, offsets that disagree);
    ``skipped`` counts citations the adapter read and left out on purpose,
    each with a warning (Cohere's citations of its tool plan), so that the
    caller does not take them for citations in a shape nobody read."""

    vendor: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: int = 0
