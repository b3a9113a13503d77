"""The trusted stage from Python: :meth:`citelint.Project.capture` and
:meth:`~citelint.Project.record`, and the :class:`CaptureRef` they return.

Both run the capture stage's own functions (:mod:`citelint.capture`, what
``citelint capture`` runs) with the project's settings; a refusal is a
:class:`~citelint.capture.policy.CaptureRefused`, never an outcome to
inspect, and nothing prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citelint.errors import UsageError

#: The capture stage's advice names its command-line flag; the API names its argument.
_FLAG = re.compile(r"--content-type (\S+)")

if TYPE_CHECKING:
    from citelint.capture import CaptureOutcome
    from citelint.config import Config


@dataclass(frozen=True)
class CaptureRef:
    """A capture the trusted stage wrote or found already written.

    ``source`` is the source URL exactly as approved, ``capture_sha256`` the
    revision (sha256 of the captured text: what a fact's ``captureSha256``
    and a quotation link's ``capture:`` title name), ``path`` the record's
    absolute path, ``created`` False when an identical capture already
    existed (nothing was written), ``bytes`` the body's length as received,
    ``warning`` what deserves a second look ('' when nothing does: a
    declared media type the body's bytes contradict).
    """

    source: str
    capture_sha256: str
    path: Path
    created: bool
    bytes: int
    warning: str = ""


def _ref(outcome: CaptureOutcome) -> CaptureRef:
    """The reference of a ``captured`` or ``already captured`` outcome."""
    return CaptureRef(outcome.source, outcome.sha256 or "", outcome.path or Path(), outcome.status == "captured",
                      outcome.bytes or 0, outcome.warning)


def capture(config: Config, url: str) -> CaptureRef:
    """Fetch ``url`` with ``config``'s sources and capture settings and write its capture.

    Raises:
        CaptureRefused: the settings, the source, the fetch or the body were refused.
    """
    from citelint.capture import CaptureRefused, capture_one, check_settings

    check_settings(config.capture)
    outcome = capture_one(config.captures_dir, url, config.sources, config.capture)
    if outcome.failed:
        raise CaptureRefused(f"{url}: {outcome.reason}")
    return _ref(outcome)


def record(config: Config, source: str, body: str | bytes, content_type: str | None,
           retrieved_at: str | None) -> CaptureRef:
    """Record ``body`` as a capture of ``source`` with ``config``'s settings.

    Raises:
        UsageError: ``body`` is neither str nor bytes.
        CaptureRefused: as :func:`citelint.capture.record_text`.
    """
    from citelint.capture import CaptureRefused, check_settings, record_text

    if not isinstance(body, (str, bytes)):
        raise UsageError(f"record takes the body as str or bytes, got {type(body).__name__}")
    settings = config.capture
    check_settings(settings)
    try:
        return _ref(record_text(config.captures_dir, source, body, sources=config.sources,
                                max_bytes=settings.max_bytes, content_type=content_type,
                                content_types=settings.content_types, retrieved_at=retrieved_at,
                                extractors=settings.extractors, keep_raw=settings.keep_raw,
                                timeout_s=settings.timeout_s))
    except CaptureRefused as exc:
        # The trusted stage words its advice for the command line; a library call names its argument.
        words = _FLAG.sub(r"content_type='\1'", str(exc))
        if words == str(exc):
            raise
        raise CaptureRefused(words) from None
