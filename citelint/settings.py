"""The ``capture`` block's settings and their defaults (DESIGN §2.1, §5): limits,
content types, and which extractor reads which media type."""

from __future__ import annotations

from typing import NamedTuple

#: Defaults of the ``capture`` config block (DESIGN §2.1, §5).
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_CONTENT_TYPES = ("text/plain", "text/html", "application/pdf")
#: Which extractor turns a body of each media type into text, unless
#: ``capture.extractors`` says otherwise (:mod:`citelint.capture.extract`).
DEFAULT_EXTRACTORS = (("text/plain", "identity"), ("text/html", "html-text"), ("application/xhtml+xml", "html-text"),
                      ("application/pdf", "pdf-text"))
#: The media types each extractor reads (the config refuses any other pairing).
EXTRACTOR_TYPES = {
    "identity": ("text/plain",),
    "html-text": ("text/html", "application/xhtml+xml"),
    "trafilatura": ("text/html", "application/xhtml+xml"),
    "pdf-text": ("application/pdf",),
    "pypdf": ("application/pdf",),
}


class CaptureSettings(NamedTuple):
    """Limits and trust settings of the capture stage: the config's
    ``capture`` block, plus the per-run flags of ``citelint capture``.

    ``timeout_s`` is the whole-fetch deadline in seconds (DNS through the last
    body byte); ``max_bytes`` the largest body accepted, in bytes on the wire;
    ``content_types`` the accepted media types (compared without case);
    ``allow_private_addresses`` lets a source resolve to an address that is
    not globally routable; ``ca_file`` an absolute path to a PEM bundle
    replacing the system trust store; ``proxy`` an ``http://host:port`` proxy
    to tunnel through with ``CONNECT`` (never taken from the environment);
    ``user_agent`` overrides ``citelint/<version>``. ``allow_http_loopback``
    (``--allow-http-loopback``, never in the config) permits plain ``http``
    to loopback addresses only; it exists for tests and local development.
    ``extractors`` maps media types to extractor names, over
    :data:`DEFAULT_EXTRACTORS` (pairs, so the settings stay hashable);
    ``keep_raw`` keeps an extracted capture's raw body beside it;
    ``sign_key`` is the absolute path of the SSH private key that signs
    each capture written (``capture.sign_key``; None: no signing).
    Extraction has its own deadline of ``timeout_s`` seconds.

    Plain data: the config builds it, the command line derives a run's
    variant with ``_replace``, and
    :func:`citelint.capture.policy.check_settings` checks it.
    """

    timeout_s: float = DEFAULT_TIMEOUT_S
    max_bytes: int = DEFAULT_MAX_BYTES
    content_types: tuple[str, ...] = DEFAULT_CONTENT_TYPES
    allow_private_addresses: bool = False
    ca_file: str | None = None
    proxy: str | None = None
    user_agent: str | None = None
    allow_http_loopback: bool = False
    extractors: tuple[tuple[str, str], ...] = ()
    keep_raw: bool = True
    sign_key: str | None = None

    def extractor_for(self, media_type: str) -> str | None:
        """The extractor name for a lower-cased ``type/subtype``, or None when none is set."""
        return dict(DEFAULT_EXTRACTORS + self.extractors).get(media_type)
