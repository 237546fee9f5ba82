"""The stepping loop and its terminations."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.stepping import loop


class FakeClock:
    """Time that moves only when told (each call can also advance by a fixed tick)."""

    def __init__(self, tick=0.0):
        self.t = 0.0
        self.tick = tick

    def __call__(self):
        self.t += self.tick
        return self.t


def _solver(puzzle="ai_escargot", **params):
    s = create("reseda", **params)
    s.reset(library.puzzle(puzzle), seed=5)
    return s


def test_max_iterations_stops_exactly_and_never_overshoots():
    s = _solver()
    s.step(3)
    items = list(loop.iterate(s, loop.MaxIterations(250), min_interval=0))
    assert s.iteration == 253
    assert items[-1].done and items[-1].reason == "max_iterations" and items[-1].fraction == 1.0
    fractions = [p.fraction for p in items]
    assert fractions == sorted(fractions)


def test_chunk_sizes_do_not_change_the_result():
    a, b = _solver(), _solver()
    loop.run(a, loop.MaxIterations(300), target_chunk=1e-9)  # chunks of one step
    loop.run(b, loop.MaxIterations(300), target_chunk=10.0)  # huge chunks
    assert a.iteration == b.iteration == 300
    assert (a.grid == b.grid).all() and a.best_cost == b.best_cost


def test_a_stepper_records_every_chunk_in_a_history_with_the_same_result():
    """``iterate(step=history.step)``: the lab's worker records its runs; chunks of any size give the same run."""
    from sudoku_lab.stepping.history import History
    from sudoku_lab.testing import assert_snapshots_equal

    plain, small, large = _solver(), _solver(), _solver()
    loop.run(plain, loop.MaxIterations(300), target_chunk=10.0)
    h_small, h_large = History(small, interval=16), History(large, interval=16)
    loop.run(small, loop.MaxIterations(300), target_chunk=1e-9, step=h_small.step)
    loop.run(large, loop.MaxIterations(300), target_chunk=10.0, step=h_large.step)
    assert h_small.furthest == h_large.furthest == 300
    assert_snapshots_equal(small.snapshot(), plain.snapshot())
    assert_snapshots_equal(large.snapshot(), plain.snapshot())
    at_100 = _solver()
    at_100.step(100)
    assert_snapshots_equal(h_small.seek(100), at_100.snapshot())  # every chunk went through the history


def test_solver_finishing_ends_the_loop():
    s = _solver("reseda_fig3_1_easy", restart="none")
    last = loop.run(s, loop.MaxIterations(10_000))
    assert last.reason in ("solved", "failed") and last.snapshot.done


def test_max_seconds():
    s = _solver()
    last = loop.run(s, loop.MaxSeconds(0.3))
    assert last.reason == "max_seconds" and last.elapsed >= 0.3 and s.iteration > 0


@pytest.mark.parametrize("target_chunk", [1e-9, 0.02, 10.0])  # chunks of one step, adaptive, huge
def test_stagnation_stops_exactly_a_window_after_the_last_improvement(target_chunk):
    # restart="full" never gives up by its own rule, and seed 5 does not solve AI Escargot in this horizon,
    # so the only rule that can end the run before 10,000 steps is Stagnation, and it must end it exactly
    # 20 steps after the best cost last fell (and not before: no earlier gap of 20 steps without improvement).
    s = _solver("ai_escargot", restart="full")
    last = loop.run(s, loop.Stagnation(20) | loop.MaxIterations(10_000), target_chunk=target_chunk)
    assert last.reason == "stagnation" and s.status == "running"
    trace = s.trace.arrays()
    falls = trace["iteration"][np.flatnonzero(np.diff(trace["best_cost"], prepend=np.inf) < 0)]
    assert s.iteration == falls[-1] + 20
    assert np.all(np.diff(falls) < 20)
    assert s.iteration == 45  # the same stop whatever the chunk sizes (seed 5: the last fall is at step 25)


def test_any_of_reports_which_condition_fired():
    s = _solver()
    term = loop.AnyOf(loop.MaxEvaluations(10**9), loop.MaxIterations(7))
    last = loop.run(s, term)
    assert last.reason == "max_iterations" and s.iteration == 7
    assert loop.AllOf(loop.MaxIterations(3), loop.MaxIterations(9)).reason == "max_iterations+max_iterations"


