"""Signed evidence (DESIGN §9): the statement a signature covers, the
signature file, and the check-side verification (rules CL401–CL403).

**What is signed.** An in-toto Statement v1 about one capture file::

    {"_type": "https://in-toto.io/Statement/v1",
     "subject": [{"name": "<sha256(source)>/<sha256(text)>.json",
                  "digest": {"sha256": "<SHA-256 of the file's exact bytes>"}}],
     "predicateType": "https://citelint.dev/attestation/capture/v1",
     "predicate": {"source": ..., "sha256": "<text digest>", "retrievedAt": ...,
                   "rawSha256": ..., "extractor": {...},     (extracted captures only)
                   "signedAt": "<RFC 3339 UTC, not before retrievedAt>"}}

**How it is stored.** A DSSE envelope (the in-toto attestation envelope,
also what a Sigstore bundle carries) in
``<sha256(source)>/<sha256(text)>.<first 16 hex of SHA-256(public key)>.sig``,
one JSON line: ``payloadType`` ``application/vnd.in-toto+json``,
``payload`` the statement's bytes in base64, and one entry in
``signatures``: ``keyid`` (the OpenSSH fingerprint) and ``sig``, the base64
SSHSIG blob (:mod:`citelint.evidence.sshsig`) over DSSE's pre-authentication
encoding of the payload, in namespace ``citelint``.

**Who may sign.** ``evidence.allowed_signers`` (:mod:`citelint.evidence.allowed_signers`),
judged at the statement's ``signedAt``.

Read-only: this module opens capture and signature files for reading and,
without the ``cryptography`` library, runs ``ssh-keygen`` with the
signature on a pipe; it never writes, and never imports the capture stage.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citelint.evidence.allowed_signers import Entry, SignersError, judge, load, time_after
from citelint.evidence.sshsig import EXTRA_HINT, BackendMissing, Signature, SignatureFormatError, verify
from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.store.captures import MAX_CAPTURE_FILE_BYTES
from citelint.store.record import CaptureRecord, is_rfc3339_utc, sha256_hex, strict_json

if TYPE_CHECKING:
    from citelint.config import Config
    from citelint.store.captures import Store

__all__ = ["EvidenceVerifier", "SignatureInvalid", "SignersError", "verifier_for", "make_envelope",
           "make_statement", "parse_envelope", "check_statement", "signature_files", "signature_name"]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://citelint.dev/attestation/capture/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
#: The SSHSIG namespace of every citelint signature (git signs commits in "git").
NAMESPACE = "citelint"
#: A signature file larger than this is refused unread (a real one is under 4 KiB).
MAX_SIGNATURE_BYTES = 64 * 1024
_SIG_NAME = re.compile(r"([0-9a-f]{64})\.([0-9a-f]{16})\.sig")
_HEX64 = re.compile(r"[0-9a-f]{64}")
PREDICATE_KEYS = frozenset({"source", "sha256", "retrievedAt", "signedAt"})
PREDICATE_KEYS_V2 = PREDICATE_KEYS | {"rawSha256", "extractor"}


class SignatureInvalid(ValueError):
    """A signature file that does not verify (CL402); ``str()`` says why."""


# --------------------------------------------------------------------------- layout

def signature_name(sha256: str, key_hex: str) -> str:
    """``<sha256>.<first 16 hex of key_hex>.sig``; ``key_hex`` is :meth:`PublicKey.fingerprint_hex`."""
    return f"{sha256}.{key_hex[:16]}.sig"


def is_signature_name(name: str) -> bool:
    """True for a file name of the signature layout."""
    return _SIG_NAME.fullmatch(name) is not None


def capture_name(source: str, sha256: str) -> str:
    """The statement subject's name: the capture's path inside the store."""
    return f"{sha256_hex(source)}/{sha256}.json"


def signature_files(directory: Path, sha256: str) -> list[Path]:
    """The signature files of revision ``sha256`` in the source directory
    ``directory`` (names only, unverified), sorted; empty when there is none."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(directory / n for n in names if n.startswith(sha256 + ".") and is_signature_name(n))


