"""Real local servers for the capture tests: raw HTTP(S) on 127.0.0.1, a
counting listener and a CONNECT proxy. No mocks: the fetcher talks to real
sockets, real TLS (trustme certificates) and real HTTP framing.

Each server listens on 127.0.0.1 with an ephemeral port, serves every
connection on its own daemon thread, and is stopped by ``close()`` (which
also ends responders that would otherwise run forever, such as a drip).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from collections.abc import Callable

Responder = Callable[[socket.socket, bytes, threading.Event], None]


def _read_head(sock: socket.socket, limit: int = 65536) -> bytes:
    """Read an HTTP request head (up to the blank line), or b"" on EOF."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        chunk = sock.recv(4096)
        if not chunk:
            return b""
        data += chunk
    return data


class Listener:
    """A TCP listener on 127.0.0.1 whose every accepted connection goes to
    ``handle(sock)`` on a new thread. ``accepted`` counts connections."""

    def __init__(self, handle: Callable[[socket.socket], None] | None = None):
        self.stop = threading.Event()
        self.accepted = 0
        self._handle = handle
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    def _accept_loop(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self._sock], [], [], 0.05)
            if not ready:
                continue
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted += 1
            self._conns.append(conn)
            if self._handle is None:
                conn.close()
                continue
            t = threading.Thread(target=self._run, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _run(self, conn: socket.socket) -> None:
        try:
            self._handle(conn)  # type: ignore[misc]
        except (OSError, ssl.SSLError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self._thread.join(2)
        self._sock.close()
        for c in self._conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in self._threads:
            t.join(2)


class HTTPServer(Listener):
    """A raw HTTP/1.1 server: reads one request head, records it in
    ``requests``, then calls ``respond(sock, head, stop)`` to write whatever
    bytes the test wants. With ``tls_context`` the connection is TLS."""

    def __init__(self, respond: Responder, tls_context: ssl.SSLContext | None = None):
        self.respond = respond
        self.requests: list[bytes] = []
        self._tls = tls_context
        super().__init__(self._serve)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        sock = conn
        if self._tls is not None:
            sock = self._tls.wrap_socket(conn, server_side=True)
        head = _read_head(sock)
        if not head:
            return
        self.requests.append(head)
        self.respond(sock, head, self.stop)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def url(self, path: str = "/doc.txt", host: str = "localhost", scheme: str | None = None) -> str:
        scheme = scheme or ("https" if self._tls is not None else "http")
        return f"{scheme}://{host}:{self.port}{path}"


# --------------------------------------------------------------------------- responders

def response(status: str = "200 OK", headers: list[tuple[str, str]] | None = None,
             body: bytes = b"", *, content_length: bool = True) -> Responder:
    """A responder sending one complete response. ``headers`` default to
    ``Content-Type: text/plain; charset=utf-8``; a ``Content-Length`` matching
    ``body`` is added unless ``content_length`` is False or one is given."""
    hdrs = list(headers) if headers is not None else [("Content-Type", "text/plain; charset=utf-8")]
    if content_length and not any(k.lower() == "content-length" for k, _ in hdrs):
        hdrs.append(("Content-Length", str(len(body))))
    hdrs.append(("Connection", "close"))
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs) + "\r\n"
    payload = head.encode("latin-1") + body

    def respond(sock: socket.socket, _head: bytes, _stop: threading.Event) -> None:
        sock.sendall(payload)

    return respond


def drip(interval: float = 0.1, headers_first: bool = True) -> Responder:
    """Headers (no length), then one byte every ``interval`` seconds forever;
    with ``headers_first=False`` the header bytes themselves are dripped."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"

    def respond(sock: socket.socket, _head: bytes, stop: threading.Event) -> None:
        if headers_first:
            sock.sendall(head)
        else:
            sock.sendall(head[:17])
        while not stop.is_set():
            time.sleep(interval)
            # body bytes, or (headers_first=False) a header line that never ends
            sock.sendall(b"a" if headers_first else b"X")

    return respond


def silent() -> Responder:
    """Accepts the request and never answers (until the client leaves)."""

    def respond(sock: socket.socket, _head: bytes, stop: threading.Event) -> None:
        sock.settimeout(0.05)
        while not stop.is_set():
            try:
                if sock.recv(1) == b"":
                    return
            except (TimeoutError, ssl.SSLWantReadError):
                continue

    return respond


def barrier_response(barrier: threading.Barrier, body: bytes) -> Responder:
    """Waits until ``barrier.parties`` requests have arrived, then answers all
    of them at once, so concurrent clients race each other to the writer."""
    inner = response(body=body)

    def respond(sock: socket.socket, head: bytes, stop: threading.Event) -> None:
        try:
            barrier.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        inner(sock, head, stop)

    return respond


# --------------------------------------------------------------------------- proxy

class ConnectProxy(Listener):
    """A minimal HTTP CONNECT proxy. ``targets`` records each CONNECT target
    as written by the client (``host:port``); the tunnel is relayed to it."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        self.heads: list[bytes] = []
        super().__init__(self._serve)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        head = _read_head(conn)
        if not head:
            return
        self.heads.append(head)
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, target, _ = line.split(" ", 2)
        self.targets.append(target)
        if method != "CONNECT":
            conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        host, _, port = target.rpartition(":")
        upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        conn.setblocking(False)
        upstream.setblocking(False)
        try:
            while not self.stop.is_set():
                ready, _, _ = select.select([conn, upstream], [], [], 0.05)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    other = upstream if s is conn else conn
                    other.setblocking(True)
                    other.sendall(data)
                    other.setblocking(False)
        finally:
            upstream.close()
