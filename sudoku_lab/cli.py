"""``sudoku-lab``: the headless commands (``python -m sudoku_lab`` runs the same).

``sudoku-lab`` with no sub-command opens the Qt lab; that is decided in
``ui/launch.py`` through :func:`wants_gui`, so this module never imports Qt.
Every user error becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import __version__
from ._console import RunProgress, interruptible
from .errors import ParameterError, PuzzleError, SudokuLabError

__all__ = ["main", "build_parser", "wants_gui", "gui_options", "resolve_puzzles", "resolve_puzzle"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line, like every other error."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fail(msg: str) -> int:
    print(f"sudoku-lab: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


# ------------------------------------------------------------ puzzle input
def resolve_puzzles(arg: str) -> list:
    """Puzzles named by a command-line argument.

    In order: ``-`` (standard input), an existing file (every puzzle in it), a
    bundled collection (``kennett/fiendish``: all its puzzles), a bundled
    puzzle (``reseda_fig4_1_hard``, ``kennett/fiendish:3``), else the
    argument's own text as a puzzle (tried first when it is long enough to be
    one).

    Raises
    ------
    PuzzleError
        If none of these reads; the message is the most likely reading's.
    """
    from . import library
    from .puzzle import Puzzle, load_puzzles, parse_collection

    if arg == "-":
        return parse_collection(sys.stdin.read(), source="<stdin>")
    path = Path(arg)
    if path.is_file():
        return load_puzzles(path)
    if any(c.name == arg for c in library.collections()):
        return list(library.collection(arg))
    cells = sum(1 for ch in arg if ch.isalnum() or ch == ".")
    attempts = [lambda: [Puzzle.parse(arg)], lambda: [library.puzzle(arg)]]
    only_symbols = all(ch.isdigit() or ch in ".|+-, \n\t" for ch in arg)
    if cells < 16 and not only_symbols:  # short and wordy: a name (or a mistyped path) is more likely
        attempts.reverse()
    try:
        return attempts[0]()
    except PuzzleError as first:
        try:
            return attempts[1]()
        except PuzzleError:
            pass
        if path.suffix.lower() in (".txt", ".csv", ".sdk", ".ss", ".sdm") or "/" in arg and cells < 16:
            raise PuzzleError(f"no such file or bundled puzzle: {arg}", kind="empty") from None
        raise first from None


def resolve_puzzle(arg: str):
    """The single puzzle an argument names (the first, when it names several)."""
    return resolve_puzzles(arg)[0]


# --------------------------------------------------------------- commands
def cmd_check(args) -> int:
    from .ac3 import ac3

    status = 0
    for p in resolve_puzzles(args.puzzle):
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


def cmd_solve(args) -> int:
    puzzles = resolve_puzzles(args.puzzle)
    if args.algo in (None, "exact") or args.exact:
        return _solve_exact(puzzles, args)
    return _solve_meta(puzzles, args)


def _solve_exact(puzzles, args) -> int:
    from . import exact
    from .puzzle import Puzzle

    status = 0
    for p in puzzles:
        p.check_clashes()
        t = time.perf_counter()
        sol = exact.solve(p)
        dt = time.perf_counter() - t
        if sol is None:
            print(f"sudoku-lab: error: {p.name or 'puzzle'}: the puzzle has no solution", file=sys.stderr)
            status = EXIT_USAGE
            continue
        if len(puzzles) > 1 or args.verbose:
            print(f"# {p.name or 'puzzle'} ({dt * 1000:.2f} ms)")
        print(Puzzle(sol, n=p.n, name=p.name).format(args.format))
    return status


def _solver_params(cls, args) -> dict:
    """Values given on the command line for the solver's declared parameters."""
    out = {}
    for prm in cls.params:
        v = getattr(args, f"param_{prm.name}", None)
        if v is not None:
            out[prm.name] = v
    return out


def _solve_meta(puzzles, args) -> int:
    from . import loop
    from .puzzle import Puzzle
    from .solvers import get_solver_class

    cls = get_solver_class(args.algo)
    params = _solver_params(cls, args)
    solver = cls(**params)
    termination = loop.parse_until(args.until)
    status = 0
    for p in puzzles:
        solver.reset(p, seed=args.seed)
        printer = RunProgress(enabled=not args.quiet, what=cls.iteration_name)
        with interruptible() as stop:
            last = None
            for last in loop.iterate(solver, termination, min_interval=0.25, should_stop=stop.is_set):
                printer.update(last)
        printer.close()
        snap = last.snapshot
        label = p.name or "puzzle"
        verdict = "solved" if snap.solved else f"not solved ({last.reason}), best cost {snap.best_cost}"
        print(f"# {label}: {cls.name} seed {args.seed}: {verdict} after {snap.iteration} {cls.iteration_name}s, "
              f"{snap.evaluations} evaluations, {last.elapsed:.3f} s")
        grid = snap.grid if snap.solved else snap.best_grid
        print(Puzzle(grid, n=p.n, name=p.name).format(args.format))
        if last.reason == "cancelled":
            return EXIT_INTERRUPTED
        if not snap.solved:
            status = 1
    return status


