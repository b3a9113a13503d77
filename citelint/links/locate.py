"""Locating each anchor of cmark's HTML in the Markdown source: :func:`extract`.

cmark exposes no syntax tree and marks only blocks with ``data-sourcepos``,
so each link is *located* in its block's source: the candidate spelling
(inline destination, reference use, autolink, bare URL, raw tag) is searched
from the block's start and accepted only when it reproduces cmark's href (a
reference use, also cmark's link text, of a definition CommonMark would read
as one). A link that cannot be located is still governed; it is reported at
its block's start and ``--fix`` leaves it alone. ``html.parser`` reads only
the raw HTML tags that cmark passed through.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Sequence

from citelint import urls
from citelint.links.forms import Candidate, find_inline, find_raw, find_reference, find_text
from citelint.links.link import Link, cjk_cut, new_link
from citelint.links.render import (
    GITHUB_EXTENSIONS,
    OPEN_TAG_ATTRS,
    SOURCEPOS,
    SOURCEPOS_KEY,
    footnotes_start,
    render_html,
    scan_links,
)
from citelint.links.source import ENTITY, SourceDocument

# The exact shape cmark's HTML renderer writes for an image; anything else is raw HTML.
_CMARK_IMG = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? />')
_FOOTNOTE_A = re.compile(r'<a href="#fn(?:ref)?-[^"]*"[^>]*\bdata-footnote-(?:back)?ref\b')
# An HTML open tag as CommonMark defines it, used to find where a raw tag ends.
_OPEN_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*" + OPEN_TAG_ATTRS)
_LOOSE_TAG = re.compile(r"<[^>]*>")
_STRIP_TAGS = re.compile(r"<[^>]*>")


# A start tag whose attributes are each ``name``, ``name="value"`` or
# ``name='value'``, one run of whitespace apart: html.parser reads such a tag
# as written (names lower-cased, values entity-decoded), so its attributes
# are read without it, 70 times faster (tests/test_links_fast.py checks both agree).
_SIMPLE_TAG = re.compile(
    r"""<[A-Za-z][A-Za-z0-9-]*(?:[ \t\n\r\f]+[A-Za-z_:][A-Za-z0-9_:.\-]*(?:="[^"]*"|='[^']*')?)*"""
    r"""[ \t\n\r\f]*/?>""")
_SIMPLE_ATTR = re.compile(r"""[ \t\n\r\f]+([A-Za-z_:][A-Za-z0-9_:.\-]*)(?:="([^"]*)"|='([^']*)')?""")


def raw_attr(tag_text: str, name: str) -> str | None:
    """The value of attribute ``name`` (lower case) of the start tag ``tag_text``, as a browser reads it.

    Returns the first such attribute's value, entity-decoded ("" when it has
    none), or None when the tag has no such attribute.
    """
    if _SIMPLE_TAG.fullmatch(tag_text) is not None:
        for key, double, single in _SIMPLE_ATTR.findall(tag_text):
            if key.lower() == name:
                value = double or single
                return html.unescape(value) if "&" in value else value
        return None
    return _parsed_attr(tag_text, name)


def _parsed_attr(tag_text: str, name: str) -> str | None:
    """:func:`raw_attr` through ``html.parser``, for any tag."""
    # html.parser loads only for a tag the regular expression cannot read.
    from html.parser import HTMLParser

    first: list[list[tuple[str, str | None]]] = []

    class FirstTag(HTMLParser):
        """Keeps the attributes of the first start tag (entity-decoded as browsers do)."""

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if not first:
                first.append(attrs)

        handle_startendtag = handle_starttag

    parser = FirstTag(convert_charrefs=True)
    parser.feed(tag_text)
    parser.close()
    for key, value in first[0] if first else ():
        if key == name:  # the first one wins, as in browsers
            return value if value is not None else ""
    return None


def raw_tag(out: str, t: int, is_img: bool) -> tuple[str, str] | None:
    """The raw HTML ``<a …>`` (or ``<img …>``) tag at offset ``t`` of cmark's output, and its link.

    Returns (the tag as written, its ``href`` (``src``) as a browser reads
    it), or None when the tag is no followable link: no such attribute
    (``<a name=…>``), cmark's own footnote anchors, or no tag at all. Raw
    HTML passes through cmark verbatim, so the answer does not depend on
    source positions being rendered.
    """
    tm = _OPEN_TAG.match(out, t) or _LOOSE_TAG.match(out, t)
    return None if tm is None else raw_link(tm.group(0), is_img)


