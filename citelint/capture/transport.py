"""The bounded urllib3 fetcher of the capture stage (DESIGN §5, §8).

What one fetch does, once :mod:`citelint.capture.policy` has passed the URL:

1. The host is resolved once, within the deadline, and every answer must
   pass the address policy. The connection goes to a checked address, never
   to the name, so a second DNS answer cannot change where the request
   lands (no rebinding); through a proxy, the tunnel is opened to that
   address too.
2. TLS uses a context built here (never ``create_default_context`` or
   urllib3's default, both of which honour ``SSLKEYLOGFILE``) with the system
   trust store or ``ca_file``; SNI and certificate checks are for the host
   name of the URL.
3. One request, ``Connection: close``: no redirects, no retries, status 200
   only, exactly one acceptable ``Content-Type``, no ``Content-Encoding`` but
   identity, and urllib3 is told not to decode the body.
4. One wall-clock deadline covers DNS, connect, TLS, headers and body: a
   watchdog timer shuts the socket down when it expires, because urllib3's
   per-read timeouts do not bound a server that drips bytes.
5. The body is counted while streaming and refused past ``max_bytes``,
   whatever ``Content-Length`` says. Decoding is the caller's job.
"""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass

import urllib3
import urllib3.connection
import urllib3.exceptions

from citelint import __version__
from citelint.capture.policy import (
    CaptureRefused,
    SourceTarget,
    check_addresses,
    check_content_type,
    is_ip_literal,
    parse_proxy,
)
from citelint.escape import quoted
from citelint.settings import CaptureSettings
from citelint.store.captures import utc_now

_READ_CHUNK = 64 * 1024


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


def _timed_out(exc: BaseException | None, deadline: _Deadline, watchdog: _Watchdog) -> bool:
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


class _WatchedHTTPConnection(urllib3.connection.HTTPConnection):
    """A urllib3 connection whose TCP socket is handed to the watchdog
    (plain HTTP, for loopback tests only).

    ``_new_conn`` is urllib3's hook for creating the socket; overriding it is
    the one place where the raw socket exists before TLS wraps it.
    """

    watchdog: _Watchdog | None = None

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        if self.watchdog is not None:
            self.watchdog.watch(sock)
        return sock


class _WatchedHTTPSConnection(_WatchedHTTPConnection, urllib3.connection.HTTPSConnection):
    """HTTPS with the watchdog (the ``_new_conn`` above, then urllib3's TLS)."""


# --------------------------------------------------------------------------- resolution

def _resolve(host: str, port: int, deadline: _Deadline) -> list[str]:
    """Resolve ``host`` once, within the deadline. Returns addresses in the
    resolver's preference order, without duplicates."""
    if is_ip_literal(host):
        return [host]
    answers: list[tuple[int, int, int, str, tuple[object, ...]]] = []
    errors: list[OSError | UnicodeError] = []

    def lookup() -> None:
        try:
            answers.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                              proto=socket.IPPROTO_TCP))
        except (OSError, UnicodeError) as exc:
            errors.append(exc)

    # getaddrinfo cannot be interrupted; a daemon thread lets the deadline
    # win against a resolver that hangs (the thread is abandoned).
    worker = threading.Thread(target=lookup, name="citelint-dns", daemon=True)
    worker.start()
    worker.join(deadline.remaining("the DNS lookup"))
    if worker.is_alive():
        raise deadline.expired("the DNS lookup")
    if errors:
        exc = errors[0]
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CaptureRefused(f"cannot resolve host {quoted(host)}: {detail}")
    addresses: list[str] = []
    for family, _type, _proto, _canon, sockaddr in answers:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        addr = str(sockaddr[0])
        if addr not in addresses:
            addresses.append(addr)
    if not addresses:
        raise CaptureRefused(f"host {quoted(host)} has no IPv4 or IPv6 address")
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
    # SSLContext does not; keylog_filename is cleared anyway to state intent
    # (None is the documented "off"; typeshed types the attribute as str).
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
    """Fetches approved sources under one :class:`~citelint.settings.CaptureSettings`.

    The TLS context is built once per fetcher (loading a trust store costs
    tens of milliseconds) and reused for every source.
    """

    def __init__(self, settings: CaptureSettings):
        """Raises:
            CaptureRefused: ``settings.proxy`` is not an ``http://host:port`` URL.
        """
        self.settings = settings
        self._ssl: ssl.SSLContext | None = None
        self._proxy = parse_proxy(settings.proxy) if settings.proxy else None

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = make_ssl_context(self.settings.ca_file)
        return self._ssl

    def fetch(self, target: SourceTarget) -> Fetched:
        """Fetch one checked source (see :func:`check_source`).

        Returns:
            The raw body and its metadata.

        Raises:
            CaptureRefused: any policy, network, TLS, HTTP or limit failure,
                including the deadline (``timeout_s``) passing.
        """
        opts = self.settings
        deadline = _Deadline(opts.timeout_s)
        addresses = check_addresses(target, _resolve(target.host, target.port, deadline), opts)
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
        opts = self.settings
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


def _check_response_headers(resp: urllib3.response.BaseHTTPResponse, opts: CaptureSettings) -> str:
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
    check_content_type(types[0], opts.content_types, opts.extractor_for)
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


