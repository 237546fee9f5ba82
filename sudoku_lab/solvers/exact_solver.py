"""The exact solver behind the solver protocol: ground truth next to the metaheuristics.

One iteration is the whole search of :func:`sudoku_lab.exact.solve`
(depth-first, dom/wdeg branching, naked and hidden singles, locked
candidates from 16x16 up, seeded restarts), so the lab and the experiment
runner can put the exact solver side by side with the stochastic ones.
"""

from __future__ import annotations

import numpy as np

from .. import exact
from .._checks import checked
from ..citations import SECTIONS
from ..errors import StateError
from ..model.scoring import missing_symbols
from .base import Solver, Status, register
from .declare import Layer, Objective
from .keyframes import Field, integer, require_givens

__all__ = ["ExactSolver"]


@checked
@register
class ExactSolver(Solver):
    name = "exact"
    shared_kernels = ("exact",)
    title = "Exact solver (ground truth)"
    paper = "ours: DPLL-style search with constraint propagation"
    reference = SECTIONS["exact"]
    order = 1000
    description = (
        "Bitmask depth-first search: branch on the cell with the fewest candidates for its "
        "record of dead ends (dom/wdeg), with naked and hidden singles and, from 16x16 up, locked "
        "candidates. One iteration solves the puzzle completely."
    )
    iteration_name = "search"
    stochastic = False
    examples = (({}, "reseda_fig4_1_hard"),)
    params = ()
    objective = Objective(cost="missing symbols")
    layers = (Layer("solutions_found", "1 if solved, 0 if the puzzle has no solution", "int"),)

    # The state Solver reads, held as attributes.
    grid: np.ndarray
    cost: int
    best_grid: np.ndarray
    best_cost: int
    fixed: np.ndarray

    def _reset(self):
        self.grid = self.puzzle.grid.copy()
        self.best_grid = self.grid.copy()
        self.fixed = self.puzzle.grid > 0
        self.cost = self.best_cost = missing_symbols(self.grid, self.puzzle.n)

    def _step(self, n: int) -> int:
        sol = exact.solve(self.puzzle)
        self.iteration += 1
        self.evaluations += 1
        if sol is None:
            self.status = Status.FAILED
        else:
            self.grid = np.array(sol, dtype=np.int8)
            self.best_grid = self.grid.copy()
            self.cost = self.best_cost = 0
            self.status = Status.SOLVED
        self.trace.extend(np.array([[self.iteration, self.cost, self.best_cost]], dtype=float))
        return 1

    def _layers(self):
        return {"solutions_found": int(self.status == Status.SOLVED)}

    def _state(self):
        return {
            "grid": self.grid.copy(),
            "best_grid": self.best_grid.copy(),
            "cost": self.cost,
            "best_cost": self.best_cost,
            "fixed": self.fixed.copy(),
        }

    #: The keyframe (:mod:`.keyframes`): the grids are read and checked; what is fixed and the costs are
    #: rebuilt from them.
    keyframe = {
        "grid": Field("int8", ("C",), 0, "N"),
        "best_grid": Field("int8", ("C",), 0, "N"),
        "fixed": Field("bool", ("C",), derived=True),
    }
    extra = {"cost": integer(0, "3 * C"), "best_cost": integer(0, "3 * C")}

    def _load(self, st):
        self.grid, self.best_grid = st["grid"], st["best_grid"]

    def _derive(self):
        self.fixed = self.puzzle.grid > 0
        self.cost = missing_symbols(self.grid, self.puzzle.n)
        self.best_cost = missing_symbols(self.best_grid, self.puzzle.n)

    def _check_loaded(self):
        for name in ("grid", "best_grid"):
            require_givens(getattr(self, name), self.puzzle, f"state.algorithm.{name}")
        done = self.status == Status.SOLVED
        solved = bool(self.grid.all()) and self.cost == 0
        if done != solved or (self.status == Status.RUNNING and not np.array_equal(self.grid, self.puzzle.grid)):
            raise StateError(f"state.algorithm.grid is not what the exact solver leaves when {self.status}")
