"""citelint: a linter that keeps generated reports honest about their sources.

Every accepted excerpt occurs verbatim in the exact captured revision of the
exact source the report names; every link in a Markdown report points at a
source that was actually captured.

The names in ``__all__`` are the public Python API (docs/api.md); each is
loaded on first use (PEP 562), so ``import citelint`` and ``citelint
check`` do not pay for the API. Everything else in the package is internal.
"""

import typing as _typing

__version__ = "0.1.0"

if _typing.TYPE_CHECKING:
    # For type checkers only: at run time these load on first attribute access (__getattr__).
    from citelint.api.capture import CaptureRef
    from citelint.api.links import Allowlist, Enforced, RemovedLink, enforce_links
    from citelint.api.project import Project
    from citelint.api.prompt import Context, Imported
    from citelint.api.result import AcceptedFact, AcceptedQuotation, Counts, Finding, Result, Review
    from citelint.capture.policy import CaptureRefused
    from citelint.errors import CitelintError, ConfigError, FindingsError, UsageError

#: Public name -> the module that defines it, imported on first use.
_LAZY = {
    "Project": "citelint.api.project",
    "Result": "citelint.api.result",
    "Finding": "citelint.api.result",
    "AcceptedFact": "citelint.api.result",
    "AcceptedQuotation": "citelint.api.result",
    "Counts": "citelint.api.result",
    "Review": "citelint.api.result",
    "Enforced": "citelint.api.links",
    "RemovedLink": "citelint.api.links",
    "CaptureRef": "citelint.api.capture",
    "Context": "citelint.api.prompt",
    "Imported": "citelint.api.prompt",
    "Allowlist": "citelint.api.links",
    "enforce_links": "citelint.api.links",
    "CitelintError": "citelint.errors",
    "UsageError": "citelint.errors",
    "ConfigError": "citelint.errors",
    "FindingsError": "citelint.errors",
    "CaptureRefused": "citelint.capture.policy",
}

#: The public API: every name of _LAZY, and the version (tests/test_api.py keeps the two lists equal).
__all__ = [
    "__version__",
    "Project",
    "Result",
    "Finding",
    "AcceptedFact",
    "AcceptedQuotation",
    "Counts",
    "Review",
    "Enforced",
    "RemovedLink",
    "CaptureRef",
    "Context",
    "Imported",
    "Allowlist",
    "enforce_links",
    "CitelintError",
    "UsageError",
    "ConfigError",
    "FindingsError",
    "CaptureRefused",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
