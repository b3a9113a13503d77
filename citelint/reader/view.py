"""The reader view's plain data (``citelint render``): what :mod:`citelint.reader.build`
builds from a check result and :mod:`citelint.output.render` writes.

Nothing here reads a file or imports beyond :mod:`citelint.model`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citelint.model import AcceptedFact, Finding, LabelInfo, Review


@dataclass(frozen=True)
class FactItem:
    """One fact of a fact report, in report order.

    ``status`` is ``verified`` (a cited fact the check accepted: ``fact``
    carries the snippet, source, digest and capture date), ``unavailable``
    (accepted as unavailable: ``fact.reason``), or ``rejected`` (it failed a
    rule, or could not be read: ``problems`` says why, and nothing of it is
    shown as evidence). ``info`` is the label's config entry (description,
    ``check_at``), when the label is approved. ``problems`` are the findings
    located inside the fact (warnings too, for a verified one).
    """

    label: str
    line: int
    status: str
    fact: AcceptedFact | None = None
    info: LabelInfo | None = None
    problems: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class LinkMark:
    """What the reader is told about one link, quotation or number of a Markdown report.

    ``token`` stands after the link or span in :attr:`ReaderView.markdown`,
    to be replaced by each format's rendering of the mark; ``start``, when
    set, is the token before a span the formats set apart in the sentence
    itself (a failed quotation or number is marked where it is read, not
    only by a tag after it). ``kind`` is

    - ``quote-verified``: a quotation link with no error (CL204 found its
      text); ``note`` is its evidence note's number (:class:`EvidenceNote`);
    - ``quote-unverified``: a quotation link with an error, flattened to its text;
    - ``removed``: any other link with an error, flattened to its text;
    - ``prose-verified``: a prose quotation that passed CL205 (``note`` as above);
    - ``prose-failed``: a prose quotation the cited capture does not hold (CL205);
    - ``number-failed``: a number the cited capture does not hold (CL206);
    - ``number-unverified``: a number no surviving citation backs; ``removed``
      the hrefs of its sentence's citations that failed the check (where to
      check), empty when it cites nothing.

    ``problems`` are the findings about the link or span.
    """

    token: str
    kind: str
    problems: tuple[Finding, ...] = ()
    start: str = ""
    note: int = 0
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvidenceNote:
    """A verified quotation's evidence, shown as a numbered footnote-style block.

    ``number`` is what its marks in the text refer to (1-based); ``kind``
    ``link`` (a quotation link: ``text`` the passage of the capture its
    directive names) or ``prose`` (``text`` the quotation as rendered,
    ``sentence`` the sentence it stands in); ``source`` the cited source;
    ``sha256``/``retrieved_at`` the revision that holds it (None when not
    known); ``reviewed`` the person's judgment that counts for it (the review
    ledger), or None: then only the excerpt is verified, by citelint.
    """

    number: int
    kind: str
    text: str
    source: str
    sha256: str | None
    retrieved_at: str | None
    sentence: str = ""
    reviewed: Review | None = None


@dataclass(frozen=True)
class SourceItem:
    """A captured source the report relies on: its newest (or cited) revision
    ``sha256`` and ``retrieved_at``, and how many facts or links ``uses`` it."""

    source: str
    sha256: str | None
    retrieved_at: str | None
    uses: int


@dataclass(frozen=True)
class ReaderView:
    """Everything ``citelint render`` shows of one report.

    ``kind`` is ``facts`` or ``markdown``. For a fact report, ``facts`` in
    report order. For a Markdown report, ``markdown`` is its text with every
    link that has an error flattened to its text and a mark token after each
    marked link or span (``marks``), ``notes`` the evidence of each verified
    quotation, and ``vouched`` the hrefs (as cmark-gfm writes them) that may
    stay live links. ``problems`` are the report's findings
    not shown at a fact (for a Markdown report, all of them);
    ``errors``/``warnings`` count all of them.
    """

    path: str
    kind: str
    counts: str
    errors: int
    warnings: int
    facts: tuple[FactItem, ...] = ()
    markdown: str = ""
    marks: tuple[LinkMark, ...] = ()
    notes: tuple[EvidenceNote, ...] = ()
    vouched: frozenset[str] = frozenset()
    sources: tuple[SourceItem, ...] = ()
    problems: tuple[Finding, ...] = ()
    token_prefix: str = field(default="", compare=False)
