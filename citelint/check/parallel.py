"""Work cut into chunks and shared out between this process and forked workers.

``check --jobs N`` runs each phase of a large check this way. The chunks are
not dealt out in advance: each process claims the next one when it is done
with the last (one shared counter), so a process that started late or drew
slow chunks does not hold the others up, and this process, which must join
the results afterwards, does its share of the work as well. Whoever
computed a chunk, the results come back in chunk order, so the caller sees
the same sequence for any N.

Workers are forked, so they see the work (and everything it reads) in
fork's copy of this process instead of having it pickled to them; only
their results travel back, packed by the caller into plain values that
:mod:`marshal` serialises (several times faster than pickle on these shapes,
and these bytes never leave the run). Where the platform cannot fork,
:func:`run_chunks` returns None and the caller does the work itself.

Also how many processes a phase gets (:func:`job_count`), and the cyclic
collector paused while checks run in this process (:data:`COLLECTOR`).
"""

from __future__ import annotations

import _thread
import gc
import os
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, TypeVar

from citelint.model import Difference

R = TypeVar("R")
T = TypeVar("T")

#: What a forked worker runs, set just before the workers are forked:
#: (number of items, chunk size, claim counter, work, pack).
_WORK: tuple[Any, ...] | None = None


def _claim(counter: Any) -> int:
    """The next chunk's index (the counter is shared with the workers)."""
    with counter.get_lock():
        index = counter.value
        counter.value = index + 1
    return index


def _bounds(index: int, count: int, size: int) -> tuple[int, int]:
    return index * size, min(count, (index + 1) * size)


def _worker_chunk() -> bytes | None:
    """Claim and work one chunk (in a forked worker): its index and packed
    result as :mod:`marshal` bytes, or None when no chunk was left."""
    import marshal

    assert _WORK is not None
    count, size, counter, work, pack = _WORK
    index = _claim(counter)
    if index * size >= count:
        return None
    return marshal.dumps((index, pack(work(*_bounds(index, count, size)))))


