"""The capture record (DESIGN §2.2): its fields, its JSON form, and its checks.

A record is one captured revision of one source. This module builds one from
text (:func:`make_record`), writes its exact JSON form
(:meth:`CaptureRecord.to_json`) and verifies one read back
(:func:`parse_record`): exact keys, types, format, the digest of the text,
and an RFC 3339 UTC ``retrievedAt``. Where records live on disk is
:mod:`citelint.store.captures`' business.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import NamedTuple

from citelint.files import decode_utf8

CAPTURE_FORMAT = "citelint.capture/1"
#: Records of an extracted text (HTML, PDF): the v1 keys plus the extractor and the raw body's digest.
CAPTURE_FORMAT_V2 = "citelint.capture/2"
RECORD_KEYS = frozenset({"format", "source", "sha256", "text", "retrievedAt", "contentType", "bytes"})
RECORD_KEYS_V2 = RECORD_KEYS | {"extractor", "rawSha256"}
#: v2 records written before batches existed have no ``batch`` key: it then reads as null.
RECORD_KEYS_V2_BATCH = RECORD_KEYS_V2 | {"batch"}
EXTRACTOR_KEYS = frozenset({"name", "version", "options"})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_RFC3339_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z")
_BOM = "\ufeff"


class CaptureError(Exception):
    """Base class of store errors. ``str()`` is a message for the user."""


class CaptureMissing(CaptureError):
    """No capture file exists for the exact (source, sha256)."""


class CaptureCorrupt(CaptureError):
    """A capture file exists but fails its integrity checks (CL103)."""


class TextRejected(CaptureError):
    """Text offered for capture is not acceptable (not UTF-8, too large, empty)."""


def sha256_hex(data: str | bytes) -> str:
    """Lowercase hex SHA-256 of ``data`` (``str`` is encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def is_rfc3339_utc(stamp: str) -> bool:
    """True for an RFC 3339 (§5.6) UTC date-time that exists on the calendar:
    ``YYYY-MM-DDTHH:MM:SS[.fraction]Z``, month 1–12, a day the month has,
    hours 00–23, minutes 00–59, seconds 00–60 (a leap second is allowed)."""
    if not _RFC3339_UTC.fullmatch(stamp):
        return False
    try:
        datetime(int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10]))
    except ValueError:
        return False
    return int(stamp[11:13]) <= 23 and int(stamp[14:16]) <= 59 and int(stamp[17:19]) <= 60


def utc_now(*, precise: bool = False) -> str:
    """The current time as RFC 3339 UTC with second precision, e.g. ``2026-11-29T21:30:00Z``
    (``precise``: microseconds, ``2026-11-29T21:30:00.123456Z``)."""
    if precise:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def time_key(stamp: str) -> tuple[str, str]:
    """Sort key for RFC 3339 UTC stamps that may differ in fractional-second digits."""
    base, _, frac = stamp.rstrip("Z").partition(".")
    return base, frac.ljust(9, "0")


def decode_text(body: bytes) -> str:
    """Decode a captured body by :func:`citelint.files.decode_utf8`: strict
    UTF-8, one leading BOM removed (its 3 bytes still count in the record's
    ``bytes``).

    Raises:
        TextRejected: the body is not valid UTF-8 (the message gives the
            byte offset of the first bad byte).
    """
    try:
        return decode_utf8(body)
    except UnicodeDecodeError as exc:
        raise TextRejected(f"not valid UTF-8 at byte {exc.start} ({exc.reason})") from None


class Extractor(NamedTuple):
    """What turned a raw body into a capture's text (record v2's ``extractor``).

    ``name`` is a registered extractor (``html-text``, ``trafilatura``,
    ``pdf-text``, ``pypdf``), ``version`` the version of the library that ran, and
    ``options`` everything else that can change the text (the decoding
    used, the library's own options, the versions of what it parses with),
    as a JSON object. Re-running ``name`` at ``version`` with ``options`` on
    the raw bytes gives the same text (``capture --verify-extraction``).
    """

    name: str
    version: str
    options: dict

    def describe(self) -> str:
        """``name version``, as messages name the extractor."""
        return f"{self.name} {self.version}"

    def to_obj(self) -> dict:
        """The JSON object form."""
        return {"name": self.name, "version": self.version, "options": self.options}


