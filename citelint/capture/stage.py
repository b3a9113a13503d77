"""The capture stage's recording side: which sources a run handles, and how
a fetched or held text becomes a capture (DESIGN §5).

Everything here either ends in a capture written through the store's
exclusive writer (:func:`citelint.store.writer.write_capture`) or in a
:class:`~citelint.capture.policy.CaptureRefused` whose message says why.
Nothing prints; the command line turns outcomes into lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple, cast

from citelint.capture.policy import CaptureRefused, check_content_type, check_settings, check_source
from citelint.capture.sniff import ContentTypeUnclear, declared_mismatch, sniff
from citelint.files import FileTooLarge, read_regular
from citelint.settings import DEFAULT_CONTENT_TYPES, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_S, CaptureSettings
from citelint.store.captures import (
    CaptureError,
    CaptureRecord,
    Store,
    TextRejected,
    decode_text,
    make_record,
    sha256_hex,
)
from citelint.store.record import page_map
from citelint.store.writer import write_capture

if TYPE_CHECKING:
    from citelint.capture.transport import Fetcher
    from citelint.imports.documents import RequestDocument
    from citelint.store.record import Extractor

#: Outcome statuses, as printed by the command line.
CAPTURED = "captured"
ALREADY_CAPTURED = "already captured"
REFUSED = "refused"
WOULD_FETCH = "would fetch"


# --------------------------------------------------------------------------- outcomes

@dataclass(frozen=True)
class CaptureOutcome:
    """What happened to one source.

    ``status`` is one of ``captured``, ``already captured``, ``refused`` or
    (dry run) ``would fetch``. ``reason`` explains a refusal. ``sha256``,
    ``bytes`` (body length on the wire) and ``path`` describe the revision
    for ``captured`` and ``already captured``. ``warning``, when not empty,
    says what about the recorded body deserves a second look (a declared
    media type its bytes contradict, PDF pages with no usable text layer).
    """

    source: str
    status: str
    reason: str = ""
    sha256: str | None = None
    bytes: int | None = None
    path: Path | None = None
    warning: str = ""

    @property
    def failed(self) -> bool:
        """True for a refusal (the command exits 1 if any source failed)."""
        return self.status == REFUSED


# --------------------------------------------------------------------------- recording

def _record_outcome(captures_dir: Path, record: CaptureRecord, raw: bytes | None = None) -> CaptureOutcome:
    """Write ``raw`` (when kept) and ``record`` with the exclusive writer
    (:func:`~citelint.store.writer.write_capture`, raw body first); verify an existing file."""
    try:
        result = write_capture(captures_dir, record, raw)
    except OSError as exc:
        raise CaptureRefused(f"cannot write the capture: {exc.strerror or exc}") from None
    except CaptureError as exc:  # RecordTooLarge, or a raw file that is not what its name says
        raise CaptureRefused(str(exc)) from None
    if not result.created:
        try:
            Store(captures_dir).lookup(record.source, record.sha256)
        except CaptureError as exc:
            raise CaptureRefused(f"a capture file already occupies {result.path} but fails "
                                 f"verification ({exc}); captures are never replaced, inspect "
                                 "it by hand") from None
    return CaptureOutcome(source=record.source,
                          status=CAPTURED if result.created else ALREADY_CAPTURED,
                          sha256=record.sha256, bytes=record.bytes, path=result.path,
                          warning=_unusable_pages(record))


def _verdicts(record: CaptureRecord) -> list[dict] | None:
    """Each page of a paged (PDF) ``record`` with its label and verdict: as
    recorded (``pdf-text``), else judged now from the page's text
    (:func:`citelint.capture.pdftext.verdict`; a ``pypdf`` capture records
    none); None for a text with no pages."""
    try:
        pages = page_map(record.text, record.extractor)
    except CaptureError:
        return None
    if pages is None:
        return None
    from citelint.capture.pdftext import verdict

    texts = record.text.split("\f")
    return [{"label": label, "verdict": v or verdict(texts[i])}
            for i, (label, v) in enumerate(zip(pages.labels, pages.verdicts))]


def _unusable_pages(record: CaptureRecord) -> str:
    """What to say of the pages of ``record`` whose verdict is not ``usable``
    (:func:`citelint.capture.pdftext.unusable_pages`), or ""."""
    pages = _verdicts(record)
    if not pages:
        return ""
    from citelint.capture.pdftext import unusable_pages

    return unusable_pages(pages)


def _check_size(body: bytes, max_bytes: int, what: str) -> None:
    if len(body) > max_bytes:
        raise CaptureRefused(f"the {what} is {len(body)} bytes, over the {max_bytes} byte limit "
                             "(capture.max_bytes)")


def _decode(body: bytes, max_bytes: int, what: str) -> str:
    _check_size(body, max_bytes, what)
    try:
        text = decode_text(body)
    except TextRejected as exc:
        raise CaptureRefused(f"the {what} is {exc}") from None
    if not text:
        raise CaptureRefused(f"the {what} is empty; there is nothing to cite")
    return text


#: How far ahead of this machine's clock a given retrievedAt may be (clocks differ a little).
RETRIEVED_AHEAD_S = 300


def refuse_ahead(retrieved_at: str | None) -> None:
    """Raise CaptureRefused when ``retrieved_at`` (RFC 3339 UTC, or None: now) is more than
    RETRIEVED_AHEAD_S seconds in the future: the store is append-only, and a revision dated
    ahead would be the newest one, the one every untitled quotation is checked against, for good."""
    from citelint.store.record import is_rfc3339_utc, time_key

    if retrieved_at is None or not is_rfc3339_utc(retrieved_at):
        return  # (a malformed time is the record's to refuse, with the record's own words)
    from datetime import UTC, datetime, timedelta

    limit = (datetime.now(UTC) + timedelta(seconds=RETRIEVED_AHEAD_S)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if time_key(retrieved_at) > time_key(limit):
        raise CaptureRefused(f"retrievedAt {retrieved_at} is in the future: a revision dated ahead would stay the "
                             "newest of its source for good (captures are append-only); give the time the text "
                             "was retrieved")


def _make(source: str, body: bytes, content_type: str, settings: CaptureSettings,
          retrieved_at: str | None, what: str) -> tuple[CaptureRecord, bytes | None]:
    """The record for ``body`` (and the raw bytes to keep beside it, or
    None), by the extractor ``settings`` names for its media type.

    Raises:
        CaptureRefused: the body is over the limit, empty, not decodable,
            or the extractor fails.
    """
    refuse_ahead(retrieved_at)
    media = check_content_type(content_type, tuple(settings.content_types) + ("text/plain",),
                               settings.extractor_for)
    # check_content_type refused a type with no extractor.
    name = cast(str, settings.extractor_for(media))
    if name == "identity":
        text = _decode(body, settings.max_bytes, what)
        return make_record(source, text, retrieved_at=retrieved_at, content_type=content_type,
                           wire_bytes=len(body)), None
    from citelint.capture.extract import ExtractionFailed, run_extractor

    _check_size(body, settings.max_bytes, what)
    if not body.strip():
        raise CaptureRefused(f"the {what} is empty; there is nothing to cite")
    try:
        done = run_extractor(name, body, content_type, deadline_s=settings.timeout_s)
    except ExtractionFailed as exc:
        raise CaptureRefused(str(exc)) from None
    if not done.text.strip():
        raise CaptureRefused(f"the {name} extractor found no text (a scanned PDF without a text layer, or a page "
                             "with no visible text); there is nothing to cite")
    try:
        record = make_record(source, done.text, retrieved_at=retrieved_at, content_type=content_type,
                             wire_bytes=len(body), extractor=done.extractor, raw_sha256=sha256_hex(body))
    except TextRejected as exc:
        raise CaptureRefused(f"the {name} extractor's text is unusable: {exc}") from None
    pages = _verdicts(record)
    if pages and not any(p["verdict"] == "usable" for p in pages):
        from citelint.capture.pdftext import no_usable_page

        raise CaptureRefused(no_usable_page(pages, name))
    return record, (body if settings.keep_raw else None)


def record_text(captures_dir: Path, source: str, data: bytes | str, *, sources: Sequence[str],
                max_bytes: int = DEFAULT_MAX_BYTES, content_type: str | None = None,
                content_types: Sequence[str] = DEFAULT_CONTENT_TYPES,
                retrieved_at: str | None = None, extractors: Sequence[tuple[str, str]] = (),
                keep_raw: bool = True, timeout_s: float = DEFAULT_TIMEOUT_S) -> CaptureOutcome:
    """Record text a pipeline already holds as a capture of ``source``,
    without fetching anything (``capture --source URL --from-file F``).

    A retrieval-augmented system should record exactly the text the model
    was given. ``data`` is the body as bytes (``bytes`` in the record is its
    length) or as ``str`` (encoded as UTF-8 first). Its media type's
    extractor makes the text: for ``text/plain``, strict UTF-8 with one
    leading BOM removed; for ``text/html`` and ``application/pdf``, the
    extractor ``extractors`` (``(media type, name)`` pairs over the
    defaults) names, run in a child process within ``timeout_s`` seconds,
    its raw bytes kept beside the capture unless ``keep_raw`` is False
    (:mod:`citelint.capture.extract`). With no ``content_type`` the body is
    sniffed: one that looks like HTML, XML, PDF, PostScript, an image,
    audio, video, an archive or binary data is refused with
    :class:`ContentTypeUnclear`, anything else is ``text/plain``; a declared
    type the bytes contradict is recorded as declared, with the outcome's
    ``warning`` saying so. The same checks as a fetch apply:
    ``source`` must be in ``sources`` exactly (``http`` is accepted here,
    since nothing is fetched), no userinfo or fragment; at most ``max_bytes``
    bytes; ``content_type`` must pass :func:`check_content_type` against
    ``content_types``; ``retrieved_at`` is RFC 3339 UTC
    (``2026-01-31T12:00:00Z``; default now: a fixed value makes a generator
    reproducible). The record goes through the same exclusive writer.

    Returns:
        A ``captured`` or ``already captured`` outcome with the revision's
        ``sha256``, ``bytes`` and ``path``.

    Raises:
        ContentTypeUnclear: no ``content_type``, and the body looks like
            another type than plain text.
        CaptureRefused: any check fails, an existing file at the revision's
            path fails verification, or the file cannot be written.
    """
    check_source(source, sources, fetching=False)
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            raise CaptureRefused("the text contains lone surrogates and is not valid "
                                 "Unicode") from None
    sniffed = sniff(data)
    if content_type is None:
        if sniffed is not None:
            raise ContentTypeUnclear(sniffed)
        content_type = "text/plain"
    # text/plain is the documented default for held text, so it is always
    # accepted (by _make); anything else must be a type the operator allows.
    settings = CaptureSettings(max_bytes=max_bytes, content_types=tuple(content_types), timeout_s=timeout_s,
                               extractors=tuple(extractors), keep_raw=keep_raw)
    try:
        record, raw = _make(source, data, content_type, settings, retrieved_at, "text")
    except TextRejected as exc:
        raise CaptureRefused(str(exc)) from None
    outcome = _record_outcome(captures_dir, record, raw)
    warning = declared_mismatch(content_type, sniffed)
    return replace(outcome, warning="; ".join(filter(None, [warning, outcome.warning]))) if warning else outcome


def read_input(path: str, max_bytes: int, *, stdin: BinaryIO | None = None) -> bytes:
    """Read at most ``max_bytes`` bytes from the regular file ``path``
    (``-``: ``stdin``, a binary stream such as ``sys.stdin.buffer``).

    Raises:
        CaptureRefused: the input is longer than ``max_bytes``.
        OSError: the file cannot be opened or read, or is not a regular file
            (a FIFO is refused, never waited on): a usage error for the
            command line, not a refused source.
    """
    over = CaptureRefused(f"{'standard input' if path == '-' else path} is over the "
                          f"{max_bytes} byte limit (capture.max_bytes)")
    if path != "-":
        try:
            return read_regular(path, max_bytes)
        except FileTooLarge:
            raise over from None
    if stdin is None:
        raise OSError("no standard input to read")
    data = stdin.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise over
    return data


def _new_fetcher(settings: CaptureSettings) -> Fetcher:
    """A :class:`~citelint.capture.transport.Fetcher`, importing urllib3 only
    now: recording held text and dry runs never load a network library."""
    from citelint.capture.transport import Fetcher

    return Fetcher(settings)


def capture_one(captures_dir: Path, source: str, sources: Sequence[str],
                settings: CaptureSettings, *, fetcher: Fetcher | None = None) -> CaptureOutcome:
    """Fetch one source and write it. Never raises for a refusal: a refused
    source comes back as an outcome with ``status == "refused"``.

    ``fetcher`` reuses a :class:`Fetcher` (its TLS context) across calls.
    """
    try:
        target = check_source(source, sources, allow_http_loopback=settings.allow_http_loopback)
        fetched = (fetcher or _new_fetcher(settings)).fetch(target)
        record, raw = _make(source, fetched.body, fetched.content_type, settings, fetched.retrieved_at, "body")
        return _record_outcome(captures_dir, record, raw)
    except (CaptureRefused, TextRejected) as exc:
        return CaptureOutcome(source=source, status=REFUSED, reason=str(exc))


def select_sources(captures_dir: Path, sources: Sequence[str], urls: Sequence[str] = (), *,
                   refetch_all: bool = False) -> list[str]:
    """Which sources a capture run handles, in order, without duplicates.

    Named ``urls`` are taken as given (unapproved ones are refused later,
    with a reason); otherwise ``refetch_all`` takes every approved source,
    and the default is every approved source with no capture file yet.
    """
    if urls:
        chosen = list(urls)
    elif refetch_all:
        chosen = list(sources)
    else:
        store = Store(captures_dir)
        chosen = [s for s in sources if not store.has_source(s)]
    return list(dict.fromkeys(chosen))


def run_capture(captures_dir: Path, sources: Sequence[str], settings: CaptureSettings, *,
                urls: Sequence[str] = (), refetch_all: bool = False, dry_run: bool = False,
                progress: Callable[[int, int, str], None] | None = None) -> Iterator[CaptureOutcome]:
    """Capture sources one by one: an iterator of one outcome per source.

    ``captures_dir`` is the store root; ``sources`` the approved list; the
    selection is :func:`select_sources`. ``dry_run`` checks each URL against
    the approved list and URL policy (no network, no write) and yields
    ``would fetch`` or ``refused``. ``progress(index, total, source)`` is
    called before each source (index from 1), for a TTY progress display.
    A refused source is an outcome, never an exception.

    Raises:
        CaptureRefused: ``settings`` fail :func:`check_settings`, raised by
            this call, before any source is selected or tried.
    """
    check_settings(settings)
    return _captures(captures_dir, sources, settings, urls, refetch_all, dry_run, progress)


def _captures(captures_dir: Path, sources: Sequence[str], settings: CaptureSettings, urls: Sequence[str],
              refetch_all: bool, dry_run: bool,
              progress: Callable[[int, int, str], None] | None) -> Iterator[CaptureOutcome]:
    """:func:`run_capture`'s outcomes, for settings it checked."""
    chosen = select_sources(captures_dir, sources, urls, refetch_all=refetch_all)
    fetcher: Fetcher | None = None
    for index, source in enumerate(chosen, start=1):
        if progress is not None:
            progress(index, len(chosen), source)
        if dry_run:
            try:
                check_source(source, sources, allow_http_loopback=settings.allow_http_loopback)
            except CaptureRefused as exc:
                yield CaptureOutcome(source=source, status=REFUSED, reason=str(exc))
            else:
                yield CaptureOutcome(source=source, status=WOULD_FETCH)
            continue
        if fetcher is None:
            fetcher = _new_fetcher(settings)
        yield capture_one(captures_dir, source, sources, settings, fetcher=fetcher)


