"""A Markdown report as safe HTML for the reader view: cmark-gfm, then an allow-list.

The report is untrusted. cmark-gfm (GitHub's parser, through ``cmarkgfm``)
renders it in its default safe mode: raw HTML is replaced by a comment and
``javascript:``-like destinations are emptied. Its output is then rebuilt
tag by tag with ``html.parser``: only the elements and attributes in
:data:`_ALLOWED` survive, every text and attribute value is escaped again
(:func:`citelint.escape.html_text`), images become their alternative text
(the page loads nothing), headings move two levels down (under the page's
``h1`` and the section's ``h2``), and a link stays a link only when its href is vouched for by the
check (:attr:`citelint.reader.view.ReaderView.vouched`) or points inside the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

from citelint.escape import html_text

#: Elements kept, each with the attributes it may keep. cmark-gfm writes no others
#: in safe mode except ``img`` (handled apart) and ``pre lang`` (dropped).
_ALLOWED: dict[str, frozenset[str]] = {
    **{t: frozenset() for t in (
        "p", "ul", "blockquote", "pre", "code", "em", "strong", "del", "table", "thead", "tbody", "tr",
        "hr", "br", "sup", "sub", "section", "h1", "h2", "h3", "h4", "h5", "h6")},
    "ol": frozenset({"start"}),
    "li": frozenset({"id"}),
    "th": frozenset({"align"}),
    "td": frozenset({"align"}),
    "a": frozenset({"href", "id"}),
    "input": frozenset({"type", "checked", "disabled"}),
}
_VOID = frozenset({"br", "hr", "input"})
_ATTR_VALUE = {
    "start": re.compile(r"[0-9]{1,9}"),
    "align": re.compile(r"left|center|right"),
    "type": re.compile(r"checkbox"),
    "id": re.compile(r"[A-Za-z0-9_:.-]{1,200}"),
}


def _shifted(tag: str) -> str:
    """A report heading two levels down (h1 becomes h3; h5 and h6 become h6)."""
    if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
        return f"h{min(6, int(tag[1]) + 2)}"
    return tag


class _Rebuild(HTMLParser):
    def __init__(self, vouched: frozenset[str], unlinked: Callable[[], str], text: Callable[[str], str]):
        super().__init__(convert_charrefs=True)
        self.vouched, self.unlinked, self.text = vouched, unlinked, text
        self.out: list[str] = []
        self.links: list[bool] = []  # per open <a>: kept as a link?
        self.depth_skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            alt = next((v for k, v in attrs if k == "alt" and v), "")
            self.out.append(f'<span class="image">[image{": " + html_text(alt) if alt else ""}]</span>')
            return
        if tag not in _ALLOWED:
            return
        if tag == "a":
            href = next((v for k, v in attrs if k == "href"), None)
            keep = href is not None and (href in self.vouched or (href.startswith("#") and len(href) > 1))
            self.links.append(keep)
            if not keep:
                return
        tag = _shifted(tag)
        kept = []
        for name, value in attrs:
            if name not in _ALLOWED.get(tag, frozenset()):
                continue
            pattern = _ATTR_VALUE.get(name)
            if value is not None and pattern is not None and not pattern.fullmatch(value):
                continue
            if tag == "input" and name == "disabled":
                continue
            kept.append(f' {name}="{html_text(value)}"' if value else f" {name}")
        if tag == "a":
            kept.append(' rel="noopener noreferrer"')
        if tag == "input":
            kept.append(" disabled")
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            keep = self.links.pop() if self.links else False
            if not keep:
                self.out.append(self.unlinked())
                return
        if tag not in _ALLOWED or tag in _VOID:
            return
        self.out.append(f"</{_shifted(tag)}>")

    def handle_data(self, data: str) -> None:
        self.out.append(self.text(data))

    # Comments (cmark's "raw HTML omitted"), declarations and processing
    # instructions are dropped: HTMLParser's defaults already do nothing.


def markdown_to_safe_html(markdown: str, vouched: frozenset[str], *, unlinked: Callable[[], str],
                          text: Callable[[str], str] = html_text) -> str:
    """The report's body as HTML that can carry no script, style, form or external load.

    Args:
        markdown: the report (as :func:`citelint.reader.build.reader_view` edited it).
        vouched: hrefs, as cmark-gfm writes them (:func:`citelint.urls.href_escape`),
            that may stay links; any other ``<a>`` is unwrapped to its text.
        unlinked: HTML put after the text of an unwrapped link.
        text: turns a run of character data into HTML (default: escaped);
            the reader view uses it to replace its mark tokens.
    Returns:
        An HTML fragment: allowed elements only, every value escaped.
    """
    import cmarkgfm
    from cmarkgfm.cmark import Options

    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_FOOTNOTES)
    rebuild = _Rebuild(vouched, unlinked, text)
    rebuild.feed(html)
    rebuild.close()
    return "".join(rebuild.out)