# --------------------------------------------------------------------------- statement and envelope

def make_statement(record: CaptureRecord, capture_bytes: bytes, signed_at: str) -> bytes:
    """The statement's bytes for ``record`` stored as ``capture_bytes``,
    signed at ``signed_at`` (RFC 3339 UTC): compact JSON, sorted keys, ASCII."""
    predicate: dict[str, Any] = {"source": record.source, "sha256": record.sha256,
                                 "retrievedAt": record.retrieved_at, "signedAt": signed_at}
    if record.extractor is not None:
        predicate["rawSha256"] = record.raw_sha256
        predicate["extractor"] = record.extractor.to_obj()
    statement = {"_type": STATEMENT_TYPE,
                 "subject": [{"name": capture_name(record.source, record.sha256),
                              "digest": {"sha256": sha256_hex(capture_bytes)}}],
                 "predicateType": PREDICATE_TYPE, "predicate": predicate}
    return json.dumps(statement, ensure_ascii=True, separators=(",", ":"), sort_keys=True).encode("ascii")


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what the key signs."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def make_envelope(payload: bytes, keyid: str, sshsig: bytes) -> bytes:
    """The signature file's bytes: one DSSE envelope as a JSON line."""
    envelope = {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode("ascii"),
                "signatures": [{"keyid": keyid, "sig": base64.b64encode(sshsig).decode("ascii")}]}
    return (json.dumps(envelope, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def _strict_json(data: bytes, what: str) -> Any:
    return strict_json(data, what, SignatureInvalid)


def _b64(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise SignatureInvalid(f"{what} is not a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureInvalid(f"{what} is not valid base64") from None


def _fast_envelope(data: bytes) -> tuple[bytes, str, bytes] | None:
    """(payload, keyid, signature blob) when ``data`` is exactly what
    :func:`make_envelope` writes for them (the usual file: one C-decoder
    parse and a byte comparison), else None (then parsed strictly)."""
    try:
        obj = json.loads(data)
        sig = obj["signatures"][0]
        found = base64.b64decode(obj["payload"], validate=True), sig["keyid"], base64.b64decode(sig["sig"],
                                                                                                  validate=True)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, binascii.Error):
        return None
    if not isinstance(found[1], str) or make_envelope(*found) != data:
        return None
    return found


def parse_envelope(data: bytes) -> tuple[bytes, Signature]:
    """The payload and the parsed SSH signature of a signature file.

    Raises:
        SignatureInvalid: not a DSSE envelope of exactly one SSH signature,
            or its ``keyid`` is not the OpenSSH fingerprint (``SHA256:...``)
            of the key the signature embeds.
    """
    fast = _fast_envelope(data)
    if fast is not None:
        payload, keyid, blob = fast
    else:
        payload, keyid, blob = _strict_envelope(data)
    try:
        signature = Signature.parse(blob)
    except SignatureFormatError as exc:
        raise SignatureInvalid(f"the SSH signature is malformed: {exc}") from None
    # DSSE lets a verifier pick the key by keyid: one that names another key than the
    # signature's would send such a verifier to the wrong key.
    if keyid != signature.public_key.fingerprint():
        raise SignatureInvalid(f"the envelope's keyid {keyid[:60]!r} is not the fingerprint of the key that made "
                               f"the signature ({signature.public_key.fingerprint()})")
    return payload, signature


def _strict_envelope(data: bytes) -> tuple[bytes, str, bytes]:
    """(payload, keyid, signature blob) of an envelope in any JSON form, parsed strictly.

    Raises:
        SignatureInvalid: not a DSSE envelope of exactly one signature.
    """
    obj = _strict_json(data, "the signature file")
    if not isinstance(obj, dict) or set(obj) != {"payloadType", "payload", "signatures"}:
        raise SignatureInvalid("the signature file is not a DSSE envelope (payloadType, payload, signatures)")
    if obj["payloadType"] != PAYLOAD_TYPE:
        raise SignatureInvalid(f"payloadType is {str(obj['payloadType'])[:60]!r}, not {PAYLOAD_TYPE!r}")
    sigs = obj["signatures"]
    if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], dict) \
            or set(sigs[0]) != {"keyid", "sig"} or not isinstance(sigs[0]["keyid"], str):
        raise SignatureInvalid("the envelope must hold exactly one signature {keyid, sig} (one file per key)")
    return _b64(obj["payload"], "the payload"), sigs[0]["keyid"], _b64(sigs[0]["sig"], "the signature")


def check_statement(payload: bytes, record: CaptureRecord, capture_bytes: bytes) -> str:
    """The statement's ``signedAt`` when ``payload`` is a statement about
    exactly this capture file and record.

    Raises:
        SignatureInvalid: another shape, another capture, a record that
            changed since it was signed, or a ``signedAt`` before ``retrievedAt``.
    """
    try:
        # The usual statement is exactly what make_statement writes: rebuilt and compared
        # byte for byte, it needs no strict parse (duplicate keys or any other form fail it).
        signed_at = json.loads(payload)["predicate"]["signedAt"]
        if isinstance(signed_at, str) and is_rfc3339_utc(signed_at) and \
                not time_after(record.retrieved_at, signed_at) and \
                make_statement(record, capture_bytes, signed_at) == payload:
            return signed_at
    except (ValueError, TypeError, KeyError, RecursionError):
        pass
    obj = _strict_json(payload, "the signed statement")
    if not isinstance(obj, dict) or set(obj) != {"_type", "subject", "predicateType", "predicate"} \
            or obj["_type"] != STATEMENT_TYPE or obj["predicateType"] != PREDICATE_TYPE:
        raise SignatureInvalid(f"the signed payload is not an in-toto Statement v1 with predicate {PREDICATE_TYPE}")
    subject, predicate = obj["subject"], obj["predicate"]
    if not (isinstance(subject, list) and len(subject) == 1 and isinstance(subject[0], dict)
            and set(subject[0]) == {"name", "digest"} and isinstance(subject[0]["digest"], dict)):
        raise SignatureInvalid("the statement's subject is not one {name, digest}")
    if subject[0]["name"] != capture_name(record.source, record.sha256):
        raise SignatureInvalid(f"the statement is about another capture ({str(subject[0]['name'])[:140]!r}): "
                               "this signature file was copied from elsewhere")
    if subject[0]["digest"] != {"sha256": sha256_hex(capture_bytes)}:
        raise SignatureInvalid("the capture file's bytes are not the ones that were signed (the record was "
                               "altered after signing)")
    expected = PREDICATE_KEYS_V2 if record.extractor is not None else PREDICATE_KEYS
    if not isinstance(predicate, dict) or set(predicate) != expected:
        raise SignatureInvalid("the statement's predicate does not have the keys of this capture's record")
    want: dict[str, Any] = {"source": record.source, "sha256": record.sha256, "retrievedAt": record.retrieved_at}
    if record.extractor is not None:
        want.update(rawSha256=record.raw_sha256, extractor=record.extractor.to_obj())
    differs = sorted(k for k, v in want.items() if predicate[k] != v)
    if differs:
        raise SignatureInvalid(f"the statement's {', '.join(differs)} disagree with the capture record")
    signed_at = predicate["signedAt"]
    if not isinstance(signed_at, str) or not is_rfc3339_utc(signed_at):
        raise SignatureInvalid("the statement's signedAt is not an RFC 3339 UTC time")
    if time_after(record.retrieved_at, signed_at):
        raise SignatureInvalid(f"signedAt {signed_at} is before the capture's retrievedAt {record.retrieved_at}")
    if make_statement(record, capture_bytes, signed_at) != payload:
        raise SignatureInvalid("the statement is not in the form citelint writes (compact JSON, sorted keys)")
    return signed_at


# --------------------------------------------------------------------------- verification

@dataclass
class CaptureEvidence:
    """What one capture's signatures prove: ``signers`` (principals of the
    signatures that verify and are allowed) and ``problems``, (rule, message)
    pairs of CL402/CL403, one per signature file that fails."""

    signers: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    files: int = 0


class EvidenceVerifier:
    """Judges the signatures of cited captures against the allowed signers.

    ``entries`` is the parsed ``evidence.allowed_signers``; ``require`` is
    ``evidence.require_signatures`` (CL401); ``display(path)`` shows a path
    as findings do. One verification per capture file, not per fact:
    results are kept per (source, sha256) for the run (small: no text).
    Picklable, so ``check --jobs`` can hand it to worker processes.
    """

    def __init__(self, entries: list[Entry], require: bool, display: Callable[[Path], str]):
        self.entries, self.require, self.display = entries, require, display
        self._seen: dict[tuple[str, str], CaptureEvidence] = {}

    def evidence(self, store: Store, record: CaptureRecord) -> CaptureEvidence:
        """The signatures of the verified capture ``record`` in ``store``, judged."""
        key = (record.source, record.sha256)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._judge(store.root, record)
        return found

    def issues(self, store: Store, record: CaptureRecord) -> list[tuple[str, str]]:
        """(rule, message) findings for a fact citing ``record``: CL402 and
        CL403 per failing signature file, and CL401 when no signature file
        exists and ``require_signatures`` is on."""
        found = self.evidence(store, record)
        out = list(found.problems)
        if not found.files and self.require:
            out.append(("CL401", f"capture {record.sha256[:12]}… has no signature, and evidence.require_signatures "
                                 "is on; the trusted capture job signs it (`citelint attest --sign-key KEY "
                                 f"{record.source} --revision {record.sha256[:12]}`) in a change of its own"))
        return out

    def _judge(self, root: Path, record: CaptureRecord) -> CaptureEvidence:
        directory = root / sha256_hex(record.source)
        files = signature_files(directory, record.sha256)
        found = CaptureEvidence(files=len(files))
        if not files:
            return found
        try:
            capture_bytes = read_regular(directory / f"{record.sha256}.json", MAX_CAPTURE_FILE_BYTES,
                                         follow_symlinks=False)
        except (OSError, FileTooLarge) as exc:
            found.problems.append(("CL402", f"the capture file cannot be read again to check its signatures ({exc})"))
            return found
        for path in files:
            rule, message = self._one(path, record, capture_bytes)
            if rule:
                found.problems.append((rule, f"signature {self.display(path)}: {message}"))
            else:
                found.signers.append(message)
        return found

    def _one(self, path: Path, record: CaptureRecord, capture_bytes: bytes) -> tuple[str, str]:
        """("", principals) for a good signature, else (rule, why)."""
        try:
            data = read_regular(path, MAX_SIGNATURE_BYTES, follow_symlinks=False)
        except FileTooLarge:
            return "CL402", f"over {MAX_SIGNATURE_BYTES} bytes; refused unread"
        except NotRegularFile:
            return "CL402", "not a regular file"
        except OSError as exc:
            return "CL402", f"cannot be opened safely ({exc.strerror or exc})"
        try:
            payload, sig = parse_envelope(data)
            if sig.public_key.fingerprint_hex()[:16] != path.name.split(".")[1]:
                raise SignatureInvalid(f"it is signed by key {sig.public_key.fingerprint()}, not the key its "
                                       "file name names")
            if sig.namespace != NAMESPACE:
                raise SignatureInvalid(f"it was made for the namespace {sig.namespace[:40]!r}, not {NAMESPACE!r}")
            # A key the operator never listed cannot vouch for anything: it is refused before
            # the (costly, possibly out-of-process) verification a hostile file could ask for.
            entry, why = judge(self.entries, sig.public_key, NAMESPACE, None)
            if entry is None:
                return "CL403", f"{why}; only keys the operator lists in evidence.allowed_signers may sign evidence"
            try:
                good = verify(sig, pae(PAYLOAD_TYPE, payload), NAMESPACE)
            except BackendMissing:
                raise SignatureInvalid(f"it cannot be verified here: {EXTRA_HINT}") from None
            if not good:
                raise SignatureInvalid("the signature does not verify (the file was altered, or it was never "
                                       "made by that key)")
            signed_at = check_statement(payload, record, capture_bytes)
        except SignatureInvalid as exc:
            return "CL402", str(exc)
        entry, why = judge(self.entries, sig.public_key, NAMESPACE, signed_at)
        if entry is None:
            return "CL403", f"{why}; only keys the operator lists in evidence.allowed_signers may sign evidence"
        return "", entry.principals

    def source_state(self, store: Store, source: str) -> tuple[bool, tuple[str, str] | None]:
        """For a Markdown link to ``source``: (whether a verified capture of it
        carries an allowed signature, the first CL402/CL403 problem among
        the captures read or None). Reads the captures one by one, in digest
        order, and stops at the first one with an allowed signature, whose
        own failing signature files still count (someone wrote them);
        corrupt captures are skipped (CL103 is the store's business)."""
        from citelint.store.record import CaptureError

        problem = None
        for rev in store.revisions(source):
            try:
                record = store.lookup(source, rev.sha256)
            except CaptureError:
                continue
            found = self.evidence(store, record)
            problem = problem or (found.problems[0] if found.problems else None)
            if found.signers:
                return True, problem
        return False, problem

    def link_problem(self, store: Store, source: str) -> tuple[str, str] | None:
        """Why a Markdown link to ``source`` is not grounded by signed
        evidence, as (rule, message), or None when it is: a capture with an
        allowed signature and no failing signature file grounds it; a failing
        signature file (beside a good one or not) is CL402 or CL403; no
        signature at all is CL401 under ``require_signatures``."""
        signed, problem = self.source_state(store, source)
        if problem is not None:
            return problem
        if signed:
            return None
        if self.require:
            return "CL401", ("no capture of this source has a signature from an allowed signer, and "
                             "evidence.require_signatures is on; the trusted capture job signs them "
                             f"(`citelint attest --sign-key KEY {source} --revision SHA256`); --fix leaves "
                             "this link alone")
        return None

    def unsigned_captures(self, store: Store, sources: Sequence[str]) -> list[tuple[Path, str]]:
        """(capture file, CL401 message) for every capture file of the
        approved ``sources`` in ``store`` that has no signature file, cited
        or not, in source then digest order; empty unless
        ``require_signatures`` is on. Lists the sources' directories only
        (no file is read): a capture nobody signed is a forgery waiting to be
        cited, or to be signed by ``attest`` by mistake.
        """
        if not self.require:
            return []
        out = []
        for source in dict.fromkeys(sources):
            revisions = store.revisions(source)
            try:
                names = os.listdir(revisions[0].path.parent) if revisions else []
            except OSError:
                names = []
            signed = {n.split(".", 1)[0] for n in names if is_signature_name(n)}
            for rev in revisions:
                if rev.sha256 not in signed:
                    out.append((rev.path, (
                        f"capture of {source} that nobody signed, and evidence.require_signatures is on: it could "
                        "be cited later, or signed by `citelint attest` by mistake; remove it, or have the trusted "
                        f"capture job sign it (`citelint attest --sign-key KEY {source} --revision "
                        f"{rev.sha256[:12]}`) once it has checked the capture")))
        return out


def _relative_to(cwd: Path, path: Path) -> str:
    try:
        return Path(os.path.relpath(path, cwd)).as_posix()
    except ValueError:
        return path.as_posix()


def verifier_for(config: Config, cwd: Path) -> EvidenceVerifier | None:
    """The signature verifier of a check run, or None without ``evidence.allowed_signers``
    (signatures are then not checked); paths in messages are shown relative to ``cwd``.

    Raises:
        SignersError: (a :class:`~citelint.errors.UsageError`) the file is
            missing, unreadable or malformed.
    """
    import functools

    allowed_signers = config.evidence.allowed_signers
    if allowed_signers is None:
        return None
    entries = load(allowed_signers, _relative_to(cwd, allowed_signers), "evidence.allowed_signers")
    return EvidenceVerifier(entries, config.evidence.require_signatures, functools.partial(_relative_to, cwd))
