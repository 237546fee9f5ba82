"""The lab's solver worker on its own QThread: stop latency, live parameters, read-only payloads.

The worker's solver is wrapped so every chunk the stepping loop runs is logged (iterations,
evaluations, parameters in force) and a request (stop, parameters) can be made *during* a given
chunk, from the worker thread itself, exactly as a click landing mid-chunk would. Every assertion
is on chunks and iterations, never on seconds; timeouts only guard against hangs.
"""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThread

from sudoku_lab.model import library
from sudoku_lab.solvers import Event
from sudoku_lab.stepping import loop
from sudoku_lab.testing import mutable_parts  # the conformance kit's walk over a published payload
from sudoku_lab_ui.worker import SolverWorker, WorkerState

HANG = 120_000  # ms: only a hung worker gets anywhere near this (the first reset may compile kernels)
LONG = loop.MaxIterations(10**9)  # a run that only a stop ends


@pytest.fixture
def worker(qtbot):
    """A SolverWorker looping on its own QThread, as the lab's controller runs it."""
    thread = QThread()
    w = SolverWorker()
    w.moveToThread(thread)
    thread.started.connect(w.loop)
    thread.start()
    yield w
    w.request_quit()
    thread.quit()
    assert thread.wait(HANG), "the worker thread did not end after quit"


class ChunkLog:
    """Wraps the worker's stepper: logs each chunk of the loop and calls ``hooks[k]()`` right after chunk k (1-based).

    The loop steps the solver through the worker's History (which records keyframes, so one chunk of the loop
    may be two calls of ``solver.step`` split at a keyframe); the chunks are the loop's.
    """

    def __init__(self, worker, hooks=None):
        self.solver = worker.solver
        self.hooks = dict(hooks or {})
        self.chunks: list[dict] = []
        stepper = worker.history if worker.history is not None else self.solver
        self._step = stepper.step
        stepper.step = self.step  # the instance attribute shadows the method for the loop

    def step(self, n):
        s = self.solver
        rec = {"n": n, "start": s.iteration, "evals_start": s.evaluations, "params": s.get_params()}
        done = self._step(n)
        rec.update(end=s.iteration, evals_end=s.evaluations, done=done)
        self.chunks.append(rec)
        hook = self.hooks.get(len(self.chunks))
        if hook is not None:
            hook()
        return done


def _frames(worker, into):
    p = worker.take_latest()
    if p is not None:
        into.append(p)
    return into


def _reset(qtbot, worker, frames, puzzle="ai_escargot", seed=1, **params):
    """Reset the worker's solver (RESEDA) and wait for its first published snapshot."""
    pz = library.puzzle(puzzle)
    worker.request_reset("reseda", params, pz, seed)
    qtbot.waitUntil(
        lambda: bool(_frames(worker, frames)) and frames[-1].snapshot.puzzle is pz and worker.state == WorkerState.IDLE,
        timeout=HANG,
    )
    assert worker.solver.iteration == 0


def test_a_stop_ends_a_long_run_before_another_chunk_starts(qtbot, worker):
    frames, ended = [], []
    _reset(qtbot, worker, frames, restart="partial+full")
    worker.runEnded.connect(ended.append)
    log = ChunkLog(worker, {6: worker.request_stop})  # the stop arrives during chunk 6
    worker.request_run(LONG)
    qtbot.waitUntil(lambda: worker.state == WorkerState.STOPPED and len(ended) == 2, timeout=HANG)
    assert len(log.chunks) == 6, "no chunk may start after the stop request"
    assert ended == ["cancelled", "stopped"]
    assert worker.solver.iteration == log.chunks[-1]["end"] and not worker.solver.done
    last = _frames(worker, frames)[-1]
    assert last.done and last.reason == "cancelled" and last.snapshot.iteration == log.chunks[-1]["end"]
    # Stopped means stopped: a run request now steps nothing.
    worker.request_run(LONG)
    worker.request_step(10)
    worker.request_pause()
    worker.request_params(alpha=0.8)  # commands run in order: its frame shows the worker has read the others
    qtbot.waitUntil(lambda: bool(_frames(worker, frames)) and frames[-1].snapshot.params["alpha"] == 0.8, timeout=HANG)
    assert len(log.chunks) == 6 and worker.state == WorkerState.STOPPED


