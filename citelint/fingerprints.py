"""Review fingerprints (docs/reviews.md): what a judgment of an accepted citation is
about, as the SHA-256 of canonical JSON."""

from __future__ import annotations

import hashlib
import json
import re


def _canonical_digest(fields: dict[str, str]) -> str:
    # Canonical JSON (sorted keys, no spaces, UTF-8): what json.dumps(sort_keys=True,
    # separators=(",", ":"), ensure_ascii=False) writes, built from the C string encoder
    # directly (about three times faster: it runs for every accepted citation when a ledger exists).
    quote = json.encoder.encode_basestring
    data = "{" + ",".join(f"{quote(key)}:{quote(fields[key])}" for key in sorted(fields)) + "}"
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def fact_fingerprint(label: str, source: str, capture: str, snippet: str) -> str:
    """The review fingerprint of a cited fact: the SHA-256 (64 lower-case hex
    characters) of canonical JSON of its ``label``, ``source``, ``capture``
    digest (its captureSha256) and ``snippet``, exactly as written.

    It covers what a judgment is about and nothing else: the report's path
    and the fact's place are left out, so a moved report keeps its reviews,
    and any change to one of the four (one character of the snippet, another
    capture revision) needs a new review.
    """
    return _canonical_digest({"kind": "fact", "label": label, "source": source, "capture": capture,
                              "snippet": snippet})


#: What a sentence's fingerprint leaves out: an absolute URL (scheme:// up to
#: whitespace) or a GFM ``www.`` autolink, as a rendered sentence shows them.
_SENTENCE_URL = re.compile(r"(?<![\w.-])(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.)\S*")


def review_sentence(sentence: str) -> str:
    """``sentence`` (rendered text) as a quotation's fingerprint sees it: URLs
    removed, then every whitespace run collapsed to one space and the ends
    trimmed, so re-wrapping a paragraph or re-pointing a link keeps a review."""
    return " ".join(_SENTENCE_URL.sub(" ", sentence).split())


def quotation_fingerprint(sentence: str, source: str, capture: str, text: str) -> str:
    """The review fingerprint of an accepted quotation (a prose quotation or a
    link directive's): the SHA-256 (64 lower-case hex characters) of
    canonical JSON of its ``sentence`` as :func:`review_sentence` gives it,
    its ``source``, the ``capture`` digest that holds it and the quoted
    ``text`` as rendered. The report's path and the quotation's place are
    left out (a moved report keeps its reviews); a changed word of the
    sentence or the quotation, or another revision, needs a new review.
    """
    return _canonical_digest({"kind": "quotation", "sentence": review_sentence(sentence), "source": source,
                              "capture": capture, "text": text})
