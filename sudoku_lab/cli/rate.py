"""``sudoku-lab rate``: solve puzzles by human techniques, grade them as HoDoKu does, compare with qqwing."""

from __future__ import annotations

import argparse
import json
import sys

from .._checks import checked
from ..errors import EXIT_USAGE, DataFileError, ParameterError, PuzzleError

__all__ = ["add_cli", "cmd_rate"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab rate`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    r = sub.add_parser(
        "rate",
        help="difficulty by human techniques (HoDoKu's grades), with the solving path in words",
        description="Solve each puzzle by human techniques (singles, locked candidates, subsets, X-wing, "
        "swordfish, XY-wing, simple colouring, then trial and error) and grade it as HoDoKu does: easy, "
        "medium, hard, unfair or extreme. One puzzle: its grade and the path in words. Several: a table. "
        "--qqwing: compare with qqwing's classes, each PUZZLE argument a group (e.g. the Kennett levels). "
        "--grades: correlate the correctness grades of saved runs with each cell's technique level.",
    )
    r.add_argument(
        "puzzle",
        nargs="*",
        help="files, '-' for stdin, bundled puzzle or collection names, or puzzle text",
    )
    r.add_argument("--json", action="store_true", help="print JSON (one object per puzzle, a list for several)")
    r.add_argument("--steps", action="store_true", help="print the path of every puzzle, also for several")
    r.add_argument(
        "--qqwing",
        action="store_true",
        help="agreement table with qqwing's classes (simple, easy, intermediate, expert), one row per PUZZLE",
    )
    r.add_argument(
        "--grades",
        nargs="+",
        default=None,
        metavar="GRADES_JSON",
        help="grades files written by `sudoku-lab grades` (.grades.json): Spearman's rho between each cell's "
        "fraction of correct runs and its technique level, per puzzle and pooled",
    )
    r.add_argument(
        "--figure",
        default=None,
        metavar="OUT",
        help="with one --grades file: draw its grade grid with each cell coloured by its technique (.png/.svg/.pdf)",
    )
    r.set_defaults(func=cmd_rate)


def _label(arg: str, name: str | None, k: int) -> str:
    return name or (arg if len(arg) < 30 else f"puzzle {k + 1}")


@checked
def cmd_rate(args: argparse.Namespace) -> int:
    from ..exact.human import rate
    from ..model.resolve import resolve_puzzles
    from ._console import print_table

    if args.figure is not None and (args.grades is None or len(args.grades) != 1):
        raise ParameterError("--figure draws the grades of one --grades file", name="figure")
    if args.grades is not None:
        if args.puzzle or args.qqwing:
            raise ParameterError("--grades reads the puzzles from the grades files; give no PUZZLE", name="grades")
        return _correlation(args)
    if not args.puzzle:
        raise ParameterError("name at least one puzzle, file or collection to rate", name="puzzle")
    if args.qqwing:
        return _qqwing(args)
    status = 0
    rated = []
    for arg in args.puzzle:
        # Each argument on its own: one that names nothing, or a file with a bad puzzle, is one line on stderr
        # (and exit status 2), and every puzzle read before and after it is still rated and printed.
        try:
            for k, p in enumerate(resolve_puzzles(arg)):
                label = _label(arg, p.name, k)
                try:
                    rated.append((label, rate(p)))
                except PuzzleError as e:
                    print(f"sudoku-lab: error: {label}: {e}", file=sys.stderr)
                    status = EXIT_USAGE
        except (PuzzleError, DataFileError) as e:
            print(f"sudoku-lab: error: {e}", file=sys.stderr)
            status = EXIT_USAGE
    if not rated:
        return status
    # The form follows what was asked for, not what could be read: several arguments are a table (a JSON list)
    # even when only one of them was rated.
    one = len(rated) == 1 and len(args.puzzle) == 1
    if args.json:
        docs = [{"name": label, **r.to_dict()} for label, r in rated]
        print(json.dumps(docs[0] if one else docs, indent=1 if one else None))
        return status
    if one or args.steps:
        for label, r in rated:
            print(f"{label}: {r.grade} (score {r.score}; hardest technique: {r.hardest.name}; {len(r.steps)} steps)")
            for i, s in enumerate(r.steps, 1):
                print(f"{i:4d}. {s.text}")
        return status
    print_table(
        ["puzzle", "grade", "score", "hardest technique", "steps"],
        [[label, r.grade, str(r.score), r.hardest.name, str(len(r.steps))] for label, r in rated],
        right={2, 4},
    )
    return status


def _qqwing(args: argparse.Namespace) -> int:
    from ..analysis.difficulty import qqwing_agreement
    from ..model.resolve import resolve_puzzles
    from ._console import print_table

    groups = {arg.rstrip("/").rpartition("/")[2] or arg: list(resolve_puzzles(arg)) for arg in args.puzzle}
    table = qqwing_agreement(groups)
    if args.json:
        print(
            json.dumps(
                {
                    "header": table.header(),
                    "rows": table.rows(),
                    "spearman": table.spearman,
                    "spearman_p": table.spearman_p,
                    "kendall": table.kendall,
                    "kendall_p": table.kendall_p,
                    "ordering_agrees": table.ordering_agrees,
                }
            )
        )
        return 0
    print_table(table.header(), table.rows(), right=set(range(1, len(table.header()))))
    print(table.summary())
    return 0


def _correlation(args: argparse.Namespace) -> int:
    from ..analysis.difficulty import load_grade_fractions, technique_correlation
    from ..exact.human import rate
    from ._console import print_table

    loaded = [load_grade_fractions(path) for path in args.grades]
    if args.figure is not None:
        from ..analysis import figures
        from ..analysis.grades import grade_cells

        figures.check_figure_path(args.figure, 200)
    report = technique_correlation(
        [f for _, _, f in loaded],
        [rate(p).cell_rank for p, _, _ in loaded],
        [f"{p.name or 'puzzle'} ({solver})" for p, solver, _ in loaded],
    )
    if args.json:
        print(
            json.dumps(
                {
                    "puzzles": list(report.puzzles),
                    "rho": [None if x != x else x for x in report.rho.tolist()],
                    "p": [None if x != x else x for x in report.p.tolist()],
                    "cells": report.cells.tolist(),
                    "pooled_rho": report.pooled_rho,
                    "pooled_p": report.pooled_p,
                }
            )
        )
        return 0
    print_table(["puzzle", "free cells", "Spearman rho", "p"], report.rows(), right={1, 2, 3})
    if args.figure is not None:
        p, solver, f = loaded[0]
        fig = figures.grade_technique_figure(
            cell_technique=rate(p).cell_technique,
            grades=grade_cells(f, p.givens),
            givens=p.givens,
            digits=p.grid,
            fraction=f,
            title=f"{p.name or 'puzzle'}: {solver}, grades and techniques",
        )
        print(f"wrote {figures.save(fig, args.figure)}")
    return 0
