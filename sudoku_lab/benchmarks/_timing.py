"""Timing helpers shared by the benchmarks: best-of-N, side-by-side passes, ratios.

Every benchmark compares ways of doing the same work in one process, so the
comparison survives a noisy machine: the ways are timed in interleaved
passes (a slow patch hits all of them alike) and the shortest pass of each
counts (the least disturbed by other load).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

__all__ = ["best_time", "side_by_side", "ratio", "ratio_text"]


def best_time(fn: Callable[[], object], repeat: int) -> float:
    """Shortest wall time, in seconds, of ``repeat`` calls of ``fn``."""
    return side_by_side({"fn": fn}, repeat)["fn"]


def side_by_side(cases: Mapping[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best wall time of each case over ``repeat`` passes, the cases interleaved within each pass.

    Parameters
    ----------
    cases : mapping of str to callable
        Each callable does the whole work of one case once.
    repeat : int
        Passes; in each pass every case runs once, in the mapping's order.

    Returns
    -------
    dict
        Seconds of the fastest pass of each case, by the same keys.
    """
    best = {key: float("inf") for key in cases}
    for _ in range(repeat):
        for key, fn in cases.items():
            t0 = time.perf_counter()
            fn()
            best[key] = min(best[key], time.perf_counter() - t0)
    return best


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """``ours / theirs``, or None when either is missing or ``theirs`` is not positive."""
    if ours is None or theirs is None or theirs <= 0:
        return None
    return ours / theirs


def ratio_text(value: float | None, width: int = 7) -> str:
    """A ratio as ``"5.3x"`` right-aligned in ``width`` characters; ``"-"`` when there is none."""
    text = "-" if value is None else f"{value:.2f}x" if value < 10 else f"{value:.1f}x"
    return f"{text:>{width}}"
