"""``sudoku-lab solve``: the exact solver or a metaheuristic on each puzzle of an argument."""

from __future__ import annotations

import argparse
import sys
import time

from .._checks import checked
from ..engine._progress import RunProgress, interruptible
from ..errors import EXIT_USAGE, ParameterError, PuzzleError
from ..model.resolve import resolve_puzzles
from ..solvers.base import DEFAULT_SEED
from ._console import add_solver_params, comment as _comment, print_puzzle as _print_puzzle, seed_option, solver_params

__all__ = ["add_cli", "cmd_solve"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab solve`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    s = sub.add_parser(
        "solve",
        help="solve with the exact solver or a metaheuristic",
        description="Solve PUZZLE. --exact (the default) prints the exact solver's solution; "
        "--algo NAME runs a metaheuristic with progress on stderr (Ctrl-C stops it and prints "
        "the best grid so far).",
    )
    s.add_argument("puzzle", help="file, '-' for stdin, bundled puzzle or collection name, or puzzle text")
    s.add_argument("--exact", action="store_true", help="use the exact solver (default without --algo)")
    s.add_argument("--algo", default=None, help="algorithm (see `sudoku-lab algorithms`)")
    s.add_argument(
        "--seed",
        type=seed_option,
        default=DEFAULT_SEED,
        help=f"random seed, a non-negative integer (default {DEFAULT_SEED}, as in the lab window)",
    )
    s.add_argument(
        "--until",
        default="solved,1000000it",
        help="stopping rule: solved, 500 (iterations), 30s, 2m, 1e5evals; comma = first that holds "
        "(default solved,1000000it)",
    )
    s.add_argument(
        "--format",
        default="grid",
        choices=("grid", "line", "numbers", "kennett", "sdk"),
        help="output format (default grid)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress output")
    s.add_argument("--verbose", action="store_true", help="name and time every solution")
    add_solver_params(s, algo)
    s.set_defaults(func=cmd_solve)


@checked
def cmd_solve(args: argparse.Namespace) -> int:
    if args.exact and args.algo not in (None, "exact"):
        raise ParameterError(f"choose --exact or --algo {args.algo}, not both", name="algo")
    algo = "exact" if args.exact or args.algo is None else args.algo
    params = solver_params(algo, args)  # before reading a million puzzles: --alpha without --algo is refused
    from ..stepping import loop

    termination = loop.parse_until(args.until)
    puzzles = resolve_puzzles(args.puzzle)
    if algo == "exact":
        return _solve_exact(puzzles, args)
    return _solve_meta(puzzles, algo, params, termination, args)


def _solve_exact(puzzles, args) -> int:
    import itertools

    from .. import exact
    from ..model.puzzle import Puzzle
    from ..stepping.warmup import warm_once

    head = list(itertools.islice(puzzles, 1))
    try:
        head += itertools.islice(puzzles, 1)  # one puzzle prints bare; several get a comment each
        bad = None
    except PuzzleError as e:  # a bad second puzzle: the first is still solved and printed, then the error
        bad = e
    many = len(head) > 1 or bad is not None
    warm_once(["exact"])  # the exact search only, before the first time printed
    status = 0
    printed = 0
    for p in itertools.chain(head, puzzles if bad is None else ()):
        p.check_clashes()
        t = time.perf_counter()
        sol = exact.solve(p)
        dt = time.perf_counter() - t
        if sol is None:
            print(f"sudoku-lab: error: {p.name or 'puzzle'}: the puzzle has no solution", file=sys.stderr)
            status = EXIT_USAGE
            continue
        if many or args.verbose:
            _comment(f"# {p.name or 'puzzle'} ({dt * 1000:.2f} ms)")
        _print_puzzle(Puzzle(sol, n=p.n, name=p.name), args.format, first=printed == 0)
        printed += 1
    if bad is not None:
        raise bad
    return status


def _solve_meta(puzzles, algo, params, termination, args) -> int:
    import itertools

    from ..model.puzzle import Puzzle
    from ..solvers import create
    from ..stepping import loop
    from ..stepping.warmup import warm_once

    solver = create(algo, **params)
    cls = type(solver)
    status = 0
    intr = interruptible()
    first = list(itertools.islice(puzzles, 1))  # a mistyped name is refused before a cold start compiles
    warm_once([algo])  # before reset, which would compile silently, and before the run's clock
    for k, p in enumerate(itertools.chain(first, puzzles)):
        solver.reset(p, seed=args.seed)
        printer = RunProgress(enabled=not args.quiet, what=cls.iteration_name)
        with intr as stop:
            last = None
            for last in loop.iterate(solver, termination, min_interval=0.25, should_stop=stop.is_set):
                printer.update(last)
        printer.close()
        assert last is not None  # iterate yields at least the final progress
        snap = last.snapshot
        label = p.name or "puzzle"
        verdict = "solved" if snap.solved else f"not solved ({last.reason}), best cost {snap.best_cost}"
        _comment(
            f"# {label}: {cls.name} seed {args.seed}: {verdict} after {snap.iteration} {cls.iteration_name}s, "
            f"{snap.evaluations} evaluations, {last.elapsed:.3f} s"
        )
        grid = snap.grid if snap.solved else snap.best_grid
        _print_puzzle(Puzzle(grid, n=p.n, name=p.name), args.format, first=k == 0)
        if last.reason == "cancelled":
            return intr.exit_status
        if not snap.solved:
            status = 1
    return status
