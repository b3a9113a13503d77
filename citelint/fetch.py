"""The trusted capture stage: a bounded urllib3 fetcher and the recording API
(DESIGN §5).

Everything here either ends in a capture written through the store's
exclusive writer (:func:`citelint.captures.write_capture`) or in a
:class:`CaptureRefused` whose message says why, in words. Nothing prints;
``cli.py`` turns outcomes into lines.

What one fetch does, in order:

1. The URL must be in the approved list, character for character, then parse
   as a WHATWG URL (``ada-url``, so host spellings like ``2130706433`` or
   ``0x7f.1`` become ``127.0.0.1`` before anything is checked). ``https``
   only (plain ``http`` only to loopback behind ``allow_http_loopback``, a
   test option); no userinfo, no fragment.
2. The host is resolved once. If any address it resolves to is not globally
   routable (after unwrapping IPv4-mapped, NAT64, 6to4 and Teredo forms), the
   source is refused unless ``allow_private_addresses``. The connection goes
   to a checked address, never to the name, so a second DNS answer cannot
   change where the request lands (no rebinding).
3. TLS uses a context built here (never ``create_default_context`` or
   urllib3's default, both of which honour ``SSLKEYLOGFILE``) with the system
   trust store or ``ca_file``; SNI and certificate checks are for the host
   name of the URL.
4. One request, ``Connection: close``: no redirects, no retries, status 200
   only, exactly one acceptable ``Content-Type``, no ``Content-Encoding`` but
   identity, and urllib3 is told not to decode the body.
5. One wall-clock deadline covers DNS, connect, TLS, headers and body: a
   watchdog timer shuts the socket down when it expires, because urllib3's
   per-read timeouts do not bound a server that drips bytes.
6. The body is counted while streaming and refused past ``max_bytes``,
   whatever ``Content-Length`` says; then it must be strict UTF-8.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import ada_url
import urllib3
import urllib3.connection
import urllib3.exceptions
import urllib3.util

from citelint import __version__
from citelint.escape import quoted
from citelint.captures import (
    CaptureError,
    CaptureRecord,
    Store,
    TextRejected,
    decode_text,
    make_record,
    utc_now,
    write_capture,
)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 10_485_760
DEFAULT_CONTENT_TYPES = ("text/plain",)

#: Outcome statuses, as printed by the command line.
CAPTURED = "captured"
ALREADY_CAPTURED = "already captured"
REFUSED = "refused"
WOULD_FETCH = "would fetch"

_READ_CHUNK = 64 * 1024


class CaptureRefused(Exception):
    """A source was not captured. ``str()`` is the reason, fit to print:
    any text that came from a server or a URL is escaped in it."""


# --------------------------------------------------------------------------- options

@dataclass(frozen=True)
class FetchOptions:
    """Limits and trust settings for fetching (the ``capture`` config block).

    ``timeout_s`` is the whole-fetch deadline in seconds (DNS through the last
    body byte); ``max_bytes`` the largest body accepted, in bytes on the wire;
    ``content_types`` the accepted media types (compared without case);
    ``ca_file`` a PEM bundle replacing the system trust store; ``proxy`` an
    ``http://host:port`` proxy to tunnel through with ``CONNECT`` (never taken
    from the environment); ``user_agent`` overrides ``citelint/<version>``.
    ``allow_http_loopback`` permits plain ``http`` to loopback addresses only;
    it exists for tests and local development, never for real sources.
    """

    timeout_s: float = DEFAULT_TIMEOUT_S
    max_bytes: int = DEFAULT_MAX_BYTES
    content_types: tuple[str, ...] = DEFAULT_CONTENT_TYPES
    allow_private_addresses: bool = False
    ca_file: str | None = None
    proxy: str | None = None
    user_agent: str | None = None
    allow_http_loopback: bool = False

    @classmethod
    def from_settings(cls, settings: object, *, ca_file: str | None = None,
                      allow_http_loopback: bool = False) -> "FetchOptions":
        """Options from a config ``capture`` block (any object with the
        ``CaptureSettings`` attributes; missing ones take the defaults).

        ``ca_file``, when given (``--ca-file``), replaces the configured one.
        """
        def get(name: str, default: object) -> object:
            value = getattr(settings, name, None)
            return default if value is None else value

        return cls(
            timeout_s=float(get("timeout_s", DEFAULT_TIMEOUT_S)),  # type: ignore[arg-type]
            max_bytes=int(get("max_bytes", DEFAULT_MAX_BYTES)),  # type: ignore[arg-type]
            content_types=tuple(get("content_types", DEFAULT_CONTENT_TYPES)),  # type: ignore[arg-type]
            allow_private_addresses=bool(get("allow_private_addresses", False)),
            ca_file=ca_file if ca_file is not None else get("ca_file", None),  # type: ignore[arg-type]
            proxy=get("proxy", None),  # type: ignore[arg-type]
            user_agent=get("user_agent", None),  # type: ignore[arg-type]
            allow_http_loopback=allow_http_loopback,
        )


    def validate(self) -> None:
        """Check the options themselves (not the network).

        Raises:
            CaptureRefused: a non-positive limit, or a ``proxy`` that is not
                an ``http://host:port`` URL.
        """
        if not self.timeout_s > 0:
            raise CaptureRefused(f"capture.timeout_s must be positive, got {self.timeout_s}")
        if self.max_bytes <= 0:
            raise CaptureRefused(f"capture.max_bytes must be positive, got {self.max_bytes}")
        if not self.content_types:
            raise CaptureRefused("capture.content_types is empty; nothing could be accepted")
        if self.proxy:
            _parse_proxy(self.proxy)


# --------------------------------------------------------------------------- outcomes

@dataclass(frozen=True)
class CaptureOutcome:
    """What happened to one source.

    ``status`` is one of ``captured``, ``already captured``, ``refused`` or
    (dry run) ``would fetch``. ``reason`` explains a refusal. ``sha256``,
    ``bytes`` (body length on the wire) and ``path`` describe the revision
    for ``captured`` and ``already captured``.
    """

    source: str
    status: str
    reason: str = ""
    sha256: str | None = None
    bytes: int | None = None
    path: Path | None = None

    @property
    def failed(self) -> bool:
        """True for a refusal (the command exits 1 if any source failed)."""
        return self.status == REFUSED


# --------------------------------------------------------------------------- small helpers

# RFC 9110 §5.6.2/§5.6.4/§8.3.1. The standard library's email parser is
# lenient (it turns a malformed value into text/plain), and a media type that
# is only roughly right must not be accepted, so the grammar is spelled out.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\t\x20-\x7e\x80-\xff])*"'
_MEDIA_TYPE = re.compile(rf"({_TOKEN})/({_TOKEN})")
_PARAM = re.compile(rf"[ \t]*;[ \t]*(?:({_TOKEN})=({_TOKEN}|{_QUOTED}))?")


def check_content_type(value: str, allowed: Sequence[str]) -> str:
    """Check one ``Content-Type`` value against the allowed media types.

    The media type is compared without case; a ``charset`` parameter may be
    absent or ``utf-8`` (any case, optionally quoted) and nothing else.

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
    if charsets and charsets[0] != "utf-8":
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
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        raise CaptureRefused("not a valid URL") from None
    scheme = parsed.protocol.rstrip(":")
    if scheme not in ("http", "https"):
        raise CaptureRefused(f"scheme {scheme!r} is not fetched; sources must be https URLs")
    if fetching and scheme == "http" and not allow_http_loopback:
        raise CaptureRefused("plain http is not fetched; approve the https URL instead")
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
    port = int(parsed.port) if parsed.port else (443 if scheme == "https" else 80)
    origin = f"{parsed.protocol}//{parsed.host}"
    href = parsed.href
    # Path and query exactly as the WHATWG serialiser wrote them (including
    # an empty query "?", which the search attribute cannot show).
    target = href[len(origin):] if href.startswith(origin) else parsed.pathname + parsed.search
    return SourceTarget(source=url, scheme=scheme, host=host, port=port, target=target or "/",
                        host_header=parsed.host, ip_literal=_is_ip(host))


