"""What the capture stage may fetch, and from where (DESIGN §5).

The rules a source, its addresses, its proxy and its ``Content-Type`` must
pass, with no network I/O here:

1. The URL must be in the approved list, character for character, then parse
   as a WHATWG URL (so host spellings like ``2130706433`` or ``0x7f.1``
   become ``127.0.0.1`` before anything is checked). ``https`` only (plain
   ``http`` only to loopback behind ``allow_http_loopback``, a test option);
   no userinfo, no fragment.
2. Every address the host resolves to must be globally routable (after
   unwrapping IPv4-mapped, NAT64, 6to4 and Teredo forms) unless
   ``allow_private_addresses``.
3. A ``Content-Type`` must name an allowed media type, with a charset that
   is absent or ``utf-8``.
4. The settings themselves must be usable: positive limits, some content
   type, an ``http://host:port`` proxy if any.

Every refusal is a :class:`CaptureRefused` whose message says why, in words.
"""

from __future__ import annotations

import base64
import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citelint.errors import CitelintError
from citelint.escape import quoted
from citelint.settings import CaptureSettings
from citelint.urls import components


class CaptureRefused(CitelintError):
    """A source was not captured. ``str()`` is the reason, fit to print:
    any text that came from a server or a URL is escaped in it."""


# --------------------------------------------------------------------------- settings

def check_settings(settings: CaptureSettings) -> None:
    """Check the capture settings themselves (not the network).

    The config schema already bounds the limits; this also covers settings
    built in Python, and the proxy, whose URL the schema cannot judge.

    Raises:
        CaptureRefused: a non-positive limit, no content type, or a ``proxy``
            that is not an ``http://host:port`` URL.
    """
    if not settings.timeout_s > 0:
        raise CaptureRefused(f"capture.timeout_s must be positive, got {settings.timeout_s}")
    if settings.max_bytes <= 0:
        raise CaptureRefused(f"capture.max_bytes must be positive, got {settings.max_bytes}")
    if not settings.content_types:
        raise CaptureRefused("capture.content_types is empty; nothing could be accepted")
    if settings.proxy:
        parse_proxy(settings.proxy)


# --------------------------------------------------------------------------- small helpers

# RFC 9110 §5.6.2/§5.6.4/§8.3.1. The standard library's email parser is
# lenient (it turns a malformed value into text/plain), and a media type that
# is only roughly right must not be accepted, so the grammar is spelled out.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\t\x20-\x7e\x80-\xff])*"'
_MEDIA_TYPE = re.compile(rf"({_TOKEN})/({_TOKEN})")
_PARAM = re.compile(rf"[ \t]*;[ \t]*(?:({_TOKEN})=({_TOKEN}|{_QUOTED}))?")


def check_content_type(value: str, allowed: Sequence[str],
                       extractor_for: Callable[[str], str | None] | None = None) -> str:
    """Check one ``Content-Type`` value against the allowed media types.

    The media type is compared without case. A body kept as it is (the
    ``identity`` extractor, and every type when ``extractor_for`` is None)
    may have a ``charset`` parameter that is absent or ``utf-8`` (any case,
    optionally quoted) and nothing else; an extracted type (HTML, PDF) may
    name any charset, since its extractor decodes it.

    Returns:
        The media type, lower-cased (``type/subtype``).

    Raises:
        CaptureRefused: the value is malformed, the media type is not allowed,
            or the charset is not UTF-8.
    """
    text = value.strip(" \t")
    m = _MEDIA_TYPE.match(text)
    if not m:
        raise CaptureRefused(f"Content-Type {quoted(value)} is not a valid media type")
    media = f"{m.group(1)}/{m.group(2)}".lower()
    pos = m.end()
    charsets = []
    while pos < len(text):
        p = _PARAM.match(text, pos)
        if not p or p.end() == pos:
            raise CaptureRefused(f"Content-Type {quoted(value)} has malformed parameters")
        if p.group(1) and p.group(1).lower() == "charset":
            raw = p.group(2)
            if raw.startswith('"'):
                raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
            charsets.append(raw.lower())
        pos = p.end()
    allowed_lower = {a.strip().lower() for a in allowed}
    if media not in allowed_lower:
        raise CaptureRefused(f"Content-Type {media!r} is not in the allowed list "
                             f"({', '.join(sorted(allowed_lower))}); set capture.content_types "
                             "to accept it")
    if len(charsets) > 1:
        raise CaptureRefused(f"Content-Type {quoted(value)} names more than one charset")
    extractor = extractor_for(media) if extractor_for is not None else "identity"
    if extractor is None:
        raise CaptureRefused(f"Content-Type {media!r} is allowed but has no extractor; set "
                             f"capture.extractors.{media} (for example html-text or pdf-text)")
    if extractor == "identity" and charsets and charsets[0] != "utf-8":
        raise CaptureRefused(f"charset {quoted(charsets[0])} is not utf-8; only UTF-8 text "
                             "is captured")
    return media


