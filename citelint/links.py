"""Markdown link governance: every followable link must be grounded (DESIGN §2.4).

Which links exist, and where they point, is decided by GitHub's own parser,
cmark-gfm (through ``cmarkgfm``), never by a Markdown parser of our own. The
document is rendered once with source positions, footnotes and raw HTML kept;
every ``<a href>`` (and ``<img src>`` when images are governed) of that HTML
is a link. cmark exposes no syntax tree and marks only blocks with
``data-sourcepos``, so each link is then *located* in its block's source: the
candidate spelling (inline destination, reference use, autolink, bare URL,
raw tag) is searched from the block's start and accepted only when it
reproduces cmark's href (a reference use, also cmark's link text, of a
definition CommonMark would read as one). A link that cannot be located is still governed; it
is reported at its block's start and ``--fix`` leaves it alone.

cmark's own HTML is regular (``<a href="…">`` with an optional title), so it
is scanned with regular expressions; ``html.parser`` reads only raw HTML tags
that cmark passed through (DESIGN §8: 143 MB/s against 3.5 MB/s).

Entry points: :func:`check` (what ``citelint check`` runs: every link judged,
only the blocks with a finding located), :func:`govern` (every link judged
and located), :func:`extract`, :func:`judge` and :func:`fix`.

Positions are 1-based lines and Unicode code-point columns; offsets are
code-point indices into the ``str`` given.
"""

from __future__ import annotations

from bisect import bisect_right
import html
import html.entities
import re
from collections import Counter
from itertools import accumulate
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Iterable, Sequence

import cmarkgfm
from cmarkgfm.cmark import Options

from citelint import urls
from citelint.escape import code_span

__all__ = [
    "Link",
    "LinkIssue",
    "LinkReport",
    "check",
    "Allowlist",
    "extract",
    "judge",
    "govern",
    "fix",
    "GITHUB_EXTENSIONS",
]

#: The cmark-gfm extensions GitHub enables (cmarkgfm's github_flavored_markdown_to_html).
GITHUB_EXTENSIONS = ("table", "autolink", "tagfilter", "strikethrough", "tasklist")

_OPTIONS = (
    Options.CMARK_OPT_SOURCEPOS
    | Options.CMARK_OPT_UNSAFE  # keep raw <a href>: a reader can follow it
    | Options.CMARK_OPT_GITHUB_PRE_LANG
)

