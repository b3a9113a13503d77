"""cmark-gfm, GitHub's own Markdown parser: render a document to HTML and list its anchors.

Which links exist, and where they point, is decided by cmark-gfm (through
``cmarkgfm``), never by a Markdown parser of our own. cmark's own HTML is
regular (``<a href="…">`` with an optional title), so its anchors are found
with regular expressions (DESIGN §8: 143 MB/s against 3.5 MB/s for
``html.parser``). Rendering goes through a renderer that frees what cmark
allocates (:func:`_load_freeing_renderer`).
"""

from __future__ import annotations

import re
from _thread import allocate_lock  # threading's Lock itself, without importing threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import cmarkgfm
from cmarkgfm.cmark import Options

#: The cmark-gfm extensions GitHub enables (cmarkgfm's github_flavored_markdown_to_html).
GITHUB_EXTENSIONS = ("table", "autolink", "tagfilter", "strikethrough", "tasklist")

_OPTIONS = (
    Options.CMARK_OPT_SOURCEPOS
    | Options.CMARK_OPT_UNSAFE  # keep raw <a href>: a reader can follow it
    | Options.CMARK_OPT_GITHUB_PRE_LANG
)
SOURCEPOS = re.compile(r' data-sourcepos="(\d+):(\d+)-(\d+):(\d+)"')
SOURCEPOS_KEY = ' data-sourcepos="'
_FOOTNOTES_SECTION = '<section class="footnotes" data-footnotes>'


def render_html(markdown: str, extensions: Sequence[str], footnotes: bool, sourcepos: bool = True) -> str:
    """cmark-gfm's HTML for ``markdown`` with the given extensions (and source positions)."""
    options = _OPTIONS | (Options.CMARK_OPT_FOOTNOTES if footnotes else 0)
    if not sourcepos:
        options &= ~Options.CMARK_OPT_SOURCEPOS
    return cmark_to_html(markdown, options, extensions)


class _Tree(NamedTuple):
    """cmark-gfm's functions that walk a parsed document (bound by :func:`_load_freeing_renderer`)."""

    first_child: Callable[[int], int | None]
    last_child: Callable[[int], int | None]
    next: Callable[[int], int | None]
    previous: Callable[[int], int | None]
    type: Callable[[int], int]
    start_line: Callable[[int], int]


# cmark-gfm's block node types (cmark-gfm.h: CMARK_NODE_TYPE_BLOCK | n) that the walk tells apart.
_BLOCK_QUOTE, _LIST, _CODE_BLOCK, _HTML_BLOCK, _THEMATIC_BREAK, _FOOTNOTE_DEFINITION = (
    0x8002, 0x8003, 0x8005, 0x8006, 0x800A, 0x800B)
#: A document holding each of those types at its top level, and their types in order.
_TYPES_SAMPLE = "> q\n\n- a\n\n```\nc\n```\n\n<div>\n\n---\n\nx[^1]\n\n[^1]: n\n"
_SAMPLE_TYPES = (_BLOCK_QUOTE, _LIST, _CODE_BLOCK, _HTML_BLOCK, _THEMATIC_BREAK, 0x8008, _FOOTNOTE_DEFINITION)
#: Blocks without a paragraph, heading or table cell in them: nothing of theirs is read.
_LEAFLESS = frozenset({_CODE_BLOCK, _HTML_BLOCK, _THEMATIC_BREAK})
#: A line past the end of any document: where the last top-level block may reach.
_PAST_THE_END = 1 << 30
#: What stands before the blocks of a document's XML (without its sourcepos, which nothing reads).
_XML_HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE document SYSTEM "CommonMark.dtd">\n'
             b'<document xmlns="http://commonmark.org/xml/1.0">\n')


def _in_order(starts: list[int]) -> bool:
    """True when a run of sibling blocks' start lines are positions (1 or more) in document order."""
    return bool(starts) and starts[0] >= 1 and all(a <= b for a, b in zip(starts, starts[1:]))


#: ``keep(starts, end)``: the indexes of the sibling blocks starting on lines ``starts`` that may
#: hold a claim (see :func:`render_html_and_xml`).
Keep = Callable[[Sequence[int], int], Iterable[int]]


