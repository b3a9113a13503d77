"""The capture stage against real local servers (DESIGN §5, issue 3).

Every server here is real: raw HTTP/1.1 over real sockets on 127.0.0.1,
TLS with trustme certificates, a real CONNECT proxy, real subprocesses for
the concurrency test. Nothing is mocked.

Why most tests set ``allow_private_addresses=True``: the only server a test
may run listens on 127.0.0.1, which the address policy refuses by default
(that refusal is itself tested below, with the default options). The
option lets a test reach the local server so the *other* checks (status,
headers, limits, TLS) are what decides the outcome.

Each refusal asserts three things: the outcome is ``refused`` with a reason
in words, the deadline was respected (``timeout_s`` is about a second and
the slack is 1.5 s, since CI has two busy cores), and no file at all was
written (not even a ``.tmp-*``).
"""

from __future__ import annotations

import functools
import io
import json
import os
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest
import trustme

from citelint import __version__
from citelint.capture import (
    ALREADY_CAPTURED,
    CAPTURED,
    REFUSED,
    WOULD_FETCH,
    CaptureRefused,
    CaptureSettings,
    address_problem,
    capture_one,
    check_content_type,
    check_source,
    read_input,
    record_text,
    run_capture,
)
from citelint.cli import main
from citelint.store.captures import Store, capture_path, make_record
from citelint.store.writer import write_capture
from conftest import run_cli
from servers import (
    ConnectProxy,
    HTTPServer,
    Listener,
    barrier_response,
    drip,
    response,
    silent,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEADLINE = 1.0
SLACK = 1.5
TEXT = "Synthetic source: revenue rose 12% to 4.1 million in the third quarter.\n"
PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def ca_file(ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


def server_context(ca: trustme.CA, *hostnames: str) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert(*hostnames).configure_cert(ctx)
    return ctx


@pytest.fixture
def serve(ca: trustme.CA):
    """serve(respond, tls=True, hostnames=("localhost",), ca=None) -> HTTPServer;
    every server is closed at teardown."""
    started: list[Listener] = []

    def start(respond, *, tls: bool = True, hostnames: tuple[str, ...] = ("localhost",),
              issuer: trustme.CA | None = None) -> HTTPServer:
        ctx = server_context(issuer or ca, *hostnames) if tls else None
        server = HTTPServer(respond, ctx)
        started.append(server)
        return server

    yield start
    for s in started:
        s.close()


@pytest.fixture
def listeners():
    started: list[Listener] = []
    yield started
    for s in started:
        s.close()


@pytest.fixture
def captures(tmp_path: Path) -> Path:
    return tmp_path / "captures"


@pytest.fixture(autouse=True)
def no_env_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests start from an environment without proxy variables (a developer's
    shell may have them); the proxy tests set them on purpose."""
    for var in PROXY_VARS + ("SSLKEYLOGFILE",):
        monkeypatch.delenv(var, raising=False)


def options(ca_file: str | None, **kw) -> CaptureSettings:
    base = dict(timeout_s=DEADLINE, ca_file=ca_file, allow_private_addresses=True)
    base.update(kw)
    return CaptureSettings(**base)


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def assert_refused(captures: Path, url: str, opts: CaptureSettings, *words: str,
                   sources: list[str] | None = None) -> str:
    """Capture ``url`` and assert: refused, reason mentions ``words``, deadline
    respected, nothing written. Returns the reason."""
    start = time.monotonic()
    outcome = capture_one(captures, url, sources if sources is not None else [url], opts)
    elapsed = time.monotonic() - start
    assert outcome.status == REFUSED, outcome
    assert outcome.failed
    for word in words:
        assert word.lower() in outcome.reason.lower(), outcome.reason
    assert elapsed < opts.timeout_s + SLACK, f"took {elapsed:.2f} s: {outcome.reason}"
    assert files_under(captures) == [], "a refused capture wrote a file"
    return outcome.reason


@functools.lru_cache(maxsize=1)
def gzip_bomb() -> bytes:
    """~2 MB of gzip that inflates to 2 GiB of zeros (a valid stream, CRC
    included): identical full-flush deflate blocks repeated."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(1 << 20)
    block = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    n = 2048
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(zeros, crc)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + block * n + comp.flush()
            + struct.pack("<II", crc, (n << 20) & 0xFFFFFFFF))


# --------------------------------------------------------------------------- URL policy

def test_unapproved_url_is_refused_before_any_connection(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    assert_refused(captures, url, options(ca_file), "not in the approved sources",
                   sources=[url + "?", url.replace("localhost", "LOCALHOST")])
    assert server.accepted == 0


@pytest.mark.parametrize("userinfo", ["user:secret@", "user@", "@", ":pw@"])
def test_credentials_are_refused(serve, captures, ca_file, userinfo):
    server = serve(response(body=TEXT.encode()))
    url = f"https://{userinfo}localhost:{server.port}/doc.txt"
    assert_refused(captures, url, options(ca_file), "credentials")
    assert server.accepted == 0


@pytest.mark.parametrize("fragment", ["#section-2", "#"])
def test_fragment_is_refused(serve, captures, ca_file, fragment):
    server = serve(response(body=TEXT.encode()))
    assert_refused(captures, server.url() + fragment, options(ca_file), "fragment")
    assert server.accepted == 0


def test_http_is_refused_without_the_test_flag(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()), tls=False)
    assert_refused(captures, server.url(), options(ca_file), "plain http is not fetched")
    assert server.accepted == 0


def test_http_to_a_non_loopback_host_is_refused_even_with_the_test_flag(captures, ca_file):
    # 192.0.2.1 (TEST-NET-1) is not loopback: refused before any connection.
    assert_refused(captures, "http://192.0.2.1/doc.txt",
                   options(ca_file, allow_http_loopback=True), "only to loopback")


@pytest.mark.parametrize("url", ["https://localhost/a\n.txt", "https://local\thost/", " https://localhost/"])
def test_urls_a_parser_would_silently_change_are_refused(captures, ca_file, url):
    assert_refused(captures, url, options(ca_file), "control characters or surrounding spaces")


def test_other_schemes_are_refused(captures, ca_file):
    assert_refused(captures, "ftp://localhost/doc.txt", options(ca_file), "scheme")
    assert_refused(captures, "file:///etc/passwd", options(ca_file), "scheme")


# --------------------------------------------------------------------------- address policy

def test_host_name_resolving_to_loopback_is_refused_by_default(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    reason = assert_refused(captures, server.url(), options(ca_file, allow_private_addresses=False),
                            "resolves to 127.0.0.1", "loopback", "allow_private_addresses")
    assert "localhost" in reason
    assert server.accepted == 0


@pytest.mark.parametrize("literal", ["[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "127.1",
                                     "0177.0.0.1", "[::ffff:7f00:1]"])
def test_loopback_literals_are_normalised_then_refused(serve, captures, ca_file, literal):
    server = serve(response(body=TEXT.encode()), hostnames=("localhost", "127.0.0.1"))
    url = f"https://{literal}:{server.port}/doc.txt"
    assert_refused(captures, url, options(ca_file, allow_private_addresses=False), "loopback")
    assert server.accepted == 0


@pytest.mark.parametrize("address, words", [
    ("169.254.169.254", "metadata"),
    ("10.1.2.3", "private"),
    ("192.168.0.1", "private"),
    ("172.16.5.4", "private"),
    ("100.64.0.1", "carrier-grade"),
    ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"),
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("fe80::1", "link-local"),
    ("fd12:3456::1", "unique-local"),
    ("ff02::1", "multicast"),
    ("::ffff:10.0.0.1", "IPv4-mapped form of 10.0.0.1"),
    ("64:ff9b::a9fe:a9fe", "NAT64 form of 169.254.169.254"),
    ("2002:7f00:1::1", "6to4 form of 127.0.0.1"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo client form of 127.0.0.1"),
])
def test_address_policy_names_the_problem(address, words):
    problem = address_problem(address)
    assert problem is not None and words.lower() in problem.lower(), problem


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8",
                                     "64:ff9b::808:808", "2002:808:808::1",
                                     "2001:0:4136:e378:8000:63bf:f7f7:f7f7"])
def test_global_addresses_pass(address):
    """The same verdict on every Python: 6to4 and Teredo are judged by the IPv4 addresses
    they carry (8.8.8.8; Teredo server 65.54.227.120, client 8.8.8.8), though Python 3.13
    calls their prefixes private."""
    assert address_problem(address) is None


@pytest.mark.parametrize("literal", ["169.254.169.254", "[fd00::1]", "[::ffff:10.0.0.1]",
                                     "[64:ff9b::7f00:1]", "100.64.1.1"])
def test_internal_literals_are_refused_without_connecting(captures, ca_file, literal):
    # No connection is attempted: the check happens before connect, so these
    # unroutable addresses cost nothing and touch no network.
    assert_refused(captures, f"https://{literal}/doc.txt",
                   options(ca_file, allow_private_addresses=False), "only globally routable")


# --------------------------------------------------------------------------- HTTP policy

@pytest.mark.parametrize("status", ["301 Moved Permanently", "302 Found", "303 See Other",
                                    "307 Temporary Redirect", "308 Permanent Redirect"])
def test_redirects_are_refused(serve, captures, ca_file, status):
    server = serve(response(status, [("Location", "https://localhost/elsewhere.txt"),
                                     ("Content-Type", "text/plain")], b"moved"))
    assert_refused(captures, server.url(), options(ca_file), f"HTTP {status[:3]} redirect",
                   "elsewhere.txt", "never followed")
    assert len(server.requests) == 1


def test_redirect_loop_is_one_request_and_refused(serve, captures, ca_file):
    holder: dict[str, str] = {}

    def loop(sock, head, stop):
        response("302 Found", [("Location", holder["url"]), ("Content-Type", "text/plain")])(
            sock, head, stop)

    server = serve(loop)
    holder["url"] = server.url()
    assert_refused(captures, server.url(), options(ca_file), "redirect")
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", ["404 Not Found", "500 Internal Server Error", "204 No Content",
                                    "206 Partial Content"])
