"""Export the RESEDA paper's Figure 4.2: per-cell correctness grades over 100 runs, next to the paper's.

    python examples/export_figure_4_2.py                    # 100 runs, writes figure_4_2.pdf/.csv/.json/.tex
    python examples/export_figure_4_2.py --runs 20 --out /tmp/f42.png

The basic EDA (no restart) runs on the paper's hard puzzle (Figure 4.1); each
cell is graded A (right in every run), B (right in at least 90 %) or blank.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sudoku_lab.analysis import figures
from sudoku_lab.analysis.grades import agreement, correctness_grades
from sudoku_lab.model import library


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--out", default="figure_4_2.pdf", help=".pdf, .svg or .png")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)

    puzzle = library.puzzle("reseda_fig4_1_hard")
    result = correctness_grades(puzzle, "reseda", {"restart": "none"}, runs=args.runs, jobs=args.jobs)
    paper = library.reseda_fig4_2_grades()

    out = Path(args.out)
    figures.save(figures.grade_figure(result, reference=paper), out)
    result.save_csv(out.with_suffix(".csv"))
    result.save_json(out.with_suffix(".json"))
    out.with_suffix(".tex").write_text(result.to_latex(caption=result.summary()))
    print(result.summary())
    print(f"{100 * agreement(result.grade_grid(), paper):.0f} % of cells have the paper's grade; wrote {out}")


if __name__ == "__main__":
    main()
