"""What grounds a run's Markdown links: :class:`LinkEvidence` and its one decision, :meth:`LinkEvidence.decide`.

A governed link is grounded by a captured source that verifies, that git
has and whose signed evidence holds, or by ``links.allow``. When it is
not, the reason names the one rule reported for it
(:mod:`citelint.links.judge` words it): no capture (CL201), only corrupt
captures (CL103), captures git does not have (CL109), or signed evidence
that fails (CL401-CL403). The evidence is built once per run by
:func:`citelint.check.grounding.build_allowlist`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from citelint.links.allowlist import Allowlist

if TYPE_CHECKING:
    from citelint.store.captures import CaptureRecord, Store


class Reason(enum.Enum):
    """Why a governed link is grounded or not; the value is the rule reported for it (None: none)."""

    GROUNDED = None
    UNCAPTURED = "CL201"
    CORRUPT = "CL103"
    UNTRACKED = "CL109"
    UNSIGNED = "CL401"
    BAD_SIGNATURE = "CL402"
    SIGNER_NOT_ALLOWED = "CL403"

    @property
    def rule(self) -> str | None:
        """The rule a link with this reason is reported under (None for :attr:`GROUNDED`)."""
        return self.value


class Decision(NamedTuple):
    """:meth:`LinkEvidence.decide`'s answer: the ``reason``, and for a signed-evidence
    reason (CL401-CL403) the ``detail`` the evidence gives (what its message says after the URL)."""

    reason: Reason
    detail: str = ""


_GROUNDED = Decision(Reason.GROUNDED)
_UNCAPTURED = Decision(Reason.UNCAPTURED)
_CORRUPT = Decision(Reason.CORRUPT)
_UNTRACKED = Decision(Reason.UNTRACKED)
#: The reasons whose sources an eager LinkEvidence lists (``untracked``, ``unsigned``).
_LISTED = frozenset({Reason.UNTRACKED, Reason.UNSIGNED, Reason.BAD_SIGNATURE, Reason.SIGNER_NOT_ALLOWED})
#: Each reason without a detail, for a classifier to answer with.
DECISIONS = {reason: Decision(reason) for reason in Reason}


class LinkEvidence(NamedTuple):
    """What grounds a run's Markdown links, and the store quotation links are verified against (CL204).

    ``grounding``: the captured sources that ground a link, and ``links.allow``.
    ``corrupt``: approved sources whose every capture fails verification;
    ``untracked``: sources captured only by files git does not have;
    ``unsigned``: (one source's allowlist, its reason, the evidence's detail)
    for each source whose signed evidence fails, in config order. The last
    three are None or empty when no source is in them. ``store``: the capture
    store (None: quotations are not verified). ``signed(record)``: the
    (rule, message) CL401-CL403 findings of the capture a quotation was
    verified in (None: no signatures configured). ``LinkEvidence(allowlist)``
    grounds by ``allowlist`` alone.

    ``classify(source)``, when given, is the :class:`Decision` of one approved
    source (what its captures, git and its signed evidence say; it should
    remember its answers): ``grounding`` then holds every approved source as
    a candidate that counts when ``classify`` says it is grounded, and
    ``corrupt``, ``untracked`` and ``unsigned`` are left empty, since a
    link's reason is found from the sources having its identity alone.
    """

    grounding: Allowlist
    corrupt: Allowlist | None = None
    untracked: Allowlist | None = None
    store: Store | None = None
    unsigned: Sequence[tuple[Allowlist, Reason, str]] = ()
    signed: Callable[[CaptureRecord], list[tuple[str, str]]] | None = None
    classify: Callable[[str], Decision] | None = None

    def is_empty(self, sources: Iterable[str] = ()) -> bool:
        """True when nothing grounds a link (no identity in ``grounding``) and no source is
        untracked or fails its signed evidence. With ``classify``, ``sources`` are the approved
        sources, asked about only until one settles it."""
        if self.classify is None:
            return len(self.grounding) == 0 and self.untracked is None and not self.unsigned
        if not self.grounding.is_empty():
            return False
        return not any(self.classify(source).reason in _LISTED for source in sources)

    def decide(self, url: str) -> Decision:
        """Whether the governed destination ``url`` (a link's ``cited`` URL) is
        grounded and, when not, why: the first of corrupt, untracked and signed
        evidence failing that has ``url``'s identity, else uncaptured. Never raises."""
        if self.grounding.decide(url)[1]:
            return _GROUNDED
        if self.classify is not None:
            decisions = [self.classify(source) for source in self.grounding.candidates_of(url)]
            for reason in (Reason.CORRUPT, Reason.UNTRACKED):
                if any(d.reason is reason for d in decisions):
                    return _CORRUPT if reason is Reason.CORRUPT else _UNTRACKED
            return next((d for d in decisions if d.reason not in (Reason.GROUNDED, Reason.UNCAPTURED)),
                        _UNCAPTURED)
        # A spelling of a source may sit in more than one list (several sources can share an
        # identity); the evidence that needs repair first is named first.
        if self.corrupt is not None and self.corrupt.grounded(url):
            return _CORRUPT
        if self.untracked is not None and self.untracked.grounded(url):
            return _UNTRACKED
        for allowlist, reason, detail in self.unsigned:
            if allowlist.grounded(url):
                return Decision(reason, detail)
        return _UNCAPTURED
