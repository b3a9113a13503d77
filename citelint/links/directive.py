"""URL text directives: the quotation form of a Markdown link (DESIGN §9).

A text directive is the part of a URL's fragment after ``:~:`` that names a
passage of the page, as browsers use it to scroll to and highlight the
passage: ``#:~:text=[prefix-,]start[,end][,-suffix]``, several joined by
``&``. Syntax and parsing follow the URL Fragment Text Directive
specification (WICG, "Syntax" and "parse a text directive"): terms are
percent-encoded UTF-8, and ``-``, ``,`` and ``&`` inside a term must be
percent-encoded. Matching is citelint's, stricter than a browser's: see
:mod:`citelint.links.quote`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from citelint.escape import quoted

#: Separates a fragment from its directives (spec: "fragment directive delimiter").
DELIMITER = ":~:"


class DirectiveError(ValueError):
    """A text directive that does not parse; ``str()`` says why, for a CL202 message."""


@dataclass(frozen=True)
class TextDirective:
    """One parsed text directive: the decoded terms (``end``, ``prefix`` and
    ``suffix`` may be None). ``written`` is the directive as it appeared,
    still percent-encoded, without ``text=``."""

    start: str
    end: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    written: str = ""


def directive_part(url: str) -> str | None:
    """The fragment directive of ``url`` (what follows the first ``:~:`` of its
    fragment), or None when the URL has none."""
    hash_at = url.find("#")
    if hash_at < 0:
        return None
    at = url.find(DELIMITER, hash_at + 1)
    return None if at < 0 else url[at + len(DELIMITER):]


def strip_directive(url: str) -> str:
    """``url`` without its fragment directive (and without a ``#`` left empty by
    removing it): the URL a browser loads and identity compares."""
    hash_at = url.find("#")
    if hash_at < 0:
        return url
    at = url.find(DELIMITER, hash_at + 1)
    if at < 0:
        return url
    return url[:at] if at > hash_at + 1 else url[:hash_at]


def _decode(term: str, what: str) -> str:
    try:
        return unquote(term, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise DirectiveError(f"the {what} term {term[:60]!r} is not percent-encoded UTF-8") from None


def parse_text_directive(value: str) -> TextDirective:
    """Parse the value of one ``text=`` directive (``value`` excludes ``text=``).

    Returns:
        The decoded :class:`TextDirective`.

    Raises:
        DirectiveError: empty terms, more than four terms, a prefix or suffix
            with nothing else, not one or two middle terms, or a term that is
            not percent-encoded UTF-8 (spec: "parse a text directive").
    """
    tokens = value.split(",")
    if not value or len(tokens) > 4:
        raise DirectiveError("a text directive has one to four comma-separated terms: "
                             "[prefix-,]start[,end][,-suffix]")
    if any(t == "" for t in tokens):
        raise DirectiveError("a text directive has an empty term (two commas in a row, or one at an end); "
                             "percent-encode a comma inside a term as %2C")
    prefix = suffix = None
    if tokens[0].endswith("-"):
        prefix = _decode(tokens.pop(0)[:-1], "prefix")
        if not prefix or not tokens:
            raise DirectiveError("a prefix (a term ending in '-') needs a start term after it")
    if tokens and tokens[-1].startswith("-"):
        suffix = _decode(tokens.pop()[1:], "suffix")
        if not suffix or not tokens:
            raise DirectiveError("a suffix (a term starting with '-') needs a start term before it")
    if len(tokens) not in (1, 2):
        raise DirectiveError("a text directive has a start and at most one end between its prefix and "
                             "suffix; percent-encode a comma inside a term as %2C")
    start = _decode(tokens[0], "start")
    end = _decode(tokens[1], "end") if len(tokens) == 2 else None
    return TextDirective(start=start, end=end, prefix=prefix, suffix=suffix, written=value)


def parse_directives(directive: str) -> list[TextDirective]:
    """Every text directive of a fragment directive (the part after ``:~:``).

    Directives are ``&``-separated; those that are not ``text=`` are ignored,
    as a browser ignores directives it does not know.

    Raises:
        DirectiveError: a ``text=`` directive that does not parse, or a
            fragment directive with no ``text=`` directive at all.
    """
    found = [parse_text_directive(part[5:]) for part in directive.split("&") if part.startswith("text=")]
    if not found:
        raise DirectiveError("the fragment directive ':~:' holds no 'text=' directive")
    return found


def _encode(term: str) -> str:
    # quote() leaves '-' alone; in a term it would mark a prefix or suffix.
    return quote(term, safe="", encoding="utf-8", errors="strict").replace("-", "%2D")


def format_text_directive(start: str, end: str | None = None, *, prefix: str | None = None,
                          suffix: str | None = None) -> str:
    """The fragment ``:~:text=…`` (without ``#``) quoting ``start`` (and ``end``,
    ``prefix``, ``suffix`` when given), every term percent-encoded so that it
    parses back to exactly these strings and is safe in a Markdown link
    destination (no space, parenthesis, angle bracket or backslash left).

    Raises:
        ValueError: an empty term, or a term with lone surrogates.
    """
    terms = [t for t in (prefix, start, end, suffix) if t is not None]
    if any(t == "" for t in terms):
        raise ValueError("text directive terms must not be empty")
    out = ([f"{_encode(prefix)}-"] if prefix is not None else []) + [_encode(start)]
    out += [_encode(end)] if end is not None else []
    out += [f"-{_encode(suffix)}"] if suffix is not None else []
    return DELIMITER + "text=" + ",".join(out)


# --------------------------------------------------------------------------- the quotation's title

#: The link title word naming the revision a quotation quotes: ``capture:<64 lowercase hex>``.
CAPTURE_WORD = "capture:"
#: The link title word naming the pages of a PDF capture a quotation is on: ``pages:3`` or ``pages:3-4``.
PAGES_WORD = "pages:"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_PAGES = re.compile(r"([1-9][0-9]{0,5})(?:-([1-9][0-9]{0,5}))?")


@dataclass(frozen=True)
class QuotationTitle:
    """What a quotation link's title claims: the ``revision`` it quotes (a
    sha256, or None) and the ``pages`` of that capture it is on (first, last;
    1-based, inclusive; or None)."""

    revision: str | None = None
    pages: tuple[int, int] | None = None


def parse_quotation_title(title: str | None) -> QuotationTitle:
    """The claims of a quotation link's ``title`` (None: the link has none).

    The grammar, the one place it is written: a title that starts with
    ``capture:`` or ``pages:`` is words separated by one space,
    ``capture:<64 lowercase hex>`` and ``pages:<first>[-<last>]`` (page
    numbers from 1, ``last`` not below ``first``), each at most once, in
    that order, e.g. ``capture:<sha256> pages:3-4``. Any other title claims
    nothing (a title for readers).

    Raises:
        DirectiveError: a title starting with one of the words that does not
            follow the grammar (the message says how to write it; CL202).
    """
    if title is None or not title.startswith((CAPTURE_WORD, PAGES_WORD)):
        return QuotationTitle()
    words = title.split(" ")
    revision = pages = None
    if words[0].startswith(CAPTURE_WORD):
        revision = words.pop(0)[len(CAPTURE_WORD):]
        if _HEX64.fullmatch(revision) is None:
            raise DirectiveError(f"the link title {quoted(title, 90)} names no revision: write "
                                 "capture:<sha256> with the capture's 64 lowercase hex digits")
    if words and words[0].startswith(PAGES_WORD):
        m = _PAGES.fullmatch(words.pop(0)[len(PAGES_WORD):])
        if m is None or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise DirectiveError(f"the link title {quoted(title, 90)} names no pages: write pages:3 or "
                                 "pages:3-4 (page numbers from 1, as the PDF counts its pages)")
        first = int(m.group(1))
        pages = (first, int(m.group(2) or first))
    if words:
        raise DirectiveError(f"the link title {quoted(title, 90)} holds more than capture:<sha256> and "
                             "pages:<first>-<last>, separated by one space")
    return QuotationTitle(revision, pages)


def format_quotation_title(revision: str | None, pages: tuple[int, int] | None = None) -> str | None:
    """The title :func:`parse_quotation_title` reads back as ``revision`` and
    ``pages`` (``capture:<sha256> pages:3-4``), or None when both are None."""
    words = [f"{CAPTURE_WORD}{revision}"] if revision is not None else []
    if pages is not None:
        words.append(f"{PAGES_WORD}{pages[0]}" + (f"-{pages[1]}" if pages[1] != pages[0] else ""))
    return " ".join(words) or None
