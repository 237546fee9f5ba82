"""Reproduce Table 1 of the RESEDA paper: success rates on the easy puzzle for three variants and four alphas.

    python examples/reproduce_table_1.py               # 100 runs per cell, as in the paper
    python examples/reproduce_table_1.py --runs 10 --selection groups

Prints the paper's numbers next to ours with both exact binomial 95 % intervals,
Newcombe's interval for the difference, Fisher's exact test and a verdict
(the same as `sudoku-lab reproduce reseda-table1`).
"""

from __future__ import annotations

import argparse

from sudoku_lab.reproductions.runner import run_experiment


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--selection", choices=("sort", "groups"), default="sort")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    report = run_experiment("reseda-table1", runs=args.runs, jobs=args.jobs, params={"selection": args.selection})
    print(report.markdown())


if __name__ == "__main__":
    main()
