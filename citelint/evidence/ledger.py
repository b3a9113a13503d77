"""The review ledger read for a run: which review counts for each fingerprint
(docs/reviews.md; the records themselves are :mod:`citelint.store.reviews`).

**Who may review.** Without ``reviews.allowed_signers`` every well-formed
record counts, and the ledger is advisory: anyone who can commit can
approve. With it, a record counts only when a signature beside it verifies
(SSHSIG over the record's exact bytes, namespace ``citelint-review``) by a
key that the allowed-signers file allows for that namespace at the record's
``at``, on a line whose principals match the record's ``by``: so whoever
drafted a report cannot approve its citations without a reviewer's key.

**Which review counts.** Of the counting records of a fingerprint, the one
with the latest ``at``; records with the same ``at`` are ordered by their
digest, so every clone picks the same one.

The ledger is read once per run, whole, and costs one ``lstat`` when the
folder does not exist. Read-only: nothing here writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from citelint.evidence.allowed_signers import Entry, judge, load, match_list
from citelint.evidence.sshsig import (
    EXTRA_HINT,
    BackendMissing,
    PublicKey,
    Signature,
    SignatureFormatError,
    dearmor,
    verify,
)
from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.model import Review
from citelint.store.record import time_key
from citelint.store.reviews import LedgerFile, ReviewCorrupt, ReviewRecord, scan

if TYPE_CHECKING:
    from citelint.config import ReviewSettings

#: The SSHSIG namespace of review signatures: a capture's signature (namespace
#: ``citelint``) can never be passed off as a review, nor the other way round.
NAMESPACE = "citelint-review"
MAX_SIGNATURE_BYTES = 16 * 1024


class Uncounted(NamedTuple):
    """A ledger file that does not count: its ``path`` and ``why`` (a corrupt
    record, a missing or bad signature, a key not allowed for its reviewer)."""

    path: Path
    why: str


class Ledger:
    """The reviews of a run: ``latest`` maps each fingerprint (64 hex) to the
    record that counts for it; ``counted`` lists every counting record (for
    ``review --stale``); ``uncounted`` every file that does not count, with why.
    ``signed`` says whether signatures were required (``reviews.allowed_signers``)."""

    def __init__(self, counted: list[ReviewRecord], uncounted: list[Uncounted], signed: bool):
        self.counted, self.uncounted, self.signed = counted, uncounted, signed
        self.latest: dict[str, ReviewRecord] = {}
        for record in counted:
            held = self.latest.get(record.fingerprint)
            if held is None or (time_key(record.at), record.digest) > (time_key(held.at), held.digest):
                self.latest[record.fingerprint] = record

    def __bool__(self) -> bool:
        return bool(self.latest)

    def review(self, fingerprint: str | None) -> Review | None:
        """The review that counts for ``fingerprint``, or None (None too for no fingerprint)."""
        record = self.latest.get(fingerprint) if fingerprint is not None else None
        return None if record is None else record.review


#: A ledger with no review in it: what a run without a reviews folder uses.
EMPTY = Ledger([], [], False)


def load_ledger(settings: ReviewSettings, display: Callable[[Path], str] = str) -> Ledger:
    """Read the ledger ``settings.dir`` once, judging signatures against
    ``settings.allowed_signers`` when set; ``display`` renders a path for
    the ``why`` of an uncounted file.

    Raises:
        SignersError: (a :class:`~citelint.errors.UsageError`) the
            allowed-signers file is missing, unreadable or malformed, and the
            ledger has at least one record (a run with no reviews never reads it).
    """
    files, stray = scan(settings.dir)
    uncounted = [Uncounted(path, why) for path, why in stray]
    if not files:
        return Ledger([], uncounted, settings.allowed_signers is not None) if uncounted else EMPTY
    entries = None
    if settings.allowed_signers is not None:
        entries = load(settings.allowed_signers, display(settings.allowed_signers), "reviews.allowed_signers")
    counted = []
    for found in files:
        if isinstance(found.record, ReviewCorrupt):
            uncounted.append(Uncounted(found.path, str(found.record)))
            continue
        why = None if entries is None else signed_by_reviewer(found, found.record, entries)
        if why:
            uncounted.append(Uncounted(found.path, why))
        else:
            counted.append(found.record)
    return Ledger(counted, uncounted, entries is not None)


def signed_by_reviewer(found: LedgerFile, record: ReviewRecord, entries: list[Entry]) -> str | None:
    """None when one of the signatures beside ``record`` verifies by a key
    ``entries`` allow for :data:`NAMESPACE` at the record's ``at`` with a
    principal matching its ``by``; else why none does (the first reason)."""
    if not found.signatures:
        return ("it is not signed, and reviews.allowed_signers is set: sign it with `citelint review --approve "
                "… --sign-key KEY` (a key listed for its reviewer)")
    reasons = []
    for path in found.signatures:
        why = _one(path, found.data, record, entries)
        if why is None:
            return None
        reasons.append(f"{path.name}: {why}")
    return "; ".join(reasons)


def _one(path: Path, data: bytes, record: ReviewRecord, entries: list[Entry]) -> str | None:
    """None for a good signature of the reviewer at ``path``, else why not."""
    try:
        armored = read_regular(path, MAX_SIGNATURE_BYTES, follow_symlinks=False)
        sig = Signature.parse(dearmor(armored.decode("ascii")))
    except (FileTooLarge, NotRegularFile) as exc:
        return f"cannot be used ({exc})"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    except (UnicodeDecodeError, SignatureFormatError) as exc:
        return f"not an SSH signature ({exc})"
    if sig.public_key.fingerprint_hex()[:16] != path.name.split(".")[1]:
        return f"signed by key {sig.public_key.fingerprint()}, not the key its file name names"
    if sig.namespace != NAMESPACE:
        return f"made for the namespace {sig.namespace[:40]!r}, not {NAMESPACE!r}"
    # A key nobody listed is refused before the (possibly out-of-process) verification.
    entry, why = judge(entries, sig.public_key, NAMESPACE, None)
    if entry is None:
        return f"{why}; only keys listed in reviews.allowed_signers may sign reviews"
    try:
        if not verify(sig, data, NAMESPACE):
            return "the signature does not verify (the record or the signature was altered)"
    except BackendMissing:
        return f"it cannot be verified here: {EXTRA_HINT}"
    return key_allows(entries, sig.public_key, record.by, record.at)


def key_allows(entries: list[Entry], key: PublicKey, by: str, at: str) -> str | None:
    """None when ``entries`` allow ``key`` to sign reviews (:data:`NAMESPACE`) as
    the reviewer ``by`` (a principal pattern of its line matches) at ``at``
    (RFC 3339 UTC); else why not. ``citelint review --sign-key`` asks this
    before it writes, so no review that could not count is ever added."""
    entry, why = judge(entries, key, NAMESPACE, None)
    if entry is None:
        return f"{why}; only keys listed in reviews.allowed_signers may sign reviews"
    allowed = [e for e in entries if e.key.blob == key.blob
               and match_list(tuple(p.strip() for p in e.principals.split(",")), by)]
    if not allowed:
        return (f"key {key.fingerprint()} is listed for {entry.principals!r}, not for the reviewer {by!r} "
                "the record names")
    entry, why = judge(allowed, key, NAMESPACE, at)
    return None if entry is not None else f"{why}; only keys listed in reviews.allowed_signers may sign reviews"


def relative(cwd: Path) -> Callable[[Path], str]:
    """A ``display`` for :func:`load_ledger`: paths relative to ``cwd`` (POSIX)."""
    def shown(path: Path) -> str:
        try:
            return Path(os.path.relpath(path, cwd)).as_posix()
        except ValueError:
            return path.as_posix()
    return shown