def _kept_blocks(tree: _Tree, root: int, keep: Keep) -> list[int] | None:
    """The nodes of the parsed document ``root`` whose XML :func:`render_html_and_xml` renders
    for ``keep``, in document order; None for the whole document (start lines out of order).

    They are: each top-level block, or for a top-level list each of its items, that
    ``keep`` names, except code blocks, HTML blocks and thematic breaks; whatever block
    follows a block quote that is kept (the quotation's attribution line is read from it:
    a reader of the XML finds there what it finds in the whole document's); and every
    footnote definition (cmark-gfm moves them all to the end of the document, and a
    citation may be read from any of them). Each node is kept whole, so everything read
    inside it is as in the whole document's XML.
    """
    notes: list[int] = []
    node = tree.last_child(root)
    while node and tree.type(node) == _FOOTNOTE_DEFINITION:
        notes.append(node)
        node = tree.previous(node)
    notes.reverse()
    last = node
    blocks: list[int] = []
    starts: list[int] = []
    node = tree.first_child(root) if last else None
    while node:
        blocks.append(node)
        starts.append(tree.start_line(node))
        if node == last:
            break
        node = tree.next(node)
    if blocks and not _in_order(starts):
        return None
    kept: list[int] = []
    pending = sorted(set(keep(starts, _PAST_THE_END)) if blocks else (), reverse=True)  # smallest last
    forced = -1  # the block after the last block quote kept
    done = -1
    while pending:
        k = pending.pop()
        if k <= done:
            continue
        done = k
        node = blocks[k]
        kind = tree.type(node)
        if kind == _BLOCK_QUOTE and k + 1 < len(blocks):
            forced = k + 1
            if not pending or pending[-1] != forced:
                pending.append(forced)
        if k == forced:
            kept.append(node)
        elif kind == _LIST:
            items: list[int] = []
            item_starts: list[int] = []
            item = tree.first_child(node)
            while item:
                items.append(item)
                item_starts.append(tree.start_line(item))
                item = tree.next(item)
            if not _in_order(item_starts):
                kept.append(node)
            else:
                # an item takes text from its start line to the line before the next top-level block's
                end = starts[k + 1] - 1 if k + 1 < len(blocks) else _PAST_THE_END
                kept.extend(items[j] for j in sorted(set(keep(item_starts, max(end, item_starts[-1])))))
        elif kind not in _LEAFLESS:
            kept.append(node)
    return kept + notes


