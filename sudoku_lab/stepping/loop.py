"""The one stepping loop: adaptive chunks, throttled snapshots, terminations with progress.

The CLI, the experiment runner and the GUI worker all drive solvers through
:func:`iterate`, so a run behaves the same wherever it is watched from.

Examples
--------
>>> from sudoku_lab.model import library
>>> from sudoku_lab.stepping import loop
>>> from sudoku_lab.solvers import create
>>> s = create("reseda", restart="none")
>>> s.reset(library.puzzle("reseda_fig3_1_easy"), seed=3)
>>> last = None
>>> for last in loop.iterate(s, loop.MaxIterations(500)):
...     pass
>>> last.snapshot.done, last.reason in ("solved", "failed", "max_iterations")
(True, True)
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from .._checks import checked
from ..errors import ParameterError
from ..solvers.base import PhaseStep, Snapshot, Solver, Status

__all__ = [
    "Termination",
    "Solved",
    "MaxIterations",
    "MaxSeconds",
    "MaxEvaluations",
    "Stagnation",
    "AnyOf",
    "AllOf",
    "Progress",
    "iterate",
    "run",
    "parse_until",
    "as_termination",
]


@checked
class Termination:
    """When to stop a run, and how far along it is.

    The loop calls :meth:`start` once, then :meth:`done` after every chunk;
    :meth:`progress` gives a fraction in [0, 1] for progress bars;
    :meth:`cap` bounds the next chunk so a budget is never overshot.
    A solver that finishes (solved or failed by its own rule) always stops
    the loop, whatever the termination says.
    """

    reason = "stopped"

    def start(self, solver: Solver, now: float) -> None:
        self._t0 = now

    def done(self, solver: Solver, now: float) -> bool:
        raise NotImplementedError

    def progress(self, solver: Solver, now: float) -> float:
        return 0.0

    def cap(self, solver: Solver) -> int | None:
        """Most iterations the next chunk may take, or None for no limit."""
        return None

    def __or__(self, other: Termination) -> AnyOf:
        return AnyOf(self, other)

    def __and__(self, other: Termination) -> AllOf:
        return AllOf(self, other)


@checked
class Solved(Termination):
    """Run until the solver finishes (solves the puzzle or gives up by its own rule)."""

    reason = "solved"

    def done(self, solver: Solver, now: float) -> bool:
        return solver.status in Status.DONE

    def progress(self, solver: Solver, now: float) -> float:
        return 1.0 if solver.status in Status.DONE else 0.0


@checked
class MaxIterations(Termination):
    """Stop after ``n`` more iterations (counted from :meth:`start`)."""

    reason = "max_iterations"

    def __init__(self, n: int):
        if int(n) < 0:
            raise ParameterError(f"the iteration budget must be >= 0, got {n}", name="iterations")
        self.n = int(n)

    def start(self, solver: Solver, now: float) -> None:
        super().start(solver, now)
        self._i0 = solver.iteration

    def done(self, solver: Solver, now: float) -> bool:
        return solver.iteration - self._i0 >= self.n

    def progress(self, solver: Solver, now: float) -> float:
        return 1.0 if self.n == 0 else min(1.0, (solver.iteration - self._i0) / self.n)

    def cap(self, solver: Solver) -> int | None:
        return max(0, self.n - (solver.iteration - self._i0))


@checked
class MaxSeconds(Termination):
    """Stop after ``seconds`` of wall time."""

    reason = "max_seconds"

    def __init__(self, seconds: float):
        if not float(seconds) > 0:
            raise ParameterError(f"the time budget must be > 0 seconds, got {seconds}", name="seconds")
        self.seconds = float(seconds)

    def done(self, solver: Solver, now: float) -> bool:
        return now - self._t0 >= self.seconds

    def progress(self, solver: Solver, now: float) -> float:
        return min(1.0, (now - self._t0) / self.seconds)


@checked
class MaxEvaluations(Termination):
    """Stop after ``n`` more cost evaluations."""

    reason = "max_evaluations"

    def __init__(self, n: int):
        if int(n) <= 0:
            raise ParameterError(f"the evaluation budget must be > 0, got {n}", name="evaluations")
        self.n = int(n)

    def start(self, solver: Solver, now: float) -> None:
        super().start(solver, now)
        self._e0 = solver.evaluations

    def done(self, solver: Solver, now: float) -> bool:
        return solver.evaluations - self._e0 >= self.n

    def progress(self, solver: Solver, now: float) -> float:
        return min(1.0, (solver.evaluations - self._e0) / self.n)


@checked
class Stagnation(Termination):
    """Stop when the best cost has not improved for ``iterations`` iterations.

    The loop stops exactly ``iterations`` iterations after the last
    improvement, whatever the chunk sizes: an improvement inside a chunk is
    dated by the solver's trace (column ``best_cost``), not by the end of the
    chunk. Once a very long run's trace keeps only every k-th row, the date is
    the first kept row showing the improvement (at most k - 1 iterations late).
    """

    reason = "stagnation"

    def __init__(self, iterations: int):
        if int(iterations) <= 0:
            raise ParameterError(f"the stagnation window must be > 0, got {iterations}", name="stagnation")
        self.window = int(iterations)

    def start(self, solver: Solver, now: float) -> None:
        super().start(solver, now)
        self._best = solver.best_cost
        self._since = solver.iteration

    def done(self, solver: Solver, now: float) -> bool:
        if solver.best_cost < self._best:
            self._best = solver.best_cost
            self._since = self._improved_at(solver)
        return solver.iteration - self._since >= self.window

    def _improved_at(self, solver) -> int:
        """First iteration after the previous improvement whose best cost is the current one."""
        trace = solver.trace.arrays()
        if "best_cost" not in trace:
            return solver.iteration
        its, best = trace["iteration"], trace["best_cost"]
        first = int(np.searchsorted(its, self._since, side="right"))
        hit = np.flatnonzero(best[first:] <= self._best)
        return int(its[first + hit[0]]) if hit.size else solver.iteration

    def progress(self, solver: Solver, now: float) -> float:
        return min(1.0, (solver.iteration - self._since) / self.window)

    def cap(self, solver: Solver) -> int | None:
        return max(1, self.window - (solver.iteration - self._since))


@checked
class AnyOf(Termination):
    """Stop when any of the conditions holds; progress is the furthest along."""

    def __init__(self, *conds: Termination):
        self.conds = conds
        self.reason = "stopped"

    def start(self, solver: Solver, now: float) -> None:
        for c in self.conds:
            c.start(solver, now)

    def done(self, solver: Solver, now: float) -> bool:
        for c in self.conds:
            if c.done(solver, now):
                self.reason = c.reason
                return True
        return False

    def progress(self, solver: Solver, now: float) -> float:
        return max((c.progress(solver, now) for c in self.conds), default=0.0)

    def cap(self, solver: Solver) -> int | None:
        caps = [cap for c in self.conds if (cap := c.cap(solver)) is not None]
        return min(caps) if caps else None


@checked
class AllOf(Termination):
    """Stop when all the conditions hold; progress is the least along."""

    def __init__(self, *conds: Termination):
        self.conds = conds
        self.reason = "+".join(c.reason for c in conds)

    def start(self, solver: Solver, now: float) -> None:
        for c in self.conds:
            c.start(solver, now)

    def done(self, solver: Solver, now: float) -> bool:
        return all([c.done(solver, now) for c in self.conds])

    def progress(self, solver: Solver, now: float) -> float:
        return min((c.progress(solver, now) for c in self.conds), default=0.0)

    def cap(self, solver: Solver) -> int | None:
        caps = [c.cap(solver) for c in self.conds]
        known = [cap for cap in caps if cap is not None]
        return max(known) if caps and len(known) == len(caps) else None


@checked
def parse_until(text: str | None) -> Termination:
    """A termination from a short text: ``solved``, ``500`` / ``500it``, ``30s``, ``2m``, ``1e5evals``.

    Several joined by ``,`` stop at the first that holds.
    """
    if text is None or not str(text).strip():
        return Solved()
    parts: list[Termination] = []
    for tok in str(text).split(","):
        t = tok.strip().lower()
        if t == "solved":
            parts.append(Solved())
            continue
        m = _RULE.fullmatch(t)
        value = float(m.group(1)) if m else math.nan
        if m is None or not (math.isfinite(value) and value >= 0):  # no match: value is NaN
            raise ParameterError(
                f"cannot read stopping rule {tok.strip()!r}: use solved, 500 (iterations), "
                "30s, 2m, 1h or 1e5evals, separated by commas",
                name="until",
            )
        unit = m.group(2)
        if unit in _COUNTS and value > _MAX_COUNT:
            raise ParameterError(
                f"stopping rule {tok.strip()!r}: at most {_MAX_COUNT:.0e} {_COUNTS[unit]}", name="until"
            )
        if unit in _SECONDS and value * _SECONDS[unit] > _MAX_SECONDS:
            raise ParameterError(
                f"stopping rule {tok.strip()!r}: at most {_MAX_SECONDS:.0e} seconds (about 30 "
                "years); for no time limit, leave the seconds out",
                name="until",
            )
        if unit in _COUNTS:
            if not value.is_integer():
                raise ParameterError(
                    f"stopping rule {tok.strip()!r}: a count of {_COUNTS[unit]} must be a whole number", name="until"
                )
            parts.append(MaxEvaluations(int(value)) if unit == "evals" else MaxIterations(int(value)))
        else:
            parts.append(MaxSeconds(value * _SECONDS[unit]))
    return parts[0] if len(parts) == 1 else AnyOf(*parts)


#: A number (no inf, nan or signs: "infit" is a typo, not a budget; "1e-3s" is a millisecond) and an optional unit.
_RULE = re.compile(r"(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)\s*(evals|it|ms|s|m|h|)")
_COUNTS = {"": "iterations", "it": "iterations", "evals": "evaluations"}
_SECONDS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_MAX_COUNT = 1e18  # beyond any run, and still an exact int64
_MAX_SECONDS = 1e9  # beyond any run: a larger budget is a typo (or a wish for none)
#: A bare number is refused: iterations or seconds? The message says how to write either.
_TERMINATION_ADVICE = {"termination": "write loop.MaxIterations({value!r}) or '{value}s'"}


@checked(advice=_TERMINATION_ADVICE)
def as_termination(termination: Termination | str | None) -> Termination:
    """A :class:`Termination` from a Termination, a stopping-rule string (:func:`parse_until`) or None.

    Raises
    ------
    ParameterTypeError
        For anything else, such as a bare number (iterations or seconds?),
        with the spelling that says which.
    """
    if termination is None:
        return Solved()
    if isinstance(termination, Termination):
        return termination
    return parse_until(termination)


@checked
@dataclass(frozen=True)
class Progress:
    """What :func:`iterate` yields: a snapshot plus the loop's own view of the run.

    Attributes
    ----------
    snapshot : Snapshot
    elapsed : float
        Wall seconds since the loop started.
    fraction : float
        Progress in [0, 1] by the termination (1 when finished).
    done : bool
        True on the last item.
    reason : str
        Why it stopped (``solved``, ``failed``, ``max_iterations``,
        ``max_seconds``, ``cancelled``...), or ``""`` while running.
    rate : float
        Iterations per second over the last chunks.
    chunk : int
        The adapted chunk size; pass it as ``iterate(..., chunk=)`` to start
        the next run of the same solver at full speed.
    phase : PhaseStep or None
        The phase step that led to this snapshot when the front end stepped one phase
        (:meth:`~sudoku_lab.stepping.history.History.step_phase`), for views to show what it
        changed; None for whole iterations (the loop never sets it).
    """

    snapshot: Snapshot
    elapsed: float
    fraction: float
    done: bool
    reason: str
    rate: float
    chunk: int = 1
    phase: PhaseStep | None = None


@checked(advice=_TERMINATION_ADVICE)
def iterate(
    solver: Solver,
    termination: Termination | str | None = None,
    *,
    min_interval: float = 1 / 30,
    target_chunk: float = 0.02,
    should_stop: Callable[[], bool] | None = None,
    before_chunk: Callable[[Solver], None] | None = None,
    max_rate: float | Callable[[], float | None] | None = None,
    wait: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.perf_counter,
    chunk: int = 1,
    step: Callable[[int], int] | None = None,
) -> Iterator[Progress]:
    """Step ``solver`` in adaptive chunks and yield throttled progress.

    Parameters
    ----------
    solver : Solver
        A solver after ``reset``.
    termination : Termination or str, optional
        When to stop besides the solver finishing; default :class:`Solved`.
        A string is a stopping rule for :func:`parse_until` (``"500"``, ``"30s"``).
    min_interval : float
        Least seconds between two yielded snapshots (the last is always
        yielded). 0 yields after every chunk.
    target_chunk : float
        Seconds one chunk should take; the chunk size adapts to hit it, so
        cancelling and live parameter changes take effect within about this.
    should_stop : callable, optional
        Polled between chunks; True ends the loop with reason ``cancelled``.
    before_chunk : callable, optional
        Called with the solver before each chunk, e.g. to apply parameter
        changes queued by another thread.
    max_rate : float or callable, optional
        At most this many iterations per second (a teaching speed); chunks
        become small and are separated by ``wait``. A callable is asked before
        every chunk, so a speed slider takes effect mid-run.
    wait : callable
        How to pause for ``max_rate`` (a GUI worker passes an Event's wait so a
        pause can be interrupted).
    clock : callable
        Time source (tests pass a fake clock).
    chunk : int
        First chunk size (default 1); a previous run's ``Progress.chunk``
        skips the ramp-up, which matters for short runs.
    step : callable, optional
        What advances the solver by a chunk: ``step(n)`` returns the iterations done, as
        :meth:`Solver.step` (the default). The lab passes a
        :meth:`~sudoku_lab.stepping.history.History.step`, so every chunk is recorded.

    Notes
    -----
    Chunk sizes never change results: every solver guarantees
    ``step(a); step(b)`` equals ``step(a + b)``.

    The solver's kernels (and the shared ones) are compiled or loaded before
    the clock starts (:func:`sudoku_lab.stepping.warmup.warm_once`, once per process),
    so ``elapsed`` and the time budgets never include compiling.
    """
    term = as_termination(termination)
    _warm(solver)
    t0 = clock()
    term.start(solver, t0)
    chunk = max(1, int(chunk))
    advance = solver.step if step is None else step
    last_yield = -float("inf")
    rate = 0.0
    while True:
        now = clock()
        reason = ""
        if solver.status in Status.DONE:
            reason = solver.status
        elif term.done(solver, now):
            reason = term.reason
        elif should_stop is not None and should_stop():
            reason = "cancelled"
        if reason:
            yield Progress(
                solver.snapshot(),
                now - t0,
                1.0 if reason != "cancelled" else term.progress(solver, now),
                True,
                reason,
                rate,
                chunk,
            )
            return
        if now - last_yield >= min_interval:
            last_yield = now
            yield Progress(solver.snapshot(), now - t0, term.progress(solver, now), False, "", rate, chunk)
        if before_chunk is not None:
            before_chunk(solver)
            if solver.status in Status.DONE:
                continue
        rate_limit = max_rate() if callable(max_rate) else max_rate
        n = chunk
        if rate_limit is not None:
            n = max(1, int(rate_limit * target_chunk))
        cap = term.cap(solver)
        if cap is not None:
            n = max(1, min(n, cap)) if cap > 0 else 0
        if n == 0:
            continue
        t1 = clock()
        done = advance(n)
        dt = clock() - t1
        if done > 0 and dt > 0:
            rate = done / dt if rate == 0 else 0.7 * rate + 0.3 * done / dt
        if rate_limit is None:
            # Grow fast while chunks are short, shrink at once when one overshoots.
            per = dt / max(done, 1)
            ideal = int(target_chunk / per) if per > 0 else chunk * 4
            chunk = max(1, min(chunk * 4, ideal, 1_000_000))
        else:
            pause = n / rate_limit - dt
            if pause > 0:
                wait(pause)


def _warm(solver: Solver) -> None:
    """Compile the kernels of a registered solver's class before a clock starts (see :func:`iterate`)."""
    from ..solvers import registry
    from .warmup import warm_once

    cls = type(solver)
    warm_once([cls.name] if registry().get(cls.name) is cls else [])


@checked(advice=_TERMINATION_ADVICE)
def run(solver: Solver, termination: Termination | str | None = None, **kw: Any) -> Progress:
    """Run to the end (no throttled snapshots in between) and return the last :class:`Progress`.

    Raises
    ------
    ParameterTypeError
        ``termination`` is not a Termination, a stopping rule or None (a bare
        number: iterations or seconds? the message says how to write either),
        or another argument of the wrong kind (also a TypeError).
    ParameterError
        A stopping rule that cannot be read.
    """
    last = None
    for last in iterate(solver, termination, min_interval=float("inf"), **kw):  # noqa: B007 - keeps the last one
        pass
    assert last is not None  # iterate yields at least the final progress
    return last
