"""Output formatters: pure functions of a :class:`~citelint.model.CheckResult`.

Each format module exposes ``render(result, out, options)``; ``FORMATTERS``
maps format names to them, and the CLI takes its ``--format`` choices from
this registry. Formatters never read configuration, print to ``sys.stdout``
or choose exit codes.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Callable, TextIO

from citelint.model import CheckResult, Finding

#: Format name -> module implementing ``render``; imported on first use.
FORMATTERS: dict[str, str] = {
    "text": "citelint.report.text",
    "github": "citelint.report.github",
    "json": "citelint.report.jsonout",
    "sarif": "citelint.report.sarif",
}


@dataclass(frozen=True)
class RenderOptions:
    """What a formatter may be told: colour (text only), quiet (hide warnings
    and notices), and the citelint version to embed."""

    color: bool = False
    quiet: bool = False
    version: str = ""


def renderer(name: str) -> Callable[[CheckResult, TextIO, RenderOptions], None]:
    """The ``render`` function of format ``name``.

    Raises:
        KeyError: unknown format.
    """
    return importlib.import_module(FORMATTERS[name]).render  # type: ignore[no-any-return]


# Untrusted text (snippets, sources, capture text) may carry terminal escape
# sequences or bidirectional overrides that would rewrite what a reader sees.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def neutralize(text: str) -> str:
    """Replace control, C1 and bidi-override characters with visible ``\\uXXXX``
    escapes (tab and newline become ``\\t`` and ``\\n`` too)."""
    text = text.replace("\t", "\\t").replace("\n", "\\n")
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def code_span(text: str) -> str:
    """``text`` as a Markdown inline code span: shown literally, never linked.

    The fence is longer than any backtick run in ``text`` (CommonMark §6.1).
    """
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def visible(findings: list[Finding], quiet: bool) -> list[Finding]:
    """Findings a format shows: with ``quiet``, errors only."""
    return [f for f in findings if f.severity == "error"] if quiet else findings


def summary_line(result: CheckResult) -> str:
    """The one-line summary every format prints (DESIGN §4)."""
    errors, warnings = result.count("error"), result.count("warning")
    facts = result.facts_cited + result.facts_unavailable
    parts = [
        f"{result.files} file{'s' * (result.files != 1)}",
        f"{facts} fact{'s' * (facts != 1)} ({result.facts_cited} cited, {result.facts_unavailable} unavailable)",
        f"{result.links} link{'s' * (result.links != 1)} ({result.links_grounded} grounded)",
    ]
    verdict = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    notices = len(result.notices)
    tail = f", {notices} for semantic review" if notices else ""
    return "citelint: " + ", ".join(parts) + f": {verdict}{tail}"
