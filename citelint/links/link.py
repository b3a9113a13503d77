"""The values the link stages hand on: a :class:`Link` and a :class:`LinkIssue` about one.

Also where the cited part of a bare URL ends (DESIGN §2.4: at the first CJK
punctuation mark), which locating, judging and fixing all need.

Positions are 1-based lines and Unicode code-point columns; offsets are
code-point indices into the Markdown ``str``.
"""

from __future__ import annotations

from dataclasses import dataclass

from citelint import urls

_CJK = frozenset(urls.CJK_TERMINATORS)


@dataclass(frozen=True)
class Link:
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


def _new_link(kind: str, href: str, line: int, col: int, end_line: int, end_col: int, start: int,
              end: int, text: str, form: str, category: str, cited: str,
              text_span: tuple[int, int] | None, located: bool) -> Link:
    """Build a Link without the frozen dataclass's per-field ``object.__setattr__``.

    The generated ``__init__`` costs about 3 µs for 14 fields, a sizeable
    part of the per-link budget on the README corpus; installing the instance
    dict at once gives an identical value (equal, hashable, still frozen).
    tests/test_links.py checks the result equals ``Link(...)``.
    """
    link = _object_new(Link)
    _object_setattr(link, "__dict__", {
        "kind": kind, "href": href, "line": line, "col": col, "end_line": end_line, "end_col": end_col,
        "start": start, "end": end, "text": text, "form": form, "category": category, "cited": cited,
        "text_span": text_span, "located": located})
    return link


_object_new = object.__new__
_object_setattr = object.__setattr__


@dataclass(frozen=True)
class LinkIssue:
    """A finding about one link: ``rule`` is ``CL201``, ``CL202`` or ``CL203``,
    or for a quotation (:mod:`citelint.links.quote`) ``CL204``, ``CL105`` or ``CL108``.

    ``message`` says what is wrong and what to do. ``line``/``col`` and the
    end default to the link's destination; CL203 points at the CJK
    punctuation mark where the cited URL ends. ``near_miss`` is the captured
    source a CL201 link resembles, if any. ``capture`` is the sha256 of the
    revision a quotation was checked against (or the one its title names).
    ``fixable`` False keeps ``--fix`` off a link whose rule is otherwise
    fixable: a grounded quotation with a malformed directive or title.
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


def _cjk_cut(text: str) -> int | None:
    """Index of the first CJK punctuation mark in ``text``, or None."""
    for i, ch in enumerate(text):
        if ch in _CJK:
            return i
    return None
