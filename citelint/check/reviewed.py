"""The review ledger a check reads (docs/reviews.md): loaded once per run, and the
files in it that do not count reported."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from citelint.check.grounding import GitTracking
from citelint.check.loaded import Emitter
from citelint.config import Config, relpath
from citelint.escape import quoted
from citelint.model import (
    CheckResult,
    Position,
)

if TYPE_CHECKING:
    from citelint.evidence.ledger import Ledger


#: At most this many ledger files that do not count are named, one warning each.
UNCOUNTED_SHOWN = 20


def load_ledger_for(config: Config, cwd: Path, result: CheckResult) -> Ledger | None:
    """The review ledger of the run (docs/reviews.md), or None when it has no
    review folder; a run with no reviews folder costs one ``lstat`` and loads
    no signature code. Stray entries are warnings (:func:`report_ledger`).

    Raises:
        UsageError: ``reviews.allowed_signers`` cannot be read or parsed.
    """
    if not os.path.lexists(config.reviews.dir):
        return None
    from citelint.evidence.ledger import load_ledger, relative

    ledger = load_ledger(config.reviews, relative(cwd))
    if not ledger:
        report_ledger(ledger, config, cwd, result)
        return None
    return ledger


def report_ledger(ledger: Ledger, config: Config, cwd: Path, result: CheckResult) -> None:
    """After the citations were judged: CL109 for each review that counted
    for one of them and that git has neither committed nor staged
    (:func:`untracked_reviews`), and a warning for each ledger file read
    that does not count (:func:`uncounted_notes`)."""
    untracked_reviews(ledger, config, cwd, result)
    result.warnings_text.extend(uncounted_notes([(relpath(path, cwd), why) for path, why in ledger.uncounted]))


def untracked_reviews(ledger: Ledger, config: Config, cwd: Path, result: CheckResult) -> None:
    """CL109 in ``result`` for each review that counted for a citation of the run
    and that git has neither committed nor staged (it counts here and not in a clean clone)."""
    tracking = GitTracking(config, cwd, config.reviews.dir)
    for record in ledger.applied.values() if tracking.enabled else ():
        untracked = tracking.untracked_file(f"{record.fingerprint}/{record.digest}.json")
        if untracked:
            Emitter(config, result, untracked)("CL109", Position(1, 1), (
                f"review {record.fingerprint[:16]} ({record.verdict} by {quoted(record.by, 80)}) is neither "
                f"committed nor staged in git, so it counts here and not in a clean clone; run `git add "
                f"{untracked}` (and its .sig)"))


def uncounted_notes(uncounted: list[tuple[str, str]]) -> list[str]:
    """The warnings for the ledger files read that do not count, given as
    (path as displayed, why) in the order they were read: the first
    :data:`UNCOUNTED_SHOWN` named, then their number."""
    notes = [f"review {path} does not count: {why}" for path, why in uncounted[:UNCOUNTED_SHOWN]]
    if len(uncounted) > UNCOUNTED_SHOWN:
        notes.append(f"{len(uncounted) - UNCOUNTED_SHOWN} more review files do not count "
                     "(`citelint review --stale` lists every one)")
    return notes