class PageMap(NamedTuple):
    """The pages of an extracted PDF text: ``starts[i]`` is the code-point
    offset where page ``i + 1`` starts (the text's pages are separated by
    ``\\f``), ``labels[i]`` its printed label or None, ``verdicts[i]`` the
    recorded verdict on its text layer (``usable``, ``no text``,
    ``garbled``) or None where none was recorded."""

    starts: list[int]
    labels: list[str | None]
    verdicts: list[str | None]

    def page_of(self, offset: int) -> int:
        """The 1-based page number holding code-point ``offset``."""
        from bisect import bisect_right

        return bisect_right(self.starts, offset)

    def span(self, first: int, last: int, length: int) -> tuple[int, int]:
        """The (start, end) code-point offsets of pages ``first`` to ``last``
        (1-based, inclusive, within the map) in a text of ``length`` code points,
        without the ``\\f`` after the last."""
        end = self.starts[last] - 1 if last < len(self.starts) else length
        return self.starts[first - 1], end

    def shown(self, page: int) -> str:
        """Page ``page`` as messages name it: ``page 4``, or ``page 4 (printed iv)``."""
        label = self.labels[page - 1]
        return f"page {page}" + (f" (printed {label})" if label and label != str(page) else "")


def page_map(text: str, extractor: Extractor | None) -> PageMap | None:
    """The :class:`PageMap` of a capture's ``text`` made by ``extractor``, or
    None when it is no paged text (no extractor, or one that separates no
    pages with ``\\f``). Page starts are where the text's ``\\f`` put them;
    labels and verdicts come from the recorded ``pages`` (``pdf-text``), also
    inside a request capture's inner extractor.

    Raises:
        CaptureCorrupt: a recorded ``pages`` map that disagrees with the text
            (another count of pages, or other starts).
    """
    options = extractor.options if extractor is not None else None
    inner = options.get("extractor") if isinstance(options, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("options"), dict):
        options = inner["options"]
    if not isinstance(options, dict) or options.get("pageSeparator") != "\f":
        return None
    starts = [0] + [m.end() for m in re.finditer("\f", text)]
    recorded = options.get("pages")
    if recorded is None:
        return PageMap(starts, [None] * len(starts), [None] * len(starts))
    if not isinstance(recorded, list) or len(recorded) != len(starts) or any(
            not isinstance(p, dict) or p.get("start") != at for p, at in zip(recorded, starts)):
        raise CaptureCorrupt("the recorded page map disagrees with the text's page breaks")
    return PageMap(starts, [p.get("label") if isinstance(p.get("label"), str) else None for p in recorded],
                   [p.get("verdict") if isinstance(p.get("verdict"), str) else None for p in recorded])


class CaptureRecord(NamedTuple):
    """One captured revision of one source.

    ``bytes`` is the body length in bytes as received (for ``--from-file``
    and ``migrate``: the UTF-8 length of the text). A ``citelint.capture/1``
    record has no ``extractor``: its text is the body, decoded as strict
    UTF-8. A ``citelint.capture/2`` record names the ``extractor`` that made
    ``text`` from the raw body and that body's digest ``raw_sha256`` (the raw
    bytes may be kept beside it as ``<raw_sha256>.raw``). ``batch`` (v2 only)
    is the digest of the request a document or chunk came from, shared by
    every capture recorded from that request; None otherwise. Revisions of
    one batch are siblings, not successors (DESIGN §9).
    """

    source: str
    sha256: str
    text: str
    retrieved_at: str
    content_type: str
    bytes: int
    extractor: Extractor | None = None
    raw_sha256: str | None = None
    batch: str | None = None

    @property
    def format(self) -> str:
        """``citelint.capture/2`` for an extracted text, else ``citelint.capture/1``."""
        return CAPTURE_FORMAT if self.extractor is None else CAPTURE_FORMAT_V2

    def to_json(self) -> str:
        """The record as written to disk: one JSON line ending in a newline.

        ``ensure_ascii`` keeps the file pure ASCII, so no editor, encoding
        setting or line-ending filter can alter the text it carries.
        """
        # The head (format, source, sha256, retrievedAt) comes first, in this
        # order: read_head_date reads CL106's dates from it without parsing.
        obj: dict[str, object] = {
            "format": self.format,
            "source": self.source,
            "sha256": self.sha256,
            "retrievedAt": self.retrieved_at,
            "contentType": self.content_type,
            "bytes": self.bytes,
        }
        if self.extractor is not None:
            obj["extractor"] = self.extractor.to_obj()
            obj["rawSha256"] = self.raw_sha256
            obj["batch"] = self.batch
        obj["text"] = self.text
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":")) + "\n"


