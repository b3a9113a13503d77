"""Where a text occurs in a source's captures, or the passage nearest it.

The answer to "does this quotation occur in the capture of this source?",
matched as a prose quotation is (CL205: any whitespace run equals any other,
never across a page break), for ``citelint show --find`` and the MCP
server's ``find_quote``. Read-only; plain values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from citelint.store.captures import CaptureRecord

#: Occurrences reported per revision.
MAX_OCCURRENCES = 10


@dataclass(frozen=True)
class Occurrence:
    """One place ``text`` occurs in a capture: ``line`` and ``column`` (1-based, columns in
    code points, lines ending at ``\\n``), ``offset`` (code points into the capture's text)
    and ``passage``, the text around it, quoted with ``…`` where it is cut."""

    line: int
    column: int
    offset: int
    passage: str


@dataclass(frozen=True)
class RevisionMatch:
    """What one verified revision of the source holds: ``sha256`` and ``retrieved_at``
    name it; ``occurrences`` (at most :data:`MAX_OCCURRENCES`; ``more`` when there are
    others), or, when there are none, ``miss`` (why, naming the first differing character)
    and ``nearest`` (the nearest passage, "" when nothing of the text occurs)."""

    sha256: str
    retrieved_at: str
    occurrences: tuple[Occurrence, ...] = ()
    more: bool = False
    miss: str = ""
    nearest: str = ""

    @property
    def found(self) -> bool:
        """True when the revision holds the text."""
        return bool(self.occurrences)


def wanted_text(text: str) -> str | None:
    """``text`` as it is searched for (ends trimmed, whitespace runs as one space), or None
    when it has no visible character."""
    from citelint.excerpts import flat_quotation

    wanted = flat_quotation(text.strip())
    return wanted if wanted and not wanted.isspace() else None


def find_text(records: Iterable[CaptureRecord], text: str, revision: str | None = None) -> list[RevisionMatch]:
    """Each of ``records`` (verified revisions of one source, oldest first, as
    :meth:`citelint.store.captures.Store.verified_revisions` lists them; only those whose
    digest starts with ``revision`` when given), newest first, with where ``text`` occurs in
    it or the nearest passage. An empty list: no such revision.

    Raises:
        ValueError: ``text`` has no visible character (:func:`wanted_text`).
    """
    from citelint.excerpts import explain_miss, flatten, nearest

    wanted = wanted_text(text)
    if wanted is None:
        raise ValueError("the text to find has no visible character")
    prefix = revision.lower() if revision else ""
    out = []
    for rec in reversed(list(records)):
        if not rec.sha256.startswith(prefix):
            continue
        flat = flatten(rec.text)
        at = flat.text.find(wanted)
        if at < 0:
            made_by = rec.extractor.describe() if rec.extractor is not None else None
            out.append(RevisionMatch(rec.sha256, rec.retrieved_at,
                                     miss=explain_miss(wanted, flat.text, made_by, what="text"),
                                     nearest=nearest(flat.text, wanted)))
            continue
        found: list[Occurrence] = []
        while at >= 0 and len(found) < MAX_OCCURRENCES:
            offset = flat.original(at)
            line = rec.text.count("\n", 0, offset) + 1
            column = offset - (rec.text.rfind("\n", 0, offset) + 1) + 1
            found.append(Occurrence(line, column, offset,
                                    nearest(flat.text[max(0, at - 30):at + len(wanted) + 30], wanted)))
            at = flat.text.find(wanted, at + 1)
        out.append(RevisionMatch(rec.sha256, rec.retrieved_at, tuple(found), more=at >= 0))
    return out
