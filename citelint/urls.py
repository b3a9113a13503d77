"""Canonical URL identity and link classification (DESIGN §2.4).

Two strings name the same source when their :func:`identity` is equal. The
identity is a comparison key, never a rewrite of the document: it is built on
a WHATWG URL parser (``ada-url``, the parser browsers agree with) and then
normalises only what does not change which resource is meant:

0. the HTML escaping a page or feed adds to a URL it serialises (``&amp;``,
   ``&lt;``, ``&gt;``, ``&quot;``, ``&apos;``, ``&#39;``) is undone;
1. the renderer's href escaping (cmark percent-encodes ``[ ] | ^ { }`` and
   friends, leaving ``/ ? # & = +`` and ``%`` alone), applied to both sides so
   that a link copied from a source is the same identity as the source;
2. malformed percent escapes (``/50%off``) make a URL *unvouchable* (``None``);
3. WHATWG parsing (host lower-casing, IDNA, default ports, dot segments);
4. percent-escapes of unreserved characters decoded (``%7e`` → ``~``), every
   other escape upper-cased (``%2f`` → ``%2F``, which stays distinct from ``/``);
5. ``http`` → ``https``; the fragment dropped; trailing slashes of a non-root
   path dropped.

Host, port, userinfo, path case, query presence, order and spelling stay
strict: ``/docs`` and ``/doc`` are different sources, as are ``example.com``
and ``www.example.com``, ``+`` and ``%20``.

This module imports no network library; it only compares strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import quote

__all__ = [
    "href_escape",
    "parse",
    "URLComponents",
    "components",
    "analyse",
    "identity",
    "classify",
    "unvouchable_reason",
    "CJK_TERMINATORS",
]

#: Characters that end a bare URL for the grounding decision (seed 002,
#: DESIGN §2.4). GitHub's autolinker keeps them inside the rendered link.
CJK_TERMINATORS = frozenset("，。；：！？、〈〉）")

# cmark-gfm's houdini_escape_href leaves ASCII letters, digits and exactly
# these characters alone and percent-encodes every other byte of the UTF-8
# encoding (``_.-~`` are always safe for urllib.parse.quote). tests/test_urls.py
# checks this set against cmark's own output, so a cmark change is noticed.
_HREF_SAFE = "!#$%&'()*+,/:;=?@"
_HREF_NEEDS_ESCAPE = re.compile(r"[^A-Za-z0-9!#$%&'()*+,\-./:;=?@_~]")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# WHATWG strips leading/trailing C0 controls and spaces and removes every
# ASCII tab and newline before it parses; classification must see the scheme
# the browser sees (``java\tscript:`` is ``javascript:``).
_C0_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = re.compile(r"[\t\n\r]")
# A base no real document lives at: a link that resolves to this origin is
# site-relative. ``https`` because GitHub serves every rendered report over it,
# which decides how scheme-relative oddities such as ``https:x`` resolve.
_BASE = "https://relative.citelint.invalid/owner/repo/blob/main/report.md"
_BASE_ORIGIN = "https://relative.citelint.invalid"


# The escapes an HTML serialiser writes into an attribute or text: a URL
# copied from a page's source or a feed often carries them (seed 002's fifth
# equivalence, "?x=1&amp;y=2" is "?x=1&y=2"). Only these, not every HTML
# entity: decoding is for undoing that escaping, not for reading HTML.
HTML_ESCAPED = re.compile(r"&(?:amp|lt|gt|quot|apos|#39|#x27|#X27);", re.IGNORECASE)
_HTML_UNESCAPE = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'", "#39": "'", "#x27": "'"}


def _unescape_html(match: re.Match[str]) -> str:
    return _HTML_UNESCAPE[match.group(0)[1:-1].lower()]


def href_escape(url: str) -> str:
    """Apply cmark-gfm's href escaping to ``url`` and return the result.

    Bytes outside ASCII letters, digits and ``-_.~!#$%&'()*+,/:;=?@`` are
    percent-encoded as UTF-8 (``[`` → ``%5B``, ``é`` → ``%C3%A9``); ``%`` is
    left alone, so the function is idempotent. Raises ``UnicodeEncodeError``
    only for lone surrogates, which no decoded UTF-8 text contains.
    """
    if _HREF_NEEDS_ESCAPE.search(url) is None:
        return url
    return quote(url, safe=_HREF_SAFE)


def _normalise_percent(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def _href_parser() -> Callable[[str], str | None]:
    """ada-url's WHATWG parser as href-or-None, imported on first use: a
    Markdown report whose links are all spelled as their sources are is
    decided without parsing a URL, and its check skips the import."""
    import ada_url

    try:
        # ada-url's public helpers wrap each call in a Python dict of every URL
        # component (7.7 µs a URL here); its cffi binding returns the href alone
        # in 2.6 µs, which decides whether link governance keeps up with the
        # npm peer (bench/README.md). tests/test_urls.py checks that both paths
        # agree on every WHATWG test case, and the public API stays the fallback.
        from ada_url._ada_wrapper import ffi, lib
    except (ImportError, AttributeError):  # pragma: no cover - depends on ada-url's layout
        def public(url: str) -> str | None:
            try:
                return ada_url.normalize_url(url)
            except ValueError:
                return None
        return public

    def href_of(url: str) -> str | None:
        data = url.encode("utf-8")
        handle = lib.ada_parse(data, len(data))
        try:
            if not lib.ada_is_valid(handle):
                return None
            href = lib.ada_get_href(handle)
            return ffi.unpack(href.data, href.length).decode("utf-8")
        finally:
            lib.ada_free(handle)
    return href_of


def _first_href(url: str) -> str | None:
    global _ada_href
    _ada_href = _href_parser()
    return _ada_href(url)


#: The WHATWG href of a URL, or None; :func:`_first_href` puts ada-url's parser here on first use.
_ada_href: Callable[[str], str | None] = _first_href


def parse(url: str, base: str | None = None) -> str | None:
    """WHATWG-parse ``url`` (against ``base`` when given) with ada-url.

    Returns the serialised href (e.g. ``"http://ex.com/a?b#c"``), or ``None``
    when the WHATWG URL standard says parsing fails (including text that is
    not encodable as UTF-8). No escaping or identity rules are applied here;
    this is the parser the rest is built on.
    """
    if base is None:
        try:
            return _ada_href(url)
        except UnicodeEncodeError:
            return None
    import ada_url

    try:
        return ada_url.join_url(base, url)
    except ValueError:
        return None


class URLComponents(NamedTuple):
    """The parts of a WHATWG-parsed URL that a request is built from.

    ``scheme`` has no colon (``"https"``); ``username`` and ``password`` are
    the userinfo (``""`` when absent; the parser drops an empty one, so look
    at the string as written too); ``hostname`` is the serialised host,
    brackets and all for IPv6 (``"[::1]"``, ``"127.0.0.1"`` for
    ``0x7f.1``, punycode for a Unicode name; ``""`` for none); ``host`` is
    ``hostname`` plus ``:port`` when a non-default port is written (the
    ``Host`` header value); ``port`` is that port, or None for the scheme's
    default; ``target`` is the path and query exactly as the serialiser
    wrote them (an empty query ``?`` included), without the fragment.
    """

    scheme: str
    username: str
    password: str
    hostname: str
    host: str
    port: int | None
    target: str


def components(url: str) -> URLComponents | None:
    """WHATWG-parse the absolute ``url`` into its request parts.

    Returns None when parsing fails (including text that is not encodable as
    UTF-8). Unlike :func:`identity`, nothing is normalised beyond what the
    WHATWG parser itself does.
    """
    import ada_url

    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return None
    origin = f"{parsed.protocol}//{parsed.host}"
    href = parsed.href
    # The search attribute cannot show an empty query ("?"), the href can.
    target = (href[len(origin):] if href.startswith(origin)
              else parsed.pathname + parsed.search).split("#", 1)[0]
    return URLComponents(scheme=parsed.protocol.rstrip(":"), username=parsed.username,
                         password=parsed.password, hostname=parsed.hostname, host=parsed.host,
                         port=int(parsed.port) if parsed.port else None, target=target)


def _identity_of_escaped(s: str) -> str | None:
    """Identity of an href-escaped, stripped absolute http(s) URL (steps 2-5)."""
    if "%" in s and _BAD_PERCENT.search(s):
        return None
    href = _ada_href(s)
    if href is None:
        return None
    if "#" not in href and "%" not in href and "?" not in href and href[-1] != "/":
        # the common case: nothing left to normalise but the scheme
        return href if href.startswith("https://") else "https://" + href[7:]
    if href.startswith("https://"):
        rest = href[8:]
    elif href.startswith("http://"):
        rest = href[7:]
    else:  # ada keeps the scheme it was given; a guard costs nothing
        return None
    if "#" in rest:
        rest = rest[:rest.index("#")]
    # ada serialises special URLs as authority + "/"-path + optional "?query";
    # neither "/" nor "?" can stay un-escaped in the authority.
    slash = rest.find("/")
    authority, rest = rest[:slash], rest[slash:]
    path, qmark, query = rest.partition("?")
    if "%" in path:
        path = _PERCENT.sub(_normalise_percent, path)
    if "%" in query:
        query = _PERCENT.sub(_normalise_percent, query)
    if len(path) > 1 and path[-1] == "/":
        path = path.rstrip("/") or "/"
    return "https://" + authority + path + qmark + query


# A spelling whose identity needs no parser: lower-case "http" or "https"; a
# host of non-empty labels of lower-case ASCII letters, digits and "-", none
# starting "xn--" (punycode is validated), the last starting with a letter
# (no IPv4 or "ends in a number" parsing), and no port or userinfo; then path,
# query and fragment in characters that neither cmark's href escaping nor the
# WHATWG serialiser changes ("'" is percent-encoded in the query of a special
# URL), with no "%" at all and no path segment starting with "." (dot segments).
# Possessive quantifiers (a third faster here) change no answer: each part's
# characters exclude the character that starts the part after it ("." after
# a label, "/" after a segment, "?" after the path, "#" after the query).
CANONICAL = re.compile(
    r"https?://((?:(?!xn--)[a-z0-9\-]++\.)*(?!xn--)[a-z][a-z0-9\-]*+)"
    r"((?:/(?!\.)[A-Za-z0-9\-._~!$&'()*+,;=:@]*+)*+)"
    r"(\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*+)?"
    r"(?:#[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]*+)?")
# Canonical spellings joined by "\n" (which none can hold): one call for a list.
_CANONICAL_LINES = re.compile(f"(?:{CANONICAL.pattern})(?:\n(?:{CANONICAL.pattern}))*+")


def all_canonical(spellings: list[str]) -> bool:
    """True when every string of the non-empty ``spellings`` fullmatches :data:`CANONICAL`.

    One regular-expression call for the whole list, not one per string: a
    third of the time for an allowlist of canonical sources.
    """
    joined = "\n".join(spellings)
    # a "\n" inside a spelling could pass for a separator
    return joined.count("\n") == len(spellings) - 1 and _CANONICAL_LINES.fullmatch(joined) is not None


def quick_identity(href: str) -> str | None:
    """Identity of ``href`` when its spelling needs no parser, else None ("ask the parser").

    The spelling is decided by one regular expression (:data:`CANONICAL`,
    so ``CANONICAL.fullmatch(href)`` says whether this returns a string);
    what remains of the identity rules is the scheme and trailing slashes.
    A non-None result is exactly what :func:`analyse` computes through
    ada-url (tests/test_urls.py checks this on the WHATWG corpus, every URL
    of the README corpus and generated spellings on both sides of each rule)
    at a fifth of the cost. Never raises.
    """
    m = CANONICAL.fullmatch(href)
    if m is None:
        return None
    host, path, query = m.groups()
    if not path:
        path = "/"
    elif len(path) > 1 and path[-1] == "/":
        path = path.rstrip("/") or "/"
    return "https://" + host + path + query if query is not None else "https://" + host + path


@functools.lru_cache(maxsize=131072)
def analyse(href: str) -> tuple[str, str | None]:
    """Classify ``href`` and compute its identity in one step (cached per distinct href).

    Returns ``(category, identity)``: ``category`` as :func:`classify`
    describes; ``identity`` is the canonical identity of the absolute URL
    the href stands for when the category is ``"governed"`` (``www.x`` is
    ``http://www.x``, ``//x`` is ``https://x``), else ``None``. Never raises.
    """
    ident = quick_identity(href)
    if ident is not None:
        return "governed", ident
    if href[:1] == "#" and href.isascii():
        return "pass", None  # a fragment of this page, as _analyse finds (ASCII: nothing to encode)
    if _QUICK_RELATIVE.fullmatch(href) is not None:
        return "relative", None
    return _analyse(href)


# A site-relative spelling that needs no parser: printable ASCII without
# spaces (nothing to strip, drop or encode), no scheme, not "www.", and not
# starting "//", "/\\" or "\\", the spellings a browser reads as another
# host. Resolved against any page, such a reference keeps the page's origin
# (WHATWG: only the authority states can leave it, and no later state fails).
_QUICK_RELATIVE = re.compile(r"(?![A-Za-z][A-Za-z0-9+.\-]*:|[wW][wW][wW]\.)(?:[!-\"$-.0-\[\]-~]|/(?![/\\]))[!-~]*")


def _analyse(href: str) -> tuple[str, str | None]:
    """:func:`analyse` through the WHATWG parser, for every spelling (uncached)."""
    try:
        s = href.strip(_C0_SPACE)
        esc = quote(s, safe=_HREF_SAFE) if _HREF_NEEDS_ESCAPE.search(s) is not None else s
    except UnicodeEncodeError:
        return "malformed", None
    low = s[:8].lower()
    if low.startswith("http://") or low.startswith("https://"):
        ident = _identity_of_escaped(esc)
        return ("governed", ident) if ident is not None else ("malformed", None)
    if s.startswith("#"):
        return "pass", None
    if low.startswith("www."):
        ident = _identity_of_escaped("http://" + esc)
        return ("governed", ident) if ident is not None else ("malformed", None)
    # Where the link leads is decided on the string as written, the way a
    # browser reads a raw HTML href (tabs and newlines dropped, "\\" read as
    # "/"): for a Markdown link cmark would escape those first and make it
    # site-relative, so this errs towards governing.
    bare = _TAB_NEWLINE.sub("", s)
    scheme = _SCHEME.match(bare)
    if scheme is not None:
        name = scheme.group(0)[:-1].lower()
        if name in ("mailto", "tel"):
            return "pass", None
        if name not in ("http", "https"):
            return ("disallowed" if parse(bare) is not None else "malformed"), None
    joined = parse(bare, _BASE)
    if joined is None:
        return "malformed", None
    if joined.startswith(_BASE_ORIGIN + "/"):
        return "relative", None
    if joined.startswith(("http://", "https://")):
        ident = _identity_of_escaped(href_escape(joined))
        return ("governed", ident) if ident is not None else ("malformed", None)
    return "disallowed", None


def identity(url: str) -> str | None:
    """Canonical identity of an http(s) URL, or ``None`` when it is unvouchable.

    ``url`` is a destination as the renderer resolved it (entities decoded,
    backslash escapes removed) or an approved source string. ``www.``-prefixed
    strings are read as ``http://www.…`` (the GFM autolinker does the same),
    protocol-relative ``//host/…`` as ``https://host/…``, and any other
    spelling that a browser on an https page resolves to another host
    (a leading double backslash, for one) as that URL.

    Returns a string such as ``"https://ex.com/~user?q=1"``. Returns ``None``
    for a malformed percent escape, a WHATWG parse failure, any scheme other
    than http/https (``mailto:``, ``javascript:``), or a relative reference:
    callers must treat ``None`` as *ungrounded*, never as "no opinion".
    Never raises.
    """
    return analyse(url)[1]


def source_identity(source: str) -> str | None:
    """Identity of an approved source string (or ``links.allow`` entry) as written.

    A URL copied from a page's HTML source or a feed often keeps the
    serialiser's escapes (``?x=1&amp;y=2``); seed 002's fifth equivalence
    reads it as ``?x=1&y=2``. Only source strings get this: a rendered link
    destination has had its entities decoded by the renderer already, and
    decoding it again would turn ``&amp;amp;`` (a link to ``&amp;``) into a
    different URL. Returns None when the source is unvouchable.
    """
    if "&" in source:
        source = HTML_ESCAPED.sub(_unescape_html, source)
    return analyse(source)[1]


def classify(href: str) -> str:
    """Say how a link destination is governed (DESIGN §2.4).

    ``href`` is the destination as the renderer resolved it. Returns one of:

    - ``"governed"``: an absolute http(s) URL, protocol-relative ``//host``
      (or any other spelling a browser resolves to another host, such as
      ``\\\\host``), or a ``www.`` link; it must be grounded;
    - ``"pass"``: ``mailto:``, ``tel:`` or a fragment-only ``#…`` link;
    - ``"relative"``: a site-relative link (``docs/x.md``, ``/x``, ``?q``, ``""``);
    - ``"disallowed"``: any other scheme (``javascript:``, ``data:``,
      ``file:``, ``ftp:``);
    - ``"malformed"``: not a URL a browser would follow as written (WHATWG
      parse failure) or a governed URL with a malformed percent escape.

    Never raises.
    """
    return analyse(href)[0]


def clear_caches() -> None:
    """Forget cached analyses (benchmarks call this between repeats)."""
    analyse.cache_clear()


def unvouchable_reason(href: str) -> str | None:
    """Why ``href`` cannot be vouched for, as a short phrase, or ``None``.

    ``None`` means :func:`classify` says ``governed``, ``pass`` or ``relative``.
    Otherwise the phrase names the scheme or the malformation, e.g.
    ``"scheme 'javascript:' is not allowed"`` or
    ``"malformed percent escape '%of'"``.
    """
    kind = classify(href)
    if kind == "disallowed":
        bare = _TAB_NEWLINE.sub("", href.strip(_C0_SPACE))
        scheme = _SCHEME.match(bare)
        name = scheme.group(0).lower() if scheme else "?"
        return f"scheme {name!r} is not allowed (only http, https, mailto and tel)"
    if kind == "malformed":
        bad = _BAD_PERCENT.search(href)
        if bad is not None:
            return f"malformed percent escape {href[bad.start():bad.start() + 3]!r}"
        return "not a valid URL (WHATWG URL parsing fails)"
    return None


def governed_href(href: str) -> str:
    """The absolute URL a governed ``href`` stands for, for messages.

    ``www.x`` → ``http://www.x``, ``//x`` → ``https://x``, a browser-relative
    spelling of another host (``\\\\x``) → its WHATWG resolution; anything else
    is returned unchanged.
    """
    low = href[:8].lower()
    if low.startswith(("http://", "https://")):
        return href
    if low.startswith("www."):
        return "http://" + href
    joined = parse(_TAB_NEWLINE.sub("", href_escape(href.strip(_C0_SPACE))), _BASE)
    return joined if joined is not None and not joined.startswith(_BASE_ORIGIN + "/") else href
