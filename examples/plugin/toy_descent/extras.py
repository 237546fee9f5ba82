"""The plugin's benchmark and reproduction, registered through Sudoku Lab's public registries."""

from __future__ import annotations

import time

import numpy as np

from sudoku_lab import library
from sudoku_lab.benchmarks import register_benchmark
from sudoku_lab.solvers import create


def _python_steps(grid, free_in_box, n_free, units, N, uniforms):
    """One pure-Python swap descent (temperature 0), the kernel's straightforward twin."""
    def cost(g):
        return sum(N - len({int(d) for d in g[u] if d > 0}) for u in units)

    current = cost(grid)
    for r in uniforms:
        b = int(r[0] * N)
        m = n_free[b]
        if m < 2 or current == 0:
            continue
        ia = int(r[1] * m)
        ib = int(r[2] * (m - 1))
        ib += ib >= ia
        a, c = free_in_box[b, ia], free_in_box[b, ib]
        grid[a], grid[c] = grid[c], grid[a]
        new = cost(grid)
        if new <= current:
            current = new
        else:
            grid[a], grid[c] = grid[c], grid[a]
    return current


def _add_arguments(parser):
    parser.add_argument("--steps", type=int, default=2000, help="swaps per measurement (default 2000)")


def _run(args, out):
    pz = library.puzzle("reseda_fig4_1_hard")
    solver = create("toy-descent")
    solver.reset(pz, seed=1)
    solver.step(1)  # compile outside the measurement
    t = time.perf_counter()
    done = solver.step(args.steps)
    kernel = (time.perf_counter() - t) / max(done, 1)
    solver.reset(pz, seed=1)
    uniforms = np.random.default_rng(1).random((args.steps, 4))
    t = time.perf_counter()
    _python_steps(solver.grid.copy(), solver.free_in_box, solver.n_free, solver.units, pz.N, uniforms)
    python = (time.perf_counter() - t) / args.steps
    out(f"toy-descent: kernel {1 / kernel:,.0f} swaps/s, pure Python {1 / python:,.0f} swaps/s: "
        f"ratio {python / kernel:.1f}x (measured side by side in this run)")
    return 0


register_benchmark("toy-descent", help="the plugin example's kernel vs pure Python, swaps per second",
                   add_arguments=_add_arguments, run=_run, solver="toy-descent")