def raw_link(tag_text: str, is_img: bool) -> tuple[str, str] | None:
    """:func:`raw_tag` for the tag ``tag_text`` (as ``_OPEN_TAG`` or ``_LOOSE_TAG`` matched it)."""
    if not is_img and "data-footnote" in tag_text and _FOOTNOTE_A.match(tag_text):
        return None  # cmark's own footnote reference / back-reference
    value = raw_attr(tag_text, "src" if is_img else "href")
    return None if value is None else (tag_text, value)


def _plain_text(inner: str) -> str:
    if "<" in inner:
        inner = _STRIP_TAGS.sub("", inner)
    return html.unescape(inner) if "&" in inner else inner


def extract(markdown: str, *, images: bool = False, extensions: Sequence[str] = GITHUB_EXTENSIONS,
            footnotes: bool = True) -> list[Link]:
    """Every followable link of ``markdown`` in document order, located in the source.

    ``markdown`` is the whole document as ``str``. ``images`` adds image
    sources (kind ``image``). ``extensions`` and ``footnotes`` choose the
    cmark-gfm extensions (default: GitHub's set, footnotes on); the spec
    conformance tests turn them off to match each example. Links in code spans
    and code blocks are content and never appear. Raises nothing for any
    ``str`` input (cmark accepts every document).
    """
    out = render_html(markdown, extensions, footnotes)
    doc = SourceDocument(markdown)
    return [link for _, link in locate_all(out, doc, scan_links(out, images), images,
                                            footnotes_start(out, footnotes))]


def locate_all(out: str, doc: SourceDocument, tags: Sequence[re.Match[str]], images: bool,
                footnote_from: int) -> list[tuple[int, Link]]:
    """Locate ``tags`` (consecutive tags of ``out``, from :func:`scan_links`) in the source.

    Returns (index in ``tags``, Link) for the tags that are followable links.
    The search state (the cursor inside a block) starts afresh, so ``tags``
    must start at the first tag of a block for the result to equal a pass
    over the whole document.
    """
    src = doc.src
    n_src = len(src)
    defs = doc.definitions(out) if doc.may_define else {}
    line_starts = doc.line_starts
    ascii_src = doc.ascii
    analyse = urls.analyse
    find = src.find
    startswith = src.startswith
    links: list[tuple[int, Link]] = []
    append = links.append
    block_key = hi_key = -2
    lo = hi = block_lo = block_hi = cursor = seen = 0
    block_pos: tuple[int, int] | None = None
    for index, m in enumerate(tags):
        t = m.start()
        href_out, text = m.group(1, 2)

        # The link lies after the start of the innermost block that opened
        # before its tag (cmark marks blocks only with data-sourcepos).
        bp = out.rfind(SOURCEPOS_KEY, 0, t)
        if bp != block_key:
            block_key = bp
            block_pos = None
            if bp >= 0:
                j = bp + 17
                c = out.find(":", j)
                d = out.find("-", c)
                line = int(out[j:c])
                if line:  # cmark writes 0:0 when it lost track (see _block_bounds)
                    byte_col = int(out[c + 1:d])
                    base = line_starts[line - 1] if line <= len(line_starts) else n_src
                    lo = base + byte_col - 1 if ascii_src else doc.offset(line, byte_col)
                    e = out.find(":", d)
                    block_hi = doc.line_end(int(out[d + 1:e]))
                    block_pos = (lo, block_hi)
            block_lo = cursor = lo if block_pos is not None else 0
            if block_pos is None:
                block_lo, block_hi = _block_bounds(out, t, doc)
                cursor = block_lo
            seen = bp if bp > 0 else 0
        # A code span before the link may spell a link itself ("use
        # `[a](url)`"): move the cursor past each code span's text so that
        # the search cannot stop inside one.
        c = out.find("<code>", seen, t)
        while c >= 0:
            e = out.find("</code>", c, t)
            if e < 0:
                break
            content = out[c + 6:e]
            if "&" in content:
                content = html.unescape(content)
            q = find(content, cursor if cursor > block_lo else block_lo, block_hi) if content else -1
            if q >= 0:
                cursor = q + len(content)
            c = out.find("<code>", e, t)
        if text is not None:
            seen = m.end()
        else:  # the link's own text may hold code spans: skip to its end
            seen = out.find("</a>", t)
            seen = t + 2 if seen < 0 else seen
        lo = cursor if cursor > block_lo else block_lo

        # Fast path for the usual case, an inline link written exactly as
        # cmark's href, ``[text](href)``: the first "](" after the cursor.
        # Anything unusual (escapes, entities, titles, nested brackets or
        # markup in the text, a URL-like text, a reference definition with
        # the same href) takes the general path.
        if text is not None and href_out is not None \
                and ("&" not in href_out or ENTITY.search(href_out) is None) \
                and href_out not in defs \
                and not (href_out.endswith(text) and len(href_out) - len(text) in (0, 7)):
            p = find("](", lo, block_hi)
            if p >= 0:
                e = p + 2 + len(href_out)
                s0 = p - len(text) - 1
                if startswith(")", e) and startswith(href_out, p + 2) and s0 >= lo \
                        and src[s0] == "[" and startswith(text, s0 + 1) \
                        and "[" not in text and "]" not in text \
                        and (s0 == 0 or src[s0 - 1] not in "!\\"):
                    cursor = e + 1
                    line = bisect_right(line_starts, p + 2)
                    col = p + 3 - line_starts[line - 1]
                    append((index, new_link(
                        "footnote" if t > footnote_from else "inline", href_out, line, col, line,
                        col + e - p - 2, s0, e + 1, text, "inline", analyse(href_out)[0], href_out,
                        (s0 + 1, p), True)))
                    continue

        if block_pos is None:
            hi = block_hi
        elif hi_key != block_key:
            # The general path searches up to the next block's start: raw HTML
            # blocks carry no position and their links fall in that gap.
            hi_key = block_key
            hi = _next_block_start(out, t, doc, block_pos[0])
        found = _locate(out, m, doc, defs, lo, hi, images)
        if found is None:
            continue  # not a link after all (<a name=…>, cmark's footnote anchors)
        link, new_cursor = found
        if new_cursor is not None:
            cursor = new_cursor
        if t > footnote_from:
            link = link._replace(kind="footnote")
        append((index, link))
    return links


