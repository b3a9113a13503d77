"""SSH signatures (the SSHSIG format of OpenSSH's PROTOCOL.sshsig): parsing,
the signed data, armour, key fingerprints, and verification.

This is the format ``ssh-keygen -Y sign`` writes and git uses for signed
commits. A signature blob is::

    byte[6]  "SSHSIG"
    uint32   1                  (version)
    string   publickey          (the SSH wire form of the signer's key)
    string   namespace
    string   reserved           (empty)
    string   hash_algorithm     ("sha512" or "sha256")
    string   signature          (string algorithm, then the algorithm's bytes)

and what the key signs is ``"SSHSIG" string(namespace) string(reserved)
string(hash_algorithm) string(H(message))``. Strings are RFC 4251 §5
(uint32 length, then bytes).

Keys: Ed25519 (RFC 8709), ECDSA on nistp256/384/521 (RFC 5656) and RSA with
``rsa-sha2-512``/``rsa-sha2-256`` (RFC 8332; SHA-1 ``ssh-rsa`` signatures
are refused, as OpenSSH refuses them). Certificates are refused.

Verification is read-only and offline: in-process with the ``cryptography``
library when it is installed (the ``sign`` extra), else by running
``ssh-keygen -Y check-novalidate`` with the signature on a pipe (nothing is
written, no agent or network is used). This module is on the check side:
it never imports the capture stage.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import os
import shutil
import struct
import subprocess
import threading
from dataclasses import dataclass
from typing import Any

MAGIC = b"SSHSIG"
VERSION = 1
ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
ARMOR_END = "-----END SSH SIGNATURE-----"
#: Hash algorithms PROTOCOL.sshsig allows for H(message).
HASHES = {"sha512": hashlib.sha512, "sha256": hashlib.sha256}
#: Key types this module verifies, and the signature algorithms each may use.
KEY_TYPES = {
    "ssh-ed25519": ("ssh-ed25519",),
    "ecdsa-sha2-nistp256": ("ecdsa-sha2-nistp256",),
    "ecdsa-sha2-nistp384": ("ecdsa-sha2-nistp384",),
    "ecdsa-sha2-nistp521": ("ecdsa-sha2-nistp521",),
    "ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256"),
}
#: What the extra is called when neither backend is available.
EXTRA_HINT = ("pip install 'citelint-provenance[sign]' (the cryptography library; from a checkout: "
              "pip install '.[sign]'), or install OpenSSH's ssh-keygen")
#: ssh-keygen gets this long (seconds) to check one signature.
SSH_KEYGEN_TIMEOUT_S = 20.0
#: The largest SSHSIG blob parsed (bytes): the biggest key OpenSSH accepts
#: (RSA of 16384 bits, SSH_RSA_MAXIMUM_MODULUS_SIZE) and its signature fit in
#: about 4.3 KiB; anything larger is hostile, not a signature.
MAX_SIGNATURE_BLOB_BYTES = 8 * 1024
#: OpenSSH refuses RSA moduli above this many bits (sshkey.h).
MAX_RSA_BITS = 16384


class SignatureFormatError(ValueError):
    """Bytes that are not a well-formed SSH signature or key (``str()`` says what)."""


class BackendMissing(RuntimeError):
    """Neither ``cryptography`` nor ``ssh-keygen`` is available to verify a signature."""


# --------------------------------------------------------------------------- wire format

class WireReader:
    """RFC 4251 §5 decoding of one buffer (``uint32``, ``string``, ``mpint``);
    every read is bounds-checked and raises :class:`SignatureFormatError`
    past the end, so hostile bytes never index out of range."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise SignatureFormatError("truncated")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uint32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def string(self) -> bytes:
        return self.take(self.uint32())

    def text(self) -> str:
        try:
            return self.string().decode("ascii")
        except UnicodeDecodeError:
            raise SignatureFormatError("a name is not ASCII") from None

    def mpint(self) -> int:
        raw = self.string()
        if raw and raw[0] & 0x80:
            raise SignatureFormatError("negative integer")
        return int.from_bytes(raw, "big")

    def done(self) -> bool:
        return self.pos == len(self.data)