def test_a_stop_interrupts_the_wait_of_a_teaching_speed(qtbot, worker):
    """At one step per 1000 s the loop waits after each chunk; a stop must end that wait, not outlast it."""
    frames, ended = [], []
    _reset(qtbot, worker, frames, restart="partial+full")
    worker.runEnded.connect(ended.append)
    log = ChunkLog(worker)
    worker.set_max_rate(0.001)
    worker.request_run(LONG)
    qtbot.waitUntil(lambda: len(log.chunks) == 1, timeout=HANG)
    worker.request_stop()  # the worker now waits ~1000 s before its next chunk
    qtbot.waitUntil(lambda: worker.state == WorkerState.STOPPED and len(ended) == 2, timeout=HANG)
    assert [c["n"] for c in log.chunks] == [1] and worker.solver.iteration == 1
    assert ended == ["cancelled", "stopped"]


def test_a_pause_ends_a_run_within_the_chunk_and_run_resumes_it(qtbot, worker):
    frames, ended = [], []
    _reset(qtbot, worker, frames, restart="partial+full")
    worker.runEnded.connect(ended.append)
    log = ChunkLog(worker, {4: worker.request_pause})
    worker.request_run(LONG)
    qtbot.waitUntil(lambda: ended == ["cancelled"] and worker.state == WorkerState.IDLE, timeout=HANG)
    assert len(log.chunks) == 4 and worker.solver.iteration == log.chunks[-1]["end"]
    log.hooks[7] = worker.request_pause  # resume, and pause again during chunk 7
    worker.request_run(LONG)
    qtbot.waitUntil(lambda: ended == ["cancelled", "cancelled"] and worker.state == WorkerState.IDLE, timeout=HANG)
    assert len(log.chunks) == 7
    starts = [c["start"] for c in log.chunks]
    ends = [c["end"] for c in log.chunks]
    assert starts[1:] == ends[:-1], "a resumed run goes on from where the pause left the solver"


def test_parameters_sent_while_running_apply_at_the_next_chunk_boundary(qtbot, worker):
    frames = []
    _reset(qtbot, worker, frames, restart="partial+full")
    log = ChunkLog(worker, {3: lambda: worker.request_params(alpha=0.9, Q=50), 6: worker.request_stop})
    worker.request_run(LONG)
    qtbot.waitUntil(
        lambda: bool(_frames(worker, frames)) and worker.state == WorkerState.STOPPED and frames[-1].done, timeout=HANG
    )
    assert len(log.chunks) == 6
    boundary = log.chunks[2]["end"]  # the iteration between chunk 3 (during which they were sent) and 4
    assert log.chunks[3]["start"] == boundary
    assert [c["params"]["alpha"] for c in log.chunks] == [0.7] * 3 + [0.9] * 3
    assert [c["params"]["Q"] for c in log.chunks] == [100] * 3 + [50] * 3
    # Q is live: every step of chunks 4-6 drew 50 samples, every step before drew 100.
    for c, q in zip(log.chunks, [100] * 3 + [50] * 3):
        assert c["evals_end"] - c["evals_start"] == q * (c["end"] - c["start"])
    changes = [e for e in worker.solver.events if e.kind == "param"]
    assert sorted((e.name, e.old, e.new, e.iteration) for e in changes) == [
        ("Q", 100, 50, boundary),
        ("alpha", 0.7, 0.9, boundary),
    ]
    last = frames[-1].snapshot
    assert last.params["alpha"] == 0.9 and last.params["Q"] == 50
    assert [e for e in last.events if e.kind == "param"] == changes
    for f in frames:  # every frame's parameters agree with the events it carries
        changed = any(e.kind == "param" for e in f.snapshot.events)
        assert f.snapshot.params["alpha"] == (0.9 if changed else 0.7)
        if f.snapshot.iteration != boundary:  # a frame at the boundary itself may come just before or after
            assert changed == (f.snapshot.iteration > boundary)


