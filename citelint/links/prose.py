"""Claims in prose: the quotations and cited numbers a reader sees in a Markdown report.

This module *finds* what the prose rules verify against the captures
(CL205 quotations, CL206 numbers: :mod:`citelint.links.claims`):
:func:`quotations`, :func:`cited_numbers` and :func:`number_occurs`. The
rule it implements is written down once, with examples, in
docs/quotations.md ("Prose quotations and numbers (detection)").

What a reader sees is decided by cmark-gfm, never by a parser of our own:
:mod:`citelint.links.blocks` reads cmark's XML into paragraphs, headings and
table cells as rendered text (soft line break = one space, hard break =
newline, inline markup removed, character references decoded, images left
out) with their code spans, links and footnote references marked, and gives
each its citations as ``links.check`` locates them; this module finds the
quotation marks, sentences and numbers in that text.

Positions are 1-based lines and Unicode code-point columns; indices into a
rendered text are code-point indices.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from citelint.escape import count_visible
from citelint.links.blocks import Block, Detector

# (MAX_INSERTION_CHARS: the splitting of quotations is in sentences.py; named here too, as before)
from citelint.links.sentences import (
    MARKS,
    MAX_INSERTION_CHARS as MAX_INSERTION_CHARS,
    PAIRED_MARKS,
    TEXT_MARKS,
    Segment,
    in_spans,
    is_marker_text,
    mark_pairs,
    split_quotation,
    split_sentences,
)

if TYPE_CHECKING:
    from citelint.links.link import Link

#: The marks that can open a quotation besides ``"``: a leaf with none of them (and fewer
#: than two ``"``) is not rendered at all.
_OPENERS = re.compile("[" + "".join(sorted(set(PAIRED_MARKS) | {"‘"})) + "]")
#: A text node of cmark's XML holding one of them, ``"`` (``&quot;``) or ” (which closes a ``"``).
#: (Possessive, and stopping at each mark, so that a text node is read once.)
_MARK_IN_HTML = re.compile(f"[{TEXT_MARKS}]")
_MARKED_TEXT = re.compile(f"<text[^>]*+>(?:[^<&{TEXT_MARKS}]++|&(?!quot;))*+(?:[{TEXT_MARKS}]|&quot;)")

#: Citation markers written as plain text: ``[1]``, ``[^1]``, ``[3: not linked]`` (imports).
_PLAIN_MARKER = re.compile(r"\[\^?\d+(?:: not linked)?\]")
_PLAIN_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.)\S*")


class Quotation(NamedTuple):
    """A quotation a reader sees, found by :func:`quotations`.

    ``text``: the rendered text between the marks (whitespace beside them
    removed), or the whole rendered paragraph of a blockquote. ``line``/``col``:
    the opening mark, or the blockquote paragraph's first character.
    ``kind``: ``marks`` or ``blockquote``; ``marks``: the opening and closing
    mark (``“”``; ``""`` for a blockquote). ``sentence``: the rendered
    sentence it sits in (the paragraph, for a blockquote). ``segments``: the
    text split at elisions and insertions; ``insertions``: the bracketed
    insertions as written (``[sic]``); ``short_segments``: the segments with
    fewer visible characters than ``min_segment_chars``. ``citations``: the
    governed links (:class:`~citelint.links.link.Link`) it is attributed to:
    those of its own block in document order, then those of the footnote
    definitions it references; each once. ``end_line``/``end_col``: just
    after the closing mark, or the blockquote paragraph's last character.
    """

    text: str
    line: int
    col: int
    kind: str
    marks: str
    sentence: str
    segments: tuple[Segment, ...]
    insertions: tuple[str, ...]
    short_segments: tuple[str, ...]
    citations: tuple[Link, ...]
    end_line: int = 0
    end_col: int = 0


class Number(NamedTuple):
    """A number in a cited sentence, found by :func:`cited_numbers`.

    ``text``: the digits as written (``1,000``); ``shown``: with the sign,
    currency symbol, ``%`` or scale word around it (``$1,000 million``), for
    messages only; ``readings``: the values it may mean, each written as
    digits with at most one ``.`` (``1,000`` → ``("1000", "1.000")``);
    ``line``/``col``: its first digit; ``sentence`` and ``citations`` as for
    :class:`Quotation`.
    """

    text: str
    shown: str
    readings: tuple[str, ...]
    line: int
    col: int
    sentence: str
    citations: tuple[Link, ...]


# --------------------------------------------------------------------------- marks and sentences


def _strip_span(text: str, a: int, e: int) -> tuple[int, int]:
    while a < e and text[a].isspace():
        a += 1
    while e > a and text[e - 1].isspace():
        e -= 1
    return a, e


_TRAILING_MARKER = re.compile(r"\[\^?\d+(?:: not linked)?\]\Z")


def _trim_markers(b: Block, a: int, e: int) -> int:
    """The end of the quoted text ``b.text[a:e]`` without the citation markers (linked or
    plain, ``[7]``) written just inside its closing mark (``“What is the evidence?[7]”``):
    they cite the quotation, they are not the source's words."""
    ends = {hi: lo for lo, hi, _, _ in b.links if is_marker_text(b.text[lo:hi])}
    while e > a:
        lo = ends.get(e)
        if lo is None:
            m = _TRAILING_MARKER.search(b.text, a, e)
            if m is None:
                break
            lo = m.start()
        e = lo
        while e > a and b.text[e - 1].isspace():
            e -= 1
    return e


