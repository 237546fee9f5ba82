"""A solver that lives outside Sudoku Lab: random in-box swap descent, registered as a plugin.

This package is the worked example of docs/adding-a-solver.md: it touches no file
of ``sudoku_lab`` and imports only its public API. It brings

* a numba kernel (:func:`descent_steps`, compiled with :func:`sudoku_lab.kernels.kernel`) and its solver class, with its
  parameters, objective, trace columns (one on its own axis), and layers (one
  with the built-in ``cell_pairs`` role the board draws as a linked swap, one
  with its own ``toy_heat`` role that its own view and board overlay read);
* a benchmark (``sudoku-lab bench toy-descent``) and a reproduction
  (``sudoku-lab reproduce toy-descent-table``);
* in :mod:`toy_descent.ui`, a dockable view and a board overlay for the lab.

Installed, its ``pyproject.toml`` names this module in the entry-point group
``sudoku_lab.plugins`` and :mod:`toy_descent.ui` under
``sudoku_lab.ui_plugins``; for a quick try, ``SUDOKU_LAB_PLUGINS=toy_descent``.
"""

from __future__ import annotations

import numpy as np

from sudoku_lab.kernels import kernel
from sudoku_lab.model.geometry import geometry
from sudoku_lab.model.scoring import missing_symbols
from sudoku_lab.solvers import COST_AXIS, Axis, Column, Layer, Objective, Param, Solver, Status, frozen_copy, register
from sudoku_lab.solvers.keyframes import Field, integer, items, real, require_box_permutations, require_givens

__all__ = ["ToyDescent", "descent_steps"]


@kernel  # the package's numba options and on-disk cache
def _unit_cost(grid, units, u, N, seen):
    """Missing symbols of one unit."""
    seen[:] = False
    k = 0
    for c in units[u]:
        d = grid[c]
        if d > 0 and not seen[d - 1]:
            seen[d - 1] = True
            k += 1
    return N - k


@kernel  # the package's numba options and on-disk cache
def descent_steps(
    grid, best, best_cost, free_in_box, n_free, cell_units, units, N, uniforms, temperature, heat, decay, it0, out
):
    """Swap two free cells of a random box per iteration; keep the swap if the cost does not rise
    (or, with ``temperature`` > 0, with probability exp(-delta / temperature)).

    ``uniforms`` has 4 numbers per iteration; ``out`` receives per iteration
    (cost, accepted, cell a, cell b); ``heat`` counts accepted swaps per cell
    and is multiplied by ``decay`` every 100 iterations; ``best`` / ``best_cost[0]`` follow the
    lowest-cost grid. Returns the iterations done (stops at cost 0).
    """
    seen = np.zeros(N, dtype=np.bool_)
    cost = 0
    for u in range(units.shape[0]):
        cost += _unit_cost(grid, units, u, N, seen)
    done = 0
    for i in range(uniforms.shape[0]):
        if cost == 0:
            break
        b = int(uniforms[i, 0] * N)
        m = n_free[b]
        a = -1
        c = -1
        accepted = 0.0
        if m >= 2:
            ia = int(uniforms[i, 1] * m)
            ib = int(uniforms[i, 2] * (m - 1))
            if ib >= ia:
                ib += 1
            a = free_in_box[b, ia]
            c = free_in_box[b, ib]
            before = 0
            for u in cell_units[a, :2]:
                before += _unit_cost(grid, units, u, N, seen)
            for u in cell_units[c, :2]:
                before += _unit_cost(grid, units, u, N, seen)
            grid[a], grid[c] = grid[c], grid[a]
            after = 0
            for u in cell_units[a, :2]:
                after += _unit_cost(grid, units, u, N, seen)
            for u in cell_units[c, :2]:
                after += _unit_cost(grid, units, u, N, seen)
            delta = after - before
            if delta <= 0 or (temperature > 0 and uniforms[i, 3] < np.exp(-delta / temperature)):
                cost += delta
                accepted = 1.0
                heat[a] += 1.0
                heat[c] += 1.0
            else:
                grid[a], grid[c] = grid[c], grid[a]
        if (it0 + i + 1) % 100 == 0:
            heat *= decay
        if cost < best_cost[0]:
            best_cost[0] = cost
            best[:] = grid
        out[i, 0] = cost
        out[i, 1] = accepted
        out[i, 2] = a
        out[i, 3] = c
        done += 1
    return done