def _is_ip(host: str) -> bool:
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

    IPv6 forms that carry an IPv4 address are unwrapped first: IPv4-mapped
    (``::ffff:a.b.c.d``) and NAT64 (``64:ff9b::/96``) are judged by the IPv4
    address they carry; 6to4 (``2002::/16``) and Teredo (``2001::/32``) must
    pass both for the carried addresses and for themselves.

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
        if ip.ipv4_mapped is not None or ip in _NAT64:
            return None
    return _plain_problem(ip)


# --------------------------------------------------------------------------- deadline

class _Deadline:
    """One wall-clock budget for a whole fetch (monotonic seconds)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self, stage: str) -> float:
        """Seconds left; raises CaptureRefused naming ``stage`` when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise self.expired(stage)
        return left

    def expired(self, stage: str) -> CaptureRefused:
        return CaptureRefused(f"the {self.seconds:g} s deadline (capture.timeout_s) passed "
                              f"during {stage}")


class _Watchdog:
    """Shuts down every socket of a fetch when the deadline passes.

    urllib3's timeouts bound each socket operation, not the whole exchange:
    a server dripping a byte per 100 ms resets them forever (DESIGN §8). A
    ``shutdown`` from another thread wakes any blocked ``recv`` (TLS or not,
    headers or body). It acts on a duplicate descriptor of the TCP socket:
    shutdown applies to the connection, not the descriptor, and the duplicate
    stays valid after ``ssl`` takes over the original.
    """

    def __init__(self, seconds: float):
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._closed = False
        self.fired = False
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        dup = sock.dup()
        with self._lock:
            if self._closed:
                dup.close()
                return
            self._socks.append(dup)
            if self.fired:
                _shutdown(dup)

    def _fire(self) -> None:
        with self._lock:
            if self._closed:
                return
            self.fired = True
            for s in self._socks:
                _shutdown(s)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._closed = True
            for s in self._socks:
                s.close()
            self._socks.clear()