def quotations(markdown: str, *, min_chars: int = 20, min_segment_chars: int = 12) -> list[Quotation]:
    """Every quotation a reader sees in the Markdown ``markdown``, in document order.

    A quotation is the text between a pair of quotation marks (“…”, „…“,
    „…”, «…», 「…」, 『…』, and ``"…"`` or ‘…’ only at a word start and a word
    end) within one paragraph, heading or table cell, outside code; or a
    paragraph of a blockquote (not of a GitHub alert; of nested blockquotes
    only the outermost). Marks inside a quotation belong to it; a blockquote
    paragraph is one quotation whatever marks it holds. Quotations with
    fewer than ``min_chars`` visible characters in their segments are left
    out; segments below ``min_segment_chars`` are listed in
    :attr:`Quotation.short_segments`. See docs/quotations.md for the
    citation rule. Raises nothing for any ``str`` (RuntimeError only when
    cmark-gfm's XML renderer is missing from the cmarkgfm build).
    """
    if not _may_quote(markdown):
        return []
    return _quotations(Detector(markdown), min_chars, min_segment_chars)


def _may_quote(markdown: str) -> bool:
    """False when ``markdown`` holds no quotation mark, no ``>`` (a blockquote) and no ``&`` (a
    character reference may spell a mark): it quotes nothing."""
    return bool(markdown) and (MARKS.search(markdown) is not None or ">" in markdown or "&" in markdown)


def _may_cite(chunk: str, citable: Callable[[str], bool] | None) -> bool:
    """False when the leaf of cmark's XML ``chunk`` has links, none of them ``citable``, and no
    footnote reference or raw ``<a>`` tag (whose destination is not in an attribute)."""
    if citable is None or "<<unknown>" in chunk or "&lt;a" in chunk or "&lt;A" in chunk:
        return True
    return any(citable(html.unescape(dest) if "&" in dest else dest) for dest in _DESTINATION.findall(chunk))


def _may_link(chunk: str) -> bool:
    """False when the leaf of cmark's XML ``chunk`` has no link, no footnote reference and no raw
    ``<a>`` tag: nothing a citation is read from (:meth:`Detector.cite` reads only those)."""
    return "<link" in chunk or "<<unknown>" in chunk or "&lt;a" in chunk or "&lt;A" in chunk


