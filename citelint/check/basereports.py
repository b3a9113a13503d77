"""The review fingerprints a base revision's reports yield, so the step summary's
semantic-review list holds only the unreviewed citations a change added.

A citation is *added* when no report at the base yields its fingerprint
(:attr:`citelint.model.AcceptedFact.fingerprint`,
:attr:`citelint.model.AcceptedQuotation.fingerprint`): a report moved or
re-wrapped keeps its citations, a changed snippet, sentence or revision is new.
Each report of the base's tree that the config's globs match is read from git
(never from the work tree, never written anywhere) and checked in memory as
``check - --stdin-filename`` checks a report, against today's captures:
captures are append-only, so the base's citations that held then hold now.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citelint.config import Config
from citelint.model import CheckResult


def base_fingerprints(config: Config, commit: str,
                      check: Callable[[list[tuple[str, bytes]]], CheckResult]) -> frozenset[str]:
    """The fingerprints of every citation the reports of ``commit`` (under the
    config's directory, matched by its ``reports`` and ``markdown`` globs) have
    accepted; ``check(documents)`` checks (absolute path, content) pairs, each as
    if it were that file, as ``check - --stdin-filename`` does, in one run.

    Raises:
        GitBaseError: git fails to list or read the base's tree.
    """
    from citelint.check.targets import checked_as
    from citelint.git.probe import files_at, read_blob

    root = Path(config.root)
    documents = [(str(root / rel), read_blob(oid, root)) for rel, oid in files_at(commit, root)
                 if checked_as(config, str(root / rel))[0] is not None]
    return frozenset(_fingerprints(check(documents))) if documents else frozenset()


def _fingerprints(result: CheckResult) -> set[str]:
    found = {a.fingerprint for a in result.accepted if a.state == "cited" and a.fingerprint}
    found.update(q.fingerprint for q in result.quotations)
    return found
