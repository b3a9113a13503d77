"""The ``pdf-text`` extractor: a PDF's text as a reader reads and quotes it (child side).

pdfminer.six's layout analysis places every glyph with its box and groups
glyphs into words, lines and text boxes; this module writes them as a reader
sees the page (chosen by measurement on real PDFs: ``bench/README.md``,
"PDF captures"):

- **reading order** is pdfminer's box order (``boxes_flow``): text boxes are
  grouped by position, so a column is read to its end before the next one,
  and a header or footer is its own box, never interleaved with body lines;
- **words whole**: a gap is a space only when it is wider than
  :data:`LAYOUT` ``wordMargin`` times the glyph's size, so the kerning
  inside a word never splits it; spaces the PDF itself draws are kept;
- **lines reflowed**: the lines of one text box are one paragraph, joined by
  one space, and so are those of the next box when it goes on under it (the
  lines after a list item's bullet, which pdfminer.six boxes apart); a line
  ending in a hyphen (``-``, U+2010, a soft hyphen) is joined to the next
  with no space and the hyphen kept as printed
  (``extrac-`` + ``tion`` reads ``extrac-tion``); every run of ASCII
  whitespace inside a paragraph is one space; paragraphs are separated by
  ``\\n`` and pages by ``\\f`` (a ``\\f`` the text layer holds becomes a
  space, so that ``\\f`` only ever separates pages);
- **ligatures** U+FB00–U+FB06 are written as the letters a reader sees
  (``ﬁ`` is ``fi``); a glyph the PDF maps to no character (pdfminer's
  ``(cid:N)``) is U+FFFD, the replacement character.

With the text come its outputs, recorded in the extractor options (and
compared by ``capture --verify-extraction``): ``pages``, one object per page
with ``start`` (the code-point offset in the text where the page starts),
``label`` (its printed label where the PDF has page labels, else null) and
``verdict``: ``usable``, ``no text`` (nothing but whitespace) or
``garbled`` (most of its visible characters are replacement, private-use,
control or unassigned code points). A document with no usable page is
refused: OCR is not citelint's business.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections import Counter
from typing import Any

#: pdfminer.six layout parameters (LAParams), by their recorded names.
#: ``lineMargin`` 0.8 (pdfminer's default is 0.5) keeps the widely spaced
#: lines of slides in one box; larger values start to merge boxes that a
#: reader sees apart (measured: bench/README.md).
LAYOUT = {"lineMargin": 0.8, "wordMargin": 0.1, "charMargin": 2.0, "lineOverlap": 0.5, "boxesFlow": 0.5}
#: The revision of this module's writing rules: recorded, since it changes the text as a library would.
WRITING = 1
USABLE, NO_TEXT, GARBLED = "usable", "no text", "garbled"
VERDICTS = (USABLE, NO_TEXT, GARBLED)
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "st", "\ufb06": "st"}
_HYPHENS = ("-", "\u2010", "\u00ad")
_RUN = re.compile(r"[ \t\n\r\f\v]+")
_CID = re.compile(r"\(cid:\d+\)")
_UNREADABLE = frozenset({"Co", "Cc", "Cn", "Cs"})
#: Letters a page needs before its writing systems are judged, and the share of them a system needs to count.
MIXED_LETTERS, MIXED_SHARE = 20, 0.05
_SYSTEMS = {"CJK": "CJK", "HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK", "IDEOGRAPHIC": "CJK",
            "HALFWIDTH": "CJK", "FULLWIDTH": "CJK", "BOPOMOFO": "CJK", "MATHEMATICAL": "LATIN"}
#: Most bytes one stream pdfminer.six decodes may inflate to (it inflates a
#: stream whole, with no bound of its own); pypdf's own cap is of this order.
MAX_STREAM_BYTES = 64 * 1024 * 1024


def _refuse_bombs(document: Any) -> None:
    """Refuse a document holding a FlateDecode stream (not an image, which
    layout analysis never decodes) that inflates past :data:`MAX_STREAM_BYTES`,
    inflating each at most that far.

    Raises:
        ValueError: such a stream, as a decompression bomb is.
    """
    import zlib

    from pdfminer.pdftypes import PDFStream
    from pdfminer.psparser import LIT

    flate = (LIT("FlateDecode"), LIT("Fl"))
    for xref in document.xrefs:
        for objid in xref.get_objids():
            try:
                obj = document.getobj(objid)
            except Exception:  # noqa: BLE001 - an unreadable object is pdfminer's to report, if it is used
                continue
            if not isinstance(obj, PDFStream) or obj.get("Subtype") == LIT("Image"):
                continue
            filters = obj.get_filters()
            if not filters or filters[0][0] not in flate or obj.rawdata is None:
                continue
            inflater = zlib.decompressobj()
            try:
                inflater.decompress(obj.rawdata, MAX_STREAM_BYTES)
            except zlib.error:
                continue  # pdfminer repairs or skips a corrupt stream itself
            if inflater.unconsumed_tail:
                raise ValueError(f"the PDF is over a safety limit, as a decompression bomb is (object {objid} "
                                 f"inflates to more than {MAX_STREAM_BYTES} bytes)")


def _glyphs(line: Any) -> str:
    """The characters of one pdfminer text line: each glyph's text (a glyph
    with no Unicode mapping as U+FFFD, a ligature as its letters) and the
    spaces pdfminer's layout put between words."""
    from pdfminer.layout import LTChar

    out = []
    for item in line:
        text = item.get_text()
        if isinstance(item, LTChar) and _CID.fullmatch(text):
            out.append("\ufffd")
        else:
            out.append("".join(LIGATURES.get(c, c) for c in text))
    return "".join(out)


