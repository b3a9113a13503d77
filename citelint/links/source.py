"""The Markdown source of one document: offsets, positions and syntax scanners.

cmark reports positions only for blocks, as lines and byte columns;
:class:`SourceDocument` turns them into code-point offsets and back, and scans
what cmark does not report: link destinations, titles, labels, and the link
reference definitions CommonMark reads as such (§4.7), told apart from
look-alikes with the block structure of cmark's HTML (:class:`_Blocks`).
:func:`resolve_destination` resolves a destination as written the way cmark
does.
"""

from __future__ import annotations

import html.entities
import re
from bisect import bisect_right
from itertools import accumulate

from citelint import urls
from citelint.links.render import SOURCEPOS

_NEWLINE = re.compile(r"\r\n?|\n")
#: The line breaks of str.splitlines that cmark does not break at (the last three are not ASCII).
#: Looked for one by one: a search for one character is a memchr, a character class is read
#: character by character (five times slower over a README).
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

# --- resolving a destination as cmark does ---------------------------------
# CommonMark entity references: named (HTML5 list, semicolon required),
# decimal (1-7 digits) and hexadecimal (1-6 digits).
ENTITY = re.compile(r"&(?:#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});")
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _decode_entity(match: re.Match[str]) -> str:
    ref = match.group(0)
    if ref[1] == "#":
        code = int(ref[3:-1], 16) if ref[2] in "xX" else int(ref[2:-1])
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return "\ufffd"
        return chr(code)
    name = ref[1:]
    return html.entities.html5.get(name, ref)


def resolve_destination(written: str) -> str:
    """Resolve a destination as written in Markdown the way cmark does.

    Backslash escapes of ASCII punctuation are removed and entity references
    decoded (``\\_`` → ``_``, ``&amp;`` → ``&``). The result is what the
    renderer hands to the browser before its href escaping. Never raises.
    """
    if "\\" in written:
        written = _BACKSLASH_ESCAPE.sub(r"\1", written)
    if "&" in written:
        written = ENTITY.sub(_decode_entity, written)
    return written


# Where a link reference definition may stand (CommonMark §4.7): the prefix of
# its line is container markers only, and what ends the block before it.
_DEF_PREFIX = re.compile(r"(?:[ \t]*(?:>|(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t])))*[ \t]*")
_LIST_MARKER = re.compile(r"(?:^|[ \t>])(?:[-+*]|[0-9]{1,9}[.)])[ \t]")
_HTML_BLOCK_END = re.compile(r"-->|\?>|\]\]>|</(?:script|pre|style|textarea)>|^[ \t>]*<![A-Za-z].*>",
                             re.IGNORECASE)
_SETEXT_UNDERLINE = re.compile(r"[ \t>]*(?:=+|-+)[ \t]*")
_LEAF_POS = re.compile(r'<(p|h[1-6]|pre|table|hr)\b[^>]*? data-sourcepos="(\d+):\d+-(\d+):\d+"')


class _Blocks:
    """Line ranges of the blocks of cmark's HTML (with source positions)."""

    def __init__(self, out: str, doc: SourceDocument) -> None:
        self.leaves: list[tuple[int, int]] = []  # headings, code, tables, rules
        self.paragraphs: list[tuple[int, int]] = []
        self.ends: set[int] = set()  # last lines of blocks a paragraph cannot continue
        for m in _LEAF_POS.finditer(out):
            first, last = int(m.group(2)), int(m.group(3))
            if not first:
                continue
            tag = m.group(1)
            if tag == "p":
                self.paragraphs.append((first, last))
            elif tag[0] == "h" and tag != "hr" and first != last:
                # a setext heading: its text is a paragraph (which may begin
                # with definitions), ended by the underline. cmark-gfm may
                # end its position on the line after the underline.
                while last > first + 1 and _SETEXT_UNDERLINE.fullmatch(doc.line_text(last)) is None:
                    last -= 1
                self.paragraphs.append((first, last))
                self.ends.add(last)
            else:
                self.leaves.append((first, last))
        self.leaves.sort()
        self.paragraphs.sort()
        self._leaf_starts = [a for a, _ in self.leaves]
        self.ends.update(b for _, b in self.leaves)
        self._para_starts = [a for a, _ in self.paragraphs]
        # lines inside some positioned block (containers too): raw HTML
        # blocks and definitions are the lines outside every one
        depth: dict[int, int] = {}
        for m in SOURCEPOS.finditer(out):
            first, last = int(m.group(1)), int(m.group(3))
            if first:
                depth[first] = depth.get(first, 0) + 1
                depth[last + 1] = depth.get(last + 1, 0) - 1
        self._depth_at = sorted(depth)
        self._depth = list(accumulate(depth[k] for k in self._depth_at))

    @staticmethod
    def _covers(ranges: list[tuple[int, int]], starts: list[int], line: int) -> bool:
        k = bisect_right(starts, line) - 1
        return k >= 0 and ranges[k][1] >= line

    def inside_leaf(self, line: int) -> bool:
        return self._covers(self.leaves, self._leaf_starts, line)

    def leaf_ends(self, line: int) -> bool:
        return line in self.ends

    def in_paragraph(self, line: int, through: int | None = None) -> bool:
        """True when ``line`` (and ``through``, if given) lie in one paragraph."""
        k = bisect_right(self._para_starts, line) - 1
        return k >= 0 and self.paragraphs[k][1] >= (line if through is None else through)

    def in_any(self, line: int) -> bool:
        """True when ``line`` lies inside some positioned block."""
        k = bisect_right(self._depth_at, line) - 1
        return k >= 0 and self._depth[k] > 0