def _next_block_start(out: str, t: int, doc: SourceDocument, lo: int) -> int:
    """Source offset where the next positioned block after output offset ``t`` starts.

    Footnote definitions are rendered last, so a "next" block may start
    earlier in the source than ``lo``: then it bounds nothing.
    """
    nb = out.find(SOURCEPOS_KEY, t)
    while nb >= 0:
        sp = SOURCEPOS.match(out, nb)
        if sp is not None and sp.group(1) != "0":
            nxt = doc.offset(int(sp.group(1)), int(sp.group(2)))
            return nxt if nxt > lo else len(doc.src)
        nb = out.find(SOURCEPOS_KEY, nb + 1)
    return len(doc.src)


def _block_bounds(out: str, t: int, doc: SourceDocument) -> tuple[int, int]:
    """Bounds for a link whose enclosing block has no usable position.

    Either no block precedes it (raw HTML at the top of the document) or
    cmark wrote ``0:0`` (the table extension took a paragraph's last line as
    its header row). The link lies after the last positioned block's start
    and before the next one's start (through the end of that line, since the
    table's header line is the lost paragraph's).
    """
    lo = 0
    bp = out.rfind(SOURCEPOS_KEY, 0, t)
    lost = False
    while bp >= 0:
        sp = SOURCEPOS.match(out, bp)
        if sp is not None and sp.group(1) != "0":
            lo = doc.offset(int(sp.group(1)), int(sp.group(2)))
            break
        lost = True
        bp = out.rfind(SOURCEPOS_KEY, 0, bp)
    hi = len(doc.src)
    nb = out.find(SOURCEPOS_KEY, t)
    while nb >= 0:
        sp = SOURCEPOS.match(out, nb)
        if sp is not None and sp.group(1) != "0":
            nxt = doc.offset(int(sp.group(1)), int(sp.group(2)))
            if nxt > lo:
                hi = doc.line_end(int(sp.group(1))) if lost else nxt
            break
        nb = out.find(SOURCEPOS_KEY, nb + 1)
    return lo, hi


