"""Puzzle generator: random solved grid, then clue removal that keeps the solution unique.

A random complete grid comes from :func:`sudoku_lab.exact.random_solution`.
Its cells (or, with ``symmetry="rotate180"``, pairs of cells mirrored through
the centre) are visited once in random order; each is blanked, and put back
unless the puzzle still has exactly one solution. The pass stops as soon as
the requested number of clues is left. If it reaches the end first, the
puzzle is minimal for that order and the whole attempt is repeated with a new
grid, up to ``max_tries`` times.

Everything random is drawn from one ``numpy.random.Generator``, so a seed
gives the same puzzle on every run.

What is practical (one core, measured with seeds 0-4): the greedy pass
bottoms out at 4-5 clues for 4 x 4, 22-26 for 9 x 9, 93-97 for 16 x 16 and
268-273 for 25 x 25 (that last pass alone takes 30-60 s). Targets a little
above the floor are quick: 4 x 4 and 9 x 9 in milliseconds, 16 x 16 down to
100 clues in under 0.1 s, 25 x 25 down to 320 clues (51 %) in under 0.05 s
and 300 clues in 1-4 s. Targets at the floor need many tries; the famous
minimum of 17 clues for 9 x 9 is far out of reach of this method.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from .. import exact
from .._checks import checked
from ..errors import ParameterError
from ..model.geometry import BOX_SIZES
from .solver import warm_kernels

__all__ = ["SYMMETRIES", "generate", "generate_grid", "random_grid", "GenerationStopped", "parse_time_limit"]

#: ``progress(tries, max_tries, givens, target, fewest)``: the current try, the givens left in it, the
#: target, and the fewest givens any try has reached so far.
ProgressFn = Callable[[int, int, int, int, int], object]


class GenerationStopped(Exception):
    """Generation stopped at the caller's request (``should_stop``); the message says how far it got."""


@checked
def parse_time_limit(text: str | float | None) -> float | None:
    """Seconds from ``30s``, ``2m``, ``1h``, a bare number of seconds, or None / ``none`` for no limit.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        Anything else, or a limit that is not a positive finite duration.
    """
    if text is None or str(text).strip().lower() in ("none", "off", "0"):
        return None
    t = str(text).strip().lower()
    scale = {"s": 1.0, "m": 60.0, "h": 3600.0}.get(t[-1:], None)
    try:
        value = float(t[:-1] if scale else t) * (scale or 1.0)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ParameterError(
            f"--time-limit must be a duration like 30s, 5m or 1h, or none; got {text!r}", name="time_limit"
        )
    return value


#: Clue patterns :func:`generate` can keep: none, or symmetric under a half turn.
SYMMETRIES = ("none", "rotate180")

#: Branches allowed for one uniqueness check. A check that needs more is
#: counted as "not unique" and the clue stays: the puzzle is still proven
#: unique, and the rare expensive check (25 x 25 below about 320 clues, up to
#: a quarter of a second each) cannot stall generation. Measured on 25 x 25,
#: a 5 times larger budget made the pass 5 times slower without reaching
#: fewer clues.
_CHECK_BUDGET = 10_000


def _rng_and_seed(seed) -> tuple[np.random.Generator, int | None]:
    """The generator to draw from and the integer seed to name the puzzle by.

    ``None`` draws a fresh seed from the operating system, so that even an
    unseeded puzzle can be regenerated from its name.
    """
    if isinstance(seed, np.random.Generator):
        return seed, None
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer or a numpy Generator, got {seed!r}", name="seed")
    return np.random.default_rng(int(seed)), int(seed)


def _check_box_size(n) -> int:
    if n not in BOX_SIZES:
        raise ParameterError(f"box size n must be one of {', '.join(map(str, BOX_SIZES))}, got {n!r}", name="n")
    return int(n)


