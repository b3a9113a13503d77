"""The legacy store layout (``captures/<sha256(source)>.json``): its records
read and verified, migrated into the current layout, and the CL107 notice
for what is left (DESIGN §2.2)."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import NamedTuple

from citelint.store.captures import Store, capture_path, read_bounded
from citelint.store.record import CaptureCorrupt, CaptureError, CaptureRecord, check_digest, make_record, sha256_hex

#: The keys of a legacy record, exactly.
LEGACY_KEYS = frozenset({"source", "text", "sha256", "accessedAt"})


def parse_legacy(path: Path) -> CaptureRecord:
    """Verify one legacy record (keys source, text, sha256, accessedAt).

    The file name must be sha256(source), the digest must match the text and
    ``accessedAt`` must be an ISO time (normalised to RFC 3339 UTC).

    Raises:
        CaptureCorrupt: the record fails any of those checks.
    """
    data = read_bounded(path)
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CaptureCorrupt(f"not valid UTF-8 JSON ({exc})") from None
    if not isinstance(obj, dict) or set(obj) != LEGACY_KEYS:
        raise CaptureCorrupt("legacy record must have exactly the keys source, text, sha256, accessedAt")
    if not all(isinstance(obj[k], str) for k in LEGACY_KEYS):
        raise CaptureCorrupt("legacy record fields must be strings")
    if sha256_hex(obj["source"]) != path.stem:
        raise CaptureCorrupt("file name is not sha256 of the recorded source")
    check_digest(obj["text"], obj["sha256"], "text does not match its recorded sha256")
    from datetime import datetime  # legacy records only

    try:
        when = datetime.fromisoformat(obj["accessedAt"].replace("Z", "+00:00"))
    except ValueError:
        raise CaptureCorrupt(f"accessedAt is not an ISO 8601 time: {obj['accessedAt']!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        utc = when.astimezone(UTC)
    except (OverflowError, ValueError):
        raise CaptureCorrupt(f"accessedAt is out of range: {obj['accessedAt']!r}") from None
    stamp = f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}Z"
    return make_record(obj["source"], obj["text"], retrieved_at=stamp)


class MigrateOutcome(NamedTuple):
    """One legacy file's fate: ``status`` is migrated, already-migrated or refused."""

    path: Path
    status: str
    detail: str


def migrate(root: Path) -> list[MigrateOutcome]:
    """Copy every valid legacy record into the new layout; delete nothing.

    Corrupt legacy records are refused (reported, not written).
    """
    # The writer loads only here: `check` reads this module for CL107 and writes nothing.
    from citelint.store.writer import write_capture

    outcomes = []
    for path in Store(root).legacy_files():
        try:
            rec = parse_legacy(path)
        except CaptureError as exc:
            outcomes.append(MigrateOutcome(path, "refused", str(exc)))
            continue
        try:
            res = write_capture(root, rec)
            if not res.created:
                Store(root).lookup(rec.source, rec.sha256)  # an existing copy must be this record
        except CaptureError as exc:
            outcomes.append(MigrateOutcome(path, "refused", f"{exc}; captures are never replaced"))
            continue
        except OSError as exc:
            outcomes.append(MigrateOutcome(path, "refused", f"cannot write the capture: {exc.strerror or exc}"))
            continue
        outcomes.append(MigrateOutcome(path, "migrated" if res.created else "already-migrated",
                                       f"{rec.source} -> {res.path.relative_to(root).as_posix()}"))
    return outcomes


def legacy_unmigrated(store: Store) -> list[Path]:
    """Legacy files whose record has no new-layout copy (what CL107 reports).

    A legacy file that cannot even be parsed counts as unmigrated.
    """
    out = []
    for path in store.legacy_files():
        try:
            rec = parse_legacy(path)
        except CaptureError:
            out.append(path)
            continue
        if not capture_path(store.root, rec.source, rec.sha256).is_file():
            out.append(path)
    return out


def legacy_message(count: int, captures_display: str) -> str:
    """The CL107 message for ``count`` unmigrated legacy files under ``captures_display``."""
    return (f"{count} legacy capture file(s) ({captures_display}/<sha256>.json) have no migrated copy and are "
            "not evidence; run `citelint migrate`, then delete them in a commit")
