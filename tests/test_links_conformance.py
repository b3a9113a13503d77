"""Link extraction against real corpora: the CommonMark and GFM specs, 290 READMEs, ExpertQA.

The corpora live in ``../shared/corpus`` next to the repository; each test
skips with the reason when its corpus is absent.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest

from citelint import links, urls
from citelint.links import Allowlist, LinkEvidence, check, extract, govern, resolve_destination
from citelint.links.render import render_html

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def corpus(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus not found: {path} (the shared corpus is not checked out)")
    return path


class _Hrefs(HTMLParser):
    """The oracle: every <a href> of an example's reference HTML, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            for key, value in attrs:
                if key == "href":
                    self.hrefs.append(value or "")
                    break


def oracle_hrefs(reference_html: str) -> list[str]:
    parser = _Hrefs()
    parser.feed(reference_html)
    parser.close()
    return [urls.href_escape(h) for h in parser.hrefs]


def spec_examples() -> list[tuple[str, dict, list[str]]]:
    out = []
    for name in ("commonmark", "gfm"):
        for example in json.loads(corpus(name, "spec.json").read_text(encoding="utf-8")):
            ext = example.get("extensions") or []
            # "disabled" marks the task-list examples (rendered with disabled checkboxes)
            extensions = [e for e in ext if e != "disabled"] + (["tasklist"] if "disabled" in ext else [])
            out.append((name, example, extensions))
    return out


def located_construct_agrees(src: str, link: links.Link) -> bool:
    """The source at the link's recorded position spells the link cmark rendered."""
    dest = src[link.start:link.end]
    if link.form in ("inline", "image"):
        written = src[link.text_span[1] + 2:link.end]
        return (dest.startswith("![" if link.form == "image" else "[") and dest.endswith(")")
                and urls.href_escape(resolve_destination(_destination(written))) == urls.href_escape(link.href))
    if link.form == "reference":
        return dest.startswith(("[", "!["))
    if link.form == "autolink":
        return dest == "<" + link.text + ">"
    if link.form == "bare":
        return dest == link.text
    if link.form == "html":
        return dest[:2].lower() in ("<a", "<i")
    return False


def _destination(written: str) -> str:
    """The destination part of ``(dest "title")`` as written (test helper, tolerant)."""
    written = written.strip()
    if written.startswith("<"):
        end = written.index(">")
        while written[end - 1] == "\\":
            end = written.index(">", end + 1)
        return written[1:end]
    depth = 0
    for i, ch in enumerate(written):
        if ch == "\\":
            continue
        if ch == "(" and (i == 0 or written[i - 1] != "\\"):
            depth += 1
        elif ch == ")" and (i == 0 or written[i - 1] != "\\"):
            if depth == 0:
                return written[:i]
            depth -= 1
        elif ch in " \t\r\n" and depth == 0:
            return written[:i]
    return written


# --- CommonMark and GFM spec examples -------------------------------------------

FULL_SECTIONS = {"Links", "Link reference definitions", "Autolinks", "Autolinks (extension)"}


def test_spec_examples_hrefs_equal_the_reference_html() -> None:
    per_section: dict[str, Counter] = {}
    mismatches = []
    for name, example, extensions in spec_examples():
        found = extract(example["markdown"], extensions=extensions, footnotes=False)
        got = [urls.href_escape(link.href) for link in found]
        want = oracle_hrefs(example["html"])
        tally = per_section.setdefault(example["section"], Counter())
        tally["examples"] += 1
        if got == want:
            tally["match"] += 1
        else:
            mismatches.append((name, example["example"], example["section"], got, want))
        # and each link was found in the source where cmark made it
        for link in found:
            assert link.located, (name, example["example"], link)
            assert located_construct_agrees(example["markdown"], link), (name, example["example"], link)
    total = sum(t["examples"] for t in per_section.values())
    matched = sum(t["match"] for t in per_section.values())
    print(f"\nspec conformance: {matched}/{total} examples")  # shown with pytest -s
    assert total == 655 + 673
    for section in FULL_SECTIONS:
        assert per_section[section]["match"] == per_section[section]["examples"], section
    assert mismatches == []


def assert_check_agrees_with_govern(md: str, allow: Allowlist, label: object) -> None:
    """check()'s counts and findings for ``md`` are govern()'s."""
    governed, issues = govern(md, LinkEvidence(allow))
    report = check(md, LinkEvidence(allow))
    blocking = {id(i.link) for i in issues if i.rule in ("CL201", "CL202")}
    want = (len(governed), sum(lk.category == "governed" for lk in governed),
            sum(lk.category == "governed" and id(lk) not in blocking for lk in governed))
    assert (report.links, report.governed, report.grounded) == want, label
    assert [(i.rule, i.line, i.col, i.message) for i in report.issues] == \
        [(i.rule, i.line, i.col, i.message) for i in issues], label


