"""Git's allowed-signers file (``gpg.ssh.allowedSignersFile``; ssh-keygen(1),
"ALLOWED SIGNERS"): who may sign evidence, for which namespaces, and when.

Each non-blank line that does not start with ``#`` is::

    principals [options] keytype base64-key [comment]

``principals`` is a comma-separated list of patterns (``*`` and ``?``);
options are comma-separated: ``namespaces="p1,p2"`` (patterns, ``!`` to
negate), ``valid-after="YYYYMMDD[HHMM[SS]]Z"`` and ``valid-before=...``.
OpenSSH reads a timestamp without the trailing ``Z`` in the machine's local
time zone; citelint refuses it, since a check must give the same answer on
every machine. ``cert-authority`` (trusting certificates a CA signed) is
refused with a clear message: citelint verifies plain keys only.

Lines end at ``"\n"`` only, with one trailing ``"\r"`` dropped, as
OpenSSH reads them (``getline``). Any other character Python or Unicode
treats as a line or field break (``\r`` inside a line, ``\x0b``, ``\x0c``,
``\x1c``-``\x1f``, U+0085, U+2028, U+2029, and any other Unicode space but
space and tab) in a line that is not a comment is refused, since such a character would make this parser and ssh-keygen
read different entries; in a comment line it is just part of the comment.

An option given twice (``namespaces=``, ``valid-after=``, ``valid-before=``)
is refused, as ssh-keygen refuses it.

The operator writes this file; a malformed one is a usage error naming the
file and line, never a silent pass.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from citelint.errors import UsageError
from citelint.evidence.sshsig import PublicKey, SignatureFormatError
from citelint.files import FileTooLarge, NotRegularFile, decode_utf8, read_regular

#: An allowed-signers file larger than this is refused unread.
MAX_FILE_BYTES = 1024 * 1024
_TIME = re.compile(r"(\d{8})(\d{4}(\d{2})?)?Z")


class SignersError(UsageError):
    """An unusable allowed-signers file (exit 2, like any usage error).
    ``str()`` is ``KEY: path:line: message``, KEY the config key that names the file
    (``evidence.allowed_signers`` or ``reviews.allowed_signers``)."""

    def __init__(self, message: str, key: str = "evidence.allowed_signers"):
        super().__init__(f"{key}: {message}")


@dataclass(frozen=True)
class Entry:
    """One allowed-signers line: the principals, the key, and its limits.

    ``namespaces`` is None when the line has no ``namespaces=`` option (any
    namespace); ``valid_after``/``valid_before`` are RFC 3339 UTC stamps or
    None. ``line`` is the 1-based line number.
    """

    principals: str
    key: PublicKey
    namespaces: tuple[str, ...] | None
    valid_after: str | None
    valid_before: str | None
    line: int


@functools.lru_cache(maxsize=256)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    # Compiled once per pattern: a run judges every review's principal against the same few lines.
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def _pattern_match(pattern: str, value: str) -> bool:
    """OpenSSH's ``match_pattern``: ``*`` any run, ``?`` one character, nothing else special."""
    return _pattern_regex(pattern).fullmatch(value) is not None


def match_list(patterns: tuple[str, ...], value: str) -> bool:
    """OpenSSH's ``match_pattern_list``: a negated pattern (``!p``) that
    matches refuses; otherwise any positive match accepts."""
    positive = False
    for pattern in patterns:
        if pattern.startswith("!"):
            if _pattern_match(pattern[1:], value):
                return False
        elif _pattern_match(pattern, value):
            positive = True
    return positive


def _split_options(text: str) -> list[str]:
    """Comma-separated options, where a comma inside double quotes belongs to the value."""
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for c in text:
        if c == '"':
            quoted = not quoted
        if c == "," and not quoted:
            out.append("".join(current))
            current = []
        else:
            current.append(c)
    if quoted:
        raise ValueError("an option's quotes are not closed")
    out.append("".join(current))
    return out


def _odd_space(line: str) -> int | None:
    """The index of the first character of ``line`` that Python counts as
    whitespace (or a line break) but OpenSSH's parser does not treat as a
    field separator here, i.e. anything but space and tab; None when none."""
    return next((i for i, c in enumerate(line) if c.isspace() and c not in " \t"), None)


def _stamp(value: str, name: str) -> str:
    """``YYYYMMDD[HHMM[SS]]Z`` as RFC 3339 UTC.

    Raises:
        ValueError: another form (the message says which is expected).
    """
    match = _TIME.fullmatch(value)
    if not match:
        hint = " (add Z: citelint reads these times as UTC only)" if _TIME.fullmatch(value + "Z") else ""
        raise ValueError(f"{name}={value!r} is not YYYYMMDD[HHMM[SS]]Z{hint}")
    digits = value[:-1].ljust(14, "0")
    try:
        when = datetime(int(digits[0:4]), int(digits[4:6]), int(digits[6:8]), int(digits[8:10]),
                        int(digits[10:12]), int(digits[12:14]), tzinfo=UTC)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not a real date and time") from None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _split_line(line: str) -> tuple[str, str, str]:
    """(principals, options, key text) of one line, with quoted spaces kept in the options."""
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    for c in line:
        if c == '"':
            quoted = not quoted
        if c in " \t" and not quoted:
            if current:
                fields.append("".join(current))
                current = []
        else:
            current.append(c)
    if current:
        fields.append("".join(current))
    if len(fields) < 3:
        raise ValueError("expected: principals [options] keytype base64-key")
    principals = fields[0]
    if fields[1] in _KNOWN_TYPES:
        return principals, "", " ".join(fields[1:3])
    if len(fields) < 4:
        raise ValueError("expected: principals [options] keytype base64-key")
    return principals, fields[1], " ".join(fields[2:4])