def _locate(out: str, m: re.Match[str], doc: SourceDocument, defs: dict[str, set[str]], lo: int, hi: int,
            images: bool) -> tuple[Link, int | None] | None:
    """Locate one tag found in cmark's output (the general path of :func:`extract`).

    Returns the Link and the new search cursor (None: keep it), or None when
    the tag is not a followable link.
    """
    t = m.start()
    is_img = out[t + 1] in "iI"
    raw = m.group(1) is None
    cm = None
    if raw:
        cm = _CMARK_IMG.match(out, t) if is_img else None
        if cm is not None:
            raw = False
            out_href = cm.group(1)
            tag_text = cm.group(0)
        else:
            found = raw_tag(out, t, is_img)
            if found is None:
                return None
            tag_text, href_out = found
    else:
        out_href = m.group(1)
        tag_text = out[t:out.find(">", t) + 1]
    if not raw:
        href_out = html.unescape(out_href) if "&" in out_href else out_href
    tag_end = t + len(tag_text)
    if is_img:
        inner = ""
        text = html.unescape(cm.group(2)) if cm is not None else (raw_attr(tag_text, "alt") or "")
    else:
        close = out.find("</a>", tag_end)
        inner = out[tag_end:close] if close >= 0 else ""
        text = _plain_text(inner)

    cands: list[Candidate] = []
    if raw:
        c = find_raw(doc, tag_text, lo, hi, href_out)
        if c is not None:
            cands.append(c)
    else:
        c = find_inline(doc, href_out, text, lo, hi, is_img)
        if c is not None:
            cands.append(c)
        if href_out in defs:
            shown = text
            if "<img" in inner:
                shown = _plain_text(_CMARK_IMG.sub(lambda im: im.group(2), inner))
            c = find_reference(doc, href_out, text, lo, hi, is_img, shown)
            if c is not None:
                cands.append(c)
        if not is_img and text and "<" not in inner and " " not in text:
            # An autolink or bare URL shows its own URL: cmark's href is
            # the text, href-escaped, after "", "http://" (www.) or "mailto:".
            if href_out.endswith(text):
                prefix: str | None = href_out[:len(href_out) - len(text)]
            else:
                esc = urls.href_escape(text)
                prefix = href_out[:len(href_out) - len(esc)] if href_out.endswith(esc) else None
            if prefix == "" or prefix == "http://" or prefix == "mailto:":
                cands.extend(find_text(doc, prefix, text, lo, hi))
        if not cands:
            c = find_raw(doc, tag_text, lo, hi, href_out)
            if c is not None:
                cands.append(c)
    if not cands:
        form = "image" if is_img else ("html" if raw else "inline")
        line, col = doc.position(lo)
        return new_link(form, href_out, line, col, line, col, lo, lo, text, form,
                         urls.classify(href_out), href_out, None, False), None
    best = cands[0]
    if len(cands) > 1:
        best = min(cands, key=Candidate.key)
        # Link text cannot contain a link (CommonMark §6.3): a candidate
        # whose text holds another bracketed candidate is not the link cmark made.
        span = best.text_span
        if span is not None:
            inner_cands = [c for c in cands if c is not best and c.text_span is not None
                           and span[0] <= c.start and c.end <= span[1]]
            if inner_cands:
                best = min(inner_cands, key=Candidate.key)
    if best.text_span is not None and ("<a" in inner or "<img" in inner):
        cursor = best.text_span[0]  # nested links/images follow inside the text
    else:
        cursor = best.end
    form = best.form
    href = best.href
    ds, de = (best.start, best.end) if form == "reference" else (best.dest_start, best.dest_end)
    cited = href
    if form == "bare":
        cut = cjk_cut(text)
        if cut is not None:
            cited = href[: len(href) - len(text) + cut]
    line, col = doc.position(ds)
    end_line, end_col = doc.position(de)
    return new_link(form, href, line, col, end_line, end_col, best.start, best.end, text, form,
                     urls.classify(cited), cited, best.text_span, True), cursor