@checked
def random_grid(n: int, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """A random complete valid grid.

    Parameters
    ----------
    n : int
        Box size (2..5).
    seed : int, numpy.random.Generator or None
        Seed (same seed, same grid), a generator to draw from, or None for a
        fresh one.

    Returns
    -------
    ndarray of int8, shape (C,)
    """
    n = _check_box_size(n)
    rng, _ = _rng_and_seed(seed)
    return exact.random_solution(n, rng)


def _orbits(C: int, symmetry: str) -> list[np.ndarray]:
    """Groups of cells removed together: single cells, or half-turn pairs."""
    if symmetry == "none":
        return [np.array([c]) for c in range(C)]
    # Cell c and C-1-c are images under a half turn; the centre of an odd grid is alone.
    return [np.array([c, C - 1 - c]) if c != C - 1 - c else np.array([c]) for c in range((C + 1) // 2)]


def _is_unique(grid: np.ndarray) -> bool:
    result = exact.search(grid, limit=2, node_budget=_CHECK_BUDGET)
    return result.complete and result.count == 1


class _Budget:
    """The limits of one generate call: a deadline, a stop request, and progress reports."""

    def __init__(self, time_limit, should_stop, progress, clues, max_tries):
        self.t0 = time.perf_counter()
        self.deadline = None if time_limit is None else self.t0 + float(time_limit)
        self.should_stop = should_stop
        self.progress = progress
        self.clues, self.max_tries = clues, max_tries
        self.tries = 0
        self.fewest = None
        self._last = 0.0

    def check(self, givens: int) -> bool:
        """Between two uniqueness checks: report progress; False once time is up; raise on a stop request."""
        now = time.perf_counter()
        if self.should_stop is not None and self.should_stop():
            reached = "" if self.fewest is None else f"; the fewest givens reached was {self.fewest}"
            raise GenerationStopped(f"stopped during try {self.tries} of {self.max_tries}{reached}")
        if self.progress is not None and now - self._last >= 0.25:
            self._last = now
            fewest = givens if self.fewest is None else min(self.fewest, givens)
            self.progress(self.tries, self.max_tries, givens, self.clues, fewest)
        return self.deadline is None or now < self.deadline


def _remove_clues(
    solution: np.ndarray, clues: int, orbits: list[np.ndarray], rng, budget: _Budget | None = None
) -> np.ndarray:
    """One greedy pass: blank orbits in random order while the puzzle stays unique (until the budget ends)."""
    puzzle = solution.copy()
    givens = puzzle.size
    for i in rng.permutation(len(orbits)):
        if givens == clues:
            break
        if budget is not None and not budget.check(givens):
            break
        cells = orbits[i]
        if givens - len(cells) < clues:
            continue
        puzzle[cells] = 0
        if _is_unique(puzzle):
            givens -= len(cells)
        else:
            puzzle[cells] = solution[cells]
    return puzzle


@checked
def generate_grid(
    n: int,
    clues: int,
    seed: int | np.random.Generator | None = None,
    symmetry: str = "none",
    max_tries: int = 20,
    time_limit: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Generate a puzzle with a unique solution and exactly ``clues`` givens.

    Parameters
    ----------
    n : int
        Box size (2..5).
    clues : int
        Number of givens to keep, 0..C.
    seed : int, numpy.random.Generator or None
        Seed (same seed and arguments, same puzzle), a generator to draw
        from, or None for a fresh seed.
    symmetry : {"none", "rotate180"}
        ``rotate180`` keeps the clue pattern symmetric under a half turn
        (then grids with an even number of cells need an even ``clues``).
    max_tries : int
        Fresh grids to try before giving up.
    time_limit : float, optional
        Seconds before giving up (checked between uniqueness checks, so it
        is kept within a fraction of a second). A 25 x 25 pass takes up to a
        minute, so without a limit an unreachable target can run for many
        minutes.
    should_stop : callable, optional
        Polled between uniqueness checks; True raises :class:`GenerationStopped`.
    progress : callable, optional
        ``progress(tries, max_tries, givens, target, fewest)`` about four
        times a second.

    Returns
    -------
    puzzle : ndarray of int8, shape (C,)
        The givens, 0 for a blank.
    solution : ndarray of int8, shape (C,)
        Its unique solution.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        For a bad argument, or when no try reached ``clues`` givens within
        ``max_tries`` and ``time_limit``; the message names the fewest givens
        reached.
    GenerationStopped
        When ``should_stop`` asked to stop.
    """
    n = _check_box_size(n)
    C = n**4
    if isinstance(clues, (bool, np.bool_)) or not isinstance(clues, (int, np.integer)) or not 0 <= clues <= C:
        raise ParameterError(
            f"clues must be an integer in 0..{C} for a {n * n}x{n * n} grid, got {clues!r}", name="clues"
        )
    if symmetry not in SYMMETRIES:
        raise ParameterError(f"symmetry must be one of {', '.join(SYMMETRIES)}, got {symmetry!r}", name="symmetry")
    if symmetry == "rotate180" and C % 2 == 0 and clues % 2:
        raise ParameterError(
            f"a {n * n}x{n * n} grid has no centre cell, so a rotate180 pattern has an even "
            f"number of clues; got {clues}",
            name="clues",
        )
    if clues < n * n - 1:
        # Two digits that appear in no given could be swapped in any solution, so a unique solution needs
        # givens of at least N - 1 different digits.
        raise ParameterError(
            f"a {n * n}x{n * n} puzzle with a unique solution needs at least {n * n - 1} givens "
            f"(two digits absent from the givens could be swapped in any solution); got {clues}",
            name="clues",
        )
    if isinstance(max_tries, (bool, np.bool_)) or not isinstance(max_tries, (int, np.integer)) or max_tries < 1:
        raise ParameterError(f"max_tries must be a positive integer, got {max_tries!r}", name="max_tries")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ParameterError(
            f"time_limit must be a positive number of seconds or None, got {time_limit!r}", name="time_limit"
        )
    rng, _ = _rng_and_seed(seed)
    orbits = _orbits(C, symmetry)
    warm_kernels()  # compiling the exact search (a cold cache) must not eat into the time limit
    budget = _Budget(time_limit, should_stop, progress, int(clues), int(max_tries))
    fewest = C
    for k in range(max_tries):
        budget.tries = k + 1
        solution = exact.random_solution(n, rng)
        puzzle = _remove_clues(solution, int(clues), orbits, rng, budget)
        givens = int(np.count_nonzero(puzzle))
        if givens == clues:
            return puzzle, solution
        fewest = min(fewest, givens)
        budget.fewest = fewest
        if time_limit is not None and budget.deadline is not None and time.perf_counter() >= budget.deadline:
            raise ParameterError(
                f"could not generate a {n * n}x{n * n} puzzle with {clues} clues and a unique "
                f"solution within {_duration(time_limit)} ({k + 1} tr{'y' if k == 0 else 'ies'}): "
                f"the fewest givens reached was {fewest}; ask for at least {fewest} clues or "
                "allow more time (--time-limit)",
                name="clues",
            )
    raise ParameterError(
        f"could not generate a {n * n}x{n * n} puzzle with {clues} clues and a unique solution "
        f"in {max_tries} tries: the fewest reached was {fewest}; ask for at least {fewest} "
        f"clues or allow more tries",
        name="clues",
    )


def _duration(seconds: float) -> str:
    return f"{seconds:g} s" if seconds < 120 else f"{seconds / 60:g} min"


@checked
def generate(
    n: int,
    clues: int,
    seed: int | np.random.Generator | None = None,
    symmetry: str = "none",
    max_tries: int = 20,
    time_limit: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: ProgressFn | None = None,
):
    """Generate a :class:`~sudoku_lab.model.puzzle.Puzzle` with a unique solution.

    Same arguments, and errors, as :func:`generate_grid`. The puzzle is named
    ``generated_n{n}_c{clues}_s{seed}``, so it can be regenerated from its
    name (when ``seed`` is a Generator the ``_s`` part is left out; when it
    is None, the fresh seed drawn is the one in the name).

    Returns
    -------
    Puzzle
    """
    from ..model.puzzle import Puzzle

    rng, seed_int = _rng_and_seed(seed)
    puzzle, _ = generate_grid(n, clues, rng, symmetry, max_tries, time_limit, should_stop, progress)
    name = f"generated_n{n}_c{clues}" + ("" if seed_int is None else f"_s{seed_int}")
    return Puzzle.from_array(puzzle, name=name)
