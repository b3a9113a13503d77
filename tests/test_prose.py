"""Prose quotations and cited numbers: what the prose rules will check (detection only).

The rule is docs/quotations.md "Prose quotations and numbers (detection)";
each test states one clause of it on a small document.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citelint.links.prose import cited_numbers, number_occurs, quotations, readings, split_quotation
from citelint.links.sentences import ABBREVIATIONS

A = "https://a.example/doc"
B = "https://b.example/doc"
LONG = "employees are entitled to a refund"  # 29 visible characters


def only(markdown: str, **kwargs):
    found = quotations(markdown, **kwargs)
    assert len(found) == 1, found
    return found[0]


def hrefs(q) -> list[str]:
    return [link.href for link in q.citations]


@pytest.mark.parametrize("opening, closing", [
    ("“", "”"), ("„", "“"), ("„", "”"), ("«", "»"), ("«\u00a0", "\u00a0»"), ("「", "」"), ("『", "』"),
    ('"', '"'), ("‘", "’"),
])
def test_each_quotation_mark_style(opening: str, closing: str) -> None:
    q = only(f"The Act says {opening}{LONG}{closing} [1]({A}).\n")
    assert q.text == LONG
    assert q.kind == "marks"
    assert (q.line, q.col) == (1, 14)
    assert hrefs(q) == [A]
    assert q.sentence == f"The Act says {opening}{LONG}{closing} 1."


def test_columns_are_code_points_after_non_ascii_text() -> None:
    q = only(f"Überall — “{LONG}” [x]({A})\n")
    assert (q.line, q.col) == (1, 11)


def test_unpaired_or_mismatched_marks_are_no_quotation() -> None:
    assert quotations(f"It said “{LONG} and never closed.\n") == []
    assert quotations(f"It said «{LONG}” with the wrong closer.\n") == []


def test_nested_quotation_belongs_to_the_outer_one() -> None:
    q = only(f"She wrote “the rule ‘{LONG}’ holds” [1]({A}).\n")
    assert q.text == f"the rule ‘{LONG}’ holds"


def test_apostrophes_are_never_quotation_marks() -> None:
    text = ("The company’s results don’t show the students’ fees; it's the team's view and "
            "the '90s were 'different' times, rock ’n’ roll.\n")
    assert quotations(text, min_chars=1) == []


def test_inch_and_seconds_marks_are_never_quotation_marks() -> None:
    assert quotations('Buy a 5" screen and a 12" x 8" frame, 3\' 4" tall, for "home" use.\n',
                      min_chars=1)[0].text == "home"
    assert len(quotations('Buy a 5" screen and a 12" x 8" frame.\n', min_chars=1)) == 0
    q = only(f'He said "the new phones have a 6" screen and {LONG}" [1]({A}).\n')
    assert q.text == f"the new phones have a 6\" screen and {LONG}"


def test_straight_marks_open_at_a_word_start_and_close_at_a_word_end() -> None:
    assert quotations(f'a"{LONG}"b and x " {LONG} " y\n') == []
    q = only(f'(“{LONG}”) and ("{LONG} too")\n', min_chars=31)
    assert q.text == f"{LONG} too"


def test_quotation_marks_stay_within_one_paragraph() -> None:
    assert quotations(f'He said "{LONG}\n\nand then" left.\n') == []


def test_soft_line_break_emphasis_and_references_are_rendered() -> None:
    q = only(f"It says “employees *are* entitled\nto a **refund** &amp; a `fee`” [1]({A}).\n")
    assert q.text == "employees are entitled to a refund & a fee"
    assert hrefs(q) == [A]


def test_a_quotation_inside_code_is_not_detected() -> None:
    assert quotations(f'Run `echo "{LONG}"` now.\n\n```\nsay "{LONG}"\n```\n\n    "{LONG}"\n') == []
    # a mark inside a code span neither opens nor closes
    assert quotations(f'It says `"` then {LONG}" here.\n', min_chars=1) == []


def test_min_chars_counts_visible_characters_of_the_segments() -> None:
    assert quotations(f"A “short one” [1]({A}).\n") == []
    assert only(f"A “short one” [1]({A}).\n", min_chars=5).text == "short one"
    # 19 visible characters after the elision is removed
    assert quotations("It says “abcdefghij … klmnopqrs”.\n") == []


def test_elisions_split_into_segments_without_the_whitespace_beside_them() -> None:
    q = only(f"It says “the employees are entitled … to a refund of fees [...] in every single case” [1]({A}).\n")
    assert [s.text for s in q.segments] == ["the employees are entitled", "to a refund of fees", "in every single case"]
    assert q.text[q.segments[1].start:].startswith("to a refund")
    assert q.short_segments == ()
    assert q.insertions == ()


def test_a_short_segment_is_flagged() -> None:
    q = only(f"It says “The employee is … not … guilty of anything at all” [1]({A}).\n")
    assert q.short_segments == ("not",)


def test_bracketed_insertions_are_named_and_split() -> None:
    q = only(f"It says “[the company] has paid every employee [sic] on time for years” [1]({A}).\n")
    assert q.insertions == ("[the company]", "[sic]")
    assert [s.text for s in q.segments] == ["has paid every employee", "on time for years"]
    long = "x" * 61
    assert split_quotation(f"abc [{long}] def")[1] == ()


def test_several_citations_and_the_next_quotation_bounds_them() -> None:
    q1, q2 = quotations(f"It says “{LONG}” [1]({A}) [2]({B}), and “{LONG} again” [3](https://c.example/).\n")
    assert hrefs(q1) == [A, B]
    assert hrefs(q2) == ["https://c.example/"]


def test_citation_only_links_right_after_the_terminator() -> None:
    q = only(f"It says “{LONG}”. [1]({A}) [2]({B}) Next sentence [3](https://c.example/).\n")
    assert hrefs(q) == [A, B]
    q = only(f"It says “{LONG}.”[1]({A})\n")
    assert hrefs(q) == [A]


def test_citation_markers_just_inside_the_closing_mark_cite_the_quotation() -> None:
    """Seen on the ExpertQA answers: ``“What is the evidence for this belief?[7]”`` puts the
    citation inside the marks; the marker cites the quotation and is not part of its text."""
    q = only(f"Ask “What is the evidence for this belief?[\\[7\\]]({A})” and go on.\n")
    assert (q.text, hrefs(q)) == ("What is the evidence for this belief?", [A])
    q = only(f"Ask “What is the evidence for this belief? [1]({A}) [2]({B})” and go on.\n")
    assert (q.text, hrefs(q)) == ("What is the evidence for this belief?", [A, B])
    q = only(f"Ask “What is the evidence for this belief?[3: not linked]” [1]({A}).\n")
    assert q.text == "What is the evidence for this belief?"
    q = only(f"Ask “the evidence [1] for this belief, they say” [1]({A}).\n")
    assert q.text == "the evidence [1] for this belief, they say"  # inside the text: the author's to fix


def test_a_straight_mark_closes_before_a_citation_marker() -> None:
    """Seen on the ExpertQA answers: ``"…humanity"[4](url). … an "unimaginable" act`` is two
    quotations, not one running from the first mark to the third."""
    found = quotations(f'It may intervene "pursuant to a decision of the Assembly"[\\[4\\]]({A}). A diplomat '
                       f'called it an "unimaginable and unlawful act"[\\[1\\]]({B}).\n')
    assert [(q.text, hrefs(q)) for q in found] == [("pursuant to a decision of the Assembly", [A]),
                                                  ("unimaginable and unlawful act", [B])]


def test_links_of_the_next_sentence_are_not_citations() -> None:
    q = only(f"It says “{LONG}”. The [report]({A}) says more.\n")
    assert q.citations == ()
    assert q.sentence == f"It says “{LONG}”."


def test_a_link_before_the_quotation_is_not_its_citation() -> None:
    q = only(f"The [Act]({A}) says “{LONG}”.\n")
    assert q.citations == ()


def test_a_quotation_as_link_text() -> None:
    q = only(f"See [“{LONG}”]({A}) for more.\n")
    assert hrefs(q) == [A]
    assert (q.line, q.col) == (1, 6)


def test_reference_links_and_bare_urls_are_citations() -> None:
    q = only(f"It says “{LONG}” [the Act][act] and {B} too.\n\n[act]: {A}\n")
    assert hrefs(q) == [A, B]
    assert q.citations[0].kind == "reference"


def test_footnote_references_resolve_to_the_definition_links() -> None:
    q = only(f"It says “{LONG}”.[^1]\n\n[^1]: From [the Act]({A}) and <{B}>.\n")
    assert hrefs(q) == [A, B]
    q = only(f"It says “{LONG}” [^n] here.\n\n[^N]: {A}\n")
    assert hrefs(q) == [A]


def test_ungoverned_links_are_no_citations() -> None:
    q = only(f"It says “{LONG}” [a](#top) [b](mailto:x@example.org) [c](/local).\n")
    assert q.citations == ()


def test_sentence_ends_not_after_abbreviations_digits_or_initials() -> None:
    for before in ("e.g.", "Dr.", "cf.", "No.", "J.", "in 2012.", "U.S."):
        q = only(f"It says “{LONG}” {before} Then [x]({A}).\n")
        assert hrefs(q) == [A], before
    q = only(f"It says “{LONG}” here. Then [x]({A}).\n")
    assert q.citations == ()
    assert {"e.g.", "i.e.", "etc.", "Dr.", "Mr.", "Mrs.", "Ms.", "vs.", "cf.", "Fig.", "No.", "St."} <= ABBREVIATIONS


def test_a_terminator_inside_a_quotation_ends_no_sentence() -> None:
    q = only(f"It says “It rained. {LONG}” [x]({A}).\n")
    assert hrefs(q) == [A]


def test_cjk_quotation_and_full_width_terminator() -> None:
    text = "报告说「员工有权获得退款以及其他各种补偿和福利待遇」[1](" + A + ")。下一句[2](" + B + ")。\n"
    q = only(text, min_chars=10)
    assert q.text == "员工有权获得退款以及其他各种补偿和福利待遇"
    assert hrefs(q) == [A]


def test_blockquote_paragraphs_take_the_last_paragraphs_links() -> None:
    text = f"> {LONG} in the first paragraph.\n>\n> And the second paragraph of it [1]({A}).\n"
    q1, q2 = quotations(text)
    assert (q1.kind, q1.line, q1.col, q1.marks) == ("blockquote", 1, 3, "")
    assert q1.text == f"{LONG} in the first paragraph."
    assert hrefs(q1) == hrefs(q2) == [A]


def test_blockquote_with_an_attribution_line() -> None:
    text = f"> {LONG} in the quoted text.\n\n— The Act, [section 3]({A})\n\nLater [x]({B}).\n"
    q = only(text)
    assert q.text == f"{LONG} in the quoted text."
    assert hrefs(q) == [A]
    text = f"> {LONG} in the quoted text.\n\nLater [x]({B}).\n"
    assert only(text).citations == ()


def test_attribution_without_a_blank_line_is_part_of_the_quoted_paragraph() -> None:
    q = only(f"> {LONG} in the quoted text.\n-- The Act, [section 3]({A})\n")
    assert q.text == f"{LONG} in the quoted text. -- The Act, section 3"
    assert hrefs(q) == [A]


def test_github_alerts_are_never_quotations_but_their_marks_are() -> None:
    assert quotations(f"> [!NOTE]\n> {LONG} is not a quotation.\n") == []
    q = only(f"> [!WARNING]\n> The Act says “{LONG}” [1]({A}).\n")
    assert (q.kind, q.text, q.line) == ("marks", LONG, 2)
    assert hrefs(q) == [A]


def test_of_nested_blockquotes_only_the_outermost() -> None:
    text = f"> {LONG} in the outer one.\n>\n> > {LONG} in the inner one.\n"
    q = only(text)
    assert q.text == f"{LONG} in the outer one."


def test_an_empty_blockquote_quotes_nothing_after_it() -> None:
    """``>`` alone is an empty blockquote (cmark writes it as one empty node): the paragraphs
    after it are prose, their marked quotations are quotations of their own, and they are no
    blockquote paragraphs (they were, once: the empty node opened a blockquote that never closed)."""
    text = f">\n\nHe said “{LONG}” [1]({A}).\n\n{LONG} without any mark [2]({B}).\n\n> {LONG} quoted.\n"
    found = quotations(text)
    assert [(q.kind, q.line, q.col) for q in found] == [("marks", 3, 9), ("blockquote", 7, 3)]
    assert hrefs(found[0]) == [A] and found[1].citations == ()


def test_marks_inside_a_blockquote_belong_to_it() -> None:
    q = only(f"> He said “{LONG}” to them.\n")
    assert q.kind == "blockquote"


def test_list_items_headings_and_table_cells_hold_quotations() -> None:
    text = f"- It says “{LONG}” [1]({A})\n\n# “{LONG}”\n\n| a | b |\n|---|---|\n| “{LONG}” | [x]({B}) |\n"
    found = quotations(text)
    assert [(q.line, q.col) for q in found] == [(1, 11), (3, 3), (7, 3)]
    assert hrefs(found[0]) == [A]
    assert found[2].citations == ()  # another cell is another block


def test_nothing_to_find() -> None:
    assert quotations("") == []
    assert quotations("plain text\n") == []
    assert cited_numbers("") == []


# --------------------------------------------------------------------------- numbers

def numbers(markdown: str) -> list[str]:
    return [n.text for n in cited_numbers(markdown)]


def test_numbers_of_cited_sentences_only() -> None:
    text = f"Revenue rose 12% to $4.1 million [1]({A}). Costs fell 3%. Staff grew by 40 [2]({B}).\n"
    found = cited_numbers(text)
    assert [n.text for n in found] == ["12", "4.1", "40"]
    assert [n.shown for n in found] == ["12%", "$4.1 million", "40"]
    assert [(n.line, n.col) for n in found] == [(1, 14), (1, 22), (1, 91)]
    assert [link.href for link in found[0].citations] == [A]
    assert [link.href for link in found[2].citations] == [B]
    assert found[0].sentence == "Revenue rose 12% to $4.1 million 1."


def test_grouping_separators_and_decimal_marks() -> None:
    text = (f"It cost 1,000 and 1.000,50 and 0,18 and 1 000 000 and 12.5 and 1,000,000 and "
            f"3'000 [x]({A})\n")
    assert numbers(text) == ["1,000", "1.000,50", "0,18", "1 000 000", "12.5", "1,000,000", "3'000"]
    assert readings("1,000") == ("1000", "1.000")
    assert readings("1.000,50") == ("1000.50",)
    assert readings("0,18") == ("0.18",)
    assert readings("1 000 000") == ("1000000",)
    assert readings("1,000,000") == ("1000000",)
    assert readings("12.5") == ("12.5",)
    assert readings("1,5") == ("1.5",)


def test_out_of_scope_tokens() -> None:
    text = (f"COVID-19 in the 1990s, v2, on 2026-07-01 at 10:30, 1/2 of 2010-2012, version 1.2.3 "
            f"and 7 [x]({A})\n")
    assert numbers(text) == ["7"]


def test_citation_markers_urls_code_and_quotations_are_ignored() -> None:
    text = (f"It rose [1]({A}) [^2] [3: not linked] [4] by 9 `42` “{LONG} 77” and "
            f"https://x.example/55 and [5]({B}).\n\n[^2]: {B}\n")
    assert numbers(text) == ["9"]


def test_numbers_of_blockquotes_are_quotation_text() -> None:
    assert numbers(f"> It rose by 9 [1]({A}).\n") == []


def test_number_occurs_never_inside_a_longer_number() -> None:
    assert number_occurs("12", "it was 12.")
    assert number_occurs("12", "(12)")
    for text in ("12.5", "2012", "120", "1,012", "12,500"):
        assert not number_occurs("12", text), text
    assert number_occurs("1,000", "1000 people")
    assert number_occurs("1,000", "1.000 Menschen")
    assert number_occurs("1,000", "a 1.000 ratio")
    assert not number_occurs("1,000", "1,000,000")
    assert number_occurs("0.18", "0,18 EUR")
    assert not number_occurs("0.18", "0.185")
    assert number_occurs("19", "COVID-19")
    n = cited_numbers(f"It rose by 2012 [x]({A}).\n")[0]
    assert number_occurs(n, "in 2012.") and not number_occurs(n, "in 20120")


def test_citations_are_the_links_as_located_for_cl201() -> None:
    from citelint.links.locate import extract

    text = (f"Intro.\n\n- It says “{LONG}” [one]({A}), <{B}>, [ref][r] and www.c.example/x\n"
            f"  and <a href=\"https://d.example/\">d</a>.\n\n> {LONG} quoted.\n\n— [Source]({A}#part)\n\n"
            f"[r]: https://e.example/\n")
    located = extract(text)
    found = quotations(text)
    assert [hrefs(q) for q in found] == [
        [A, B, "https://e.example/", "http://www.c.example/x", "https://d.example/"], [A + "#part"]]
    for q in found:
        for link in q.citations:
            assert link in located


def test_positions_on_lazy_lines_and_in_table_cells() -> None:
    # cmark-gfm places text on a lazy continuation line and after a
    # non-ASCII cell as if it were indented; the position is the source's.
    text = f"* [Rocket]({A})\nrkt (pronounced \"{LONG}\") runs [x]({B}).\n"
    q = only(text)
    assert (q.line, q.col) == (2, 17)
    text = f"| a | b |\n|---|---|\n| ✔| x “{LONG}” [y]({A}) 1,500 |\n"
    q = only(text)
    assert (q.line, q.col) == (3, 8)
    n = cited_numbers(text)[0]
    assert (n.text, n.line, n.col) == ("1,500", 3, 8 + len(LONG) + 2 + 4 + len(A) + 3)


def test_a_straight_mark_closed_by_a_curly_one() -> None:
    # article-html 82b6…: the text opens with " and closes with ”
    text = f'"{LONG}?” said Hill. "And he said, the President of the board." [x]({A})\n'
    q1, q2 = quotations(text)
    assert (q1.text, q1.marks) == (f"{LONG}?", '"”')
    assert q2.text == "And he said, the President of the board."
    assert only(f'"It says “{LONG}” to all" [x]({A})\n').text == f"It says “{LONG}” to all"


def test_invalid_utf8_from_cmark_is_no_crash() -> None:
    # cmark-gfm splits "»" when it gives up on the footnote reference "[^f»"
    text = 'x=/t[^f»/r)p„t』>>\\*\n/e"& .e„rr)2.ab<)m」:fh<(>:.._]*'
    assert quotations(text, min_chars=1) == quotations(text, min_chars=1)
    assert cited_numbers(text + " [x](https://a.example/) 5") is not None


def test_an_empty_table_cell_does_not_swallow_the_blocks_after_it() -> None:
    text = f"| a | b |\n|---|---|\n| x |\n\n> {LONG} quoted.\n\nIt says “{LONG}” [x]({A}).\n"
    found = quotations(text)
    assert [(q.kind, q.line) for q in found] == [("blockquote", 5), ("marks", 7)]
    assert hrefs(found[1]) == [A]


def test_one_straight_mark_closed_by_a_curly_one_alone_in_its_paragraph() -> None:
    assert only(f'Intro.\n\nIt says "{LONG}” [x]({A}).\n').text == LONG


def test_the_docs_example() -> None:
    q = only("The Act states that “employees are entitled to 0.18 EUR per kilometre” [1](https://example.org/act).\n")
    assert (q.text, q.line, q.col) == ("employees are entitled to 0.18 EUR per kilometre", 1, 21)
    assert hrefs(q) == ["https://example.org/act"]
    assert [s.text for s in only("It says “The Act [...] entitles employees”.\n", min_chars=5).segments] == [
        "The Act", "entitles employees"]


def test_hyphenated_ranges_powers_and_enumerators_are_out_of_scope() -> None:
    """Seen on the ExpertQA answers: a 12-hour requirement (a number joined to a word), a
    $700-$1000 range, e^{x^2} (a power) and a list number the citation kept from being a
    list item (``1[1]. Update…``) are no figures a source is cited for."""
    text = (f"Due to the 12-hour rule, a 5-year-old, laptops in the $700-$1000 range, e^{{x^2}} and "
            f"10^6 and a_1 cost 7 [x]({A}).\n\n"
            f"1[\\[1\\]]({A}). Update the zoning rules, which cost 40 [2]({B}).\n\n"
            f"2) Then 3 more [3]({B}).\n\n"
            f"2020 was the year it rose to 5 [4]({A}).\n\n"
            f"Inputs come first [5]({A}).\n5[\\[6\\]]({B}). The output has 8 pins [7]({B}).\n")
    assert numbers(text) == ["7", "40", "3", "2020", "5", "8"]


# ----------------------------------------------------------------- the check path's reading, on real text

def _shown(found: list) -> list[tuple]:
    """Every field of each quotation or number, its citations by what their verification reads."""
    return [(*(v for k, v in zip(item._fields, item) if k != "citations"),
             tuple((c.href, c.category, c.cited) for c in item.citations)) for item in found]


def test_the_check_paths_reading_finds_what_the_leaves_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """``claims()`` (one reading, leaves found from their marked text nodes, citations not
    located) gives the quotations and numbers that reading every leaf gives, with citations of
    the same destination, category and cited URL, on the README corpus, the article pages and
    the ExpertQA answers."""
    from citelint.links import blocks
    from citelint.links.prose import claims
    from conftest import real_documents

    texts = real_documents()
    fast = [claims(t) for t in texts]
    # the reference: every leaf read (no leaf found alone), every citation located
    monkeypatch.setattr(blocks.Detector, "leaf_at", lambda self, i: None)
    slow = [(quotations(t), cited_numbers(t)) for t in texts]
    assert sum(len(q) + len(n) for q, n in slow) > 5000
    for t, (fq, fn), (sq, sn) in zip(texts, fast, slow):
        assert _shown(fq) == _shown(sq), t[:200]
        assert _shown(fn) == _shown(sn), t[:200]


def test_a_document_whose_html_shows_no_claim_has_none() -> None:
    """``may_claim`` (what a check asks of cmark's HTML before it renders the XML) is False only
    for documents in which ``claims()`` finds nothing with a citation (given the document, it
    leaves out paragraphs without a tag, which cite nothing; without it, nothing at all): on the
    README corpus, the article pages, the ExpertQA answers, the CommonMark and GFM examples (raw
    HTML, entities, code, every construct) and the golden cases' reports; and it is False for
    many of them."""
    import json

    from citelint.links.prose import claims, may_claim
    from citelint.links.render import GITHUB_EXTENSIONS, render_html
    from conftest import corpus_path, real_documents

    texts = real_documents()
    for spec in ("commonmark", "gfm"):
        texts += [example["markdown"] for example in json.loads(corpus_path(spec, "spec.json").read_text("utf-8"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(Path(__file__).parent.glob("cases/*/*/reports/*.md"))]
    skipped = {True: 0, False: 0}
    for text in texts:
        html = render_html(text, GITHUB_EXTENSIONS, True, sourcepos=False)
        for quotes, numbers in ((True, False), (False, True), (True, True)):
            if not may_claim(html, quotes, numbers):
                skipped[quotes] += 1
                assert claims(text, quotes=quotes, numbers=numbers) == ([], []), (quotes, numbers, text[:300])
            if not may_claim(html, quotes, numbers, markdown=text):
                skipped[quotes] += 1
                found, cited = claims(text, quotes=quotes, numbers=numbers)
                assert not [q for q in found if q.citations] and not cited, (quotes, numbers, text[:300])
    assert skipped[True] > 4000 and skipped[False] > 2000, skipped