def test_non_200_status_is_refused(serve, captures, ca_file, status):
    server = serve(response(status, body=TEXT.encode()))
    assert_refused(captures, server.url(), options(ca_file), f"HTTP {status[:3]}", "only 200")
    assert len(server.requests) == 1


@pytest.mark.parametrize("headers, words", [
    ([], "no Content-Type"),
    ([("Content-Type", "text/plain"), ("Content-Type", "text/plain")], "2 Content-Type headers"),
    ([("Content-Type", "text/plain"), ("Content-Type", "text/html")], "2 Content-Type headers"),
    ([("Content-Type", "image/png")], "'image/png' is not in the allowed list"),
    ([("Content-Type", "text/plain; charset=iso-8859-1")], "not utf-8"),
    ([("Content-Type", "text/plain; charset=utf-8; charset=utf-8")], "more than one charset"),
    ([("Content-Type", "text/plain, text/html")], "malformed"),
    ([("Content-Type", "text")], "not a valid media type"),
])
def test_content_type_must_be_exactly_one_allowed_type(serve, captures, ca_file, headers, words):
    server = serve(response(headers=headers, body=TEXT.encode()))
    assert_refused(captures, server.url(), options(ca_file), words)


def test_content_type_rules():
    assert check_content_type("TEXT/Plain", ["text/plain"]) == "text/plain"
    assert check_content_type('text/plain;charset="UTF-8"', ["text/plain"]) == "text/plain"
    assert check_content_type("text/markdown; variant=GFM", ["text/markdown"]) == "text/markdown"
    with pytest.raises(CaptureRefused, match="utf-8"):
        check_content_type("text/plain; charset=utf8", ["text/plain"])