def test_should_stop_cancels_and_before_chunk_runs():
    s = _solver()
    calls = []
    n = iter(range(10**6))
    last = loop.run(
        s,
        loop.MaxIterations(10**6),
        should_stop=lambda: next(n) >= 5,
        before_chunk=lambda solver: calls.append(solver.iteration),
    )
    assert last.reason == "cancelled" and 0 < s.iteration < 10**6
    assert calls and calls == sorted(calls)


def test_max_rate_paces_with_wait():
    s = _solver()
    clock = FakeClock()
    waits = []

    def wait(seconds):
        waits.append(seconds)
        clock.t += seconds

    last = loop.run(s, loop.MaxIterations(20), max_rate=lambda: 10.0, wait=wait, clock=clock)
    assert s.iteration == 20 and last.reason == "max_iterations"
    assert sum(waits) == pytest.approx(20 / 10.0, rel=0.05)  # 20 steps at 10 per second


def test_snapshots_are_throttled_and_the_last_is_always_yielded():
    s = _solver()
    clock = FakeClock(tick=0.001)
    items = list(loop.iterate(s, loop.MaxIterations(400), min_interval=0.5, clock=clock, target_chunk=1e-9))
    assert items[-1].done
    assert len(items) < 400 / 10  # far fewer snapshots than steps


@pytest.mark.parametrize(
    "text,kind",
    [
        ("solved", loop.Solved),
        ("500", loop.MaxIterations),
        ("500it", loop.MaxIterations),
        ("30s", loop.MaxSeconds),
        ("2m", loop.MaxSeconds),
        ("250ms", loop.MaxSeconds),
        ("1e5evals", loop.MaxEvaluations),
        ("solved,10s", loop.AnyOf),
        ("1e-3s", loop.MaxSeconds),
    ],
)
def test_parse_until(text, kind):
    assert isinstance(loop.parse_until(text), kind)


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("soon", "cannot read stopping rule 'soon'"),
        ("10 parsecs", "cannot read stopping rule '10 parsecs'"),
        ("-5", "cannot read stopping rule '-5'"),
        # issue 7: these raised OverflowError (int(float('inf'))) instead of a clear message
        ("infit", "cannot read stopping rule 'infit'"),
        ("1e999evals", "cannot read stopping rule '1e999evals'"),
        ("inf", "cannot read stopping rule 'inf'"),
        ("nans", "cannot read stopping rule 'nans'"),
        ("1e30it", "stopping rule '1e30it': at most 1e+18 iterations"),
        ("2.5it", "a count of iterations must be a whole number"),
        # issue 17: a budget beyond any run is a typo, not a budget
        ("1e300s", "stopping rule '1e300s': at most 1e+09 seconds"),
        ("1000000h", "stopping rule '1000000h': at most 1e+09 seconds"),
    ],
)
def test_parse_until_rejects_nonsense(text, fragment):
    with pytest.raises(ParameterError) as info:
        loop.parse_until(text)
    assert fragment in str(info.value) and info.value.name == "until"


def test_run_takes_a_stopping_rule_string_and_refuses_a_bare_number():
    """loop.run(s, 5) raised AttributeError ('int' object has no attribute 'start')."""
    from sudoku_lab.errors import ParameterTypeError

    s = create("reseda", restart="none")
    s.reset(library.puzzle("reseda_fig3_1_easy"), seed=0)
    assert loop.run(s, "3").snapshot.iteration == 3
    with pytest.raises(ParameterTypeError, match=r"got int 5; write loop.MaxIterations\(5\) or '5s'") as info:
        loop.run(s, 5)
    assert isinstance(info.value, TypeError) and isinstance(info.value, ParameterError)


@pytest.mark.parametrize("seed", [-1, 2.5, "1", True])
def test_reset_refuses_a_bad_seed(seed):
    """reset(seed=-1) raised numpy's ValueError from default_rng."""
    s = create("reseda")
    with pytest.raises(ParameterError, match="seed must be") as info:
        s.reset(library.puzzle("reseda_fig3_1_easy"), seed=seed)
    assert info.value.name == "seed"


def test_reset_refuses_a_grid_that_is_not_a_puzzle():
    from sudoku_lab.errors import PuzzleError

    s = create("reseda")
    with pytest.raises(PuzzleError, match="Solver.reset: puzzle must be a Puzzle, got ndarray") as info:
        s.reset(library.puzzle("reseda_fig3_1_easy").grid, seed=0)
    assert isinstance(info.value, TypeError)
