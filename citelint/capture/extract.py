"""Turning a raw body into a capture's text: the extractors (DESIGN §5).

Extraction happens once, in the trusted stage, by a named extractor whose
version and options go into the record, so anyone can re-run it on the raw
bytes and get the same text (``capture --verify-extraction``). ``check``
only ever reads the committed text and never imports this module.

Extractors:

- ``identity`` (``text/plain``): strict UTF-8, one leading BOM removed; a
  ``citelint.capture/1`` record with no raw file.
- ``html-text`` (``text/html``, the default): the page's visible text with
  html-text over lxml. Elements a browser does not render (``hidden``,
  inline ``display:none`` or ``visibility:hidden``, ``template``,
  ``noscript``) are dropped first; whitespace is collapsed as CSS does,
  ``&nbsp;`` becomes a space and ``&shy;`` stays U+00AD, as a browser copies
  them. Chosen by measurement on real article pages (``bench/README.md``).
- ``trafilatura`` (``text/html``): the main content only, for pages where
  boilerplate matters; ``deduplicate`` is off (it keeps state across calls).
- ``pdf-text`` (``application/pdf``, the default): the text a reader
  quotes, from pdfminer.six's layout analysis: reading order by column,
  words whole, each paragraph's lines joined by one space, ligatures as
  letters, pages separated by ``\\f``; its options record the page map and
  each page's verdict (:mod:`citelint.capture.pdftext`). Chosen by
  measurement on real PDFs (``bench/README.md``).
- ``pypdf`` (``application/pdf``): pypdf's plain ``extract_text`` of each
  page, every layout line break kept, pages separated by ``\\f``.

HTML bytes are decoded as browsers decode them (WHATWG Encoding, "determine
the encoding": BOM, then the HTTP ``charset``, then ``<meta charset>``; then
UTF-8 where the bytes are valid UTF-8, else windows-1252).

An extractor runs in a child process (``python -P -m
citelint.capture.extract``) with an address-space and CPU limit and a kill
at its deadline: a parser bomb cannot be interrupted inside a thread. Its
output is read up to a byte cap; nothing is written unless it finishes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from citelint.settings import EXTRACTOR_TYPES
from citelint.store.record import Extractor

#: Address space a child extractor may use, in bytes (RLIMIT_AS).
EXTRACT_MEMORY_BYTES = 2 * 1024 * 1024 * 1024
#: Most output a child may write, in bytes: a record holding more could not be written.
EXTRACT_OUTPUT_BYTES = 64 * 1024 * 1024
_EXIT_REFUSED = 3


class ExtractionFailed(Exception):
    """The extractor could not make a text (missing library, bad input, over a
    limit, deadline passed, crashed). ``str()`` says why and what to do."""


@dataclass(frozen=True)
class ExtractorSpec:
    """A registered extractor: the extra that installs it (``pip install
    'citelint-provenance[EXTRA]'``) and the modules it needs. The media types each reads
    are :data:`citelint.settings.EXTRACTOR_TYPES`."""

    name: str
    extra: str | None
    modules: tuple[str, ...]


EXTRACTORS = {spec.name: spec for spec in (
    ExtractorSpec("identity", None, ()),
    ExtractorSpec("html-text", "html", ("html_text", "lxml", "w3lib")),
    ExtractorSpec("trafilatura", "html-main", ("trafilatura", "lxml", "w3lib")),
    ExtractorSpec("pdf-text", "pdf", ("pdfminer",)),
    ExtractorSpec("pypdf", "pdf", ("pypdf",)),
)}
assert set(EXTRACTORS) == set(EXTRACTOR_TYPES)


@dataclass(frozen=True)
class Extracted:
    """An extractor's result: the ``text`` and the :class:`Extractor` that made it."""

    text: str
    extractor: Extractor


def spec_for(name: str) -> ExtractorSpec:
    """The registered extractor ``name``.

    Raises:
        ExtractionFailed: no such extractor (the message lists them).
    """
    spec = EXTRACTORS.get(name)
    if spec is None:
        raise ExtractionFailed(f"unknown extractor {name!r}; known: {', '.join(sorted(EXTRACTORS))}")
    return spec


def missing_install(name: str) -> str | None:
    """The install command for ``name``'s extra when one of its modules is
    not importable here, else None. Looks modules up without importing them."""
    spec = spec_for(name)
    if all(importlib.util.find_spec(m) is not None for m in spec.modules):
        return None
    return (f"the {name} extractor is not installed: pip install 'citelint-provenance[{spec.extra}]' "
            f"(from a checkout: pip install '.[{spec.extra}]')")


# --------------------------------------------------------------------------- parent side

