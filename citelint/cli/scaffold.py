"""``citelint init``: starter files and the integration snippets it prints.

Files are created with the output writer in create-only mode
(:func:`citelint.files.write_output`): an existing file is reported and left
byte for byte as it was, so running ``init`` twice, or in a repository that
is already set up, changes nothing; a symlink, FIFO or directory in a
file's place, or a symlinked folder on its way, is refused and left alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from citelint.config import CONFIG_NAME, PYPROJECT, has_tool_table

#: Where editors with a YAML language server find the config's schema.
SCHEMA_URL = "https://raw.githubusercontent.com/citelint/citelint/main/schemas/config.schema.json"

#: What ``init`` prints where only the user can know the value: a release tag
#: or commit of citelint. Nothing runs until it is replaced, and the error
#: pre-commit or GitHub then gives names it.
REV_PLACEHOLDER = "REPLACE-WITH-A-CITELINT-TAG-OR-COMMIT"

STARTER_CONFIG = f"""\
# yaml-language-server: $schema={SCHEMA_URL}
# citelint configuration. Written by the operator, never by the drafting agent:
# it decides which sources may be cited and which labels a fact may carry.
# Reference: https://github.com/citelint/citelint#configuration

# Committed, append-only evidence: captures/<sha256(source)>/<sha256(text)>.json
captures: captures

# Fact reports (JSON/YAML) and Markdown reports, relative to this file.
reports:
  - "reports/**/*.json"
  - "reports/**/*.yaml"
  - "reports/**/*.yml"
markdown:
  - "reports/**/*.md"
exclude: []

# The exact source URLs that `citelint capture` may fetch and reports may cite.
# Uncomment and edit; a key with nothing under it is an empty list.
sources:
  # - "https://example.org/q3-results.txt"

# Approved labels (metric identifiers); a mapping adds semantic-review hints.
# A name with * is a pattern, for generated prose: "claim-*".
labels:
  # revenue: {{description: "Quarterly revenue", unit: "USD", period: "Q3"}}
  # "claim-*": {{}}

# With `citelint check --base REF`: a cited capture must already be on REF
# (evidence is reviewed and merged before a claim may lean on it, CL302).
require_captures_on_base: false

# Signed evidence: accept only captures signed by an SSH key listed in git's
# allowed-signers format (citelint capture --sign-key / citelint attest).
# evidence:
#   allowed_signers: .citelint/allowed_signers
#   require_signatures: true

# Per-rule severity overrides, e.g. {{CL105: off}}. Guarantee rules cannot be lowered.
rules: {{}}
"""

#: Keep git's line-ending conversion away from captures (DESIGN §2.2).
CAPTURES_GITATTRIBUTES = "* -text\n"


def precommit_snippet(version: str) -> str:
    """The ``.pre-commit-config.yaml`` entry, with :data:`REV_PLACEHOLDER` for ``rev:``
    (``version`` is named in a comment: the tag it would be, once released).

    It has no top-level ``exclude:``: one covering ``captures/`` would hide
    the evidence from every hook. The ``citelint`` hook excludes evidence
    itself, and ``citelint-all`` runs on every commit, comparing the
    evidence with HEAD (``.pre-commit-hooks.yaml``)."""
    return f"""\
# No top-level `exclude:` covering captures/: it would hide the evidence from
# every hook. Give each formatting hook its own `exclude: ^captures/`.
repos:
  - repo: https://github.com/citelint/citelint
    rev: {REV_PLACEHOLDER}   # a release tag (v{version} when released) or a commit sha
    hooks:
      - id: citelint       # changed reports
      - id: citelint-all   # every commit: every report; a committed capture changed or deleted fails
"""


def workflow_snippet(version: str) -> str:
    """A ``.github/workflows/citelint.yml`` for pull requests and pushes, with
    :data:`REV_PLACEHOLDER` where the action's tag or commit goes."""
    return f"""\
name: citelint
on: [pull_request, push]
permissions:
  contents: read
jobs:
  citelint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: citelint/citelint@{REV_PLACEHOLDER}   # a release tag (v{version} when released) or a commit sha
"""


def snippets(version: str) -> str:
    """Everything ``init`` prints after the file list: pre-commit, workflow and
    ``.gitattributes`` advice, as one text block ending in a newline."""
    return (
        "Add to .pre-commit-config.yaml:\n\n" + _indent(precommit_snippet(version)) +
        "\nAdd .github/workflows/citelint.yml:\n\n" + _indent(workflow_snippet(version)) +
        "\nAdd to .gitattributes (collapses captures in pull-request diffs):\n\n"
        "    captures/** linguist-generated\n\n"
        "Keep formatting hooks (end-of-file-fixer, trailing-whitespace, prettier, ...) off "
        "captures/ with an `exclude: ^captures/` on each of those hooks, never at the top level "
        "of .pre-commit-config.yaml (that would hide the evidence from every hook).\n"
    )


def _indent(text: str) -> str:
    return "".join(f"    {line}" if line.strip() else line for line in text.splitlines(keepends=True))


@dataclass(frozen=True)
class InitOutcome:
    """What ``init`` did with one file: ``status`` is ``created``, ``exists``
    (a regular file, left unchanged), ``skipped`` or ``refused`` (something
    that is not a regular file is in its place: nothing written, ``detail``
    says why); ``path`` is relative to the directory."""

    path: str
    status: str
    detail: str = ""


def _create(directory: Path, rel: str, content: str) -> InitOutcome:
    """Create ``directory/rel`` with ``content`` unless something is there."""
    from citelint.files import WriteRefused, write_output

    try:
        write_output(directory / rel, content.encode("utf-8"), mode="create", root=directory)
    except WriteRefused as exc:
        if exc.exists:
            return InitOutcome(rel, "exists", "left unchanged")
        return InitOutcome(rel, "refused", exc.why)
    return InitOutcome(rel, "created")


def create_starter_files(directory: Path) -> list[InitOutcome]:
    """Create ``citelint.yaml`` and ``captures/.gitattributes`` in ``directory``.

    Never overwrites: an existing file is reported as ``exists``, anything
    but a regular file in its place as ``refused``. The config is
    ``skipped`` when ``pyproject.toml`` there already has ``[tool.citelint]``
    (both in one directory is a config error).

    Raises:
        OSError: a file or the captures directory cannot be created.
    """
    outcomes = []
    if has_tool_table(directory / PYPROJECT):
        outcomes.append(InitOutcome(CONFIG_NAME, "skipped", f"[tool.citelint] in {PYPROJECT} is the config"))
    else:
        outcomes.append(_create(directory, CONFIG_NAME, STARTER_CONFIG))
    captures = directory / "captures"
    if not os.path.lexists(captures):
        captures.mkdir()
    outcomes.append(_create(directory, "captures/.gitattributes", CAPTURES_GITATTRIBUTES))
    return outcomes
