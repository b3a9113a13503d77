"""URL identity and classification (DESIGN §2.4, seed 002)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cmarkgfm
import pytest

from citelint import urls

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
WHATWG = CORPUS / "whatwg-url" / "urltestdata.json"


def _whatwg_cases() -> list[dict]:
    if not WHATWG.is_file():
        pytest.skip(f"WHATWG URL test data not found at {WHATWG} (the shared corpus is not checked out)")
    return [case for case in json.loads(WHATWG.read_text(encoding="utf-8")) if isinstance(case, dict)]


def test_parser_agrees_with_every_whatwg_case() -> None:
    cases = _whatwg_cases()
    assert len(cases) == 891
    disagreements = []
    for case in cases:
        got = urls.parse(case["input"], case["base"]) if case["base"] else urls.parse(case["input"])
        want = None if case.get("failure") else case["href"]
        if got != want:
            disagreements.append((case["input"], case["base"], want, got))
    assert disagreements == []


def test_fast_ada_binding_matches_public_api_on_every_whatwg_input() -> None:
    # urls.parse uses ada's cffi binding directly for speed; it must say
    # exactly what ada's public normalize_url says.
    import ada_url

    def public(url: str) -> str | None:
        try:
            return ada_url.normalize_url(url)
        except ValueError:
            return None

    for case in _whatwg_cases():
        assert urls.parse(case["input"]) == public(case["input"]), case["input"]


def test_href_escape_matches_cmark_for_every_ascii_character() -> None:
    for code in range(0x20, 0x7F):
        char = chr(code)
        if char in "<>\\":
            written = "\\" + char
        elif char == " ":
            written = " "
        else:
            written = char
        out = cmarkgfm.markdown_to_html(f"[a](<x{written}y>)\n")
        href = html.unescape(re.search(r'href="([^"]*)"', out).group(1))
        assert urls.href_escape(f"x{char}y") == href, repr(char)
    assert urls.href_escape("https://ex.com/é [x]") == "https://ex.com/%C3%A9%20%5Bx%5D"
    assert urls.href_escape("https://ex.com/%zz|") == "https://ex.com/%zz%7C"  # "%" left alone


@pytest.mark.parametrize(("variant", "canonical"), [
    # seed 002: the five spellings that do not change which source is meant
    ("https://ex.com/%7euser", "https://ex.com/~user"),
    ("http://ex.com/a", "https://ex.com/a"),
    ("https://ex.com/a#section", "https://ex.com/a"),
    ("https://ex.com/a/", "https://ex.com/a"),
])
def test_seed_002_equivalences(variant: str, canonical: str) -> None:
    assert urls.identity(variant) == urls.identity(canonical) == canonical


def test_seed_002_html_entity_equivalence_applies_to_source_strings() -> None:
    """The fifth equivalence: a source copied from HTML keeps "&amp;". A rendered
    link has had its entities decoded once already; decoding again would make
    "&amp;amp;" (a link whose query really holds "&amp;") equal to "&"."""
    assert urls.source_identity("https://ex.com/a?x=1&amp;y=2") == "https://ex.com/a?x=1&y=2"
    assert urls.identity("https://ex.com/a?x=1&amp;y=2") != urls.identity("https://ex.com/a?x=1&y=2")


@pytest.mark.parametrize(("url", "expected"), [
    ("HTTP://EX.com:443/a/b/", "https://ex.com:443/a/b"),  # scheme and host case; 443 stays strict for http
    ("https://ex.com:443/a", "https://ex.com/a"),  # the default port is not a port
    ("https://ex.com", "https://ex.com/"),
    ("https://ex.com/", "https://ex.com/"),
    ("https://ex.com/a%2fb", "https://ex.com/a%2Fb"),  # reserved escapes upper-cased, not decoded
    ("https://ex.com/a/./b/../c", "https://ex.com/a/c"),
    ("https://ex.com/[x]|^", "https://ex.com/%5Bx%5D%7C%5E"),  # cmark's escaping on both sides
    ("https://bücher.example/ä", "https://xn--bcher-kva.example/%C3%A4"),
    ("www.ex.com/a", "https://www.ex.com/a"),
    ("//ex.com/a", "https://ex.com/a"),
    ("https://ex.com/a?", "https://ex.com/a?"),  # an empty query is still a query
])
def test_identity_normalises(url: str, expected: str) -> None:
    assert urls.identity(url) == expected


@pytest.mark.parametrize(("a", "b"), [
    ("https://ex.com/a", "https://ex.org/a"),  # host
    ("https://example.com/a", "https://www.example.com/a"),  # www.
    ("https://ex.com/a", "https://ex.com:8443/a"),  # port
    ("https://ex.com/Docs", "https://ex.com/docs"),  # path case
    ("https://ex.com/docs", "https://ex.com/doc"),
    ("https://ex.com/a?x=1&y=2", "https://ex.com/a?y=2&x=1"),  # query order
    ("https://ex.com/a?q=a+b", "https://ex.com/a?q=a%20b"),  # + is not %20
    ("https://ex.com/a%2Fb", "https://ex.com/a/b"),  # %2F is not /
    ("https://ex.com/a", "https://ex.com/a?"),  # query presence
    ("https://user@ex.com/a", "https://ex.com/a"),  # userinfo
])
def test_strict_cases_stay_distinct(a: str, b: str) -> None:
    assert urls.identity(a) is not None and urls.identity(b) is not None
    assert urls.identity(a) != urls.identity(b)


@pytest.mark.parametrize("url", [
    "https://ex.com/50%off",  # malformed percent escape (seed 002)
    "https://ex.com/%4",
    "javascript:alert(1)",
    "mailto:a@ex.com",
    "ftp://ex.com/file",
    "data:text/html,hi",
    "docs/readme.md",
    "/docs",
    "#top",
    "",
    "http://exa mple.com/",  # WHATWG rejects the host
    "https://[::1/",
])
def test_unvouchable_or_not_governed_has_no_identity(url: str) -> None:
    assert urls.identity(url) is None


@pytest.mark.parametrize(("href", "category"), [
    ("https://ex.com/a", "governed"),
    ("HTTP://ex.com", "governed"),
    ("www.ex.com", "governed"),
    ("//ex.com/a", "governed"),
    ("\\\\ex.com/a", "governed"),  # a browser resolves it to https://ex.com/a
    ("http:ex.com", "governed"),  # and this to http://ex.com/ on an https page
    ("mailto:a@ex.com", "pass"),
    ("tel:+15551234", "pass"),
    ("#section", "pass"),
    ("docs/a.md", "relative"),
    ("/docs/a.md", "relative"),
    ("?q=1", "relative"),
    ("https:a.md", "relative"),  # same scheme as the page: a relative path
    ("", "relative"),
    ("javascript:alert(1)", "disallowed"),
    ("java\tscript:alert(1)", "disallowed"),  # WHATWG drops the tab
    ("data:text/html,x", "disallowed"),
    ("file:///etc/passwd", "disallowed"),
    ("ftp://ex.com/f", "disallowed"),
    ("https://ex.com/50%off", "malformed"),
    ("http://exa mple.com/", "malformed"),
])
def test_classify(href: str, category: str) -> None:
    assert urls.classify(href) == category


def test_unvouchable_reason_names_the_problem() -> None:
    assert "javascript:" in urls.unvouchable_reason("javascript:alert(1)")
    assert "'%of'" in urls.unvouchable_reason("https://ex.com/50%off")
    assert "WHATWG" in urls.unvouchable_reason("http://exa mple.com/")
    assert urls.unvouchable_reason("https://ex.com/") is None


def test_lone_surrogates_are_unvouchable_not_an_exception() -> None:
    assert urls.identity("https://ex.com/\ud800") is None
    assert urls.classify("https://ex.com/\ud800") == "malformed"


def _readme_hrefs() -> list[str]:
    """Every href cmark renders for the README corpus (entities decoded)."""
    from citelint.links.render import GITHUB_EXTENSIONS, render_html

    readmes = CORPUS / "markdown-readmes"
    files = sorted(readmes.glob("*.md"))
    if not files:
        pytest.skip(f"README corpus not found at {readmes} (the shared corpus is not checked out)")
    hrefs: set[str] = set()
    for path in files:
        out = render_html(path.read_text(encoding="utf-8"), GITHUB_EXTENSIONS, True, sourcepos=False)
        hrefs.update(html.unescape(h) for h in re.findall(r'<a href="([^"]*)"', out))
    return sorted(hrefs)


def _spellings_near_the_quick_rules() -> list[str]:
    """URLs on both sides of each rule of the quick identity: host, path, query, fragment."""
    schemes = ["http://", "https://", "HTTP://", "Https://", "http:/", "ftp://", "https:"]
    hosts = ["a", "ex.com", "EX.com", "ex.com.", ".ex.com", "ex..com", "1.2.3.4", "1.2.3", "0x7f.1",
             "ex.123", "ex.0x1f", "ex.1a", "123.ex", "ex.c0m", "xn--nxasmq6b.com", "xn--a.com", "a-.com",
             "-a.com", "a--b.com", "ex.com-", "x" * 70 + ".com", "ex.com:443", "ex.com:80", "u@ex.com",
             "u:p@ex.com", "ex_c.com", "localhost", "ex.com.-", "", "é.com", "ex%2Ecom", "[::1]"]
    paths = ["", "/", "/a", "/a/", "//", "/a//", "/.", "/./a", "/..", "/a/..", "/a/.b", "/.well-known/x",
             "/%2e", "/a%7e", "/a%zz", "/a'b", "/a$b!c*(d)+,;=:@", "/~u_-.", "/a b", "/a|b", "/é",
             "/a\\b", "/a^b", "/a`b", "/a{b}", "/a[b]", "/a\"b", "/a<b>", "/a\tb"]
    queries = ["", "?", "?a=1&b=2", "?a'b", "?a=/?x:@", "?%7e", "?a b", "?a&amp;b", "?é", "?a^b", "?a|b"]
    fragments = ["", "#", "#x", "#a'b", "#%zz", "#a#b", "#é", "#a b", "#a`b"]
    out = [s + h + p for s in schemes for h in hosts for p in paths]
    out += [s + h + "/a" + q + f for s in schemes[:3] for h in hosts for q in queries for f in fragments]
    out += ["https://ex.com" + p + q + f for p in paths for q in queries for f in fragments]
    out += [lead + f for lead in ("", " ", "\t", "\x00") for f in fragments + ["#\ud800", "#a\nb", "#\\x"]]
    return out


def test_quick_identity_agrees_with_the_parser() -> None:
    # The quick path may decline any spelling; whatever it answers must be
    # exactly what the WHATWG parser and the identity rules give.
    inputs: set[str] = set()
    for case in _whatwg_cases():
        inputs.update(v for v in (case["input"], case["base"], case.get("href")) if v)
    readme = _readme_hrefs()
    inputs.update(readme)
    inputs.update(_spellings_near_the_quick_rules())
    disagreements = []
    answered = 0
    for url in inputs:
        quick = urls.quick_identity(url)
        if quick is not None:
            answered += 1
            if urls._analyse(url) != ("governed", quick):
                disagreements.append((url, quick, urls._analyse(url)))
        assert urls.analyse(url) == urls._analyse(url), url
    assert disagreements == []
    assert answered > 1000
    # and it answers for most real links, or it would not be worth having
    governed = [h for h in readme if urls._analyse(h)[0] == "governed"]
    assert sum(urls.quick_identity(h) is not None for h in governed) > 0.9 * len(governed)


@pytest.mark.parametrize(("url", "expected"), [
    ("https://ex.com", "https://ex.com/"),
    ("http://ex.com/a/b//", "https://ex.com/a/b"),
    ("https://ex.com//", "https://ex.com/"),
    ("https://ex.com/a?", "https://ex.com/a?"),
    ("https://ex.com/a/?q=1/#f", "https://ex.com/a?q=1/"),
    ("https://ex.com?q", "https://ex.com/?q"),
])
def test_quick_identity_examples(url: str, expected: str) -> None:
    assert urls.quick_identity(url) == expected == urls._analyse(url)[1]


@pytest.mark.parametrize("url", [
    "https://1.2.3/a", "https://ex.123/", "https://xn--a.com/", "https://ex..com/", "https://ex.com./",
    "https://ex.com/./a", "https://ex.com/a%7e", "https://ex.com/a?b'c", "HTTPS://ex.com/", "https://Ex.com/",
    "https://ex.com:443/", "https://u@ex.com/", "https://ex.com/a b", "https://ex.com/é",
])
def test_quick_identity_declines_what_the_parser_must_see(url: str) -> None:
    assert urls.quick_identity(url) is None
