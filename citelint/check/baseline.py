"""What a check compares with its base revision (``--base``).

Captures and reviews changed since it (CL301) and captures the base lacks
(CL302), started beside the check and settled into its result.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citelint.check.loaded import Emitter
from citelint.config import Config, relpath
from citelint.errors import UsageError
from citelint.model import (
    CheckResult,
    Position,
)

if TYPE_CHECKING:
    from citelint.git.base import BaseCaptures, PendingBase
    from citelint.git.resolve import Resolving


def start_base(ref: str, config: Config, result: CheckResult, base_missing: str,
                resolving: Resolving | None) -> PendingBase | None:
    """Start loading the base captures for ``ref`` and wait for what decides
    whether the run goes on (before anything is written). With
    ``base_missing="skip"`` a base this clone lacks is a note and None, unless
    the config sets ``require_captures_on_base``.

    Raises:
        UsageError: ``--base`` cannot be used (see :meth:`citelint.git.base.PendingBase.resolve`).
    """
    # git plumbing loads only with --base: the hook's start-up stays lean.
    from citelint.git.base import BaseNotFetched, GitBaseError, PendingBase

    pending = None
    try:
        pending = PendingBase(ref, config.captures_dir, config.root, resolving)
        pending.resolve()
        return pending
    except BaseException as exc:
        # Whatever stopped it, no git process is left behind.
        if pending is not None:
            pending.close()
        if isinstance(exc, BaseNotFetched) and base_missing == "skip" and not config.require_captures_on_base:
            result.warnings_text.append(f"{exc}; until then the diff-aware rule CL301 is skipped "
                                        "(with require_captures_on_base set this is an error)")
            return None
        if isinstance(exc, GitBaseError):
            raise UsageError(str(exc)) from None
        raise


def start_reviews_base(pending: PendingBase, config: Config) -> PendingBase:
    """The base comparison of the review ledger, sharing ``pending``'s resolution of REF.

    Raises:
        UsageError: the reviews directory cannot be compared (outside the repository).
    """
    from citelint.git.base import GitBaseError

    try:
        return pending.sibling(config.reviews.dir)
    except GitBaseError as exc:
        pending.close()
        raise UsageError(str(exc)) from None


def settle_base(pending: PendingBase, note_at: int | None, config: Config, cwd: Path,
                 result: CheckResult) -> BaseCaptures:
    """The base evidence ``pending`` loaded; emits CL301 for each changed file,
    and the note for a base compared by REF's own tree at ``note_at`` among
    the notes (where it stood when the base was started; None: no note, it
    is given for the captures).

    Raises:
        UsageError: git failed while comparing.
    """
    from citelint.git.base import GitBaseError

    try:
        base = pending.result()
    except GitBaseError as exc:
        raise UsageError(str(exc)) from None
    for change in base.changes():
        display = relpath(change.path, cwd)
        Emitter(config, result, display)("CL301", Position(1, 1), change.message(base.commit, display))
    if base.via == "ref" and note_at is not None:
        result.warnings_text.insert(note_at, (
            f"--base: compared captures with {base.ref}'s own tree, since this clone has no merge base of it "
            "and HEAD (a shallow clone)"))
    return base
