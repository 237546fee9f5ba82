"""Sending runs to workers in chunks: shared by the process pool (:mod:`sudoku_lab.experiments`) and Dask
(:mod:`sudoku_lab.cluster`)."""

from __future__ import annotations

from typing import Iterator

__all__ = ["ChunkSizer", "next_chunk"]


class ChunkSizer:
    """How many runs to send a worker at once: about ``target`` seconds of work, at least 1, at most ``most``.

    A batch of thousands of 5 ms runs spends more time sending tasks than running them if each goes
    alone (a Dask task costs about a millisecond of scheduling); runs of a second or more go one by one,
    so a stop or a kill loses little. The size follows the mean run time seen so far.
    """

    def __init__(self, target: float, most: int = 64):
        self.target = target
        self.most = most
        self.runs = 0
        self.seconds = 0.0

    def add(self, results) -> None:
        for r in results:
            self.runs += 1
            self.seconds += r.seconds

    def size(self) -> int:
        if not self.runs:
            return 1
        mean = self.seconds / self.runs
        return max(1, min(self.most, int(self.target / max(mean, 1e-6))))


def next_chunk(it: Iterator, size: int) -> list:
    """Up to ``size`` items of ``it`` (an empty list when it is exhausted)."""
    chunk = []
    for item in it:
        chunk.append(item)
        if len(chunk) >= size:
            break
    return chunk
