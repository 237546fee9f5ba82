"""The lab's solver worker warms every kernel a run may reach before its clock, and says when it compiles."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QThread
from test_warmup import _lazy_solver  # tests/test_warmup.py

from sudoku_lab.model import library
from sudoku_lab.stepping import loop
from sudoku_lab.stepping.warmup import SHARED
from sudoku_lab_ui.worker import SolverWorker, WorkerState

HANG = 120_000  # ms: only a hung worker gets anywhere near this


@pytest.mark.gui
def test_the_worker_loads_the_shared_kernels_and_says_what_compiles(qtbot, warm_kernels):
    """Before: the worker warmed the solver's kernels only (AC3 and the exact search, which RESEDA's and the
    cuckoo search's prefilters and restarts reach mid-run, were left to compile inside a run's time) and
    said "compiling kernels" for kernels it only loaded."""
    from sudoku_lab.solvers import register, unregister

    cls = register(_lazy_solver("tmp-lazy-lab"))
    thread = QThread()
    w = SolverWorker()
    w.moveToThread(thread)
    thread.started.connect(w.loop)
    thread.start()
    messages, ended = [], []
    w.message.connect(messages.append)
    w.runEnded.connect(ended.append)
    try:
        w.request_reset("tmp-lazy-lab", {}, library.puzzle("reseda_fig3_1_easy"), 0)
        qtbot.waitUntil(lambda: w.solver is not None and w.state == WorkerState.IDLE, timeout=HANG)
        w.request_run(loop.MaxIterations(3))
        qtbot.waitUntil(lambda: bool(ended), timeout=HANG)
    finally:
        w.request_quit()
        thread.quit()
        assert thread.wait(HANG)
        unregister("tmp-lazy-lab")
    assert cls.cold_steps and not any(cls.cold_steps)
    assert messages[:2] == [f"loading kernels: {SHARED[0]} (1/3)...", f"loading kernels: {SHARED[1]} (2/3)..."]
    assert messages[2] == "loading kernels: tmp-lazy-lab (3/3)..."
    # the toy's kernel is njit(cache=False): compiled at every start, so not "once"
    assert (
        messages[3] == ("compiling kernels (3/3): tmp-lazy-lab: test_warmup._lazy_solver.<locals>.bump (not cached)...")
        and len(messages) == 4
    )


@pytest.mark.gui
def test_switching_algorithms_while_kernels_compile_shows_only_the_chosen_solver(window, qtbot, monkeypatch):
    """Before: on a cold cache, browsing RESEDA -> hill climbing -> GA showed hill climbing's grid under the GA
    title once its slow compile ended (its queued reset still ran and its frame was drawn), kept the previous
    solvers' curves in the legend, and the plot kept the long run's x range."""
    import threading

    from PySide6.QtCore import Qt

    import sudoku_lab_ui.worker as worker_module
    from sudoku_lab.solvers import registry

    from lab_helpers import button, iteration

    win = window("ai_escargot")  # RESEDA, its kernels warm
    c, plot = win.controller, win.views["convergence"]
    win.step_n.setValue(300)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 300 and win.settled())
    assert plot.x_range()[1] > 300
    gates = {"hill_climb": threading.Event(), "ga": threading.Event()}
    started: list[str] = []
    real = worker_module.warm_up

    def slow(names, progress=None):  # a cold cache: these solvers' kernels take their time
        for name in names:
            started.append(name)
            if name in gates:
                assert gates[name].wait(HANG / 1000)
        real(names, progress)

    monkeypatch.setattr(worker_module, "warm_up", slow)
    box = win.solver_box
    box.setCurrentIndex(box.findData("hill_climb"))
    qtbot.waitUntil(lambda: "hill_climb" in started)  # compiling
    box.setCurrentIndex(box.findData("ga"))  # chosen while hill climbing still compiles
    seen: list[str] = []
    c.progress.connect(lambda prog: seen.append(prog.snapshot.solver))
    puzzle = c.puzzle
    # Meanwhile the board shows the puzzle's givens, the plot GA's declared curves from 0, nothing of RESEDA's run.
    np.testing.assert_array_equal(win.board.shown_digits(), puzzle.grid)
    ga = registry()["ga"]
    assert [label.text for _, label in plot.legend.items] == [col.label for col in ga.columns]
    assert plot.x_range()[1] <= 11
    gates["hill_climb"].set()
    # Wait until the worker has passed hill climbing's queued reset (it compiles GA next), then for the polls.
    qtbot.waitUntil(lambda: "ga" in started)
    qtbot.wait(300)
    assert set(seen) <= {"ga"}, seen  # no frame of hill climbing (or RESEDA) under the GA title
    assert c.worker.solver.name != "hill_climb"  # its reset, superseded, was skipped: it never ran
    gates["ga"].set()
    qtbot.waitUntil(lambda: c.latest is not None and c.latest.snapshot.solver == "ga" and win.settled())
    assert seen and set(seen) == {"ga"}, seen
    assert win.windowTitle().endswith(ga.title)
    np.testing.assert_array_equal(win.board.shown_digits(), c.latest.snapshot.grid)
    assert sorted(plot.curves) == sorted(col.name for col in ga.columns)
    assert [label.text for _, label in plot.legend.items] == [col.label for col in ga.columns]
    assert plot.x_range()[1] <= 11