# --------------------------------------------------------------------------- requests

#: The extractor name of captures recorded from a request (``capture --from-request``).
REQUEST_EXTRACTOR = "anthropic-request"


@dataclass(frozen=True)
class DocumentOutcome:
    """What happened to one document of a request: ``document`` is how
    messages name it (``document 0 "Title"``), ``outcome`` the capture
    outcome (its ``source`` is the document's label when no URL was found),
    and ``mapped_by`` the source map key that gave its URL, if one did."""

    document: str
    outcome: CaptureOutcome
    mapped_by: str | None = None


def _request_options(doc: RequestDocument, inner: dict | None = None) -> dict:
    """The extractor options that locate ``doc`` in its request again
    (:func:`citelint.capture.reproduce.verify_extraction` re-derives it)."""
    options: dict = {"documentKind": doc.kind, "index": doc.index, "blockType": doc.block_type,
                     "mediaType": doc.media_type}
    if inner is not None:
        options["extractor"] = inner
    return options


def request_document_text(request_bytes: bytes, options: dict, *,
                          deadline_s: float = DEFAULT_TIMEOUT_S) -> tuple[str, Extractor | None]:
    """The text of the document ``options`` (an ``anthropic-request``
    extractor's options) locates in the request body ``request_bytes``,
    derived as :func:`record_request` derived it: directly for text,
    content and search-result documents, by the recorded PDF extractor for
    a base64 PDF; with the PDF extractor that ran (None for the others),
    whose options hold its outputs (a ``pdf-text`` page map).

    Raises:
        CaptureRefused: the request does not parse or hold that document, or
            its text cannot be derived (the message says why).
    """
    from citelint.imports.documents import find_document, load_json, request_documents
    from citelint.imports.model import ResponseError

    try:
        documents = request_documents(load_json(request_bytes, "the request"))
    except ResponseError as exc:
        raise CaptureRefused(f"{exc.where + ': ' if exc.where else ''}{exc}") from None
    doc = find_document(documents, str(options.get("documentKind")), options.get("index", -1))
    if doc is None:
        raise CaptureRefused("the request holds no such document")
    return _document_text(doc, options.get("extractor", {}).get("name"), deadline_s)