def _load_freeing_renderer() -> Callable[..., Any] | None:
    """A cmark-gfm renderer that frees what it allocates, or None.

    cmarkgfm 2025.10.22 frees neither the document tree nor the HTML string
    it renders (measured here: 110 MB retained per pass over the 9.5 MB
    README corpus, and cmark gets slower as the heap grows), and its cffi
    binding exposes no function to free them. cmark-gfm's own arena
    allocator is exported from the same extension module: the parser, the
    tree and the HTML string are all allocated in it and released at once
    by ``cmark_arena_reset``, which is also a quarter faster than a
    ``malloc``/``free`` per node. The functions are reached through
    ``ctypes`` (cffi's ``cdef`` would import pycparser, 60 ms of start-up).
    The arena is one per process, so renders take a lock. When anything is
    missing, cmarkgfm's own function is used. The function returned renders
    cmark's XML instead of HTML when called with ``xml=True``
    (:func:`render_xml`).
    """
    try:
        import ctypes

        from cmarkgfm import _cmark

        so = ctypes.CDLL(_cmark.__file__)
        ptr, size, num = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        for name, restype, argtypes in (
                ("cmark_gfm_core_extensions_ensure_registered", None, []),
                ("cmark_get_arena_mem_allocator", ptr, []),
                ("cmark_arena_reset", None, []),
                ("cmark_find_syntax_extension", ptr, [ctypes.c_char_p]),
                ("cmark_parser_new_with_mem", ptr, [num, ptr]),
                ("cmark_parser_attach_syntax_extension", num, [ptr, ptr]),
                ("cmark_parser_feed", None, [ptr, ctypes.c_char_p, size]),
                ("cmark_parser_finish", ptr, [ptr]),
                ("cmark_parser_get_syntax_extensions", ptr, [ptr]),
                ("cmark_render_html_with_mem", ptr, [ptr, num, ptr, ptr]),
                ("cmark_render_xml_with_mem", ptr, [ptr, num, ptr]),
                # the top-level blocks, for the XML of only those that may hold a claim
                ("cmark_node_first_child", ptr, [ptr]),
                ("cmark_node_last_child", ptr, [ptr]),
                ("cmark_node_next", ptr, [ptr]),
                ("cmark_node_previous", ptr, [ptr]),
                ("cmark_node_get_type", num, [ptr]),
                ("cmark_node_get_start_line", num, [ptr])):
            function = getattr(so, name)
            function.restype, function.argtypes = restype, argtypes
        so.cmark_gfm_core_extensions_ensure_registered()
        arena = so.cmark_get_arena_mem_allocator()
        new_parser, attach, feed = so.cmark_parser_new_with_mem, so.cmark_parser_attach_syntax_extension, \
            so.cmark_parser_feed
        finish, get_extensions, render = so.cmark_parser_finish, so.cmark_parser_get_syntax_extensions, \
            so.cmark_render_html_with_mem
        render_xml = so.cmark_render_xml_with_mem
        reset, find, string_at = so.cmark_arena_reset, so.cmark_find_syntax_extension, ctypes.string_at
        tree = _Tree(so.cmark_node_first_child, so.cmark_node_last_child, so.cmark_node_next,
                     so.cmark_node_previous, so.cmark_node_get_type, so.cmark_node_get_start_line)
        # The node types the walk tells apart are the enum of cmark-gfm.h, not exported
        # symbols: read them back from a document that has each (else every XML is whole).
        sample = _TYPES_SAMPLE.encode("ascii")
        parser = so.cmark_parser_new_with_mem(_OPTIONS | Options.CMARK_OPT_FOOTNOTES, arena)
        so.cmark_parser_feed(parser, sample, len(sample))
        node = tree.first_child(so.cmark_parser_finish(parser))
        types = []
        while node:
            types.append(tree.type(node))
            node = tree.next(node)
        so.cmark_arena_reset()
        walks = tuple(types) == _SAMPLE_TYPES
        lock = allocate_lock()
        found: dict[str, int] = {}
    except Exception:  # noqa: BLE001  # pragma: no cover - any failure means: not this build of cmarkgfm
        return None

    def some_xml(root: int, options: int, keep: Keep) -> str:
        nodes = _kept_blocks(tree, root, keep) if walks else None
        if nodes is None:
            return string_at(render_xml(root, options, arena)).decode("utf-8", "replace")
        if not nodes:
            return ""
        parts = [_XML_HEAD]
        for node in nodes:
            # each render starts with the XML declaration and the doctype: two lines
            raw = string_at(render_xml(node, options, arena))
            parts.append(raw[raw.index(b"\n", raw.index(b"\n") + 1) + 1:])
        parts.append(b"</document>\n")
        return b"".join(parts).decode("utf-8", "replace")

    def to_html(markdown: str, options: int, extensions: Sequence[str], xml: bool = False,
                both: bool = False, want: Callable[[str], bool] | None = None,
                keep: Keep | None = None) -> str | tuple[str, str]:
        data = markdown.encode("utf-8")
        with lock:
            try:
                parser = new_parser(options, arena)
                for name in extensions:
                    ext = found.get(name)
                    if ext is None:
                        ext = find(name.encode("ascii"))
                        if not ext:
                            raise ValueError(f"unknown cmark-gfm extension {name!r}")
                        found[name] = ext
                    attach(parser, ext)
                feed(parser, data, len(data))
                root = finish(parser)
                if both:
                    # Source positions are the renderers' business, not the parser's: the
                    # HTML without them and the XML with them come from one parse.
                    html_out = render(root, options & ~Options.CMARK_OPT_SOURCEPOS, get_extensions(parser), arena)
                    html_text = string_at(html_out).decode("utf-8", "replace")
                    if want is not None and not want(html_text):
                        return html_text, ""
                    if keep is not None:
                        return html_text, some_xml(root, options, keep)
                    return html_text, string_at(render_xml(root, options, arena)).decode("utf-8", "replace")
                raw = render_xml(root, options, arena) if xml else \
                    render(root, options, get_extensions(parser), arena)
                # cmark-gfm can split a UTF-8 sequence when it gives up on a
                # footnote reference that runs into a multi-byte character
                # (`[^f»` then a line break): the broken bytes become U+FFFD,
                # in text cmark copied from the source, never in a link.
                return string_at(raw).decode("utf-8", "replace")
            finally:
                # Everything cmark allocated since the last reset (parser, tree,
                # HTML) is in the arena: one call frees it all.
                reset()

    return to_html