def _limit_self(memory_bytes: int, cpu_s: int) -> None:
    """In the child, before it reads or imports anything else: cap its address
    space, CPU time, core dumps and file size (its standard error is a
    temporary file: room for a message, not a flood). Each limit is clamped
    to the hard limit already in force, which an unprivileged process cannot
    raise; not POSIX, nothing is set and the parent's deadline kill still
    bounds the time."""
    try:
        import resource
    except ImportError:
        return
    for which, soft, hard in ((resource.RLIMIT_AS, memory_bytes, memory_bytes),
                              (resource.RLIMIT_CPU, cpu_s, cpu_s + 1),
                              (resource.RLIMIT_CORE, 0, 0),
                              (resource.RLIMIT_FSIZE, 1 << 20, 1 << 20)):
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            pass


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # gone already, or no process groups (Windows)
        try:
            proc.kill()
        except OSError:
            pass
    proc.wait()


def run_extractor(name: str, raw: bytes, content_type: str, *, deadline_s: float,
                  memory_bytes: int = EXTRACT_MEMORY_BYTES,
                  max_output_bytes: int = EXTRACT_OUTPUT_BYTES) -> Extracted:
    """Run extractor ``name`` on ``raw`` (the body as received, bytes) in a
    child process and return its text.

    ``content_type`` is the ``Content-Type`` value the body came with (its
    ``charset`` takes part in decoding HTML). The child gets ``memory_bytes``
    of address space, ``deadline_s`` seconds of CPU, no file writes, and is
    killed when ``deadline_s`` seconds of wall time have passed or its output
    exceeds ``max_output_bytes``.

    Raises:
        ExtractionFailed: the extractor is unknown or not installed, refused
            the input, ran out of time or memory, wrote too much, or crashed.
    """
    spec_for(name)
    if name not in _RUN:
        raise ExtractionFailed(f"{name} is not an extraction: its text is the body itself")
    hint = missing_install(name)
    if hint:
        raise ExtractionFailed(hint)
    if not content_type.isprintable():
        raise ExtractionFailed("the Content-Type contains control characters")
    started = time.monotonic()
    # The child imports this very package, whatever the working directory
    # (an empty one) or an installation elsewhere would offer; -P keeps the
    # directory out of sys.path.
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    argv = [sys.executable, "-P", "-m", "citelint.capture.extract", name, content_type, str(memory_bytes),
            str(max(1, int(deadline_s + 0.999)))]
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr, \
            tempfile.TemporaryDirectory(prefix="citelint-extract-") as cwd:
        stdin.write(raw)
        stdin.seek(0)
        try:
            proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd, env=env,
                                    start_new_session=True)
        except (OSError, ValueError) as exc:
            raise ExtractionFailed(f"the {name} extractor could not be started ({exc})") from None
        try:
            code, chunks = _collect(proc, name, started, deadline_s, max_output_bytes)
        finally:
            if proc.poll() is None:  # an exception or Ctrl-C here: no orphan keeps parsing
                _kill(proc)
        # The last lines say why: earlier ones may be a library's warnings.
        stderr.seek(max(0, stderr.seek(0, os.SEEK_END) - 4096))
        said = stderr.read().decode("utf-8", "replace").strip()
    if code != 0:
        raise ExtractionFailed(_failure(name, code, said, memory_bytes))
    try:
        out = json.loads(b"".join(chunks).decode("utf-8", "surrogatepass"))
        return Extracted(out["text"], Extractor(name, out["version"], out["options"]))
    except (ValueError, KeyError, TypeError):
        raise ExtractionFailed(f"the {name} extractor wrote no usable result") from None