@register
class ToyDescent(Solver):
    name = "toy-descent"
    title = "Toy swap descent (plugin example)"
    paper = "example plugin"
    # Outside the package, ``reference`` is where a reader finds the algorithm described: a path that
    # resolves from the current directory (the lab links it when the file is there) or a URL.
    reference = "examples/plugin/README.md"
    description = "Random in-box swaps kept when the missing-symbol cost does not rise: the plugin example."
    iteration_name = "swap"
    # What the conformance kit runs (sudoku_lab.testing; tests/test_conformance.py): at 0.5 the descent
    # escapes its plateaus and solves the easy puzzle; at 0 it may stall (a failed example is allowed,
    # as long as one solves within example_budget swaps).
    examples = (({"temperature": 0.5}, "reseda_fig3_1_easy"), ({"temperature": 0.0, "alpha": 3}, "unique_4x4_a"))
    example_budget = 200_000
    order = 500
    params = (
        Param(
            "temperature",
            "float",
            0.0,
            "Accept a worse swap with probability exp(-delta / temperature).",
            low=0.0,
            high=10.0,
            step=0.1,
        ),
        # The same name as RESEDA's float alpha, as an integer here: each solver checks its own.
        Param("alpha", "int", 1, "Decay of the heat map: heat is divided by 2**alpha every 100 swaps.", low=0, high=8),
    )
    objective = Objective(cost="missing symbols")
    axes = (COST_AXIS, Axis("rate", "acceptance", "right", (0.0, 1.0)))
    columns = (
        Column("cost", "cost"),
        Column("best_cost", "best cost", style="steps"),
        Column("accepted", "swaps accepted (last 100)", axis="rate", color="#D55E00"),
    )
    layers = (
        Layer("swap", "the last swap tried", "int64", (1, 2), role="cell_pairs"),
        Layer("heat", "accepted swaps per cell, decaying", "float64", ("C",), role="toy_heat"),
    )

    def _reset(self):
        pz = self.puzzle
        geo = geometry(pz.n)
        self.units = np.array(geo.units, dtype=np.int64)
        self.cell_units = np.array(geo.cell_units, dtype=np.int64)
        N = pz.N
        grid = pz.grid.copy()
        self.free_in_box = np.full((N, N), -1, dtype=np.int64)
        self.n_free = np.zeros(N, dtype=np.int64)
        for b in range(N):
            cells = self.units[2 * N + b]
            missing = [d for d in range(1, N + 1) if d not in set(grid[cells].tolist())]
            self.rng.shuffle(missing)
            free = [int(c) for c in cells if grid[c] == 0]
            for c, d in zip(free, missing):
                grid[c] = d
            self.free_in_box[b, : len(free)] = free
            self.n_free[b] = len(free)
        self.grid = grid
        self.fixed = pz.grid > 0
        self.heat = np.zeros(pz.C)
        self.last_swap = np.full((1, 2), -1, dtype=np.int64)
        self.cost = int(missing_symbols(grid, pz.n))
        self.best_grid = grid.copy()
        self.best_cost = self.cost
        self.window = []

    def _step(self, n: int) -> int:
        before = self.rng.bit_generator.state
        uniforms = self.rng.random((n, 4))
        out = np.zeros((n, 4))
        best_cost = np.array([self.best_cost], dtype=np.int64)
        done = descent_steps(
            self.grid,
            self.best_grid,
            best_cost,
            self.free_in_box,
            self.n_free,
            self.cell_units,
            self.units,
            self.puzzle.N,
            uniforms,
            float(self._params["temperature"]),
            self.heat,
            0.5 ** self._params["alpha"],
            self.iteration,
            out,
        )
        if done < n:  # solved early: the stream must advance by what was used, so step(1) x n equals step(n)
            self.rng.bit_generator.state = before
            self.rng.random((done, 4))
        rows = np.zeros((done, 4))
        for i in range(done):
            self.iteration += 1
            self.evaluations += 1
            self.window = (self.window + [float(out[i, 1])])[-100:]
            self.best_cost = min(self.best_cost, int(out[i, 0]))
            rows[i] = (self.iteration, out[i, 0], self.best_cost, sum(self.window) / len(self.window))
        if done:
            self.last_swap[0] = out[done - 1, 2:4].astype(np.int64)
            self.cost = int(out[done - 1, 0])
        self.trace.extend(rows)
        if self.cost == 0:
            self.status = Status.SOLVED
        return done

    def _layers(self):
        return {"swap": frozen_copy(self.last_swap), "heat": frozen_copy(self.heat)}

    _ARRAYS = ("grid", "best_grid", "fixed", "heat", "last_swap", "free_in_box", "n_free", "units", "cell_units")

    #: What a keyframe may hold, checked on every load (a session file is untrusted input): the grids and the
    #: heat are read; the puzzle's tables and the costs are rebuilt from them (derived), never read.
    keyframe = {
        "grid": Field("int8", ("C",), 1, "N"),
        "best_grid": Field("int8", ("C",), 1, "N"),
        "heat": Field("float64", ("C",), 0.0),
        "last_swap": Field("int64", (1, 2), -1, "C - 1"),
        "fixed": Field("bool", ("C",), derived=True),
        "free_in_box": Field("int64", ("N", "N"), derived=True),
        "n_free": Field("int64", ("N",), derived=True),
        "units": Field("int64", ("3 * N", "N"), derived=True),
        "cell_units": Field("int64", ("C", 3), derived=True),
    }
    extra = {"cost": integer(), "best_cost": integer(), "window": items(real(0.0, 1.0), 100)}

    def _state(self):
        st = {k: getattr(self, k).copy() for k in self._ARRAYS}
        st.update(cost=self.cost, best_cost=self.best_cost, window=list(self.window))
        return st

    def _load(self, st):
        # st holds the checked values only (the derived arrays are not read): copies, safe to keep.
        self.grid, self.best_grid, self.heat, self.last_swap = st["grid"], st["best_grid"], st["heat"], st["last_swap"]
        self.window = list(st["window"])

    def _derive(self):
        pz = self.puzzle
        geo = geometry(pz.n)
        self.units = np.array(geo.units, dtype=np.int64)
        self.cell_units = np.array(geo.cell_units, dtype=np.int64)
        self.fixed = pz.grid > 0
        self.free_in_box = np.full((pz.N, pz.N), -1, dtype=np.int64)
        self.n_free = np.zeros(pz.N, dtype=np.int64)
        for b in range(pz.N):
            free = [int(c) for c in self.units[2 * pz.N + b] if pz.grid[c] == 0]
            self.free_in_box[b, : len(free)] = free
            self.n_free[b] = len(free)
        self.cost = int(missing_symbols(self.grid, pz.n))
        self.best_cost = int(missing_symbols(self.best_grid, pz.n))

    def _check_loaded(self):
        # A state the descent could have produced: givens in place, every box a permutation.
        for name in ("grid", "best_grid"):
            require_givens(getattr(self, name), self.puzzle, f"state.algorithm.{name}")
            require_box_permutations(getattr(self, name), self.puzzle, f"state.algorithm.{name}")


from . import extras  # noqa: E402,F401  the benchmark and the reproduction register on import
