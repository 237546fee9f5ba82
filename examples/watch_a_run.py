"""Step RESEDA by hand through the Python API and watch its model converge (no GUI needed).

    python examples/watch_a_run.py
    python examples/watch_a_run.py --puzzle ai_escargot --steps 40

Prints, step by step, the best cost, rho (the stopping statistic) and the
restarts, then writes the probability model and the convergence curves.
"""

from __future__ import annotations

import argparse

from sudoku_lab.analysis import figures
from sudoku_lab.model import library
from sudoku_lab.solvers import create


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--puzzle", default="reseda_fig4_1_hard")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--out", default="watch", help="prefix of the two figure files (.png)")
    args = ap.parse_args(argv)

    solver = create("reseda", restart="partial+full", zones="diagonal")
    solver.reset(library.puzzle(args.puzzle), seed=args.seed)
    seen = 0
    for _ in range(args.steps):
        solver.step(1)
        snap = solver.snapshot()
        print(
            f"step {snap.iteration:3d}  best of step {snap.cost:3d}  rho {snap.layers['rho']:.2f}  "
            f"run {snap.layers['run'] + 1} ({snap.layers['zone_name'] or 'from the puzzle'})"
        )
        for ev in snap.events[seen:]:
            print("   ", ev.describe())
        seen = len(snap.events)
        if snap.done:
            print(f"finished: {snap.status}")
            break
    snap = solver.snapshot()
    figures.save(figures.probability_figure(snap.layers["prob"], snap.puzzle.n, snap.fixed), f"{args.out}-p.png")
    figures.save(figures.convergence_figure(snap), f"{args.out}-convergence.png")


if __name__ == "__main__":
    main()
