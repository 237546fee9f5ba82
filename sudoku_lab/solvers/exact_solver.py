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
from ..model.scoring import missing_symbols
from .base import Solver, Status, register
from .declare import Layer, Objective

__all__ = ["ExactSolver"]


@checked
@register
class ExactSolver(Solver):
    name = "exact"
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

    def _load(self, st):
        self.grid = st["grid"].copy()
        self.best_grid = st["best_grid"].copy()
        self.fixed = st["fixed"].copy()
        self.cost = st["cost"]
        self.best_cost = st["best_cost"]
