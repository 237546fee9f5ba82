"""The genetic algorithm of Sato and Inoue, the baseline of NB-COIN's Table II.

An individual is a grid whose boxes are permutations of their missing digits
(givens in place), so only rows and columns can hold repeats. The fitness is
the distinct-count over rows and columns (``2*N*N`` when solved). Each
generation keeps the ``elites`` fittest, then fills the population in pairs:
two parents by tournament selection; with probability ``crossover_rate`` child 1
takes each horizontal band of boxes from the parent whose band rows score
more and child 2 each vertical band from the parent whose band columns score
more (else the children copy the parents); each child, with probability
``mutation_rate``, swaps two free cells of a random box. The search stops at
fitness ``2*N*N`` or after ``generations`` generations.

The paper's local search ("GA (mut+cross+LS)" in NB-COIN's Table II) is not
described in our copy; ``local_search`` switches on ours (one first-improvement
pass of in-box swaps between conflicting cells per child, off by default). Every parameter is
live: a change applies at the next generation (a new ``population`` size
too: the next generation is bred at that size from the current one).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .._checks import checked
from .._kernels import ga_layout as L, lazy
from ..errors import ParameterError, StateError
from ..model.geometry import geometry
from ..model.puzzle import Puzzle
from ._boxes import box_free_cells, box_missing_digits
from ._ga_phases import PHASES, run_phase
from .base import KernelSolver, Param, Slot, Snapshot, Status, frozen_copy, register
from .declare import COST_AXIS, Axis, Column, Layer, Objective
from .keyframes import Counters, Field, integer, require_box_permutations, require_givens

K = lazy("sudoku_lab._kernels.ga")

__all__ = ["GA", "box_tables"]

TIES = ("coin", "first")
#: Fewest and most individuals of a population (the ``population`` parameter's range).
MIN_POPULATION, MAX_POPULATION = 2, 100_000


@checked
def box_tables(g: np.ndarray, n: int):
    """Free cells of each box, their count, the box's missing digits, and the boxes a mutation can use.

    Returns
    -------
    box_free : ndarray of int32, shape (N, N)
        Free cells per box in reading order, padded with -1.
    box_nfree : ndarray of int32, shape (N,)
    box_missing : ndarray of int8, shape (N, N)
        Digits no given of the box holds, increasing, padded with 0.
    mut_boxes : ndarray of int32, shape (N,)
        Boxes with at least two free cells first (the rest padded with -1).
    n_mut : int
        How many boxes a mutation can use.
    """
    geo = geometry(n)
    N = geo.N
    box_free, box_nfree = box_free_cells(g, geo)
    box_missing = box_missing_digits(g, geo).astype(np.int8)
    eligible = np.flatnonzero(box_nfree >= 2).astype(np.int32)
    mut_boxes = np.full(N, -1, dtype=np.int32)
    mut_boxes[: len(eligible)] = eligible
    return box_free, box_nfree, box_missing, mut_boxes, int(len(eligible))


def _line_scores(pop: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fitness and per-row and per-column distinct counts of every individual, as :func:`K.evaluate` gives them.

    Parameters
    ----------
    pop : ndarray of int8, shape (P, C)
        Every cell holding a digit 1..N.
    N : int

    Returns
    -------
    fit : ndarray of int64, shape (P,)
    rsc, csc : ndarray of int64, shape (P, N)
        Distinct digits of each row and of each column.
    """
    g = np.asarray(pop).reshape(-1, N, N)

    def distinct(lines: np.ndarray) -> np.ndarray:
        s = np.sort(lines, axis=-1)
        return (1 + (np.diff(s, axis=-1) != 0).sum(axis=-1)).astype(np.int64)

    rsc = distinct(g)
    csc = distinct(g.transpose(0, 2, 1))
    return rsc.sum(axis=1) + csc.sum(axis=1), rsc, csc


