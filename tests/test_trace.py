"""The trace's thinning (sudoku_lab.solvers.base.Trace): bounded rows, the first and the latest always kept."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab.analysis.figures import convergence_figure
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.solvers.base import Trace


def _rows(start: int, stop: int) -> np.ndarray:
    it = np.arange(start, stop, dtype=float)
    return np.column_stack((it, 1000.0 - it))  # a second column that must stay with its iteration


@pytest.mark.parametrize("max_rows", [2, 3, 8, 9])
@pytest.mark.parametrize("chunk", [1, 3, 7, 50])
def test_thinning_keeps_the_first_and_the_latest_row_and_its_bound(max_rows, chunk):
    t = Trace(("iteration", "cost"), max_rows=max_rows)
    whole = Trace(("iteration", "cost"), max_rows=max_rows)
    n = 0
    while n < 300:
        t.extend(_rows(n, n + chunk))
        n += chunk
        a = t.arrays()
        assert a["iteration"][0] == 0 and a["iteration"][-1] == n - 1, (n, a["iteration"])
        assert np.array_equal(a["cost"], 1000.0 - a["iteration"])
        assert np.all(np.diff(a["iteration"]) > 0)
        assert len(t) == len(a["iteration"]) <= max_rows + 1
    whole.extend(_rows(0, n))  # one chunk or many: the same rows kept
    assert np.array_equal(whole.arrays()["iteration"], t.arrays()["iteration"])
    assert np.array_equal(Trace.from_state(t.state()).arrays()["iteration"], t.arrays()["iteration"])


def test_views_handed_out_never_change():
    t = Trace(("iteration", "cost"), max_rows=8)
    t.extend(_rows(0, 13))
    seen = t.arrays()
    before = {k: v.copy() for k, v in seen.items()}
    for n in range(13, 60):
        t.extend(_rows(n, n + 1))
    assert all(np.array_equal(seen[k], before[k]) for k in seen)
    with pytest.raises(ValueError):
        seen["cost"][0] = 1.0


@pytest.mark.parametrize("name", ["hill_climb", "reseda"])
def test_a_solved_runs_thinned_curves_and_figure_end_at_its_final_values(name):
    """Issue 18: the exported figure of a solved run ended at best cost 2, its last rows thinned away."""
    full, s = create(name), create(name)
    for solver in (full, s):
        solver.reset(library.puzzle("reseda_fig3_2_medium"), seed=0)
    s.trace.max_rows = 8  # what 200,000 rows do to an hour-long run, in a few iterations
    while not s.done:
        s.step(7)
    while not full.done:
        full.step(7)
    snap, every = s.snapshot(), full.snapshot().trace
    assert snap.solved and len(every["iteration"]) > 8 and len(snap.trace["iteration"]) <= 9
    for key, column in snap.trace.items():  # the first and the last row of the unthinned trace
        assert (column[0], column[-1]) == (every[key][0], every[key][-1]), key
    assert snap.trace["iteration"][-1] == snap.iteration and snap.trace["best_cost"][-1] == 0
    fig = convergence_figure(snap)
    best = [line for ax in fig.axes for line in ax.get_lines() if line.get_label() == "best cost since reset"]
    assert len(best) == 1
    assert best[0].get_xdata()[-1] == snap.iteration and best[0].get_ydata()[-1] == 0
