"""The one place untrusted text is made safe for each output.

Snippets, sources, file names, capture fields and server responses are
written by people citelint does not trust. Each output reads a different
grammar, so each has its own escaper here, and every formatter and command
uses these rather than writing its own:

- :func:`terminal` for text printed to a terminal or log (control, C1 and
  bidi characters would rewrite what a reader sees);
- :func:`quoted` for a short quotation of a server's or URL's text inside a
  message (ASCII only, length bounded);
- :func:`workflow_data` and :func:`workflow_property` for GitHub Actions
  workflow commands;
- :func:`markdown_cell` and :func:`code_span` for GitHub-flavoured Markdown;
- :func:`html_text` for HTML text and attribute values.

It also says what a reader can see at all (:func:`is_invisible`), the one
test of "visible" that the excerpt rules (CL108), label patterns and prose
quotations share.

Nothing here imports beyond the standard library.
"""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls (tab and newline included, handled first), DEL, and the
# bidirectional marks, embeddings, overrides and isolates (CVE-2021-42574,
# "Trojan Source").
# U+061C ARABIC LETTER MARK is a bidi mark too (Unicode UAX #9).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal(text: str) -> str:
    """``text`` with control, C1 and bidi characters replaced by visible
    ``\\uXXXX`` escapes; tab and newline become ``\\t`` and ``\\n``.

    Args:
        text: any string.
    Returns:
        A string that cannot move the cursor, change colours or reorder
        what a terminal shows.
    """
    text = text.replace("\t", "\\t").replace("\n", "\\n")
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def quoted(value: str, limit: int = 200) -> str:
    """``value`` in single quotes for a message, printable ASCII only.

    Every other character (controls, non-ASCII, the backslash) is shown as a
    Python escape, so neither terminal escapes nor workflow commands
    survive, and the value is cut after ``limit`` code points with ``...``.
    """
    out = []
    for ch in value[:limit]:
        if ch == "\\":
            out.append("\\\\")
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "'" + "".join(out) + "'" + ("..." if len(value) > limit else "")


def workflow_data(value: str) -> str:
    """Escape the message of a GitHub Actions workflow command.

    The runner's own rules (actions/toolkit ``command.ts``): ``%``, CR and
    LF, which the runner turns back into the characters (so a file property
    still names its file); then every other control and bidi character is
    made visible as by :func:`terminal`, since the runner passes those
    through to a log read in a terminal-like view.
    """
    escaped = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped)


def workflow_property(value: str) -> str:
    """Escape a workflow-command property value: the message rules plus ``:`` and ``,``."""
    return workflow_data(value).replace(":", "%3A").replace(",", "%2C")


#: A lone surrogate: what a file name that is not UTF-8 decodes to (``os.fsdecode``'s
#: surrogateescape). UTF-8 cannot write one, so a Markdown or HTML file shows it as ``\\udcXX``.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _shown_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def markdown_cell(text: str) -> str:
    """``text`` as literal GitHub-flavoured Markdown, safe in a table cell.

    HTML, pipes, backticks, emphasis, link and image syntax are escaped, so
    no untrusted text renders as markup, a link or an image; newlines become
    spaces, and other control and bidi characters visible ``\\uXXXX``
    escapes. ``:``, ``.`` and ``@`` are escaped too, or GitHub's autolinker
    would turn a URL in a message (often the very link citelint rejected)
    into a live link.
    """
    # Controls and bidi marks first, made visible as ``\\uXXXX`` (whose
    # backslash the loop below then escapes), so a rendered summary shows them.
    text = _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("\r", " ").replace("\n", " "))
    text = _shown_surrogates(text)
    for ch in "\\|`*_[]()!#~:.@":
        text = text.replace(ch, "\\" + ch)
    # After the backslashes, so an entity's own "#" is not escaped into text.
    from html import escape  # html pulls in its entity table: loaded by the Markdown formats only

    text = escape(text, quote=False)
    return text.replace("\r", " ").replace("\n", " ")


def code_span(text: str, before: str = "", after: str = "") -> str:
    """``text`` as a Markdown inline code span: shown literally, never linked.

    The fence is longer than any backtick run in ``text`` (CommonMark §6.1).
    ``before`` and ``after`` are the characters that will stand right
    outside the span: a backtick there would merge with the fence into a
    longer run, so a space is put between them. A lone surrogate (a file
    name that is not UTF-8) is shown as its ``\\uXXXX`` escape.
    """
    text = _shown_surrogates(text)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    lead = " " if before == "`" else ""
    trail = " " if after == "`" else ""
    return f"{lead}{fence}{pad}{text}{pad}{fence}{trail}"


