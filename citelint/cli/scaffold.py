"""``citelint init``: starter files and the integration snippets it prints.

Files are created with the output writer in create-only mode
(:func:`citelint.files.write_output`): an existing file is reported and left
byte for byte as it was, so running ``init`` twice, or in a repository that
is already set up, changes nothing; a symlink, FIFO or directory in a
file's place, or a symlinked folder on its way, is refused and left alone.
Every file is vetted (:func:`citelint.files.check_output`) before any is
created, so a refusal leaves nothing half done.
"""

from __future__ import annotations

import os
import stat
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

# The review ledger: committed, append-only judgments of whether an accepted
# citation supports its label (citelint review --approve / --reject). With
# allowed_signers, only reviews signed by a listed key count.
# reviews:
#   dir: reviews
#   allowed_signers: .citelint/review_signers

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
# No top-level `exclude:` covering captures/ or reviews/: it would hide the
# evidence from every hook. Give each formatting hook its own
# `exclude: ^(captures|reviews)/`.
repos:
  - repo: https://github.com/citelint/citelint
    rev: {REV_PLACEHOLDER}   # a release tag (v{version} when released) or a commit sha
    hooks:
      - id: citelint       # changed reports
      - id: citelint-all   # every commit: every report; a committed capture or review changed or deleted fails
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
        "\nAdd to .gitattributes (collapses captures in pull-request diffs; keeps line-ending conversion off "
        "the review ledger, whose files are named by their bytes):\n\n"
        "    captures/** linguist-generated\n"
        "    reviews/** -text\n\n"
        "Keep formatting hooks (end-of-file-fixer, trailing-whitespace, prettier, ...) off "
        "captures/ and reviews/ with an `exclude: ^(captures|reviews)/` on each of those hooks, never at the "
        "top level "
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


def _vet(directory: Path, rel: str) -> InitOutcome | None:
    """Whether ``directory/rel`` may be created: None when it may, else its
    outcome (``exists``, or ``refused`` with why), as the writer would judge it."""
    from citelint.files import WriteRefused, check_output

    try:
        check_output(directory / rel, mode="create", root=directory)
    except WriteRefused as exc:
        if exc.exists:
            return InitOutcome(rel, "exists", "left unchanged")
        return InitOutcome(rel, "refused", exc.why)
    return None


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


def _captures_folder(directory: Path, config_rel: str | None) -> tuple[str, str]:
    """The captures folder ``init`` sets up, relative to ``directory``, and why
    it cannot (or ""): the ``captures`` of the config already there
    (``config_rel``, citelint.yaml or pyproject.toml), else ``captures``."""
    from citelint.config import load_config
    from citelint.errors import ConfigError

    if config_rel is None:
        return "captures", ""
    try:
        config = load_config(directory / config_rel, directory)
    except ConfigError as exc:
        return "", f"the existing config names the captures folder, and it cannot be read: {exc}"
    rel = os.path.relpath(config.captures_dir, config.root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return "", f"the config's captures folder {config.captures_dir} is outside {directory}; create it yourself"
    return Path(rel).as_posix(), ""


def _missing_folders(directory: Path, rel: str) -> tuple[list[Path], str]:
    """The folders to create so that ``directory/rel`` exists, outermost
    first, or why not: an existing part of the way that is not a directory
    is refused here, before anything is written. At a symlink on the way
    nothing is to be created: :func:`_vet` then refuses the file behind it."""
    from citelint.files import entry_kind

    here, missing = directory, list[Path]()
    for part in Path(rel).parts:
        here = here / part
        if missing:
            missing.append(here)
            continue
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            missing.append(here)
            continue
        if stat.S_ISLNK(st.st_mode):
            # The writer's own refusal (a symlinked folder on the way) says it best.
            return [], ""
        if not stat.S_ISDIR(st.st_mode):
            what = "a file" if stat.S_ISREG(st.st_mode) else entry_kind(st.st_mode)
            return [], (f"{here.relative_to(directory).as_posix()} is {what}, not a directory; "
                        "citelint writes captures only into a real folder")
    return missing, ""


def create_starter_files(directory: Path) -> list[InitOutcome]:
    """Create ``citelint.yaml`` and ``<captures>/.gitattributes`` in ``directory``.

    Never overwrites: an existing file is reported as ``exists``, anything
    but a regular file in its place as ``refused``. The config is
    ``skipped`` when ``pyproject.toml`` there already has ``[tool.citelint]``
    (both in one directory is a config error). The captures folder is the
    one the config already there names (``captures`` for a new one).

    Every file and folder is vetted before any is created: when one is
    refused, nothing is written and the others are ``skipped`` (so no run
    leaves half a setup).

    Raises:
        OSError: a file or the captures directory cannot be created.
    """
    config_rel: str | None = None
    planned: list[InitOutcome | None] = []
    if has_tool_table(directory / PYPROJECT):
        config_rel = PYPROJECT
        planned.append(InitOutcome(CONFIG_NAME, "skipped", f"[tool.citelint] in {PYPROJECT} is the config"))
    else:
        vetted = _vet(directory, CONFIG_NAME)
        planned.append(vetted)
        if vetted is not None and vetted.status == "exists":
            config_rel = CONFIG_NAME
    captures, why = _captures_folder(directory, config_rel)
    attributes = f"{captures or 'captures'}/.gitattributes"
    missing: list[Path] = []
    if not why:
        missing, why = _missing_folders(directory, captures)
    if not why and not missing:
        vetted = _vet(directory, attributes)
        planned.append(vetted)
    else:
        planned.append(InitOutcome(attributes, "refused", why) if why else None)
    if any(o is not None and o.status == "refused" for o in planned):
        return [o or InitOutcome(rel, "skipped", "not created: another file was refused, so nothing was written")
                for o, rel in zip(planned, (CONFIG_NAME, attributes))]
    outcomes = [planned[0] or _create(directory, CONFIG_NAME, STARTER_CONFIG)]
    for folder in missing:
        folder.mkdir()
    outcomes.append(planned[1] or _create(directory, attributes, CAPTURES_GITATTRIBUTES))
    return outcomes