def escaped(text: str, i: int, start: int = 0) -> bool:
    """True when ``text[i]`` follows an odd number of backslashes (counted back to ``start``):
    CommonMark's backslash escape."""
    n = 0
    while i - n - 1 >= start and text[i - n - 1] == "\\":
        n += 1
    return n % 2 == 1


class SourceDocument:
    """One Markdown source and the state needed to locate its links."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.ascii = src.isascii()
        #: Whether the source may hold a link reference definition at all (searched once:
        #: a locator asked per block would otherwise scan the whole page each time).
        self.may_define = "]:" in src
        if not any(c in src for c in (_OTHER_BREAKS[:5] if self.ascii else _OTHER_BREAKS)):
            # str.splitlines breaks exactly where cmark does (CR, LF, CRLF)
            # when none of the other Unicode line breaks it knows occur.
            starts = [0, *accumulate(map(len, src.splitlines(True)))]
        else:
            starts = [0]
            starts.extend(m.end() for m in _NEWLINE.finditer(src))
        self.line_starts = starts
        self._defs: dict[str, set[str]] | None = None
        self._def_starts: set[int] = set()
        self._labels: set[str] | None = None

    # positions ---------------------------------------------------------------
    def offset(self, line: int, byte_col: int) -> int:
        """Code-point offset of cmark's (line, byte column), clamped to the text."""
        starts = self.line_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.src)
        base = starts[line - 1]
        if byte_col <= 1:
            return base
        if self.ascii:
            return min(base + byte_col - 1, len(self.src))
        end = starts[line] if line < len(starts) else len(self.src)
        text = self.src[base:end]
        if text.isascii():
            return min(base + byte_col - 1, end)
        return base + len(text.encode("utf-8")[: byte_col - 1].decode("utf-8", "ignore"))

    def line_end(self, line: int) -> int:
        """Offset just past line ``line`` (1-based) including its line ending."""
        starts = self.line_starts
        return starts[line] if line < len(starts) else len(self.src)

    def line_text(self, line: int) -> str:
        """Line ``line`` (1-based) without its line ending; "" past the end."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        return self.src[starts[line - 1]:self.line_end(line)].rstrip("\r\n")

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, code-point column) of ``offset``."""
        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    # syntax helpers ----------------------------------------------------------
    def escaped(self, i: int) -> bool:
        """True when src[i] is preceded by an odd number of backslashes."""
        return escaped(self.src, i)

    def open_bracket(self, close: int, lo: int, text: str) -> int | None:
        """Offset of the ``[`` matching the ``]`` at ``close``, searching back to ``lo``."""
        src = self.src
        n = len(text)
        if n and close - n - 1 >= lo and src[close - n - 1] == "[" and src.startswith(text, close - n) \
                and "[" not in text and "]" not in text:
            return close - n - 1
        depth = 1
        i = close
        while True:
            a = src.rfind("[", lo, i)
            b = src.rfind("]", lo, i)
            if a < 0:
                return None
            if b > a:
                i = b
                if not self.escaped(b):
                    depth += 1
            else:
                i = a
                if not self.escaped(a):
                    depth -= 1
                    if depth == 0:
                        return a

    def scan_destination(self, i: int, hi: int) -> tuple[int, int, str, int] | None:
        """Read a link destination at ``i`` (after optional whitespace and one line ending).

        Returns (start, end, written, after): the written destination without
        angle brackets, its span, and the offset after it (after ``>``).
        """
        src = self.src
        n = min(len(src), hi)
        while i < n and src[i] in " \t":
            i += 1
        if i < n and src[i] in "\r\n":
            i += 2 if src.startswith("\r\n", i) else 1
            while i < n and src[i] in " \t>":
                i += 1
        if i < n and src[i] == "<":
            j = self._delimited_end(i + 1, n, ">", "<", False)
            return None if j is None else (i + 1, j, src[i + 1:j], j + 1)
        j = i
        depth = 0
        while j < n:
            c = src[j]
            if c == "\\" and j + 1 < n and src[j + 1] in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
                j += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif c <= " ":
                break
            j += 1
        if depth:
            return None
        return i, j, src[i:j], j

    def link_end(self, after: int, hi: int) -> int | None:
        """Offset after the ``)`` closing an inline link whose destination ends at ``after``."""
        src = self.src
        n = min(len(src), hi)
        i = after
        while i < n and src[i] in " \t\r\n":
            i += 1
        if i < n and src[i] == ")":
            return i + 1
        if i >= n or src[i] not in "\"'(":
            return None
        # A link title has the same syntax inline and in a definition (CommonMark §6.3).
        j = self._title_end(i)
        if j is None or j > n:
            return None
        while j < n and src[j] in " \t\r\n":
            j += 1
        return j + 1 if j < n and src[j] == ")" else None

    # reference definitions (found lazily, only for links not found inline) ----
    def label_end(self, a: int, hi: int) -> int | None:
        """Offset of the unescaped ``]`` closing the label opened at ``a``.

        Returns ``-k`` when an unescaped ``[`` at ``k`` comes first (labels
        cannot nest), None when there is no closing bracket before ``hi``.
        """
        src = self.src
        j = a + 1
        while True:
            close = src.find("]", j, hi)
            if close < 0:
                return None
            opening = src.find("[", j, close)
            if opening >= 0 and not self.escaped(opening):
                return -opening
            if not self.escaped(close):
                return close
            j = close + 1

    def definitions(self, out: str | None = None) -> dict[str, set[str]]:
        """Map cmark-escaped href -> normalised labels of the definitions giving it.

        Only a ``[label]: destination`` that CommonMark reads as a link
        reference definition counts (§4.7): it starts a block (after container
        markers), so it cannot continue a paragraph, a table or a heading, and
        nothing but an optional title follows its destination. ``out`` is
        cmark's HTML with source positions, which says where the paragraphs,
        headings, code blocks and tables are. A use is still accepted only
        when its href is cmark's and its text is the anchor's. Without
        ``out``, only definitions after a blank line (or another definition,
        or raw HTML that ends) count.
        """
        if self._defs is not None:
            return self._defs
        defs: dict[str, set[str]] = {}
        starts: set[int] = set()
        self._defs, self._def_starts = defs, starts
        src = self.src
        i = src.find("]:")
        if i < 0:
            return defs
        blocks = _Blocks(out or "", self)
        end_lines: set[int] = set()  # lines on which a definition ends
        while i >= 0:
            if not self.escaped(i):
                lb = self.label_start(i)
                if lb is not None:
                    label = src[lb + 1:i]
                    if label.strip() and not label.startswith("^") and len(label) < 1000:
                        dest = self.scan_destination(i + 2, len(src))
                        if dest is not None and (dest[1] > dest[0] or src[dest[1]:dest[1] + 1] == ">"):
                            end = self.definition_end(dest[3])
                            if end is not None and self.starts_block(lb, blocks, end_lines):
                                href = urls.href_escape(resolve_destination(dest[2]))
                                defs.setdefault(href, set()).add(normalise_label(label))
                                starts.add(lb)
                                end_lines.add(self.position(end)[0])
                                i = src.find("]:", max(end, i + 2))
                                continue
            i = src.find("]:", i + 2)
        return defs

    def definition_end(self, after: int) -> int | None:
        """Offset of the end of a definition whose destination ends at ``after``, or None.

        An optional title may follow (after whitespace, or on the next line);
        then only spaces up to the line ending. Otherwise it is no definition.
        """
        src = self.src
        n = len(src)
        eol = self._eol(after)
        rest = src[after:eol]
        if rest.strip(" \t") == "":
            # a title may still follow on the next line
            if eol < n:
                j = eol + (2 if src.startswith("\r\n", eol) else 1)
                k = j
                while k < n and src[k] in " \t>":
                    k += 1
                if k < n and src[k] in "\"'(":
                    close = self._title_end(k)
                    if close is not None and src[close:self._eol(close)].strip(" \t") == "":
                        return close
            return after
        j = after
        while j < eol and src[j] in " \t":
            j += 1
        if j == after or src[j] not in "\"'(":
            return None
        close = self._title_end(j)
        if close is None or src[close:self._eol(close)].strip(" \t") != "":
            return None
        return close

    def _eol(self, i: int) -> int:
        src = self.src
        a = src.find("\n", i)
        b = src.find("\r", i)
        ends = [x for x in (a, b) if x >= 0]
        return min(ends) if ends else len(src)

    def _title_end(self, k: int) -> int | None:
        """Offset after the title opening at ``k`` (no blank line inside), or None."""
        src = self.src
        close = ")" if src[k] == "(" else src[k]
        j = self._delimited_end(k + 1, len(src), close, "(" if close == ")" else "", True)
        return None if j is None else j + 1

    def _delimited_end(self, j: int, n: int, close: str, stop: str, multiline: bool) -> int | None:
        """Offset of the first unescaped ``close`` in ``src[j:n]``, or None when there is none.

        An ``<...>`` destination and a link title are both read this way: a
        backslash escapes the character after it, and the scan gives up at
        any character of ``stop``, at a blank line, and at any line ending
        unless ``multiline``.
        """
        src = self.src
        while j < n:
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == close:
                return j
            if c in stop:
                return None
            if c == "\n" or c == "\r":
                if not multiline:
                    return None
                if c == "\n" or not src.startswith("\r\n", j):
                    nxt = self._eol(j + 1)
                    if src[j + 1:nxt].strip(" \t>") == "":
                        return None  # a blank line ends the title
            j += 1
        return None

    def starts_block(self, lb: int, blocks: _Blocks, end_lines: set[int]) -> bool:
        """True when the ``[`` at ``lb`` may start a link reference definition.

        It must open its line (after container markers) and not continue a
        paragraph: the line before is blank, ends another definition, or ends
        a heading, thematic break, code block or HTML block; or the line opens
        a new list item or block quote.
        """
        src = self.src
        line = bisect_right(self.line_starts, lb)
        prefix = src[self.line_starts[line - 1]:lb]
        if prefix and _DEF_PREFIX.fullmatch(prefix) is None:
            return False
        if blocks.inside_leaf(line):
            return False  # heading text, code, a table row
        if line == 1:
            return True
        prev = src[self.line_starts[line - 2]:self.line_starts[line - 1]].rstrip("\r\n")
        body = prev.lstrip(" \t>")
        opens = _LIST_MARKER.search(prefix) is not None \
            or prefix.count(">") > prev[:len(prev) - len(body)].count(">")
        if blocks.in_paragraph(line - 1, line):
            # One paragraph holds both lines: this one goes on the paragraph
            # (no container opened here), unless the paragraph so far is
            # definitions, which cmark takes from its start.
            return line - 1 in end_lines and not opens
        if line - 1 in end_lines:
            return True
        if prev.strip(" \t") == "" or _DEF_PREFIX.fullmatch(prev.rstrip(" \t") + " "):
            return True  # after a blank line, or a line of container markers only
        if not blocks.in_any(line - 1):
            # the line before is raw HTML: its block goes on unless it ended there
            return _HTML_BLOCK_END.search(prev) is not None
        if opens:
            return True  # a new list item or block quote
        if blocks.leaf_ends(line - 1):
            return True
        if blocks.in_paragraph(line - 1):
            return False
        return body.startswith("<") and _HTML_BLOCK_END.search(prev) is not None

    def all_labels(self) -> set[str]:
        """Every normalised label some definition gives."""
        if self._labels is None:
            self._labels = set().union(*self.definitions().values())
        return self._labels

    def label_start(self, close: int) -> int | None:
        """Offset of the unescaped ``[`` opening the label closed at ``close``."""
        src = self.src
        j = close
        while True:
            opening = src.rfind("[", 0, j)
            if opening < 0:
                return None
            other = src.rfind("]", opening + 1, j)
            if other >= 0 and not self.escaped(other):
                return None
            if not self.escaped(opening):
                return opening
            j = opening


def normalise_label(label: str) -> str:
    return " ".join(label.split()).casefold()