def test_check_agrees_with_govern_on_every_spec_example() -> None:
    # check() decides most links (raw HTML <a> included) from cmark's output
    # without locating them; its counts and findings must be govern()'s.
    # Each example is checked with its own governed links allowed (nothing
    # located but what has a finding) and with nothing allowed.
    examples = spec_examples()
    assert len(examples) == 655 + 673
    for name, example, _ in examples:
        md = example["markdown"]
        own = Allowlist(link.cited for link in extract(md) if link.category == "governed")
        for allow in (own, Allowlist([])):
            assert_check_agrees_with_govern(md, allow, (name, example["example"]))


RAW_HTML = [
    '<a href="https://ok.example/a">x</a>\n',
    'Text <a href="https://ok.example/a" title="t">x</a> and <A HREF="https://ok.example/b">y</A>.\n',
    "<a href='https://ok.example/a?x=1&amp;y=2'>x</a>\n",
    "<a href=https://ok.example/c>x</a> <a name=anchor>n</a> <a id=x href=javascript:alert(1)>j</a>\n",
    '<div>\n<a href="https://ok.example/d"\n   title="multi-line">x</a>\n</div>\n\n[m](https://ok.example/e)\n',
    '<!-- <a href="https://commented.example/"> -->\n\n<a href="//ok.example/f">p</a>\n',
    "| a | b |\n|---|---|\n| <a href=\"https://ok.example/g\">t</a> | <a href=\"docs/x.md\">r</a> |\n",
    "Note[^1] and <a href=\"https://ok.example/h\">x</a>.\n\n[^1]: <a href=\"https://fn.example/\">f</a>\n",
    '<div><a href="https://ok.example/i"\n\npara <b>\n',  # a tag left open: it ends in cmark's next tag
    '<a\nhref="https://ok.example/j">x</a> <a href="">e</a> <a href="mailto:a@b.example">m</a>\n',
    "`<a href=\"https://code.example/\">` <a href=\"https://ok.example/k\">x</a>\n",
]


@pytest.mark.parametrize("md", RAW_HTML)
def test_check_agrees_with_govern_on_raw_html_links(md: str) -> None:
    found = extract(md)
    assert any(link.form == "html" for link in found)
    hrefs = [link.cited for link in found if link.category == "governed"]
    for allow in (Allowlist(hrefs), Allowlist(hrefs[1:]), Allowlist(hrefs[:-1]), Allowlist([])):
        assert_check_agrees_with_govern(md, allow, md)


def test_spec_autolink_extension_only_where_enabled() -> None:
    # example 621 of the GFM spec: a www. link is a link only with the extension
    text = "www.commonmark.org\n"
    assert [lk.href for lk in extract(text, extensions=["autolink"], footnotes=False)] == ["http://www.commonmark.org"]
    assert extract(text, extensions=[], footnotes=False) == []


# --- markdown-readmes: no false flags -----------------------------------------------

# Every CL202 in the corpus, with the reason. All are destinations malformed in
# the source: typos in the scheme ("hhttps", "ttps"), FTP links and STUN
# server addresses written as links.
EXPECTED_CL202 = [
    ("caesar0301_awesome-pcaptools_README.md", 160, 14, "ftp://ftp.ee.lbl.gov/tcpslice.tar.gz", "'ftp:'"),
    ("caesar0301_awesome-pcaptools_README.md", 160, 281, "ftp://ftp.ee.lbl.gov/tcpslice.tar.gz", "'ftp:'"),
    ("caesar0301_awesome-pcaptools_README.md", 241, 27, "ftp://ftp.ee.lbl.gov/papers/bpf-usenix93.ps.Z", "'ftp:'"),
    ("diasdavid_awesome-hacking-spots_README.md", 1279, 51, "hhttps://goo.gl/maps/btPUB2EHodR2", "'hhttps:'"),
    ("pazguille_offline-first_README.md", 490, 52,
     "ttps://translate.google.com/translate?hl=en&sl=nl&tl=en&u=http%3A%2F%2Fwww.e-sites.nl%2Fblog%2F"
     "400-offline-first-een-nieuw-paradigma-in-web-development.html", "'ttps:'"),
    ("ripienaar_free-for-dev_README.md", 446, 37, "stun:stun.l.google.com:19302", "'stun:'"),
    ("ripienaar_free-for-dev_README.md", 447, 55, "stun:global.stun.twilio.com:3478?transport=udp", "'stun:'"),
    ("veggiemonk_awesome-docker_README.md", 149, 22, "hhttps://github.com/funkwerk/compose_plantuml", "'hhttps:'"),
]


