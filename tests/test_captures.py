"""The capture store: derived-path lookup, integrity checks, bounds, the exclusive writer."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from citelint.store.captures import (
    MAX_CAPTURE_FILE_BYTES,
    CaptureCorrupt,
    CaptureMissing,
    Store,
    TextRejected,
    capture_path,
    decode_text,
    make_record,
    parse_record,
    sha256_hex,
    time_key,
)
from citelint.store.writer import RecordTooLarge, write_capture

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

    from citelint.reports.schema import load_schema

    Draft202012Validator(load_schema("capture.schema.json")).validate(json.loads(raw))


def test_writer_keeps_the_raw_body_first_and_refuses_an_oversized_record_before_either(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import citelint.store.captures as captures
    from citelint.store.record import Extractor

    made_by = Extractor("html-text", "0.6.2", {})
    body = b"<p>caf\xc3\xa9</p>"
    rec = make_record(SRC, "caf\u00e9", content_type="text/html", extractor=made_by, raw_sha256=sha256_hex(body))
    out = write_capture(tmp_path, rec, body)
    assert out.created and captures.raw_path(tmp_path, SRC, sha256_hex(body)).read_bytes() == body
    assert Store(tmp_path).lookup(SRC, rec.sha256) == rec
    # A record over the file limit writes neither file: the raw body never lands alone.
    monkeypatch.setattr(captures, "MAX_CAPTURE_FILE_BYTES", 200)
    big = make_record("https://example.org/b.txt", "x" * 300, content_type="text/html", extractor=made_by,
                      raw_sha256=sha256_hex(b"raw"))
    with pytest.raises(RecordTooLarge, match="over the 200 byte limit"):
        write_capture(tmp_path, big, b"raw")
    assert not captures.source_dir(tmp_path, big.source).exists()


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
    (lambda r: r.update(format="citelint.capture/9"), "format"),
    (lambda r: r.update(format="citelint.capture/2"), "missing extractor, rawSha256"),
    (lambda r: r.update(format="citelint.capture/2", extractor={"name": "pypdf", "version": "6.0", "options": {}},
                        rawSha256="A" * 64), "rawSha256 is not"),
    (lambda r: r.update(format="citelint.capture/2", extractor={"name": "pypdf"}, rawSha256="a" * 64),
     "exactly name, version and options"),
    (lambda r: r.update(format="citelint.capture/2", extractor={"name": "pypdf", "version": 6, "options": {}},
                        rawSha256="a" * 64), "not strings"),
    (lambda r: r.update(format="citelint.capture/2", extractor={"name": "pypdf", "version": "6", "options": []},
                        rawSha256="a" * 64), "options is not an object"),
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
    from citelint.store.legacy import parse_legacy

    path = tmp_path / f"{sha256_hex(SRC)}.json"
    path.write_text(json.dumps({"source": SRC, "text": "t", "sha256": sha256_hex("t"),
                                "accessedAt": "0001-01-01T00:00:00+01:00"}))
    with pytest.raises(CaptureCorrupt, match="out of range"):
        parse_legacy(path)


# ------------------------------------------------------------------ a source's history, read as far as needed

def _revision(root: Path, text: str, when: str, *, layout: str = "writer", corrupt: bool = False) -> str:
    """Write a revision of SRC; ``layout="other"`` writes valid JSON in another
    key order (its head date cannot be read); ``corrupt`` breaks its digest."""
    rec = make_record(SRC, text, retrieved_at=when)
    path = capture_path(root, SRC, rec.sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    if layout == "writer":
        data = rec.to_json()
    else:
        data = json.dumps({"text": rec.text, "format": "citelint.capture/1", "source": SRC, "sha256": rec.sha256,
                           "retrievedAt": when, "contentType": "text/plain", "bytes": rec.bytes}) + "\n"
    if corrupt:
        data = data.replace(json.dumps(text)[1:-1], json.dumps(text + "!")[1:-1])
    path.write_text(data)
    return rec.sha256


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Capture files read whole (their sha256 prefixes), in order."""
    from citelint.store import captures

    seen: list[str] = []
    real = captures.read_bounded

    def counting(path: Path) -> bytes:
        seen.append(Path(path).stem[:8])
        return real(path)

    monkeypatch.setattr(captures, "read_bounded", counting)
    return seen


def test_revision_dates_come_from_heads_unread(tmp_path: Path, reads: list[str]) -> None:
    old = _revision(tmp_path, "oldest", "2026-01-01T00:00:00Z")
    frac = _revision(tmp_path, "fraction", "2026-01-01T00:00:00.5Z")
    other = _revision(tmp_path, "other layout", "2027-01-01T00:00:00Z", layout="other")
    (capture_path(tmp_path, SRC, "f" * 64)).write_text("{}\n")
    dates = Store(tmp_path).revision_dates(SRC)
    assert [(d.sha256, d.retrieved_at) for d in dates] == sorted(
        [(other, None), ("f" * 64, None)]) + [(old, "2026-01-01T00:00:00Z"), (frac, "2026-01-01T00:00:00.5Z")]
    assert reads == []
    assert Store(tmp_path).revision_dates("https://example.org/none") == []


