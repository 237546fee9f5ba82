"""ACS: the ant colony system with constraint propagation of Lloyd and Amos.

A pheromone matrix ``tau[cell, digit]``. Each iteration every ant starts from
the puzzle after constraint propagation, at a random cell, and visits the cells
in order (wrapping); the ants take turns, one visit each. At an open cell an ant
picks a digit by the ACS pseudo-random proportional rule (with probability q0
the candidate with the most pheromone, else a roulette over the candidates'
pheromone), applies the local update ``tau <- (1 - xi) tau + xi tau0``, fixes
the cell and propagates (naked and hidden singles); a cell left with no
candidate is a failed cell, left empty. The iteration's best ant (fewest failed
cells f) becomes the best-so-far when its deposit C / f exceeds the best-so-far's,
which is deposited on the best-so-far's digits (``tau <- (1 - rho) tau + rho D``)
and then evaporates by (1 - evap): best-value evaporation (BVE).

``cost`` is the number of empty cells of ``grid``, the best-so-far's board (0 =
solved). Every choice is in docs/algorithms.md, "Ant colony system".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import checked
from .._kernels import acs_layout as L, lazy
from ..errors import StateError
from ..model.geometry import cell_name, symbol
from ._acs_phases import PHASES, run_phase
from .base import KernelSolver, Param, Snapshot, Status, frozen_copy, register
from .declare import Axis, Column, Layer, Objective
from .keyframes import Counters, Field

K = lazy("sudoku_lab._kernels.acs")

__all__ = ["Acs", "normalised_pheromone"]

#: The arrays of a run (defined in its kernel's layout module; the kernels take them as one argument).
AcsState = L.AcsState


def _fixed(boards: np.ndarray) -> np.ndarray:
    """Where a candidate mask (int64) holds exactly one digit: bool, same shape."""
    return (boards != 0) & ((boards & (boards - 1)) == 0)


def _digits(boards: np.ndarray) -> np.ndarray:
    """The digit of every fixed cell of ``boards`` (int64 masks, any shape), 0 elsewhere: int64."""
    out = np.zeros(boards.shape, dtype=np.int64)
    one = _fixed(boards)
    out[one] = np.log2(boards[one].astype(np.float64)).astype(np.int64) + 1  # exact below 2**53
    return out


def _require_boards(boards: np.ndarray, base: np.ndarray, units: np.ndarray, path: str, one: bool = False) -> None:
    """StateError unless every row of ``boards`` (k, C) is a board as a walk from ``base`` ends it.

    Every cell fixed (one candidate) or failed (none), no candidate outside ``base`` (a walk only removes
    candidates), the cells ``base`` fixes kept, and no digit twice in a row, column or box (every fixed
    digit was propagated to its peers). ``one``: ``boards`` holds one row, ``path`` names it.
    """
    bad = (~_fixed(boards) & (boards != 0)) | ((boards & ~base) != 0) | (_fixed(base) & (boards != base))
    if bad.any():
        a, c = (int(i) for i in np.argwhere(bad)[0])
        where = f"{path}[{c}]" if one else f"{path}[{a}, {c}]"
        raise StateError(
            f"{where} is {int(boards[a, c])}, not a cell an ant leaves (one of the candidates {int(base[c])} "
            "of the puzzle after propagation, or none)"
        )
    d = np.sort(_digits(boards)[:, units], axis=2)
    twice = (d[:, :, 1:] == d[:, :, :-1]) & (d[:, :, 1:] > 0)
    if twice.any():
        a, u, j = (int(i) for i in np.argwhere(twice)[0])
        kind, k = divmod(u, units.shape[1])
        raise StateError(
            f"{path if one else f'{path}[{a}]'}: {('row', 'column', 'box')[kind]} {k + 1} holds "
            f"{symbol(int(d[a, u, j + 1]))} twice"
        )


@checked
def normalised_pheromone(pher: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The pheromone as ``p[cell, digit]``: each cell's row divided by its sum over the cell's candidates.

    Parameters
    ----------
    pher : ndarray of float64, shape (C, N)
    base : ndarray of int64, shape (C,)
        Candidate masks of the puzzle after propagation: digits outside a cell's mask get 0; a cell
        with no candidate gets 0 everywhere, one with a single candidate 1 on it.

    Returns
    -------
    ndarray of float64, shape (C, N), rows summing to 1 (0 for a cell with no candidate)
    """
    C, N = pher.shape
    allowed = ((base[:, None] >> np.arange(N)[None, :]) & 1).astype(bool)
    w = np.where(allowed, pher, 0.0)
    s = w.sum(axis=1, keepdims=True)
    return np.divide(w, s, out=np.zeros_like(w), where=s > 0)


