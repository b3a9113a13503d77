"""The documented import path of the capture stage, kept for compatibility.

``from citelint.fetch import record_text`` keeps working; new code imports
from :mod:`citelint.capture`, whose public names this module re-exports
unchanged (the transport ones, like there, load urllib3 on first use).
"""

from __future__ import annotations

from citelint import capture as _capture
from citelint.capture import (  # noqa: F401
    ALREADY_CAPTURED,
    CAPTURED,
    DEFAULT_CONTENT_TYPES,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_S,
    REFUSED,
    WOULD_FETCH,
    CaptureOutcome,
    CaptureRefused,
    CaptureSettings,
    SourceTarget,
    __all__,
    address_problem,
    capture_one,
    check_content_type,
    check_settings,
    check_source,
    read_input,
    record_text,
    run_capture,
    select_sources,
)


def __getattr__(name: str) -> object:
    if name in __all__:
        return getattr(_capture, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
