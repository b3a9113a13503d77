"""The fast paths of link governance agree with the slow paths they stand for.

Each shortcut (tag tuples instead of match objects, raw tag attributes
without html.parser, a batch of decisions, one regular-expression call for a
list of canonical sources, site-relative spellings without the parser) is
checked against the general code on the CommonMark/GFM spec examples, the
README corpus and spellings on both sides of each of its rules.
"""

from __future__ import annotations

import re
from itertools import product

from citelint import links, urls
from citelint.links import Allowlist, LinkEvidence, check, govern, locate, render
from test_links_conformance import corpus, spec_examples
from test_urls import _readme_hrefs, _spellings_near_the_quick_rules, _whatwg_cases


def _documents() -> list[str]:
    docs = [example["markdown"] for _, example, _ in spec_examples()]
    docs += [p.read_text(encoding="utf-8") for p in sorted(corpus("markdown-readmes").glob("*.md"))]
    docs += ['<!-- <a href="x"> -->text</a> <a href="y">', "<!-- [a](b) --> [c](d) <!--",
             "<!--> <a href=x> <!--->", '<a href="x<!--">y</a> -->', "<IMG SRC=a> <A HREF=b>c</A>",
             "www.x.org/a，中文 and <a href='q'>https://y.org/，b</a>", "<a href='x' title='>'>y</a> <a",
             "<a\nhref=x\n>", "<a href=\"x\" <b>", "<a/>"]
    return docs


def test_tag_tuples_are_the_tags_of_scan() -> None:
    raw_seen = 0
    for md in _documents():
        out = render.render_html(md, links.GITHUB_EXTENSIONS, True, sourcepos=False)
        for images, text in product((False, True), repeat=2):
            tags = render.scan_links(out, images)
            got = render.scan_link_tuples(out, images, text)
            assert [entry[:3] for entry in got] == [
                (m.group(1) or "", (m.group(2) or "") if text else "",
                 "" if m.group(1) is not None else out[m.start() + 1:m.end()]) for m in tags], md[:80]
            if "<!--" in out:
                continue  # a raw tag is read from the tuples only in output without comments
            for m, (_, _, name, open_rest, loose_rest) in zip(tags, got):
                if name:
                    raw_seen += 1
                    tm = locate._OPEN_TAG.match(out, m.start())
                    loose = locate._LOOSE_TAG.match(out, m.start())
                    assert (open_rest, loose_rest) == ((tm.group(0)[len(name) + 1:], "") if tm else
                                                       ("", loose.group(0)[len(name) + 1:] if loose else "")), md
                    assert locate.raw_tag(out, m.start(), name not in "aA") == (
                        locate.raw_link("<" + name + (open_rest or loose_rest), name not in "aA")
                        if open_rest or loose_rest else None)
    assert raw_seen > 1000


def _raw_tags(out: str) -> list[str]:
    found = []
    for m in render.scan_links(out, True):
        if m.group(1) is None:
            tm = locate._OPEN_TAG.match(out, m.start()) or locate._LOOSE_TAG.match(out, m.start())
            if tm is not None:
                found.append(tm.group(0))
    return found


def test_raw_attributes_are_read_as_html_parser_reads_them() -> None:
    tags: set[str] = set()
    for md in _documents():
        tags.update(_raw_tags(render.render_html(md, links.GITHUB_EXTENSIONS, True, sourcepos=False)))
    names = ["a", "A", "img"]
    attrs = ['href="x"', "href='x'", "href", 'HREF="X"', 'href=""', 'href="a&amp;b&#x41;&bogus;"',
             'href="a>b"', "href='a\"b'", 'data-x="1"', 'xml:lang="en"', 'href=x', 'href = "x"',
             'href="x"title="y"', 'src="s"', 'alt="a"', 'href="\t\n"', 'h\u00e9f="x"', '/', '"q"']
    seps = [" ", "  ", "\n", "\t", " \r\n "]
    for name, first, second, sep in product(names, attrs, attrs, seps):
        for end in (">", "/>", " >", " />"):
            tags.add(f"<{name}{sep}{first}{sep}{second}{end}")
    simple = 0
    for tag in tags:
        for attr in ("href", "src", "alt"):
            assert locate.raw_attr(tag, attr) == locate._parsed_attr(tag, attr), (tag, attr)
        simple += locate._SIMPLE_TAG.fullmatch(tag) is not None
    assert simple > len(tags) // 4


def test_decide_all_is_decide_for_each_href() -> None:
    hrefs = [None, "", "#x", "docs/a.md", "mailto:a@b.c", "javascript:x", "https://ex.org/a",
             "http://EX.org/a/", "https://ex.org/b", "www.ex.org/c", "https://ex.org/%zz", None,
             "https://ex.org/a?x=1&amp;y=2", "https://ex.org/a?x=1&y=2", "//ex.org/a", "ftp://x"]
    sources = ["https://ex.org/a", "www.ex.org/c", "https://ex.org/a?x=1&amp;y=2", "javascript:x"]
    for allow in (Allowlist(sources), Allowlist(sources[:1], ["https://ex.org/*"]), Allowlist([])):
        grounded, others = allow.decide_all(hrefs)
        want = [(i, allow.decide(h)) for i, h in enumerate(hrefs) if h is not None]
        assert grounded == sum(ok for _, (_, ok) in want)
        assert others == [(i, category) for i, (category, ok) in want if not ok]


# The canonical spelling as first written, with backtracking quantifiers: the
# oracle for the possessive one.
_BACKTRACKING_CANONICAL = re.compile(
    r"https?://((?:(?!xn--)[a-z0-9\-]+\.)*(?!xn--)[a-z][a-z0-9\-]*)"
    r"((?:/(?!\.)[A-Za-z0-9\-._~!$&'()*+,;=:@]*)*)"
    r"(\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*)?"
    r"(?:#[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]*)?")