def test_gzip_bomb_is_refused_without_decoding(serve, captures, ca_file):
    body = gzip_bomb()
    assert len(body) < 3_000_000  # ~2 MB on the wire, 2 GiB inflated
    server = serve(response(headers=[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                            body=body))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=10_000_000),
                   "Content-Encoding 'gzip' refused")


@pytest.mark.parametrize("encoding", ["br", "deflate", "zstd", "identity, gzip"])
def test_other_content_encodings_are_refused(serve, captures, ca_file, encoding):
    # A brotli/zstd body needs no valid compressed payload: the header alone
    # decides, before a single body byte is read or decoded.
    server = serve(response(headers=[("Content-Type", "text/plain"),
                                     ("Content-Encoding", encoding)], body=b"\x8b\x02\x80hello\x03"))
    assert_refused(captures, server.url(), options(ca_file), "Content-Encoding", "refused")


def test_identity_content_encoding_is_accepted(serve, captures, ca_file):
    server = serve(response(headers=[("Content-Type", "text/plain"),
                                     ("Content-Encoding", "identity")], body=TEXT.encode()))
    assert capture_one(captures, server.url(), [server.url()], options(ca_file)).status == CAPTURED


def test_the_request_asks_for_identity_and_names_citelint(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url("/a%20b/doc.txt?x=1&y=2")
    assert capture_one(captures, url, [url], options(ca_file)).status == CAPTURED
    head = server.requests[0].decode("latin-1")
    lines = head.split("\r\n")
    assert lines[0] == "GET /a%20b/doc.txt?x=1&y=2 HTTP/1.1"
    assert f"User-Agent: citelint/{__version__}" in lines
    assert f"Host: localhost:{server.port}" in lines
    assert "Accept-Encoding: identity" in lines
    assert "Connection: close" in lines


# --------------------------------------------------------------------------- limits

def test_oversized_body_with_honest_content_length(serve, captures, ca_file):
    server = serve(response(body=b"a" * 50_000))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=1000),
                   "50000 bytes by its Content-Length", "1000 byte limit")


def test_oversized_body_with_lying_content_length(serve, captures, ca_file):
    # Claims 100 bytes, sends 50 000: the surplus is never accepted as text,
    # and the response is refused because its framing is a lie.
    server = serve(response(headers=[("Content-Type", "text/plain"), ("Content-Length", "100")],
                            body=b"a" * 50_000))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=1000),
                   "more bytes than its Content-Length")


def test_body_shorter_than_content_length_is_refused(serve, captures, ca_file):
    server = serve(response(headers=[("Content-Type", "text/plain"), ("Content-Length", "900")],
                            body=b"only a little"))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=1000), "closed before")


def test_oversized_body_without_content_length(serve, captures, ca_file):
    server = serve(response(body=b"a" * 50_000, content_length=False))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=1000), "exceeds the 1000 byte")


def test_oversized_chunked_body(serve, captures, ca_file):
    chunk = b"a" * 4000
    body = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 20 + b"0\r\n\r\n"
    server = serve(response(headers=[("Content-Type", "text/plain"),
                                     ("Transfer-Encoding", "chunked")], body=body,
                            content_length=False))
    assert_refused(captures, server.url(), options(ca_file, max_bytes=10_000), "exceeds")


def test_body_exactly_at_the_limit_is_accepted(serve, captures, ca_file):
    server = serve(response(body=b"a" * 1000, content_length=False))
    outcome = capture_one(captures, server.url(), [server.url()], options(ca_file, max_bytes=1000))
    assert outcome.status == CAPTURED and outcome.bytes == 1000


def test_server_that_never_sends_headers_hits_the_deadline(serve, captures, ca_file):
    server = serve(silent())
    assert_refused(captures, server.url(), options(ca_file), "deadline", "response headers")


