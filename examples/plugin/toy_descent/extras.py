"""The plugin's benchmark and reproduction, registered through Sudoku Lab's public registries."""

from __future__ import annotations

import time

import numpy as np

from sudoku_lab.benchmarks import BenchmarkOption, int_range, register_benchmark
from sudoku_lab.model import library
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
    out(
        f"toy-descent: kernel {1 / kernel:,.0f} swaps/s, pure Python {1 / python:,.0f} swaps/s: "
        f"ratio {python / kernel:.1f}x (measured side by side in this run)"
    )
    return 0


register_benchmark(
    "toy-descent",
    help="the plugin example's kernel vs pure Python, swaps per second",
    options=[
        BenchmarkOption("--steps", type=int_range(1, 10**7), default=2000, help="swaps per measurement (default 2000)")
    ],
    run=_run,
    solver="toy-descent",
)


# ------------------------------------------------------------------ reproduction
from sudoku_lab.engine.experiments import Task  # noqa: E402
from sudoku_lab.reproductions import COMPARISON_HEADER, Option, Paper, Report, register_paper, register_reproduction  # noqa: E402

register_paper(
    Paper(
        "toy-descent", "A. Example. Swap descent on Sudoku. Journal of Plugins 1, 2026", "Table 1 of the example paper"
    )
)


@register_reproduction(
    "toy-descent-table",
    paper="toy-descent",
    solver="toy-descent",
    title="easy puzzle solved by swap descent at temperature 0.5",
    options={"runs": Option(20, "seeded runs", low=1, high=1000)},
)
def toy_table(runner, runs):
    """The 'paper' reports 18 of 20 runs solved within 20,000 swaps."""
    pz = library.puzzle("reseda_fig3_1_easy")
    params = runner.p(temperature=0.5)
    tasks = [Task("toy-descent", params, pz, runner.seed + i, "solved,20000it", key=str(i)) for i in range(runs)]
    res = runner.run(tasks, "toy-descent")
    k = sum(r.solved for r in res)
    rep = Report("Example paper, Table 1: runs solved", ["puzzle", "paper", "ours", *COMPARISON_HEADER])
    rep.rows.append([pz.name, "18/20", f"{k}/{len(res)}", *rep.rate_cells(18, 20, k, len(res))])
    return rep