def ssh_string(data: bytes | str) -> bytes:
    """RFC 4251 ``string``: uint32 length, then the bytes (``str`` as ASCII)."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    return struct.pack(">I", len(raw)) + raw


def ssh_mpint(value: int) -> bytes:
    """RFC 4251 ``mpint`` of a non-negative integer (a leading zero byte keeps it positive)."""
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big") if value else b""
    return ssh_string(raw)


@dataclass(frozen=True)
class PublicKey:
    """An SSH public key: ``key_type`` (``ssh-ed25519``, ...) and ``blob``, its wire form."""

    key_type: str
    blob: bytes

    @classmethod
    def from_blob(cls, blob: bytes) -> PublicKey:
        """Parse a wire-form key, checking its type and shape.

        Raises:
            SignatureFormatError: unknown type, a certificate, or a malformed key.
        """
        reader = WireReader(blob)
        key_type = reader.text()
        if key_type.endswith("-cert-v01@openssh.com"):
            raise SignatureFormatError(f"{key_type} is an SSH certificate; citelint accepts plain keys only")
        if key_type not in KEY_TYPES:
            raise SignatureFormatError(f"unsupported key type {key_type!r} (Ed25519, ECDSA or RSA keys only)")
        if key_type == "ssh-ed25519":
            if len(reader.string()) != 32:
                raise SignatureFormatError("an Ed25519 key is not 32 bytes")
        elif key_type == "ssh-rsa":
            reader.mpint()
            bits = reader.mpint().bit_length()
            if bits < 2048:
                raise SignatureFormatError("an RSA key shorter than 2048 bits is refused")
            if bits > MAX_RSA_BITS:
                raise SignatureFormatError(f"an RSA key longer than {MAX_RSA_BITS} bits is refused (as OpenSSH "
                                           "refuses it)")
        else:
            if reader.text() != key_type.rsplit("-", 1)[1]:
                raise SignatureFormatError("an ECDSA key names another curve than its type")
            reader.string()
        if not reader.done():
            raise SignatureFormatError("trailing bytes after the key")
        return cls(key_type, blob)

    @classmethod
    def from_openssh(cls, line: str) -> PublicKey:
        """Parse ``<type> <base64>`` (as in ``id_ed25519.pub`` or an allowed-signers line).

        Raises:
            SignatureFormatError: not that form, or the key inside is malformed
                or of another type than it says.
        """
        parts = line.split()
        if len(parts) < 2:
            raise SignatureFormatError("expected '<key type> <base64 key>'")
        try:
            blob = base64.b64decode(parts[1], validate=True)
        except (binascii.Error, ValueError):
            raise SignatureFormatError("the key is not valid base64") from None
        key = cls.from_blob(blob)
        if key.key_type != parts[0]:
            raise SignatureFormatError(f"the key says {parts[0]!r} but holds a {key.key_type} key")
        return key

    def fingerprint(self) -> str:
        """The OpenSSH fingerprint: ``SHA256:`` and unpadded base64 of SHA-256(blob)."""
        return "SHA256:" + base64.b64encode(hashlib.sha256(self.blob).digest()).decode("ascii").rstrip("=")

    def fingerprint_hex(self) -> str:
        """Lowercase hex SHA-256 of the blob (its first 16 digits name a signature file)."""
        return hashlib.sha256(self.blob).hexdigest()


@dataclass(frozen=True)
class Signature:
    """A parsed SSHSIG blob (``raw``): who signed, in which namespace, with which hash, and the signature."""

    raw: bytes
    public_key: PublicKey
    namespace: str
    hash_algorithm: str
    algorithm: str
    signature: bytes

    @classmethod
    def parse(cls, raw: bytes) -> Signature:
        """Parse an SSHSIG blob (not armoured).

        Raises:
            SignatureFormatError: over :data:`MAX_SIGNATURE_BLOB_BYTES`, wrong
                magic or version, unknown hash or signature algorithm, a
                certificate, or malformed fields.
        """
        if len(raw) > MAX_SIGNATURE_BLOB_BYTES:
            raise SignatureFormatError(f"{len(raw)} bytes, over the {MAX_SIGNATURE_BLOB_BYTES} an SSH signature "
                                       "can need")
        reader = WireReader(raw)
        if reader.take(6) != MAGIC:
            raise SignatureFormatError("not an SSHSIG signature (no SSHSIG magic)")
        if reader.uint32() != VERSION:
            raise SignatureFormatError("unsupported SSHSIG version")
        key = PublicKey.from_blob(reader.string())
        namespace = reader.text()
        if reader.string():
            raise SignatureFormatError("the reserved field is not empty")
        hash_algorithm = reader.text()
        if hash_algorithm not in HASHES:
            raise SignatureFormatError(f"unsupported hash algorithm {hash_algorithm!r}")
        inner = WireReader(reader.string())
        if not reader.done():
            raise SignatureFormatError("trailing bytes after the signature")
        algorithm = inner.text()
        if algorithm not in KEY_TYPES[key.key_type]:
            raise SignatureFormatError(f"signature algorithm {algorithm!r} does not fit a {key.key_type} key"
                                       + (" (SHA-1 RSA signatures are refused)" if algorithm == "ssh-rsa" else ""))
        signature = inner.string()
        if not inner.done():
            raise SignatureFormatError("trailing bytes inside the signature")
        return cls(raw, key, namespace, hash_algorithm, algorithm, signature)


def signed_data(namespace: str, message: bytes, hash_algorithm: str = "sha512") -> bytes:
    """What an SSHSIG key signs for ``message`` in ``namespace`` (PROTOCOL.sshsig)."""
    digest = HASHES[hash_algorithm](message).digest()
    return MAGIC + ssh_string(namespace) + ssh_string(b"") + ssh_string(hash_algorithm) + ssh_string(digest)


def build_blob(public_key: PublicKey, namespace: str, hash_algorithm: str, algorithm: str,
               signature: bytes) -> bytes:
    """An SSHSIG blob from its parts (the inverse of :meth:`Signature.parse`)."""
    return (MAGIC + struct.pack(">I", VERSION) + ssh_string(public_key.blob) + ssh_string(namespace)
            + ssh_string(b"") + ssh_string(hash_algorithm) + ssh_string(ssh_string(algorithm) + ssh_string(signature)))


def armor(raw: bytes) -> str:
    """The armoured form ``ssh-keygen`` reads and writes (base64 in lines of 70)."""
    text = base64.b64encode(raw).decode("ascii")
    lines = [text[i:i + 70] for i in range(0, len(text), 70)]
    return "\n".join([ARMOR_BEGIN, *lines, ARMOR_END]) + "\n"


def dearmor(text: str) -> bytes:
    """The blob inside an armoured signature.

    Raises:
        SignatureFormatError: no armour, or invalid base64 inside it.
    """
    body = text.strip()
    if not (body.startswith(ARMOR_BEGIN) and body.endswith(ARMOR_END)):
        raise SignatureFormatError("not an armoured SSH signature")
    inner = "".join(body[len(ARMOR_BEGIN):-len(ARMOR_END)].split())
    try:
        return base64.b64decode(inner, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureFormatError("the armoured signature is not valid base64") from None


# --------------------------------------------------------------------------- verification

@functools.lru_cache(maxsize=1)
def backend() -> str | None:
    """The verifier available here: ``"cryptography"``, ``"ssh-keygen"``, or None
    (asked once per process: what is installed does not change during a run)."""
    try:
        import cryptography.hazmat.primitives.serialization  # noqa: F401
    except ImportError:
        return "ssh-keygen" if shutil.which("ssh-keygen") else None
    return "cryptography"


def verify(sig: Signature, message: bytes, namespace: str, *, using: str | None = None) -> bool:
    """True when ``sig`` is a valid signature of ``message`` in ``namespace``
    by the key it embeds. Says nothing about whether that key is trusted
    (see :mod:`citelint.evidence.allowed_signers`).

    ``using`` forces a backend (``"cryptography"`` or ``"ssh-keygen"``);
    default: :func:`backend`.

    Raises:
        BackendMissing: neither backend is available.
    """
    if sig.namespace != namespace:
        return False
    chosen = using or backend()
    if chosen == "cryptography":
        return _verify_cryptography(sig, signed_data(namespace, message, sig.hash_algorithm))
    if chosen == "ssh-keygen":
        return _verify_ssh_keygen(sig, message, namespace)
    raise BackendMissing(f"no SSH signature verifier is available: {EXTRA_HINT}")


@functools.lru_cache(maxsize=64)
def _crypto_key(key: PublicKey) -> Any:
    """The ``cryptography`` public key object of ``key``, built from its wire
    form (a run sees few keys, each in many signatures).

    Raises:
        ValueError: the key's numbers are not a valid key.
    """
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    reader = WireReader(key.blob)
    reader.text()
    if key.key_type == "ssh-ed25519":
        return ed25519.Ed25519PublicKey.from_public_bytes(reader.string())
    if key.key_type == "ssh-rsa":
        e, n = reader.mpint(), reader.mpint()
        return rsa.RSAPublicNumbers(e, n).public_key()
    curve = {"nistp256": ec.SECP256R1(), "nistp384": ec.SECP384R1(), "nistp521": ec.SECP521R1()}[reader.text()]
    return ec.EllipticCurvePublicKey.from_encoded_point(curve, reader.string())


def _verify_cryptography(sig: Signature, data: bytes) -> bool:
    """Check ``sig`` over ``data`` with the ``cryptography`` library."""
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

    try:
        key = _crypto_key(sig.public_key)
        if isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(sig.signature, data)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            inner = WireReader(sig.signature)
            r, s = inner.mpint(), inner.mpint()
            if not inner.done():
                return False
            digest = {256: hashes.SHA256(), 384: hashes.SHA384(), 521: hashes.SHA512()}[key.curve.key_size]
            key.verify(utils.encode_dss_signature(r, s), data, ec.ECDSA(digest))
        elif isinstance(key, rsa.RSAPublicKey):
            digest = hashes.SHA512() if sig.algorithm == "rsa-sha2-512" else hashes.SHA256()
            key.verify(sig.signature, data, padding.PKCS1v15(), digest)
        else:
            return False
    except (InvalidSignature, UnsupportedAlgorithm, SignatureFormatError, ValueError, KeyError):
        return False
    return True


def _verify_ssh_keygen(sig: Signature, message: bytes, namespace: str) -> bool:
    """Check ``sig`` with ``ssh-keygen -Y check-novalidate``: the signature
    goes in on a pipe (``/dev/fd/N``) and the message on standard input, so
    nothing is written to disk. False when it does not verify, or when
    ssh-keygen cannot be run or takes over :data:`SSH_KEYGEN_TIMEOUT_S`.

    Raises:
        BackendMissing: ssh-keygen is not on ``PATH``.
    """
    exe = shutil.which("ssh-keygen")
    if exe is None:
        raise BackendMissing(f"no SSH signature verifier is available: {EXTRA_HINT}")
    data = armor(sig.raw).encode("ascii")
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    read_end, write_end = os.pipe()
    try:
        try:
            child = subprocess.Popen([exe, "-Y", "check-novalidate", "-n", namespace, "-s", f"/dev/fd/{read_end}"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(read_end,), env=env)
        except OSError:
            return False
        os.close(read_end)
        read_end = -1
        # The signature is written only once the child exists and from a thread of its own:
        # written first, a blob larger than the pipe's buffer would block this process forever.
        fd, write_end = write_end, -1
        feeder = threading.Thread(target=_feed, args=(fd, data), daemon=True)
        feeder.start()
        try:
            child.communicate(input=message, timeout=SSH_KEYGEN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return False
        finally:
            feeder.join(timeout=SSH_KEYGEN_TIMEOUT_S)
        return child.returncode == 0
    finally:
        for end in (read_end, write_end):
            if end >= 0:
                os.close(end)


def _feed(fd: int, data: bytes) -> None:
    """Write ``data`` to the pipe ``fd`` and close it; a reader that went away
    (EPIPE) ends the write, and the child's exit status tells the result."""
    try:
        with open(fd, "wb", closefd=True) as pipe:
            pipe.write(data)
    except OSError:
        pass