# --- scanning cmark's HTML -------------------------------------------------
# The exact shape cmark's HTML renderer writes for an image; anything else is raw HTML.
_CMARK_IMG = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? />')
_FOOTNOTE_A = re.compile(r'<a href="#fn(?:ref)?-[^"]*"[^>]*\bdata-footnote-(?:back)?ref\b')
# An HTML open tag as CommonMark defines it, used to find where a raw tag ends.
_OPEN_TAG = re.compile(
    r"<[A-Za-z][A-Za-z0-9-]*"
    r"(?:\s+[^\s\"'>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*\s*/?>"
)
_LOOSE_TAG = re.compile(r"<[^>]*>")
_HREF_ATTR = re.compile(r"""\b(?:href|src)\s*=\s*["']?""", re.IGNORECASE)
_SOURCEPOS = re.compile(r' data-sourcepos="(\d+):(\d+)-(\d+):(\d+)"')
_SOURCEPOS_KEY = ' data-sourcepos="'
_FOOTNOTES_SECTION = '<section class="footnotes" data-footnotes>'
_STRIP_TAGS = re.compile(r"<[^>]*>")
_NEWLINE = re.compile(r"\r\n?|\n")
_OTHER_BREAKS = re.compile(r"[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_CLOSE_A = re.compile(r"</[aA]\s*>")
_OPEN_A = re.compile(r"<[aA][\s>]")

# --- resolving a destination as cmark does ---------------------------------
# CommonMark entity references: named (HTML5 list, semicolon required),
# decimal (1-7 digits) and hexadecimal (1-6 digits).
_ENTITY = re.compile(r"&(?:#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});")
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CJK = frozenset(urls.CJK_TERMINATORS)


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
    renderer hands to the browser before its href escaping.
    """
    if "\\" in written:
        written = _BACKSLASH_ESCAPE.sub(r"\1", written)
    if "&" in written:
        written = _ENTITY.sub(_decode_entity, written)
    return written


# --- public types ------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """One followable link of a Markdown document, as cmark-gfm rendered it.

    ``kind`` is ``inline``, ``reference``, ``autolink``, ``bare``, ``html``,
    ``image`` or ``footnote`` (any form inside a footnote definition; ``form``
    then says which). ``href`` is the destination as the renderer resolved it
    (entities decoded, backslash escapes removed, before href escaping).
    ``line``/``col`` (1-based, code points) is the first character of the
    destination as written, or the ``[`` of a reference-style use;
    ``end_line``/``end_col`` is the exclusive end of that destination (of the
    whole use for a reference). ``start``/``end`` are code-point offsets of
    the whole construct (``[text](dest "t")``, ``<url>``, the bare URL, the
    raw ``<a …>`` tag). ``text`` is the visible text.

    ``category`` is :func:`citelint.urls.classify` of ``cited``; ``cited`` is
    the URL the grounding decision uses: ``href``, except that a bare URL ends
    at the first CJK punctuation mark (DESIGN §2.4). ``text_span`` is the
    visible text's offsets in the source for inline and reference forms.
    ``located`` is False when the link could not be found in its block's
    source: the position is then the block's start and ``--fix`` skips it.
    """

    kind: str
    href: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int
    end: int
    text: str
    form: str = ""
    category: str = ""
    cited: str = ""
    text_span: tuple[int, int] | None = None
    located: bool = True


def _new_link(kind: str, href: str, line: int, col: int, end_line: int, end_col: int, start: int,
              end: int, text: str, form: str, category: str, cited: str,
              text_span: tuple[int, int] | None, located: bool) -> Link:
    """Build a Link without the frozen dataclass's per-field ``object.__setattr__``.

    The generated ``__init__`` costs about 3 µs for 14 fields, a sizeable
    part of the per-link budget on the README corpus; installing the instance
    dict at once gives an identical value (equal, hashable, still frozen).
    tests/test_links.py checks the result equals ``Link(...)``.
    """
    link = _object_new(Link)
    _object_setattr(link, "__dict__", {
        "kind": kind, "href": href, "line": line, "col": col, "end_line": end_line, "end_col": end_col,
        "start": start, "end": end, "text": text, "form": form, "category": category, "cited": cited,
        "text_span": text_span, "located": located})
    return link


_object_new = object.__new__
_object_setattr = object.__setattr__


@dataclass(frozen=True)
class LinkIssue:
    """A finding about one link: ``rule`` is ``CL201``, ``CL202`` or ``CL203``.

    ``message`` says what is wrong and what to do. ``line``/``col`` and the
    end default to the link's destination; CL203 points at the CJK
    punctuation mark where the cited URL ends. ``near_miss`` is the captured
    source a CL201 link resembles, if any.
    """

    rule: str
    link: Link
    message: str
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    near_miss: str | None = None


class Allowlist:
    """The identities a link may point at (DESIGN §2.4).

    ``captured_sources``: approved source URLs that have at least one capture,
    as written in the config. ``allow``: the config's ``links.allow`` entries,
    each a URL (compared by identity) or a prefix ending in ``*`` (compared
    with the identity of the link; ``https://x.org/*`` allows every page of
    that host, never ``x.org.evil``). Entries that are not http(s) URLs are
    ignored; :attr:`rejected` lists them.
    """

    def __init__(self, captured_sources: Iterable[str], allow: Iterable[str] = ()) -> None:
        self._ids: set[str] = set()
        # Strings whose identity is known to be allowed: a link written exactly
        # as a source was (the usual case) is decided without parsing it.
        self._exact: set[str] = set()
        self._prefixes: list[str] = []
        self._sources: list[tuple[str, str]] = []  # (identity, source as written)
        # near-miss index, built on the first near miss asked for: host
        # without a leading "www." -> [(authority, path, query, source)]
        self._by_host: dict[str, dict[int, list[tuple[str, str, str | None, str]]]] | None = None
        self.rejected: list[str] = []
        analyse, ids, sources = urls.analyse, self._ids, self._sources
        for source in captured_sources:
            category, ident = analyse(source)
            decoded = urls.source_identity(source)
            if ident is None and decoded is None:
                self.rejected.append(source)
                continue
            if category == "governed":
                self._exact.add(source)
            # The source as written, and as its HTML escapes read (seed 002).
            for each in {ident, decoded} - {None}:
                if each not in ids:
                    ids.add(each)
                    sources.append((each, source))
        for entry in allow:
            if entry.endswith("*"):
                prefix = _canonical_prefix(entry[:-1])
                if prefix is None:
                    self.rejected.append(entry)
                else:
                    self._prefixes.append(prefix)
            else:
                found = {urls.identity(entry), urls.source_identity(entry)} - {None}
                if not found:
                    self.rejected.append(entry)
                self._ids.update(found)  # type: ignore[arg-type]

    def __len__(self) -> int:
        """Number of distinct identities plus prefixes."""
        return len(self._ids) + len(self._prefixes)

    def identity_of(self, href: str) -> str | None:
        """Identity of a governed ``href`` (``www.``/``//`` spellings resolved), or None."""
        return urls.analyse(href)[1]

    def grounded(self, href: str) -> bool:
        """True when ``href``'s identity is captured or allowed; False if unvouchable."""
        return self._grounded_identity(urls.analyse(href)[1])

    def _grounded_identity(self, ident: str | None) -> bool:
        if ident is None:
            return False
        if ident in self._ids:
            return True
        return any(ident.startswith(p) for p in self._prefixes)

    def near_miss(self, href: str) -> str | None:
        """The captured source an ungrounded ``href`` most resembles, or None.

        A near miss has the same host and path but for a leading ``www.``; or
        the same host and path with another query; or the same host and a
        path within two edits (DESIGN §2.4). The captured source string is
        returned as written in the config.
        """
        ident = self.identity_of(href)
        if ident is None or ident in self._ids:
            return None
        if self._by_host is None:
            # host without "www." -> path length -> sources: every kind of near
            # miss has a path within two edits, so within two characters' length.
            self._by_host = {}
            for c_ident, source in self._sources:
                c_auth, c_path, c_query = _split_identity(c_ident)
                by_length = self._by_host.setdefault(_strip_www(c_auth), {})
                by_length.setdefault(len(c_path), []).append((c_auth, c_path, c_query, source))
        authority, path, query = _split_identity(ident)
        best: tuple[int, str] | None = None
        by_length = self._by_host.get(_strip_www(authority), {})
        candidates = [c for n in range(len(path) - 2, len(path) + 3) for c in by_length.get(n, ())]
        for c_auth, c_path, c_query, source in candidates:
            if c_auth != authority:
                rank = 0 if c_path == path else None
            elif c_path == path:
                rank = 1  # only the query differs
            else:
                dist = _edit_distance_at_most(c_path, path, 2)
                rank = None if dist is None else 1 + dist
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, source)
        return None if best is None else best[1]


def _split_identity(ident: str) -> tuple[str, str, str | None]:
    rest = ident[len("https://"):]
    slash = rest.find("/")
    authority, rest = rest[:slash], rest[slash:]
    path, qmark, query = rest.partition("?")
    return authority, path, (query if qmark else None)


def _strip_www(authority: str) -> str:
    return authority[4:] if authority.startswith("www.") else authority


def _canonical_prefix(prefix: str) -> str | None:
    """Identity-normalise an allow prefix but keep its trailing slash.

    Dropping it (as identity does) would let ``https://x.org/docs/*`` allow
    ``https://x.org/docs-old``.
    """
    ident = urls.identity(prefix)
    if ident is None:
        return None
    path = _split_identity(ident)[1]
    if prefix.endswith("/") and not ident.endswith("/") and path != "/":
        ident += "/"
    return ident


def _edit_distance_at_most(a: str, b: str, limit: int) -> int | None:
    """Levenshtein distance of ``a`` and ``b`` if it is ``<= limit``, else None.

    For the small limits near misses use (two edits), branching on the first
    difference (substitute, delete or insert, each costing one edit) visits
    at most 3**limit pairs, and a common prefix is skipped without cost; a
    link checked against thousands of captured paths on one host stays cheap.
    """
    if abs(len(a) - len(b)) > limit:
        return None
    if a == b:
        return 0
    if limit == 0:
        return None
    i, n = 0, min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    a, b = a[i:], b[i:]
    best = None
    for x, y in ((a[1:], b[1:]), (a[1:], b), (a, b[1:])):
        d = _edit_distance_at_most(x, y, limit - 1 if best is None else min(limit, best) - 1)
        if d is not None and (best is None or d + 1 < best):
            best = d + 1
    return best


# --- extraction ----------------------------------------------------------------


class _RawTag(HTMLParser):
    """Reads the attributes of one raw HTML start tag (entity-decoded as browsers do)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attrs: list[tuple[str, str | None]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.attrs is None:
            self.attrs = attrs

    handle_startendtag = handle_starttag


def _raw_attr(tag_text: str, name: str) -> str | None:
    parser = _RawTag()
    parser.feed(tag_text)
    parser.close()
    for key, value in parser.attrs or ():
        if key == name:  # the first one wins, as in browsers
            return value if value is not None else ""
    return None


def _plain_text(inner: str) -> str:
    if "<" in inner:
        inner = _STRIP_TAGS.sub("", inner)
    return html.unescape(inner) if "&" in inner else inner


_FORM_ORDER = {"inline": 0, "image": 0, "reference": 1, "autolink": 2, "html": 3, "bare": 4}


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

    def __init__(self, out: str, doc: "_Document") -> None:
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
        for m in _SOURCEPOS.finditer(out):
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


class _Document:
    """One Markdown source and the state needed to locate its links."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.ascii = src.isascii()
        if _OTHER_BREAKS.search(src) is None:
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
        n = 0
        src = self.src
        while i - n - 1 >= 0 and src[i - n - 1] == "\\":
            n += 1
        return n % 2 == 1

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
            j = i + 1
            while j < n:
                c = src[j]
                if c == "\\":
                    j += 2
                    continue
                if c == ">":
                    return i + 1, j, src[i + 1:j], j + 1
                if c in "<\r\n":
                    return None
                j += 1
            return None
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
                                defs.setdefault(href, set()).add(_normalise_label(label))
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
        n = len(src)
        close = ")" if src[k] == "(" else src[k]
        j = k + 1
        while j < n:
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == close:
                return j + 1
            if c == "(" and close == ")":
                return None
            if c == "\n" or (c == "\r" and not src.startswith("\r\n", j)):
                nxt = self._eol(j + 1)
                if src[j + 1:nxt].strip(" \t>") == "":
                    return None  # a blank line ends the title
            j += 1
        return None

    def starts_block(self, lb: int, blocks: "_Blocks", end_lines: set[int]) -> bool:
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


class _Candidate:
    __slots__ = ("start", "end", "dest_start", "dest_end", "form", "href", "text_span")

    def __init__(self, start: int, end: int, dest_start: int, dest_end: int, form: str,
                 href: str, text_span: tuple[int, int] | None) -> None:
        self.start = start
        self.end = end
        self.dest_start = dest_start
        self.dest_end = dest_end
        self.form = form
        self.href = href
        self.text_span = text_span

    def key(self) -> tuple[int, int]:
        return self.start, _FORM_ORDER[self.form]


def _find_inline(doc: _Document, href: str, text: str, lo: int, hi: int, image: bool) -> _Candidate | None:
    """An inline link (or image) from ``lo`` whose destination resolves to cmark's ``href``."""
    src = doc.src
    fast = "&" not in href
    p = lo
    while True:
        p = src.find("](", p, hi)
        if p < 0:
            return None
        q = p + 2
        cand = None
        if fast and src.startswith(href, q) and (q + len(href) >= len(src) or src[q + len(href)] in ") \t\r\n"):
            cand = (q, q + len(href), href, q + len(href))
        elif fast and src.startswith("<" + href + ">", q):
            cand = (q + 1, q + 1 + len(href), href, q + 2 + len(href))
        else:
            dest = doc.scan_destination(q, hi)
            if dest is not None:
                resolved = resolve_destination(dest[2])
                if urls.href_escape(resolved) == href:
                    cand = (dest[0], dest[1], resolved, dest[3])
        if cand is not None:
            end = doc.link_end(cand[3], len(src))
            opening = doc.open_bracket(p, lo, text) if end is not None else None
            if opening is not None:
                is_image = opening > 0 and src[opening - 1] == "!" and not doc.escaped(opening - 1)
                if is_image == image:
                    start = opening - 1 if image else opening
                    if start >= lo:
                        return _Candidate(start, end, cand[0], cand[1], "image" if image else "inline",
                                          cand[2], (opening + 1, p))
        p += 2


def _find_reference(doc: _Document, href: str, text: str, lo: int, hi: int, image: bool,
                    shown: str | None = None) -> _Candidate | None:
    """A reference-style use from ``lo`` of a definition whose destination is ``href``.

    Bracketed labels are compared after CommonMark's label normalisation
    (Unicode case fold, whitespace collapsed), so ``[ẞ]`` finds ``[SS]: /url``.
    ``shown`` is the anchor's visible text with the alt text of images in it
    (``text`` when None): a use whose bracketed text cannot have rendered as
    it is not the link cmark made (say, ``[1]`` in prose that is no link).
    """
    defs = doc.definitions()
    labels = defs.get(href)
    if not labels:
        return None
    src = doc.src
    i = lo
    while True:
        a = src.find("[", i, hi)
        if a < 0:
            return None
        i = a + 1
        if doc.escaped(a):
            continue
        b = doc.label_end(a, hi)
        if b is None:
            continue
        if b < 0:  # another "[" opened first: start again from it
            i = -b
            continue
        label = _normalise_label(src[a + 1:b])
        if label not in labels:
            continue
        if src.startswith("[]", b + 1):
            start, end, span = a, b + 3, (a + 1, b)
        else:
            start, end, span = a, b + 1, (a + 1, b)
            if a > lo and src[a - 1] == "]" and not doc.escaped(a - 1):
                opening = doc.open_bracket(a - 1, lo, text)
                if opening is not None and opening >= lo:
                    start, span = opening, (opening + 1, a - 1)
            if start == a:
                if src.startswith("[", b + 1):
                    c = doc.label_end(b + 1, hi)
                    if c is not None and c > 0 and _normalise_label(src[b + 2:c]) in doc.all_labels():
                        continue  # the text of a full reference to another label
                if a in doc._def_starts:
                    continue  # the definition itself
        is_image = start > 0 and src[start - 1] == "!" and not doc.escaped(start - 1)
        if is_image != image:
            continue
        if image:
            start -= 1
        if start < lo:
            continue
        if not _text_agrees(src[span[0]:span[1]], text if shown is None else shown):
            continue
        return _Candidate(start, end, start, end, "reference", href, span)


def _text_agrees(written: str, shown: str) -> bool:
    """True when link text ``written`` in the source can render as ``shown``.

    Rendering removes markup, backslash escapes and tags and decodes
    entities, but adds no letter or digit: those of ``shown`` appear in
    ``written`` (as written, or with escapes and entities resolved), in order.
    """
    if written == shown:
        return True
    want = [c for c in shown if c.isalnum()]
    if not want:
        return True
    for candidate in (written, resolve_destination(written)):
        rest = iter(candidate)
        if all(c in rest for c in want):
            return True
    return False


def _normalise_label(label: str) -> str:
    return " ".join(label.split()).casefold()


def _find_text(doc: _Document, prefix: str, text: str, lo: int, hi: int) -> list[_Candidate]:
    """Autolink ``<url>`` and bare-URL candidates whose visible text is ``text``.

    ``prefix`` is what cmark put before the text to make the href: ``""``,
    ``"http://"`` (a ``www.`` link) or ``"mailto:"`` (an e-mail address).
    """
    src = doc.src
    out = []
    href = prefix + text
    a = src.find("<" + text + ">", lo, hi)
    if a >= 0:
        out.append(_Candidate(a, a + len(text) + 2, a + 1, a + 1 + len(text), "autolink", href, None))
    b = src.find(text, lo, hi)
    while b > 0 and src[b - 1] == "<" and src.startswith(">", b + len(text)):
        b = src.find(text, b + 1, hi)
    if b >= 0:
        out.append(_Candidate(b, b + len(text), b, b + len(text), "bare", href, None))
    return out


def _find_raw(doc: _Document, tag_text: str, lo: int, hi: int, href: str) -> _Candidate | None:
    """The raw ``<a …>``/``<img …>`` tag, verbatim in the source (cmark passes raw HTML through)."""
    a = doc.src.find(tag_text, lo, hi)
    if a < 0:
        return None
    m = _HREF_ATTR.search(tag_text)
    if m is None:
        return _Candidate(a, a + len(tag_text), a, a, "html", href, None)
    quote = tag_text[m.end() - 1]
    if quote in "\"'":
        close = tag_text.find(quote, m.end())
    else:
        close = m.end() + len(re.match(r"[^\s>]*", tag_text[m.end():]).group(0))
    if close < 0:
        close = len(tag_text) - 1
    return _Candidate(a, a + len(tag_text), a + m.end(), a + close, "html", href, None)


def _cjk_cut(text: str) -> int | None:
    """Index of the first CJK punctuation mark in ``text``, or None."""
    for i, ch in enumerate(text):
        if ch in _CJK:
            return i
    return None


def _render(markdown: str, extensions: Sequence[str], footnotes: bool, sourcepos: bool = True) -> str:
    """cmark-gfm's HTML for ``markdown`` with the given extensions (and source positions)."""
    options = _OPTIONS | (Options.CMARK_OPT_FOOTNOTES if footnotes else 0)
    if not sourcepos:
        options &= ~Options.CMARK_OPT_SOURCEPOS
    return _to_html(markdown, options, extensions)


def _load_freeing_renderer():
    """A cmark-gfm renderer that frees what it allocates, or None.

    cmarkgfm 2025.10.22 frees neither the document tree nor the HTML string
    it renders (measured here: 110 MB retained per pass over the 9.5 MB
    README corpus, and cmark gets slower as the heap grows), and its cffi
    binding exposes no function to free them. cmark-gfm exports
    ``cmark_node_free`` from the same extension module, and its default
    allocator is the C library's, so both are reached through cffi's ABI
    mode. When anything is missing, cmarkgfm's own function is used.
    """
    try:
        import cffi
        from cmarkgfm import _cmark

        abi = cffi.FFI()
        abi.cdef("void cmark_node_free(void *node); void free(void *ptr);")
        tree = abi.dlopen(_cmark.__file__)
        libc = abi.dlopen(None)
        node_free, c_free = tree.cmark_node_free, libc.free
        lib, ffi = _cmark.lib, _cmark.ffi
        lib.cmark_gfm_core_extensions_ensure_registered()
        found: dict[str, object] = {}
    except Exception:  # pragma: no cover - depends on cmarkgfm's build
        return None

    def to_html(markdown: str, options: int, extensions: Sequence[str]) -> str:
        data = markdown.encode("utf-8")
        parser = lib.cmark_parser_new(options)
        try:
            for name in extensions:
                ext = found.get(name)
                if ext is None:
                    ext = found[name] = lib.cmark_find_syntax_extension(name.encode("ascii"))
                    if ext == ffi.NULL:
                        raise ValueError(f"unknown cmark-gfm extension {name!r}")
                lib.cmark_parser_attach_syntax_extension(parser, ext)
            lib.cmark_parser_feed(parser, data, len(data))
            root = lib.cmark_parser_finish(parser)
            try:
                raw = lib.cmark_render_html(root, options, lib.cmark_parser_get_syntax_extensions(parser))
                try:
                    return ffi.string(raw).decode("utf-8")
                finally:
                    c_free(abi.cast("void *", int(ffi.cast("uintptr_t", raw))))
            finally:
                node_free(abi.cast("void *", int(ffi.cast("uintptr_t", root))))
        finally:
            lib.cmark_parser_free(parser)

    return to_html


def _cmarkgfm_to_html(markdown: str, options: int, extensions: Sequence[str]) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(markdown, options, list(extensions))


_to_html = _load_freeing_renderer() or _cmarkgfm_to_html


def _comment_spans(out: str) -> list[tuple[int, int]]:
    """Spans of raw HTML comments in cmark's output: nothing inside is followable.

    cmark escapes ``<`` in text and code, so ``<!--`` in its output is always
    raw HTML. ``<!-->`` and ``<!--->`` end at once, as in browsers.
    """
    spans = []
    i = out.find("<!--")
    while i >= 0:
        if out.startswith(">", i + 4) or out.startswith("->", i + 4):
            end = out.find(">", i + 4) + 1
        else:
            end = out.find("-->", i + 4)
            end = len(out) if end < 0 else end + 3
        spans.append((i, end))
        i = out.find("<!--", end)
    return spans


# cmark's own anchor, with its plain visible text when the text has no markup.
_SCAN_A = re.compile(r'<a href="([^"]*)"(?: title="[^"]*")?>(?:([^<&]*)</a>)?|<[aA](?=[\s/>])')
_SCAN_A_IMG = re.compile(
    r'<a href="([^"]*)"(?: title="[^"]*")?>(?:([^<&]*)</a>)?|<(?:[aA]|[iI][mM][gG])(?=[\s/>])')


def _scan(out: str, images: bool) -> list[re.Match[str]]:
    """Every ``<a …>`` (and ``<img …>`` when ``images``) tag of cmark's output outside comments."""
    found = list((_SCAN_A_IMG if images else _SCAN_A).finditer(out))
    if "<!--" in out:
        comments = _comment_spans(out)
        starts = [c[0] for c in comments]

        def outside(m: re.Match[str]) -> bool:
            k = bisect_right(starts, m.start()) - 1
            return k < 0 or m.start() >= comments[k][1]

        found = [m for m in found if outside(m)]
    return found


def _footnotes_start(out: str, footnotes: bool) -> int:
    """Output offset after which links sit in footnote definitions."""
    at = out.rfind(_FOOTNOTES_SECTION) if footnotes else -1
    return at if at >= 0 else len(out) + 1


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
    out = _render(markdown, extensions, footnotes)
    doc = _Document(markdown)
    return [link for _, link in _locate_all(out, doc, _scan(out, images), images,
                                            _footnotes_start(out, footnotes))]


def _locate_all(out: str, doc: _Document, tags: Sequence[re.Match[str]], images: bool,
                footnote_from: int) -> list[tuple[int, Link]]:
    """Locate ``tags`` (consecutive tags of ``out``, from :func:`_scan`) in the source.

    Returns (index in ``tags``, Link) for the tags that are followable links.
    The search state (the cursor inside a block) starts afresh, so ``tags``
    must start at the first tag of a block for the result to equal a pass
    over the whole document.
    """
    src = doc.src
    n_src = len(src)
    defs = doc.definitions(out) if "]:" in src else {}
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
        bp = out.rfind(_SOURCEPOS_KEY, 0, t)
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
                and ("&" not in href_out or _ENTITY.search(href_out) is None) \
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
                    append((index, _new_link(
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
            link = replace(link, kind="footnote")
        append((index, link))
    return links


def _next_block_start(out: str, t: int, doc: _Document, lo: int) -> int:
    """Source offset where the next positioned block after output offset ``t`` starts.

    Footnote definitions are rendered last, so a "next" block may start
    earlier in the source than ``lo``: then it bounds nothing.
    """
    nb = out.find(_SOURCEPOS_KEY, t)
    while nb >= 0:
        sp = _SOURCEPOS.match(out, nb)
        if sp is not None and sp.group(1) != "0":
            nxt = doc.offset(int(sp.group(1)), int(sp.group(2)))
            return nxt if nxt > lo else len(doc.src)
        nb = out.find(_SOURCEPOS_KEY, nb + 1)
    return len(doc.src)


def _block_bounds(out: str, t: int, doc: _Document) -> tuple[int, int]:
    """Bounds for a link whose enclosing block has no usable position.

    Either no block precedes it (raw HTML at the top of the document) or
    cmark wrote ``0:0`` (the table extension took a paragraph's last line as
    its header row). The link lies after the last positioned block's start
    and before the next one's start (through the end of that line, since the
    table's header line is the lost paragraph's).
    """
    lo = 0
    bp = out.rfind(_SOURCEPOS_KEY, 0, t)
    lost = False
    while bp >= 0:
        sp = _SOURCEPOS.match(out, bp)
        if sp is not None and sp.group(1) != "0":
            lo = doc.offset(int(sp.group(1)), int(sp.group(2)))
            break
        lost = True
        bp = out.rfind(_SOURCEPOS_KEY, 0, bp)
    hi = len(doc.src)
    nb = out.find(_SOURCEPOS_KEY, t)
    while nb >= 0:
        sp = _SOURCEPOS.match(out, nb)
        if sp is not None and sp.group(1) != "0":
            nxt = doc.offset(int(sp.group(1)), int(sp.group(2)))
            if nxt > lo:
                hi = doc.line_end(int(sp.group(1))) if lost else nxt
            break
        nb = out.find(_SOURCEPOS_KEY, nb + 1)
    return lo, hi


def _locate(out: str, m: re.Match[str], doc: _Document, defs: dict[str, set[str]], lo: int, hi: int,
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
            tag_end = cm.end()
        else:
            tm = _OPEN_TAG.match(out, t) or _LOOSE_TAG.match(out, t)
            if tm is None:
                return None
            tag_end = tm.end()
    else:
        out_href = m.group(1)
        tag_end = out.find(">", t) + 1
    tag_text = out[t:tag_end]
    if raw:
        if not is_img and "data-footnote" in tag_text and _FOOTNOTE_A.match(tag_text):
            return None  # cmark's own footnote reference / back-reference
        value = _raw_attr(tag_text, "src" if is_img else "href")
        if value is None:
            return None  # <a name=…>: not a link
        href_out = value
    else:
        href_out = html.unescape(out_href) if "&" in out_href else out_href
    if is_img:
        inner = ""
        text = html.unescape(cm.group(2)) if cm is not None else (_raw_attr(tag_text, "alt") or "")
    else:
        close = out.find("</a>", tag_end)
        inner = out[tag_end:close] if close >= 0 else ""
        text = _plain_text(inner)

    cands: list[_Candidate] = []
    if raw:
        c = _find_raw(doc, tag_text, lo, hi, href_out)
        if c is not None:
            cands.append(c)
    else:
        c = _find_inline(doc, href_out, text, lo, hi, is_img)
        if c is not None:
            cands.append(c)
        if href_out in defs:
            shown = text
            if "<img" in inner:
                shown = _plain_text(_CMARK_IMG.sub(lambda im: im.group(2), inner))
            c = _find_reference(doc, href_out, text, lo, hi, is_img, shown)
            if c is not None:
                cands.append(c)
        if not is_img and text and "<" not in inner and " " not in text:
            # An autolink or bare URL shows its own URL: cmark's href is
            # the text, href-escaped, after "", "http://" (www.) or "mailto:".
            if href_out.endswith(text):
                prefix = href_out[:len(href_out) - len(text)]
            else:
                esc = urls.href_escape(text)
                prefix = href_out[:len(href_out) - len(esc)] if href_out.endswith(esc) else None
            if prefix == "" or prefix == "http://" or prefix == "mailto:":
                cands.extend(_find_text(doc, prefix, text, lo, hi))
        if not cands:
            c = _find_raw(doc, tag_text, lo, hi, href_out)
            if c is not None:
                cands.append(c)
    if not cands:
        form = "image" if is_img else ("html" if raw else "inline")
        line, col = doc.position(lo)
        return _new_link(form, href_out, line, col, line, col, lo, lo, text, form,
                         urls.classify(href_out), href_out, None, False), None
    best = cands[0]
    if len(cands) > 1:
        best = min(cands, key=_Candidate.key)
        # Link text cannot contain a link (CommonMark §6.3): a candidate
        # whose text holds another bracketed candidate is not the link cmark made.
        span = best.text_span
        if span is not None:
            inner_cands = [c for c in cands if c is not best and c.text_span is not None
                           and span[0] <= c.start and c.end <= span[1]]
            if inner_cands:
                best = min(inner_cands, key=_Candidate.key)
    if best.text_span is not None and ("<a" in inner or "<img" in inner):
        cursor = best.text_span[0]  # nested links/images follow inside the text
    else:
        cursor = best.end
    form = best.form
    href = best.href
    ds, de = (best.start, best.end) if form == "reference" else (best.dest_start, best.dest_end)
    cited = href
    if form == "bare":
        cut = _cjk_cut(text)
        if cut is not None:
            cited = href[: len(href) - len(text) + cut]
    line, col = doc.position(ds)
    end_line, end_col = doc.position(de)
    return _new_link(form, href, line, col, end_line, end_col, best.start, best.end, text, form,
                     urls.classify(cited), cited, best.text_span, True), cursor


# --- judging -------------------------------------------------------------------


def _show(value: str, limit: int = 200) -> str:
    """A URL or text safe to put in a message: escapes controls, bounds length."""
    shown = value if len(value) <= limit else value[:limit] + "…"
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in shown)


def judge(links: Iterable[Link], allowlist: Allowlist, *, relative: str = "pass") -> list[LinkIssue]:
    """Decide each link against ``allowlist`` and return the issues, in link order.

    ``relative`` is ``"pass"`` (site-relative links are fine) or ``"error"``
    (they are CL202). Governed links not grounded are CL201 (naming a near
    miss when there is one); disallowed schemes and malformed destinations are
    CL202; a bare URL running on past CJK punctuation is CL203 in addition.
    """
    issues: list[LinkIssue] = []
    analyse = urls.analyse
    ids = allowlist._ids
    grounded = allowlist._grounded_identity
    for link in links:
        cat = link.category
        if cat == "governed" and link.form != "bare" and analyse(link.cited)[1] in ids:
            continue  # the common case, decided without building anything
        at = (link.line, link.col, link.end_line, link.end_col)
        if cat == "governed":
            if not grounded(analyse(link.cited)[1]):
                near = allowlist.near_miss(link.cited)
                msg = (f"ungrounded link {_show(urls.governed_href(link.cited))}: no captured source has "
                       "this identity; capture the source (list it in `sources` and run `citelint "
                       "capture`), add it to `links.allow`, or remove the link (`--fix`)")
                if near is not None:
                    msg += (f"; near miss: the captured source {_show(near)} differs only slightly, "
                            "so this URL looks reconstructed: link the captured URL exactly")
                issues.append(LinkIssue("CL201", link, msg, *at, near_miss=near))
        elif cat in ("disallowed", "malformed"):
            reason = urls.unvouchable_reason(link.cited) or "not a vouchable destination"
            issues.append(LinkIssue(
                "CL202", link,
                f"unvouchable link {_show(link.cited)}: {reason}; link a captured http(s) source "
                "or remove the link (`--fix`)", *at))
        elif cat == "relative" and relative == "error":
            issues.append(LinkIssue(
                "CL202", link,
                f"site-relative link {_show(link.cited)} is not allowed (`links.relative: error`); "
                "link a captured absolute http(s) source or remove the link (`--fix`)", *at))
        if link.form == "bare" and link.cited != link.href:
            cut = _cjk_cut(link.text) or 0
            swallowed = link.text[cut:]
            line, col = link.line, link.col + cut
            issues.append(LinkIssue(
                "CL203", link,
                f"the bare URL {_show(link.cited)} runs on past {swallowed[:1]!r}: GitHub renders "
                f"{_show(swallowed)!r} as part of the link; put a space after the URL or write it as "
                f"<{_show(link.cited)}>", line, col, line, col + 1))
    return issues


def govern(markdown: str, allowlist: Allowlist, *, relative: str = "pass",
           images: bool = False) -> tuple[list[Link], list[LinkIssue]]:
    """Extract every followable link of ``markdown`` and judge it (DESIGN §2.4).

    Returns (links in document order, issues). See :func:`extract` and
    :func:`judge` for the arguments. Raises nothing for any ``str`` input.
    """
    links = extract(markdown, images=images)
    return links, judge(links, allowlist, relative=relative)


@dataclass(frozen=True)
class LinkReport:
    """What :func:`check` found in one Markdown document.

    ``issues``: CL201/CL202/CL203 findings in document order, each with its
    located link. ``links``: followable links of every form; ``governed``:
    those that must be grounded; ``grounded``: governed links that are.
    ``located``: the links whose positions were computed (those in a block
    that has a finding), in document order.
    """

    issues: list[LinkIssue]
    links: int
    governed: int
    grounded: int
    located: list[Link]


_CJK_SEARCH = re.compile("[" + "".join(sorted(urls.CJK_TERMINATORS)) + "]")


def check(markdown: str, allowlist: Allowlist, *, relative: str = "pass",
          images: bool = False) -> LinkReport:
    """Judge every followable link of ``markdown``; locate only what has a finding.

    Gives the same issues as :func:`govern` (same rules, positions and
    messages) but decides most links from cmark's output alone: a link whose
    href is grounded, ``mailto:``/``tel:``/fragment, or relative under
    ``relative="pass"`` needs no position. The blocks holding anything else
    (and every raw HTML tag, and any bare URL that may run on past CJK
    punctuation) are located exactly as :func:`extract` does. This is what
    ``citelint check`` runs. Raises nothing for any ``str`` input.
    """
    # Source positions cost cmark a quarter of its time and most documents
    # need none: render without them first, and again with them only when a
    # link has to be located (the anchors come out identical and in order).
    out = _render(markdown, GITHUB_EXTENSIONS, True, sourcepos=False)
    tags = _scan(out, images)
    analyse = urls.analyse
    ids = allowlist._ids
    exact = allowlist._exact
    grounded_identity = allowlist._grounded_identity
    unescape = html.unescape
    cjk = _CJK_SEARCH.search
    relative_passes = relative == "pass"
    links = governed = grounded = 0
    need: list[int] = []
    for i, m in enumerate(tags):
        href, text = m.group(1, 2)
        if href is None or (text is not None and cjk(text)):
            need.append(i)  # raw HTML (or an image) or a possible CL203: locate it
            continue
        if "&" in href:
            href = unescape(href)
        if href in exact:
            # analyse() is a pure function of the string: the same string as an
            # allowed source has that source's (allowed) identity.
            links += 1
            governed += 1
            grounded += 1
            continue
        category, ident = analyse(href)
        if category == "governed":
            if ident in ids or grounded_identity(ident):
                links += 1
                governed += 1
                grounded += 1
                continue
        elif category == "pass" or (category == "relative" and relative_passes):
            links += 1
            continue
        need.append(i)
    located: list[Link] = []
    if need:
        out = _render(markdown, GITHUB_EXTENSIONS, True)
        positioned = _scan(out, images)
        if len(positioned) != len(tags):
            # Source positions change no anchor, so this does not happen; if
            # it ever did, the safe answer is to locate every link.
            links = governed = grounded = 0
            need = list(range(len(positioned)))
        tags = positioned
        doc = _Document(markdown)
        footnote_from = _footnotes_start(out, True)
        wanted = set(need)
        keys: dict[int, int] = {}

        def block_key(j: int) -> int:
            key = keys.get(j)
            if key is None:
                key = keys[j] = out.rfind(_SOURCEPOS_KEY, 0, tags[j].start())
            return key

        done = -1
        for i in need:
            if i <= done:
                continue
            # the run of tags sharing this block, so the search cursor is exact
            key = block_key(i)
            first = i
            while first > done + 1 and block_key(first - 1) == key:
                first -= 1
            last = i
            while last + 1 < len(tags) and block_key(last + 1) == key:
                last += 1
            for j, link in _locate_all(out, doc, tags[first:last + 1], images, footnote_from):
                if first + j in wanted:
                    located.append(link)
            done = last
    issues = judge(located, allowlist, relative=relative)
    bad = {id(issue.link) for issue in issues if issue.rule != "CL203"}
    for link in located:
        links += 1
        if link.category == "governed":
            governed += 1
            if id(link) not in bad:
                grounded += 1
    return LinkReport(issues, links, governed, grounded, located)


# --- fixing ------------------------------------------------------------------


def _degrade_ops(src: str, link: Link) -> list[tuple[int, int, str]] | None:
    """Edits (start, end, replacement) that turn ``link`` into its visible text."""
    if not link.located:
        return None
    form = link.form
    if form in ("inline", "reference", "image") and link.text_span is not None:
        ts, te = link.text_span
        return [(link.start, ts, ""), (te, link.end, "")]
    if form == "autolink":
        inner = src[link.start + 1:link.end - 1]
        return [(link.start, link.end, code_span(inner, src[link.start - 1:link.start], src[link.end:link.end + 1]))]
    if form == "bare":
        visible = src[link.start:link.end]
        cut = _cjk_cut(visible)
        if cut is None:
            cut = len(visible)
        end = link.start + cut
        return [(link.start, end, code_span(visible[:cut], src[link.start - 1:link.start], src[end:end + 1]))]
    if form == "html":
        ops = [(link.start, link.end, "")]
        close = _CLOSE_A.search(src, link.end, min(len(src), link.end + 20000))
        if close is not None:
            opening = _OPEN_A.search(src, link.end, close.start())
            if opening is None:
                ops.append((close.start(), close.end(), ""))
        return ops
    return None


def _apply(src: str, ops: list[tuple[int, int, str]]) -> str:
    parts = []
    last = 0
    for start, end, rep in sorted(ops):
        parts.append(src[last:start])
        parts.append(rep)
        last = end
    parts.append(src[last:])
    return "".join(parts)


def _link_counter(markdown: str, images: bool) -> Counter[str]:
    return Counter(urls.href_escape(link.href) for link in extract(markdown, images=images))


_LINK_MARKUP = re.compile(r"</?a\b[^>]*>|</?code>|</?A\b[^>]*>")
_IMG_ALT = re.compile(r'<img src="[^"]*" alt="([^"]*)"(?: title="[^"]*")? />')


def _visible(markdown: str) -> str:
    """What a reader sees, minus link and code markup: a fix must leave it unchanged."""
    out = _to_html(markdown, Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES, GITHUB_EXTENSIONS)
    return _LINK_MARKUP.sub("", _IMG_ALT.sub(r"\1", out))


def fix(markdown: str, issues: Sequence[LinkIssue]) -> tuple[str, list[LinkIssue]]:
    """Degrade the links of CL201/CL202 ``issues`` to their visible text (DESIGN §2.4).

    ``issues`` come from :func:`govern` on this same ``markdown``. Inline and
    reference links keep their text (definitions are left); images keep their
    alt text; autolinks and bare URLs become inline code so no renderer
    re-links them; a raw ``<a …>`` loses its tag and matching ``</a>``.
    Everything else stays byte-identical. The result is re-rendered and
    checked: a link the edit would newly create (text that reads as a URL)
    is degraded too, and an edit that would change any other link is not
    made. Returns (new text, the issues whose links were removed, in order).
    Running ``fix`` again on the result with its own issues changes nothing.
    """
    wanted: dict[tuple[int, int], LinkIssue] = {}
    for issue in issues:
        if issue.rule in ("CL201", "CL202") and issue.link.located:
            wanted.setdefault((issue.link.start, issue.link.end), issue)
    if not wanted:
        return markdown, []
    images = any(i.link.form == "image" for i in wanted.values())
    planned: list[tuple[LinkIssue, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    for key in sorted(wanted):
        issue = wanted[key]
        ops = _degrade_ops(markdown, issue.link)
        if not ops:
            continue
        if any(s < te and ts < e or (s == e == ts) for s, e, _ in ops for ts, te in taken):
            continue
        taken.extend((s, e) for s, e, _ in ops)
        planned.append((issue, ops))
    if not planned:
        return markdown, []
    before = _link_counter(markdown, images)
    visible_before = _visible(markdown)

    def attempt(chosen: list[tuple[LinkIssue, list[tuple[int, int, str]]]]) -> tuple[str, list[LinkIssue]] | None:
        text = _apply(markdown, [op for _, ops in chosen for op in ops])
        removed = [issue for issue, _ in chosen]
        expected = before - Counter(urls.href_escape(i.link.href) for i in removed)
        for _ in range(8):
            found = extract(text, images=images)
            now = Counter(urls.href_escape(link.href) for link in found)
            if now == expected:
                # and nothing but link markup changed: an edit in the wrong
                # place (say, inside a code span that spells the same link)
                # would change what the reader sees
                return (text, removed) if _visible(text) == visible_before else None
            if expected - now:
                return None  # an edit broke a link it should have left alone
            # the degraded text reads as a new link (e.g. "[www.x.org](…)"):
            # degrade the new links as well, so the result is stable
            extra = now - expected
            ops = []
            for link in found:
                key = urls.href_escape(link.href)
                if extra[key] > 0:
                    extra[key] -= 1
                    new_ops = _degrade_ops(text, link)
                    if not new_ops:
                        return None
                    ops.extend(new_ops)
                    removed.append(LinkIssue(
                        "CL201", link,
                        f"link {_show(link.href)} appeared in the text of a removed link and was removed too",
                        link.line, link.col, link.end_line, link.end_col))
            text = _apply(text, ops)
        return None

    result = attempt(planned)
    if result is not None:
        return result
    # Something interacted: make the edits one at a time, keeping those that verify.
    kept: list[tuple[LinkIssue, list[tuple[int, int, str]]]] = []
    for item in planned:
        if attempt(kept + [item]) is not None:
            kept.append(item)
    if not kept:
        return markdown, []
    result = attempt(kept)
    return result if result is not None else (markdown, [])