def test_server_dripping_the_body_hits_the_deadline(serve, captures, ca_file):
    # One byte every 100 ms forever: each read succeeds, so only a
    # wall-clock deadline stops it.
    server = serve(drip(0.1))
    assert_refused(captures, server.url(), options(ca_file), "deadline", "body")


def test_server_dripping_headers_hits_the_deadline(serve, captures, ca_file):
    server = serve(drip(0.1, headers_first=False))
    assert_refused(captures, server.url(), options(ca_file), "deadline")


def test_plain_http_drip_hits_the_deadline_too(serve, captures, ca_file):
    server = serve(drip(0.1), tls=False)
    assert_refused(captures, server.url(), options(ca_file, allow_http_loopback=True), "deadline")


def test_tls_handshake_that_never_completes_hits_the_deadline(listeners, captures, ca_file):
    # Accepts TCP, then says nothing: the TLS handshake waits for a ServerHello.
    def mute(sock):
        sock.settimeout(5)
        try:
            while sock.recv(65536):  # ClientHello, then nothing until the client leaves
                pass
        except OSError:
            pass

    server = Listener(mute)
    listeners.append(server)
    url = f"https://localhost:{server.port}/doc.txt"
    assert_refused(captures, url, options(ca_file), "deadline")


def test_connection_refused_is_a_clear_refusal(captures, ca_file):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        assert_refused(captures, f"https://localhost:{port}/doc.txt", options(ca_file),
                       "cannot connect", "Connection refused")


# --------------------------------------------------------------------------- text

def test_invalid_utf8_is_refused(serve, captures, ca_file):
    server = serve(response(body=b"caf\xe9 au lait"))
    assert_refused(captures, server.url(), options(ca_file), "not valid UTF-8 at byte 3")


def test_empty_body_is_refused(serve, captures, ca_file):
    server = serve(response(body=b""))
    assert_refused(captures, server.url(), options(ca_file), "empty")


def test_one_bom_is_removed_and_counted_in_bytes(serve, captures, ca_file):
    body = b"\xef\xbb\xbf" + "\ufeffstill here".encode()
    server = serve(response(body=body))
    outcome = capture_one(captures, server.url(), [server.url()], options(ca_file))
    assert outcome.status == CAPTURED
    record = Store(captures).lookup(server.url(), outcome.sha256)
    assert record.text == "\ufeffstill here"  # only the first BOM is a signature
    assert record.bytes == len(body)


# --------------------------------------------------------------------------- TLS

def test_certificate_for_another_host_name_is_refused(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()), hostnames=("other.example",))
    assert_refused(captures, server.url(), options(ca_file), "certificate verification failed",
                   "localhost")


def test_untrusted_certificate_is_refused(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()), issuer=trustme.CA())
    assert_refused(captures, server.url(), options(ca_file), "certificate verification failed")


def test_system_store_does_not_trust_the_test_ca(serve, captures):
    server = serve(response(body=TEXT.encode()))
    assert_refused(captures, server.url(), options(None), "certificate verification failed")


def test_unreadable_ca_file_is_a_clear_refusal(serve, captures, tmp_path):
    server = serve(response(body=TEXT.encode()))
    assert_refused(captures, server.url(), options(str(tmp_path / "missing.pem")),
                   "cannot load CA file")


# --------------------------------------------------------------------------- proxies

def test_proxy_environment_variables_are_ignored(serve, listeners, captures, ca_file, monkeypatch):
    trap = Listener()
    listeners.append(trap)
    for var in PROXY_VARS:
        monkeypatch.setenv(var, f"http://127.0.0.1:{trap.port}")
    monkeypatch.setenv("NO_PROXY", "")
    server = serve(response(body=TEXT.encode()))
    # refused by the address policy: the proxy must not see the attempt either
    assert_refused(captures, server.url(), options(ca_file, allow_private_addresses=False),
                   "loopback")
    # and a successful fetch goes direct
    outcome = capture_one(captures, server.url(), [server.url()], options(ca_file))
    assert outcome.status == CAPTURED
    time.sleep(0.1)  # give a stray connection time to be accepted
    assert trap.accepted == 0
    assert len(server.requests) == 1


def test_configured_proxy_tunnels_to_the_checked_address(serve, listeners, captures, ca_file):
    proxy = ConnectProxy()
    listeners.append(proxy)
    server = serve(response(body=TEXT.encode()))
    outcome = capture_one(captures, server.url(), [server.url()],
                          options(ca_file, proxy=f"http://127.0.0.1:{proxy.port}"))
    assert outcome.status == CAPTURED, outcome
    # CONNECT names the address resolved and checked here, not the host name
    assert proxy.targets == [f"127.0.0.1:{server.port}"]
    # the certificate (for localhost) was still checked through the tunnel
    assert f"Host: localhost:{server.port}" in server.requests[0].decode()


def test_configured_proxy_does_not_bypass_the_address_policy(listeners, serve, captures, ca_file):
    proxy = ConnectProxy()
    listeners.append(proxy)
    server = serve(response(body=TEXT.encode()))
    assert_refused(captures, server.url(),
                   options(ca_file, proxy=f"http://127.0.0.1:{proxy.port}",
                           allow_private_addresses=False), "loopback")
    assert proxy.accepted == 0