# The controls html_text shows: _UNSAFE without tab and newline, which HTML
# text may keep (a snippet's line breaks are part of the quotation).
_HTML_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def html_text(text: str) -> str:
    """``text`` as HTML character data or a quoted attribute value.

    ``& < > " '`` become character references (HTML Living Standard
    §13.1.4, so no tag, entity or attribute can be written), and control,
    C1 and bidi characters (CVE-2021-42574) are shown as visible
    ``\\uXXXX`` escapes, as by :func:`terminal`; tab and newline are kept.
    """
    from html import escape

    return escape(_shown_surrogates(_HTML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)), quote=True)


#: Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt) is
#: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector, minus
#: White_Space and a few visible format marks. The Cf and unassigned (Cn) parts
#: are read from the Unicode data Python ships (unicodedata.category); what
#: remains are the assigned letters and marks below, which render as nothing:
#: U+034F combining grapheme joiner, U+115F..U+1160 and U+3164, U+FFA0 Hangul
#: fillers, U+17B4..U+17B5 Khmer inherent vowels, U+180B..U+180D, U+180F
#: Mongolian free variation selectors, and the variation selectors
#: U+FE00..U+FE0F, U+E0100..U+E01EF. The reserved ranges of the property
#: (U+2065, U+FFF0..U+FFF8, U+E0000..U+E0FFF) are listed too, so a character
#: assigned there by a later Unicode than Python's stays invisible.
#: U+2800 BRAILLE PATTERN BLANK is not default-ignorable but renders as blank space.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
    (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),
)
_IGNORABLE = re.compile("[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _IGNORABLE_RANGES) + "]")
#: Categories never visible: controls, format characters, unassigned code
#: points (a later Unicode may make them anything, and nothing renders them
#: now), lone surrogates, and space separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Cs", "Zs", "Zl", "Zp"})
#: A printable ASCII character other than space: visible by every test below,
#: and in nearly every excerpt, so most are decided by one C search.
_VISIBLE_ASCII = re.compile(r"[!-~]")


def is_invisible_char(c: str) -> bool:
    """True when the one character ``c`` is invisible in the sense of :func:`is_invisible`."""
    return (c.isspace() or unicodedata.category(c) in _INVISIBLE_CATEGORIES
            or _IGNORABLE.match(c) is not None)


def count_visible(text: str) -> int:
    """How many characters of ``text`` are visible: not :func:`is_invisible_char`. Never raises."""
    joined = "".join(text.split())  # whitespace is invisible (str.split splits where isspace())
    # A printable character is in no category above (isprintable is False for every C* and Z*
    # category): only the ignorable ranges can hide it.
    if joined.isprintable() and (joined.isascii() or _IGNORABLE.search(joined) is None):
        return len(joined)
    return sum(1 for c in joined if not is_invisible_char(c))


def is_invisible(text: str) -> bool:
    """True when ``text`` has no visible character (rule CL108).

    Invisible: whitespace (including no-break spaces), controls, format
    characters (category Cf: zero-width characters, soft hyphen, bidi
    controls, tags), unassigned code points (category Cn), and every other
    Unicode Default_Ignorable_Code_Point (variation selectors, Hangul
    fillers, the combining grapheme joiner...). Such an excerpt matches text
    nobody can read, so it can never be evidence; a label pattern's ``*``
    matches only visible characters. Never raises.
    """
    if _VISIBLE_ASCII.search(text):
        return False
    return all(map(is_invisible_char, text))


def visible_repr(text: str) -> str:
    """``repr(text)`` with every invisible character (:func:`is_invisible_char`)
    and combining mark written as a ``\\uXXXX`` escape.

    For a name quoted in a message whose point is a difference nobody can
    see: ``'claim-1\\u17b4'`` against ``'claim-1'``, ``'claim-e\\u0301'``
    against ``'claim-\u00e9'``. Visible letters of any script are kept.
    """
    shown = repr(text)
    if shown.isascii():
        return shown
    return "".join(c if c.isascii() or not (is_invisible_char(c) or unicodedata.category(c)[0] == "M")
                   else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in shown)


def is_variation_selector(c: str) -> bool:
    """True for U+FE00–U+FE0F and U+E0100–U+E01EF (Unicode §23.4 variation selectors)."""
    return "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef"
