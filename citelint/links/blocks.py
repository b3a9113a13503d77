"""cmark-gfm's XML of one Markdown document read as a reader sees it: its
leaves (paragraphs, headings, table cells) as rendered text with source
positions, code spans, links and footnote references marked, and each
leaf's citations (the governed links ``links.check`` locates, footnote
references resolved). :mod:`citelint.links.prose` finds quotations and
numbers in these blocks.

Positions are 1-based lines and Unicode code-point columns; indices into a
rendered text are code-point indices.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citelint.links.render import GITHUB_EXTENSIONS, render_xml
from citelint.links.source import ENTITY, SourceDocument, normalise_label
from citelint.urls import CJK_TERMINATORS

if TYPE_CHECKING:
    from citelint.links.link import Link

#: GitHub alert types (``> [!NOTE]``): such a blockquote is the author's own prose.
ALERTS = frozenset({"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"})
_TOKEN = re.compile(r'<(/?)([a-z_]+|<unknown>)((?: [a-z:_]+="[^"]*")*)( /)?>([^<]*)')
_POS = re.compile(r'sourcepos="(\d+):(\d+)-(\d+):(\d+)"')
_DEST = re.compile(r' destination="([^"]*)"')
_QUOTE_TAG = re.compile(r"<(/?)block_quote(?=[ />])[^>]*?(/?)>")
_BLOCK_TAG = re.compile(r"<(/?)(block_quote|paragraph|heading|table_cell|<unknown>)(?=[ />])([^>]*?)(/?)>")
# A blockquote whose first line is ``[!NOTE]`` (or another alert type) alone.
_ALERT = re.compile(r"\s*<paragraph[^>]*>\s*<text[^>]*>\[!([A-Za-z]+)\]</text>\s*(?:<softbreak />|</paragraph>)")
_FOOTNOTE_LABEL = re.compile(r"\[\^([^\]]+)\]:")
_LEAF_NAMES = ("paragraph", "heading", "table_cell")
_LEAF_OPEN = tuple(f"<{name}" for name in _LEAF_NAMES)


class Block:
    """One paragraph, heading or table cell as a reader sees it."""

    __slots__ = ("text", "pieces", "piece_at", "code", "links", "refs", "lo", "hi", "line", "col", "raw_amp")

    def __init__(self) -> None:
        self.text = ""
        self.pieces: list[tuple[int, str, str]] = []  # (index in text, cmark's attributes, literal)
        self.piece_at: list[int] = []
        self.code: list[tuple[int, int]] = []
        self.links: list[list] = []  # [start, end, href, Link | None]
        self.refs: list[tuple[int, str]] = []  # (index in text, normalised footnote label)
        self.lo = self.hi = self.line = self.col = 0  # source span (offsets) and start (line, column)
        self.raw_amp = False  # a raw <a> tag with a character reference (its title may spell capture:)


# Link text that may be an autolink's or a bare URL's (an email address, a scheme without "//") with a
# digit, where the link's kind decides whether its numbers are prose: see XmlDocument.light.
_URL_TEXT = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.)")


class XmlDocument:
    """The leaves of one rendered document, its footnotes and, on demand, its located links.

    ``xml`` is cmark's XML of ``markdown`` when the caller has it rendered.
    With ``light``, a block's links are not located when nothing a claim's
    verification reads depends on where they are written (see
    :meth:`needs_location`): each is then :func:`unlocated`, placed at its
    block's start, with its category and cited URL taken from its
    destination, which is what locating would give them. ``light`` is for
    :func:`citelint.links.claims.check_claims`, which reads nothing else of
    a citation; the detection functions' own answers keep located links.
    """

    def __init__(self, markdown: str, light: bool = False, xml: str = "") -> None:
        self.markdown = markdown
        self._doc: SourceDocument | None = None
        self.xml = xml or render_xml(markdown, GITHUB_EXTENSIONS, True)
        # A ``capture:`` title names the revision a citation is checked in, and it is read
        # from the link as written: only a document that spells none may skip locating.
        self.light = light and "capture:" not in markdown
        self._groups: list[tuple[int, int, int, int]] | None = None
        self._located: dict[int, list[Link]] = {}
        self._html = ""
        self._tags: list[re.Match[str]] = []
        self._footnote_from = 0
        self._group_los: list[int] = []
        self._reach: list[int] = []
        self._everywhere: list[int] = []

    @property
    def doc(self) -> SourceDocument:
        """The Markdown source's positions, built when a first block is read (most documents
        hold no claim, and their leaves are sorted out from the XML alone)."""
        if self._doc is None:
            self._doc = SourceDocument(self.markdown)
        return self._doc

    def offset(self, line: int, byte_col: int) -> int:
        return self.doc.offset(line, byte_col)

    def leaves(self, lo: int = 0, hi: int | None = None, first_quote: int = 0
               ) -> list[tuple[int, int, int, bool, str | None, int]]:
        """Every leaf block: (xml start, xml end, blockquote depth, in an alert, footnote label, blockquote id).

        Blockquote id is the index of the outermost blockquote holding it (-1 none). With
        ``lo`` and ``hi``, the leaves of ``xml[lo:hi]`` only, which must start outside every
        blockquote; its first outermost blockquote has id ``first_quote`` (footnote labels
        are then those of definitions that start in the range).
        """
        xml = self.xml
        out = []
        depth = 0
        alert: list[bool] = []  # per open blockquote: is it an alert
        footnote: list[str | None] = []
        quote_id = -1
        quotes = first_quote
        opened: list[int] = []
        for m in _BLOCK_TAG.finditer(xml, lo, len(xml) if hi is None else hi):
            close, name, attrs, empty = m.groups()
            if name == "block_quote":
                if empty:
                    continue  # an empty blockquote (``>`` alone) holds nothing and closes at once
                if close:
                    depth -= 1
                    alert.pop()
                else:
                    depth += 1
                    if depth == 1:
                        quote_id = quotes
                        quotes += 1
                    alert.append(self._is_alert(xml, m.end()))
            elif name == "<unknown>":
                if empty:
                    continue  # a footnote reference: read with its paragraph
                if close:
                    if footnote:
                        footnote.pop()
                else:
                    footnote.append(self._footnote_label(attrs))
            elif empty:
                continue  # an empty table cell: no text
            elif close:
                # leaves do not nest: a leaf spans from its opening tag to its closing one
                start = opened.pop()
                out.append((start, m.start(), depth, bool(alert) and alert[0], footnote[-1] if footnote else None,
                            quote_id if depth else -1))
            else:
                opened.append(m.start())
        return out

    def _is_alert(self, xml: str, pos: int) -> bool:
        m = _ALERT.match(xml, pos)
        return m is not None and m.group(1).upper() in ALERTS

    def _footnote_label(self, attrs: str) -> str | None:
        m = _POS.search(attrs)
        if m is None:
            return None
        line = int(m.group(1))
        # cmark-gfm's position of a definition starts after its label: read it from the line.
        found = _FOOTNOTE_LABEL.search(self.doc.line_text(line))
        return normalise_label(found.group(1)) if found else None

    def block(self, start: int, end: int) -> Block:
        """The rendered text of the leaf at xml[start:end]."""
        xml = self.xml
        b = Block()
        head = _POS.search(xml, start, xml.find(">", start))
        if head is not None:
            l1, c1, l2, c2 = map(int, head.groups())
            b.lo = self.offset(l1, c1)
            b.hi = self.offset(l2, c2 + 1) if l2 else len(self.markdown)
            b.line, b.col = self.doc.position(b.lo)
        parts: list[str] = []
        n = 0
        image = 0
        raw_link: list | None = None
        open_links: list[list] = []
        for m in _TOKEN.finditer(xml, xml.find(">", start) + 1, end):
            close, name, attrs, empty, content = m.groups()
            if image:
                if name == "image":
                    image += -1 if close else (0 if empty else 1)
                continue
            if close:
                if name == "link" and open_links:
                    link = open_links.pop()
                    link[1] = n
                    b.links.append(link)
                continue
            if name == "text" or name == "code":
                literal = html.unescape(content) if "&" in content else content
                if not literal:
                    continue
                # the source offset is worked out only for the few characters that need one
                b.pieces.append((n, attrs, literal))
                if name == "code":
                    b.code.append((n, n + len(literal)))
                parts.append(literal)
                n += len(literal)
            elif name == "softbreak":
                parts.append(" ")
                n += 1
            elif name == "linebreak":
                parts.append("\n")
                n += 1
            elif name == "link":
                dm = _DEST.search(attrs)
                href = html.unescape(dm.group(1)) if dm else ""
                link = [n, n, href, None]
                if empty:
                    b.links.append(link)
                else:
                    open_links.append(link)
            elif name == "image":
                image = 0 if empty else 1
            elif name == "html_inline":
                tag = html.unescape(content) if "&" in content else content
                if raw_link is not None and tag[:3].lower() == "</a":
                    raw_link[1] = n
                    b.links.append(raw_link)
                    raw_link = None
                elif tag[:2].lower() == "<a" and tag[2:3].isspace():
                    from citelint.links.locate import raw_link as read_raw

                    found = read_raw(tag, False)
                    if found is not None:
                        raw_link = [n, n, found[1], None]
                        b.raw_amp = b.raw_amp or "&" in tag
            elif name == "<unknown>":
                pm = _POS.search(attrs)
                if pm is not None:
                    lo = self.offset(int(pm.group(1)), int(pm.group(2)))
                    hi = self.offset(int(pm.group(3)), int(pm.group(4)) + 1)
                    written = self.markdown[lo:hi]
                    if written.startswith("[^") and written.endswith("]"):
                        b.refs.append((n, normalise_label(written[2:-1])))
        if raw_link is not None:
            raw_link[1] = n
            b.links.append(raw_link)
        b.links.sort(key=lambda link: link[0])
        b.text = "".join(parts)
        b.piece_at = [p[0] for p in b.pieces]
        return b

    def source_offset(self, b: Block, i: int) -> int:
        """Source offset of rendered character ``i`` of ``b`` (the block's start when unknown).

        The character's text node starts where cmark's position says, and
        its literal is walked through the source from there (backslash
        escapes and character references take more source than text). When
        the source disagrees, the position is off (cmark-gfm misplaces text
        on lazy continuation lines and in some table cells): the node is then
        looked for on its line, where its whole literal must align.
        """
        k = bisect_right(b.piece_at, i) - 1
        if k < 0:
            return b.lo
        at, attrs, literal = b.pieces[k]
        pm = _POS.search(attrs)
        if pm is None or pm.group(1) == "0":
            return b.lo
        line = int(pm.group(1))
        src = self.offset(line, int(pm.group(2)))
        if i >= at + len(literal):
            return src + len(literal)  # a soft break or hard break after the piece
        found = self._align(src, literal, i - at, False)
        if found is not None:
            return found
        s = self.markdown
        first = literal[0]
        for start in range(self.doc.line_starts[line - 1], self.doc.line_end(line)):
            if start != src and (s[start] == first or s[start] in "\\&"):
                found = self._align(start, literal, i - at, True)
                if found is not None:
                    return found
        return src + (i - at)  # best effort

    def _align(self, j: int, literal: str, upto: int, whole: bool) -> int | None:
        """Source offset of ``literal[upto]`` when ``literal`` is written from offset ``j``, else None.

        With ``whole``, the rest of ``literal`` must align too.
        """
        s = self.markdown
        wanted = literal if whole else literal[:upto + 1]
        if s.startswith(wanted, j):
            return j + upto  # written verbatim (the usual case): what the walk below finds
        found = None
        for n, ch in enumerate(wanted):
            if s.startswith(ch, j):
                at = j
                j += 1
            elif s.startswith("\\", j) and s.startswith(ch, j + 1):
                at = j + 1
                j += 2
            elif s.startswith("&", j) and (em := ENTITY.match(s, j)) is not None:
                at = j
                j = em.end()
            else:
                return None
            if n == upto:
                found = at
        return found

    def position(self, b: Block, i: int) -> tuple[int, int]:
        return self.doc.position(self.source_offset(b, i))

    def end_position(self, b: Block, i: int) -> tuple[int, int]:
        """Line and column just after the source of rendered character ``i`` of ``b``: past
        its character reference (``&quot;``) or backslash escape when it is written so."""
        at = self.source_offset(b, i)
        s = self.markdown
        if s.startswith("&", at) and (em := ENTITY.match(s, at)) is not None:
            return self.doc.position(em.end())
        if s.startswith("\\", at) and s.startswith(b.text[i], at + 1):
            return self.doc.position(at + 2)
        return self.doc.position(min(len(s), at + 1))

    def links_in(self, lo: int, hi: int) -> list[Link]:
        """The followable links (not images) whose construct starts in source offsets [lo, hi), in order.

        Links are located as ``links.check`` locates the links it reports
        (:func:`~citelint.links.locate.locate_all` over the run of anchors of
        one block of cmark's HTML), and only in the blocks that overlap
        [lo, hi): a document is rendered to HTML once, when a first
        citation is needed.
        """
        if self._groups is None:
            self._group_links()
        groups = self._groups
        assert groups is not None  # _group_links sets it
        found: list[Link] = []
        k = bisect_right(self._group_los, hi - 1)
        wanted = []
        while k > 0 and self._reach[k - 1] > lo:  # blocks nest or follow: walk back while one may reach lo
            k -= 1
            if groups[k][1] > lo:
                wanted.append(k)
        wanted.extend(self._everywhere)
        for k in sorted(set(wanted)):
            located = self._located.get(k)
            if located is None:
                from citelint.links.locate import locate_all

                first, last = groups[k][2:]
                located = self._located[k] = [link for _, link in locate_all(
                    self._html, self.doc, self._tags[first:last + 1], False, self._footnote_from)]
            found.extend(link for link in located if lo <= link.start < hi)
        found.sort(key=lambda link: link.start)
        return found

    def _group_links(self) -> None:
        """The anchors of cmark's HTML, cut into runs that share a block: (lo, hi, first, last)."""
        from citelint.links.render import SOURCEPOS, SOURCEPOS_KEY, footnotes_start, render_html, scan_links

        try:
            out = self._html = render_html(self.markdown, GITHUB_EXTENSIONS, True)
        except UnicodeDecodeError:
            # cmark-gfm split a UTF-8 sequence (render_xml): nothing to locate, so
            # each citation is the XML's link, placed at its block's start
            self._groups = []
            return
        tags = self._tags = scan_links(out, False)
        self._footnote_from = footnotes_start(out, True)
        groups: list[tuple[int, int, int, int]] = []
        key = -2
        for i, tag in enumerate(tags):
            k = out.rfind(SOURCEPOS_KEY, 0, tag.start())
            if k == key:
                lo, hi, first, _ = groups[-1]
                groups[-1] = (lo, hi, first, i)
                continue
            key = k
            m = SOURCEPOS.match(out, k) if k >= 0 else None
            if m is None or m.group(1) == "0":
                lo = hi = 0  # no usable position: overlaps everything
            else:
                lo = self.doc.offset(int(m.group(1)), int(m.group(2)))
                hi = self.doc.line_end(int(m.group(3)))
            groups.append((lo, hi, i, i))
        # sorted by start (footnote definitions come last in the HTML), with the
        # furthest end reached so far, so that links_in walks back only as far as needed
        self._everywhere = [k for k, g in enumerate(groups) if g[0] == g[1] == 0]
        order = sorted(range(len(groups)), key=lambda k: groups[k][0])
        self._groups = groups = [groups[k] for k in order]
        self._everywhere = [order.index(k) for k in self._everywhere]
        self._group_los = [g[0] for g in groups]
        reach, top = [], 0
        for g in groups:
            top = max(top, g[1])
            reach.append(top)
        self._reach = reach

    def needs_location(self, b: Block) -> bool:
        """True when a claim's verification reads more of a link of ``b`` than its destination.

        That is: a quotation link (``:~:``, whose text span is CL204's); link
        text with CJK punctuation (a bare URL's cited part ends there); a raw
        ``<a>`` tag with a character reference (its title may spell
        ``capture:``); link text with a digit that may be an autolink's or a
        bare URL's without ``://`` (an email address: the kind says whether
        its numbers are prose).
        """
        if b.raw_amp:
            return True
        text = b.text
        for a, e, href, _ in b.links:
            if ":~:" in href:
                return True
            shown = text[a:e]
            if shown.isascii():
                if not any(c.isdigit() for c in shown):
                    continue
            elif not CJK_TERMINATORS.isdisjoint(shown):
                return True
            elif not any(c.isdigit() for c in shown):
                continue
            if (":" in shown or "@" in shown) and not _URL_TEXT.match(shown.strip()) \
                    and not any(c.isspace() for c in shown.strip()):
                return True
        return False

    def attach(self, b: Block) -> None:
        """Give each link of ``b`` its located :class:`Link` (matched by href, in order)."""
        if not b.links or b.links[0][3] is not None:
            return
        if self.light and not self.needs_location(b):
            for entry in b.links:
                entry[3] = unlocated(entry[2], b)
            return
        mine = self.links_in(b.lo, b.hi if b.hi > b.lo else len(self.markdown))
        k = 0
        for entry in b.links:
            for j in range(k, len(mine)):
                if mine[j].href == entry[2]:
                    entry[3] = mine[j]
                    k = j + 1
                    break
            else:
                entry[3] = unlocated(entry[2], b)


def unlocated(href: str, b: Block) -> Link:
    """A Link for a link node that could not be matched to a located one: at its block's start."""
    from citelint import urls
    from citelint.links.link import new_link

    return new_link("inline", href, b.line, b.col, b.line, b.col, b.lo, b.lo, "", "inline", urls.classify(href),
                    href, None, False)


def governed(links: Sequence[Link | None]) -> list[Link]:
    return [link for link in links if link is not None and link.category == "governed"]


class Detector:
    """Shared state of one document: its leaves, footnote definitions and quotation blocks."""

    def __init__(self, markdown: str, light: bool = False, xml: str = "") -> None:
        self.d = XmlDocument(markdown, light, xml)
        self._leaves: list[tuple[int, int, int, bool, str | None, int]] | None = None
        self._blocks: dict[int, Block] = {}
        self._regions: list[tuple[int, int]] | None = None  # outermost blockquotes
        self._footnotes: dict[str, list[Link]] | None = None

    @property
    def leaves(self) -> list[tuple[int, int, int, bool, str | None, int]]:
        """:meth:`XmlDocument.leaves`, read when first asked for."""
        if self._leaves is None:
            self._leaves = self.d.leaves()
        return self._leaves

    def block(self, k: int) -> Block:
        """The block of leaf ``k``."""
        start, end = self.leaves[k][:2]
        return self.block_at(start, end)

    def block_at(self, start: int, end: int) -> Block:
        """The block of the leaf at xml[start:end], read once."""
        b = self._blocks.get(start)
        if b is None:
            b = self._blocks[start] = self.d.block(start, end)
        return b

    def quote_regions(self) -> list[tuple[int, int]]:
        """The (xml start, xml end just after its closing tag) of each outermost non-empty
        blockquote, in order: the index of one is the blockquote id :meth:`XmlDocument.leaves`
        gives its leaves."""
        if self._regions is None:
            regions: list[tuple[int, int]] = []
            xml = self.d.xml
            if "<block_quote" in xml:
                depth = start = 0
                for m in _QUOTE_TAG.finditer(xml):
                    if m.group(2):
                        continue  # empty: opens and closes at once
                    if m.group(1):
                        depth -= 1
                        if depth == 0:
                            regions.append((start, m.end()))
                    else:
                        if depth == 0:
                            start = m.start()
                        depth += 1
            self._regions = regions
        return self._regions

    def leaf_at(self, i: int) -> tuple[int, int] | None:
        """(xml start, xml end) of the leaf holding offset ``i`` of the XML, found from there
        alone (as :meth:`XmlDocument.leaves` spans it), for an ``i`` outside every blockquote
        (whose depth only the leaves tell); (-1, -1) when no leaf holds it (raw HTML, a
        footnote definition's own tag); None when the XML is not as expected."""
        xml = self.d.xml
        # the nearest leaf open tag before the node holds it (leaves do not nest): looked for
        # near the node first, since a document's last heading may be far before it
        near = max(0, i - 4096)
        start = max(xml.rfind(tag, near, i) for tag in _LEAF_OPEN)
        if start < 0:
            start = max(xml.rfind(tag, 0, i) for tag in _LEAF_OPEN)
        if start < 0 or xml[xml.find(">", start) - 1] == "/":
            return None  # (an empty table cell: the leaves say)
        name = xml[start + 1:xml.find(" ", start)]
        if name not in _LEAF_NAMES:
            return None
        end = xml.find(f"</{name}>", start)
        if end < 0:
            return None
        return (start, end) if end > i else (-1, -1)  # (-1, -1): ``i`` is in no leaf

    def footnotes(self) -> dict[str, list[Link]]:
        """Normalised footnote label -> the governed links of its definition."""
        if self._footnotes is None:
            self._footnotes = {}
            for k, leaf in enumerate(self.leaves):
                if leaf[4] is not None:
                    b = self.block(k)
                    self.d.attach(b)
                    self._footnotes.setdefault(leaf[4], []).extend(governed([e[3] for e in b.links]))
        return self._footnotes

    def cite(self, b: Block, spans: Sequence[tuple[int, int]],
             ref_spans: Sequence[tuple[int, int]]) -> tuple[Link, ...]:
        """Governed links of ``b`` whose text starts (or lies) in ``spans``, with the footnote
        references in ``ref_spans`` resolved; deduplicated, in order."""
        self.d.attach(b)
        found: list[Link] = []
        for a, e, _, link in b.links:
            if any(a < hi and e > lo or lo <= a < hi for lo, hi in spans):
                found.extend(governed([link]))
        refs = [label for i, label in b.refs if any(lo <= i <= hi for lo, hi in ref_spans)]
        if refs:
            notes = self.footnotes()
            for label in refs:
                found.extend(notes.get(label, ()))
        seen: set[int] = set()
        out = []
        for link in found:
            if id(link) not in seen:
                seen.add(id(link))
                out.append(link)
        return tuple(out)

    def all_citations(self, b: Block) -> tuple[Link, ...]:
        """Every governed link of ``b``, footnote references resolved."""
        return self.cite(b, [(0, len(b.text) + 1)], [(0, len(b.text))])
