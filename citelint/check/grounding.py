"""What grounds a run's Markdown links, and what git has of the captures.

:func:`build_allowlist` gives the :class:`~citelint.links.grounds.LinkEvidence`
whose ``decide`` gives each link its one reason: it sorts an approved
source, when a link first needs it, into those that ground a link (a
capture that verifies, that git has, whose signed evidence holds) and
those whose links are reported under another rule.
:class:`GitTracking` answers which capture files git has (CL109), from the
index file, asking git itself only when the index is not one it can read.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from citelint.config import Config, relpath
from citelint.store.captures import Store, sha256_hex

if TYPE_CHECKING:
    from citelint.evidence.verify import EvidenceVerifier
    from citelint.links.grounds import LinkEvidence


class GitTracking:
    """Which capture files git has, tracked or staged (CL109), asked of git
    once per process and only when a capture is cited; picklable before use.
    ``directory`` is the evidence directory asked about: the captures
    directory, or the reviews directory (:meth:`untracked_file`)."""

    def __init__(self, config: Config, cwd: Path, directory: Path | None = None):
        self.captures_dir = config.captures_dir if directory is None else directory
        self.cwd = cwd
        self.enabled = config.severity("CL109") != "off"
        self._files: frozenset[str] | None = None
        self._asked = False
        self._adopted: tuple[str, str, frozenset[str]] | None = None

    def adopt(self, indexed: tuple[str, str, frozenset[str]] | None) -> None:
        """Take the answer from an index file already read this run (``--base``
        reads it): (the index file's real path, the captures directory's
        prefix in it, the capture records it holds at stage 0). Used only if
        it is the index file and prefix this object would read itself."""
        self._adopted = indexed

    def _load(self) -> frozenset[str] | None:
        if not self._asked:
            self._files, self._asked = self._ask(), True
        return self._files

    def _ask(self) -> frozenset[str] | None:
        from citelint.git.tracked import captures_git_has

        return captures_git_has(self.captures_dir, self._adopted)

    def untracked(self, source: str, sha256: str) -> str | None:
        """The capture file of (source, sha256), as the user would type it, when
        git has it neither tracked nor staged; None when it does, or outside git."""
        return self.untracked_file(f"{sha256_hex(source)}/{sha256}.json")

    def untracked_file(self, rel: str) -> str | None:
        """The file ``rel`` (POSIX, inside the directory), as the user would type
        it, when git has it neither tracked nor staged; None when it does, or outside git."""
        files = self._load() if self.enabled else None
        if files is None or rel in files:
            return None
        return relpath(self.captures_dir / rel, self.cwd)

    def source_untracked(self, source: str, store: Store) -> bool:
        """True when git has none of ``source``'s capture files (inside git only)."""
        files = self._load() if self.enabled else None
        if files is None:
            return False
        directory = sha256_hex(source)
        return not any(f"{directory}/{rev.sha256}.json" in files for rev in store.revisions(source))


def build_allowlist(config: Config, store: Store, tracking: GitTracking | None = None,
                    evidence: EvidenceVerifier | None = None) -> LinkEvidence:
    """What grounds a Markdown link in this run, as a :class:`~citelint.links.grounds.LinkEvidence`:
    approved sources with at least one capture that verifies (and that git
    has, inside a git work tree), plus ``links.allow``; and the sources whose
    links are reported under another rule: every capture corrupt (CL103),
    captured only by files git does not have (CL109), or signed evidence
    failing (CL401–CL403, :meth:`EvidenceVerifier.link_problem`).

    A source is sorted out when a link first needs it (one that has its
    identity, or is near it), and then remembered: a hook call on a report
    of a few links reads the captures of those sources, not of every
    approved one. Loads the link modules (cmark-gfm): call it only for a run
    with a Markdown report. Raises nothing of its own."""
    from citelint.links.allowlist import Allowlist
    from citelint.links.grounds import DECISIONS, Decision, LinkEvidence, Reason

    decided: dict[str, Decision] = {}

    def classify(source: str) -> Decision:
        decision = decided.get(source)
        if decision is None:
            decision = decided[source] = _classify(source)
        return decision

    def _classify(source: str) -> Decision:
        if store.has_source(source):
            problem = evidence.link_problem(store, source) if evidence is not None else None
            if tracking is not None and tracking.source_untracked(source, store):
                return DECISIONS[Reason.UNTRACKED]
            if problem is not None:
                rule, detail = problem
                return Decision(Reason(rule), detail)
            return DECISIONS[Reason.GROUNDED]
        return DECISIONS[Reason.CORRUPT] if store.revisions(source) else DECISIONS[Reason.UNCAPTURED]

    grounding = Allowlist(config.sources, config.links.allow, config.links.ignore_query_params,
                          captured=lambda source: classify(source).reason is Reason.GROUNDED)
    return LinkEvidence(grounding, store=store,
                        signed=functools.partial(evidence.issues, store) if evidence is not None else None,
                        classify=classify)
