"""NB-COIN: the node based coincidence algorithm of Waiyapara, Wattanapornprom and Chongstitvatana.

One N x N model per box, ``M[box, position, digit]``, starts from the givens
(a given position has 1 on its digit; a free position is uniform over the
digits that are neither givens of the box nor givens of its grid row or
column). Each generation samples a population of grids, one permutation per
box; scores them by the distinct-count fitness (``2*N*N`` when solved); rewards
the best C % and punishes the worst C % with step size k and L = N (the
paper's equations 4 and 5, whose sums over the selected individuals are raw
counts by default, ``update="counts"``; ``update="frequencies"``, ours,
divides them by the size of the set); clips to ``[0, upper]`` and renormalises. The run
stops at the optimum or after the generation budget.

``cost`` is ``2*N*N`` minus the best fitness since reset: the missing-symbol
cost over rows and columns (boxes are permutations), 0 iff solved. The
paper's fitness is traced as best / mean / worst per generation on its own
axis. The choices the paper leaves open (the size of the selected sets, the
sampling order, how the upper bound holds) are fixed in docs/algorithms.md,
"NB-COIN", and are parameters here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import checked
from .._kernels import lazy, nbcoin_layout as L
from ..errors import StateError
from ..model.geometry import geometry
from ..model.scoring import distinct_count
from ._boxes import box_free_cells, box_missing_masks
from ._nbcoin_phases import PHASES, run_phase
from .base import KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import Axis, Column, Layer, Objective
from .keyframes import Counters, Field, require_box_permutations, require_givens

K = lazy("sudoku_lab._kernels.nbcoin")

__all__ = ["NBCoin", "initial_model", "selected_count", "box_tables", "model_as_cells"]

UPDATES = ("counts", "frequencies")
BOUNDS = ("renormalise", "cap")
#: The largest population (the parameter's bound) and the largest good or bad set (C at most 50 %).
MAX_POPULATION = 100_000
MAX_SELECTED = MAX_POPULATION // 2
#: How far a model entry may stray from [0, 1], and a position's row sum from 1, by rounding.
M_TOLERANCE = 1e-9
ROW_SUM_TOLERANCE = 1e-6


@checked
def selected_count(population: int, C: float) -> int:
    """Size of the good set and of the bad set: ``floor(C % of the population)``, at least 1.

    150 individuals with C = 25 give 37 rewarded and 37 punished.
    """
    return max(1, int(math.floor(population * C / 100.0 + 1e-9)))


@checked
def box_tables(grid: np.ndarray, n: int):
    """Cells of each box position, free positions per box (padded with -1), their count, unused digits.

    Returns
    -------
    box_cells : ndarray of int32, shape (N, N)
    box_free : ndarray of int32, shape (N, N)
    box_nfree : ndarray of int32, shape (N,)
    box_avail : ndarray of int64, shape (N,)
        Bit d-1 set when no given of the box holds digit d.
    """
    geo = geometry(n)
    N = geo.N
    box_cells = np.ascontiguousarray(geo.units[2 * N :], dtype=np.int32)
    box_free, box_nfree = box_free_cells(grid, geo, positions=True)
    return box_cells, box_free, box_nfree, box_missing_masks(grid, geo, np.int64)


@checked
def initial_model(grid: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The paper's initial model from the givens ``grid`` (int8, 0 where free) of a puzzle of box size ``n``.

    Section IV, Figure 7c.

    Returns
    -------
    M : ndarray of float64, shape (N, N, N)
        ``M[box, position, digit - 1]``: 1 on a given position's digit; on a
        free position, uniform over the digits held neither by a given of the
        box nor by a given of the position's grid row or column; 0 elsewhere.
        A free position left with no digit at all (inconsistent givens) gets
        the box's unused digits uniformly.
    allowed : ndarray of bool, shape (N, N, N)
        Where ``M`` starts non-zero (the update keeps every other entry at 0).
    """
    geo = geometry(n)
    N = geo.N
    g = np.asarray(grid).reshape(N, N)
    allowed = np.zeros((N, N, N), dtype=bool)
    box_cells = geo.units[2 * N :]
    for b in range(N):
        cells = box_cells[b]
        in_box = {int(grid[c]) for c in cells if grid[c] > 0}
        for i, c in enumerate(cells):
            v = int(grid[c])
            if v > 0:
                allowed[b, i, v - 1] = True
                continue
            r, col = divmod(int(c), N)
            used = in_box | set(int(x) for x in g[r]) | set(int(x) for x in g[:, col])
            for d in range(1, N + 1):
                if d not in used:
                    allowed[b, i, d - 1] = True
            if not allowed[b, i].any():
                for d in range(1, N + 1):
                    allowed[b, i, d - 1] = d not in in_box
    M = allowed / allowed.sum(axis=2, keepdims=True)
    return np.ascontiguousarray(M, dtype=np.float64), allowed