def _document_text(doc: RequestDocument, pdf_extractor: str | None,
                   deadline_s: float) -> tuple[str, Extractor | None]:
    """``(text, inner extractor or None)`` of one request document.

    Raises:
        CaptureRefused: no text can be derived.
    """
    if doc.text is not None:
        if not doc.text:
            raise CaptureRefused(f"{doc.label} is empty; there is nothing to cite")
        return doc.text, None
    if doc.data is None or pdf_extractor is None:
        raise CaptureRefused(f"{doc.label}: {doc.problem or 'no text or PDF data to record'}")
    from citelint.capture.extract import ExtractionFailed, run_extractor

    try:
        done = run_extractor(pdf_extractor, doc.data, doc.media_type, deadline_s=deadline_s)
    except ExtractionFailed as exc:
        raise CaptureRefused(str(exc)) from None
    if not done.text.strip():
        raise CaptureRefused(f"the {pdf_extractor} extractor found no text in {doc.label}")
    return done.text, done.extractor


def _request_documents(request_bytes: bytes, name: str, nothing: str) -> list[RequestDocument]:
    """The documents of the Anthropic request body ``request_bytes`` (the file ``name``).

    Raises:
        ResponseError: not JSON (the message starts with ``name``).
        CaptureRefused: not a Messages request, or no document (then there is ``nothing``).
    """
    from citelint.imports.documents import load_json, request_documents
    from citelint.imports.model import ResponseError

    request = load_json(request_bytes, name)  # its errors already start with name
    try:
        documents = request_documents(request)
    except ResponseError as exc:
        raise CaptureRefused(f"{name}: {exc.where + ': ' if exc.where else ''}{exc}") from None
    if not documents:
        raise CaptureRefused(f"{name}: the request sent no document or search_result block; there is {nothing}")
    return documents


