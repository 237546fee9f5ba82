"""``sudoku-lab check``: validate puzzles (givens, clashes, uniqueness) and say what AC3 removes."""

from __future__ import annotations

import argparse
import sys

from .._checks import checked
from ..errors import EXIT_USAGE, PuzzleError
from ..model.resolve import resolve_puzzles

__all__ = ["add_cli", "cmd_check"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab check`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    c = sub.add_parser(
        "check",
        help="validate puzzles: givens, clashes, uniqueness, AC3 reductions",
        description="Validate every puzzle of PUZZLE and report its givens, uniqueness and what "
        "AC3 removes on stdout; problems go to stderr, one line each, and make the exit status 2.",
    )
    c.add_argument("puzzle", help="file, '-' for stdin, bundled puzzle or collection name, or puzzle text")
    c.add_argument("--hidden-singles", action="store_true", help="let AC3 also use hidden singles (stronger)")
    c.add_argument("--no-unique", action="store_true", help="accept puzzles with several solutions")
    c.set_defaults(func=cmd_check)


@checked
def cmd_check(args: argparse.Namespace) -> int:
    import itertools

    from ..exact.ac3 import ac3
    from ..stepping.warmup import warm_once

    status = 0
    puzzles = resolve_puzzles(args.puzzle)
    first = list(itertools.islice(puzzles, 1))  # a mistyped name is refused before a cold start compiles
    warm_once(shared=True)  # the exact search and AC3: "compiling kernels, once" rather than silence on a cold cache
    for p in itertools.chain(first, puzzles):
        label = p.name or "puzzle"
        head = f"{label}: {p.N}x{p.N}, {p.n_givens} givens"
        try:
            p.check(unique=not args.no_unique)
        except PuzzleError as e:
            print(f"sudoku-lab: error: {label}: {e}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        res = ac3(p, hidden_singles=args.hidden_singles)
        uniq = "solution exists" if args.no_unique else "unique solution"
        print(f"{head}, {uniq}; {res.describe()}")
    return status