def test_proxy_must_be_http(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    assert_refused(captures, server.url(), options(ca_file, proxy="socks5://127.0.0.1:1080"),
                   "capture.proxy must be an http://host:port URL")


# --------------------------------------------------------------------------- successes

def test_https_capture_with_ca_file_writes_a_verified_record(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    outcome = capture_one(captures, url, [url], options(ca_file))
    assert outcome.status == CAPTURED and not outcome.failed
    assert outcome.path == capture_path(captures, url, outcome.sha256)
    record = Store(captures).lookup(url, outcome.sha256)
    assert record.text == TEXT
    assert record.source == url
    assert record.content_type == "text/plain; charset=utf-8"
    assert record.bytes == len(TEXT.encode())
    assert record.retrieved_at.endswith("Z")
    assert [p.name for p in files_under(captures)] == [f"{outcome.sha256}.json"]


def test_https_capture_with_ssl_cert_file_and_the_system_store(serve, captures, ca_file,
                                                              monkeypatch, tmp_path):
    # No ca_file: the system store is used, and OpenSSL's SSL_CERT_FILE points
    # it at the test CA. SSLKEYLOGFILE is set too and must not be written.
    monkeypatch.setenv("SSL_CERT_FILE", ca_file)
    keylog = tmp_path / "keys.log"
    monkeypatch.setenv("SSLKEYLOGFILE", str(keylog))
    server = serve(response(body=TEXT.encode()))
    outcome = capture_one(captures, server.url(), [server.url()], options(None))
    assert outcome.status == CAPTURED, outcome
    assert not keylog.exists()


def test_chunked_body_without_content_length(serve, captures, ca_file):
    body = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    server = serve(response(headers=[("Content-Type", "text/plain"),
                                     ("Transfer-Encoding", "chunked")], body=body,
                            content_length=False))
    outcome = capture_one(captures, server.url(), [server.url()], options(ca_file))
    assert outcome.status == CAPTURED
    assert Store(captures).lookup(server.url(), outcome.sha256).text == "hello world"


def test_http_to_loopback_with_the_test_flag(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()), tls=False)
    outcome = capture_one(captures, server.url(), [server.url()],
                          options(ca_file, allow_http_loopback=True, allow_private_addresses=False))
    assert outcome.status == CAPTURED


def test_recapture_identical_text_is_already_captured(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    first = capture_one(captures, url, [url], options(ca_file))
    before = first.path.read_bytes(), first.path.stat().st_mtime_ns
    second = capture_one(captures, url, [url], options(ca_file))
    assert (first.status, second.status) == (CAPTURED, ALREADY_CAPTURED)
    assert second.path == first.path
    assert (first.path.read_bytes(), first.path.stat().st_mtime_ns) == before
    assert len(files_under(captures)) == 1


def test_recapture_changed_text_adds_a_revision_and_keeps_the_first(serve, captures, ca_file):
    bodies = [TEXT.encode(), (TEXT + "Corrected on Tuesday.\n").encode()]

    def changing(sock, head, stop):
        response(body=bodies.pop(0))(sock, head, stop)

    server = serve(changing)
    url = server.url()
    first = capture_one(captures, url, [url], options(ca_file))
    saved = first.path.read_bytes()
    second = capture_one(captures, url, [url], options(ca_file))
    assert (first.status, second.status) == (CAPTURED, CAPTURED)
    assert first.sha256 != second.sha256
    assert first.path.read_bytes() == saved
    assert {r.sha256 for r in Store(captures).verified_revisions(url)} == {first.sha256, second.sha256}
    assert {p.name for p in files_under(captures)} == {f"{first.sha256}.json", f"{second.sha256}.json"}


def test_existing_corrupt_file_is_never_replaced(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    good = make_record(url, TEXT)
    path = capture_path(captures, url, good.sha256)
    path.parent.mkdir(parents=True)
    path.write_text('{"tampered": true}\n')
    outcome = capture_one(captures, url, [url], options(ca_file))
    assert outcome.status == REFUSED and "never replaced" in outcome.reason
    assert path.read_text() == '{"tampered": true}\n'


# --------------------------------------------------------------------------- recording held text

def test_record_text_writes_the_same_record_as_a_fetch(captures):
    url = "https://example.org/held.txt"
    outcome = record_text(captures, url, TEXT, sources=[url], retrieved_at="2026-07-01T00:00:00Z")
    assert outcome.status == CAPTURED
    record = Store(captures).lookup(url, outcome.sha256)
    assert (record.text, record.content_type, record.bytes, record.retrieved_at) == \
        (TEXT, "text/plain", len(TEXT.encode()), "2026-07-01T00:00:00Z")
    again = record_text(captures, url, TEXT.encode(), sources=[url],
                        retrieved_at="2026-07-02T00:00:00Z")
    assert again.status == ALREADY_CAPTURED and again.sha256 == outcome.sha256


def test_record_text_accepts_approved_http_sources(captures):
    url = "http://example.org/plain.txt"
    assert record_text(captures, url, TEXT, sources=[url]).status == CAPTURED


@pytest.mark.parametrize("source, sources, data, kw, words", [
    ("https://example.org/x", ["https://example.org/y"], TEXT, {}, "not in the approved"),
    ("https://u:p@example.org/x", ["https://u:p@example.org/x"], TEXT, {}, "credentials"),
    ("https://example.org/x#f", ["https://example.org/x#f"], TEXT, {}, "fragment"),
    ("https://example.org/x", ["https://example.org/x"], b"\xff\xfe", {}, "not valid UTF-8"),
    ("https://example.org/x", ["https://example.org/x"], "a" * 11, {"max_bytes": 10}, "over the 10 byte"),
    ("https://example.org/x", ["https://example.org/x"], "", {}, "empty"),
    ("https://example.org/x", ["https://example.org/x"], "\ud800", {}, "lone surrogates"),
    ("https://example.org/x", ["https://example.org/x"], TEXT, {"retrieved_at": "yesterday"}, "RFC 3339"),
    ("https://example.org/x", ["https://example.org/x"], TEXT, {"content_type": "image/png"}, "allowed list"),
    ("https://example.org/x", ["https://example.org/x"], TEXT,
     {"content_type": "text/plain; charset=latin-1"}, "not utf-8"),
])
def test_record_text_refusals_write_nothing(captures, source, sources, data, kw, words):
    with pytest.raises(CaptureRefused, match=words.replace("(", r"\(")):
        record_text(captures, source, data, sources=sources, **kw)
    assert files_under(captures) == []


def test_read_input_is_bounded(tmp_path):
    f = tmp_path / "t.txt"
    f.write_bytes(b"x" * 11)
    assert read_input(str(f), 11) == b"x" * 11
    with pytest.raises(CaptureRefused, match="over the 10 byte limit"):
        read_input(str(f), 10)
    with pytest.raises(FileNotFoundError):
        read_input(str(tmp_path / "nope.txt"), 10)


# --------------------------------------------------------------------------- runs

def test_run_capture_selects_uncaptured_sources_and_reports_each(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    have, new = server.url("/old.txt"), server.url("/new.txt")
    write_capture(captures, make_record(have, "old text"))
    seen = []
    outcomes = list(run_capture(captures, [have, new], options(ca_file),
                                progress=lambda i, n, s: seen.append((i, n, s))))
    assert [(o.source, o.status) for o in outcomes] == [(new, CAPTURED)]
    assert seen == [(1, 1, new)]
    everything = list(run_capture(captures, [have, new], options(ca_file), refetch_all=True))
    assert [(o.source, o.status) for o in everything] == [(have, CAPTURED), (new, ALREADY_CAPTURED)]


def test_dry_run_fetches_nothing(serve, captures, ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    outcomes = list(run_capture(captures, [url], options(ca_file), dry_run=True,
                                urls=[url, "https://unapproved.example/"]))
    assert [o.status for o in outcomes] == [WOULD_FETCH, REFUSED]
    assert server.accepted == 0 and files_under(captures) == []


def test_run_capture_refuses_unusable_settings_before_trying_a_source(serve, captures, ca_file, monkeypatch):
    import citelint.capture.stage as stage

    server = serve(response(body=TEXT.encode()))
    url = server.url()
    with pytest.raises(CaptureRefused, match="capture.proxy must be an http://host:port URL"):
        run_capture(captures, [url], options(ca_file, proxy="socks5://127.0.0.1:1080"), dry_run=True)
    assert server.accepted == 0 and files_under(captures) == []
    # Checked once per run, not again when the fetcher is made.
    calls = []
    checked = stage.check_settings
    monkeypatch.setattr(stage, "check_settings", lambda settings: calls.append(settings) or checked(settings))
    assert [o.status for o in run_capture(captures, [url, url + "?b"], options(ca_file), urls=[url])] == [CAPTURED]
    assert len(calls) == 1


def test_cli_capture_reports_unusable_settings_as_a_config_error(tmp_path):
    write_config(tmp_path, ["https://example.org/"], proxy="socks5://127.0.0.1:1080")
    for extra in ((), ("--dry-run",)):
        run = run_cli("capture", *extra, cwd=tmp_path)
        assert run.code == 2, run.out + run.err
        assert "config error" in run.err and "capture.proxy must be an http://host:port URL" in run.err
        assert run.out == ""


def test_check_source_normalises_the_target():
    url = "https://EXAMPLE.org:443/a b/../c?q=1"
    t = check_source(url, [url])
    assert (t.host, t.port, t.target, t.host_header) == ("example.org", 443, "/c?q=1", "example.org")
    t = check_source("https://h.example:8443/?", ["https://h.example:8443/?"])
    assert (t.target, t.host_header) == ("/?", "h.example:8443")


# --------------------------------------------------------------------------- the command line

def write_config(root: Path, sources: list[str], **capture) -> None:
    """A citelint.yaml (JSON is YAML) approving ``sources``; the label
    ``revenue`` is approved for the end-to-end check."""
    data = {"sources": sources, "labels": ["revenue"],
            "capture": {"timeout_s": DEADLINE, "allow_private_addresses": True, **capture}}
    (root / "citelint.yaml").write_text(json.dumps(data, indent=2), encoding="utf-8")


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cli_capture_then_check_accepts_the_citation(serve, tmp_path, ca_file):
    # Writer to verifier, end to end: `citelint capture` fetches over HTTPS
    # (trustme CA via --ca-file), then `citelint check` accepts a fact report
    # and a Markdown link that cite the new capture.
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    write_config(tmp_path, [url])
    run = run_cli("capture", "--ca-file", ca_file, cwd=tmp_path)
    assert run.code == 0, run.out + run.err
    line = run.lines[0]
    assert line.startswith(f"captured: {url} revision ")
    sha = line.split(" revision ")[1].split()[0]
    assert run.lines[-1] == "1 source(s): 1 captured"
    fact = {"state": "cited", "label": "revenue", "source": url, "captureSha256": sha,
            "snippet": "revenue rose 12% to 4.1 million in the third quarter"}
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "q3.json").write_text(json.dumps({"facts": [fact]}), encoding="utf-8")
    (tmp_path / "reports" / "q3.md").write_text(f"Revenue rose, says [the source]({url}).\n",
                                                encoding="utf-8")
    check = run_cli("check", cwd=tmp_path)
    assert check.code == 0, check.out + check.err
    assert check.findings() == [f for f in check.findings() if "CL901" in f]
    # and a snippet that is not in the capture is still caught
    fact["snippet"] = "revenue rose 13%"
    (tmp_path / "reports" / "q3.json").write_text(json.dumps({"facts": [fact]}), encoding="utf-8")
    assert run_cli("check", cwd=tmp_path).code == 1


def test_cli_capture_uses_the_configured_ca_file_and_reports_already_captured(serve, tmp_path,
                                                                              ca_file):
    server = serve(response(body=TEXT.encode()))
    url = server.url()
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.pem").write_bytes(Path(ca_file).read_bytes())
    write_config(tmp_path, [url], ca_file="certs/ca.pem")  # relative to the config file
    sub = tmp_path / "reports"
    sub.mkdir()
    first = run_cli("capture", cwd=sub)
    assert first.code == 0 and first.lines[0].startswith("captured: "), first.out + first.err
    again = run_cli("capture", cwd=tmp_path)
    assert again.code == 0 and again.lines == [
        "nothing to capture: every approved source has a capture (name URLs or use --all to re-fetch)"]
    named = run_cli("capture", url, cwd=tmp_path)
    assert named.code == 0 and named.lines[0].startswith(f"already captured: {url} revision ")
    everything = run_cli("capture", "--all", cwd=tmp_path)
    assert everything.code == 0 and everything.lines[-1] == "1 source(s): 1 already captured"


def test_cli_exit_1_when_any_source_is_refused_and_the_rest_still_run(serve, tmp_path, ca_file):
    good = serve(response(body=TEXT.encode()))
    bad = serve(response("404 Not Found", body=b"gone"))
    write_config(tmp_path, [bad.url(), good.url()])
    run = run_cli("capture", "--ca-file", ca_file, cwd=tmp_path)
    assert run.code == 1
    assert run.lines[0] == f"refused: {bad.url()}: HTTP 404 Not Found; only 200 is accepted"
    assert run.lines[1].startswith(f"captured: {good.url()} ")
    assert run.lines[2] == "2 source(s): 1 captured, 1 refused"


def test_cli_dry_run_lists_and_fetches_nothing(serve, tmp_path, ca_file):
    server = serve(response(body=TEXT.encode()))
    write_config(tmp_path, [server.url()])
    run = run_cli("capture", "--dry-run", cwd=tmp_path)
    assert run.code == 0 and run.lines == [f"would fetch: {server.url()}", "1 source(s): 1 would fetch"]
    assert server.accepted == 0 and files_under(tmp_path / "captures") == []


def test_cli_unapproved_url_and_escaped_output(tmp_path):
    write_config(tmp_path, ["https://example.org/a.txt"])
    run = run_cli("capture", "https://example.org/a.txt\x1b[31m", cwd=tmp_path)
    assert run.code == 1
    assert "\x1b" not in run.out and "not in the approved sources list" in run.out


def test_cli_http_loopback_flag(serve, tmp_path):
    server = serve(response(body=TEXT.encode()), tls=False)
    write_config(tmp_path, [server.url()], allow_private_addresses=False)
    refused = run_cli("capture", cwd=tmp_path)
    assert refused.code == 1 and "plain http is not fetched" in refused.out
    run = run_cli("capture", "--allow-http-loopback", cwd=tmp_path)
    assert run.code == 0 and run.lines[0].startswith("captured: "), run.out


def test_cli_progress_only_on_a_tty(serve, tmp_path, ca_file):
    server = serve(response(body=TEXT.encode()))
    write_config(tmp_path, [server.url()], ca_file=ca_file)
    out, err = io.StringIO(), TTY()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["capture"], stdout=out, stderr=err)
    finally:
        os.chdir(old)
    assert code == 0
    assert f"[1/1] fetching {server.url()}" in err.getvalue()
    assert "\x1b" not in out.getvalue()


def test_a_retrieved_at_in_the_future_is_refused(tmp_path):
    """The store is append-only: a revision dated ahead would stay its source's newest, the one
    every untitled quotation is checked against, for good. The trusted stage refuses it (CLI and API)."""
    url = "https://example.org/held.txt"
    write_config(tmp_path, [url])
    held = tmp_path / "held.txt"
    held.write_text("What the model was given.\n", encoding="utf-8")
    run = run_cli("capture", "--source", url, "--from-file", str(held), "--retrieved-at", "2999-01-01T00:00:00Z",
                  cwd=tmp_path)
    assert run.code == 1 and "is in the future" in run.out and not (tmp_path / "captures").exists(), run.out
    import citelint

    with pytest.raises(citelint.CaptureRefused, match="in the future"):
        citelint.Project.open(tmp_path).record(url, "What the model was given.\n",
                                               retrieved_at="2999-01-01T00:00:00Z")
    assert not (tmp_path / "captures").exists()


def test_cli_from_file_and_stdin(tmp_path, monkeypatch):
    url = "https://example.org/held.txt"
    write_config(tmp_path, [url])
    held = tmp_path / "held.txt"
    held.write_bytes(b"\xef\xbb\xbfWhat the model was given.\n")
    run = run_cli("capture", "--source", url, "--from-file", str(held),
                  "--retrieved-at", "2026-07-01T00:00:00Z", cwd=tmp_path)
    assert run.code == 0 and run.lines[0].startswith(f"captured: {url} revision "), run.out + run.err
    sha = run.lines[0].split(" revision ")[1].split()[0]
    record = Store(tmp_path / "captures").lookup(url, sha)
    assert (record.text, record.bytes, record.retrieved_at, record.content_type) == \
        ("What the model was given.\n", held.stat().st_size, "2026-07-01T00:00:00Z", "text/plain")

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Piped text, revised.\n")))
    piped = run_cli("capture", "--source", url, "--from-file", "-", cwd=tmp_path)
    assert piped.code == 0 and piped.lines[0].startswith("captured: "), piped.out + piped.err
    assert len(Store(tmp_path / "captures").verified_revisions(url)) == 2

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9")))
    bad = run_cli("capture", "--source", url, "--from-file", "-", cwd=tmp_path)
    assert bad.code == 1 and "not valid UTF-8" in bad.out


@pytest.mark.parametrize("argv, words", [
    (["--source", "https://example.org/a.txt"], "only go with --from-file"),
    (["--retrieved-at", "2026-07-01T00:00:00Z"], "only go with --from-file"),
    (["--from-file", "x.txt"], "--from-file needs --source"),
    (["--from-file", "x.txt", "--source", "https://example.org/a.txt", "--all"], "cannot be combined"),
    (["https://example.org/a.txt", "--all"], "not both"),
    (["--ca-file", "missing.pem"], "no such file"),
    (["--source", "https://example.org/a.txt", "--from-file", "missing.txt"], "cannot read missing.txt"),
    (["--retrieved-at", "yesterday", "--from-file", "-", "--source", "x"], "RFC 3339"),
])
def test_cli_usage_errors_exit_2(tmp_path, argv, words):
    write_config(tmp_path, ["https://example.org/a.txt"])
    run = run_cli("capture", *argv, cwd=tmp_path)
    assert run.code == 2 and words in run.err, run.err
    assert "Traceback" not in run.err and files_under(tmp_path / "captures") == []


def test_cli_config_errors_exit_2(tmp_path):
    run = run_cli("capture", cwd=tmp_path)
    assert run.code == 2 and "citelint init" in run.err
    write_config(tmp_path, ["https://example.org/a.txt"], proxy="socks5://127.0.0.1:9")
    run = run_cli("capture", cwd=tmp_path)
    assert run.code == 2 and "capture.proxy must be an http://host:port URL" in run.err


def test_two_concurrent_capture_processes_leave_one_capture(serve, tmp_path, ca_file):
    # Real `citelint capture` processes. The server holds both responses until
    # both requests have arrived, so both processes reach the writer together.
    server = serve(barrier_response(threading.Barrier(2), TEXT.encode()))
    url = server.url()
    write_config(tmp_path, [url], timeout_s=20, ca_file=ca_file)
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    procs = [subprocess.Popen([sys.executable, "-m", "citelint", "capture", url], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    firsts = sorted(out.splitlines()[0].split(":")[0] for out, _ in results)
    assert firsts == ["already captured", "captured"], results
    assert len(server.requests) == 2
    files = files_under(tmp_path / "captures")
    assert len(files) == 1 and not files[0].name.startswith(".tmp-")
    assert Store(tmp_path / "captures").lookup(url, files[0].stem).text == TEXT


def test_a_capture_process_killed_mid_body_leaves_no_file(serve, tmp_path, ca_file):
    # SIGKILL while the body is streaming: nothing has been written yet, and
    # nothing may appear later (the writer runs only after the full body).
    server = serve(drip(0.05))
    url = server.url()
    write_config(tmp_path, [url], timeout_s=30, ca_file=ca_file)
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "citelint", "capture"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        waited = time.monotonic()
        while not server.requests and time.monotonic() - waited < 20:
            time.sleep(0.05)
        assert server.requests, "the capture process never sent its request"
        time.sleep(0.3)  # a few body bytes in flight
    finally:
        proc.kill()
        proc.wait(10)
    assert files_under(tmp_path / "captures") == []
