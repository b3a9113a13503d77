"""citelint.check.parallel: chunks shared out between this process and forked workers."""

from __future__ import annotations

import os

import pytest

from citelint.check.parallel import chunk_size, run_chunks


def _squares(start: int, stop: int) -> list[tuple[int, int]]:
    return [(i, i * i) for i in range(start, stop)]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_results_come_back_in_chunk_order_whoever_computed_them(n: int) -> None:
    def unpack(start: int, stop: int, packed: list[list[int]]) -> list[tuple[int, int]]:
        assert [i for i, _ in packed] == list(range(start, stop))  # a worker's chunk, its own bounds
        return [(i, sq) for i, sq in packed]

    parts = run_chunks(n, 1001, 7, _squares, lambda part: [[i, sq] for i, sq in part], unpack)
    assert parts is not None and len(parts) == 143
    assert [item for part in parts for item in part] == _squares(0, 1001)


def test_a_worker_chunk_travels_through_pack_and_unpack() -> None:
    """Which chunks a worker takes depends on timing; whatever it took is
    marked by unpack, and everything is there exactly once, in order."""
    def slow(start: int, stop: int) -> list[int]:
        if os.getpid() == parent:
            os.sched_yield()
        return list(range(start, stop))

    parent = os.getpid()
    parts = run_chunks(2, 400, 1, slow, lambda part: part, lambda start, stop, packed: [-x - 1 for x in packed])
    assert parts is not None
    flat = [item for part in parts for item in part]
    assert [x if x >= 0 else -x - 1 for x in flat] == list(range(400))


def test_a_failure_in_a_worker_is_raised_here() -> None:
    def boom(start: int, stop: int) -> list[int]:
        if start == 3:
            raise ValueError("chunk 3")
        return list(range(start, stop))

    with pytest.raises(ValueError, match="chunk 3"):
        run_chunks(2, 10, 1, boom, lambda part: part, lambda start, stop, packed: packed)


def test_chunk_size_bounds() -> None:
    assert chunk_size(10_000, 2) == 313
    assert chunk_size(5, 2) == 1
    assert chunk_size(10**9, 2) == 1000
    assert chunk_size(10, 2, least=4) == 4