def record_request(captures_dir: Path, request_bytes: bytes, *, source_map: dict[str, str],
                   sources: Sequence[str], settings: CaptureSettings,
                   retrieved_at: str | None = None, name: str = "the request") -> list[DocumentOutcome]:
    """Record every document an Anthropic Messages request sent (text and
    custom-content documents, ``search_result`` blocks; base64 PDFs through
    the PDF extractor the config names) as a capture of its source, one
    batch (DESIGN §9).

    Each document's text is derived by
    :func:`citelint.imports.documents.request_documents`, the function
    ``citelint import`` names captures by. Its source is the source map's
    entry (:mod:`citelint.imports.sourcemap`), else the URL the request
    gives (a search result's ``source``); it must be approved exactly, as
    for ``--from-file``. Records are ``citelint.capture/2`` with extractor
    ``anthropic-request`` (this citelint's version; options locate the
    document, and name the PDF extractor that ran), ``rawSha256`` and
    ``batch`` both the SHA-256 of ``request_bytes``, which are kept as the
    raw body unless ``settings.keep_raw`` is False, and one ``retrievedAt``
    (``retrieved_at``, default now) for the whole batch.

    Returns:
        One outcome per document, in request order; a document that cannot
        be recorded (no source, unapproved, no text) is ``refused``.

    Raises:
        ResponseError: the request file is not JSON (``name:line:col: ...``).
        CaptureRefused: the request is not a Messages request, or sent no
            document (nothing is written); the message starts with ``name``
            (the request file), and gives a JSON syntax error's line and column.
    """
    from citelint import __version__
    from citelint.imports.sourcemap import document_source, how_to_map
    from citelint.store.record import Extractor, utc_now

    documents = _request_documents(request_bytes, name, "nothing to record")
    digest = sha256_hex(request_bytes)
    refuse_ahead(retrieved_at)
    when = retrieved_at or utc_now()
    results = []
    for doc in documents:
        source, mapped_by, keys = document_source(doc, source_map)
        try:
            if source is None:
                raise CaptureRefused(f"no source URL: {how_to_map(keys)}")
            check_source(source, sources, fetching=False)
            content_type = "text/plain"
            pdf = None
            if doc.text is None and doc.data is not None:
                content_type = doc.media_type
                media = check_content_type(content_type, tuple(settings.content_types), settings.extractor_for)
                pdf = settings.extractor_for(media)
            text, inner = _document_text(doc, pdf, settings.timeout_s)
            _check_size(text.encode("utf-8"), settings.max_bytes, "document text")
            extractor = Extractor(REQUEST_EXTRACTOR, __version__,
                                  _request_options(doc, inner.to_obj() if inner is not None else None))
            record = make_record(source, text, retrieved_at=when, content_type=content_type,
                                 extractor=extractor, raw_sha256=digest, batch=digest)
            outcome = _record_outcome(captures_dir, record, request_bytes if settings.keep_raw else None)
        except (CaptureRefused, TextRejected) as exc:
            outcome = CaptureOutcome(source=source or doc.label, status=REFUSED, reason=str(exc))
        results.append(DocumentOutcome(doc.label, outcome, mapped_by))
    return results


