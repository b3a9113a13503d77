"""Markdown link governance: rules CL201/CL202/CL203, positions, forms, --fix (DESIGN §2.4)."""

from __future__ import annotations

import importlib

import pytest

from citelint import links
from citelint.links import Allowlist, Link, LinkEvidence, check, extract, fix, govern
from citelint.links.link import new_link
from citelint.links.render import cmark_to_html, cmarkgfm_to_html, render_html

CAPTURED = "https://example.org/q3.txt"
ALLOW = LinkEvidence(Allowlist([CAPTURED]))


def findings(markdown: str, evidence: LinkEvidence = ALLOW, **kw) -> list[tuple[str, int, int]]:
    """(rule, line, col) of every issue, after checking that check() agrees with govern()."""
    _, issues = govern(markdown, evidence, **kw)
    report = check(markdown, evidence, **kw)
    assert [(i.rule, i.line, i.col, i.message) for i in report.issues] == \
        [(i.rule, i.line, i.col, i.message) for i in issues]
    return [(i.rule, i.line, i.col) for i in issues]


def col_of(markdown: str, needle: str) -> tuple[int, int]:
    """1-based (line, code-point column) of the first ``needle`` in ``markdown``."""
    offset = markdown.index(needle)
    before = markdown[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


# --- each rule: a failing and a passing case, with positions -----------------

def test_cl201_ungrounded_inline_link_points_at_its_destination() -> None:
    md = "Intro.\n\nRevenue rose ([study](https://example.org/invented)).\n"
    assert findings(md) == [("CL201", 3, 23)]
    assert col_of(md, "https://example.org/invented") == (3, 23)
    _, issues = govern(md, ALLOW)
    assert "capture the source" in issues[0].message
    assert (issues[0].end_line, issues[0].end_col) == (3, 23 + len("https://example.org/invented"))


def test_cl201_passes_for_a_captured_source_in_any_spelling() -> None:
    md = ("[a](https://example.org/q3.txt) [b](http://example.org/q3.txt#p2) "
          "[c](https://EXAMPLE.org/q3.txt/) [d](https://example.org/%71%33.txt)\n")
    assert findings(md) == []


def test_cl202_disallowed_scheme_and_malformed_escape() -> None:
    md = "[x](javascript:alert(1)) and [y](https://example.org/50%off)\n"
    assert findings(md) == [("CL202", 1, 5), ("CL202", 1, 34)]
    _, issues = govern(md, ALLOW)
    assert "'javascript:' is not allowed" in issues[0].message
    assert "malformed percent escape '%of'" in issues[1].message


def test_cl202_passes_mailto_tel_fragment_and_relative_by_default() -> None:
    md = "[m](mailto:a@example.org) [t](tel:+15551234) [f](#top) [r](docs/a.md) <b@example.org>\n"
    assert findings(md) == []


def test_cl202_for_relative_links_when_configured() -> None:
    md = "See [the guide](docs/guide.md).\n"
    assert findings(md, relative="error") == [("CL202", 1, 17)]
    assert findings(md, relative="pass") == []


def test_cl203_bare_url_running_past_cjk_punctuation() -> None:
    md = "見る https://example.org/q3.txt。次の文\n"
    # grounded (the URL ends at 。 for the decision), but the rendered link swallows the rest
    assert findings(md) == [("CL203", 1, 30)]
    assert col_of(md, "。") == (1, 30)
    _, issues = govern(md, ALLOW)
    assert "'。次の文'" in issues[0].message and "<https://example.org/q3.txt>" in issues[0].message
    assert issues[0].link.cited == CAPTURED


def test_cl203_passes_with_angle_brackets_or_a_space() -> None:
    assert findings("見る <https://example.org/q3.txt>。次の文\n") == []
    assert findings("見る https://example.org/q3.txt 。次の文\n") == []


def test_cl203_with_an_ungrounded_url_is_also_cl201() -> None:
    md = "参照 https://example.org/other）です\n"
    assert findings(md) == [("CL201", 1, 4), ("CL203", 1, 29)]
    _, issues = govern(md, ALLOW)
    assert issues[0].link.cited == "https://example.org/other"


# --- every followable form is governed ---------------------------------------

FORMS_DOC = """\
# Report

Inline [a](https://bad.example/1) and reference [b][ref] and [ref] and [c][].
Autolink <https://bad.example/2>, bare https://bad.example/3 and www.bad.example/4.
Raw <a href="https://bad.example/5">anchor</a> and a footnote.[^n]

[ref]: https://bad.example/6
[c]: https://bad.example/7

[^n]: Footnote cites https://bad.example/8 too.

`[code](https://bad.example/9)` and ![img](https://bad.example/10)

    https://bad.example/11 in an indented code block

```
[fenced](https://bad.example/12)
```
<!-- <a href="https://bad.example/13"> in a comment -->
"""


def test_every_link_form_is_governed_with_its_position() -> None:
    found, issues = govern(FORMS_DOC, ALLOW)
    got = [(lk.kind, lk.form, lk.href, lk.line, lk.col) for lk in found]
    assert got == [
        ("inline", "inline", "https://bad.example/1", 3, 12),
        ("reference", "reference", "https://bad.example/6", 3, 49),
        ("reference", "reference", "https://bad.example/6", 3, 62),
        ("reference", "reference", "https://bad.example/7", 3, 72),
        ("autolink", "autolink", "https://bad.example/2", 4, 11),
        ("bare", "bare", "https://bad.example/3", 4, 40),
        ("bare", "bare", "http://www.bad.example/4", 4, 66),
        ("html", "html", "https://bad.example/5", 5, 14),
        ("footnote", "bare", "https://bad.example/8", 10, 22),
    ]
    assert [i.rule for i in issues] == ["CL201"] * len(got)
    # positions point where the spec says: the destination as written, a reference use's "["
    assert col_of(FORMS_DOC, "[b][ref]") == (3, 49)
    assert col_of(FORMS_DOC, "[ref] and [c]") == (3, 62)
    for href in ("https://bad.example/1", "https://bad.example/2", "https://bad.example/3",
                 "www.bad.example/4", "https://bad.example/5", "https://bad.example/8"):
        line, col = col_of(FORMS_DOC, href)
        assert (line, col) in [(lk.line, lk.col) for lk in found], href
    # code, comments and (by default) images are not citations
    assert not {"https://bad.example/9", "https://bad.example/10", "https://bad.example/11",
                "https://bad.example/12", "https://bad.example/13"} & {lk.href for lk in found}
    assert findings(FORMS_DOC) == [(i.rule, i.line, i.col) for i in issues]


def test_images_are_governed_when_configured() -> None:
    md = "![chart](https://bad.example/c.png) [![badge](https://bad.example/b.svg)](https://example.org/q3.txt)\n"
    assert findings(md) == []
    assert findings(md, images=True) == [("CL201", 1, 10), ("CL201", 1, 47)]


def test_destinations_compare_as_the_renderer_resolved_them() -> None:
    allow = Allowlist(["https://ex.com/a?x=1&y=2", "https://ex.com/a_b", "https://ex.com/[1]"])
    md = "[e](https://ex.com/a?x=1&amp;y=2) [s](https://ex.com/a\\_b) [p](<https://ex.com/[1]>)\n"
    found, issues = govern(md, LinkEvidence(allow))
    assert [lk.href for lk in found] == ["https://ex.com/a?x=1&y=2", "https://ex.com/a_b", "https://ex.com/[1]"]
    assert issues == []


def test_positions_count_code_points_and_handle_crlf() -> None:
    md = "Ünïcødé 🙂 [a](https://bad.example/x)\r\nsecond [b](https://bad.example/y)\r\n"
    assert findings(md) == [("CL201", 1, 15), ("CL201", 2, 12)]


def test_links_in_lists_tables_quotes_and_html_blocks() -> None:
    md = (
        "- item [a](https://bad.example/1)\n"
        "  - nested [b](https://bad.example/1)\n"
        "\n"
        "| x | y |\n|---|---|\n| [c](https://bad.example/1) | [d](https://bad.example/1) |\n"
        "\n"
        "> quoted [e](https://bad.example/1)\n"
        "\n"
        "<div>\n<a href='https://bad.example/1'>f</a>\n</div>\n"
    )
    assert findings(md) == [("CL201", 1, 12), ("CL201", 2, 16), ("CL201", 6, 7), ("CL201", 6, 36),
                            ("CL201", 8, 14), ("CL201", 11, 10)]


def test_near_miss_names_the_captured_source() -> None:
    allow = Allowlist(["https://www.example.org/report", "https://example.org/data?year=2024",
                       "https://example.org/docs/guide"])
    cases = {
        "https://example.org/report": "https://www.example.org/report",  # www.
        "https://example.org/data?year=2025": "https://example.org/data?year=2024",  # query
        "https://example.org/docs/guid": "https://example.org/docs/guide",  # one edit
        "https://example.org/elsewhere": None,
    }
    for href, near in cases.items():
        _, issues = govern(f"[x]({href})\n", LinkEvidence(allow))
        assert issues[0].rule == "CL201" and issues[0].near_miss == near
        assert (near in issues[0].message) if near else ("near miss" not in issues[0].message)


def test_allowlist_prefixes_and_length() -> None:
    allow = Allowlist(["https://example.org/q3.txt", "mailto:nobody"],
                      allow=["https://citelint.dev/*", "https://example.org/docs/*", "http://site.example/about"])
    assert len(allow) == 4 and allow.rejected == ["mailto:nobody"]
    assert allow.grounded("http://citelint.dev/rules/CL201")
    assert allow.grounded("https://example.org/docs/a")
    assert not allow.grounded("https://example.org/docs-old")
    assert not allow.grounded("https://citelint.dev.evil.example/")
    assert allow.grounded("https://site.example/about/")
    assert not allow.grounded("javascript:alert(1)")


def test_check_counts_links() -> None:
    md = "[a](https://example.org/q3.txt) [b](https://bad.example/) [m](mailto:x@y.z) [r](a.md)\n"
    report = check(md, ALLOW)
    assert (report.links, report.governed, report.grounded) == (4, 2, 1)
    assert [lk.href for lk in report.located] == ["https://bad.example/"]


def test_fast_link_constructor_builds_an_equal_frozen_value() -> None:
    args = ("inline", "https://x", 1, 2, 1, 11, 0, 12, "t", "inline", "governed", "https://x", (1, 2), True)
    fast = new_link(*args)
    assert fast == Link(*args) and hash(fast) == hash(Link(*args))
    with pytest.raises(AttributeError):
        fast.href = "https://y"  # type: ignore[misc]


# --- --fix ------------------------------------------------------------------------

FIX_DOC = (
    "# Findings\r\n"
    "\r\n"
    "Revenue rose [12%](https://example.org/q3.txt) per [the *study*](https://bad.example/s \"t\").\r\n"
    "See [the survey][srv], <https://bad.example/a> and https://bad.example/b, also www.bad.example.\r\n"
    "Raw <a href=\"https://bad.example/h\">anchor text</a> stays readable.\r\n"
    "Keep `https://bad.example/code` and [mail](mailto:a@b.example).\r\n"
    "\r\n"
    "[srv]: https://bad.example/survey\r\n"
)


def test_fix_degrades_ungrounded_links_and_keeps_everything_else() -> None:
    _, issues = govern(FIX_DOC, ALLOW)
    fixed, removed = fix(FIX_DOC, issues)
    assert fixed == (
        "# Findings\r\n"
        "\r\n"
        "Revenue rose [12%](https://example.org/q3.txt) per the *study*.\r\n"
        "See the survey, `https://bad.example/a` and `https://bad.example/b`, also `www.bad.example`.\r\n"
        "Raw anchor text stays readable.\r\n"
        "Keep `https://bad.example/code` and [mail](mailto:a@b.example).\r\n"
        "\r\n"
        "[srv]: https://bad.example/survey\r\n"
    )
    assert sorted(i.link.href for i in removed) == sorted([
        "https://bad.example/s", "https://bad.example/survey", "https://bad.example/a",
        "https://bad.example/b", "http://www.bad.example", "https://bad.example/h"])
    # nothing ungrounded is left, and fixing again changes nothing
    _, again = govern(fixed, ALLOW)
    assert again == []
    assert fix(fixed, again) == (fixed, [])


def test_fix_is_idempotent_and_byte_identical_elsewhere_on_cjk_and_edge_cases() -> None:
    md = ("見る https://bad.example/x。次の文\n"
          "[http://bad.example/t](http://bad.example/t) text becomes a link once unlinked\n"
          "Code ``a`b`` then https://bad.example/`tick` end\n")
    _, issues = govern(md, ALLOW)
    fixed, removed = fix(md, issues)
    assert fixed.splitlines()[0] == "見る `https://bad.example/x`。次の文"
    # the link text was itself a URL: it is not left to re-link
    assert fixed.splitlines()[1].startswith("`http://bad.example/t` text")
    _, again = govern(fixed, ALLOW)
    assert [i for i in again if i.rule != "CL203"] == []
    assert fix(fixed, again)[0] == fixed
    assert len(removed) >= 3


def fixed_twice(markdown: str) -> tuple[str, str]:
    """fix() with govern()'s issues, then fix() again on the result with its own issues."""
    once, _ = fix(markdown, govern(markdown, ALLOW)[1])
    twice, _ = fix(once, govern(once, ALLOW)[1])
    return once, twice


def test_a_definition_cannot_interrupt_a_paragraph() -> None:
    # CommonMark §4.7: "[1]: url" continuing a paragraph is text, so "[1]" in
    # the prose is no link; the only link is the bare URL on line 3.
    md = "See [1] for details.\nSources:\n[1]: https://evil.org/r\n"
    assert findings(md) == [("CL201", 3, 6)]
    assert col_of(md, "https://evil.org/r") == (3, 6)
    _, issues = govern(md, ALLOW)
    assert issues[0].link.form == "bare"
    once, twice = fixed_twice(md)
    assert once == "See [1] for details.\nSources:\n[1]: `https://evil.org/r`\n"
    assert twice == once
    assert govern(once, ALLOW)[1] == []


def test_fix_is_idempotent_when_definition_lookalikes_repeat() -> None:
    # found by fuzzing fix(): neither line is a definition (the second one
    # continues the first's paragraph), so both links are bare URLs
    md = "x[r]: https://evil.org/r\n[r]: https://evil.org/r\n"
    assert findings(md) == [("CL201", 1, 7), ("CL201", 2, 6)]
    once, twice = fixed_twice(md)
    assert once == "x[r]: `https://evil.org/r`\n[r]: `https://evil.org/r`\n"
    assert twice == once


def test_reference_uses_are_located_only_where_cmark_made_them() -> None:
    # "[r]:" continuing a paragraph is a shortcut use of the real definition below
    md = "text\n[r]: https://evil.org/x\n\n[r]: https://evil.org/r\n"
    assert findings(md) == [("CL201", 2, 1), ("CL201", 2, 6)]
    # "[r]" inside a raw tag's attribute is no use: the link is the bare URL
    md = '<span title="[r]">x</span> https://evil.org/r\n\n[r]: https://evil.org/r\n'
    assert findings(md) == [("CL201", 1, 28)]
    # a lazy line of a block quote continues its paragraph: no definition
    assert findings("> quote\n[r]: https://evil.org/r\n\nSee [r].\n") == [("CL201", 2, 6)]
    # definitions that do start a block: after a heading (ATX or setext), an
    # HTML comment, in a new list item, and chained one after another
    for md in ("# Title\n[r]: https://evil.org/r\n\nSee [r].\n",
               "Head\n===\n[r]: https://evil.org/r\nSee [r].\n",
               "<!-- links -->\n[r]: https://evil.org/r\n\nSee [r].\n",
               "- item\n- [r]: https://evil.org/r\n\nSee [r].\n",
               "[q]: https://example.org/q3.txt\n[r]: https://evil.org/r\n\nSee [q] [r].\n"):
        assert findings(md) == [("CL201", 4, md.splitlines()[3].index("[r]") + 1)], md
        once, twice = fixed_twice(md)
        assert "See r" in once or "See [q] r" in once
        assert twice == once


def test_fix_only_touches_cl201_and_cl202() -> None:
    md = "見る https://example.org/q3.txt。次の文\n"
    _, issues = govern(md, ALLOW)
    assert [i.rule for i in issues] == ["CL203"]
    assert fix(md, issues) == (md, [])


def test_extract_handles_any_text_without_raising() -> None:
    for text in ["", "\x00[a](\x00)", "[", "<a href=", "<!--", "[a]: <", "\ufeff[x](y)", "\r\r\n[a](b)\r"]:
        extract(text)


def _run_fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter that imports this checkout; its stdout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout


def test_link_modules_never_import_a_network_library() -> None:
    out = _run_fresh("import sys, citelint.links, citelint.urls\n"
                     "from citelint.links import Allowlist, LinkEvidence, check\n"
                     "check('[a](https://x.example)', LinkEvidence(Allowlist([])))\n"
                     "print([m for m in ('urllib3', 'http.client', 'socket', 'ssl') if m in sys.modules])\n")
    assert out.strip() == "[]"


def test_link_modules_never_import_pycparser() -> None:
    # Freeing cmark's memory goes through ctypes: cffi's cdef would parse C
    # declarations with pycparser at every start-up.
    # A small page renders through cmarkgfm itself, without loading ctypes;
    # past FREEING_AFTER_CHARS the freeing renderer takes over.
    out = _run_fresh("import sys, citelint.links\n"
                     "from citelint.links import Allowlist, LinkEvidence, check\n"
                     "check('[a](https://x.example) [b](/rel) https://y.example', LinkEvidence(Allowlist([])))\n"
                     "print('ctypes' in sys.modules)\n"
                     "check('[a](https://x.example)\\n' * 20000, LinkEvidence(Allowlist([])))\n"
                     "print('ctypes' in sys.modules)\n"
                     "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pycparser', 'cffi')))\n")
    assert out.split() == ["False", "True", "[]"]


@pytest.mark.parametrize("warm", [False, True], ids=["cmarkgfm", "freeing renderer"])
def test_a_footnote_reference_cmark_splits_mid_character_is_no_crash(warm: bool) -> None:
    # cmark-gfm gives up on `[^»』` followed by a line break and cuts the UTF-8
    # sequence of 』 in its HTML; cmarkgfm's own function decodes strictly and
    # raised UnicodeDecodeError, so `citelint check` failed with an internal
    # error. Both renderers now judge the page, and the link beside it.
    out = _run_fresh("from citelint.links import Allowlist, LinkEvidence, check\n"
                     + ("check('[a](https://x.example)\\n' * 20000, LinkEvidence(Allowlist([])))\n" if warm else "")
                     + "r = check('[^\u00bb\u300f\\n(:.._]\\n\\nSee [x](https://example.org/a)', "
                       "LinkEvidence(Allowlist([])))\n"
                     "print([(i.rule, i.line, i.col) for i in r.issues])\n")
    assert out.strip() == "[('CL201', 4, 9)]"


def test_rendering_frees_cmark_memory() -> None:
    # cmarkgfm's own wrapper keeps every tree and HTML string it makes (about
    # 12 bytes per byte of Markdown); extract() must not grow without bound.
    import resource
    import sys

    doc = "".join(f"- [item {i}](https://example.org/{i}) and https://example.org/b{i}\n" for i in range(20000))
    extract(doc)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(20):
        render_html(doc, links.GITHUB_EXTENSIONS, True)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024, f"{grown_kib} KiB retained after 20 renders of {len(doc)} chars"
    assert "ctypes" in sys.modules  # the freeing renderer took over


def test_freeing_renderer_agrees_with_cmarkgfm() -> None:
    # The arena renderer must give cmarkgfm's own HTML, byte for byte, for
    # every option set the link stages use, and survive repeated use.
    from cmarkgfm.cmark import Options

    from citelint.links.render import _freeing_renderer

    freeing = _freeing_renderer()
    assert freeing is not None
    docs = ["", "[a](https://x.example) <https://y.example> www.z.example\n",
            "| a | b |\n|---|---|\n| [x](/y) | ~~s~~ |\n\n- [ ] task\n\n<script>x</script>\n",
            "text[^1]\n\n[^1]: note https://n.example\n", "é\u3000[ü](https://ü.example)\n" * 300]
    sets = [Options.CMARK_OPT_UNSAFE,
            Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_SOURCEPOS]
    for _ in range(3):
        for doc in docs:
            for options in sets:
                for extensions in ((), links.GITHUB_EXTENSIONS):
                    assert freeing(doc, options, extensions) == \
                        cmarkgfm_to_html(doc, options, extensions)
    with pytest.raises(ValueError):
        freeing("x", 0, ["no-such-extension"])
    with pytest.raises(ValueError):
        cmark_to_html("x", 0, ["no-such-extension"])
    assert freeing("*x*", 0, ()) == cmark_to_html("*x*", 0, ()) == "<p><em>x</em></p>\n"


def test_bounded_edit_distance_agrees_with_levenshtein() -> None:
    """The near-miss distance prunes heavily; it must still be the exact distance up to the limit."""
    import random

    from citelint.links.allowlist import edit_distance_at_most

    def levenshtein(a: str, b: str) -> int:
        previous = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            current = [i] + [0] * len(b)
            for j, cb in enumerate(b, 1):
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            previous = current
        return previous[-1]

    rng = random.Random(5)
    for _ in range(20000):
        a = "".join(rng.choice("ab/") for _ in range(rng.randint(0, 7)))
        b = "".join(rng.choice("ab/") for _ in range(rng.randint(0, 7)))
        for limit in (0, 1, 2):
            d = levenshtein(a, b)
            assert edit_distance_at_most(a, b, limit) == (d if d <= limit else None), (a, b, limit)


def test_allowlist_resolves_canonical_and_other_sources_alike() -> None:
    # Canonical spellings are taken on sight and their identities computed
    # only when a link needs them; the result is the same as for any other
    # spelling, and near misses still name the first source in config order.
    from citelint import urls

    sources = ["https://ex.example/a/", "HTTPS://ex.example/abe", "https://ex.example/abc",
               "https://ex.example/q?x=1&amp;y=2", "https://ex.example/r?x=1&y=2", "www.w.example/p",
               "https://ex.example/%7Eu", "javascript:alert(1)"]
    allow = Allowlist(sources, ["https://other.example/x"])
    assert allow.rejected == ["javascript:alert(1)"]
    for href in sources[:-1]:
        assert allow.decide(href) == ("governed", True), href
    want = {i for s in sources for i in (urls.identity(s), urls.source_identity(s)) if i}
    assert len(allow) == len(want) + 1
    assert allow._ids == want | {"https://other.example/x"}
    assert allow.decide("http://ex.example/a#top") == ("governed", True)
    assert allow.decide("https://ex.example/q?x=1&y=2") == ("governed", True)
    assert allow.decide("https://ex.example/~u") == ("governed", True)
    assert allow.decide("https://ex.example/abd") == ("governed", False)
    assert allow.near_miss("https://ex.example/abd") == "HTTPS://ex.example/abe"
    assert Allowlist(sources[2:0:-1]).near_miss("https://ex.example/abd") == "https://ex.example/abc"
    # a fresh allowlist answers a near miss before any decision
    assert Allowlist(sources).near_miss("https://www.ex.example/a") == "https://ex.example/a/"


def test_fix_stays_bounded_when_one_planned_edit_cannot_be_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """One edit that fails verification must not cost a render per link (quadratic)."""
    fix_module = importlib.import_module("citelint.links.degrade")

    markdown = "".join(f"See [doc {i}](https://example.org/missing/{i}).\n\n" for i in range(300))
    issues = check(markdown, ALLOW).issues
    assert len(issues) == 300
    bad_href = issues[150].link.href
    real_ops = fix_module.degrade_ops

    def ops(src: str, link):  # type: ignore[no-untyped-def]
        planned = real_ops(src, link)
        if link.href == bad_href and planned:
            # An edit that also changes what a reader sees: verification refuses it.
            start, end, _ = planned[0]
            return [(start, end, "something else entirely")]
        return planned

    renders = []
    real_extract = fix_module.extract
    monkeypatch.setattr(fix_module, "degrade_ops", ops)
    monkeypatch.setattr(fix_module, "extract", lambda *a, **k: renders.append(1) or real_extract(*a, **k))
    new_text, removed = fix(markdown, issues)
    assert len(renders) <= fix_module._FIX_ATTEMPTS + 4
    assert bad_href in new_text and len(removed) >= 150
    assert "doc 150" in new_text
