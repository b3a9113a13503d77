"""Signing captures in the trusted stage (DESIGN §9): ``capture --sign-key``
and ``attest``.

The key is an SSH private key in OpenSSH's format (what ``ssh-keygen``
writes), Ed25519, ECDSA or RSA, unencrypted: the trusted job holds it in a
CI secret. It comes from ``--sign-key FILE``, else the environment variable
``CITELINT_SIGN_KEY`` (the key itself, or a path to it), else the config's
``capture.sign_key``. An encrypted key is refused with a message: nothing
here can prompt for a passphrase.

Each capture gets a signature file beside it
(:mod:`citelint.evidence.verify` describes the statement and the envelope),
written with the store's exclusive writer: one per key, never replaced;
signing again with the same key is "already signed". Before signing, the
capture file is read and verified (exact keys, digest, path agreement), so
a capture whose content does not verify is never vouched for. A capture
file proves nothing about who wrote it, so ``attest`` signs one that no
allowed key signed yet only when the operator names it or passes ``--all``
(:func:`attest`).

Signing runs in-process with the ``cryptography`` library (the ``sign``
extra), else through ``ssh-keygen -Y sign`` (OpenSSH), which is given the
key file and the message on standard input.
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from citelint.errors import UsageError
from citelint.evidence.allowed_signers import Entry
from citelint.evidence.sshsig import (
    EXTRA_HINT,
    PublicKey,
    Signature,
    SignatureFormatError,
    WireReader,
    build_blob,
    dearmor,
    signed_data,
    ssh_mpint,
    verify,
)
from citelint.evidence.verify import (
    NAMESPACE,
    PAYLOAD_TYPE,
    SignatureInvalid,
    check_statement,
    make_envelope,
    make_statement,
    pae,
    parse_envelope,
    signature_name,
)
from citelint.files import FileTooLarge, NotRegularFile, read_regular, write_exclusive
from citelint.store.captures import (
    MAX_CAPTURE_FILE_BYTES,
    CaptureError,
    Store,
    capture_path,
    parse_record,
    time_key,
    utc_now,
)
from citelint.store.writer import EvidenceRefused, write_evidence

#: The environment variable a CI job passes its signing key in (the key's text, or a path).
ENV_VAR = "CITELINT_SIGN_KEY"
SIGNED = "signed"
ALREADY_SIGNED = "already signed"
REFUSED = "refused"
_MAX_KEY_BYTES = 64 * 1024
_PEM_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
_PEM_END = "-----END OPENSSH PRIVATE KEY-----"


class SignError(UsageError):
    """A signing key that cannot be used (a usage error); ``str()`` says why and what to do."""


@dataclass(frozen=True)
class SignOutcome:
    """One capture's signing: ``status`` is ``signed``, ``already signed`` or
    ``refused`` (``reason`` says why); ``path`` is the signature file."""

    source: str
    sha256: str
    status: str
    path: Path | None = None
    reason: str = ""

    @property
    def failed(self) -> bool:
        """True for a refusal (the command exits 1)."""
        return self.status == REFUSED


# --------------------------------------------------------------------------- the key

def _openssh_public_key(text: str) -> tuple[PublicKey, bool]:
    """The public key and whether the key is encrypted, read from the
    cleartext header of an ``openssh-key-v1`` private key (PROTOCOL.key)."""
    body = text.strip()
    if not (body.startswith(_PEM_BEGIN) and body.endswith(_PEM_END)):
        raise SignError("not an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----); convert it with "
                        "`ssh-keygen -p -f KEY` or make one with `ssh-keygen -t ed25519`")
    try:
        blob = base64.b64decode("".join(body[len(_PEM_BEGIN):-len(_PEM_END)].split()), validate=True)
        reader = WireReader(blob)
        if reader.take(15) != b"openssh-key-v1\0":
            raise SignatureFormatError("no openssh-key-v1 magic")
        cipher = reader.text()
        reader.string()  # kdf name
        reader.string()  # kdf options
        if reader.uint32() != 1:
            raise SignatureFormatError("a key file holding several keys")
        return PublicKey.from_blob(reader.string()), cipher != "none"
    except (binascii.Error, ValueError) as exc:
        raise SignError(f"the private key is malformed ({exc})") from None


class SigningKey:
    """An unencrypted OpenSSH private key that signs SSHSIG messages.

    ``text`` is the key file's content; ``path`` a file holding it (for
    ``ssh-keygen``), or None when it came from the environment.

    Raises (on construction):
        SignError: not an OpenSSH private key, encrypted, or of a type
            citelint does not verify.
    """

    def __init__(self, text: str, path: Path | None, origin: str):
        self.text, self.path, self.origin = text, path, origin
        try:
            self.public_key, encrypted = _openssh_public_key(text)
        except SignError as exc:
            raise SignError(f"{origin}: {exc}") from None
        if encrypted:
            raise SignError(f"{origin}: the key is encrypted with a passphrase, and signing here cannot prompt "
                            "for one; keep an unencrypted copy in the CI secret store (`ssh-keygen -p -N '' -f "
                            "COPY` removes the passphrase from a copy)")

    def sign(self, message: bytes, *, namespace: str) -> bytes:
        """An SSHSIG blob over ``message`` in ``namespace`` (SHA-512): ``citelint``
        for a capture's statement, ``citelint-review`` for a review record.

        Raises:
            SignError: neither ``cryptography`` nor ``ssh-keygen`` can sign here,
                or ``ssh-keygen`` failed.
        """
        try:
            import cryptography.hazmat.primitives.serialization  # noqa: F401
        except ImportError:
            return self._sign_ssh_keygen(message, namespace)
        return self._sign_cryptography(message, namespace)

    def _sign_cryptography(self, message: bytes, namespace: str) -> bytes:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils
        from cryptography.hazmat.primitives.serialization import load_ssh_private_key

        try:
            key = load_ssh_private_key(self.text.encode("ascii"), password=None)
        except (ValueError, TypeError) as exc:
            raise SignError(f"{self.origin}: the private key cannot be loaded ({exc})") from None
        data = signed_data(namespace, message, "sha512")
        kind = self.public_key.key_type
        if isinstance(key, ed25519.Ed25519PrivateKey):
            algorithm, raw = kind, key.sign(data)
        elif isinstance(key, ec.EllipticCurvePrivateKey):
            digest = {256: hashes.SHA256(), 384: hashes.SHA384(), 521: hashes.SHA512()}[key.curve.key_size]
            r, s = utils.decode_dss_signature(key.sign(data, ec.ECDSA(digest)))
            algorithm, raw = kind, ssh_mpint(r) + ssh_mpint(s)
        elif isinstance(key, rsa.RSAPrivateKey):
            algorithm, raw = "rsa-sha2-512", key.sign(data, padding.PKCS1v15(), hashes.SHA512())
        else:
            raise SignError(f"{self.origin}: unsupported key type (Ed25519, ECDSA or RSA keys only)")
        return build_blob(self.public_key, namespace, "sha512", algorithm, raw)

    def _sign_ssh_keygen(self, message: bytes, namespace: str) -> bytes:
        exe = shutil.which("ssh-keygen")
        if exe is None:
            raise SignError(f"cannot sign here: {EXTRA_HINT}")
        with tempfile.TemporaryDirectory(prefix="citelint-sign-") as tmp:
            path = self.path
            if path is None:
                # ssh-keygen reads keys from files only: a private copy, removed with the directory.
                path = Path(tmp) / "key"
                text = self.text if self.text.endswith("\n") else self.text + "\n"
                write_exclusive(path, text.encode("ascii"), tmp_prefix=".key-", mode=0o600)
            env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
            try:
                done = subprocess.run([exe, "-Y", "sign", "-q", "-f", str(path), "-n", namespace, "-O",
                                       "hashalg=sha512"], input=message, capture_output=True, env=env,
                                      timeout=60, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise SignError(f"ssh-keygen -Y sign failed: {exc}") from None
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise SignError(f"ssh-keygen -Y sign failed: {why[0][:200]}")
        try:
            blob = dearmor(done.stdout.decode("ascii", "replace"))
            if Signature.parse(blob).public_key != self.public_key:
                raise SignatureFormatError("signed by another key")
        except SignatureFormatError as exc:
            raise SignError(f"ssh-keygen -Y sign gave an unusable signature ({exc})") from None
        return blob


def load_key(cli_value: str | None, config_value: str | None) -> SigningKey | None:
    """The signing key of a run: ``--sign-key`` (a file), else ``$CITELINT_SIGN_KEY``
    (the key's text when it starts with ``-----BEGIN``, else a path), else the
    config's ``capture.sign_key``; None when none is given.

    Raises:
        SignError: the key cannot be read or used (see :class:`SigningKey`).
    """
    env = os.environ.get(ENV_VAR, "")
    if cli_value is None and env.strip().startswith("-----BEGIN"):
        return SigningKey(env.strip() + "\n", None, f"${ENV_VAR}")
    chosen, origin = ((cli_value, "--sign-key") if cli_value is not None else
                      (env.strip(), f"${ENV_VAR}") if env.strip() else (config_value, "capture.sign_key"))
    if not chosen:
        return None
    return read_key(chosen, origin)


def read_key(path: str, origin: str) -> SigningKey:
    """The signing key in the file ``path``; ``origin`` (``--sign-key``) names where it was given.

    Raises:
        SignError: the file cannot be read, or the key cannot be used (see :class:`SigningKey`).
    """
    try:
        text = read_regular(path, _MAX_KEY_BYTES).decode("ascii")
    except (OSError, FileTooLarge, UnicodeDecodeError) as exc:
        raise SignError(f"{origin} {path}: cannot read the key ({getattr(exc, 'strerror', None) or exc})") from None
    return SigningKey(text, Path(path).resolve(), f"{origin} {path}")


# --------------------------------------------------------------------------- signing captures

def _existing(path: Path, record_bytes: bytes, source: str, sha256: str) -> str | None:
    """None when the signature file at ``path`` verifies for this capture, else why not."""
    try:
        payload, sig = parse_envelope(read_regular(path, 64 * 1024, follow_symlinks=False))
        if not verify(sig, pae(PAYLOAD_TYPE, payload), NAMESPACE):
            raise SignatureInvalid("the signature does not verify")
        check_statement(payload, parse_record(record_bytes, source=source, sha256=sha256), record_bytes)
    except (OSError, FileTooLarge, SignatureInvalid, CaptureError) as exc:
        return str(exc)
    return None


def sign_capture(captures_dir: Path, source: str, sha256: str, key: SigningKey, *,
                 signed_at: str | None = None) -> SignOutcome:
    """Sign the capture (``source``, ``sha256``) with ``key``, after verifying it.

    ``signed_at`` (RFC 3339 UTC, default now) goes into the statement; it
    must not precede the capture's ``retrievedAt``. Never raises for a
    refusal: a capture that does not verify, a clock before the capture's
    date, or a squatter at the signature's name comes back ``refused``.

    Raises:
        SignError: the key cannot sign here (no backend, ssh-keygen failed).
    """
    def refused(why: str, path: Path | None = None) -> SignOutcome:
        return SignOutcome(source, sha256, REFUSED, path, why)

    try:
        path = capture_path(captures_dir, source, sha256)
        data = read_regular(path, MAX_CAPTURE_FILE_BYTES, follow_symlinks=False)
        record = parse_record(data, source=source, sha256=sha256)
    except FileNotFoundError:
        return refused("no such capture")
    except (OSError, FileTooLarge, NotRegularFile, ValueError) as exc:
        return refused(f"the capture cannot be read safely ({exc}); nothing was signed")
    except CaptureError as exc:
        return refused(f"the capture does not verify ({exc}); nothing was signed")
    when = signed_at or utc_now()
    if time_key(when) < time_key(record.retrieved_at):
        return refused(f"the signing time {when} is before the capture's retrievedAt {record.retrieved_at}; "
                       "check this machine's clock")
    sig_path = path.parent / signature_name(sha256, key.public_key.fingerprint_hex())
    if not os.path.lexists(sig_path):
        payload = make_statement(record, data, when)
        envelope = make_envelope(payload, key.public_key.fingerprint(),
                                 key.sign(pae(PAYLOAD_TYPE, payload), namespace=NAMESPACE))
        try:
            if write_evidence(captures_dir, sig_path, envelope):
                return SignOutcome(source, sha256, SIGNED, sig_path)
        except EvidenceRefused as exc:
            return refused(str(exc), sig_path)
        except OSError as exc:
            return refused(f"cannot write the signature: {exc.strerror or exc}", sig_path)
    problem = _existing(sig_path, data, source, sha256)
    if problem is not None:
        return refused(f"{sig_path.name} already exists but does not verify for this capture ({problem}); "
                       "signatures are never replaced, inspect it by hand", sig_path)
    return SignOutcome(source, sha256, ALREADY_SIGNED, sig_path)


#: The shortest ``--revision`` prefix accepted: fewer digits would let a typo vouch for another capture.
MIN_REVISION_PREFIX = 8
_HEX = frozenset("0123456789abcdef")


def attest(captures_dir: Path, sources: Sequence[str], key: SigningKey, urls: Sequence[str] = (), *,
           revisions: Sequence[str] = (), vouch_all: bool = False,
           entries: Sequence[Entry] | None = None) -> Iterator[SignOutcome]:
    """Sign existing captures of the named ``urls`` (default: of every
    approved source in ``sources``), one outcome per capture file, in
    digest order. Signing vouches for a capture, so a capture is signed only
    when something already vouches for it:

    - by default, only captures that already carry a good signature from a
      key in ``entries`` (the parsed ``evidence.allowed_signers``; None when
      it is not configured), which is what key rotation needs; any other
      capture is ``refused`` with how to name it;
    - ``revisions`` (digest prefixes of at least :data:`MIN_REVISION_PREFIX`
      hex digits, each matching exactly one capture of ``urls``): exactly
      those captures, the operator having named them;
    - ``vouch_all``: every capture, for adopting signatures on a store that
      the trusted stage wrote entirely.

    A capture this key already signed is "already signed" whatever the mode.
    A named URL that is not approved or has no capture, and a revision that
    matches no capture or several, is one ``refused`` outcome.

    Raises:
        SignError: the key cannot sign here.
        ValueError: ``revisions`` without ``urls``, or with ``vouch_all``.
    """
    if revisions and (not urls or vouch_all):
        raise ValueError("revisions need the sources they belong to, and exclude vouch_all")
    store = Store(captures_dir)
    approved = set(sources)
    named: list[tuple[str, str]] = []
    for source in dict.fromkeys(urls or sources):
        if source not in approved:
            yield SignOutcome(source, "", REFUSED, reason="not in the config's approved `sources`")
            continue
        found = store.revisions(source)
        if urls and not found:
            yield SignOutcome(source, "", REFUSED, reason="no capture of this source to sign")
        named.extend((source, rev.sha256) for rev in found)
    if revisions:
        yield from _named_revisions(captures_dir, named, key, revisions)
        return
    judge = _AllowedSignatures(store, entries)
    for source, sha256 in named:
        own = capture_path(captures_dir, source, sha256).parent / signature_name(sha256,
                                                                                 key.public_key.fingerprint_hex())
        why = None if vouch_all or os.path.lexists(own) else judge.why_not(source, sha256)
        if why is None:
            yield sign_capture(captures_dir, source, sha256, key)
        else:
            yield SignOutcome(source, sha256, REFUSED, reason=why)


def _named_revisions(captures_dir: Path, captures: list[tuple[str, str]], key: SigningKey,
                     revisions: Sequence[str]) -> Iterator[SignOutcome]:
    """Sign the captures among ``captures`` (source, sha256) that the digest
    prefixes ``revisions`` name, one outcome per prefix."""
    where = " or ".join(dict.fromkeys(source for source, _ in captures)) or "the named sources"
    for prefix in dict.fromkeys(revisions):
        wanted = prefix.lower()
        if len(wanted) < MIN_REVISION_PREFIX or len(wanted) > 64 or not set(wanted) <= _HEX:
            yield SignOutcome(where, "", REFUSED, reason=f"--revision {prefix[:70]!r} is not a capture digest or a "
                                                         f"prefix of one of at least {MIN_REVISION_PREFIX} hex digits")
            continue
        matches = [(source, sha256) for source, sha256 in captures if sha256.startswith(wanted)]
        if len(matches) != 1:
            how = "no capture" if not matches else f"{len(matches)} captures (give more digits)"
            yield SignOutcome(where, "", REFUSED, reason=f"--revision {wanted} matches {how} of {where}")
            continue
        yield sign_capture(captures_dir, *matches[0], key)


class _AllowedSignatures:
    """Whether a capture already carries a good signature from an allowed
    signer, judged as ``check`` judges it (:class:`citelint.evidence.verify.EvidenceVerifier`)."""

    def __init__(self, store: Store, entries: Sequence[Entry] | None):
        from citelint.evidence.verify import EvidenceVerifier

        self.store = store
        self.verifier = EvidenceVerifier(list(entries), False, lambda p: p.name) if entries is not None else None

    def why_not(self, source: str, sha256: str) -> str | None:
        """None when the capture has an allowed signature, else why it is not signed, and how to sign it."""
        name = (f"if the trusted stage fetched and checked it, name it: `citelint attest {source} --revision "
                f"{sha256[:12]}` (or `--all` for a store the trusted stage wrote entirely)")
        if self.verifier is None:
            return ("attest signs only captures already signed by a key in evidence.allowed_signers, which is not "
                    f"configured; {name}")
        try:
            record = self.store.lookup(source, sha256)
        except CaptureError as exc:
            return f"the capture does not verify ({exc}); nothing was signed"
        if self.verifier.evidence(self.store, record).signers:
            return None
        return ("no good signature from a key in evidence.allowed_signers vouches for this capture, and signing it "
                f"would vouch for whatever wrote it; {name}")