def cmd_library(args) -> int:
    from . import library

    if args.collection is None:
        width = max(len(c.name) for c in library.collections())
        for c in library.collections():
            print(f"{c.name:<{width}}  {c.count:5d}  {c.size}x{c.size}  {c.title}")
        print(f"\nDefault puzzle: {library.DEFAULT_PUZZLE}. Show one collection with: sudoku-lab library NAME")
        return 0
    puzzles = library.collection(args.collection) if ":" not in args.collection else [
        library.puzzle(args.collection)]
    if args.show:
        for p in puzzles:
            print(f"# {p.name}")
            print(p.format(args.format))
        return 0
    for p in puzzles:
        meta = p.metadata
        level = meta.get("level") or meta.get("label") or meta.get("qqwing_difficulty") or ""
        print(f"{p.name:<28} {p.n_givens:4d} givens  {level:<12} {p.to_line() if p.N <= 9 else ''}")
    return 0


def cmd_generate(args) -> int:
    from .generate import generate
    from .puzzle import format_collection

    puzzles = []
    for k in range(args.count):
        seed = args.seed + k
        p = generate(args.box, args.clues, seed=seed, symmetry=args.symmetry)
        puzzles.append(p)
    if args.format in ("csv",):
        print(format_collection(puzzles, "csv"), end="")
    else:
        for p in puzzles:
            if len(puzzles) > 1 or args.format != "line":
                print(f"# {p.name}" if args.format not in ("kennett", "sdk") else "", end="\n" if
                      args.format not in ("kennett", "sdk") else "")
            print(p.format(args.format))
    return 0


def cmd_bench(args) -> int:
    from . import bench

    return bench.main(args)