def test_readmes_allowlisted_from_their_own_links_have_no_cl201() -> None:
    files = sorted(corpus("markdown-readmes").glob("*.md"))
    assert len(files) == 290
    cl202 = []
    forms: Counter = Counter()
    for path in files:
        src = path.read_text(encoding="utf-8")
        found = extract(src)
        allow = Allowlist(link.cited for link in found if link.category == "governed")
        issues = links.judge(found, links.LinkEvidence(allow))
        assert [i for i in issues if i.rule == "CL201"] == [], path.name
        for issue in issues:
            if issue.rule == "CL202":
                cl202.append((path.name, issue.line, issue.col, issue.link.href, issue.message))
        for link in found:
            forms[link.kind] += 1
            assert link.located, (path.name, link)
            assert located_construct_agrees(src, link), (path.name, link)
        report = check(src, LinkEvidence(allow))
        assert (report.links, report.governed) == (len(found), sum(lk.category == "governed" for lk in found))
        assert [(i.rule, i.line, i.col) for i in report.issues] == [(i.rule, i.line, i.col) for i in issues]
    assert [(f, line, col, href) for f, line, col, href, _ in cl202] == [e[:4] for e in EXPECTED_CL202]
    for (_, _, _, _, message), expected in zip(cl202, EXPECTED_CL202):
        assert expected[4] in message
    assert sum(forms.values()) == 66858
    assert forms["reference"] > 500 and forms["bare"] > 1000 and forms["html"] > 100


def test_readme_inline_links_are_located_exactly() -> None:
    # Each located inline link, rendered alone by cmark, is exactly the link
    # cmark made in the whole document (a sample of every 7th link, for time).
    path = corpus("markdown-readmes", "vinta_awesome-python_README.md")
    src = path.read_text(encoding="utf-8")
    found = [lk for lk in extract(src) if lk.form == "inline"][::7]
    assert len(found) > 50
    for link in found:
        alone = cmarkgfm.github_flavored_markdown_to_html(src[link.start:link.end])
        assert oracle_hrefs(alone)[-1] == urls.href_escape(link.href), link


# --- ExpertQA end to end -----------------------------------------------------------------


def _expertqa():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import expertqa_links
    finally:
        sys.path.pop(0)
    return expertqa_links


def test_expertqa_answers_inline_links_grounded_against_retrieved_evidence() -> None:
    eq = _expertqa()
    counts = eq.run(corpus("expertqa"), "inline")
    total = counts["total"]
    assert (total["answers"], total["links"], total["governed"]) == (423, 2623, 2623)
    assert (total["grounded"], total["CL201"], total["CL202"]) == (1695, 928, 0)
    # systems that retrieved nothing with a passage cite only ungrounded URLs
    assert counts["gpt4"]["grounded"] == 0 and counts["gpt4"]["CL201"] == counts["gpt4"]["links"]
    assert counts["post_hoc_sphere_gpt4"]["CL201"] == 0


@pytest.mark.parametrize("form", ["inline", "reference", "autolink", "bare", "html"])
def test_expertqa_citations_are_governed_in_every_link_form(form: str) -> None:
    eq = _expertqa()
    # the first answer with both grounded and ungrounded citations
    for _system, answer in eq.records(corpus("expertqa")):
        md_inline = eq.render(answer["answer_string"], answer["attribution"], "inline")
        allow = Allowlist(eq.retrieved(answer))
        inline_issues = govern(md_inline, LinkEvidence(allow))[1]
        if inline_issues and check(md_inline, LinkEvidence(allow)).grounded:
            break
    md = eq.render(answer["answer_string"], answer["attribution"], form)
    found, issues = govern(md, LinkEvidence(allow))
    expected_kind = "reference" if form == "reference" else form
    assert {lk.kind for lk in found} == {expected_kind}
    assert sorted(urls.identity(i.link.cited) for i in issues) == \
        sorted(urls.identity(i.link.cited) for i in inline_issues)
    for issue in issues:
        line_text = md.splitlines()[issue.line - 1]
        at = line_text[issue.col - 1:]
        if form == "reference":
            assert at.startswith("[\\[")
        else:
            assert at.startswith(issue.link.cited if form != "html" else issue.link.href), (at[:60], issue)
    assert check(md, LinkEvidence(allow)).grounded == check(md_inline, LinkEvidence(allow)).grounded > 0


def _scan_filtering_comments(out: str, images: bool) -> list:
    """The oracle for render.scan_links: every tag of cmark's output, then those inside a comment dropped."""
    from bisect import bisect_right

    from citelint.links import render

    found = list((render._SCAN_A_IMG if images else render._SCAN_A).finditer(out))
    comments = render._comment_spans(out)
    starts = [c[0] for c in comments]

    def outside(m) -> bool:
        k = bisect_right(starts, m.start()) - 1
        return k < 0 or m.start() >= comments[k][1]

    return [m for m in found if outside(m)]


def test_scan_between_comments_equals_filtering_them() -> None:
    from citelint.links import render

    docs = [example["markdown"] for _, example, _ in spec_examples()]
    docs += [p.read_text(encoding="utf-8") for p in sorted(corpus("markdown-readmes").glob("*.md"))]
    docs += ['<!-- <a href="x"> -->text</a> <a href="y">', "<!-- [a](b) --> [c](d) <!--", "<!--> <a href=x> <!--->"]
    with_comments = 0
    for md in docs:
        out = render_html(md, links.GITHUB_EXTENSIONS, True)
        with_comments += "<!--" in out
        for images in (False, True):
            got = [(m.span(), m.groups()) for m in render.scan_links(out, images)]
            assert got == [(m.span(), m.groups()) for m in _scan_filtering_comments(out, images)], md[:80]
    assert with_comments > 30