def test_newer_revision_verifies_only_what_it_names(tmp_path: Path, reads: list[str]) -> None:
    cited = _revision(tmp_path, "cited", "2026-01-01T00:00:00Z")
    _revision(tmp_path, "older", "2025-01-01T00:00:00Z")
    middle = _revision(tmp_path, "middle", "2026-03-01T00:00:00Z")
    newest_broken = _revision(tmp_path, "newest but altered", "2026-06-01T00:00:00Z", corrupt=True)
    store = Store(tmp_path)
    record = store.lookup(SRC, cited)
    reads.clear()
    assert [r.sha256 for r in store.newer_revisions(SRC, record)] == [middle]
    assert reads == [newest_broken[:8], middle[:8]]
    reads.clear()
    assert Store(tmp_path).newer_revisions(SRC, Store(tmp_path).lookup(SRC, middle)) == []
    assert reads == [middle[:8], newest_broken[:8]]  # the lookup, then the one candidate, which fails


def test_newer_revision_of_unknown_date_is_verified_to_learn_it(tmp_path: Path) -> None:
    cited = _revision(tmp_path, "cited", "2026-01-01T00:00:00Z")
    _revision(tmp_path, "known newer", "2026-02-01T00:00:00Z")
    unknown = _revision(tmp_path, "written otherwise, newest", "2026-09-01T00:00:00Z", layout="other")
    _revision(tmp_path, "written otherwise, older", "2025-09-01T00:00:00Z", layout="other")
    store = Store(tmp_path)
    assert [r.sha256 for r in store.newer_revisions(SRC, store.lookup(SRC, cited))] == [unknown]
    assert store.newer_revisions(SRC, store.lookup(SRC, unknown)) == []


def test_recent_and_containing_revisions_read_newest_first(tmp_path: Path, reads: list[str]) -> None:
    shas = [_revision(tmp_path, f"revision {i} says {'yes' if i % 2 else 'no'}", f"2026-0{i}-01T00:00:00Z")
            for i in range(1, 8)]
    store = Store(tmp_path)
    assert [r.sha256 for r in store.recent_revisions(SRC)] == shas[-3:]
    assert reads == [s[:8] for s in reversed(shas[-3:])]
    reads.clear()
    found = Store(tmp_path).revisions_containing(SRC, "says yes", exclude=shas[6], limit=1)
    assert [r.sha256 for r in found] == [shas[4]]
    assert reads == [shas[5][:8], shas[4][:8]]  # shas[6] excluded, then newest first until found
    assert [r.sha256 for r in store.revisions_containing(SRC, "says no")] == [shas[1], shas[3], shas[5]]
    assert store.recent_revisions(SRC, limit=0) == []


def test_history_methods_agree_with_verifying_everything(tmp_path: Path) -> None:
    """Whatever the mix of dates (ties, fractions), layouts and corrupt files,
    the lazy methods name what verifying every revision would."""
    import random

    rnd = random.Random(7)
    for trial in range(40):
        root = tmp_path / f"t{trial}"
        shas = []
        for i in range(rnd.randint(1, 7)):
            when = rnd.choice(["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.25Z", "2026-02-01T00:00:00Z",
                               "2026-03-01T00:00:00.5Z", "2026-03-01T00:00:00.500Z", "2025-12-31T23:59:59Z"])
            shas.append(_revision(root, f"text {i} {rnd.choice(['alpha', 'beta'])}", when,
                                  layout=rnd.choice(["writer", "writer", "other"]), corrupt=rnd.random() < 0.2))
        store = Store(root)
        every = store.verified_revisions(SRC)
        assert [r.sha256 for r in store.recent_revisions(SRC)] == [r.sha256 for r in every[-3:]]
        newest = [r for r in every if time_key(r.retrieved_at) == time_key(every[-1].retrieved_at)] if every else []
        assert store.newest_revisions(SRC).groups == tuple((r,) for r in newest)
        for rec in every:
            later = [r for r in every if time_key(r.retrieved_at) > time_key(rec.retrieved_at)]
            # Every revision tied for the newest date is named, never one picked by its digest.
            top = [r.sha256 for r in later if time_key(r.retrieved_at) == time_key(later[-1].retrieved_at)]
            assert [r.sha256 for r in store.newer_revisions(SRC, rec)] == sorted(top)
            alpha = [r for r in every if r.sha256 != rec.sha256 and "alpha" in r.text]
            assert [r.sha256 for r in store.revisions_containing(SRC, "alpha", exclude=rec.sha256, limit=1)] == \
                [r.sha256 for r in alpha[-1:]]


def test_lookup_keeps_only_a_few_records(tmp_path: Path) -> None:
    store = Store(tmp_path)
    shas = [_revision(tmp_path, f"revision {i}", "2026-01-01T00:00:00Z") for i in range(20)]
    for sha in shas:
        store.lookup(SRC, sha)
    assert store._lookup.cache_info().currsize <= 4
    store.revision_dates(SRC)
    assert (store._listing.cache_info().maxsize, store._head.cache_info().maxsize) == (256, 1024)


