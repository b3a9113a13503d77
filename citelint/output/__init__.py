"""Output formatters: pure functions of a :class:`~citelint.model.CheckResult`.

Each format module exposes ``render(result, out, options)``; ``FORMATTERS``
maps format names to them, and the CLI takes its ``--format`` choices from
this registry. Formatters never read configuration, print to ``sys.stdout``
or choose exit codes.
"""

from __future__ import annotations

import importlib
from typing import Callable, NamedTuple, TextIO

from citelint.model import CheckResult, Finding

#: Format name -> module implementing ``render``; imported on first use.
FORMATTERS: dict[str, str] = {
    "text": "citelint.output.text",
    "github": "citelint.output.github",
    "json": "citelint.output.json",
    "sarif": "citelint.output.sarif",
    "summary": "citelint.output.summary",
}


class RenderOptions(NamedTuple):
    """What a formatter may be told: colour (text only), quiet (hide warnings
    and notices), strict (warnings fail the run, so quiet still shows them),
    the citelint version to embed, and ``blob_url``, the prefix that turns a
    finding's path into a link to the file at the commit checked (summary
    only; ``""``: no links; see :func:`citelint.output.summary.blob_url`).
    ``repo_prefix`` is put before each finding's path where a format names
    files to the repository rather than to the user (GitHub annotations,
    SARIF, summary links): the run's directory relative to the repository
    root, ending in ``/`` (empty: the root itself). ``review`` lists the
    accepted citations for semantic review in text output (otherwise one
    line counts them); ``statistics`` prints counts per rule instead of the
    findings (text output)."""

    color: bool = False
    quiet: bool = False
    strict: bool = False
    version: str = ""
    blob_url: str = ""
    repo_prefix: str = ""
    review: bool = False
    statistics: bool = False


def renderer(name: str) -> Callable[[CheckResult, TextIO, RenderOptions], None]:
    """The ``render`` function of format ``name``.

    Raises:
        KeyError: unknown format.
    """
    return importlib.import_module(FORMATTERS[name]).render  # type: ignore[no-any-return]


def visible(findings: list[Finding], options: RenderOptions) -> list[Finding]:
    """Findings a format shows: with ``quiet``, only those that fail the run
    (errors, and warnings too under ``strict``)."""
    if not options.quiet:
        return findings
    failing = ("error", "warning") if options.strict else ("error",)
    return [f for f in findings if f.severity in failing]


def repo_prefix(cwd: str, workspace: str | None) -> str:
    """:attr:`RenderOptions.repo_prefix` for a run in ``cwd`` of the checkout at
    ``workspace`` (``GITHUB_WORKSPACE``): ``sub/dir/``, or '' when there is no
    workspace, ``cwd`` is the workspace, or ``cwd`` is outside it."""
    import os

    if not workspace:
        return ""
    try:
        rel = os.path.relpath(os.path.realpath(cwd), os.path.realpath(workspace))
    except ValueError:
        return ""
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep):
        return ""
    return rel.replace(os.sep, "/") + "/"


def summary_line(result: CheckResult) -> str:
    """The one-line summary every format prints (DESIGN §4)."""
    errors, warnings = result.count("error"), result.count("warning")
    facts = result.facts_cited + result.facts_unavailable + result.facts_invalid
    invalid = f", {result.facts_invalid} invalid" if result.facts_invalid else ""
    parts = [
        f"{result.files} file{'s' * (result.files != 1)}",
        f"{facts} fact{'s' * (facts != 1)} ({result.facts_cited} cited, {result.facts_unavailable} unavailable"
        f"{invalid})",
        f"{result.links} link{'s' * (result.links != 1)} ({result.links_grounded} grounded)",
    ]
    verdict = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    notices = result.review_count
    tail = f", {notices} for semantic review" if notices else ""
    return "citelint: " + ", ".join(parts) + f": {verdict}{tail}"
