"""The trusted capture stage (DESIGN §5): fetch approved sources, or record
text a pipeline already holds, and add them to the capture store.

Modules, one job each:

- :mod:`~citelint.capture.policy`: which sources may be fetched, and from
  which addresses; the ``Content-Type`` check.
- :mod:`~citelint.capture.transport`: the bounded urllib3 fetcher (one
  deadline, TLS, the byte-limited body reader).
- :mod:`~citelint.capture.stage`: recording (``record_text``, ``run_capture``)
  and the outcomes the command line prints.

This is the public API. ``citelint check`` never imports this package.
"""

from __future__ import annotations

from citelint.capture.policy import (
    DEFAULT_CONTENT_TYPES,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_S,
    CaptureRefused,
    FetchOptions,
    SourceTarget,
    address_problem,
    check_content_type,
    check_source,
)
from citelint.capture.stage import (
    ALREADY_CAPTURED,
    CAPTURED,
    REFUSED,
    WOULD_FETCH,
    CaptureOutcome,
    capture_one,
    read_input,
    record_text,
    run_capture,
    select_sources,
)
from citelint.capture.transport import Fetched, Fetcher, make_ssl_context

__all__ = [
    "ALREADY_CAPTURED",
    "CAPTURED",
    "DEFAULT_CONTENT_TYPES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT_S",
    "REFUSED",
    "WOULD_FETCH",
    "CaptureOutcome",
    "CaptureRefused",
    "FetchOptions",
    "Fetched",
    "Fetcher",
    "SourceTarget",
    "address_problem",
    "capture_one",
    "check_content_type",
    "check_source",
    "make_ssl_context",
    "read_input",
    "record_text",
    "run_capture",
    "select_sources",
]