def test_source_directory_symlinked_outside_is_one_corrupt_row_and_not_read(tmp_path: Path, reads: list[str]) -> None:
    """`ls` (iter_records) refuses what `check` (lookup) refuses: a source
    directory that is a symlink leading outside the store is not read through."""
    outside = tmp_path / "outside"
    sha = _revision(outside, "planted evidence", "2026-01-01T00:00:00Z")
    store_root = tmp_path / "store"
    store_root.mkdir()
    (store_root / sha256_hex(SRC)).symlink_to(outside / sha256_hex(SRC), target_is_directory=True)
    inner = write_capture(store_root, make_record("https://example.org/b.txt", "fine")).record
    store = Store(store_root)
    with pytest.raises(CaptureCorrupt, match="symlink leading outside"):
        store.lookup(SRC, sha)
    rows = list(store.iter_records())
    assert [(p.name, type(r).__name__) for p, r in rows] == sorted(
        [(sha256_hex(SRC), "CaptureCorrupt"), (f"{inner.sha256}.json", "CaptureRecord")])
    assert "symlink leading outside" in str(dict((p.name, r) for p, r in rows)[sha256_hex(SRC)])
    assert reads == [inner.sha256[:8]]
    assert store.revision_dates(SRC) == [] and store.recent_revisions(SRC) == []


def test_ls_shows_the_symlinked_source_directory_as_corrupt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import run_cli

    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    outside = tmp_path / "outside"
    _revision(outside, "planted evidence", "2026-01-01T00:00:00Z")
    repo = tmp_path / "repo"
    (repo / "captures").mkdir(parents=True)
    (repo / "citelint.yaml").write_text(json.dumps({"sources": [SRC], "labels": ["x"]}))
    (repo / "captures" / sha256_hex(SRC)).symlink_to(outside / sha256_hex(SRC), target_is_directory=True)
    run = run_cli("ls", cwd=repo)
    assert run.code == 1, run.out + run.err
    assert f"captures/{sha256_hex(SRC)}\tCORRUPT: capture directory is a symlink leading outside" in run.out
    assert "planted" not in run.out and "0 capture(s), 1 corrupt" in run.out


def _batched(source: str, text: str, when: str, batch: str | None):
    from citelint.store.record import Extractor, sha256_hex

    return make_record(source, text, retrieved_at=when, content_type="text/plain",
                       extractor=Extractor("anthropic-request", "0", {"document": 0}),
                       raw_sha256=sha256_hex(b"request"), batch=batch)


def test_batch_round_trips_and_is_checked(tmp_path: Path) -> None:
    from citelint.store.record import CaptureCorrupt, TextRejected, parse_record

    batch = "b" * 64
    rec = _batched(SRC, "chunk one", "2026-07-01T00:00:00Z", batch)
    assert json.loads(rec.to_json())["batch"] == batch
    assert parse_record(rec.to_json().encode()) == rec
    # A v2 record written before batches existed has no key: it reads as null.
    old = json.loads(rec.to_json())
    del old["batch"]
    assert parse_record(json.dumps(old).encode()).batch is None
    for bad in ("B" * 64, "b" * 63, 7, ""):
        with pytest.raises(CaptureCorrupt, match="batch"):
            parse_record(json.dumps({**old, "batch": bad}).encode())
    v1 = json.loads(make_record(SRC, "plain").to_json())
    with pytest.raises(CaptureCorrupt, match="unknown batch"):
        parse_record(json.dumps({**v1, "batch": None}).encode())
    with pytest.raises(TextRejected, match="batch"):
        make_record(SRC, "plain", batch=batch)


def test_batch_siblings_are_not_newer_revisions(tmp_path: Path) -> None:
    """Chunks sent in one request are recorded as one batch: CL106 never names a
    sibling, and 'the newest revision' is the whole newest batch."""
    batch, other = "a" * 64, "c" * 64
    first = _batched(SRC, "chunk one", "2026-07-01T00:00:00Z", batch)
    second = _batched(SRC, "chunk two", "2026-07-01T00:00:01Z", batch)
    for rec in (first, second):
        write_capture(tmp_path, rec)
    store = Store(tmp_path)
    assert store.newer_revisions(SRC, first) == []
    assert store.newest_revisions(SRC).records == sorted([first, second], key=lambda r: r.sha256)
    assert not store.newest_revisions(SRC).tied
    later = _batched(SRC, "next request", "2026-08-01T00:00:00Z", other)
    write_capture(tmp_path, later)
    store = Store(tmp_path)
    assert store.newer_revisions(SRC, first) == [later]
    assert store.newest_revisions(SRC).groups == ((later,),)
    plain = make_record(SRC, "fetched later", retrieved_at="2026-09-01T00:00:00Z")
    write_capture(tmp_path, plain)
    assert Store(tmp_path).newest_revisions(SRC).records == [plain]
