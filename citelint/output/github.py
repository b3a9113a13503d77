"""GitHub Actions workflow commands (annotations).

Escaping follows the runner's rules (actions/toolkit, ``command.ts``):
message data escapes ``%``, CR and LF; property values also escape ``:``
and ``,``. Annotation lines carry only escaped text and stay outside the
``::stop-commands::`` block (or GitHub would ignore them too); the readable
listing, which repeats untrusted text, is printed inside a block ended by a
random token, so nothing in a snippet or source can issue a command.
GitHub shows only 10 annotations of each severity per step, so the most
severe come first.
https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions
"""

from __future__ import annotations

import secrets
from typing import TextIO

from citelint.escape import workflow_data, workflow_property
from citelint.model import CheckResult, Finding
from citelint.output import RenderOptions, summary_line, visible
from citelint.output.text import finding_line


def annotation(finding: Finding, repo_prefix: str = "") -> str:
    """One ``::error``/``::warning``/``::notice`` line for ``finding``; its ``file=`` is
    ``repo_prefix`` + the finding's path (GitHub wants paths from the repository root)."""
    props = [f"file={workflow_property(repo_prefix + finding.path)}", f"line={finding.line}"]
    end_line = finding.end_line or finding.line
    if end_line != finding.line:
        props.append(f"endLine={end_line}")
    else:
        # GitHub accepts col/endColumn only on single-line annotations.
        props.append(f"col={finding.col}")
        if finding.end_col and finding.end_col > finding.col:
            props.append(f"endColumn={finding.end_col}")
    props.append(f"title={workflow_property(f'citelint ({finding.rule})')}")
    return f"::{finding.severity} {','.join(props)}::{workflow_data(f'{finding.message} [{finding.name}]')}"


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Annotations most severe first, one notice counting the semantic-review
    list, then the full listing inside a stop-commands block."""
    for finding in visible(result.ordered(), options):
        out.write(annotation(finding, options.repo_prefix) + "\n")
    if result.review_count and not options.quiet:
        n = result.review_count
        out.write(f"::notice title={workflow_property('citelint (CL901)')}::"
                  f"{workflow_data(f'{n} accepted citation(s) need semantic review (listed in the step summary)')}\n")
    for warning in result.warnings_text:
        out.write(f"::notice title={workflow_property('citelint')}::{workflow_data(warning)}\n")
    token = secrets.token_hex(16)
    out.write(f"::stop-commands::{token}\n")
    for finding in visible(result.ordered(), options):
        out.write(finding_line(finding) + "\n")
    if result.review_count and not options.quiet:
        out.write("semantic review:\n")
        for notice in sorted(result.notices):
            out.write("  " + finding_line(notice) + "\n")
    for warning in result.warnings_text:
        out.write(f"note: {warning}\n")
    out.write(f"::{token}::\n")
    out.write(workflow_data(summary_line(result)) + "\n")


def did_not_run(message: str, out: TextIO) -> None:
    """Write the one ``::error`` annotation for a check that ended in a usage or
    config error (exit 2), so a red step always says why."""
    out.write(f"::error title={workflow_property('citelint')}::{workflow_data(f'check did not run: {message}')}\n")