# --------------------------------------------------------------------------- URL policy

@dataclass(frozen=True)
class SourceTarget:
    """Where a checked source URL points.

    ``host`` is the WHATWG-normalised ASCII host without brackets (an IP
    literal in canonical form, or a punycode name); ``port`` the TCP port;
    ``target`` the request target (path and query); ``host_header`` the
    ``Host`` header value; ``ip_literal`` True when ``host`` is an address.
    """

    source: str
    scheme: str
    host: str
    port: int
    target: str
    host_header: str
    ip_literal: bool


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_source(url: str, sources: Sequence[str], *, fetching: bool = True,
                 allow_http_loopback: bool = False) -> SourceTarget:
    """Check ``url`` against the approved list and the URL policy.

    ``url`` must equal an entry of ``sources`` exactly (no normalisation: the
    operator's string is the identity). It must be an absolute ``http(s)``
    URL with no userinfo and no fragment. When ``fetching``, it must be
    ``https``, or ``http`` with ``allow_http_loopback`` (the loopback part is
    checked after resolution); when recording text that is already held
    (``fetching=False``) an approved ``http`` URL is fine, since nothing is
    fetched.

    Returns:
        The parsed target.

    Raises:
        CaptureRefused: not approved, not parseable, wrong scheme, userinfo
            or fragment present.
    """
    if url not in sources:
        raise CaptureRefused("not in the approved sources list (citelint.yaml `sources`); "
                             "sources are matched exactly, character for character")
    if _CONTROL.search(url) or url != url.strip(" "):
        # A WHATWG parser silently drops tabs and newlines and trims the
        # ends, so the URL fetched would not be the string approved.
        raise CaptureRefused("the URL contains control characters or surrounding spaces; "
                             "approve it without them")
    parsed = components(url)
    if parsed is None:
        raise CaptureRefused("not a valid URL")
    scheme = parsed.scheme
    if scheme not in ("http", "https"):
        raise CaptureRefused(f"scheme {scheme!r} is not fetched; sources must be https URLs")
    if fetching and scheme == "http" and not allow_http_loopback:
        raise CaptureRefused("plain http is not fetched; approve the https URL instead (to fetch from a "
                             "local test server on a loopback address, pass --allow-http-loopback)")
    # The WHATWG parser drops an empty userinfo ("https://@host/") and an
    # empty fragment ("...#"), so look at the string as written too.
    after_scheme = url.split("//", 1)[1] if "//" in url else ""
    authority = re.split(r"[/?#\\]", after_scheme, maxsplit=1)[0]
    if parsed.username or parsed.password or "@" in authority:
        raise CaptureRefused("the URL carries credentials (userinfo); credentials never go in "
                             "an approved source")
    if "#" in url:
        raise CaptureRefused("the URL has a fragment; a fragment is never sent to the server, "
                             "approve the URL without it")
    hostname = parsed.hostname
    if not hostname:
        raise CaptureRefused("the URL has no host")
    host = hostname[1:-1] if hostname.startswith("[") else hostname
    port = parsed.port or (443 if scheme == "https" else 80)
    return SourceTarget(source=url, scheme=scheme, host=host, port=port,
                        target=parsed.target or "/", host_header=parsed.host,
                        ip_literal=is_ip_literal(host))