def _quotations(det: Detector, min_chars: int, min_segment_chars: int,
                citable: Callable[[str], bool] | None = None, cited: bool = False) -> list[Quotation]:
    """:func:`quotations` of the document ``det`` reads; with ``citable``, marked quotations in a
    leaf whose links are none of them ``citable`` (and that has no footnote reference) are left out;
    with ``cited``, so is every quotation without a citation, before it is positioned."""
    xml = det.d.xml
    found: list[Quotation] = []
    # Where a text node holds a mark that may open or close a quotation: marks in code,
    # raw HTML or attributes are never quotation marks, so a leaf without one is not read.
    marked = [m.start() for m in _MARKED_TEXT.finditer(xml)]
    regions = det.quote_regions()
    if not marked and not regions:
        return found
    # Outside the blockquotes, the leaf of a marked text node is found from the node alone;
    # inside them, only their own leaves are listed (their depth and alert decide).
    leaf_spans: list[tuple[int, int]] = []
    every_leaf = False  # when a leaf is not as expected, every leaf of the document is listed
    starts = [lo for lo, _ in regions]
    for i in marked:
        if leaf_spans and i < leaf_spans[-1][1]:
            continue
        r = bisect_right(starts, i) - 1
        if r >= 0 and i < regions[r][1]:
            continue  # read with its blockquote's leaves
        leaf = det.leaf_at(i)
        if leaf is None:
            every_leaf = True
            break
        if leaf[0] >= 0:
            leaf_spans.append(leaf)
    listed = det.leaves if every_leaf else [
        leaf for r, (lo, hi) in enumerate(regions) for leaf in det.d.leaves(lo, hi, r)]
    quote_paragraphs: dict[int, list[tuple[int, int]]] = {}  # blockquote id -> its paragraphs
    kept = []
    for start, end, depth, alert, _note, quote_id in listed:
        if depth and not (alert and depth == 1):
            if depth == 1:  # of nested blockquotes only the outermost is a quotation
                quote_paragraphs.setdefault(quote_id, []).append((start, end))
            continue
        at = bisect_left(marked, start)
        if at < len(marked) and marked[at] < end:
            kept.append((start, end))
    leaf_spans = kept if every_leaf else sorted(leaf_spans + kept)
    for start, end in leaf_spans:
        if start < 0:
            continue
        chunk = xml[start:end]
        if _OPENERS.search(chunk) is None and chunk.count("&quot;") + chunk.count("”") < 2:
            continue  # no mark that can open a quotation, and no "…" or "…”
        if citable is not None and not _may_cite(chunk, citable):
            continue  # no citation a capture grounds: nothing to verify
        if cited and not _may_link(chunk):
            continue  # no citation at all (a check skips what it could not verify)
        b = det.block_at(start, end)
        pairs = mark_pairs(b.text, b.code)
        if not pairs:
            continue
        sentences = None
        for n_pair, (o, c) in enumerate(pairs):
            a, e = _strip_span(b.text, o + 1, c)
            e = _trim_markers(b, a, e)
            text = b.text[a:e]
            segs, ins, short = split_quotation(text, min_segment_chars)
            if sum(count_visible(s.text) for s in segs) < min_chars:
                continue
            if sentences is None:
                sentences = split_sentences(b, pairs)
            s0, t_end, s_end = next(((s, t, e2) for s, t, e2 in sentences if s <= o < e2), (0, len(b.text),
                                                                                               len(b.text)))
            nxt = pairs[n_pair + 1][0] if n_pair + 1 < len(pairs) and pairs[n_pair + 1][0] < t_end else t_end
            spans = [(o, c + 1), (c + 1, max(c + 1, nxt)), (t_end, s_end)]
            ref_spans = [(o, nxt), (t_end, s_end)]
            citations = det.cite(b, spans, ref_spans) if (b.links or b.refs) else ()
            if cited and not citations:
                continue  # (what positioning it costs is most of a quotation's)
            line, col = det.d.position(b, o)
            found.append(Quotation(text, line, col, "marks", b.text[o] + b.text[c], b.text[s0:s_end].strip(),
                                   segs, ins, short, citations, *det.d.end_position(b, c)))
    for quote_id, spans in quote_paragraphs.items():
        found.extend(_blockquote(det, spans, regions[quote_id][1], min_chars, min_segment_chars, cited))
    found.sort(key=lambda q: (q.line, q.col))
    return found


