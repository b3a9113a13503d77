"""The values the link stages hand on: a :class:`Link` and a :class:`LinkIssue` about one.

Also where the cited part of a bare URL ends (DESIGN §2.4: at the first CJK
punctuation mark), which locating, judging and fixing all need.

Positions are 1-based lines and Unicode code-point columns; offsets are
code-point indices into the Markdown ``str``.
"""

from __future__ import annotations

from typing import NamedTuple

from citelint import urls
from citelint.model import Difference

_CJK = frozenset(urls.CJK_TERMINATORS)


class Link(NamedTuple):
    """One followable link of a Markdown document, as cmark-gfm rendered it.

    ``kind`` is ``inline``, ``reference``, ``autolink``, ``bare``, ``html``,
    ``image`` or ``footnote`` (any form inside a footnote definition; ``form``
    then says which). ``href`` is the destination as the renderer resolved it
    (entities decoded, backslash escapes removed, before href escaping).
    ``line``/``col`` (1-based, code points) is the first character of the
    destination as written, or the ``[`` of a reference-style use;
    ``end_line``/``end_col`` is the exclusive end of that destination (of the
    whole use for a reference). ``start``/``end`` are code-point offsets of
    the whole construct (``[text](dest "t")``, ``<url>``, the bare URL, the
    raw ``<a …>`` tag). ``text`` is the visible text.

    ``category`` is :func:`citelint.urls.classify` of ``cited``; ``cited`` is
    the URL the grounding decision uses: ``href``, except that a bare URL ends
    at the first CJK punctuation mark (DESIGN §2.4). ``text_span`` is the
    visible text's offsets in the source for inline and reference forms.
    ``located`` is False when the link could not be found in its block's
    source: the position is then the block's start and ``--fix`` skips it.
    """

    kind: str
    href: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int
    end: int
    text: str
    form: str = ""
    category: str = ""
    cited: str = ""
    text_span: tuple[int, int] | None = None
    located: bool = True


def new_link(kind: str, href: str, line: int, col: int, end_line: int, end_col: int, start: int,
              end: int, text: str, form: str, category: str, cited: str,
              text_span: tuple[int, int] | None, located: bool) -> Link:
    """A :class:`Link` from every field, positionally (the locator's constructor)."""
    return Link(kind, href, line, col, end_line, end_col, start, end, text, form, category, cited, text_span,
                located)


class LinkIssue(NamedTuple):
    """A finding about one link: ``rule`` is ``CL201``, ``CL202`` or ``CL203``
    (or CL103, CL109, CL401-CL403 in CL201's place), or for a quotation
    (:mod:`citelint.links.quote`) ``CL204``, ``CL105`` or ``CL108``.

    ``message`` says what is wrong and what to do. ``line``/``col`` and the
    end default to the link's destination; CL203 points at the CJK
    punctuation mark where the cited URL ends. ``near_miss`` is the captured
    source a CL201 link resembles, if any. ``capture`` is the sha256 of the
    revision a quotation was checked against (or the one its title names).
    ``fixable`` False keeps ``--fix`` off a link whose rule is otherwise
    fixable: a grounded quotation with a malformed directive or title.
    ``difference`` shows both texts where a quotation and its capture part
    (CL204, CL205), when the miss was explained.
    """

    rule: str
    link: Link
    message: str
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    near_miss: str | None = None
    capture: str | None = None
    fixable: bool = True
    difference: Difference | None = None


def cjk_cut(text: str) -> int | None:
    """Index of the first CJK punctuation mark in ``text``, or None."""
    for i, ch in enumerate(text):
        if ch in _CJK:
            return i
    return None