def cmarkgfm_to_html(markdown: str, options: int, extensions: Sequence[str]) -> str:
    """cmark-gfm's HTML through cmarkgfm's own function; where cmark-gfm split
    a UTF-8 sequence (a footnote reference it gave up on, `[^»』` then a line
    break), which that function's strict decoding refuses, through the
    freeing renderer, which writes U+FFFD for the broken bytes. Raises
    ValueError for an unknown extension."""
    if not _registered:
        _register_extensions()
    try:
        return cmarkgfm.markdown_to_html_with_extensions(markdown, options, list(extensions))
    except UnicodeDecodeError:
        renderer = _freeing_renderer()
        if renderer is None:  # pragma: no cover - only where ctypes cannot bind cmark
            raise
        return renderer(markdown, options, extensions)


#: Characters of Markdown a process renders with cmarkgfm's own function
#: before it loads the freeing renderer: below this the memory retained is a
#: few MB, and a one-file check need not pay for loading ctypes and binding
#: cmark's functions (about 3 ms of its start-up).
FREEING_AFTER_CHARS = 256 * 1024
_rendered = 0


#: Held while cmark-gfm's process-wide state is set up: its list of syntax
#: extensions (which registering appends to) and its one arena. cffi and
#: ctypes release the GIL during a C call, so two threads rendering their
#: first document at once (the Python API) would otherwise both set it up.
_SETUP = allocate_lock()
_registered = False
_loaded: list[Callable[..., Any] | None] = []  # the freeing renderer (or None), once loaded


def _register_extensions() -> None:
    """Register cmark-gfm's core extensions, once per process."""
    global _registered
    with _SETUP:
        if not _registered:
            cmarkgfm.cmark.core_extensions_ensure_registered()
            _registered = True


def _freeing_renderer() -> Callable[..., Any] | None:
    """:func:`_load_freeing_renderer`, loaded once per process (one renderer,
    so one lock around the one arena)."""
    if not _loaded:
        with _SETUP:
            if not _loaded:
                _loaded.append(_load_freeing_renderer())
    return _loaded[0]


def cmark_to_html(markdown: str, options: int, extensions: Sequence[str]) -> str:
    """cmark-gfm's HTML for ``markdown``: through the freeing renderer once the
    process has rendered FREEING_AFTER_CHARS characters, before that (or
    without it) through cmarkgfm. Both give the same bytes
    (tests/test_links.py). Raises ValueError for an unknown extension."""
    global _rendered
    if _rendered < FREEING_AFTER_CHARS:
        _rendered += len(markdown)
        if _rendered < FREEING_AFTER_CHARS:
            return cmarkgfm_to_html(markdown, options, extensions)
    return (_freeing_renderer() or cmarkgfm_to_html)(markdown, options, extensions)


def render_xml(markdown: str, extensions: Sequence[str] = GITHUB_EXTENSIONS, footnotes: bool = True) -> str:
    """cmark-gfm's XML for ``markdown``: its syntax tree, every node with its source position.

    Unlike the HTML, the XML carries inline nodes with ``sourcepos``
    (``line:byte column-line:byte column``, 1-based, byte columns in UTF-8),
    text as parsed (soft breaks as ``<softbreak />``, entities decoded, then
    XML-escaped) and links with their destinations. Node types cmark-gfm's
    XML renderer cannot name (footnote references and definitions) are
    written ``<unknown>``. Bytes cmark-gfm leaves as invalid UTF-8 (it can
    split a character when it gives up on a footnote reference) are decoded
    as U+FFFD. cmarkgfm offers no XML function, so this always goes through
    the freeing renderer; raises RuntimeError when cmark-gfm's functions
    cannot be loaded, ValueError for an unknown extension.
    """
    renderer = _freeing_renderer()
    if renderer is None:  # pragma: no cover - depends on cmarkgfm's build
        raise RuntimeError("cmark-gfm's XML renderer is not available in this cmarkgfm build")
    options = _OPTIONS | (Options.CMARK_OPT_FOOTNOTES if footnotes else 0)
    return renderer(markdown, options, extensions, True)


