"""Hill climbing's move phase by phase: evaluate swaps, take the best, plateau check.

One move of :func:`sudoku_lab._kernels.hill_climb.run` (Jones, Roach and Perkins 4.3-4.5) cut into
its three phases, calling the kernel's own jitted building blocks (``best_swap``, ``apply_swap``,
``push_sideways``, ``queue_pop``, ``set_state``, ``start_run``) in the kernel's order and updating
the counters, the trace row and the event log as it does, so three phase steps leave exactly the
state ``step(1)`` leaves, draw for draw (see :mod:`._reseda_phases` for why the building blocks are
called rather than re-written). A move that solves the puzzle ends at "take the best", as ``run``
stops there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import lazy
from ..model.geometry import cell_name
from .declare import Phase

K = lazy("sudoku_lab._kernels.hill_climb")

if TYPE_CHECKING:
    from .hill_climb import HillClimb

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase("evaluate swaps", "score every swap of two free cells of one box by its change of f = w1 f1 + w2 f2"),
    Phase("take the best", "apply the best swap if it strictly improves f; otherwise the state is stuck"),
    Phase(
        "plateau check",
        "a stuck state counts towards a plateau: its equal-score successors are queued and the search continues "
        "from the best queued state, or, after `plateau` stuck states at one score (or with none queued), "
        "restarts from a new initial state",
    ),
)

_EVALUATE, _TAKE, _PLATEAU = range(3)


def run_phase(s: HillClimb, index: int, ctx: dict) -> tuple[str, dict, bool]:
    """Phase ``index`` of ``s``'s current move: ``(caption, changed, ended)``.

    ``ctx`` is the move's context (:meth:`~sudoku_lab.solvers.base.KernelSolver._run_phase`):
    ``ip`` and ``fp`` as :func:`~sudoku_lab._kernels.hill_climb.run` takes them, ``trace`` the
    move's trace row; "evaluate swaps" adds the best swap (``a``, ``b``, ``delta``, ``df1``,
    ``df2``), "take the best" whether it was taken (``ascent``) and started a new best score
    (``new_best``).
    """
    if index == _EVALUATE:
        return _evaluate(s, ctx)
    if index == _TAKE:
        return _take(s, ctx)
    return _plateau(s, ctx)


def _f(s: HillClimb, fp: np.ndarray) -> float:
    c = s.counters
    return float(fp[K.P_W1] * c[K.C_F1] + fp[K.P_W2] * c[K.C_F2])


def _evaluate(s: HillClimb, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp = ctx["ip"], ctx["fp"]
    counters, rng = s.counters, s.rng
    assert rng is not None  # phases run after reset()
    random_ties = bool(ip[K.P_RANDOM_TIES] != 0)
    a, b, delta, df1, df2, evaluated = K.best_swap(
        s.grid, s.box_free, s.box_nfree, s.row_cnt, s.col_cnt, s.GR, s.GC, fp[K.P_W1], fp[K.P_W2], random_ties, rng
    )
    counters[K.C_ITERATION] += 1
    counters[K.C_EVALUATIONS] += evaluated
    ctx.update(a=int(a), b=int(b), delta=float(delta), df1=int(df1), df2=int(df2))
    boxes = int(np.count_nonzero(s.box_nfree >= 2))
    if a < 0:
        return "no box has two free cells: no swap to evaluate", {}, False
    N = s.row_cnt.shape[0]
    ties = ", ties broken at random" if random_ties else ""
    caption = (
        f"evaluated {int(evaluated)} swap{'s' if evaluated > 1 else ''} in {boxes} box{'es' if boxes > 1 else ''}: "
        f"best gain {float(delta):g} "
        f"({cell_name(a, N)} <-> {cell_name(b, N)}{ties})"
    )
    return caption, {}, False


def _take(s: HillClimb, ctx: dict) -> tuple[str, dict, bool]:
    fp, row = ctx["fp"], ctx["trace"]
    counters = s.counters
    a, b, delta = ctx["a"], ctx["b"], ctx["delta"]
    w1, w2 = fp[K.P_W1], fp[K.P_W2]
    N = s.row_cnt.shape[0]
    ascent = a >= 0 and delta > 0.0
    new_best = False
    if not ascent:
        ctx.update(ascent=False, new_best=False)
        best = "no swap to take" if a < 0 else f"no swap improves f (the best gain is {delta:g})"
        return f"{best}: the state is stuck at f = {_f(s, fp):g}", {}, False
    K.apply_swap(s.grid, a, b, s.row_cnt, s.col_cnt)
    counters[K.C_F1] += ctx["df1"]
    counters[K.C_F2] += ctx["df2"]
    cost = 2 * N * N - counters[K.C_F1]
    counters[K.C_COST] = cost
    if cost < counters[K.C_RUN_BEST]:
        counters[K.C_RUN_BEST] = cost
    if cost < counters[K.C_BEST_COST]:
        counters[K.C_BEST_COST] = cost
        s.best_grid[:] = s.grid
    counters[K.C_SWAP_A] = a
    counters[K.C_SWAP_B] = b
    if w1 * counters[K.C_F1] + w2 * counters[K.C_F2] > w1 * counters[K.C_STUCK_F1] + w2 * counters[K.C_STUCK_F2]:
        counters[K.C_STUCK_F1] = counters[K.C_F1]  # a new best score of the run: the plateau count restarts
        counters[K.C_STUCK_F2] = counters[K.C_F2]
        counters[K.C_STUCK_COUNT] = 0
        new_best = True
    ctx.update(ascent=True, new_best=new_best)
    cells = np.zeros(s.grid.shape[0], dtype=np.bool_)
    cells[[a, b]] = True
    caption = (
        f"took the best swap {cell_name(a, N)} <-> {cell_name(b, N)}: f rises by {delta:g} to {_f(s, fp):g} "
        f"(f1 {ctx['df1']:+d}, clashes with givens {ctx['df2']:+d}); cost {int(cost)}"
    )
    if cost == 0:  # run stops here: the trace row, then SOLVED
        _trace_row(s, row, w1, w2)
        s._close_iteration(K.SOLVED)
        return caption + ", the puzzle is solved", {"cells": cells}, True
    return caption, {"cells": cells}, False


def _plateau(s: HillClimb, ctx: dict) -> tuple[str, dict, bool]:
    ip, fp, row = ctx["ip"], ctx["fp"], ctx["trace"]
    counters = s.counters
    w1, w2 = fp[K.P_W1], fp[K.P_W2]
    plateau = int(ip[K.P_PLATEAU])
    events = None
    changed: dict = {}
    if ctx["ascent"]:
        stuck = int(counters[K.C_STUCK_COUNT])
        if ctx["new_best"]:
            caption = f"no plateau: a new best score of the run, the plateau count restarts (0 of {plateau})"
        else:
            caption = (
                f"no plateau: an ascent, not above the run's best score ({stuck} of {plateau} stuck states since it)"
            )
    else:
        N = s.row_cnt.shape[0]
        before = s.grid.copy()
        f1, f2 = int(counters[K.C_F1]), int(counters[K.C_F2])
        init = (int(counters[K.C_INIT_F1]), int(counters[K.C_INIT_F2]))  # the ending run's, for its record
        counters[K.C_STUCK_COUNT] += 1
        stuck = int(counters[K.C_STUCK_COUNT])
        jumped = False
        reason = K.WHY_PLATEAU
        queued = 0
        if stuck < plateau:
            seq = int(counters[K.C_QSEQ])
            if ctx["a"] >= 0:
                K.push_sideways(
                    s.grid,
                    s.box_free,
                    s.box_nfree,
                    s.row_cnt,
                    s.col_cnt,
                    s.GR,
                    s.GC,
                    w1,
                    w2,
                    f1,
                    f2,
                    s.q_grid,
                    s.q_f1,
                    s.q_f2,
                    s.q_seq,
                    counters,
                )
            queued = int(counters[K.C_QSEQ]) - seq
            jumped = bool(K.queue_pop(s.q_grid, s.q_f1, s.q_f2, s.q_seq, counters, s.grid, w1, w2))
            reason = K.WHY_EMPTY
        events = np.zeros((1, K.EVENT_WIDTH), dtype=np.int64)
        ev = events[0]
        ev[K.E_ITERATION] = counters[K.C_ITERATION]
        ev[K.E_RUN_JUMPS] = counters[K.C_RUN_JUMPS] + (1 if jumped else 0)
        ev[K.E_RUN_BEST] = counters[K.C_RUN_BEST]
        if jumped:
            counters[K.C_RUN_JUMPS] += 1
            counters[K.C_JUMPS] += 1
            counters[K.C_SWAP_A] = -1
            counters[K.C_SWAP_B] = -1
            K.set_state(s.grid, s.base, s.row_cnt, s.col_cnt, s.GR, s.GC, s.best_grid, counters)
            ev[K.E_KIND] = K.EV_JUMP
            ev[K.E_REASON] = 0
        else:
            counters[K.C_RUN] += 1
            K.start_run(s.arrays(), ip, np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64), s.rng)
            ev[K.E_KIND] = K.EV_RESTART
            ev[K.E_REASON] = reason
        ev[K.E_QUEUE] = counters[K.C_QLEN]
        ev[K.E_INIT_F1] = counters[K.C_INIT_F1]
        ev[K.E_INIT_F2] = counters[K.C_INIT_F2]
        s._init = init  # what HillClimb._run keeps for _on_events: the ending run's initial f1 and f2
        at = f"{stuck} of {plateau} stuck states since the run's best score"
        lined = f"{queued} equal-score successor{'s' if queued != 1 else ''} queued"
        now = f"f = {_f(s, fp):g}, cost {int(counters[K.C_COST])}"
        if jumped:
            caption = (
                f"stuck ({at}): {lined}; a plateau escape to the best queued state ({now}; "
                f"{int(counters[K.C_QLEN])} left in the queue)"
            )
        elif reason == K.WHY_PLATEAU:
            caption = f"plateau ({at}): queue cleared, a random restart: run {int(counters[K.C_RUN]) + 1} ({now})"
        else:
            caption = (
                f"stuck ({at}): {lined}, the queue is empty: a random restart: run {int(counters[K.C_RUN]) + 1} ({now})"
            )
        changed = {"cells": s.grid != before}
    _trace_row(s, row, w1, w2)
    code = K.RUNNING
    budget = int(ip[K.P_BUDGET])
    if counters[K.C_COST] == 0:
        code = K.SOLVED
        caption += "; the puzzle is solved"
    elif budget > 0 and counters[K.C_ITERATION] >= budget:
        code = K.BUDGET
        caption += f"; the budget of {budget} moves is spent"
    s._close_iteration(code, events)
    return caption, changed, True


def _trace_row(s: HillClimb, row: np.ndarray, w1: float, w2: float) -> None:
    """The move's trace row, as ``run`` writes it."""
    c = s.counters
    row[0] = c[K.C_ITERATION]
    row[1] = c[K.C_COST]
    row[2] = c[K.C_BEST_COST]
    row[4] = c[K.C_F1]
    row[5] = c[K.C_F2]
    row[3] = w1 * c[K.C_F1] + w2 * c[K.C_F2]
    row[6] = c[K.C_QLEN]
