"""A check's reading of the claims in prose (``claims(…, cited=True)`` from the XML of the blocks
``claim_lines(…, cited=True, min_chars=…)`` keeps): exactly the quotations with a citation that
the whole reading finds, and the same numbers.

The proof is on real text, as in tests/test_claimlines.py: on every README of the corpus, the
article pages, the ExpertQA answers, the CommonMark and GFM examples and the golden cases'
reports, the check's reading from the partial XML and from the whole XML is compared with
``claims()`` from the whole XML, less its quotations without a citation, every field and every
citation alike. The small documents below state what the source-line test keeps and leaves out.
"""

from __future__ import annotations

from citelint.links.claimlines import claim_lines
from citelint.links.prose import claims
from citelint.links.render import render_html_and_xml
from conftest import claim_fields, markdown_documents

A = "https://a.example/doc"
LONG = "employees are entitled to a refund"


def _every(href: str) -> bool:
    return True


def _half(href: str) -> bool:
    """A citable that rules some links out (as a check's does for links no capture grounds)."""
    return len(href) % 2 == 0


def _check(text: str, whole: str, numbers: bool, min_chars: int, citables: tuple) -> int:
    """The check's reading of ``text`` (partial and whole XML) asserted equal to the whole
    reading's cited quotations and numbers; how many quotations it finds."""
    part = render_html_and_xml(text, keep=claim_lines(text, quotes=True, numbers=numbers, cited=True,
                                                      min_chars=min_chars))[1]
    found = 0
    for citable in citables:
        expected = claims(text, numbers=numbers, min_chars=min_chars, citable=citable, xml=whole)
        cited = claim_fields([q for q in expected[0] if q.citations])
        for xml in (whole, part):
            # "" is what a check skips: then there must be nothing to find
            got = claims(text, numbers=numbers, min_chars=min_chars, citable=citable, xml=xml, cited=True) \
                if xml else ([], [])
            assert claim_fields(got[0]) == cited, (numbers, min_chars, xml is part, text[:300])
            assert claim_fields(got[1]) == claim_fields(expected[1]), (numbers, min_chars, xml is part, text[:300])
        found += len(cited)
    return found


def test_the_checks_reading_finds_the_cited_quotations_on_real_text() -> None:
    """The proof of exactness: quotations alone and with numbers, at the default size and at
    sizes that keep more (0) and fewer (50) blocks."""
    found = {}
    for text in markdown_documents():
        whole = render_html_and_xml(text)[1]
        for numbers, min_chars, citables in ((False, 20, (None, _every, _half)), (True, 20, (None, _half)),
                                             (False, 0, (_every,)), (False, 50, (_half,))):
            found[numbers, min_chars] = found.get((numbers, min_chars), 0) + _check(text, whole, numbers, min_chars,
                                                                                    citables)
    assert found[False, 20] > 500 and found[True, 20] > 300 and found[False, 0] > 300, found


def _part(text: str, min_chars: int = 20) -> str:
    return render_html_and_xml(text, keep=claim_lines(text, quotes=True, numbers=False, cited=True,
                                                      min_chars=min_chars))[1]


def _same(text: str, min_chars: int = 20) -> list:
    whole = render_html_and_xml(text)[1]
    _check(text, whole, False, min_chars, (None, _every))
    return claims(text, numbers=False, min_chars=min_chars, xml=_part(text, min_chars), cited=True)[0] \
        if _part(text, min_chars) else []


def test_a_quotation_without_a_link_in_its_block_is_left_out() -> None:
    text = f"# Tool\n\nIt says “{LONG}” without a source.\n\n- [a]({A}) fast\n"
    assert _part(text) == ""
    assert claims(text, numbers=False)[0] and _same(text) == []


def test_marks_closer_than_min_chars_leave_the_block_out() -> None:
    text = f'- a "fast" and "small" tool [a]({A})\n- it says “{LONG}” [b]({A})\n'
    part = _part(text)
    assert "fast" not in part and "it says" in part
    assert [q.text for q in _same(text)] == [LONG]
    # with a smaller size the first item may hold one
    assert "fast" in _part(text, min_chars=4)
    assert [q.text for q in _same(text, min_chars=4)] == ["small", LONG]  # (the link cites the nearer one)


def test_an_apostrophe_closes_no_double_quotation() -> None:
    """’ closes only ‘: a block whose ’ stands far from its “ is not kept for it."""
    text = f"- “x” is what’s said about a tool that’s rather fast [a]({A})\n"
    assert _part(text) == ""
    text = f"- ‘{LONG}’ [a]({A})\n"
    assert [q.text for q in _same(text)] == [LONG]


def test_a_blockquote_is_kept_with_a_link_in_it_or_in_an_attribution_after_it() -> None:
    kept = (f"> {LONG} ([source]({A}))\n", f"> {LONG}\n\n— [Someone]({A})\n", f"> {LONG}\n\n&mdash; [Someone]({A})\n",
            f"> {LONG}\n\n-- [Someone]({A})\n", f"> {LONG}\n\n![logo](x.png)\n— [Someone]({A})\n")
    for text in kept:
        q = _same(text)
        assert [(x.kind, [c.href for c in x.citations]) for x in q] == [("blockquote", [A])], text
    # a link after it that is no attribution cites nothing: the blockquote is left out
    text = f"> {LONG}\n\nSee [the docs]({A}).\n"
    assert _part(text) == "" and _same(text) == []


def test_a_blockquote_in_a_list_item_cites_from_its_item() -> None:
    text = f"- intro\n\n  > {LONG}\n\n  — [Someone]({A})\n- [b]({A}) plain\n"
    q = _same(text)
    assert [(x.kind, [c.href for c in x.citations]) for x in q] == [("blockquote", [A])]


def test_a_footnote_citation_is_found() -> None:
    text = f"It says “{LONG}”[^1].\n\n> {LONG} [^1]\n\n[^1]: [Source]({A})\n"
    q = _same(text)
    assert [(x.kind, [c.href for c in x.citations]) for x in q] == [("marks", [A]), ("blockquote", [A])]


def test_a_reference_is_read_as_the_mark_it_spells() -> None:
    text = f"- &ldquo;{LONG}&rdquo; [a]({A}) and &#8220;{LONG}&#x201D; [b]({A}) and &lsquo;{LONG}&#8217; [c]({A})\n"
    assert [q.text for q in _same(text)] == [LONG, LONG, LONG]
    # &rsquo; closes only a ‘: a block with a “ and an apostrophe far from it is left out
    assert _part(f"- “x” is what&rsquo;s said of a tool that&rsquo;s fast [a]({A})\n") == ""