def render_html_and_xml(markdown: str, extensions: Sequence[str] = GITHUB_EXTENSIONS,
                        footnotes: bool = True, want: Callable[[str], bool] | None = None,
                        keep: Keep | None = None) -> tuple[str, str]:
    """``render_html(markdown, extensions, footnotes, sourcepos=False)`` and
    ``render_xml(markdown, extensions, footnotes)`` from one parse of ``markdown`` (a Markdown
    check whose claims in prose are verified reads both). With ``want``, the XML is rendered
    only when ``want(html)`` is true for that HTML, else it is "" (most documents hold no
    claim, and the XML costs cmark more than the HTML).

    With ``keep``, the XML is that of only the blocks that may hold a claim, inside one
    ``<document>``, "" when there are none: ``keep(starts, end)`` is given the start lines
    (1-based, in order) of a run of sibling blocks, the top-level ones or the items of a
    top-level list, and gives the indexes of those to keep. Each block takes text from its
    start line to the line before the next one's start, the last one's to line ``end``
    (past the document's end at the top level), so that no line is missed where cmark-gfm
    misplaces a block's end; ``keep`` must name every block whose lines hold something to be
    read (:mod:`citelint.links.claimlines` says which lines may). The XML also holds the block
    after each block quote kept and every footnote definition (see :func:`_kept_blocks`).
    Source positions are the whole document's (one parse), so a reader of that XML
    (:class:`~citelint.links.blocks.XmlDocument`) finds in each block what it finds there in
    the whole document's XML. Raises as :func:`render_xml` does."""
    renderer = _freeing_renderer()
    if renderer is None:  # pragma: no cover - depends on cmarkgfm's build
        raise RuntimeError("cmark-gfm's XML renderer is not available in this cmarkgfm build")
    options = _OPTIONS | (Options.CMARK_OPT_FOOTNOTES if footnotes else 0)
    return renderer(markdown, options, extensions, both=True, want=want, keep=keep)


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


def scan_links(out: str, images: bool) -> list[re.Match[str]]:
    """Every ``<a …>`` (and ``<img …>`` when ``images``) tag of cmark's output outside comments."""
    pattern = _SCAN_A_IMG if images else _SCAN_A
    # No match can run from before a comment into it: an anchor's text stops
    # at "<" and a raw tag's match is its "<a" alone.
    return [m for lo, hi in _outside_comments(out) for m in pattern.finditer(out, lo, hi)]


def _outside_comments(out: str) -> list[tuple[int, int]]:
    """The (start, end) stretches of cmark's output outside HTML comments, in order."""
    if "<!--" not in out:
        return [(0, len(out))]
    stretches, pos = [], 0
    for start, end in _comment_spans(out):
        stretches.append((pos, start))
        pos = end
    stretches.append((pos, len(out)))
    return stretches


#: What follows the name of an HTML open tag as CommonMark defines it.
OPEN_TAG_ATTRS = r"""(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*/?>"""
# The tags of scan_links as tuples of strings, for judging without match objects:
# (href, plain text, raw tag name, rest of the raw tag read two ways). cmark's
# own anchor has no name; its text is "" when it has markup, or when not asked
# for (``()`` keeps the shape; an anchor's text holds no "<", so skipping it
# moves no later tag). A raw tag's rest, after its name, is read by a
# lookahead (the scan goes on after the name, as scan_links's does) as an open tag,
# else up to the first ">", else not at all.
_TAG_REST = f"(?=({OPEN_TAG_ATTRS})|([^>]*>)|)"
_TUPLES = {(images, text): re.compile(
    r'<(?:a href="([^"]*)"(?: title="[^"]*")?>' + (r"(?:([^<&]*)</a>)?" if text else "()")
    + (r"|([aA]|[iI][mM][gG])" if images else r"|([aA])") + r"(?=[\s/>])" + _TAG_REST + ")")
    for images in (False, True) for text in (False, True)}


def scan_link_tuples(out: str, images: bool, text: bool) -> list[tuple[str, str, str, str, str]]:
    """:func:`scan_links` as tuples of strings: the same tags, in the same order.

    Each is ``(href, text, name, open_rest, loose_rest)``: ``href`` and
    ``text`` are groups 1 and 2 of :func:`scan_links`'s match ("" for None;
    ``text`` is always "" unless ``text`` is true); ``name`` is the tag's
    name ("a", "img", any case) for a raw tag, else "". For a raw tag,
    ``"<" + name + open_rest`` is the tag as ``locate._OPEN_TAG`` matches it
    at the tag's offset, or when that fails (``open_rest`` ""),
    ``"<" + name + loose_rest`` is ``locate._LOOSE_TAG``'s match (both "" when
    neither matches). Between comments, that reading stops where the comment
    starts, so it is exact only for output without comments.
    """
    pattern = _TUPLES[images, text]
    if "<!--" not in out:
        return pattern.findall(out)
    return [t for lo, hi in _outside_comments(out) for t in pattern.findall(out, lo, hi)]


def footnotes_start(out: str, footnotes: bool) -> int:
    """Output offset after which links sit in footnote definitions."""
    at = out.rfind(_FOOTNOTES_SECTION) if footnotes else -1
    return at if at >= 0 else len(out) + 1
