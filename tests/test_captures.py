"""The capture store: derived-path lookup, integrity checks, bounds, the exclusive writer."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from citelint.captures import (
    MAX_CAPTURE_FILE_BYTES, CaptureCorrupt, CaptureMissing, Store, TextRejected, capture_path, decode_text,
    make_record, parse_record, sha256_hex, write_capture,
)

SRC = "https://example.org/a.txt"


def test_write_then_lookup_roundtrip(tmp_path: Path) -> None:
    rec = make_record(SRC, "caf\u00e9 \u201cquoted\u201d \U0001F600", retrieved_at="2026-01-02T03:04:05Z")
    out = write_capture(tmp_path, rec)
    assert out.created and out.path == tmp_path / sha256_hex(SRC) / f"{rec.sha256}.json"
    raw = out.path.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1 and raw.isascii()
    assert Store(tmp_path).lookup(SRC, rec.sha256) == rec
    # Matches the published capture schema.
    from jsonschema import Draft202012Validator
    from citelint.schema import load_schema

    Draft202012Validator(load_schema("capture.schema.json")).validate(json.loads(raw))


def test_writer_never_replaces(tmp_path: Path) -> None:
    rec = make_record(SRC, "same text", retrieved_at="2026-01-02T03:04:05Z")
    first = write_capture(tmp_path, rec)
    before = first.path.read_bytes()
    again = write_capture(tmp_path, make_record(SRC, "same text", retrieved_at="2027-01-01T00:00:00Z"))
    assert not again.created and first.path.read_bytes() == before
    assert [p.name for p in first.path.parent.iterdir()] == [first.path.name]  # no .tmp-* left


def _race(root: str, n: int) -> bool:
    return write_capture(Path(root), make_record(SRC, "raced text", retrieved_at=f"2026-01-0{n}T00:00:00Z")).created


def test_concurrent_writers_leave_one_file(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        created = pool.starmap(_race, [(str(tmp_path), n) for n in range(1, 9)])
    assert sum(created) == 1
    files = list((tmp_path / sha256_hex(SRC)).iterdir())
    assert len(files) == 1 and not files[0].name.startswith(".tmp-")


def test_lookup_missing_and_other_source_never_borrowed(tmp_path: Path) -> None:
    rec = write_capture(tmp_path, make_record(SRC, "text")).record
    store = Store(tmp_path)
    with pytest.raises(CaptureMissing):
        store.lookup("https://example.org/b.txt", rec.sha256)
    with pytest.raises(CaptureMissing):
        store.lookup(SRC, "0" * 64)


@pytest.mark.parametrize("mutate, words", [
    (lambda r: r.update(text="changed"), "altered"),
    (lambda r: r.update(source="https://example.org/other"), "disagrees with the directory"),
    (lambda r: r.pop("retrievedAt"), "missing retrievedAt"),
    (lambda r: r.update(note="x"), "unknown note"),
    (lambda r: r.update(bytes="12"), "bytes is not"),
    (lambda r: r.update(format="citelint.capture/2"), "format"),
])
def test_corrupt_records(tmp_path: Path, mutate, words: str) -> None:
    rec = write_capture(tmp_path, make_record(SRC, "text")).record
    path = capture_path(tmp_path, SRC, rec.sha256)
    obj = json.loads(path.read_text())
    mutate(obj)
    path.write_text(json.dumps(obj))
    with pytest.raises(CaptureCorrupt, match=words):
        Store(tmp_path).lookup(SRC, rec.sha256)


def test_duplicate_keys_and_nan_are_corrupt() -> None:
    with pytest.raises(CaptureCorrupt, match="duplicate key"):
        parse_record(b'{"format": 1, "format": 2}')
    with pytest.raises(CaptureCorrupt, match="NaN"):
        parse_record(b'{"bytes": NaN}')


def test_oversized_capture_refused_unread(tmp_path: Path) -> None:
    rec = write_capture(tmp_path, make_record(SRC, "text")).record
    path = capture_path(tmp_path, SRC, rec.sha256)
    with open(path, "r+b") as fh:
        fh.truncate(MAX_CAPTURE_FILE_BYTES + 1)  # sparse: no 64 MiB written
    with pytest.raises(CaptureCorrupt, match="refused unread"):
        Store(tmp_path).lookup(SRC, rec.sha256)


def test_symlinked_capture_file_is_refused(tmp_path: Path) -> None:
    rec = write_capture(tmp_path / "store", make_record(SRC, "text")).record
    path = capture_path(tmp_path / "store", SRC, rec.sha256)
    target = tmp_path / "elsewhere.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(target, path)
    with pytest.raises(CaptureCorrupt, match="opened safely"):
        Store(tmp_path / "store").lookup(SRC, rec.sha256)


def test_decode_text_policy() -> None:
    assert decode_text("\ufeffabc".encode()) == "abc"
    assert decode_text("\ufeff\ufeffabc".encode()) == "\ufeffabc"  # only one BOM is a signature
    with pytest.raises(TextRejected, match="byte 1"):
        decode_text(b"a\xffb")
    with pytest.raises(TextRejected, match="RFC 3339"):
        make_record(SRC, "x", retrieved_at="yesterday")
    with pytest.raises(TextRejected, match="surrogates"):
        make_record(SRC, "\udc80")


def test_temporary_files_are_ignored_by_readers(tmp_path: Path) -> None:
    rec = write_capture(tmp_path, make_record(SRC, "text")).record
    (tmp_path / sha256_hex(SRC) / ".tmp-deadbeef").write_text("partial")
    store = Store(tmp_path)
    assert [r.sha256 for r in store.revisions(SRC)] == [rec.sha256]
    assert [p.name for p, _ in store.iter_records()] == [f"{rec.sha256}.json"]


def test_fallback_writer_leaves_no_partial_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: without hard links, a failed fill must not leave the final name behind."""
    import errno

    def no_link(*args, **kwargs):
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_link)
    real_write = os.write
    calls = {"n": 0}

    def failing_write(fd, data):
        calls["n"] += 1
        if calls["n"] > 1:  # the temporary file fills; the final file does not
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", failing_write)
    rec = make_record(SRC, "text")
    with pytest.raises(OSError):
        write_capture(tmp_path, rec)
    monkeypatch.setattr(os, "write", real_write)
    assert list((tmp_path / sha256_hex(SRC)).iterdir()) == []
    assert write_capture(tmp_path, rec).created


def test_legacy_time_out_of_range_is_corrupt_not_a_crash(tmp_path: Path) -> None:
    from citelint.captures import parse_legacy

    path = tmp_path / f"{sha256_hex(SRC)}.json"
    path.write_text(json.dumps({"source": SRC, "text": "t", "sha256": sha256_hex("t"),
                                "accessedAt": "0001-01-01T00:00:00+01:00"}))
    with pytest.raises(CaptureCorrupt, match="out of range"):
        parse_legacy(path)
