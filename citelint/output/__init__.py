"""Output formatters: pure functions of a :class:`~citelint.model.CheckResult`.

Each format module exposes ``render(result, out, options)``; ``FORMATTERS``
maps format names to them, with what each needs of the run (:class:`Format`),
and the CLI takes its ``--format`` choices and its per-format behaviour from
this registry. Formatters never read configuration, print to ``sys.stdout``
or choose exit codes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple, TextIO

from citelint.model import CheckResult, Finding


class Format(NamedTuple):
    """One output format: the module implementing ``render``, and what the CLI
    does differently for it, so the CLI asks these properties instead of
    naming formats.

    ``context``: it shows a few words of capture text around each accepted
    snippet, and links locations to the commit checked (the check keeps that
    context only when a format or side file needs it: it costs memory).
    ``machine``: its output is for a program or a file, so the summary line
    also goes to standard error, for the person who ran it. ``color``: it may
    colour its output (``--color auto`` does so on a terminal).
    ``not_run``: when the check cannot run (exit 2) it writes why on its
    output, through the module's ``did_not_run(message, out)``, so CI never
    shows a failed step without a reason. ``lists``: it lists the accepted
    citations or their semantic-review notices (the others count them, and
    the check then keeps nothing of an accepted citation: at a million facts
    that is most of its memory).
    """

    module: str
    context: bool = False
    machine: bool = False
    color: bool = False
    not_run: bool = False
    lists: bool = False


#: Format name -> its :class:`Format`; each module is imported on first use.
FORMATTERS: dict[str, Format] = {
    "text": Format("citelint.output.text", color=True),
    "github": Format("citelint.output.github", not_run=True, lists=True),
    "json": Format("citelint.output.json", machine=True, lists=True),
    "sarif": Format("citelint.output.sarif", machine=True),
    "summary": Format("citelint.output.summary", context=True, machine=True, lists=True),
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
    return importlib.import_module(FORMATTERS[name].module).render


def did_not_run(name: str) -> Callable[[str, TextIO], None]:
    """The ``did_not_run(message, out)`` function of format ``name``, which
    writes that the check did not run and why.

    Raises:
        KeyError: unknown format.
        AttributeError: the format has none (its :attr:`Format.not_run` is False).
    """
    return importlib.import_module(FORMATTERS[name].module).did_not_run


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
    # The other two tiers, in words: reviewed and found to support, reviewed and found not to.
    supports = result.reviewed - result.rejected
    tail += f", {supports} reviewed: supports" if supports else ""
    tail += f", {result.rejected} reviewed: does not support" if result.rejected else ""
    return "citelint: " + ", ".join(parts) + f": {verdict}{tail}"