@checked
def model_as_cells(M: np.ndarray, n: int) -> np.ndarray:
    """The box models as ``p[cell, digit]`` (float64, shape (C, N)): row ``c`` is ``M[box(c), position(c)]``."""
    geo = geometry(n)
    N = geo.N
    p = np.empty((N * N, N))
    p[geo.units[2 * N :].reshape(-1)] = M.reshape(N * N, N)
    return p


#: The arrays of a run (defined in its kernel's layout module; the kernels take them as one argument).
NBCoinState = L.NBCoinState


@checked
@register
class NBCoin(KernelSolver):
    name = "nbcoin"
    title = "NB-COIN (node based coincidence)"
    cites = "waiyapara"
    order = 30
    description = (
        "Coincidence algorithm with one position x digit probability model per box: each generation "
        "samples a population of grids (a permutation per box), rewards the best C % and punishes the "
        "worst C % of them with step size k."
    )
    iteration_name = "generation"
    examples = (
        ({}, "nbcoin_11_easy"),
        ({"population": 40, "C": 30.0, "k": 0.6, "update": "frequencies", "generations": 2000}, "nbcoin_106_difficult"),
        ({"population": 30, "bound": "cap", "upper": 0.9, "generations": 2000}, "nbcoin_27_medium"),
        ({"population": 4, "C": 25.0, "generations": 300}, "unique_4x4_a"),  # runs 9 generations at seed 7
        ({"population": 12, "generations": 2000}, "unique_16x16_a"),
    )
    objective = Objective(
        cost="missing symbols over rows and columns (2*N*N - best fitness)",
        native="best_fitness",
        native_label="distinct-count fitness (2*N*N = solved)",
        native_sense="max",
    )
    axes = (Axis("cost", "cost (2N\u00b2 - fitness)", "left"), Axis("fitness", "fitness (distinct count)", "right"))
    columns = (
        Column("cost", "cost of the generation's best", color="#0072B2"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
        Column("best_fitness", "best fitness of the generation", axis="fitness", color="#009E73"),
        Column("mean_fitness", "mean fitness of the generation", axis="fitness", color="#56B4E9", style="dotted"),
        Column(
            "worst_fitness",
            "worst fitness of the generation",
            axis="fitness",
            color="#CC79A7",
            style="dashed",
            shown=False,
        ),
    )
    layers = (
        Layer(
            "models",
            "the box models M[box, position, digit] (digit 1 in column 0)",
            "float64",
            ("N", "N", "N"),
            role="box_models",
        ),
        Layer("prob", "the same model as p[cell, digit]", "float64", ("C", "N"), role="probability"),
        Layer("entropy", "normalised entropy of p per cell", "float64", ("C",), role="entropy"),
        Layer("fitness", "fitness of each individual of the latest generation", "float64", ("*",), role="population"),
        Layer("population", "the latest generation's individuals", "int8", ("*", "C")),
        Layer("good", "indices of the rewarded individuals of the latest update, best first", "int64", ("*",)),
        Layer("bad", "indices of the punished individuals of the latest update, worst first", "int64", ("*",)),
        Layer(
            "delta", "change of the model by the latest update, per (box, position, digit)", "float64", ("N", "N", "N")
        ),
        Layer("moved", "largest absolute change per (box, position) in the latest update", "float64", ("N", "N")),
        Layer("best_fitness", "fitness of the best individual since reset", "int"),
        Layer("generation_best", "best fitness of the latest generation", "int"),
        Layer("selected", "size of the good (and of the bad) set in force", "int"),
    )

    params = (
        Param(
            "population",
            "int",
            150,
            "Individuals sampled per generation.",
            low=2,
            high=MAX_POPULATION,
            paper="NB-COIN Table I",
            when="next generation",
        ),
        Param(
            "C",
            "float",
            25.0,
            "Selection pressure: the best C % are rewarded and the worst C % punished "
            "(each set floor(C % of the population), at least 1).",
            low=0.0,
            high=50.0,
            low_open=True,
            label="C (%)",
            paper="NB-COIN III, Table I",
            step=5.0,
        ),
        Param(
            "k",
            "float",
            0.4,
            "Step size (learning rate) of the reward and punishment, L = N.",
            low=0.0,
            high=1.0,
            low_open=True,
            label="k (step size)",
            paper="NB-COIN eq. 4-5, Table I",
            step=0.05,
        ),
        Param(
            "upper",
            "float",
            0.99,
            "Upper bound of a model entry before each position is renormalised.",
            low=0.0,
            high=1.0,
            low_open=True,
            label="upper bound",
            paper="NB-COIN Table I",
            step=0.01,
        ),
        Param(
            "generations",
            "int",
            100_000,
            "Generation budget: the run fails after this many (0 = no limit).",
            low=0,
            high=10**9,
            paper="NB-COIN Table I",
            when="next generation",
        ),
        Param(
            "update",
            "choice",
            "counts",
            "What the update sums: 'counts' (the default: the paper's "
            "equations 4-5 as written, raw counts over the selected individuals, so one generation can move "
            "an entry by up to k/L times their number; gives the paper's 2-4 generations on its easy puzzles) "
            "or 'frequencies' (ours: counts divided by the size of the set, a step stays within k/L; about "
            "ten times more generations on the easy puzzles, fewer failures).",
            choices=UPDATES,
            paper="NB-COIN eq. 4-5",
        ),
        Param(
            "bound",
            "choice",
            "renormalise",
            "How the upper bound holds: 'renormalise' (clip to [0, upper], "
            "then divide by the sum, as docs/algorithms.md fixes it: a row whose other digits reached 0 "
            "returns to 1) or 'cap' (ours: then cap every entry at upper, spreading the excess evenly over "
            "the other allowed digits, so a position never becomes certain).",
            choices=BOUNDS,
            paper="NB-COIN Table I (upper bound)",
        ),
    )

    kernel = K
    layout = L
    State = NBCoinState
    int_slots = (
        "population",
        Slot("selected", value=lambda p: selected_count(p["population"], p["C"])),
        "generations",
        Slot("update", {"counts": L.UPDATE_COUNTS, "frequencies": L.UPDATE_FREQUENCIES}),
        Slot("bound", {"cap": L.BOUND_CAP, "renormalise": L.BOUND_RENORMALISE}),
    )
    float_slots = ("k", "upper")
    budget_param = "generations"
    best_cost_counter = None
    phases = PHASES
    #: The keyframe (:mod:`.keyframes`): the model, its latest change, the best grid and the latest
    #: generation are read and checked; the givens, the allowed digits and the box tables are rebuilt from
    #: the puzzle, the fitness counters from the grids. The population buffers hold at least the rows the
    #: parameters in force need (a smaller population keeps the larger generation readable until the next).
    keyframe = {
        "M": Field("float64", ("N", "N", "N"), 0.0, 1.0 + M_TOLERANCE),
        "allowed": Field("bool", ("N", "N", "N"), derived=True),
        "base": Field("int8", ("C",), derived=True),
        "best_grid": Field("int8", ("C",), 0, "N"),
        "delta": Field("float64", ("N", "N", "N"), -1.0 - M_TOLERANCE, 1.0 + M_TOLERANCE),
        "counters": Counters(
            ranges={"C_N_SELECTED": (0, MAX_SELECTED), "C_POP": (0, MAX_POPULATION)},
            derived=("C_BEST_FITNESS", "C_GEN_BEST"),
        ),
        "pop": Field("int8", (("population", MAX_POPULATION), "C"), 0, "N"),
        "fitness": Field("int64", (("population", MAX_POPULATION),), 0, "2 * N * N"),
        "good": Field("int64", ((1, MAX_SELECTED),), 0, MAX_POPULATION - 1),
        "bad": Field("int64", ((1, MAX_SELECTED),), 0, MAX_POPULATION - 1),
        "box_cells": Field("int32", ("N", "N"), derived=True),
        "box_free": Field("int32", ("N", "N"), derived=True),
        "box_nfree": Field("int32", ("N",), derived=True),
        "box_avail": Field("int64", ("N",), derived=True),
    }

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self.puzzle
        N = pz.N
        self.base = pz.grid.copy()
        self.M, self.allowed = initial_model(self.base, pz.n)
        self.box_cells, self.box_free, self.box_nfree, self.box_avail = box_tables(self.base, pz.n)
        self.delta = np.zeros((N, N, N))
        self.best_grid = self.base.copy()
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.counters[K.C_BEST_FITNESS] = distinct_count(self.base, pz.n)
        self.counters[K.C_GEN_BEST] = self.counters[K.C_BEST_FITNESS]
        self._alloc_buffers()
        if not np.any(self.base == 0):
            self.status = Status.SOLVED  # givens only: checked for clashes by reset()

    def _alloc_buffers(self):
        """Population buffers for the parameters in force (they apply from the next generation)."""
        P = self._params["population"]
        G = selected_count(P, self._params["C"])
        C = self.puzzle.C
        old_P = int(self.counters[K.C_POP])
        pop = np.zeros((max(P, old_P), C), dtype=np.int8)
        fitness = np.zeros(max(P, old_P), dtype=np.int64)
        if old_P:  # the latest generation stays readable (snapshots) until the next one
            pop[:old_P] = self.pop[:old_P]
            fitness[:old_P] = self.fitness[:old_P]
        self.pop, self.fitness = pop, fitness
        k = int(self.counters[K.C_N_SELECTED])
        good = np.zeros(max(G, k), dtype=np.int64)
        bad = np.zeros(max(G, k), dtype=np.int64)
        if k:
            good[:k] = self.good[:k]
            bad[:k] = self.bad[:k]
        self.good, self.bad = good, bad

    def _params_changed(self, names):
        if names & {"population", "C"}:
            self._alloc_buffers()

    # ---------------------------------------------------------- properties
    @property
    def optimum(self) -> int:
        return 2 * self._pz.N * self._pz.N

    @property
    def grid(self) -> np.ndarray:
        return self.best_grid

    @property
    def cost(self) -> int:
        return self.optimum - int(self.counters[K.C_BEST_FITNESS])

    # --------------------------------------------------------------- state
    def _derive(self):
        pz = self._pz
        self.base = pz.grid.copy()
        _, self.allowed = initial_model(self.base, pz.n)
        self.box_cells, self.box_free, self.box_nfree, self.box_avail = box_tables(self.base, pz.n)
        c = self.counters
        c[K.C_BEST_FITNESS] = distinct_count(self.best_grid, pz.n)
        P = int(c[K.C_POP])  # checked against the buffers in _check_loaded (a slice never reads past them)
        c[K.C_GEN_BEST] = self.fitness[:P].max() if P and len(self.fitness) else c[K.C_BEST_FITNESS]

    def _check_loaded(self):
        pz, c, where = self._pz, self.counters, "state.algorithm"
        P, k = int(c[K.C_POP]), int(c[K.C_N_SELECTED])
        G = selected_count(self._params["population"], self._params["C"])
        # The buffers: one row of fitness per row of pop, a bad entry per good one, room for what is in force.
        if len(self.fitness) != len(self.pop):
            raise StateError(f"{where}.fitness holds {len(self.fitness)} entries for the {len(self.pop)} rows of pop")
        if len(self.bad) != len(self.good):
            raise StateError(f"{where}.bad holds {len(self.bad)} entries, good {len(self.good)}")
        if len(self.good) < G:
            raise StateError(f"{where}.good holds {len(self.good)} entries, fewer than the {G} selected")
        if P > len(self.pop) or (P == 0) != (self.iteration == 0) or P == 1:
            raise StateError(f"{where}.counters[C_POP] is {P}, not the size of a generation of pop at {self.iteration}")
        if k > P // 2 or k > len(self.good):
            raise StateError(f"{where}.counters[C_N_SELECTED] is {k}, more than a generation of {P} selects")
        if (k == 0) != (self.iteration == 0 or self.status == Status.SOLVED):
            raise StateError(f"{where}.counters[C_N_SELECTED] is {k} at generation {self.iteration} ({self.status})")
        if (self.status == Status.SOLVED) != (self.cost == 0):
            raise StateError(f"state.status is {self.status}, but best_grid has fitness {int(c[K.C_BEST_FITNESS])}")
        # The best grid: the givens until the first generation, then a permutation per box.
        if self.iteration == 0:
            if not np.array_equal(self.best_grid, self.base):
                raise StateError(f"{where}.best_grid is not the givens before the first generation")
        else:
            require_givens(self.best_grid, pz, f"{where}.best_grid")
            require_box_permutations(self.best_grid, pz, f"{where}.best_grid")
            if c[K.C_BEST_FITNESS] < c[K.C_GEN_BEST]:
                raise StateError(
                    f"{where}.best_grid has fitness {int(c[K.C_BEST_FITNESS])}, less than the latest generation's "
                    f"best {int(c[K.C_GEN_BEST])}"
                )
        self._check_generation(P, k)
        self._check_model()

    def _check_generation(self, P: int, k: int) -> None:
        """The latest generation: individuals with the givens and a permutation per box, their fitness, the sets."""
        pz, where = self._pz, "state.algorithm"
        N = pz.N
        pop = self.pop[:P]
        givens = self.base > 0
        moved = np.flatnonzero((pop[:, givens] != self.base[givens]).any(axis=1))
        if len(moved):
            raise StateError(f"{where}.pop[{int(moved[0])}] does not hold the givens")
        boxes = np.sort(pop[:, self.box_cells], axis=2)  # (P, box, position)
        wrong = np.flatnonzero((boxes != np.arange(1, N + 1, dtype=np.int8)).any(axis=(1, 2)))
        if len(wrong):
            raise StateError(f"{where}.pop[{int(wrong[0])}]: a box does not hold each digit 1..{N} once")
        # Distinct digits per row and per column (the kernel's row_col_fitness, in numpy: no kernel to compile
        # for a check that runs once per file opened).
        g = pop.reshape(P, N, N)
        fit = np.zeros(P, dtype=np.int64)
        for d in range(1, N + 1):
            hit = g == d
            fit += hit.any(axis=2).sum(axis=1) + hit.any(axis=1).sum(axis=1)
        wrong = np.flatnonzero(self.fitness[:P] != fit)
        if len(wrong):
            q = int(wrong[0])
            raise StateError(f"{where}.fitness[{q}] is {int(self.fitness[q])}, but pop[{q}] has fitness {int(fit[q])}")
        if k:  # the latest ranking (select's, no draws): a function of the generation's fitness
            top = int(self.fitness[:P].max())
            order = np.argsort((top - self.fitness[:P]) * P + np.arange(P))
            if not np.array_equal(self.good[:k], order[:k]):
                raise StateError(f"{where}.good is not the {k} fittest of the latest generation, best first")
            if not np.array_equal(self.bad[:k], order[::-1][:k]):
                raise StateError(f"{where}.bad is not the {k} least fit of the latest generation, worst first")

    def _check_model(self) -> None:
        """``M``: 0 on the digits ruled out, certain on a given, each row a distribution; ``delta`` its last change."""
        where = "state.algorithm"
        M, delta, allowed = self.M, self.delta, self.allowed
        given = (self.base[self.box_cells] > 0)[:, :, None]  # (box, position, 1)
        initial, _ = initial_model(self.base, self._pz.n)
        for name, v in (("M", M), ("delta", delta)):
            if np.any(v[~allowed] != 0.0):
                b, i, d = (int(x) for x in np.argwhere(~allowed & (v != 0.0))[0])
                raise StateError(
                    f"{where}.{name}[{b}, {i}, {d}] is {float(v[b, i, d]):g}, where digit {d + 1} is ruled out"
                )
        if np.any(np.where(given, M != initial, False)):
            b, i = (int(x) for x in np.argwhere((np.where(given, M != initial, False)).any(axis=2))[0])
            raise StateError(f"{where}.M[{b}, {i}] is not certain of the given at that position")
        if np.any(np.where(given, delta != 0.0, False)) or (
            (self.iteration == 0 or self.status == Status.SOLVED) and delta.any()
        ):
            raise StateError(f"{where}.delta is not the change of the latest update (none on a given, none before one)")
        prior = M - delta  # the model before the latest update: a model as well
        for name, v in (("M", M), ("M - delta", prior)):
            if v.min() < -M_TOLERANCE or v.max() > 1.0 + M_TOLERANCE:
                raise StateError(f"{where}: {name} leaves [0, 1]")
            sums = v.sum(axis=2)
            off = np.argwhere(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
            if len(off):
                b, i = (int(x) for x in off[0])
                raise StateError(f"{where}: {name}[{b}, {i}] sums to {float(sums[b, i]):g}, not 1")

    # ---------------------------------------------------------------- step
    def _run(self, k, trace, events, ip, fp):
        return K.run(self.arrays(), ip, fp, self.rng, k, trace)

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    # ------------------------------------------------------------ snapshot
    def _layers(self):
        N = self.puzzle.N
        p = model_as_cells(self.M, self.puzzle.n)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1) / math.log(N)
        P = int(self.counters[K.C_POP])
        k = int(self.counters[K.C_N_SELECTED])
        return {
            "models": frozen_copy(self.M),
            "prob": frozen_copy(p),
            "entropy": frozen_copy(np.clip(h, 0.0, 1.0)),
            "fitness": frozen_copy(self.fitness[:P].astype(np.float64)),
            "population": frozen_copy(self.pop[:P]),
            "good": frozen_copy(self.good[:k]),
            "bad": frozen_copy(self.bad[:k]),
            "delta": frozen_copy(self.delta),
            "moved": frozen_copy(np.abs(self.delta).max(axis=2)),
            "best_fitness": int(self.counters[K.C_BEST_FITNESS]),
            "generation_best": int(self.counters[K.C_GEN_BEST]),
            "selected": selected_count(self._params["population"], self._params["C"]),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Best fitness reached and its optimum."""
        N = snapshot.puzzle.N
        return {"best_fitness": int(snapshot.layers["best_fitness"]), "optimum": 2 * N * N}
