"""``sudoku-lab algorithms``: the registered solvers, their parameters and where the papers define them."""

from __future__ import annotations

import argparse

from .._checks import checked

__all__ = ["add_cli", "cmd_algorithms"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab algorithms`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    a = sub.add_parser(
        "algorithms",
        help="list the algorithms and their parameters",
        description="List the algorithms with their parameters (default and range); with ALGO, "
        "also what each parameter means and where the paper defines it.",
    )
    a.add_argument("algo", nargs="?", help="show one algorithm in detail")
    a.set_defaults(func=cmd_algorithms)


@checked
def cmd_algorithms(args: argparse.Namespace) -> int:
    from ..citations import DOC, doc_file
    from ..solvers import get_solver_class, registry

    classes = [get_solver_class(args.algo)] if args.algo else list(registry().values())
    where = doc_file()
    if where is not None and any(c.reference.startswith(DOC) for c in classes):
        print(f"# {DOC} is installed at {where}")
    for cls in classes:
        print(f"{cls.name}: {cls.title}. {cls.paper}" + (f" (described in {cls.reference})" if cls.reference else ""))
        if args.algo:
            print(f"  {cls.description}")
            if cls.citation:
                print(f"  paper: {cls.citation}")
            print(
                f"  cost: {cls.objective.cost} (minimised, 0 iff solved)"
                + (
                    f"; the paper's objective: {cls.objective.native_label or cls.objective.native} "
                    f"({'maximised' if cls.objective.native_sense == 'max' else 'minimised'}, trace column "
                    f"{cls.objective.native!r})"
                    if cls.objective.native
                    else ""
                )
            )
        for prm in cls.params:
            print(f"  --{prm.name.replace('_', '-'):<14} default {str(prm.default):<14} {prm.range_text()}")
            if args.algo:
                print(f"      {prm.help}")
        if args.algo:
            print(f"  trace columns per {cls.iteration_name}:")
            for c in cls.columns:
                print(f"    {c.name:<14} {c.label}" + (f" [{c.unit}]" if c.unit else ""))
            if cls.layers:
                print("  snapshot layers:")
                for d in cls.layers:
                    print(f"    {d.name:<14} {d.describe()}")
    return 0