def make_record(source: str, text: str, *, retrieved_at: str | None = None,
                content_type: str = "text/plain", wire_bytes: int | None = None,
                extractor: Extractor | None = None, raw_sha256: str | None = None,
                batch: str | None = None) -> CaptureRecord:
    """Build a record for ``text`` of ``source``, computing its digest.

    ``retrieved_at`` defaults to now (RFC 3339 UTC); ``wire_bytes`` defaults
    to the UTF-8 length of ``text``. With ``extractor`` (and the raw body's
    ``raw_sha256``) the record is a ``citelint.capture/2`` one; ``batch``
    (64 lowercase hex, v2 only) names the request it came from.

    Raises:
        TextRejected: ``text`` contains lone surrogates (not encodable as UTF-8),
            or ``retrieved_at`` is not RFC 3339 UTC.
    """
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise TextRejected("text contains lone surrogates and cannot be encoded as UTF-8") from None
    when = retrieved_at or utc_now()
    if not is_rfc3339_utc(when):
        raise TextRejected(f"retrievedAt must be a real RFC 3339 UTC time like 2026-01-31T12:00:00Z, got {when!r}")
    if (extractor is None) != (raw_sha256 is None):
        raise TextRejected("an extracted text needs both its extractor and the raw body's digest")
    if batch is not None and (extractor is None or not _HEX64.fullmatch(batch)):
        raise TextRejected("a batch is 64 lowercase hex digits and belongs to an extracted (v2) record")
    return CaptureRecord(source=source, sha256=sha256_hex(encoded), text=text,
                         retrieved_at=when, content_type=content_type,
                         bytes=len(encoded) if wire_bytes is None else wire_bytes,
                         extractor=extractor, raw_sha256=raw_sha256, batch=batch)


