"""The trusted capture stage (DESIGN §5): fetch approved sources, or record
text a pipeline already holds, and add them to the capture store.

Modules, one job each:

- :mod:`~citelint.capture.policy`: which sources may be fetched, and from
  which addresses; the ``Content-Type`` check; the settings check.
- :mod:`~citelint.capture.transport`: the bounded urllib3 fetcher (one
  deadline, TLS, the byte-limited body reader).
- :mod:`~citelint.capture.stage`: recording (``record_text``, ``record_request``,
  ``run_capture``) and the outcomes the command line prints.
- :mod:`~citelint.capture.extract`: the HTML and PDF extractors, run in a
  bounded child process; imported only when a body needs one.
- :mod:`~citelint.capture.reproduce`: ``--verify-extraction``.
- :mod:`~citelint.capture.sign`: signing captures (``--sign-key``,
  ``citelint attest``; docs/evidence.md).

These are the stage's entry points inside citelint (the public API is
``citelint.Project.capture`` and ``record``, docs/api.md, which call them).
Importing it loads no network library: urllib3 is
imported when a fetch is made (or a transport name below is first used).
``citelint check`` never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from citelint.capture.policy import (
    CaptureRefused,
    SourceTarget,
    address_problem,
    check_content_type,
    check_settings,
    check_source,
)
from citelint.capture.sniff import ContentTypeUnclear
from citelint.capture.stage import (
    ALREADY_CAPTURED,
    CAPTURED,
    REFUSED,
    WOULD_FETCH,
    CaptureOutcome,
    DocumentOutcome,
    capture_one,
    read_input,
    record_request,
    record_text,
    run_capture,
    select_sources,
)
from citelint.settings import DEFAULT_CONTENT_TYPES, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_S, CaptureSettings

if TYPE_CHECKING:
    from citelint.capture.transport import Fetched, Fetcher, make_ssl_context

#: Names served from :mod:`citelint.capture.transport` on first use (PEP 562).
_TRANSPORT = frozenset({"Fetched", "Fetcher", "make_ssl_context"})

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
    "CaptureSettings",
    "ContentTypeUnclear",
    "DocumentOutcome",
    "Fetched",
    "Fetcher",
    "SourceTarget",
    "address_problem",
    "capture_one",
    "check_content_type",
    "check_settings",
    "check_source",
    "make_ssl_context",
    "read_input",
    "record_request",
    "record_text",
    "run_capture",
    "select_sources",
]


def __getattr__(name: str) -> object:
    if name in _TRANSPORT:
        from citelint.capture import transport

        return getattr(transport, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
