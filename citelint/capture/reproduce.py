"""``capture --verify-extraction``: re-run each extracted capture's recorded
extractor on its kept raw body and report any text that differs.

Meant for the trusted CI job: a difference means another version of the
extractor (or of what it parses with) is installed, or that a capture or
its raw body was altered. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from citelint.capture.stage import REQUEST_EXTRACTOR
from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.store.captures import MAX_CAPTURE_FILE_BYTES, CaptureError, CaptureRecord, Store, raw_path, sha256_hex

#: Outcome statuses, as printed.
REPRODUCED = "reproduced"
DIFFERS = "differs"
NOT_VERIFIABLE = "not verifiable"
PLAIN = "plain text"


@dataclass(frozen=True)
class Reproduction:
    """What re-running one capture's extractor showed.

    ``status`` is ``reproduced``, ``differs`` (the text, the raw body or the
    record does not hold up), ``not verifiable`` (no raw body was kept) or
    ``plain text`` (a v1 record: nothing was extracted). ``detail`` says
    more; ``path`` is the capture file. A named source with no verified
    capture is one ``differs`` row with ``sha256`` ``-``.
    """

    path: Path
    source: str
    sha256: str
    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        """True for ``differs``: the command exits 1."""
        return self.status == DIFFERS


#: Extractor options that are outputs, not settings: the ``pdf-text`` page map
#: and verdicts (:mod:`citelint.capture.pdftext`), which check relies on.
OUTPUT_OPTIONS = ("pages",)


def _outputs_differ(again: dict, recorded: dict) -> str:
    """What differs between the recorded outputs (:data:`OUTPUT_OPTIONS`) and a re-run's, or ""."""
    for key in OUTPUT_OPTIONS:
        if again.get(key) != recorded.get(key):
            if key == "pages" and isinstance(again.get(key), list) and isinstance(recorded.get(key), list):
                got, had = again[key], recorded[key]
                at = next((i for i, (a, b) in enumerate(zip(got, had)) if a != b), min(len(got), len(had)))
                return (f"the page map differs at page {at + 1} (recorded {len(had)} pages, "
                        f"re-run {len(got)})")
            return f"the recorded {key} differ"
    return ""


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _reproduce_request(path: Path, rec: CaptureRecord, raw: bytes, deadline_s: float) -> Reproduction:
    """Re-derive an ``anthropic-request`` capture's text from its raw request
    with :func:`citelint.capture.stage.request_document_text`."""
    from citelint.capture.policy import CaptureRefused
    from citelint.capture.stage import request_document_text

    assert rec.extractor is not None
    try:
        again, inner = request_document_text(raw, rec.extractor.options, deadline_s=deadline_s)
    except CaptureRefused as exc:
        return Reproduction(path, rec.source, rec.sha256, DIFFERS, f"re-deriving it from the request failed: {exc}")
    if again != rec.text:
        return Reproduction(path, rec.source, rec.sha256, DIFFERS,
                            f"the text differs from character {_first_difference(again, rec.text)} on "
                            f"(recorded {rec.extractor.describe()})")
    recorded = rec.extractor.options.get("extractor")
    if inner is not None and isinstance(recorded, dict) and isinstance(recorded.get("options"), dict):
        diff = _outputs_differ(inner.options, recorded["options"])
        if diff:
            return Reproduction(path, rec.source, rec.sha256, DIFFERS, f"same text, but {diff}")
    return Reproduction(path, rec.source, rec.sha256, REPRODUCED,
                        f"from document {rec.extractor.options.get('index')} of the request")


def verify_extraction(captures_dir: Path, sources: Sequence[str] = (), *,
                      deadline_s: float = 30.0, require_raw: bool = False) -> Iterator[Reproduction]:
    """Re-run the extraction of every capture (of ``sources`` only, when
    given), yielding one :class:`Reproduction` per capture file, in store
    order. Each extractor runs bounded by ``deadline_s`` seconds
    (:func:`citelint.capture.extract.run_extractor`). With ``require_raw``
    (``capture.keep_raw``), a missing raw body is ``differs``, not ``not
    verifiable``.
    """
    from citelint.capture.extract import ExtractionFailed, run_extractor

    wanted = set(sources)
    seen: set[str] = set()
    store = Store(captures_dir)
    for path, rec in store.iter_records():
        if isinstance(rec, CaptureError):
            if not wanted:
                yield Reproduction(path, "", path.stem, DIFFERS, f"the capture is corrupt: {rec}")
            continue
        if wanted and rec.source not in wanted:
            continue
        seen.add(rec.source)
        if rec.extractor is None or rec.raw_sha256 is None:
            yield Reproduction(path, rec.source, rec.sha256, PLAIN, "a citelint.capture/1 record: its text is the body")
            continue
        raw_file = raw_path(captures_dir, rec.source, rec.raw_sha256)
        try:
            raw = read_regular(raw_file, MAX_CAPTURE_FILE_BYTES, follow_symlinks=False)
        except FileNotFoundError:
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS if require_raw else NOT_VERIFIABLE,
                               f"no raw body {raw_file.name} is kept" +
                               (" though capture.keep_raw is on; restore it from git" if require_raw else
                                " (capture.keep_raw is off)"))
            continue
        except (OSError, FileTooLarge, NotRegularFile) as exc:
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS, f"the raw body cannot be read ({exc})")
            continue
        if sha256_hex(raw) != rec.raw_sha256:
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS,
                               f"the raw body {raw_file.name} does not match its name (it was altered)")
            continue
        if rec.extractor.name == REQUEST_EXTRACTOR:
            yield _reproduce_request(path, rec, raw, deadline_s)
            continue
        try:
            again = run_extractor(rec.extractor.name, raw, rec.content_type, deadline_s=deadline_s)
        except ExtractionFailed as exc:
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS, f"re-running it failed: {exc}")
            continue
        ran = again.extractor.describe()
        versions = f"recorded {rec.extractor.describe()}, ran {ran}"
        if again.text != rec.text:
            at = _first_difference(again.text, rec.text)
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS,
                               f"the text differs from character {at} on ({versions})")
        elif (diff := _outputs_differ(again.extractor.options, rec.extractor.options)):
            yield Reproduction(path, rec.source, rec.sha256, DIFFERS, f"same text, but {diff} ({versions})")
        elif again.extractor.options != rec.extractor.options:
            yield Reproduction(path, rec.source, rec.sha256, REPRODUCED,
                               f"same text; options differ ({versions})")
        else:
            yield Reproduction(path, rec.source, rec.sha256, REPRODUCED, f"by {ran}")
    for source in sorted(wanted - seen):
        # A mistyped URL in a CI job must not pass as "nothing to verify".
        yield Reproduction(store.root, source, "-", DIFFERS, "no capture of this source verifies; check the URL")