def _timed_out(exc: BaseException | None, deadline: "_Deadline", watchdog: "_Watchdog") -> bool:
    """Whether a failure is the deadline at work: the watchdog shut the
    socket, or a per-operation socket timeout fired (each is set to at most
    the time remaining, so it can only fire as the deadline passes)."""
    if watchdog.fired or time.monotonic() >= deadline.end:
        return True
    # urllib3's NewConnectionError subclasses its ConnectTimeoutError for
    # backwards compatibility, though it means "refused" or "unreachable".
    return (isinstance(exc, (TimeoutError, urllib3.exceptions.TimeoutError))
            and not isinstance(exc, urllib3.exceptions.NewConnectionError))


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _WatchedConnection:
    """Mixin for urllib3 connections: the TCP socket is handed to the watchdog.

    ``_new_conn`` is urllib3's hook for creating the socket; overriding it is
    the one place where the raw socket exists before TLS wraps it.
    """

    watchdog: _Watchdog | None = None

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()  # type: ignore[misc]
        if self.watchdog is not None:
            self.watchdog.watch(sock)
        return sock  # type: ignore[no-any-return]


class _WatchedHTTPConnection(_WatchedConnection, urllib3.connection.HTTPConnection):
    """Plain HTTP (loopback tests only) with the watchdog."""


class _WatchedHTTPSConnection(_WatchedConnection, urllib3.connection.HTTPSConnection):
    """HTTPS with the watchdog."""


# --------------------------------------------------------------------------- resolution

def _resolve(host: str, port: int, deadline: _Deadline) -> list[str]:
    """Resolve ``host`` once, within the deadline. Returns addresses in the
    resolver's preference order, without duplicates."""
    if _is_ip(host):
        return [host]
    box: dict[str, object] = {}

    def lookup() -> None:
        try:
            box["ok"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                           proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError) as exc:
            box["err"] = exc

    # getaddrinfo cannot be interrupted; a daemon thread lets the deadline
    # win against a resolver that hangs (the thread is abandoned).
    worker = threading.Thread(target=lookup, name="citelint-dns", daemon=True)
    worker.start()
    worker.join(deadline.remaining("the DNS lookup"))
    if worker.is_alive():
        raise deadline.expired("the DNS lookup")
    if "err" in box:
        exc = box["err"]
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CaptureRefused(f"cannot resolve host {quoted(host)}: {detail}")
    addresses: list[str] = []
    for family, _type, _proto, _canon, sockaddr in box["ok"]:  # type: ignore[union-attr]
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        addr = str(sockaddr[0])
        if addr not in addresses:
            addresses.append(addr)
    if not addresses:
        raise CaptureRefused(f"host {quoted(host)} has no IPv4 or IPv6 address")
    return addresses