def _collect(proc: subprocess.Popen, name: str, started: float, deadline_s: float,
             max_output_bytes: int) -> tuple[int, list[bytes]]:
    """Read the child's output until it exits; (exit status, output chunks).

    Raises:
        ExtractionFailed: the deadline passed or the output grew over the cap
            (the child is killed).
    """
    # A reader thread rather than select(): pipes cannot be selected on Windows.
    stdout = proc.stdout
    assert stdout is not None
    chunks: list[bytes] = []
    over = threading.Event()

    def pump() -> None:
        size = 0
        while chunk := stdout.read1(1 << 20):  # type: ignore[attr-defined]  # a BufferedReader (bufsize -1)
            size += len(chunk)
            if size > max_output_bytes:
                over.set()
                _kill(proc)
                return
            chunks.append(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    reader.join(max(0.0, deadline_s - (time.monotonic() - started)))
    if reader.is_alive():
        _kill(proc)
        reader.join()
        raise ExtractionFailed(f"the {name} extractor did not finish within the {deadline_s:g} s "
                               "deadline (capture.timeout_s); nothing was written")
    if over.is_set():
        raise ExtractionFailed(f"the {name} extractor's text is over {max_output_bytes} bytes, more "
                               "than a capture may hold; nothing was written")
    stdout.close()
    try:
        return proc.wait(max(0.1, deadline_s - (time.monotonic() - started))), chunks
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise ExtractionFailed(f"the {name} extractor did not exit within the {deadline_s:g} s deadline") from None


def _failure(name: str, code: int, said: str, memory_bytes: int) -> str:
    if code == _EXIT_REFUSED and said:
        return said.splitlines()[-1]
    if code == -getattr(signal, "SIGXCPU", 0):
        return f"the {name} extractor ran out of CPU time; nothing was written"
    if code == -getattr(signal, "SIGKILL", 0):
        return f"the {name} extractor was killed (out of CPU time or memory); nothing was written"
    if "MemoryError" in said:
        return f"the {name} extractor ran out of memory (limit {memory_bytes} bytes); nothing was written"
    last = said.splitlines()[-1] if said else f"exit status {code}"
    return f"the {name} extractor failed: {last[:300]}"


# --------------------------------------------------------------------------- decoding

_UTF8_BOM, _UTF16LE_BOM, _UTF16BE_BOM = b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"


def _decoder_for(label: str | None, *, from_meta: bool) -> str | None:
    """The Python codec for an encoding label, as WHATWG Encoding §4.2 maps it
    (w3lib's table; ``latin1`` means windows-1252), or None when unknown.
    ``utf-16`` means UTF-16LE; from a ``<meta>`` declaration a UTF-16 label
    means UTF-8 and ``x-user-defined`` windows-1252 (HTML §13.2.3.2)."""
    from w3lib.encoding import resolve_encoding

    if not label:
        return None
    label = label.strip().lower()
    if from_meta and (label.startswith("utf-16") or label == "x-user-defined"):
        return "utf-8" if label.startswith("utf-16") else "cp1252"
    if label in ("utf-16", "utf16", "unicode", "ucs-2", "csunicode", "iso-10646-ucs-2", "unicodefeff"):
        return "utf-16-le"
    try:
        return resolve_encoding(label)
    except LookupError:
        return None


def decode_html(raw: bytes, content_type: str) -> tuple[str, str]:
    """Decode an HTML body as a browser does (WHATWG Encoding §4.2 and HTML
    §13.2.3.2): a BOM wins, then the ``charset`` of ``content_type``, then a
    ``<meta charset>`` or ``http-equiv`` declaration in the first bytes
    (w3lib's prescan); with none, UTF-8 when the bytes are valid UTF-8, else
    windows-1252. Undecodable bytes become U+FFFD, as in a browser.

    Returns:
        (codec name, text).
    """
    from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding

    for bom, bom_enc in ((_UTF8_BOM, "utf-8"), (_UTF16LE_BOM, "utf-16-le"), (_UTF16BE_BOM, "utf-16-be")):
        if raw.startswith(bom):
            return bom_enc, raw[len(bom):].decode(bom_enc, "replace")
    enc = _decoder_for(http_content_type_encoding(content_type or ""), from_meta=False) or \
        _decoder_for(html_body_declared_encoding(raw[:4096]), from_meta=True)
    if enc is None:
        try:
            return "utf-8", raw.decode("utf-8")
        except UnicodeDecodeError:
            enc = "cp1252"
    try:
        return enc, raw.decode(enc, "replace")
    except LookupError:  # a label w3lib knows but this Python has no codec for
        return "cp1252", raw.decode("cp1252", "replace")


# --------------------------------------------------------------------------- the extractors (child side)

_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)",
                           re.IGNORECASE)
_UNRENDERED = ("template", "noscript")


def _drop_unrendered(tree: Any) -> None:
    """Remove what a browser does not render: ``hidden`` elements, inline
    ``display:none`` and ``visibility:hidden``, ``template`` and (scripting
    on) ``noscript``. The tail text after each element stays."""
    doomed = [el for el in tree.iter() if isinstance(el.tag, str) and (
        el.tag in _UNRENDERED or el.get("hidden") is not None or _HIDDEN_STYLE.search(el.get("style") or ""))]
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()