class Approval(NamedTuple):
    """One document of a request, for ``capture --from-request --approve-sources``:
    ``document`` its label, ``url`` its source (None: none found), and ``status`` one of
    ``to approve`` (an approvable URL not yet in ``sources``), ``approved`` (already in it)
    or ``refused`` (no URL, or one the capture policy would refuse), with ``reason``;
    ``mapped_by`` is the source map key that gave the URL, if one did."""

    document: str
    url: str | None
    status: str
    reason: str = ""
    mapped_by: str | None = None


def sources_to_approve(request_bytes: bytes, *, source_map: dict[str, str], sources: Sequence[str],
                       name: str = "the request") -> list[Approval]:
    """What approving the sources of an Anthropic Messages request takes: each document's
    source, found as :func:`record_request` finds it (:func:`citelint.imports.sourcemap.document_source`),
    and whether the config's ``sources`` hold it already. Nothing is written: the operator
    adds the sources and commits the config, and only then are they captured.

    Returns:
        One :class:`Approval` per document, in request order.

    Raises:
        ResponseError: the request file is not JSON (``name:line:col: ...``).
        CaptureRefused: the request is not a Messages request, or sent no document.
    """
    from citelint.imports.sourcemap import document_source, how_to_map

    documents = _request_documents(request_bytes, name, "no source to approve")
    out = []
    for doc in documents:
        url, key, keys = document_source(doc, source_map)
        if url is None:
            out.append(Approval(doc.label, None, REFUSED, f"no source URL: {how_to_map(keys)}"))
            continue
        try:
            check_source(url, [url], fetching=False)  # the policy, as if it were approved
        except CaptureRefused as exc:
            out.append(Approval(doc.label, url, REFUSED, f"cannot be approved: {exc}", key))
            continue
        # A document whose content the request does not hold (a `url` source) cannot be
        # recorded from it: once approved, it is fetched like any source.
        later = "" if doc.text is not None or doc.data is not None else \
            f"{doc.problem}: once approved, capture it with citelint capture URL"
        out.append(Approval(doc.label, url, "approved" if url in sources else "to approve", later, key))
    return out
