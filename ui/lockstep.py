"""The lockstep of the side-by-side comparison: which pane runs how far next (no Qt, testable headless).

Panes advance in chunks to one shared target, counted in iterations, cost
evaluations or seconds of running: each pane's worker is sent to the target,
and a new target (the old one plus a chunk) is set only when every pane still
running has reached the current one. A fast pane therefore waits for the
slowest one at each target, never longer; a pane whose solver finished
(solved, or gave up by its own rule) drops out of the lockstep.

The window (:mod:`sudoku_lab_ui.compare_window`) asks :meth:`Lockstep.plan` for
the runs to start each time a pane's run ends, and turns each amount into the
stopping rule :func:`termination` gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sudoku_lab.errors import ParameterError
from sudoku_lab.stepping import loop

__all__ = ["Lockstep", "MODES", "UNITS", "EvaluationTarget", "position", "termination"]

#: The lockstep's measures: the solver's iterations, its cost evaluations, or seconds spent running.
MODES = ("iterations", "evaluations", "seconds")
#: How each measure is written after a number.
UNITS = {"iterations": "iterations", "evaluations": "evaluations", "seconds": "s"}
#: A pane this close below a time target has reached it (the clocks of the loop and of the target differ).
TIME_SLACK = 1e-3


class Lockstep:
    """Shared targets of a side-by-side comparison.

    Parameters
    ----------
    mode : str
        One of :data:`MODES`.
    chunk : float
        How far the target moves each time every running pane reached it (> 0; a whole number for
        iterations and evaluations).
    limit : float, optional
        The last target: the comparison ends when every pane reached it (None: until every pane finished).

    Examples
    --------
    >>> ls = Lockstep("iterations", chunk=100, limit=250)
    >>> ls.plan([0, 0])
    {0: 100, 1: 100}
    >>> ls.plan([100, 40])  # pane 0 waits for pane 1
    {1: 60}
    >>> ls.plan([100, 100]), ls.target
    ({0: 100, 1: 100}, 200)
    >>> ls.plan([200, None]), ls.target  # pane 1 finished: pane 0 goes on alone, to the limit
    ({0: 50}, 250)
    >>> ls.plan([250, None]), ls.finished
    ({}, True)
    """

    def __init__(self, mode: str = "iterations", chunk: float = 100, limit: float | None = None):
        if mode not in MODES:
            raise ParameterError(f"unknown lockstep {mode!r}; choose from {', '.join(MODES)}", name="lockstep")
        if not (isinstance(chunk, (int, float)) and math.isfinite(chunk) and chunk > 0):
            raise ParameterError(f"the lockstep chunk must be > 0, got {chunk!r}", name="chunk")
        if limit is not None and not limit > 0:
            raise ParameterError(f"the comparison's end must be > 0, got {limit!r}", name="limit")
        counted = mode != "seconds"
        self.mode = mode
        self.chunk: float = int(chunk) if counted else float(chunk)
        if counted and self.chunk != chunk:
            raise ParameterError(f"a chunk of {mode} must be a whole number, got {chunk!r}", name="chunk")
        self.limit = (int(limit) if counted else float(limit)) if limit is not None else None
        self.target: float = 0
        self.finished = False  #: True once every pane reached the limit or finished

    def reached(self, pos: float) -> bool:
        """True when a pane at ``pos`` has reached the current target."""
        slack = TIME_SLACK if self.mode == "seconds" else 0
        return pos >= self.target - slack

    def plan(self, positions: Sequence[float | None]) -> dict[int, float]:
        """The runs to start now: ``{pane: amount}`` to take each pane behind the target to it.

        ``positions`` holds each pane's measure (iterations, evaluations or seconds so far), None for a
        pane out of the lockstep (its solver finished). When every pane in it has reached the target, the
        target moves on by a chunk (not past the limit) and every pane in it is sent there. An empty plan
        means the comparison is over (:attr:`finished`): every pane reached the limit or finished.
        """
        active = [i for i, p in enumerate(positions) if p is not None]
        if not active or self.finished:
            self.finished = True
            return {}
        behind = {i: self.target - positions[i] for i in active if not self.reached(positions[i])}  # type: ignore[operator]
        if behind:
            return behind
        if self.limit is not None and self.target >= self.limit:
            self.finished = True
            return {}
        nxt = self.target + self.chunk
        self.target = min(nxt, self.limit) if self.limit is not None else nxt
        return {i: self.target - positions[i] for i in active if not self.reached(positions[i])}  # type: ignore[operator]

    def reset(self) -> None:
        """Back to target 0 (the panes were reset)."""
        self.target = 0
        self.finished = False


def position(mode: str, snapshot, seconds: float) -> float:
    """A pane's measure for lockstep ``mode``: its snapshot's iterations or evaluations, or ``seconds`` run."""
    if mode == "iterations":
        return snapshot.iteration
    if mode == "evaluations":
        return snapshot.evaluations
    return seconds


def termination(mode: str, amount: float) -> loop.Termination:
    """The stopping rule that takes a pane ``amount`` further in lockstep ``mode`` (or to its solver's end)."""
    if mode == "iterations":
        return loop.MaxIterations(max(0, int(amount)))
    if mode == "evaluations":
        return EvaluationTarget(max(1, int(amount)))
    return loop.MaxSeconds(max(1e-3, float(amount)))


class EvaluationTarget(loop.Termination):
    """Stop after ``n`` more cost evaluations, in chunks that do not overshoot by more than about one iteration.

    :class:`~sudoku_lab.stepping.loop.MaxEvaluations` lets the loop's adaptive chunk run on past the
    budget; here each chunk is capped at the iterations the remaining evaluations need at the run's mean
    evaluations per iteration so far, so panes in lockstep by evaluations stop close to the same target.
    A solver that counts no evaluations (iterations but none) stops at once, reason ``no_evaluations``.
    """

    reason = "max_evaluations"

    def __init__(self, n: int):
        if int(n) <= 0:
            raise ParameterError(f"the evaluation budget must be > 0, got {n}", name="evaluations")
        self.n = int(n)

    def start(self, solver, now: float) -> None:
        super().start(solver, now)
        self._e0 = solver.evaluations

    def done(self, solver, now: float) -> bool:
        if solver.evaluations - self._e0 >= self.n:
            self.reason = "max_evaluations"
            return True
        if solver.iteration > 0 and solver.evaluations == 0:
            self.reason = "no_evaluations"
            return True
        return False

    def progress(self, solver, now: float) -> float:
        return min(1.0, (solver.evaluations - self._e0) / self.n)

    def cap(self, solver) -> int | None:
        if solver.iteration <= 0 or solver.evaluations <= 0:
            return 1
        left = self.n - (solver.evaluations - self._e0)
        per = solver.evaluations / solver.iteration
        return max(1, math.ceil(left / per))