def _lxml_versions() -> dict:
    import lxml.etree

    return {"lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
            "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION))}


def _parse_html(raw: bytes, content_type: str) -> tuple[str, Any]:
    import lxml.html

    encoding, text = decode_html(raw, content_type)
    # lxml refuses a str that still declares an encoding in an XML prolog.
    text = re.sub(r"^\s*<\?xml[^>]*>", "", text)
    # huge_tree: without it libxml2 stops at a nesting depth of 256 and at
    # about 10 MB of text and returns what it has, silently; the child's
    # address-space limit bounds the memory instead.
    parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        tree = lxml.html.document_fromstring(text or "<html></html>", parser=parser)
    except Exception as exc:  # noqa: BLE001 - lxml.etree.ParserError and friends, unlisted
        raise ValueError(f"the HTML cannot be parsed ({exc})") from None
    return encoding, tree


def _html_text(raw: bytes, content_type: str) -> tuple[str, str, dict]:
    import html_text

    encoding, tree = _parse_html(raw, content_type)
    _drop_unrendered(tree)
    options = {"encoding": encoding, "dropUnrendered": True, "guessPunctSpace": True, "guessLayout": True,
               **_lxml_versions(), **_versions("w3lib", "lxml-html-clean")}
    text = html_text.extract_text(tree, guess_punct_space=True, guess_layout=True)
    return text, _version("html-text"), options


_TRAFILATURA_OPTIONS: dict[str, Any] = {"deduplicate": False, "favor_precision": False, "favor_recall": False,
                        "include_comments": False, "include_tables": True, "include_formatting": False,
                        "include_links": False, "include_images": False, "fast": False}


def _trafilatura(raw: bytes, content_type: str) -> tuple[str, str, dict]:
    import trafilatura

    encoding, text = decode_html(raw, content_type)
    out = trafilatura.extract(text, output_format="txt", **_TRAFILATURA_OPTIONS) or ""
    options = {"encoding": encoding, **_TRAFILATURA_OPTIONS, **_lxml_versions(),
               **_versions("w3lib", "justext", "htmldate", "courlan")}
    return out, _version("trafilatura"), options


def _pypdf(raw: bytes, content_type: str) -> tuple[str, str, dict]:
    import io

    import pypdf
    from pypdf.errors import DependencyError, LimitReachedError, PyPdfError

    try:
        reader = pypdf.PdfReader(io.BytesIO(raw), strict=False)
        locked = reader.is_encrypted and not reader.decrypt("")
        pages = [] if locked else [page.extract_text(extraction_mode="plain") or "" for page in reader.pages]
    except LimitReachedError as exc:  # not a PdfReadError: pypdf's own bounds, e.g. on FlateDecode output
        raise ValueError(f"the PDF is over a pypdf safety limit, as a decompression bomb is "
                         f"({str(exc)[:200]})") from None
    except DependencyError:
        raise ValueError("the PDF is AES-encrypted and pypdf needs the cryptography package to read it: "
                         "pip install cryptography") from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"the PDF cannot be read ({type(exc).__name__}: {str(exc)[:200]})") from None
    if locked:
        raise ValueError("the PDF is encrypted with a password; capture an unencrypted copy")
    return "\f".join(pages), _version("pypdf"), {"extractionMode": "plain", "pageSeparator": "\f"}


def _pdf_text(raw: bytes, content_type: str) -> tuple[str, str, dict]:
    from citelint.capture.pdftext import extract

    return extract(raw)


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _versions(*dists: str) -> dict:
    """The installed versions of what an extractor's output also depends on."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for dist in dists:
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


_RUN: dict[str, Callable[[bytes, str], tuple[str, str, dict]]] = {
    "html-text": _html_text, "trafilatura": _trafilatura, "pdf-text": _pdf_text, "pypdf": _pypdf}


def extract_here(name: str, raw: bytes, content_type: str) -> Extracted:
    """Run extractor ``name`` in this process (what the child does); for
    tests of determinism. Prefer :func:`run_extractor`, which bounds it.

    Raises:
        ValueError: the extractor refuses the input (the message says why).
        KeyError: ``name`` is not a child-side extractor.
    """
    text, version, options = _RUN[name](raw, content_type)
    return Extracted(text, Extractor(name, version, options))


def _main(argv: list[str]) -> int:
    name, content_type, memory_bytes, cpu_s = argv
    _limit_self(int(memory_bytes), int(cpu_s))
    import logging
    import warnings

    # Libraries' warnings (pypdf logs every repaired xref) would bury the one
    # line that says why an input was refused.
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    raw = sys.stdin.buffer.read()
    try:
        result = extract_here(name, raw, content_type)
    except ValueError as exc:
        sys.stderr.write(f"{exc}\n")
        return _EXIT_REFUSED
    except RecursionError:
        sys.stderr.write(f"the {name} extractor refused a document nested too deeply\n")
        return _EXIT_REFUSED
    out = json.dumps({"text": result.text, "version": result.extractor.version,
                      "options": result.extractor.options}, ensure_ascii=False)
    sys.stdout.buffer.write(out.encode("utf-8", "surrogatepass"))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
