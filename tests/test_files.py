"""Bytes on disk (citelint/files.py): bounded reads refuse what is not a
regular file, so a FIFO named as input is an answer, never a hang."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from citelint.files import (
    FileTooLarge,
    NotRegularFile,
    decode_utf8,
    read_regular,
    replace_atomically,
    write_exclusive,
)
from conftest import Repo, run_cli

T = TypeVar("T")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``'s result, failing (not hanging) if it blocks for ``seconds``."""
    box: list[T] = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still blocked after {seconds} s"
    return box[0]


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def test_read_regular_is_bounded_and_optionally_refuses_a_final_symlink(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_bytes(b"x" * 11)
    assert read_regular(f, 11) == b"x" * 11
    with pytest.raises(FileTooLarge) as over:
        read_regular(f, 10)
    assert (over.value.size, over.value.limit) == (11, 10)
    link = tmp_path / "link.txt"
    link.symlink_to(f)
    assert read_regular(link, 11) == b"x" * 11
    with pytest.raises(OSError) as loop:
        read_regular(link, 11, follow_symlinks=False)
    assert not isinstance(loop.value, NotRegularFile)
    with pytest.raises(NotRegularFile, match="not a regular file"):
        read_regular(tmp_path, 10)


@needs_fifo
def test_read_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    pipe = fifo(tmp_path / "pipe")
    error = within(10, lambda: pytest.raises(NotRegularFile, read_regular, pipe, 10))
    assert error.value.strerror == "not a regular file"


def test_decode_utf8_drops_one_leading_bom_only() -> None:
    assert decode_utf8("\ufeff\ufeffabc".encode()) == "\ufeffabc"
    with pytest.raises(UnicodeDecodeError) as bad:
        decode_utf8(b"ab\xff")
    assert bad.value.start == 2


def test_write_exclusive_never_replaces_and_replace_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    assert write_exclusive(target, b"first\n", tmp_prefix=".tmp-") is True
    assert write_exclusive(target, b"second\n", tmp_prefix=".tmp-") is False
    assert target.read_bytes() == b"first\n"
    os.chmod(target, 0o640)
    replace_atomically(target, b"fixed\n", tmp_prefix=".fix-")
    assert (target.read_bytes(), target.stat().st_mode & 0o777) == (b"fixed\n", 0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


@needs_fifo
@pytest.mark.parametrize("name", ["reports/r.json", "reports/answer.md"])
def test_a_fifo_report_is_cl001_not_a_hang(repo: Repo, name: str) -> None:
    fifo(repo.root / name)
    run = within(20, repo.check)
    assert run.code == 1
    assert run.findings("CL001") == [f"{name}:1:1: CL001 cannot read the file: "
                                     "not a regular file [report-unreadable]"], run.out


def test_a_markdown_report_over_the_size_bound_is_cl001(repo: Repo) -> None:
    repo.write("reports/answer.md", "x" * (10 * 1024 * 1024 + 1))
    run = repo.check()
    assert run.findings("CL001") == ["reports/answer.md:1:1: CL001 file is larger than 10485760 bytes; "
                                     "split the report [report-unreadable]"], run.out


@needs_fifo
def test_capture_from_file_refuses_a_fifo(tmp_path: Path) -> None:
    url = "https://example.org/held.txt"
    (tmp_path / "citelint.yaml").write_text(f"sources:\n  - {url}\n", encoding="utf-8")
    pipe = fifo(tmp_path / "held.txt")
    run = within(20, lambda: run_cli("capture", "--source", url, "--from-file", str(pipe),
                                     cwd=tmp_path))
    assert run.code == 2
    assert run.err == f"citelint: cannot read {pipe}: not a regular file\n", run.err
    assert not (tmp_path / "captures").exists()