_KNOWN_TYPES = frozenset({"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
                          "ssh-rsa", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com"})


def parse(text: str, origin: str = "allowed signers", setting: str = "evidence.allowed_signers") -> list[Entry]:
    """Parse an allowed-signers file's text; ``origin`` names it in errors, and ``setting`` the
    config key that names the file.

    Raises:
        SignersError: a malformed line, an unknown option, a
            ``cert-authority`` line, a key citelint cannot verify, or a
            time without ``Z`` (the message gives ``origin:line``).
    """
    entries = []
    for number, raw in enumerate(text.split("\n"), 1):
        # OpenSSH skips leading blanks and treats a line whose first other character is # as a comment.
        line = raw[:-1] if raw.endswith("\r") else raw
        line = line.strip(" \t")
        if not line or line.startswith("#"):
            continue
        try:
            bad = _odd_space(line)
            if bad is not None:
                raise ValueError(f"the character U+{ord(line[bad]):04X} at column {bad + 1} is a line or field "
                                 "break to some readers and not to ssh-keygen, which ends lines at \\n only and "
                                 "separates fields with spaces and tabs; remove it")
            principals, options, key_text = _split_line(line)
            namespaces = valid_after = valid_before = None
            seen: set[str] = set()
            for option in _split_options(options) if options else []:
                name, eq, value = option.partition("=")
                name = name.lower()
                if name in seen:
                    raise ValueError(f"option {name!r} is given twice (ssh-keygen refuses such a line too)")
                seen.add(name)
                if name == "cert-authority" and not eq:
                    raise ValueError("cert-authority lines (keys trusted through SSH certificates) are not "
                                     "supported; list each signer's own key")
                if not eq or len(value) < 2 or not (value.startswith('"') and value.endswith('"')):
                    raise ValueError(f"option {option!r} is not name=\"value\" or is unknown")
                value = value[1:-1]
                if name == "namespaces":
                    namespaces = tuple(p for p in value.split(",") if p)
                elif name == "valid-after":
                    valid_after = _stamp(value, name)
                elif name == "valid-before":
                    valid_before = _stamp(value, name)
                else:
                    raise ValueError(f"unknown option {name!r} (namespaces, valid-after, valid-before)")
            key = PublicKey.from_openssh(key_text)
        except (ValueError, SignatureFormatError) as exc:
            raise SignersError(f"{origin}:{number}: {exc}", setting) from None
        entries.append(Entry(principals, key, namespaces, valid_after, valid_before, number))
    return entries


def load(path: Path, origin: str, key: str) -> list[Entry]:
    """Read and parse the allowed-signers file ``path`` (a regular file of at
    most 1 MiB, strict UTF-8); ``origin`` names it in errors, and ``key`` the
    config key that names it (``evidence.allowed_signers``, ``reviews.allowed_signers``).

    Raises:
        SignersError: unreadable, too large, not UTF-8, or malformed.
    """
    try:
        text = decode_utf8(read_regular(path, MAX_FILE_BYTES))
    except FileNotFoundError:
        raise SignersError(f"{origin}: no such file", key) from None
    except (NotRegularFile, FileTooLarge) as exc:
        raise SignersError(f"{origin}: cannot be used ({exc})", key) from None
    except OSError as exc:
        raise SignersError(f"{origin}: cannot be read ({exc.strerror or exc})", key) from None
    except UnicodeDecodeError as exc:
        raise SignersError(f"{origin}: not UTF-8 at byte {exc.start}", key) from None
    return parse(text, origin, key)


def time_after(a: str, b: str) -> bool:
    """True when the RFC 3339 UTC stamp ``a`` is strictly later than ``b``."""
    from citelint.store.record import time_key

    return time_key(a) > time_key(b)


def judge(entries: list[Entry], key: PublicKey, namespace: str, at: str | None) -> tuple[Entry | None, str]:
    """Whether ``key`` may sign in ``namespace`` at the RFC 3339 UTC time ``at``
    (None: the time windows are not judged, for a first look before a
    signature is verified and its time is known).

    Returns (the entry that allows it, "") or (None, why not), where "why
    not" names the closest reason: the key is not listed, listed for other
    namespaces only, or outside its ``valid-after``/``valid-before`` window.
    """
    listed = [e for e in entries if e.key.blob == key.blob]
    if not listed:
        return None, f"key {key.fingerprint()} is not in the allowed signers"
    reasons = []
    for entry in listed:
        if entry.namespaces is not None and not match_list(entry.namespaces, namespace):
            reasons.append(f"line {entry.line} allows it for namespaces {','.join(entry.namespaces)!r} only, "
                           f"not {namespace!r}")
        elif at is None:
            return entry, ""
        elif entry.valid_after is not None and time_after(entry.valid_after, at):
            reasons.append(f"line {entry.line} allows it from {entry.valid_after} on, and it signed at {at}")
        elif entry.valid_before is not None and time_after(at, entry.valid_before):
            reasons.append(f"line {entry.line} allows it until {entry.valid_before}, and it signed at {at}")
        else:
            return entry, ""
    return None, f"key {key.fingerprint()} ({listed[0].principals}): " + "; ".join(reasons)
