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

The ledger is read once per run: its folder of fingerprints is listed
once, and each fingerprint's folder is read the first time a citation asks
for it, never again (one ``lstat`` when the ledger does not exist).
Read-only: nothing here writes.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from citelint.files import FileTooLarge, NotRegularFile, read_regular
from citelint.model import Review
from citelint.store.record import time_key
from citelint.store.reviews import LedgerFile, ReviewCorrupt, ReviewRecord, list_folders, read_folder, stray_names

#: How far ahead of the checking machine's clock a record's ``at`` may be and still count
#: (clocks of reviewers' machines differ); a record dated later does not count.
CLOCK_SKEW_S = 300
#: What a principal never holds: allowed-signers lines separate principals with commas.
_NOT_A_PRINCIPAL = re.compile(r"[\s,\"']")

if TYPE_CHECKING:
    from citelint.config import ReviewSettings
    from citelint.evidence.allowed_signers import Entry
    from citelint.evidence.sshsig import PublicKey

# The signature modules (and what they load: subprocess, dataclasses) are imported only
# where a signature is judged: an advisory ledger, without reviews.allowed_signers, never needs them.

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
    """The reviews of a run. The folder of fingerprints is listed once; a
    fingerprint's folder is read, and its signatures verified, the first time
    a citation of that fingerprint asks (:meth:`review`), and never again, so
    a hook checking one report reads the reviews of that report's citations
    only, not the whole ledger.

    Made by :func:`load_ledger` from the ledger's ``root``, the names listed
    there (``folders``), what was wrong with ``root`` itself (``stray``) and
    ``signers``, which gives the allowed-signers entries when first needed
    (None: signatures are not required), so a run whose citations have no
    review never reads the allowed-signers file nor loads the signature code.
    ``signed`` says whether signatures are required (``reviews.allowed_signers``).
    ``counted`` lists the counting records of the folders read so far,
    ``uncounted`` the files there (and stray entries of the ledger) that do
    not count, with why; ``applied`` maps each fingerprint asked about to
    the record that counts for it. :meth:`read_all` reads every folder
    (``citelint review --stale``).
    """

    def __init__(self, root: Path, folders: frozenset[str], stray: list[Uncounted],
                 signers: Callable[[], list[Entry]] | None):
        self.root, self.folders, self._signers = root, folders, signers
        self._entries: list[Entry] | None = None
        self.signed = signers is not None
        self.counted: list[ReviewRecord] = []
        self.uncounted: list[Uncounted] = list(stray)
        self.applied: dict[str, ReviewRecord] = {}
        self._read: set[str] = set()
        #: The latest ``at`` that counts (now plus CLOCK_SKEW_S, as a time_key), set on the first read.
        self._latest_allowed: tuple[str, str] | None = None

    def __bool__(self) -> bool:
        return bool(self.folders)

    def record(self, fingerprint: str | None) -> ReviewRecord | None:
        """The record that counts for ``fingerprint`` (the latest by ``at``, then
        by digest, of those that count), or None."""
        if fingerprint is None or fingerprint not in self.folders:
            return None
        if fingerprint not in self._read:
            self._read_folder(fingerprint)
        return self.applied.get(fingerprint)

    def review(self, fingerprint: str | None) -> Review | None:
        """The review that counts for ``fingerprint``, or None (None too for no fingerprint)."""
        record = self.record(fingerprint)
        return None if record is None else record.review

    def read_all(self) -> None:
        """Read every fingerprint folder (in name order), as :meth:`record` would,
        and name the entries that are no fingerprint folder."""
        strays = stray_names(self.root, self.folders)
        self.uncounted.extend(Uncounted(path, why) for path, why in strays)
        names = {path.name for path, _ in strays}
        for fingerprint in sorted(self.folders - self._read - names):
            self._read_folder(fingerprint)

    def _read_folder(self, fingerprint: str) -> None:
        self._read.add(fingerprint)
        if self._latest_allowed is None:
            self._latest_allowed = time_key(_later_than_now(CLOCK_SKEW_S))
        files, stray = read_folder(self.root, fingerprint)
        self.uncounted.extend(Uncounted(path, why) for path, why in stray)
        latest: ReviewRecord | None = None
        for found in files:
            if isinstance(found.record, ReviewCorrupt):
                self.uncounted.append(Uncounted(found.path, str(found.record)))
                continue
            why = None if self._signers is None else signed_by_reviewer(found, found.record, self._trusted())
            if why:
                self.uncounted.append(Uncounted(found.path, why))
                continue
            record = found.record
            if time_key(record.at) > self._latest_allowed:
                # A record dated ahead would outrank every later judgment until its date came.
                self.uncounted.append(Uncounted(found.path, f"it is dated {record.at}, in the future"))
                continue
            self.counted.append(record)
            if latest is None or (time_key(record.at), record.digest) > (time_key(latest.at), latest.digest):
                latest = record
        if latest is not None:
            self.applied[fingerprint] = latest

    def _trusted(self) -> list[Entry]:
        """The allowed-signers entries, read on first use.

        Raises:
            SignersError: the file is missing, unreadable or malformed.
        """
        if self._entries is None:
            assert self._signers is not None
            self._entries = self._signers()
        return self._entries


def load_ledger(settings: ReviewSettings, display: Callable[[Path], str] = str) -> Ledger:
    """The ledger ``settings.dir``, its folder of fingerprints listed (records
    are read when asked for, :class:`Ledger`); signatures are judged against
    ``settings.allowed_signers`` when set; ``display`` renders that file's
    path in its errors.

    The allowed-signers file is read when the first review is judged: then
    :meth:`Ledger.record` (and :meth:`Ledger.review`) raise
    :class:`~citelint.evidence.allowed_signers.SignersError` (a
    :class:`~citelint.errors.UsageError`) when it is missing, unreadable or
    malformed; a run whose citations have no review never reads it.
    """
    folders, stray = list_folders(settings.dir)
    path = settings.allowed_signers
    signers = None if path is None else functools.partial(_read_signers, path, display(path))
    return Ledger(settings.dir, folders, [Uncounted(p, why) for p, why in stray], signers)


def _later_than_now(seconds: int) -> str:
    """The UTC time ``seconds`` from now, as RFC 3339."""
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _read_signers(path: Path, shown: str) -> list[Entry]:
    from citelint.evidence.allowed_signers import load

    return load(path, shown, "reviews.allowed_signers")


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
    from citelint.evidence.allowed_signers import judge
    from citelint.evidence.sshsig import EXTRA_HINT, BackendMissing, Signature, SignatureFormatError, dearmor, verify

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
    from citelint.evidence.allowed_signers import judge, match_list

    entry, why = judge(entries, key, NAMESPACE, None)
    if entry is None:
        return f"{why}; only keys listed in reviews.allowed_signers may sign reviews"
    if _NOT_A_PRINCIPAL.search(by):
        # A pattern such as *@pipeline would match "reviewer@example.org,x@pipeline": a
        # reviewer of a signed ledger is one principal, as a line of the file names one.
        return f"the reviewer {by!r} is not one principal (no comma, quote or whitespace in it)"
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
