"""Markdown link governance: every followable link must be grounded (DESIGN §2.4).

Which links exist, and where they point, is decided by GitHub's own parser,
cmark-gfm, never by a Markdown parser of our own. The document is rendered
once with source positions, footnotes and raw HTML kept; every ``<a href>``
(and ``<img src>`` when images are governed) of that HTML is a link, then
located in the source and judged against the run's :class:`LinkEvidence`.

Modules, one job each:

- :mod:`~citelint.links.render`: cmark-gfm rendering (HTML, and the XML syntax tree) and the anchors of its HTML;
- :mod:`~citelint.links.source`: the Markdown source (positions, syntax scanners, definitions);
- :mod:`~citelint.links.forms`: finding one written form of a link in a span of the source;
- :mod:`~citelint.links.locate`: mapping each anchor back to the source (:func:`extract`);
- :mod:`~citelint.links.link`: the values handed on, :class:`Link` and :class:`LinkIssue`;
- :mod:`~citelint.links.allowlist`: what a link may point at, and near misses;
- :mod:`~citelint.links.grounds`: what grounds a run's links, and why one is not (:meth:`LinkEvidence.decide`);
- :mod:`~citelint.links.judge`: the rules CL201/CL202/CL203, and CL103/CL109/CL401-CL403 for a link
  whose evidence needs repair (:func:`judge`, :func:`govern`, :func:`check`);
- :mod:`~citelint.links.directive`: URL text directives (``#:~:text=``), parsed and written;
- :mod:`~citelint.links.quote`: quotation links, their text verified against the capture (CL204);
- :mod:`~citelint.links.blocks`: cmark's XML read as a reader sees it (leaves with source
  positions, and their citations), what prose detection reads;
- :mod:`~citelint.links.prose`: quotations and cited numbers in prose, found with their citations
  (what CL205/CL206 verify; :func:`~citelint.links.prose.quotations`);
- :mod:`~citelint.links.claimlines`: which source lines may hold a claim in prose, so that a check
  renders cmark's XML of only the blocks that span one;
- :mod:`~citelint.links.claims`: prose quotations and cited numbers verified against the captures
  (CL205/CL206; :func:`check_claims`);
- :mod:`~citelint.links.kept`: what a run's claim checks keep of its captures, and the index of
  the sources' texts that a missed quotation's search of other sources reads;
- :mod:`~citelint.links.degrade`: ``--fix`` (:func:`fix`).

Entry points: :func:`check` (what ``citelint check`` runs: every link judged,
only the blocks with a finding located), :func:`govern` (every link judged
and located), :func:`extract`, :func:`judge` and :func:`fix`.

Positions are 1-based lines and Unicode code-point columns; offsets are
code-point indices into the ``str`` given.
"""

from __future__ import annotations

from typing import Any

from citelint.links.allowlist import Allowlist
from citelint.links.grounds import Decision, LinkEvidence, Reason
from citelint.links.judge import LinkReport, check, govern, judge
from citelint.links.link import Link, LinkIssue
from citelint.links.render import GITHUB_EXTENSIONS

#: Loaded on first use (PEP 562): a page whose links all pass is judged from
#: cmark's output alone, so locating (source scanners, link forms) and
#: ``--fix`` stay out of the check's start-up.
_LAZY = {"fix": "citelint.links.degrade", "check_claims": "citelint.links.claims",
         "link_sentences": "citelint.links.sentences", "extract": "citelint.links.locate",
         "resolve_destination": "citelint.links.source"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Link",
    "LinkIssue",
    "LinkReport",
    "check",
    "Allowlist",
    "Decision",
    "LinkEvidence",
    "Reason",
    "extract",
    "judge",
    "govern",
    "fix",
    "check_claims",
    "link_sentences",
    "GITHUB_EXTENSIONS",
]