def paragraph(lines: list[str]) -> str:
    """``lines`` (one text box's lines, in order) as one paragraph: joined
    by one space, a line-end hyphen joined with no space and kept, every
    ASCII whitespace run one space, no space at either end."""
    out = ""
    for line in lines:
        line = _RUN.sub(" ", line).strip(" ")
        if not line:
            continue
        if not out or out.endswith(_HYPHENS):
            out += line
        else:
            out += " " + line
    return out


def _writing_system(letter: str) -> str:
    """The writing system of ``letter`` as the first word of its Unicode name
    (``LATIN``, ``GREEK``, ``ARABIC``...), Chinese, Japanese and Korean as one
    (``CJK``: ideographs, kana, hangul and their full-width forms), and
    mathematical letters as Latin."""
    try:
        word = unicodedata.name(letter).split(" ", 1)[0]
    except ValueError:
        return "?"
    return _SYSTEMS.get(word, word)


def verdict(text: str) -> str:
    """The verdict on one page's ``text``: ``no text`` when it has no visible
    character; ``garbled`` when more than half of them are U+FFFD or of
    category Co (private use), Cc (control), Cn (unassigned) or Cs, or when
    at least :data:`MIXED_LETTERS` letters come from three or more writing
    systems with :data:`MIXED_SHARE` of them each (a font mapping its glyphs
    to the wrong characters scatters them over unrelated scripts: Greek,
    Arabic, Sinhala and Thai on one Japanese page); else ``usable``."""
    visible = [c for c in text if not c.isspace()]
    if not visible:
        return NO_TEXT
    bad = sum(1 for c in visible if c == "\ufffd" or unicodedata.category(c) in _UNREADABLE)
    if 2 * bad > len(visible):
        return GARBLED
    letters = [c for c in visible if c.isalpha()]
    if len(letters) >= MIXED_LETTERS:
        counts = Counter(_writing_system(c) for c in letters)
        if sum(1 for n in counts.values() if n >= MIXED_SHARE * len(letters)) >= 3:
            return GARBLED
    return USABLE


def _continues(above: Any, below: Any) -> bool:
    """True when text box ``below`` (next in reading order) goes on the
    paragraph of box ``above``: it starts within a line's spacing under it
    (:data:`LAYOUT` ``lineMargin`` line heights), in the left half of its
    width and not left of it by more than half a line height, in lines of
    about the same height. pdfminer.six starts a new box where a line's left
    edge moves, as the lines after a list item's bullet do."""
    lines_a = [line for line in above if hasattr(line, "height")]
    lines_b = [line for line in below if hasattr(line, "height")]
    if not lines_a or not lines_b:
        return False
    high_a, high_b = lines_a[-1].height, lines_b[0].height
    high = min(high_a, high_b)
    if high <= 0 or abs(high_a - high_b) > 0.25 * max(high_a, high_b):
        return False
    gap = above.y0 - below.y1
    return (-0.5 * high <= gap <= LAYOUT["lineMargin"] * high
            and above.x0 - 0.5 * high <= below.x0 <= (above.x0 + above.x1) / 2)


def _page_text(layout: Any) -> str:
    from pdfminer.layout import LTTextBox, LTTextLine

    paragraphs: list[list[str]] = []
    last = None
    for box in layout:
        if isinstance(box, LTTextBox):
            lines = [_glyphs(line) for line in box if isinstance(line, LTTextLine)]
            if last is not None and paragraphs and _continues(last, box):
                paragraphs[-1].extend(lines)
            else:
                paragraphs.append(lines)
            last = box
    return "\n".join(p for p in map(paragraph, paragraphs) if p)


