"""The lab's solver worker warms every kernel a run may reach before its clock, and says when it compiles."""

from __future__ import annotations

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
