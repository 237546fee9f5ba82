"""Sending runs to workers in chunks: shared by the process pool (:mod:`sudoku_lab.engine.experiments`) and Dask
(:mod:`sudoku_lab.engine.cluster`)."""

from __future__ import annotations

import math
import operator
from typing import Iterable, Iterator

from .._checks import checked

__all__ = ["ChunkSizer", "next_chunk", "remaining", "prepend", "finished_runs"]


@checked
class ChunkSizer:
    """How many runs to send a worker at once.

    A batch of thousands of 5 ms runs spends more time sending tasks than running them if each goes
    alone (a Dask task costs one to two milliseconds of scheduling on a 2-core machine), so runs go in
    chunks of about ``target`` seconds of work (from the mean run time seen so far; one run until a
    run has finished; at most ``most``). Runs of a second or more go one by one, so a stop or a kill
    loses little. Towards the end of a batch whose length is known, chunks shrink to a share of what
    is left (guided self-scheduling, Polychronopoulos and Kuck 1987): the last chunks are small, so no
    worker waits long for another to finish a big one.
    """

    def __init__(self, target: float, most: int = 64):
        self.target = target
        self.most = most
        self.runs = 0
        self.seconds = 0.0

    def add(self, results: Iterable) -> None:
        for r in results:
            self.runs += 1
            self.seconds += r.seconds

    def size(self, left: int = -1, workers: int = 1) -> int:
        """The next chunk's size, with ``left`` runs still to send (-1: unknown) to ``workers`` workers."""
        if not self.runs:
            return 1
        mean = max(self.seconds / self.runs, 1e-6)
        size = max(1, min(self.most, int(self.target / mean + 1e-9)))
        if left > 0:
            # Guided, but never below a fifth of the target: the last chunks still carry enough work to
            # be worth their scheduling.
            floor = max(1, int(self.target / 5 / mean + 1e-9))
            size = min(size, max(floor, math.ceil(left / (2 * max(1, workers)))))
        return size


def remaining(it) -> int:
    """How many items ``it`` still holds, if it says (``__length_hint__``: list iterators do), else -1."""
    return operator.length_hint(it, -1)


class prepend:
    """``first``, then the items of ``rest``: ``itertools.chain([first], rest)`` that keeps ``rest``'s length hint."""

    def __init__(self, first, rest):
        self._first = [first]
        self._rest = rest

    def __iter__(self):
        return self

    def __next__(self):
        if self._first:
            return self._first.pop()
        return next(self._rest)

    def __length_hint__(self) -> int:
        left = remaining(self._rest)
        return -1 if left < 0 else left + len(self._first)


def next_chunk(it: Iterator, size: int) -> list:
    """Up to ``size`` items of ``it`` (an empty list when it is exhausted)."""
    chunk = []
    for item in it:
        chunk.append(item)
        if len(chunk) >= size:
            break
    return chunk


def finished_runs(indices: list, results: list) -> Iterator[tuple]:
    """``(index, result)`` of a chunk's runs that finished: not the one a stop request cut short."""
    for i, res in zip(indices, results):
        if res.reason != "cancelled":
            yield i, res
