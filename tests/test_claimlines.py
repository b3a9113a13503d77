"""The XML of only the blocks that may hold a claim (``claim_lines`` as ``render_html_and_xml``'s
``keep``): what a check reads the claims in prose from, read exactly as the whole document's XML.

The proof is on real text: on every README of the corpus, the article pages, the ExpertQA
answers, the CommonMark and GFM examples and the golden cases' reports, ``claims()`` given the
partial XML finds the quotations and numbers it finds in the whole document's XML, every field
and every citation (destination, position) alike. The small documents below state the
constructs whose reading looks outside a block.
"""

from __future__ import annotations

import pytest

from citelint.links.claimlines import claim_lines
from citelint.links.prose import claims
from citelint.links.render import render_html_and_xml
from conftest import claim_fields, markdown_documents

A = "https://a.example/doc"
LONG = "employees are entitled to a refund"


def _cited(href: str) -> bool:
    return True


def _both(text: str, quotes: bool = True, numbers: bool = True) -> tuple[str, str]:
    """The whole document's XML and the partial one, from one parse each."""
    whole = render_html_and_xml(text)[1]
    part = render_html_and_xml(text, keep=claim_lines(text, quotes=quotes, numbers=numbers))[1]
    return whole, part


def _same(text: str, quotes: bool = True, numbers: bool = True) -> tuple[list, list]:
    """claims() of ``text`` from the partial XML, asserted equal to claims() from the whole XML
    (without ``citable``, and with the check's: every leaf with a link read); the whole's."""
    whole, part = _both(text, quotes, numbers)
    for citable in (None, _cited):
        expected = claims(text, quotes=quotes, numbers=numbers, citable=citable, xml=whole)
        # "" is what a check skips: then there must be nothing to find
        got = claims(text, quotes=quotes, numbers=numbers, citable=citable, xml=part) if part else ([], [])
        assert claim_fields(got[0]) == claim_fields(expected[0]), text[:300]
        assert claim_fields(got[1]) == claim_fields(expected[1]), text[:300]
    return claims(text, quotes=quotes, numbers=numbers, xml=whole)


def test_the_partial_xml_finds_what_the_whole_finds_on_real_text() -> None:
    """The proof of exactness, with quotations alone (CL206 off), numbers alone and both."""
    modes = ((True, False), (False, True), (True, True))
    found = dict.fromkeys(modes, 0)
    partial = whole = 0
    for text in markdown_documents():
        xml = render_html_and_xml(text)[1]
        for quotes, numbers in modes:
            part = render_html_and_xml(text, keep=claim_lines(text, quotes=quotes, numbers=numbers))[1]
            for citable in (None, _cited):
                expected = claims(text, quotes=quotes, numbers=numbers, citable=citable, xml=xml)
                got = claims(text, quotes=quotes, numbers=numbers, citable=citable, xml=part) if part else ([], [])
                assert claim_fields(got[0]) == claim_fields(expected[0]), (quotes, numbers, text[:300])
                assert claim_fields(got[1]) == claim_fields(expected[1]), (quotes, numbers, text[:300])
            found[quotes, numbers] += len(expected[0]) + len(expected[1])
            if quotes and not numbers:
                whole += len(xml)
                partial += len(part)
    assert found[True, False] > 500 and found[False, True] > 5000, found
    assert partial < whole / 5, (partial, whole)  # most of the XML is left out


def test_a_readme_keeps_only_its_quoting_blocks() -> None:
    text = ("# Tool\n\n- [a](https://a.example) fast\n- [b](https://b.example) small\n\n```sh\necho \"x\"\n```\n\n"
            f"> {LONG}\n\n— [Someone]({A})\n\n- [c](https://c.example) it says “{LONG}”\n- plain item\n")
    _, part = _both(text, numbers=False)
    assert "echo" not in part and "fast" not in part and "plain item" not in part
    assert "Someone" in part and "it says" in part
    q, _ = _same(text, numbers=False)
    assert [(x.kind, x.line) for x in q] == [("blockquote", 10), ("marks", 14)]
    assert [c.href for c in q[0].citations] == [A]


def test_nothing_that_may_be_a_claim_renders_no_xml() -> None:
    text = "# Tool\n\n- [a](https://a.example) fast\n\n```\n\"quoted in code\"\n```\n\n<p align=\"center\">x</p>\n"
    assert _both(text, numbers=False)[1] == ""
    assert _both("", numbers=False)[1] == ""


@pytest.mark.parametrize("between", ["```\ncode\n```", "<div>html</div>", "---", "# Heading", "- a list"])
def test_what_follows_a_blockquote_is_kept_whatever_it_is(between: str) -> None:
    """The attribution line is read from the block right after the blockquote: a block left
    out there would make a later paragraph look like the attribution."""
    text = f"> {LONG}\n\n{between}\n\n— [Someone]({A})\n"
    q, _ = _same(text)
    assert len(q) == 1 and q[0].citations == ()