def _blockquote(det: Detector, spans: Sequence[tuple[int, int]], quote_end: int, min_chars: int,
                min_segment_chars: int, cited: bool = False) -> list[Quotation]:
    """The quotations of one outermost blockquote, whose paragraphs are the leaves at ``spans``
    (xml start, end) and whose closing tag ends at xml offset ``quote_end``; with ``cited``,
    none when they have no citation (all of them share their citations)."""
    xml = det.d.xml
    span = _attribution_span(xml, spans[-1][1], quote_end)
    if cited and not _may_link(xml[spans[-1][0]:spans[-1][1]]) \
            and (span is None or not _may_link(xml[span[0]:span[1]])):
        return []  # neither the last paragraph nor the one after it can cite: no block is read
    last = det.block_at(*spans[-1])
    citations = det.all_citations(last) if (last.links or last.refs) else ()
    after = _attribution(det, span)
    if after is not None:
        citations = tuple(dict.fromkeys(citations + det.all_citations(after)))
    if cited and not citations:
        return []
    out = []
    for start, end in spans:
        b = det.block_at(start, end)
        a, e = _strip_span(b.text, 0, len(b.text))
        text = b.text[a:e]
        segs, ins, short = split_quotation(text, min_segment_chars)
        if sum(count_visible(s.text) for s in segs) < min_chars:
            continue
        line, col = det.d.position(b, a) if a else (b.line, b.col)
        out.append(Quotation(text, line, col, "blockquote", "", text, segs, ins, short, citations,
                             *det.d.end_position(b, e - 1)))
    return out


def _attribution_span(xml: str, leaf_end: int, quote_end: int) -> tuple[int, int] | None:
    """The (xml start, end) of the paragraph right after the blockquote whose last paragraph
    ends at xml offset ``leaf_end`` and whose closing tag ends at ``quote_end``, or None (not
    after a nested blockquote that closes the quotation: that paragraph is inside)."""
    end = xml.find("</block_quote>", leaf_end)
    if end < 0 or end + len("</block_quote>") != quote_end:
        return None
    nxt = xml.find("<", quote_end)
    if not xml.startswith("<paragraph", nxt):
        return None
    return nxt, xml.find("</paragraph>", nxt)


def _attribution(det: Detector, span: tuple[int, int] | None) -> Block | None:
    """The paragraph at ``span`` (:func:`_attribution_span`), when it starts with — or --."""
    if span is None:
        return None
    b = det.block_at(*span)
    head = b.text.lstrip()
    return b if head.startswith("—") or head.startswith("--") else None


# --------------------------------------------------------------------------- numbers

#: A number: a maximal run of digits with grouping separators (``,`` ``.``
#: space ``'``, one kind, between groups of three) and at most one decimal mark.
#: It starts with its first digit, and the lookbehinds (no digit, and no digit with a separator,
#: before it) are tested after that digit: a pattern that starts with a digit is scanned for one,
#: not tried at every position (five times faster over prose and captures alike).
_NUMBER = re.compile(
    r"\d(?<!\d\d)(?<!\d[.,]\d)"
    r"(?:\d{0,2}(?P<g>[,.'\u00a0\u2009\u202f ])\d{3}(?!\d)(?:(?P=g)\d{3}(?!\d))*(?:(?!(?P=g))[.,]\d+)?"
    r"|\d*(?:[.,]\d+)?)")
_DIGIT = re.compile(r"\d")
_DESTINATION = re.compile(r' destination="([^"]*)"')
_TEXT_DIGIT = re.compile(r">[^<\d]*+\d")  # a digit in the content of a node of cmark's XML
#: A link of cmark's XML whose text is one text node that is a citation marker (``[1]``, ``1``,
#: ``[^1]``: ``is_marker_text`` without surrounding spaces): its digits are never a number's start.
_MARKER_LINK = re.compile(r"<link [^>]*>\s*<text [^>]*>\[?\^?\d+\]?</text>\s*</link>")
_CURRENCY = frozenset("$€£¥₹₩₽¢")
_SIGNS = frozenset("+-−±")
_SCALE = re.compile(r"\s?(?:%|percent\b|per cent\b|(?:thousand|million|billion|trillion)s?\b|bn\b)")
#: What joins a token to a date, time, range or version (2026-07-01, 10:30, 1/2): out of scope.
_JOINERS = frozenset("-/:")
#: What joins a number to a symbol as an exponent or index (x^2, 10^6, a_1): out of scope.
_POWER_OR_INDEX = frozenset("^_")