def is_ip_literal(host: str) -> bool:
    """Whether ``host`` (no brackets) is an IPv4 or IPv6 address literal."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- address policy

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_METADATA = ipaddress.ip_address("169.254.169.254")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_ULA = ipaddress.ip_network("fc00::/7")


def _plain_problem(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``ip`` itself (no unwrapping) is not globally routable, or None."""
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip == _METADATA:
        return "link-local (the cloud instance metadata address)"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.version == 4 and ip in _CGNAT:
        return "a carrier-grade NAT address (100.64.0.0/10)"
    if ip.version == 6 and ip in _ULA:
        return "a unique-local address (fc00::/7)"
    if ip.version == 6 and ip in _NAT64_LOCAL:
        return "a local-use NAT64 address (64:ff9b:1::/48)"
    if ip.version == 6 and ip.is_site_local:
        return "a site-local address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a globally routable address"
    return None


def address_problem(address: str) -> str | None:
    """Why connecting to ``address`` is refused by default, or None if it is
    globally routable.

    IPv6 forms that carry an IPv4 address are judged by the IPv4 addresses
    they carry: IPv4-mapped (``::ffff:a.b.c.d``), NAT64 (``64:ff9b::/96``),
    6to4 (``2002::/16``, the address it embeds) and Teredo (``2001::/32``,
    its server and its client). Their own prefix is not judged again: Python
    3.11.10+, 3.12.4+ and 3.13 count ``2002::/16`` and ``2001::/23`` as
    private (gh-113171) where earlier releases did not, and a verdict must not
    depend on the interpreter.

    Returns:
        A phrase such as ``"a loopback address"``, or None.

    Raises:
        ValueError: ``address`` is not an IP address.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        carried: list[tuple[str, ipaddress.IPv4Address]] = []
        if ip.ipv4_mapped is not None:
            carried.append(("IPv4-mapped", ip.ipv4_mapped))
        elif ip in _NAT64:
            carried.append(("NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)))
        elif ip.sixtofour is not None:
            carried.append(("6to4", ip.sixtofour))
        elif ip.teredo is not None:
            server, client = ip.teredo
            carried += [("Teredo server", server), ("Teredo client", client)]
        for how, v4 in carried:
            problem = _plain_problem(v4)
            if problem:
                return f"{how} form of {v4}, {problem}"
        if carried:
            return None
    return _plain_problem(ip)


def _is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def check_addresses(target: SourceTarget, addresses: list[str],
                    settings: CaptureSettings) -> list[str]:
    """Check every address ``target``'s host resolved to (strings, in the
    resolver's order) and return them unchanged.

    Raises:
        CaptureRefused: plain ``http`` to an address that is not loopback, or
            an address that is not globally routable while
            ``settings.allow_private_addresses`` is off.
    """
    # Every answer must pass: a name that answers with one internal address
    # among public ones is refused whole, so no ordering trick can reach it.
    for addr in addresses:
        if target.scheme == "http":
            # Plain http exists only for tests against a local server.
            if not _is_loopback(addr):
                raise CaptureRefused(f"plain http is allowed only to loopback "
                                     f"(--allow-http-loopback), and {quoted(target.host)} "
                                     f"resolves to {addr}")
            continue
        problem = address_problem(addr)
        if problem and not settings.allow_private_addresses:
            where = "is" if target.ip_literal else f"resolves to {addr},"
            raise CaptureRefused(f"host {quoted(target.host)} {where} {problem}; only globally "
                                 "routable addresses are fetched (set "
                                 "capture.allow_private_addresses only for a trusted internal "
                                 "source)")
    return addresses


def parse_proxy(proxy: str) -> tuple[str, int, dict[str, str]]:
    """Split ``capture.proxy`` (``http://[user:pass@]host:port``) into host,
    port and the ``Proxy-Authorization`` header when credentials are given.

    Raises:
        CaptureRefused: not an ``http://`` URL with a host.
    """
    # Imported here: only a configured proxy needs urllib3's parser, so the
    # policy, ``record_text`` and ``--dry-run`` load no network library.
    import urllib3.exceptions
    import urllib3.util

    try:
        url = urllib3.util.parse_url(proxy)
    except urllib3.exceptions.LocationParseError:
        raise CaptureRefused(f"capture.proxy {quoted(proxy)} is not a valid URL") from None
    if url.scheme != "http" or not url.host:
        raise CaptureRefused("capture.proxy must be an http://host:port URL (the tunnel to the "
                             "source is TLS; the hop to the proxy is a plain CONNECT)")
    headers = {}
    if url.auth:
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(
            url.auth.encode("utf-8")).decode("ascii")
    return url.host.strip("[]"), url.port or 80, headers