def run_chunks(n: int, count: int, size: int, work: Callable[[int, int], R],
               pack: Callable[[R], Any], unpack: Callable[[int, int, Any], R],
               consume: Callable[[int, R], None] | None = None) -> list[R] | None:
    """``work(start, stop)`` for every chunk ``[start, stop)`` of
    ``range(count)`` (``size`` items each, the last one shorter), in this
    process and ``n - 1`` forked workers, each claiming the next chunk when
    done with one.

    Returns the chunks' results in chunk order: this process's as ``work``
    returned them, a worker's as ``unpack(start, stop, pack(result))``
    (``pack`` must give values :mod:`marshal` accepts: None, bool, int,
    float, str, bytes, and tuples, lists and dicts of them). A worker's
    chunk travels back as soon as it is done, and is unpacked here between
    this process's own chunks, so little is left to unpack at the end. None
    when the platform cannot fork, before any work is done. With
    ``consume``, each chunk's result is given to ``consume(start, result)``
    instead, in chunk order, as soon as the chunks before it have been, and
    not kept (the list returned is empty): a run then holds only the chunks
    that finished ahead of one still being worked on.

    Raises:
        whatever ``work`` raises (in a worker: re-raised here).
    """
    import multiprocessing  # only for several processes: the hook's start-up stays lean

    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    import marshal
    from concurrent.futures import Future, ProcessPoolExecutor

    global _WORK
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    chunks = -(-count // size)
    results: dict[int, R] = {}
    given = 0  # chunks before this one have gone to ``consume``

    def hand_on() -> None:
        nonlocal given
        while consume is not None and given in results:
            consume(given * size, results.pop(given))
            given += 1

    def collect(futures: list[Future[bytes | None]], wait: bool) -> list[Future[bytes | None]]:
        left = []
        for future in futures:
            if not (wait or future.done()):
                left.append(future)
                continue
            blob = future.result()
            if blob is not None:
                index, packed = marshal.loads(blob)
                results[index] = unpack(*_bounds(index, count, size), packed)
                hand_on()
        return left

    _WORK = (count, size, counter, work, pack)
    try:
        with ProcessPoolExecutor(max_workers=n - 1, mp_context=context) as pool:
            # One task per chunk at most: each claims whatever chunk is next when it runs.
            futures = [pool.submit(_worker_chunk) for _ in range(chunks)]
            while (index := _claim(counter)) * size < count:
                results[index] = work(*_bounds(index, count, size))
                hand_on()
                futures = collect(futures, wait=False)
            collect(futures, wait=True)
    finally:
        _WORK = None
    hand_on()
    return [results[index] for index in range(chunks)] if consume is None else []


def chunk_size(count: int, n: int, least: int = 1, most: int = 1000) -> int:
    """A chunk size for ``count`` items over ``n`` processes: about sixteen
    chunks per process (so the last ones even out), within ``least`` and
    ``most`` items."""
    return max(least, min(most, -(-count // (16 * n))))


def pack_rows(rows: Sequence[Any], fields: Sequence[str]) -> dict[str, list[Any]]:
    """``rows`` (records with the attributes ``fields``: NamedTuples, mostly) as one
    list per field, keyed by its name: the shape a packed result carries them in,
    so that :func:`unpack_rows` rebuilds them by field name, never by the order of
    a tuple (and marshal writes each column as one list, not a tuple per row)."""
    return {name: list(map(attrgetter(name), rows)) for name in fields}


def unpack_rows(cls: type[T], columns: Mapping[str, Sequence[Any]]) -> list[T]:
    """The rows of the NamedTuple ``cls`` from ``columns`` (field name -> one value
    per row, as :func:`pack_rows` gives them, plus any fields the caller adds),
    each field taken by its name.

    Raises:
        KeyError: a field of ``cls`` has no column.
    """
    make = cls._make  # type: ignore[attr-defined]
    return list(map(make, zip(*(columns[name] for name in cls._fields))))  # type: ignore[attr-defined]


#: Below this many cited captures (or files to check), citations are
#: verified (or reports loaded) in one process: starting a worker (importing
#: multiprocessing, forking) costs about what a second core saves on a few
#: hundred small captures, and the pre-commit hook's start-up must not grow.
AUTO_JOBS_MIN_CAPTURES = 1000


def job_count(requested: int | None, size: int) -> int:
    """Processes for a phase of ``size`` work items (distinct cited captures
    to verify, or files to load): ``requested`` when given (at least 1), else
    all available cores (at most 8) from AUTO_JOBS_MIN_CAPTURES items, else 1."""
    if requested is not None:
        return max(1, requested)
    if size < AUTO_JOBS_MIN_CAPTURES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


class CollectorPause:
    """The cyclic collector paused while at least one check runs in this
    process: checks may run in several threads at once (the Python API), so
    the first to start disables it (when it was enabled) and the last to
    finish enables it again; a collector the caller had disabled stays so."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()  # threading's Lock, without importing threading
        self._running, self._resume = 0, False

    def pause(self) -> None:
        """A check starts: the collector is off until the last one ends."""
        with self._lock:
            if self._running == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._running += 1

    def resume(self) -> None:
        """A check ends: the collector is as it was once no check runs."""
        with self._lock:
            self._running -= 1
            if self._running == 0 and self._resume:
                gc.enable()


#: The one pause of this process.
COLLECTOR = CollectorPause()


def plain_differences(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Packed findings or issues with each :class:`~citelint.model.Difference` as a plain
    tuple: marshal, which carries a worker's result, writes no NamedTuple."""
    columns["difference"] = [None if d is None else tuple(d) for d in columns["difference"]]
    return columns


def with_differences(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The columns :func:`plain_differences` packed, each difference a Difference again."""
    return {**columns, "difference": [None if d is None else Difference(*d) for d in columns["difference"]]}