def test_parameters_sent_while_idle_apply_at_once_and_publish_a_frame(qtbot, worker):
    frames = []
    _reset(qtbot, worker, frames)
    worker.request_step(7)
    qtbot.waitUntil(
        lambda: bool(_frames(worker, frames)) and frames[-1].done and worker.state == WorkerState.IDLE, timeout=HANG
    )
    assert worker.solver.iteration == 7
    worker.request_params(beta=0.5)
    qtbot.waitUntil(lambda: bool(_frames(worker, frames)) and frames[-1].snapshot.params["beta"] == 0.5, timeout=HANG)
    assert frames[-1].snapshot.events[-1] == Event(7, "param", "beta", 0.6, 0.5)
    errors = []
    worker.error.connect(errors.append)
    worker.request_params(alpha=-1)  # refused with a message; nothing changes
    qtbot.waitUntil(lambda: bool(errors), timeout=HANG)
    assert errors == ["alpha must be [0, 1], got -1"]
    assert worker.solver.get_params()["beta"] == 0.5 and worker.solver.get_params()["alpha"] == 0.7


def test_a_change_asked_for_just_after_a_reset_applies_to_the_new_solver(qtbot, worker, monkeypatch):
    """Choosing a solver and at once a live parameter (what the window's form does): the reset, handled
    later in the worker thread, must not drop the change asked for after it (it once did: the lab ran
    the new solver with its defaults while the form showed the change)."""
    frames, errors = [], []
    _reset(qtbot, worker, frames)
    worker.error.connect(errors.append)
    gate = threading.Event()
    real = worker._reset

    def held_reset(*args):  # the worker reaches the reset only after the change below was asked for
        assert gate.wait(60)
        real(*args)

    monkeypatch.setattr(worker, "_reset", held_reset)
    worker.request_reset("acs", {"ants": 10, "q0": 0.9}, library.puzzle("ai_escargot"), 3)
    worker.request_params(ants=1, q0=0.3)
    gate.set()
    qtbot.waitUntil(lambda: bool(_frames(worker, frames)) and frames[-1].snapshot.solver == "acs", timeout=HANG)
    qtbot.waitUntil(lambda: bool(_frames(worker, frames)) and frames[-1].snapshot.params["ants"] == 1, timeout=20_000)
    snap = frames[-1].snapshot
    assert (snap.params["ants"], snap.params["q0"], snap.iteration) == (1, 0.3, 0)
    assert worker.solver.get_params()["ants"] == 1
    assert errors == []


# ----------------------------------------------------------------------------- read-only payloads
def test_every_published_payload_is_read_only(qtbot, worker):
    frames = []
    _reset(qtbot, worker, frames, puzzle="ai_escargot", restart="partial+full", zones="all", Q=40, Q1=8)
    log = ChunkLog(worker, {3: lambda: worker.request_params(alpha=0.8)})
    worker.request_run(loop.MaxIterations(400))  # restarts happen within 400 steps at these settings
    qtbot.waitUntil(
        lambda: bool(_frames(worker, frames)) and frames[-1].done and worker.state != "running", timeout=HANG
    )
    worker.request_step(5)
    qtbot.waitUntil(
        lambda: bool(_frames(worker, frames)) and frames[-1].done and frames[-1].snapshot.iteration == 405, timeout=HANG
    )
    assert len(frames) >= 3 and len(log.chunks) > 3
    assert frames[-1].snapshot.layers["restarts"], "the payloads must include the runs-and-restarts table"
    for i, f in enumerate(frames):
        problems = list(mutable_parts(f, f"frame {i}"))
        assert not problems, problems
        with pytest.raises(TypeError):
            f.snapshot.layers["prob"] = None
        with pytest.raises(ValueError):
            f.snapshot.grid[0] = 9
        with pytest.raises(ValueError):
            f.snapshot.trace["cost"][:] = 0