def _urls() -> list[str]:
    inputs: set[str] = set()
    for case in _whatwg_cases():
        inputs.update(v for v in (case["input"], case["base"], case.get("href")) if v)
    inputs.update(_readme_hrefs())
    inputs.update(_spellings_near_the_quick_rules())
    return sorted(inputs)


def test_possessive_canonical_pattern_accepts_what_backtracking_does() -> None:
    for url in _urls():
        got, want = urls.CANONICAL.fullmatch(url), _BACKTRACKING_CANONICAL.fullmatch(url)
        assert (got and got.groups()) == (want and want.groups()), url


def test_one_call_for_a_list_of_canonical_sources() -> None:
    spellings = _urls()
    canonical = [u for u in spellings if urls.CANONICAL.fullmatch(u)][:500]
    other = [u for u in spellings if not urls.CANONICAL.fullmatch(u)]
    assert len(canonical) == 500 and len(other) > 1000
    assert urls.all_canonical(canonical)
    assert urls.all_canonical(canonical[:1])
    for bad in other[::100] + ["https://a.org/x\nhttps://b.org/y", "https://a.org/\n", "\n", ""]:
        for at in (0, 7, len(canonical)):
            assert not urls.all_canonical(canonical[:at] + [bad] + canonical[at:]), bad


def _built_one_by_one(sources: list[str]) -> tuple[set[str], list, list[str]]:
    """An allowlist's exact spellings, pending sources and rejected ones, built
    from one single-source allowlist per source (no chunk holds two sources)."""
    exact: set[str] = set()
    pending: list = []
    rejected: list[str] = []
    for source in sources:
        one = Allowlist([source])
        exact |= one._exact
        pending += one._pending
        rejected += one.rejected
    return exact, pending, rejected


def test_allowlist_checked_in_chunks_equals_one_by_one() -> None:
    spellings = _urls()
    canonical = [u for u in spellings if urls.CANONICAL.fullmatch(u)][:200]
    other = [u for u in spellings if not urls.CANONICAL.fullmatch(u)][::40]
    from citelint.links.allowlist import _CHUNK
    for k, odd in enumerate(other):
        for at in (0, _CHUNK - 1, _CHUNK, 3 * _CHUNK + k % _CHUNK, len(canonical)):
            sources = canonical[:at] + [odd, canonical[k % 50]] + canonical[at:]
            allow = Allowlist(sources)
            assert (allow._exact, allow._pending, allow.rejected) == _built_one_by_one(sources), odd
    assert Allowlist([])._pending == [] and Allowlist(canonical)._pending == canonical


def _relative_spellings() -> list[str]:
    heads = ["", "/", "//", "\\", "\\\\", "/\\", "\\/", ".", "..", "./", "../", "?", "#", "www.", "WWW.",
             "wWw.", "www", "a:", "ab+c.d-e:", "1a:", ":", "mailto:", "http:", "https:", "javascript:",
             "C:", "c|", "%2F", "%2f/", " ", "\t/", "/\t/", "\x00", "é", "\x7f"]
    tails = ["", "a", "a/b", "x.md", "?q=1", "#f", "/x", "\\x", "//x", "a b", "a\tb", "%zz", "é", "a:b",
             "@x", "\x7f", "\\\\x"]
    return [h + t for h in heads for t in tails]


def test_quick_relative_spellings_agree_with_the_parser() -> None:
    answered = 0
    for href in _urls() + _relative_spellings():
        if urls._QUICK_RELATIVE.fullmatch(href) is not None:
            answered += 1
            assert urls._analyse(href) == ("relative", None), href
        assert urls.analyse(href) == urls._analyse(href), href
    assert answered > 200


def test_check_agrees_with_govern_where_the_fast_paths_branch() -> None:
    # raw tags (with and without comments), CJK punctuation on the page or
    # not, escaped hrefs, images: check() must find what govern() finds.
    allow = Allowlist(["https://ex.org/a", "https://ex.org/a?x=1&y=2", "https://ex.org/c"])
    pieces = ["[a](https://ex.org/a)", "[b](https://ex.org/b)", "https://ex.org/c，中文",
              "<https://ex.org/a?x=1&y=2>", '<a href="https://ex.org/b">raw</a>', "<a name=x>n</a>",
              "<!-- [c](https://ex.org/b) -->", "![i](https://ex.org/i.png)", "[r](docs/r.md)", "[j](javascript:x)",
              "<a href='https://ex.org/a?x=1&amp;y=2'>e</a>", "中文。"]
    for mask in range(1, 1 << len(pieces), 37):
        md = "\n\n".join(p for k, p in enumerate(pieces) if mask >> k & 1)
        for kw in ({}, {"images": True}, {"relative": "error"}):
            _, issues = govern(md, LinkEvidence(allow), **kw)
            report = check(md, LinkEvidence(allow), **kw)
            assert [(i.rule, i.line, i.col, i.message) for i in report.issues] == \
                [(i.rule, i.line, i.col, i.message) for i in issues], (md, kw)


def test_entities_are_decoded_once_on_the_fast_path() -> None:
    # cmark writes "&" in an href as "&amp;": the decision sees "&" again
    allow = Allowlist(["https://ex.org/a?x=1&y=2"])
    assert check("[a](https://ex.org/a?x=1&y=2)", LinkEvidence(allow)).grounded == 1
    assert check("[a](https://ex.org/a?x=1&amp;amp;y=2)", LinkEvidence(allow)).grounded == 0
