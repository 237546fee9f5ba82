"""ACS's iteration phase by phase: start, place (repeated: one ant's one placement), global update.

One iteration of :func:`sudoku_lab._kernels.acs.run` cut into steps, calling the kernel's own jitted
building blocks (``start_ants``, ``walk`` stopping after one placement, ``finish``) in the kernel's
order, so the phase steps of an iteration leave exactly the state ``step(1)`` leaves, draw for draw.
"place" is declared ``repeats=True``: it runs once per placement (the ants take turns, as in the
kernel) and names the phase after it, itself while some ant has an open cell left, else "global
update". While an iteration is stepped so, the solver's ``grid`` is the board of the ant that placed
last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels import acs_layout as L, lazy
from ..model.geometry import SYMBOLS, cell_name
from .declare import Phase

K = lazy("sudoku_lab._kernels.acs")

if TYPE_CHECKING:
    from .acs import Acs

__all__ = ["PHASES", "run_phase"]

PHASES = (
    Phase("start", "every ant takes a copy of the puzzle after constraint propagation and a random start cell"),
    Phase(
        "place",
        "one ant at its next open cell: pick a digit (greedy with probability q0, else roulette on the "
        "pheromone), local update, fix it and propagate singles and hidden singles",
        repeats=True,
    ),
    Phase(
        "global update",
        "the iteration's best ant against the best-so-far, deposit on the best-so-far's digits, best-value evaporation",
    ),
)

_START, _PLACE, _UPDATE = range(3)
_KINDS = {L.LOG_SINGLE: "single", L.LOG_HIDDEN: "hidden single"}
#: Most propagated cells a caption names one by one.
_NAMED = 8


def run_phase(s: Acs, index: int, ctx: dict) -> tuple:
    """Phase ``index`` of ``s``'s current iteration: ``(caption, changed, ended, next_index)``.

    ``ctx`` is the iteration's context (:meth:`~sudoku_lab.solvers.base.KernelSolver._run_phase`):
    ``ip``, ``fp`` and ``trace`` from the base; "start" adds ``A`` (ants), ``step`` and ``a`` (where
    the walks resume) and ``ant`` (the ant that placed last, -1 before the first placement).
    """
    if index == _START:
        return _start(s, ctx)
    if index == _PLACE:
        return _place(s, ctx)
    return _update(s, ctx)


def _tau0(s: Acs, ctx: dict) -> float:
    t = float(ctx["fp"][K.P_TAU0])
    return t if t > 0.0 else 1.0 / s.base.shape[0]


def _start(s: Acs, ctx: dict) -> tuple:
    rng = s.rng
    assert rng is not None  # phases run after reset()
    A = int(ctx["ip"][K.P_ANTS])
    K.start_ants(s.cand, s.start, s.base, A, rng)
    ctx.update(A=A, step=0, a=0, ant=-1)
    N = s.pher.shape[1]
    starts = ", ".join(cell_name(int(c), N) for c in s.start[: min(A, 5)]) + (", ..." if A > 5 else "")
    open_cells = int(K.count_empty(s.base))
    more = bool(K.any_open(s.cand, A))
    caption = (
        f"{A} ant{'s' if A != 1 else ''} start from the puzzle after propagation ({open_cells} open cells), at {starts}"
    )
    return caption, {}, False, _PLACE if more else _UPDATE


def _place(s: Acs, ctx: dict) -> tuple:
    rng = s.rng
    assert rng is not None
    fp = ctx["fp"]
    A = int(ctx["A"])
    C, N = s.pher.shape
    row_before = s.cand[:A].copy()
    step, a, cell, d, greedy, nlog, before = K.walk(
        s.pher,
        s.cand,
        s.start,
        A,
        int(ctx["step"]),
        int(ctx["a"]),
        float(fp[K.P_Q0]),
        float(fp[K.P_XI]),
        _tau0(s, ctx),
        rng,
        s.tables,
        True,
    )
    ant = int(a) - 1
    ctx.update(step=int(step), a=int(a), ant=ant)
    board = s.cand[ant]
    logc = s.tables.logc[: int(nlog)].copy()
    logk = s.tables.logk[: int(nlog)].copy()
    changed_cells = np.zeros(C, dtype=bool)
    changed_cells[int(cell)] = True
    changed_cells[logc] = True
    sample = np.zeros(C, dtype=np.int8)
    K.as_grid(board, sample)
    allowed = row_before[ant, int(cell)]
    total = sum(s.pher[int(cell), e] for e in range(N) if (allowed >> e) & 1) - s.pher[int(cell), int(d)] + before
    share = before / total if total > 0 else 0.0
    fixed = [(int(c), int(k)) for c, k in zip(logc, logk) if k != K.LOG_FAILED and board[c] != 0]
    failed_now = [int(c) for c, k in zip(logc, logk) if k == K.LOG_FAILED]
    words = [f"{cell_name(c, N)}={SYMBOLS[_digit(board[c]) - 1]} ({_KINDS[k]})" for c, k in fixed[:_NAMED]]
    if len(fixed) > _NAMED:
        words.append(f"and {len(fixed) - _NAMED} more")
    prop = f"propagation then fixed {len(fixed)} cell{'s' if len(fixed) != 1 else ''}" + (
        ": " + ", ".join(words) if words else ""
    )
    if failed_now:
        prop += "; failed " + ", ".join(cell_name(c, N) for c in failed_now[:_NAMED])
    failed_total = int(np.count_nonzero(board == 0))
    caption = (
        f"ant {ant + 1} of {A} put {SYMBOLS[int(d)]} at {cell_name(int(cell), N)} (pheromone {before:.3g}, "
        f"{100 * share:.0f}% of the cell's, {'greedy' if greedy else 'roulette'} pick); {prop}; "
        f"{failed_total} cell{'s' if failed_total != 1 else ''} failed so far"
    )
    rows = np.zeros(C, dtype=bool)
    rows[int(cell)] = True
    more = bool(K.any_open(s.cand, A))
    return caption, {"cells": changed_cells, "rows": rows, "sample": sample}, False, _PLACE if more else _UPDATE


def _digit(m) -> int:
    m = int(m)
    return m.bit_length() if m and not m & (m - 1) else 0


def _update(s: Acs, ctx: dict) -> tuple:
    ip, fp = ctx["ip"], ctx["fp"]
    A = int(ctx["A"])
    C = s.pher.shape[0]
    before_grid = s._grid.copy()
    best_before = float(s.fstate[K.F_BEST_PHER])
    ctx["ant"] = -1
    code = K.finish(s.arrays(), A, float(fp[K.P_RHO]), float(fp[K.P_EVAP]), int(ip[K.P_BUDGET]), ctx["trace"])
    best_a = int(s.counters[K.C_ITER_BEST])
    f = int(s.counters[K.C_ITER_COST])
    new = bool(s.counters[K.C_NEW_BEST])
    if f == 0:
        caption = f"ant {best_a + 1} filled every cell: solved"
    else:
        dep = C / f
        who = f"ant {best_a + 1} with {f} failed cells (deposit {dep:.4g} " + (
            f"> {best_before:.4g}: the new best-so-far)" if new else f"<= {best_before:.4g}: the best-so-far stays)"
        )
        n_dep = int(np.count_nonzero(s._grid))
        caption = (
            f"best ant: {who}; deposit {float(s.fstate[K.F_DEPOSIT]):.4g} on the best-so-far's {n_dep} digits "
            f"with rho {float(fp[K.P_RHO]):g}; BVE leaves {float(s.fstate[K.F_BEST_PHER]):.4g}"
        )
    changed = {
        "cells": s._grid != before_grid,
        "selected": np.array([best_a], dtype=np.int64),
        "costs": np.array([f], dtype=np.int64),
    }
    if f > 0:
        changed["rows"] = s._grid != 0
    s._close_iteration(code)
    return caption, changed, True