#: What pdfminer.six raises on malformed input besides its own PSException family.
_READ_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError, AssertionError, OverflowError,
                ZeroDivisionError, UnicodeError, EOFError)


def _unreadable(exc: BaseException) -> ValueError:
    return ValueError(f"the PDF cannot be read ({type(exc).__name__}: {str(exc)[:200]})")


def extract(raw: bytes) -> tuple[str, str, dict]:
    """The text of the PDF ``raw`` (bytes), as the module docstring says.

    Returns:
        (text, pdfminer.six's version, options): the options hold
        :data:`LAYOUT`, :data:`WRITING` and the ``pages`` map.

    Raises:
        ValueError: the PDF cannot be read, is encrypted with a password, or
            has no usable page (the message says which pages and why).
    """
    from importlib.metadata import version

    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument, PDFPasswordIncorrect
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser
    from pdfminer.psparser import PSException

    params = LAParams(line_margin=LAYOUT["lineMargin"], word_margin=LAYOUT["wordMargin"],
                      char_margin=LAYOUT["charMargin"], line_overlap=LAYOUT["lineOverlap"],
                      boxes_flow=LAYOUT["boxesFlow"])
    texts: list[str] = []
    labels: list[str | None] = []
    try:
        document = PDFDocument(PDFParser(io.BytesIO(raw)))
    except PDFPasswordIncorrect:
        raise ValueError("the PDF is encrypted with a password; capture an unencrypted copy") from None
    except (PSException, *_READ_ERRORS) as exc:
        raise _unreadable(exc) from None
    _refuse_bombs(document)
    try:
        resources = PDFResourceManager(caching=True)
        device = PDFPageAggregator(resources, laparams=params)
        interpreter = PDFPageInterpreter(resources, device)
        for page in PDFPage.create_pages(document):
            interpreter.process_page(page)
            texts.append(_page_text(device.get_result()).replace("\f", " "))
            labels.append(page.label if isinstance(page.label, str) else None)
    except PDFPasswordIncorrect:
        raise ValueError("the PDF is encrypted with a password; capture an unencrypted copy") from None
    except (PSException, *_READ_ERRORS) as exc:
        raise _unreadable(exc) from None
    pages = []
    at = 0
    for text, label in zip(texts, labels, strict=True):
        pages.append({"start": at, "label": label, "verdict": verdict(text)})
        at += len(text) + 1
    if not any(p["verdict"] == USABLE for p in pages):
        raise ValueError(no_usable_page(pages))
    options = {**LAYOUT, "writing": WRITING, "pageSeparator": "\f", "ligatures": "letters",
               "unmappedGlyph": "\ufffd", "pages": pages}
    return "\f".join(texts), version("pdfminer.six"), options


def no_usable_page(pages: list[dict], extractor: str = "pdf-text") -> str:
    """Why a document whose ``pages`` (page map entries with a ``verdict``)
    hold no usable page is refused by ``extractor``."""
    if not pages:
        return "the PDF has no pages; there is nothing to cite"
    empty = sum(p["verdict"] == NO_TEXT for p in pages)
    garbled = len(pages) - empty
    which = (("the page has no text layer" if empty else "the page's text layer is garbled") if len(pages) == 1
             else f"none of its {len(pages)} pages has a usable text layer ({empty} without text, {garbled} garbled)")
    why = ("a scanned PDF needs OCR, which citelint does not do" if not garbled else
           "a garbled text layer maps glyphs to the wrong characters" + ("; the pdf-text extractor may read it"
                                                                           if extractor != "pdf-text" else
                                                                           ", and OCR is not citelint's business"))
    return f"the {extractor} extractor found no text to cite: {which}; {why}"


def unusable_pages(pages: list[dict]) -> str:
    """What ``capture`` says of the pages of a recorded page map that have no
    usable text layer, or "" when every page has one: ``page 3 has no
    usable text layer: it needs OCR, which citelint does not do`` (pages are
    numbered from 1, with their printed label where it differs)."""
    bad = [(i, p) for i, p in enumerate(pages, start=1) if p.get("verdict") != USABLE]
    if not bad:
        return ""
    shown = []
    for i, p in bad[:10]:
        label = p.get("label")
        shown.append(f"{i}" + (f" (printed {label})" if label and label != str(i) else "") + f" ({p.get('verdict')})")
    more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
    return (f"page{'s' if len(bad) > 1 else ''} {', '.join(shown)}{more} "
            f"ha{'ve' if len(bad) > 1 else 's'} no usable text layer: "
            f"{'they need' if len(bad) > 1 else 'it needs'} OCR, which citelint does not do; "
            "nothing on them can be cited")