def _require_individuals(pop: np.ndarray, puzzle: Puzzle, path: str) -> None:
    """StateError naming the first row of ``pop`` (P, C) that moves a given or breaks a box permutation."""
    N = puzzle.N
    boxes = geometry(puzzle.n).units[2 * N : 3 * N]
    givens = puzzle.grid > 0
    ok = (pop[:, givens] == puzzle.grid[givens]).all(axis=1)
    ok &= (np.sort(pop[:, boxes], axis=-1) == np.arange(1, N + 1)).all(axis=(1, 2))
    if not ok.all():
        q = int(np.flatnonzero(~ok)[0])
        require_givens(pop[q], puzzle, f"{path}[{q}]")
        require_box_permutations(pop[q], puzzle, f"{path}[{q}]")


#: The arrays of a run (defined in its kernel's layout module; the kernels take them as one argument).
GAState = L.GAState


@checked
@register
class GA(KernelSolver):
    name = "ga"
    title = "GA (Sato & Inoue)"
    cites = "sato2010"
    order = 40
    description = (
        "Genetic algorithm on grids whose boxes are permutations: tournament selection, "
        "crossover exchanging whole bands of boxes by their row or column scores, "
        "mutation swapping two free cells of a box, elitism; fitness = distinct digits "
        "over rows and columns (the baseline of NB-COIN's Table II)."
    )
    iteration_name = "generation"
    phases = PHASES
    examples = (
        ({}, "nbcoin_01_easy"),
        ({"population": 30, "elites": 2, "tournament": 2, "ties": "first"}, "nbcoin_106_difficult"),
        (
            {"population": 12, "crossover_rate": 0.9, "mutation_rate": 0.9, "elites": 0, "generations": 150},
            "reseda_fig4_1_hard",
        ),
        ({"population": 20, "local_search": True}, "nbcoin_77_difficult"),
        ({"population": 16}, "benchmarks/lewis_16x16_50:1"),
    )
    objective = Objective(
        cost="missing symbols = 2*N*N - best fitness",
        native="best_fitness",
        native_label="fitness: distinct digits over rows and columns",
        native_sense="max",
    )
    axes = (COST_AXIS, Axis("fitness", "fitness (distinct digits)", "right"))
    columns = (
        Column("cost", "cost (2N² - best fitness)", color="#0072B2"),
        Column("best_cost", "best cost since reset", color="#E69F00", style="steps"),
        Column("best_fitness", "best fitness", axis="fitness", color="#009E73"),
        Column("mean_fitness", "mean fitness", axis="fitness", color="#CC79A7", style="dashed"),
        Column("worst_fitness", "worst fitness", axis="fitness", color="#D55E00", style="dotted"),
    )
    layers = (
        Layer(
            "fitness",
            "fitness of each individual (distinct digits in rows and columns)",
            "float64",
            ("*",),
            role="population",
        ),
        Layer("individuals", "the population, one grid per row", "int8", ("*", "C")),
        Layer("elite", "index of the best individual (the board's grid)", "int"),
        Layer("best_fitness", "its fitness", "int"),
        Layer("max_fitness", "fitness of a solution, 2*N*N", "int"),
        Layer("crossovers", "pairs crossed in the last generation", "int"),
        Layer("mutations", "children mutated in the last generation", "int"),
    )

    params = (
        Param(
            "population",
            "int",
            150,
            "Individuals per generation (a change applies at the next generation, bred from the current one).",
            low=MIN_POPULATION,
            high=MAX_POPULATION,
            paper="Sato & Inoue; NB-COIN Table II",
        ),
        Param(
            "tournament",
            "int",
            3,
            "Tournament size: contestants drawn with replacement, the fittest becomes a parent.",
            low=1,
            high=1000,
            paper="Sato & Inoue",
        ),
        Param(
            "crossover_rate",
            "float",
            0.3,
            "Probability that a pair of parents is crossed (band crossover); else the children copy them.",
            low=0.0,
            high=1.0,
            step=0.05,
            paper="Sato & Inoue",
        ),
        Param(
            "mutation_rate",
            "float",
            0.3,
            "Probability that a child swaps two free cells of a random box "
            "(boxes with fewer than two free cells are never chosen).",
            low=0.0,
            high=1.0,
            step=0.05,
            paper="Sato & Inoue",
        ),
        Param(
            "elites",
            "int",
            1,
            "Fittest individuals copied unchanged into the next generation (less than the population).",
            low=0,
            high=1000,
            paper="Sato & Inoue (elitism)",
        ),
        Param(
            "ties",
            "choice",
            "coin",
            "Band crossover when both parents' bands score the same: 'coin' "
            "(a fair coin, one draw) or 'first' (the first parent). Ours: the paper does not say.",
            choices=TIES,
        ),
        Param(
            "local_search",
            "bool",
            False,
            "After mutation, one pass of swaps inside each box between two "
            "free cells whose digits both repeat in their row or column, each kept if the fitness rises "
            "(ours: the paper's 'GA (mut+cross+LS)' local search is not described in our copy).",
            paper="NB-COIN Table II (LS)",
        ),
        Param(
            "generations",
            "int",
            100_000,
            "Generation budget: the search fails after this many.",
            low=1,
            high=10**9,
            paper="NB-COIN Table II (100000)",
            when="next step",
        ),
    )

    @classmethod
    def check_params(cls, params: Mapping[str, Any]) -> None:
        if "elites" in params and "population" in params and params["elites"] >= params["population"]:
            raise ParameterError(
                f"elites must be less than the population (at least one child per "
                f"generation), got elites = {params['elites']} >= population = "
                f"{params['population']}",
                name="elites",
            )

    kernel = K
    layout = L
    State = GAState
    #: The keyframe (:mod:`.keyframes`): the population and the best since reset are read and checked;
    #: the scores, the population's best, the costs and the box tables are rebuilt from them and the puzzle.
    #: The population may have another size than the parameter: a live change applies at the next generation.
    keyframe = {
        "counters": Counters(
            ranges={
                "C_CROSSOVERS": (0, (MAX_POPULATION + 1) // 2),
                "C_MUTATIONS": (0, MAX_POPULATION),
            },
            derived=("C_COST", "C_BEST_COST", "C_BEST_INDEX"),
        ),
        "pop": Field("int8", ((MIN_POPULATION, MAX_POPULATION), "C"), 1, "N"),
        "fit": Field("int64", ((MIN_POPULATION, MAX_POPULATION),), derived=True),
        "rsc": Field("int64", ((MIN_POPULATION, MAX_POPULATION), "N"), derived=True),
        "csc": Field("int64", ((MIN_POPULATION, MAX_POPULATION), "N"), derived=True),
        "grid": Field("int8", ("C",), derived=True),
        "best_grid": Field("int8", ("C",), 1, "N"),
        "box_free": Field("int32", ("N", "N"), derived=True),
        "box_nfree": Field("int32", ("N",), derived=True),
        "box_missing": Field("int8", ("N", "N"), derived=True),
        "mut_boxes": Field("int32", ("N",), derived=True),
    }
    extra = {"n_mut": integer(0, "N")}
    int_slots = (
        "tournament",
        "elites",
        Slot("ties", {"coin": L.TIES_COIN, "first": L.TIES_FIRST}),
        "generations",
        "local_search",
    )
    float_slots = ("crossover_rate", "mutation_rate")
    budget_param = "generations"

    # ---------------------------------------------------------------- reset
    def _reset(self):
        pz = self.puzzle
        N, C = pz.N, pz.C
        self.full = 2 * N * N
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        (self.box_free, self.box_nfree, self.box_missing, self.mut_boxes, self.n_mut) = box_tables(pz.grid, pz.n)
        P = self._params["population"]
        self.pop = np.zeros((P, C), dtype=np.int8)
        self.fit = np.zeros(P, dtype=np.int64)
        self.rsc = np.zeros((P, N), dtype=np.int64)
        self.csc = np.zeros((P, N), dtype=np.int64)
        self.grid = np.zeros(C, dtype=np.int8)
        self.best_grid = np.zeros(C, dtype=np.int8)
        K.start(self.arrays(), pz.grid, self.geo.units, self.rng)
        self.counters[K.C_EVALUATIONS] = P
        self.evaluations = P
        best = int(np.argmax(self.fit))
        self.counters[K.C_BEST_INDEX] = best
        self.counters[K.C_COST] = self.counters[K.C_BEST_COST] = self.full - int(self.fit[best])
        self.grid[:] = self.pop[best]
        self.best_grid[:] = self.grid
        self._alloc_scratch()
        if self.counters[K.C_COST] == 0:
            self.status = Status.SOLVED

    def _alloc_scratch(self, size: int | None = None):
        P = self.pop.shape[0] if size is None else size
        N, C = self._pz.N, self._pz.C
        self.next = K.GANext(
            np.zeros((P, C), dtype=np.int8),
            np.zeros(P, dtype=np.int64),
            np.zeros((P, N), dtype=np.int64),
            np.zeros((P, N), dtype=np.int64),
        )

    # ---------------------------------------------------------------- step
    def _run(self, k, trace, events, ip, fp):
        resize = self._params["population"] != self.pop.shape[0]
        if resize:  # one generation bred into buffers of the new size
            self._alloc_scratch(self._params["population"])
            k = 1
        gens, code = K.run(
            self.arrays(), self.next, self.geo.units, self.puzzle.n, self.n_mut, ip, fp, self.rng, k, trace
        )
        if resize and gens:
            self.pop, self.fit, self.rsc, self.csc = self.next
            self._alloc_scratch()
        return gens, code

    def _run_phase(self, index, ctx):
        return run_phase(self, index, ctx)

    # ------------------------------------------------------------ snapshot
    def _layers(self):
        best = int(self.counters[K.C_BEST_INDEX])
        return {
            "fitness": frozen_copy(self.fit.astype(np.float64)),
            "individuals": frozen_copy(self.pop),
            "elite": best,
            "best_fitness": int(self.fit[best]),
            "max_fitness": int(self.full),
            "crossovers": int(self.counters[K.C_CROSSOVERS]),
            "mutations": int(self.counters[K.C_MUTATIONS]),
        }

    @classmethod
    def summarize(cls, snapshot: Snapshot) -> dict[str, Any]:
        """Generations, individuals evaluated and the final best fitness."""
        return {
            "generations": int(snapshot.iteration),
            "evaluations": int(snapshot.evaluations),
            "best_fitness": int(snapshot.layers["best_fitness"]),
        }

    # --------------------------------------------------------------- state
    def _extra_state(self):
        return {"n_mut": self.n_mut}

    def _loaded(self, st):
        self.full = 2 * self.puzzle.N * self.puzzle.N
        self.n_mut = int(st["n_mut"])  # compared with the puzzle's by _check_loaded
        self._alloc_scratch()

    def _derive(self):
        pz = self._pz
        N = pz.N
        self.box_free, self.box_nfree, self.box_missing, self.mut_boxes, _ = box_tables(pz.grid, pz.n)
        self.fit, self.rsc, self.csc = _line_scores(self.pop, N)
        best = int(np.argmax(self.fit))  # the first of the fittest, as population_stats
        self.grid = self.pop[best].copy()
        c = self.counters
        c[K.C_BEST_INDEX] = best
        c[K.C_COST] = self.full - int(self.fit[best])
        c[K.C_BEST_COST] = self.full - int(_line_scores(self.best_grid[None, :], N)[0][0])

    def _check_loaded(self):
        pz, c = self._pz, self.counters
        _require_individuals(self.pop, pz, "state.algorithm.pop")
        require_givens(self.best_grid, pz, "state.algorithm.best_grid")
        require_box_permutations(self.best_grid, pz, "state.algorithm.best_grid")
        n_mut = int((self.box_nfree >= 2).sum())
        if self.n_mut != n_mut:
            raise StateError(
                f"state.algorithm.n_mut is {self.n_mut}, but {n_mut} boxes of the puzzle have two free cells or more"
            )
        cost, best = int(c[K.C_COST]), int(c[K.C_BEST_COST])
        if best > cost:
            raise StateError(
                f"state.algorithm.best_grid costs {best}, more than the population's best ({cost}): "
                "it is not the best since the reset"
            )
        if (self.status == Status.SOLVED) != (cost == 0):
            raise StateError(
                f"state.status is {self.status!r}, but the population's best costs {cost}"
                + (" (a solution)" if cost == 0 else "")
            )
        P = self.pop.shape[0]
        for slot, most in (("C_CROSSOVERS", (P + 1) // 2), ("C_MUTATIONS", P)):
            v = int(c[getattr(K, slot)])
            if v > (most if self.iteration else 0):
                raise StateError(
                    f"state.algorithm.counters[{slot}] is {v}, more than the last generation "
                    f"({f'of {P} individuals' if self.iteration else 'none yet'}) can count"
                )