def readings(written: str) -> tuple[str, ...]:
    """The values a number as written may mean, each as digits with at most one ``.``.

    ``1,000`` → ``("1000", "1.000")`` (grouping, or a decimal comma);
    ``1,000,000`` → ``("1000000",)``; ``1.000,5`` → ``("1000.5",)``;
    ``12.5`` → ``("12.5",)``; ``1 000`` → ``("1000",)``. ``written`` is a
    match of the number pattern (:func:`cited_numbers` gives them).
    """
    seps = [c for c in written if not c.isdigit()]
    if not seps:
        return (written,)
    groups = re.split(r"[^\d]", written)
    if len(seps) == 1:
        whole = groups[0] + groups[1]
        if seps[0] in ".,":
            decimal = groups[0] + "." + groups[1]
            grouped = len(groups[1]) == 3 and len(groups[0]) <= 3
            return (whole, decimal) if grouped else (decimal,)
        return (whole,)
    if len(set(seps)) == 1:
        return ("".join(groups),)
    return ("".join(groups[:-1]) + "." + groups[-1],)


def number_occurs(number: Number | str, text: str) -> bool:
    """True when ``number`` occurs as a number in ``text`` under one of its readings.

    ``number`` is a :class:`Number` or a number as written (``"1,000"``).
    Every number of ``text`` is read the same way (a maximal run, so ``12``
    is never found inside ``12.5``, ``2012`` or ``120``); in ``text`` a
    number may touch letters or dashes (``COVID-19`` holds 19). Signs,
    currency and scale words are not compared.
    """
    wanted = set(number.readings if isinstance(number, Number) else readings(number))
    if not any(w[0] in text for w in wanted):
        return False  # not even its first digit: no need to read every number of ``text``
    return any(not wanted.isdisjoint(readings(m.group(0))) for m in _NUMBER.finditer(text))