# ------------------------------------------------------------------ parser
def _add_solver_params(parser) -> None:
    """One option per declared parameter of every registered solver."""
    from .solvers import registry

    seen = {}
    for cls in registry().values():
        for prm in cls.params:
            if prm.name in seen:
                seen[prm.name].append(cls.name)
                continue
            seen[prm.name] = [cls.name]
    group = parser.add_argument_group("algorithm parameters (see `sudoku-lab algorithms`)")
    for cls in registry().values():
        for prm in cls.params:
            dest = f"param_{prm.name}"
            if any(a.dest == dest for a in group._group_actions):
                continue
            flag = "--" + prm.name.replace("_", "-")
            owners = ", ".join(seen[prm.name])
            default = prm.default if not isinstance(prm.default, bool) else str(prm.default).lower()
            group.add_argument(flag, dest=dest, default=None, metavar=prm.kind.upper() if prm.kind != "choice"
                               else "{" + ",".join(prm.choices) + "}",
                               help=f"[{owners}] {prm.help} Default {default}; {prm.range_text()}.")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sudoku-lab", description="Sudoku Lab: study how stochastic search solves Sudoku. "
                "With no command, opens the lab window.")
    p.add_argument("--version", action="version", version=f"sudoku-lab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    g = sub.add_parser("gui", help="open the lab window (the default with no command)")
    g.add_argument("puzzle", nargs="?", help="puzzle to open (file, bundled name or text)")
    g.add_argument("--algo", default=None, help="algorithm to select")

    c = sub.add_parser("check", help="validate puzzles: givens, clashes, uniqueness, AC3 reductions",
                       description="Validate every puzzle of PUZZLE and report its givens, uniqueness and what "
                       "AC3 removes on stdout; problems go to stderr, one line each, and make the exit status 2.")
    c.add_argument("puzzle", help="file, '-' for stdin, bundled puzzle or collection name, or puzzle text")
    c.add_argument("--hidden-singles", action="store_true", help="let AC3 also use hidden singles (stronger)")
    c.add_argument("--no-unique", action="store_true", help="accept puzzles with several solutions")
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("solve", help="solve with the exact solver or a metaheuristic",
                       description="Solve PUZZLE. --exact (the default) prints the exact solver's solution; "
                       "--algo NAME runs a metaheuristic with progress on stderr (Ctrl-C stops it and prints "
                       "the best grid so far).")
    s.add_argument("puzzle", help="file, '-' for stdin, bundled puzzle or collection name, or puzzle text")
    s.add_argument("--exact", action="store_true", help="use the exact solver (default without --algo)")
    s.add_argument("--algo", default=None, help="algorithm (see `sudoku-lab algorithms`)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument("--until", default="solved,1000000it",
                   help="stopping rule: solved, 500 (iterations), 30s, 2m, 1e5evals; comma = first that holds "
                        "(default solved,1000000it)")
    s.add_argument("--format", default="grid", choices=("grid", "line", "numbers", "kennett", "sdk"),
                   help="output format (default grid)")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    s.add_argument("--verbose", action="store_true", help="name and time every solution")
    _add_solver_params(s)
    s.set_defaults(func=cmd_solve)

    a = sub.add_parser("algorithms", help="list the algorithms and their parameters")
    a.add_argument("algo", nargs="?", help="show one algorithm in detail")
    a.set_defaults(func=cmd_algorithms)

    lib = sub.add_parser("library", help="list the bundled collections, or the puzzles of one",
                         description="Without COLLECTION, list the bundled collections. With one (e.g. "
                         "kennett/fiendish), list its puzzles; a puzzle is named by its name or "
                         "COLLECTION:K.")
    lib.add_argument("collection", nargs="?", help="collection (or COLLECTION:K for one puzzle)")
    lib.add_argument("--show", action="store_true", help="print the puzzles themselves")
    lib.add_argument("--format", default="grid", choices=("grid", "line", "numbers", "kennett", "sdk"))
    lib.set_defaults(func=cmd_library)

    gen = sub.add_parser("generate", help="generate puzzles with a unique solution",
                         description="Generate puzzles of box size --box (2: 4x4 .. 5: 25x25) with --clues "
                         "givens and a unique solution, reproducibly from --seed.")
    gen.add_argument("--box", type=int, default=3, choices=(2, 3, 4, 5), help="box size n (grid n^2 x n^2)")
    gen.add_argument("--clues", type=int, required=True, help="number of givens to keep")
    gen.add_argument("--seed", type=int, default=0, help="random seed (puzzle k uses seed+k)")
    gen.add_argument("--count", type=int, default=1, help="how many puzzles")
    gen.add_argument("--symmetry", default="none", choices=("none", "rotate180"))
    gen.add_argument("--format", default="line", choices=("line", "grid", "numbers", "kennett", "sdk", "csv"))
    gen.set_defaults(func=cmd_generate)

    from . import bench

    b = sub.add_parser("bench", help="benchmarks printed as ratios measured side by side",
                       description="Benchmarks. Each prints ratios measured in one run (never absolute "
                       "targets on a noisy machine).")
    bench.add_arguments(b)
    b.set_defaults(func=cmd_bench)

    _add_experiment_commands(sub)
    return p


def _add_experiment_commands(sub) -> None:
    """Commands defined next to the code they run (grades, reproduce)."""
    from . import grades, reproduce

    grades.add_cli(sub, _add_solver_params)
    reproduce.add_cli(sub)


def cmd_algorithms(args) -> int:
    from .solvers import get_solver_class, registry

    classes = [get_solver_class(args.algo)] if args.algo else list(registry().values())
    for cls in classes:
        print(f"{cls.name}: {cls.title}. {cls.paper}")
        if args.algo:
            print(f"  {cls.description}")
        for prm in cls.params:
            print(f"  --{prm.name.replace('_', '-'):<14} default {str(prm.default):<14} {prm.range_text()}")
            if args.algo:
                print(f"      {prm.help}")
    return 0


# ------------------------------------------------------------------- entry
def wants_gui(argv) -> bool:
    """True when the arguments ask for the window: none at all, or ``gui``."""
    return len(argv) == 0 or argv[0] == "gui"


def gui_options(argv) -> argparse.Namespace:
    """Parse ``gui`` options (defaults when the argument list is empty)."""
    args = build_parser().parse_args(argv if argv else ["gui"])
    return args


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help()
        print("\nRun `sudoku-lab` (the installed command) with no arguments to open the lab window.")
        return 0
    args = parser.parse_args(argv)
    if args.command == "gui":
        return _fail("the lab window is opened by the `sudoku-lab` command, not `python -m sudoku_lab`")
    try:
        return args.func(args)
    except (SudokuLabError, ParameterError, PuzzleError) as e:
        return _fail(str(e))
    except FileNotFoundError as e:
        return _fail(f"{e.strerror}: {e.filename}")
    except KeyboardInterrupt:
        print("sudoku-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