def _is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _checked_addresses(target: SourceTarget, options: FetchOptions, deadline: _Deadline) -> list[str]:
    addresses = _resolve(target.host, target.port, deadline)
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
        if problem and not options.allow_private_addresses:
            where = "is" if target.ip_literal else f"resolves to {addr},"
            raise CaptureRefused(f"host {quoted(target.host)} {where} {problem}; only globally "
                                 "routable addresses are fetched (set "
                                 "capture.allow_private_addresses only for a trusted internal "
                                 "source)")
    return addresses


# --------------------------------------------------------------------------- TLS

def make_ssl_context(ca_file: str | None = None) -> ssl.SSLContext:
    """A client TLS context: TLS 1.2+, certificate and host name checks, the
    system trust store (which honours ``SSL_CERT_FILE``/``SSL_CERT_DIR``) or
    only ``ca_file`` (a PEM bundle), and never a key log file.

    Raises:
        CaptureRefused: ``ca_file`` cannot be read or holds no certificate.
    """
    # ssl.create_default_context() and urllib3's own default context both
    # start writing TLS secrets to $SSLKEYLOGFILE when it is set. A plain
    # SSLContext does not; keylog_filename is cleared anyway to state intent.
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.keylog_filename = None  # type: ignore[assignment]
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    if ca_file:
        try:
            ctx.load_verify_locations(cafile=ca_file)
        except (OSError, ssl.SSLError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise CaptureRefused(f"cannot load CA file {ca_file}: {reason}") from None
    else:
        ctx.load_default_certs()
    return ctx


# --------------------------------------------------------------------------- the fetcher

@dataclass(frozen=True)
class Fetched:
    """A response body that passed every check except decoding.

    ``body`` is the raw body (at most ``max_bytes``); ``content_type`` the
    single ``Content-Type`` value as received; ``retrieved_at`` the RFC 3339
    UTC time the response headers arrived.
    """

    source: str
    body: bytes
    content_type: str
    retrieved_at: str


class Fetcher:
    """Fetches approved sources under one set of :class:`FetchOptions`.

    The TLS context is built once per fetcher (loading a trust store costs
    tens of milliseconds) and reused for every source.
    """

    def __init__(self, options: FetchOptions):
        self.options = options
        self._ssl: ssl.SSLContext | None = None
        self._proxy = _parse_proxy(options.proxy) if options.proxy else None

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = make_ssl_context(self.options.ca_file)
        return self._ssl

    def fetch(self, target: SourceTarget) -> Fetched:
        """Fetch one checked source (see :func:`check_source`).

        Returns:
            The raw body and its metadata.

        Raises:
            CaptureRefused: any policy, network, TLS, HTTP or limit failure,
                including the deadline (``timeout_s``) passing.
        """
        opts = self.options
        deadline = _Deadline(opts.timeout_s)
        addresses = _checked_addresses(target, opts, deadline)
        ctx = self._ssl_context() if target.scheme == "https" else None
        watchdog = _Watchdog(deadline.end - time.monotonic())
        try:
            return self._fetch_from(target, addresses, ctx, deadline, watchdog)
        finally:
            watchdog.close()

    def _connect(self, target: SourceTarget, address: str, ctx: ssl.SSLContext | None,
                 deadline: _Deadline, watchdog: _Watchdog) -> urllib3.connection.HTTPConnection:
        timeout = deadline.remaining("connect")
        conn: urllib3.connection.HTTPConnection
        if self._proxy is not None:
            proxy_host, proxy_port, proxy_headers = self._proxy
            host, port = proxy_host, proxy_port
        else:
            host, port = address, target.port
        if ctx is not None:
            # host is the checked address (or the proxy); SNI and the
            # certificate check use the URL's host name (ctx.check_hostname).
            conn = _WatchedHTTPSConnection(host, port, timeout=timeout, ssl_context=ctx,
                                           server_hostname=target.host)
        else:
            conn = _WatchedHTTPConnection(host, port, timeout=timeout)
        conn.watchdog = watchdog
        if self._proxy is not None:
            # CONNECT to the address checked here, never to the name: the
            # proxy must not get a chance to resolve it differently.
            conn.set_tunnel(address, target.port, headers=proxy_headers)
        try:
            conn.connect()
        except BaseException:
            conn.close()
            raise
        return conn

    def _fetch_from(self, target: SourceTarget, addresses: list[str], ctx: ssl.SSLContext | None,
                    deadline: _Deadline, watchdog: _Watchdog) -> Fetched:
        opts = self.options
        conn = None
        errors = []
        for address in addresses:
            try:
                conn = self._connect(target, address, ctx, deadline, watchdog)
                break
            except ssl.SSLCertVerificationError as exc:
                if _timed_out(exc, deadline, watchdog):
                    raise deadline.expired("the TLS handshake") from None
                raise CaptureRefused(f"certificate verification failed for "
                                     f"{quoted(target.host)}: "
                                     f"{exc.verify_message or exc.reason}") from None
            except ssl.SSLError as exc:
                if _timed_out(exc, deadline, watchdog):
                    raise deadline.expired("the TLS handshake") from None
                raise CaptureRefused(f"TLS handshake with {quoted(target.host)} failed: "
                                     f"{exc.reason or exc}") from None
            except (OSError, urllib3.exceptions.HTTPError) as exc:
                if _timed_out(exc, deadline, watchdog):
                    raise deadline.expired("connect and TLS handshake") from None
                errors.append(f"{address}: {_connect_error(exc)}")
        if conn is None:
            raise CaptureRefused(f"cannot connect to {quoted(target.host)} port "
                                 f"{target.port} ({'; '.join(errors)})")
        resp = None
        try:
            headers = {
                "Host": target.host_header,
                "User-Agent": opts.user_agent or f"citelint/{__version__}",
                "Accept": ", ".join(opts.content_types),
                "Accept-Encoding": "identity",
                "Connection": "close",
            }
            try:
                conn.request("GET", target.target, headers=headers, preload_content=False,
                             decode_content=False, enforce_content_length=True)
                resp = conn.getresponse()
            except (OSError, urllib3.exceptions.HTTPError, http.client.HTTPException,
                    ValueError) as exc:
                if _timed_out(exc, deadline, watchdog):
                    raise deadline.expired("the wait for response headers") from None
                raise CaptureRefused(f"no valid HTTP response ({type(exc).__name__}: "
                                     f"{quoted(str(exc))})") from None
            if watchdog.fired:
                # A shut-down socket can end a header block early; it is not one.
                raise deadline.expired("the wait for response headers")
            _check_header_syntax(resp)
            retrieved_at = utc_now()
            content_type = _check_response_headers(resp, opts)
            body = _read_body(resp, opts.max_bytes, deadline, watchdog)
        finally:
            if resp is not None:
                resp.close()
            conn.close()
        return Fetched(source=target.source, body=body, content_type=content_type,
                       retrieved_at=retrieved_at)


def _connect_error(exc: BaseException) -> str:
    """The useful words of a connect failure (urllib3 wraps the OSError)."""
    inner: BaseException = exc
    while inner.__cause__ is not None and inner is not inner.__cause__:
        inner = inner.__cause__
    if isinstance(inner, OSError) and inner.strerror:
        return inner.strerror
    text = str(inner) or type(inner).__name__
    return quoted(text)[1:-1]


def _parse_proxy(proxy: str) -> tuple[str, int, dict[str, str]]:
    """Split ``capture.proxy`` (``http://[user:pass@]host:port``) into host,
    port and the ``Proxy-Authorization`` header when credentials are given.

    Raises:
        CaptureRefused: not an ``http://`` URL with a host.
    """
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


def _httplib_response(resp: urllib3.response.BaseHTTPResponse) -> http.client.HTTPResponse | None:
    """The ``http.client`` response under a urllib3 response.

    urllib3 keeps it as ``_fp`` (so since 1.x) and exposes neither its
    parse defects nor its read buffer, both of which the checks below need.
    If a future urllib3 moves it, None is returned and those two checks
    (header defects, bytes past Content-Length) are skipped, never the
    limits themselves.
    """
    inner = getattr(resp, "_fp", None)
    return inner if isinstance(inner, http.client.HTTPResponse) else None


def _check_header_syntax(resp: urllib3.response.BaseHTTPResponse) -> None:
    """Refuse a header block that ``http.client`` could only parse in part
    (urllib3 merely logs it): whatever follows the damage is not a header."""
    inner = _httplib_response(resp)
    defects = getattr(getattr(inner, "msg", None), "defects", None)
    if defects:
        raise CaptureRefused(f"malformed response headers ({type(defects[0]).__name__})")


def _check_response_headers(resp: urllib3.response.BaseHTTPResponse, opts: FetchOptions) -> str:
    """Status, encodings, content type and declared length; returns the
    single Content-Type value."""
    if resp.status != 200:
        if 300 <= resp.status < 400:
            location = resp.headers.get("Location")
            where = f" to {quoted(location)}" if location else ""
            raise CaptureRefused(f"HTTP {resp.status} redirect{where}; redirects are never "
                                 "followed, approve the final URL instead")
        reason = f" {quoted(resp.reason)[1:-1]}" if resp.reason else ""
        raise CaptureRefused(f"HTTP {resp.status}{reason}; only 200 is accepted")
    encodings = [tok.strip().lower() for v in resp.headers.getlist("Content-Encoding")
                 for tok in v.split(",") if tok.strip()]
    if any(tok != "identity" for tok in encodings):
        raise CaptureRefused(f"Content-Encoding {quoted(', '.join(encodings))} refused; "
                             "compressed bodies are never decoded")
    transfer = [tok.strip().lower() for v in resp.headers.getlist("Transfer-Encoding")
                for tok in v.split(",") if tok.strip()]
    if any(tok != "chunked" for tok in transfer):
        raise CaptureRefused(f"Transfer-Encoding {quoted(', '.join(transfer))} refused; "
                             "only chunked is understood")
    types = resp.headers.getlist("Content-Type")
    if not types:
        raise CaptureRefused("the response has no Content-Type")
    if len(types) > 1:
        raise CaptureRefused(f"the response has {len(types)} Content-Type headers; exactly one "
                             "is required")
    check_content_type(types[0], opts.content_types)
    lengths = resp.headers.getlist("Content-Length")
    if lengths and not transfer:
        values = {v.strip() for v in lengths}
        if len(values) != 1 or not re.fullmatch(r"[0-9]{1,20}", next(iter(values))):
            raise CaptureRefused("the response has conflicting or malformed Content-Length")
        declared = int(next(iter(values)))
        if declared > opts.max_bytes:
            raise CaptureRefused(f"the body is {declared} bytes by its Content-Length, over the "
                                 f"{opts.max_bytes} byte limit (capture.max_bytes)")
    return types[0]


def _is_incomplete(exc: BaseException) -> bool:
    """Whether a read failure is a body cut short of its Content-Length
    (urllib3 may wrap http.client's IncompleteRead in a ProtocolError)."""
    related = [exc, *exc.args, exc.__cause__, exc.__context__]
    return any(isinstance(x, (http.client.IncompleteRead, urllib3.exceptions.IncompleteRead))
               for x in related)


def _read_body(resp: urllib3.response.BaseHTTPResponse, max_bytes: int, deadline: _Deadline,
               watchdog: _Watchdog) -> bytes:
    """Stream the raw body, refusing it past ``max_bytes`` or the deadline."""
    chunks: list[bytes] = []
    total = 0
    # The buffered reader of http.client: a body framed by Content-Length
    # whose server has already sent more than that length is refused (one
    # request, Connection: close, so anything past the body is a framing lie).
    buffered = getattr(_httplib_response(resp), "fp", None)
    try:
        while True:
            remaining = getattr(resp, "length_remaining", None)
            if remaining and buffered is not None and hasattr(buffered, "peek"):
                ahead = buffered.peek(1)  # may block for body bytes; the watchdog bounds it
                if len(ahead) > remaining:
                    raise CaptureRefused("the server sent more bytes than its Content-Length "
                                         "declares; the response framing cannot be trusted")
            want = min(_READ_CHUNK, max_bytes + 1 - total)
            chunk = resp.read(want, decode_content=False)
            if watchdog.fired:
                break
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise CaptureRefused(f"the body exceeds the {max_bytes} byte limit "
                                     "(capture.max_bytes)")
    except CaptureRefused:
        if _timed_out(None, deadline, watchdog):
            raise deadline.expired("the body") from None
        raise
    except (OSError, urllib3.exceptions.HTTPError, ValueError) as exc:
        if _timed_out(exc, deadline, watchdog):
            raise deadline.expired("the body") from None
        if _is_incomplete(exc):
            raise CaptureRefused("the connection closed before the body declared by "
                                 "Content-Length arrived") from None
        raise CaptureRefused(f"reading the body failed: {quoted(str(exc))}") from None
    except http.client.HTTPException as exc:  # bad chunk framing
        if _timed_out(exc, deadline, watchdog):
            raise deadline.expired("the body") from None
        raise CaptureRefused(f"malformed body framing: {type(exc).__name__}") from None
    if watchdog.fired:
        # A shutdown socket reads as a clean end of body; it is not one.
        raise deadline.expired("the body")
    return b"".join(chunks)


# --------------------------------------------------------------------------- recording

def _record_outcome(captures_dir: Path, record: CaptureRecord) -> CaptureOutcome:
    """Write ``record`` with the exclusive writer; verify an existing file."""
    try:
        result = write_capture(captures_dir, record)
    except OSError as exc:
        raise CaptureRefused(f"cannot write the capture: {exc.strerror or exc}") from None
    if not result.created:
        try:
            Store(captures_dir).lookup(record.source, record.sha256)
        except CaptureError as exc:
            raise CaptureRefused(f"a capture file already occupies {result.path} but fails "
                                 f"verification ({exc}); captures are never replaced, inspect "
                                 "it by hand") from None
    return CaptureOutcome(source=record.source,
                          status=CAPTURED if result.created else ALREADY_CAPTURED,
                          sha256=record.sha256, bytes=record.bytes, path=result.path)


def _decode(body: bytes, max_bytes: int, what: str) -> str:
    if len(body) > max_bytes:
        raise CaptureRefused(f"the {what} is {len(body)} bytes, over the {max_bytes} byte limit "
                             "(capture.max_bytes)")
    try:
        text = decode_text(body)
    except TextRejected as exc:
        raise CaptureRefused(f"the {what} is {exc}") from None
    if not text:
        raise CaptureRefused(f"the {what} is empty; there is nothing to cite")
    return text


def record_text(captures_dir: Path, source: str, data: bytes | str, *, sources: Sequence[str],
                max_bytes: int = DEFAULT_MAX_BYTES, content_type: str = "text/plain",
                content_types: Sequence[str] = DEFAULT_CONTENT_TYPES,
                retrieved_at: str | None = None) -> CaptureOutcome:
    """Record text a pipeline already holds as a capture of ``source``,
    without fetching anything (``capture --source URL --from-file F``).

    A retrieval-augmented system should record exactly the text the model
    was given. ``data`` is the body as bytes (strict UTF-8, one leading BOM
    removed; ``bytes`` in the record is its length) or as ``str`` (encoded as
    UTF-8 first, so the same rules apply). The same checks as a fetch apply:
    ``source`` must be in ``sources`` exactly (``http`` is accepted here,
    since nothing is fetched), no userinfo or fragment; at most ``max_bytes``
    bytes; ``content_type`` must pass :func:`check_content_type` against
    ``content_types``; ``retrieved_at`` is RFC 3339 UTC
    (``2026-01-31T12:00:00Z``; default now: a fixed value makes a generator
    reproducible). The record goes through the same exclusive writer.

    Returns:
        A ``captured`` or ``already captured`` outcome with the revision's
        ``sha256``, ``bytes`` and ``path``.

    Raises:
        CaptureRefused: any check fails, an existing file at the revision's
            path fails verification, or the file cannot be written.
    """
    check_source(source, sources, fetching=False)
    # text/plain is the documented default for held text, so it is always
    # accepted; anything else must be a type the operator allows.
    check_content_type(content_type, tuple(content_types) + DEFAULT_CONTENT_TYPES)
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            raise CaptureRefused("the text contains lone surrogates and is not valid "
                                 "Unicode") from None
    text = _decode(data, max_bytes, "text")
    try:
        record = make_record(source, text, retrieved_at=retrieved_at, content_type=content_type,
                             wire_bytes=len(data))
    except TextRejected as exc:
        raise CaptureRefused(str(exc)) from None
    return _record_outcome(captures_dir, record)


def read_input(path: str, max_bytes: int, *, stdin: object = None) -> bytes:
    """Read at most ``max_bytes`` bytes from file ``path`` (``-``: ``stdin``,
    a binary stream such as ``sys.stdin.buffer``).

    Raises:
        CaptureRefused: the input is longer than ``max_bytes``.
        OSError: the file cannot be opened or read (a usage error for the
            command line, not a refused source).
    """
    if path == "-":
        if stdin is None:
            raise OSError("no standard input to read")
        data = stdin.read(max_bytes + 1)  # type: ignore[attr-defined]
    else:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise CaptureRefused(f"{'standard input' if path == '-' else path} is over the "
                             f"{max_bytes} byte limit (capture.max_bytes)")
    return data


def capture_one(captures_dir: Path, source: str, sources: Sequence[str],
                options: FetchOptions, *, fetcher: Fetcher | None = None) -> CaptureOutcome:
    """Fetch one source and write it. Never raises for a refusal: a refused
    source comes back as an outcome with ``status == "refused"``.

    ``fetcher`` reuses a :class:`Fetcher` (its TLS context) across calls.
    """
    try:
        target = check_source(source, sources, allow_http_loopback=options.allow_http_loopback)
        fetched = (fetcher or Fetcher(options)).fetch(target)
        text = _decode(fetched.body, options.max_bytes, "body")
        record = make_record(source, text, retrieved_at=fetched.retrieved_at,
                             content_type=fetched.content_type, wire_bytes=len(fetched.body))
        return _record_outcome(captures_dir, record)
    except (CaptureRefused, TextRejected) as exc:
        return CaptureOutcome(source=source, status=REFUSED, reason=str(exc))


def select_sources(captures_dir: Path, sources: Sequence[str], urls: Sequence[str] = (), *,
                   refetch_all: bool = False) -> list[str]:
    """Which sources a capture run handles, in order, without duplicates.

    Named ``urls`` are taken as given (unapproved ones are refused later,
    with a reason); otherwise ``refetch_all`` takes every approved source,
    and the default is every approved source with no capture file yet.
    """
    if urls:
        chosen = list(urls)
    elif refetch_all:
        chosen = list(sources)
    else:
        store = Store(captures_dir)
        chosen = [s for s in sources if not store.has_source(s)]
    return list(dict.fromkeys(chosen))


def run_capture(captures_dir: Path, sources: Sequence[str], options: FetchOptions, *,
                urls: Sequence[str] = (), refetch_all: bool = False, dry_run: bool = False,
                progress: Callable[[int, int, str], None] | None = None) -> Iterator[CaptureOutcome]:
    """Capture sources one by one, yielding one outcome per source.

    ``captures_dir`` is the store root; ``sources`` the approved list; the
    selection is :func:`select_sources`. ``dry_run`` checks each URL against
    the approved list and URL policy (no network, no write) and yields
    ``would fetch`` or ``refused``. ``progress(index, total, source)`` is
    called before each source (index from 1), for a TTY progress display.
    Refusals are outcomes, never exceptions.
    """
    chosen = select_sources(captures_dir, sources, urls, refetch_all=refetch_all)
    fetcher: Fetcher | None = None
    for index, source in enumerate(chosen, start=1):
        if progress is not None:
            progress(index, len(chosen), source)
        if dry_run:
            try:
                check_source(source, sources, allow_http_loopback=options.allow_http_loopback)
            except CaptureRefused as exc:
                yield CaptureOutcome(source=source, status=REFUSED, reason=str(exc))
            else:
                yield CaptureOutcome(source=source, status=WOULD_FETCH)
            continue
        if fetcher is None:
            try:
                options.validate()
                fetcher = Fetcher(options)
            except CaptureRefused as exc:
                # A bad setting refuses every source the same way.
                yield CaptureOutcome(source=source, status=REFUSED, reason=str(exc))
                continue
        yield capture_one(captures_dir, source, sources, options, fetcher=fetcher)