def check_digest(text: str, recorded: str, mismatch: str) -> None:
    """Refuse a record whose ``text`` does not hash to its ``recorded``
    digest, with ``mismatch`` as the message.

    Raises:
        CaptureCorrupt: lone surrogates in ``text``, or a digest mismatch.
    """
    try:
        actual = sha256_hex(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise CaptureCorrupt("text contains lone surrogates") from None
    if recorded != actual:
        raise CaptureCorrupt(mismatch)


class _Refused(ValueError):
    """Carries a strict-JSON refusal out of the decoder's hooks."""


def strict_json(data: bytes, what: str, error: type[Exception]) -> object:
    """``data`` (UTF-8 JSON) decoded strictly: no duplicate key (DESIGN §8: Python's
    ``json`` keeps the last), no NaN or Infinity constant.

    ``what`` names the data in messages (``"capture file"``).

    Raises:
        error: not UTF-8, not valid JSON (too deep included), a duplicate key or a
            non-JSON constant; the message says which, starting with ``what``.
    """
    def no_dupes(pairs: list[tuple[str, object]]) -> dict[str, object]:
        obj: dict[str, object] = {}
        for k, v in pairs:
            if k in obj:
                raise _Refused(f"{what} has a duplicate key {k!r}")
            obj[k] = v
        return obj

    def bad_constant(name: str) -> object:
        raise _Refused(f"{what} holds the non-JSON constant {name}")

    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=no_dupes, parse_constant=bad_constant)
    except UnicodeDecodeError:
        raise error(f"{what} is not UTF-8") from None
    except _Refused as exc:
        raise error(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise error(f"{what} is not valid JSON ({exc})") from None


def parse_record(data: bytes, *, source: str | None = None, sha256: str | None = None) -> CaptureRecord:
    """Parse and verify one capture file's bytes.

    Checks, in order: UTF-8 JSON object with no duplicate keys; the exact key
    set; field types; ``format``; the stored digest against the text; and,
    when given, the ``source`` and ``sha256`` the path was derived from.

    Raises:
        CaptureCorrupt: any check fails (the message says which).
    """
    obj = strict_json(data, "capture file", CaptureCorrupt)
    if not isinstance(obj, dict):
        raise CaptureCorrupt("capture file is not a JSON object")
    keys = set(obj)
    expected = RECORD_KEYS_V2 if obj.get("format") == CAPTURE_FORMAT_V2 else RECORD_KEYS
    if expected is RECORD_KEYS_V2 and "batch" in keys:
        expected = RECORD_KEYS_V2_BATCH
    if keys != expected:
        missing, extra = sorted(expected - keys), sorted(keys - expected)
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + \
                ([f"unknown {', '.join(extra)}"] if extra else [])
        raise CaptureCorrupt("record keys are wrong: " + "; ".join(parts))
    for key in ("format", "source", "sha256", "text", "retrievedAt", "contentType"):
        if not isinstance(obj[key], str):
            raise CaptureCorrupt(f"{key} is not a string")
    if not isinstance(obj["bytes"], int) or isinstance(obj["bytes"], bool) or obj["bytes"] < 0:
        raise CaptureCorrupt("bytes is not a non-negative integer")
    if obj["format"] not in (CAPTURE_FORMAT, CAPTURE_FORMAT_V2):
        raise CaptureCorrupt(f"format is {obj['format']!r}, expected {CAPTURE_FORMAT!r} or {CAPTURE_FORMAT_V2!r}")
    extractor = _parse_extractor(obj) if expected is not RECORD_KEYS else None
    batch = obj.get("batch")
    if batch is not None and (not isinstance(batch, str) or not _HEX64.fullmatch(batch)):
        raise CaptureCorrupt("batch is neither null nor 64 lowercase hex digits")
    if not is_rfc3339_utc(obj["retrievedAt"]):
        # CL106 orders revisions by this stamp: one that is not a real UTC
        # time could make any revision look newest.
        raise CaptureCorrupt(f"retrievedAt {obj['retrievedAt'][:40]!r} is not an RFC 3339 UTC time like "
                             "2026-01-31T12:00:00Z")
    check_digest(obj["text"], obj["sha256"],
                  "text does not match its recorded sha256 (the capture was altered)")
    if sha256 is not None and obj["sha256"] != sha256:
        raise CaptureCorrupt("recorded sha256 disagrees with the file name")
    if source is not None and obj["source"] != source:
        raise CaptureCorrupt(f"recorded source {obj['source']!r} disagrees with the directory "
                             f"(derived from {source!r})")
    return CaptureRecord(source=obj["source"], sha256=obj["sha256"], text=obj["text"],
                         retrieved_at=obj["retrievedAt"], content_type=obj["contentType"],
                         bytes=obj["bytes"], extractor=extractor,
                         raw_sha256=obj["rawSha256"] if extractor is not None else None, batch=batch)


def _parse_extractor(obj: dict) -> Extractor:
    """The ``extractor`` and ``rawSha256`` of a v2 record, checked.

    Raises:
        CaptureCorrupt: a wrong shape (the message says which).
    """
    raw = obj["rawSha256"]
    if not isinstance(raw, str) or not _HEX64.fullmatch(raw):
        raise CaptureCorrupt("rawSha256 is not 64 lowercase hex digits")
    ext = obj["extractor"]
    if not isinstance(ext, dict) or set(ext) != EXTRACTOR_KEYS:
        raise CaptureCorrupt("extractor is not an object with exactly name, version and options")
    if not (isinstance(ext["name"], str) and ext["name"] and isinstance(ext["version"], str)):
        raise CaptureCorrupt("extractor name and version are not strings")
    if not isinstance(ext["options"], dict):
        raise CaptureCorrupt("extractor options is not an object")
    return Extractor(ext["name"], ext["version"], ext["options"])