@checked
@register
class Acs(KernelSolver):
    name = "acs"
    title = "ACS (ant colony system)"
    cites = "lloyd2019"
    order = 60
    description = (
        "Ant colony system with constraint propagation: ants fill the grid cell by cell from a pheromone "
        "matrix, propagating singles and hidden singles after each pick and leaving cells with no candidate "
        "empty; the best-so-far ant deposits, and best-value evaporation keeps the search moving."
    )
    iteration_name = "iteration"
    phases = PHASES
    examples = (
        ({"ants": 1, "q0": 0.3}, "ai_escargot"),
        ({"ants": 2, "q0": 0.5, "rho": 0.5, "evap": 0.05, "xi": 0.3, "tau0": 0.05}, "goldennugget"),
        # A 16x16 with several solutions: a budget short enough that it ends unsolved (the kit compares a
        # solved grid with the exact solver's one solution).
        ({"ants": 1, "q0": 0.0, "iterations": 12}, "lewis_16x16_35_01"),
    )
    example_budget = 20_000
    objective = Objective(cost="empty cells of the best-so-far ant's board (cells it failed to fill)")
    axes = (Axis("cost", "empty cells", "left"), Axis("deposit", "best-so-far deposit C / f", "right"))
    columns = (
        Column("cost", "empty cells of the best-so-far board", color="#0072B2"),
        Column("iteration_cost", "failed cells of the iteration's best ant", color="#56B4E9", style="dotted"),
        Column("mean_cost", "mean failed cells over the ants", color="#CC79A7", style="dashed", shown=False),
        Column("best_cost", "fewest empty cells since reset", color="#E69F00", style="steps"),
        Column("deposit", "best-so-far deposit after BVE", axis="deposit", color="#009E73"),
    )
    layers = (
        Layer(
            "prob",
            "the pheromone normalised per cell over its candidates (for display; the ants use tau itself)",
            "float64",
            ("C", "N"),
            role="probability",
        ),
        Layer("pheromone", "tau[cell, digit], the pheromone itself", "float64", ("C", "N")),
        Layer("failed", "ants of the latest iteration that left each cell empty", "int64", ("C",), role="ant_failures"),
        Layer("ant_failed", "cells each ant of the latest iteration left empty", "bool", ("*", "C")),
        Layer("ant_costs", "failed cells of each ant of the latest iteration", "float64", ("*",), role="population"),
        Layer("empty", "cells the best-so-far ant left empty", "bool", ("C",), role="cells"),
        Layer("propagated", "cells constraint propagation fixes before any ant moves", "bool", ("C",)),
        Layer("best_ant", "the latest iteration's best ant (0-based), -1 before the first", "int"),
        Layer("deposit", "the best-so-far's deposit D = C / f, after BVE", "float"),
    )

    params = (
        Param("ants", "int", 10, "Ants per iteration.", low=1, high=10_000, paper="Lloyd & Amos (nAnts)"),
        Param(
            "q0",
            "float",
            0.9,
            "Greediness: probability that an ant takes the candidate with the most pheromone "
            "(else a roulette over the candidates' pheromone).",
            low=0.0,
            high=1.0,
            paper="Lloyd & Amos (q0)",
            step=0.05,
        ),
        Param(
            "rho",
            "float",
            0.9,
            "Global pheromone update rate: tau <- (1 - rho) tau + rho D on the best-so-far's digits.",
            low=0.0,
            high=1.0,
            paper="Lloyd & Amos (rho)",
            step=0.05,
        ),
        Param(
            "evap",
            "float",
            0.005,
            "Best-value evaporation (BVE): the best-so-far's deposit D <- (1 - evap) D after each iteration.",
            low=0.0,
            high=1.0,
            paper="Lloyd & Amos (BVE, evap)",
            step=0.001,
        ),
        Param(
            "tau0",
            "float",
            0.0,
            "Initial pheromone and the local update's target; 0 means 1 / cells (their default). "
            "A change applies to the local update; the matrix starts from it at reset.",
            low=0.0,
            high=1000.0,
            paper="Lloyd & Amos (1/c)",
            step=0.001,
        ),
        Param(
            "xi",
            "float",
            0.1,
            "Local pheromone update rate: tau <- (1 - xi) tau + xi tau0 on each pick (their code's 0.1).",
            low=0.0,
            high=1.0,
            paper="Lloyd & Amos (local update)",
            step=0.05,
        ),
        Param(
            "iterations",
            "int",
            1_000_000,
            "Iteration budget: the run fails after this many (0 = no limit; their code stops on a timeout).",
            low=0,
            high=10**9,
            when="next iteration",
        ),
    )

    @classmethod
    def warm_up(cls) -> None:
        """Compile the kernels: the generic warm-up's puzzles are solved at reset, so step a hard one too.

        The propagation at reset solves the generic warm-up's 4 x 4 and 9 x 9 puzzles, so the ants'
        kernels would compile only in the first real run; AI Escargot is stepped by whole iterations
        and by one iteration's phases.
        """
        from ..model import library
        from .warm import generic_warm_up

        generic_warm_up(cls)
        s = cls()
        s.reset(library.puzzle("aiescargot"), seed=0)
        s.step(2)
        for _ in range(10_000):  # one iteration phase by phase: start, every placement, global update
            st = s.step_phase()
            if st is None or st.ended:
                break
        s.snapshot()

    kernel = K
    layout = L
    State = AcsState
    int_slots = ("ants", "iterations")
    float_slots = ("q0", "rho", "evap", "tau0", "xi")
    budget_param = "iterations"
    #: The keyframe (:mod:`.keyframes`). The pheromone, the ants' boards and start cells, the best-so-far's
    #: board, the best grid and the deposits are read and checked (boards as a walk leaves them, from the
    #: puzzle after propagation); that propagation, the best-so-far's grid and the costs, the iteration's best
    #: ant and its failed cells are rebuilt. The ants' tables keep their rows after a live change of ``ants``
    #: until the next step resizes them, so they hold 1 to 10 000 rows (the parameter's range). The pheromone
    #: stays within (0, max(1000, C)]: the initial and local update's tau0 is at most 1000, a deposit C / f at
    #: most C, and every update a mean of the two.
    keyframe = {
        "pher": Field("float64", ("C", "N"), 0.0, "max(1000.0, C)"),
        "base": Field("int64", ("C",), derived=True),
        "cand": Field("int64", ((1, 10_000), "C"), 0, "(1 << N) - 1"),
        "start": Field("int64", ((1, 10_000),), 0, "C - 1"),
        "best_cand": Field("int64", ("C",), 0, "(1 << N) - 1"),
        "grid": Field("int8", ("C",), derived=True),
        "best_grid": Field("int8", ("C",), 0, "N"),
        "counters": Counters(
            ranges={"C_NEW_BEST": (0, 1)},
            derived=("C_COST", "C_BEST_COST", "C_ITER_COST", "C_ITER_BEST", "C_ANTS"),
        ),
        "fstate": Field("float64", ("N_FSTATE",), 0.0, "C"),
    }

    pher: np.ndarray
    base: np.ndarray
    cand: np.ndarray
    start: np.ndarray
    best_cand: np.ndarray
    best_grid: np.ndarray
    fstate: np.ndarray

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self._pz
        C, N = pz.C, pz.N
        self.tables = K.tables(self.geo)
        self.base = K.propagate_givens(pz.grid.astype(np.int64), N, self.tables)
        tau0 = self._params["tau0"] or 1.0 / C
        self.pher = np.full((C, N), float(tau0))
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.fstate = np.zeros(K.N_FSTATE)
        A = self._params["ants"]
        self.cand = np.zeros((A, C), dtype=np.int64)
        self.start = np.zeros(A, dtype=np.int64)
        self.best_cand = self.base.copy()
        self._grid = np.zeros(C, dtype=np.int8)
        K.as_grid(self.base, self._grid)
        self.best_grid = self._grid.copy()
        empty = int(K.count_empty(self.base))
        self.counters[K.C_COST] = self.counters[K.C_BEST_COST] = empty
        self.counters[K.C_ITER_BEST] = -1
        if empty == 0:
            self.status = Status.SOLVED  # propagation alone solved it (reset() checked the givens)

    def _before_step(self):
        A = self._params["ants"]
        if self.cand.shape[0] != A:  # a live change of ants: keep the latest iteration's boards readable
            C = self.cand.shape[1]
            cand = np.zeros((A, C), dtype=np.int64)
            start = np.zeros(A, dtype=np.int64)
            k = min(A, self.cand.shape[0])
            cand[:k] = self.cand[:k]
            start[:k] = self.start[:k]
            self.cand, self.start = cand, start
            self.counters[K.C_ANTS] = min(int(self.counters[K.C_ANTS]), A)

    def _loaded(self, state):
        self.tables = K.tables(self.geo)

    def _derive(self):
        pz, c = self._pz, self.counters
        self.tables = K.tables(self.geo)
        self.base = K.propagate_givens(pz.grid.astype(np.int64), pz.N, self.tables)
        grid = np.zeros(pz.C, dtype=np.int8)
        K.as_grid(self.best_cand, grid)
        self._grid = grid
        c[K.C_COST] = K.count_empty(self.best_cand)
        c[K.C_BEST_COST] = int(np.count_nonzero(self.best_grid == 0))
        if self.iteration == 0:  # as the reset leaves them
            c[K.C_ANTS], c[K.C_ITER_COST], c[K.C_ITER_BEST] = 0, 0, -1
        else:
            # every step first sizes the ants' tables to the parameter (_before_step), then finishes an
            # iteration with that many ants: the first with the fewest failed cells is the iteration's best
            failed = np.count_nonzero(~_fixed(self.cand), axis=1)
            c[K.C_ANTS] = self.cand.shape[0]
            c[K.C_ITER_BEST] = int(np.argmin(failed))
            c[K.C_ITER_COST] = int(failed.min())

    def _check_loaded(self):
        pz, c, it = self._pz, self.counters, self.iteration
        units = self.geo.units
        path = "state.algorithm"
        bad = np.argwhere(self.pher <= 0)
        if bad.size:
            r, d = (int(i) for i in bad[0])
            raise StateError(f"{path}.pher[{r}, {d}] is {float(self.pher[r, d]):g}, not a positive pheromone")
        if self.start.shape[0] != self.cand.shape[0]:
            raise StateError(f"{path}.start has {self.start.shape[0]} cells, not one per board of cand")
        fs, cost, new = self.fstate, int(c[K.C_COST]), bool(c[K.C_NEW_BEST])
        if it == 0:  # as the reset leaves it
            for name in ("cand", "start"):
                if getattr(self, name).any():
                    raise StateError(f"{path}.{name} is not all 0 before the first iteration")
            if new:
                raise StateError(f"{path}.counters[C_NEW_BEST] is 1 before the first iteration")
            if not np.array_equal(self.best_cand, self.base):
                cell = int(np.flatnonzero(self.best_cand != self.base)[0])
                raise StateError(
                    f"{path}.best_cand[{cell}] is {int(self.best_cand[cell])}, not {int(self.base[cell])}: "
                    "the puzzle's candidates after propagation before the first iteration"
                )
            if fs.any():
                raise StateError(f"{path}.fstate is {fs.tolist()}, not 0 before the first deposit")
            if (self.pher != self.pher.flat[0]).any():
                raise StateError(f"{path}.pher is not one value (tau0) everywhere before the first iteration")
            want = self._grid
        else:
            _require_boards(self.cand, self.base, units, f"{path}.cand")
            _require_boards(self.best_cand[None, :], self.base, units, f"{path}.best_cand", one=True)
            f, best_a = int(c[K.C_ITER_COST]), int(c[K.C_ITER_BEST])
            if new and not np.array_equal(self.best_cand, self.cand[best_a]):
                raise StateError(
                    f"{path}.best_cand is not the board of ant {best_a}, the iteration's best that "
                    "counters[C_NEW_BEST] says it became"
                )
            # the best-so-far's deposit: C / its failed cells when it became the best-so-far, evaporated since;
            # an iteration's best ant that did not become it deposited no more than that
            D, evaporated = float(fs[K.F_DEPOSIT]), float(fs[K.F_BEST_PHER])
            if cost > 0 and (
                evaporated > D
                or D > pz.C / cost
                or (new and D != pz.C / cost)
                or (not new and (f == 0 or pz.C / f > D))
            ):
                raise StateError(
                    f"{path}.fstate is {fs.tolist()}, not the deposit C / {cost} of the best-so-far as "
                    f"evaporated since (counters[C_NEW_BEST] {int(new)}, the iteration's best ant failed {f} cells)"
                )
            if cost == 0 and not new:
                raise StateError(f"{path}.counters[C_NEW_BEST] is 0, but the best-so-far solves the puzzle")
            want = None
        # the best grid: the fewest failed cells since the reset, as an ant left it
        bg = self.best_grid.astype(np.int64)
        if want is not None and not np.array_equal(bg, want):
            cell = int(np.flatnonzero(bg != want)[0])
            raise StateError(f"{path}.best_grid[{cell}] is {int(bg[cell])}, not {int(want[cell])} (no iteration yet)")
        masks = np.where(bg > 0, np.int64(1) << np.maximum(bg - 1, 0), 0)
        _require_boards(masks[None, :], self.base, units, f"{path}.best_grid", one=True)
        if c[K.C_BEST_COST] > cost:
            raise StateError(
                f"{path}.best_grid leaves {int(c[K.C_BEST_COST])} cells empty, more than the best-so-far's "
                f"{cost}: it is not the best board since the reset"
            )
        if (self.status == Status.SOLVED) != (cost == 0):
            raise StateError(f"{path}.best_cand leaves {cost} cells empty, but the run is {self.status}")

    # --------------------------------------------------------- the state
    # ``grid`` is the State's int8 array; the base class declares a read-only property of that name.
    def _get_grid(self) -> np.ndarray:
        ant = self._current_ant()
        if ant >= 0:
            out = np.zeros(self.cand.shape[1], dtype=np.int8)
            K.as_grid(self.cand[ant], out)
            return out
        return self._grid

    def _set_grid(self, value: np.ndarray) -> None:
        self._grid = value

    grid = property(_get_grid, _set_grid)

    def _current_ant(self) -> int:
        """The ant whose board a phase step is showing (-1 at an iteration boundary or before a placement)."""
        if self.phase and getattr(self, "_phase_ctx", None):
            return int(self._phase_ctx.get("ant", -1))
        return -1

    @property
    def cost(self) -> int:
        ant = self._current_ant()
        if ant >= 0:
            return int(K.count_empty(self.cand[ant]))
        return int(self.counters[K.C_COST])

    def arrays(self):
        return K.AcsState(
            self.pher,
            self.base,
            self.cand,
            self.start,
            self.best_cand,
            self._grid,
            self.best_grid,
            self.counters,
            self.fstate,
        )

    def _state(self) -> dict:
        st = {name: getattr(self, "_grid" if name == "grid" else name).copy() for name in K.AcsState._fields}
        return st

    # ---------------------------------------------------------------- step
    def _run(self, k, trace, events, ip, fp):
        return K.run(self.arrays(), self.tables, ip, fp, self.rng, k, trace)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    # ------------------------------------------------------------ snapshot
    def _layers(self):
        A = int(self.counters[K.C_ANTS])
        ant = self._current_ant()
        rows = self.cand[: max(A, ant + 1)] if ant >= 0 else self.cand[:A]
        failed_rows = rows == 0
        return {
            "prob": frozen_copy(normalised_pheromone(self.pher, self.base)),
            "pheromone": frozen_copy(self.pher),
            "failed": frozen_copy(failed_rows.sum(axis=0).astype(np.int64)),
            "ant_failed": frozen_copy(failed_rows),
            "ant_costs": frozen_copy(failed_rows.sum(axis=1).astype(np.float64)),
            "empty": frozen_copy(self._grid == 0),
            "propagated": frozen_copy((self.base != 0) & ((self.base & (self.base - 1)) == 0) & (self._pz.grid == 0)),
            "best_ant": int(self.counters[K.C_ITER_BEST]),
            "deposit": float(self.fstate[K.F_BEST_PHER]),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """The best-so-far's empty cells and deposit."""
        return {"empty_cells": int(snapshot.cost), "deposit": float(snapshot.layers["deposit"])}

    def describe_cell(self, c: int) -> str:
        """``r4c5`` for a flat cell index."""
        return cell_name(int(c), self._pz.N)