def _excluded(b: Block, pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges of ``b.text`` whose numbers are never compared: code, quotations, URLs, citation markers."""
    text = b.text
    out = list(b.code)
    out.extend((o, c + 1) for o, c in pairs)
    for a, e, _, link in b.links:
        shown = text[a:e]
        if is_marker_text(shown) or (link is not None and link.kind in ("bare", "autolink")) \
                or _PLAIN_URL.match(shown.strip()):
            out.append((a, e))
    if "[" in text:
        out.extend(m.span() for m in _PLAIN_MARKER.finditer(text))
    if "://" in text or "www." in text:  # (the pattern would be tried at every letter)
        out.extend(m.span() for m in _PLAIN_URL.finditer(text))
    return out


def cited_numbers(markdown: str, *, every: bool = False) -> list[Number]:
    """Every number of a sentence that has citations, in document order
    (with ``every``, of every sentence: an uncited one's numbers have no
    citations; the reader view marks them).

    A sentence's citations are its governed links, the links of the
    footnotes it references, and the run of citation-only links right after
    its terminator. Numbers inside quotations (marked or blockquote), code,
    URLs and citation markers (``[1]``, ``[^1]``, ``[3: not linked]``, a link
    text that is only a number) are left out, and so are tokens joined to
    letters (``COVID-19``, ``1990s``, ``v2``) and dates, times, ranges and
    versions written with ``-``, ``/``, ``:`` or a second ``.``. Raises
    nothing for any ``str``.
    """
    if not markdown or _DIGIT.search(markdown) is None:
        return []
    return _numbers(Detector(markdown), every=every)


def _numbers(det: Detector, citable: Callable[[str], bool] | None = None, every: bool = False) -> list[Number]:
    """:func:`cited_numbers` of the document ``det`` reads (``every`` as there); with ``citable``, the
    numbers of a leaf whose links are none of them ``citable`` (and that has no footnote reference)
    are left out."""
    xml = det.d.xml
    found: list[Number] = []
    if _TEXT_DIGIT.search(_MARKER_LINK.sub("", xml) if "<link" in xml else xml) is None:
        return found  # no digit but those of citation markers: no leaf is read (as below, at once)
    leaf_spans = [(start, end) for start, end, depth, alert, _note, _quote in det.leaves
                  if not depth or (alert and depth == 1)]  # a blockquote paragraph is a quotation
    for start, end in leaf_spans:
        chunk = xml[start:end]
        if not every and "<link" not in chunk and "<<unknown>" not in chunk and "&lt;a" not in chunk:
            continue  # no link, no citation
        if _TEXT_DIGIT.search(_MARKER_LINK.sub("", chunk) if "<link" in chunk else chunk) is None:
            # No digit in any text or code node but those of citation markers ([1](…)), whose
            # digits are excluded: a number starting there is never compared.
            continue
        if citable is not None and not _may_cite(chunk, citable):
            continue  # no citation a capture grounds: nothing to verify
        b = det.block_at(start, end)
        pairs = mark_pairs(b.text, b.code)
        det.d.attach(b)  # the link kinds tell URLs (autolinks, bare URLs) from prose
        skip = _excluded(b, pairs)
        for s0, _t_end, s_end in split_sentences(b, pairs):
            numbers = [m for m in _NUMBER.finditer(b.text, s0, s_end)
                       if not in_spans(skip, m.start()) and _standalone(b.text, m.start(), m.end())
                       and not _enumerator(det, b, m.start(), m.end())]
            if not numbers:
                continue
            citations = det.cite(b, [(s0, s_end)], [(s0, s_end)])
            if not citations and not every:
                continue
            sentence = b.text[s0:s_end].strip()
            for m in numbers:
                a, e = m.span()
                lo, hi = a, e
                while lo > 0 and b.text[lo - 1] in _CURRENCY:
                    lo -= 1
                if lo > 0 and b.text[lo - 1] in _SIGNS and (lo == 1 or not b.text[lo - 2].isalnum()):
                    lo -= 1
                scale = _SCALE.match(b.text, e)
                if scale is not None:
                    hi = scale.end()
                line, col = det.d.position(b, a)
                found.append(Number(m.group(0), b.text[lo:hi], readings(m.group(0)), line, col, sentence,
                                    citations))
    found.sort(key=lambda n: (n.line, n.col))
    return found


def _enumerator(det: Detector, b: Block, a: int, e: int) -> bool:
    """True when the number at ``b.text[a:e]`` numbers a paragraph or a line: it opens the
    block or its source line and is followed, after any citation-only links, by ``.`` or
    ``)`` and a space or the end (``1[1]. Update the zoning rules``, a list item that the
    citation kept from being one, or a lazy continuation line of one)."""
    text = b.text
    k = e
    markers = {lo: hi for lo, hi, _, _ in b.links if is_marker_text(text[lo:hi])}
    while k in markers and markers[k] > k:
        k = markers[k]
    if not (k < len(text) and text[k] in ".)" and (k + 1 == len(text) or text[k + 1].isspace())):
        return False
    if not text[:a].strip():
        return True
    line, col = det.d.position(b, a)
    source = det.d.markdown
    start = det.d.offset(line, 1)
    return not source[start:start + col - 1].strip()


#: What cmark's HTML writes for a quotation mark in text (``"`` as ``&quot;``), or a blockquote.
_HTML_QUOTING = ("&quot;", "<blockquote")
#: An anchor of cmark's HTML whose text is a citation marker (``[1]``, ``1``, ``[^1]``; a
#: footnote reference's, whose XML node holds no digit, with its other attributes).
#: A paragraph, heading or table cell of cmark's HTML with no tag inside: no citation.
_UNCITED_LEAF = re.compile(r"<(p|h[1-6]|td|th)(?: [^>]*)?>[^<]*</\1>")
_HTML_MARKER = re.compile(r'<a href="[^"]*"[^>]*>\[?\^?\d+\]?</a>')


def may_claim(html: str, quotes: bool = True, numbers: bool = True, markdown: str | None = None) -> bool:
    """False when cmark's HTML of a document (``render_html``, without source positions)
    shows that :func:`claims` finds no claim with a citation in it: no quotation mark in
    text and no blockquote (with ``quotes``), and no digit in text but those of citation
    markers' anchors (with ``numbers``), once the paragraphs, headings and table cells
    without any tag (so without a link or a footnote reference) are left out, which is done
    only when ``markdown``, the document, holds no ``<`` (no raw HTML: every tag is cmark's
    own). True says only that its XML has to be read.

    What a reader sees of a paragraph, heading or table cell is the text of cmark's HTML
    (``"`` written ``&quot;``, character references decoded): a mark or a digit that is
    not there is in no quotation and no number. The test errs towards True (marks and
    digits in attributes, code and raw HTML count too). Raises nothing for any ``str``.
    """
    if not _may_claim(html, quotes, numbers):
        return False
    if markdown is None or "<" in markdown:
        return True
    return _may_claim(_UNCITED_LEAF.sub("", html), quotes, numbers)


def _may_claim(html: str, quotes: bool, numbers: bool) -> bool:
    if quotes and (any(tag in html for tag in _HTML_QUOTING)
                   or (not html.isascii() and _MARK_IN_HTML.search(html) is not None)):
        return True
    if numbers and _DIGIT.search(html) is not None:
        return _TEXT_DIGIT.search(_HTML_MARKER.sub("", html) if "<a " in html else html) is not None
    return False


def claims(markdown: str, *, quotes: bool = True, numbers: bool = True, min_chars: int = 20,
           min_segment_chars: int = 12, citable: Callable[[str], bool] | None = None, xml: str = "",
           cited: bool = False) -> tuple[list[Quotation], list[Number]]:
    """:func:`quotations` (when ``quotes``) and :func:`cited_numbers` (when ``numbers``) of
    ``markdown`` from one reading of the document, for verification against the captures
    (:func:`citelint.links.claims.check_claims`).

    ``citable(href)`` says whether a link with that destination may be a
    citation a capture grounds; a leaf whose links are none of them citable
    and that has no footnote reference is not read. The citations are not
    located where nothing their verification reads depends on it (see
    :class:`citelint.links.blocks.XmlDocument`): their positions are their
    block's start. ``xml``, when given, is cmark's XML of ``markdown``
    (:func:`~citelint.links.render.render_xml`), so that it is not rendered
    again. With ``cited`` (a check's reading: it verifies nothing else), only
    the quotations with a citation are given, the others left out before they
    are positioned; ``xml`` may then be that of
    ``claim_lines(markdown, …, cited=True)``. Everything else is as the two
    functions give it. Raises nothing for any ``str``.
    """
    quotes = quotes and _may_quote(markdown)
    numbers = numbers and bool(markdown) and _DIGIT.search(markdown) is not None
    if not (quotes or numbers):
        return [], []
    det = Detector(markdown, light=True, xml=xml)
    return (_quotations(det, min_chars, min_segment_chars, citable, cited) if quotes else [],
            _numbers(det, citable) if numbers else [])


def _standalone(text: str, a: int, e: int) -> bool:
    """True when the number at text[a:e] is not joined to letters, a date, a time, a range, a
    version or a power."""
    before = text[a - 1] if a else ""
    after = text[e] if e < len(text) else ""
    if before.isalpha() or after.isalpha() or before in _POWER_OR_INDEX or after in _POWER_OR_INDEX:
        return False  # v2, 1990s, 5km, x^2, 10^6
    j = a - 1
    while j >= 0 and text[j] in _CURRENCY:
        j -= 1  # the second end of $700-$1000: the joiner stands before the currency symbol
    if j >= 1 and text[j] in _JOINERS and text[j - 1].isalnum():
        return False  # COVID-19, 2026-07-01, 1/2, 10:30, $700-$1000
    if after in _JOINERS:
        k = e + 1
        while k < len(text) and text[k] in _CURRENCY:
            k += 1
        if k < len(text) and text[k].isalnum():
            return False  # 2026-07, 10:30, 2010-2012, 1/2, $700-$1000, 12-hour
    # 1.2.3, 2.2.x, vue@2
    return not (after in ".," and e + 1 < len(text) and text[e + 1].isalnum() or before == "@")