def test_a_blockquote_as_the_last_block_and_before_footnotes() -> None:
    _same(f"Intro.\n\n> {LONG}\n")
    q, _ = _same(f"See[^1].\n\n> {LONG} [^1]\n\n[^1]: [Source]({A})\n")
    assert [c.href for c in q[0].citations] == [A]


def test_footnote_definitions_are_kept_wherever_written() -> None:
    """cmark-gfm moves the referenced definitions to the end of the document: each is kept, so
    a quotation cites what its definition links, even from inside a list item left out."""
    text = (f"The Act says “{LONG}”[^a]. There are 12 more[^b].\n\n- item\n  [^a]: [Act]({A})\n\n- other\n\n"
            "[^b]: [Report](https://b.example/r) says 3.\n")
    q, n = _same(text)
    assert [c.href for c in q[0].citations] == [A]
    # (the definition's own sentence cites its link too)
    assert [(x.text, [c.href for c in x.citations]) for x in n] == [("12", ["https://b.example/r"]),
                                                                  ("3", ["https://b.example/r"])]


@pytest.mark.parametrize("text", [
    f"- item\n\n  > {LONG}\n\n  — [Someone]({A})\n- next\n",  # a blockquote inside an item
    f"1. one\n2. > {LONG} [x]({A})\n3. three\n",
    f"- a\n- b\nlazy “{LONG}” [x]({A})\n- c\n",  # a lazy continuation line
    f"> a\nlazy “{LONG}” [x]({A})\n\nafter\n",
    f"| a | b |\n|---|---|\n| “{LONG}” [x]({A}) | 2 |\n\nnext\n",
    f"[ref]: {A}\nText &ldquo;{LONG}&rdquo; [x][ref].\n",
    f"Text &#8220;{LONG}&#x201D; [x]({A}).\n",
    f'Text \\"{LONG}\\" [x]({A}).\n',
    f"Setext “{LONG}” [x]({A})\n===\n\nbody\n",
    f"Line one\r\nsays “{LONG}” [x]({A})\r\n\r\n- a\r\n- b “{LONG}” [y]({A})\r\n",
    f"Line one\rsays “{LONG}” [x]({A})\r\r> {LONG}\r",
    f"> [!NOTE]\n> The 12 files [x]({A}).\n\n> {LONG}\n",
    f"- [x](https://a.example)\n\n  [^1]: > {LONG}\n\nSee[^1].\n",
    f"Costs 1,000 [x]({A}).\n\n- 5 items [y]({A})\n- none\n\nwww.example.com has 3\n\nmail me@example.com 4\n",
])
def test_constructs_read_across_lines_and_blocks(text: str) -> None:
    q, n = _same(text)
    assert q or n, text


def test_claim_lines_names_the_blocks_whose_lines_may_quote() -> None:
    text = "a\nsays “x”\n> q\n- > q\nplain\n1 [x](y)\n2\n[z](y)\n"
    keep = claim_lines(text, quotes=True, numbers=False)
    assert keep([1, 2, 3, 4, 5], 5) == [1, 2, 3]  # lines 2, 3, 4
    assert keep([5], 5) == []
    numbers = claim_lines(text, quotes=False, numbers=True)
    assert numbers([6, 7, 8], 8) == [0]  # a digit and a link on one line
    assert numbers([7], 8) == [0]  # a block spanning a digit's line and a link's
    assert numbers([7], 7) == []
    assert keep([2, 2, 3], 3) == [0, 1, 2]  # blocks starting on one line share it


@pytest.mark.parametrize("line", [
    f'`x <a b="y` z "{LONG}"> [x]({A})',  # a code span that ends inside what looks like a tag
    f'\\<a b="{LONG}"> [x]({A}) and "{LONG}"',  # an escaped "<" opens no tag
    f'| <a b="x | "{LONG}"> | 2 [x]({A}) |',  # a cell boundary cuts the tag
    f'<a b="\\"> "{LONG}" [x]({A})',  # no escape inside an attribute value
    f'<a title="<img src="> "{LONG}" [x]({A})',  # the first "<" makes the tag
    f'<http://a.example/"{LONG}"> [x]({A})',  # an autolink, not a tag
    f'<a\fb="{LONG}"> "{LONG}" [x]({A})',  # whitespace cmark-gfm may read and the lines do not
    f'<img src="x.png"> says "{LONG}" [x]({A})',
])
def test_a_quote_mark_outside_raw_html_keeps_its_line(line: str) -> None:
    text = f"# T\n\n{line}\n\nafter\n" if not line.startswith("|") else f"| a | b |\n|---|---|\n{line}\n"
    _, part = _both(text, numbers=False)
    assert part
    _same(text)


def test_quote_marks_only_inside_raw_html_tags_keep_nothing() -> None:
    text = '<p align="center"><img src="logo.png" width="100"/></p>\n\n- [a](https://a.example) <img src="b.svg">\n'
    assert _both(text, numbers=False)[1] == ""
    _same(text)
