"""``sudoku-lab``: the headless commands (``python -m sudoku_lab`` runs the same).

``sudoku-lab`` with no sub-command opens the Qt lab; that is decided in
``ui/launch.py`` through :func:`wants_gui`, so this module never imports Qt.
Every user error becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import __version__
from ._checks import checked
from ._console import (
    ProgressBar,
    RunProgress,
    add_solver_params,
    algo_in_argv,
    int_option,
    interruptible,
    resolve_puzzle,
    resolve_puzzles,
    seed_option,
    solver_params,
)
from .errors import ParameterError, PuzzleError, SudokuLabError

__all__ = ["main", "build_parser", "wants_gui", "gui_options", "resolve_puzzles", "resolve_puzzle"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70  #: a bug (EX_SOFTWARE): one line and a crash report

#: Formats whose puzzles a collection separates by a blank line (as ``collection_io.format_collection`` writes them).
_BLOCK_FORMATS = ("grid", "numbers", "sdk")


def _comment(text: str) -> None:
    """A line about the data (a name, a time, a verdict): on stderr, so stdout holds only the data and can be piped.

    Standard output is flushed first, so a terminal (or ``2>&1``) still shows each line next to its puzzle.
    """
    sys.stdout.flush()
    print(text, file=sys.stderr, flush=True)


def _print_puzzle(puzzle, fmt: str, first: bool) -> None:
    """One puzzle of a collection on stdout, in ``fmt``, so that ``sudoku-lab check -`` reads the whole output back."""
    if not first and fmt in _BLOCK_FORMATS:
        print()
    print(puzzle.format(fmt))


class _Formatter(argparse.HelpFormatter):
    """Help text wrapped at spaces only: names such as ``reseda-table1`` or ``partial+full`` stay whole."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line, like every other error, and wraps help at spaces."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fail(msg: str) -> int:
    print(f"sudoku-lab: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


# --------------------------------------------------------------- commands
def cmd_check(args) -> int:
    import itertools

    from .ac3 import ac3
    from .warmup import warm_once

    status = 0
    puzzles = resolve_puzzles(args.puzzle)
    first = list(itertools.islice(puzzles, 1))  # a mistyped name is refused before a cold start compiles
    warm_once()  # the exact search and AC3: "compiling kernels, once" rather than silence on a cold cache
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


def cmd_solve(args) -> int:
    if args.exact and args.algo not in (None, "exact"):
        raise ParameterError(f"choose --exact or --algo {args.algo}, not both", name="algo")
    algo = "exact" if args.exact or args.algo is None else args.algo
    params = solver_params(algo, args)  # before reading a million puzzles: --alpha without --algo is refused
    from . import loop

    termination = loop.parse_until(args.until)
    puzzles = resolve_puzzles(args.puzzle)
    if algo == "exact":
        return _solve_exact(puzzles, args)
    return _solve_meta(puzzles, algo, params, termination, args)


def _solve_exact(puzzles, args) -> int:
    import itertools

    from . import exact
    from .puzzle import Puzzle
    from .warmup import warm_once

    head = list(itertools.islice(puzzles, 2))  # one puzzle prints bare; several get a comment each
    many = len(head) > 1
    warm_once()  # before the first time printed
    status = 0
    printed = 0
    for p in itertools.chain(head, puzzles):
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
    return status


def _solve_meta(puzzles, algo, params, termination, args) -> int:
    import itertools

    from . import loop
    from .puzzle import Puzzle
    from .solvers import create
    from .warmup import warm_once

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


def cmd_library(args) -> int:
    from . import library

    if args.collection is None:
        cols = library.collections()
        _print_table(
            ["collection", "puzzles", "size", "description"],
            [[c.name, str(c.count), ", ".join(f"{n}x{n}" for n in c.sizes), c.title] for c in cols],
            right={1},
        )
        _comment(f"\nDefault puzzle: {library.DEFAULT_PUZZLE}. Show one collection with: sudoku-lab library NAME")
        return 0
    puzzles = (
        library.collection(args.collection) if ":" not in args.collection else [library.puzzle(args.collection)]
    )  # errors name the collection, the index and the range
    if args.show:
        for k, p in enumerate(puzzles):
            _comment(f"# {p.name}")
            _print_puzzle(p, args.format, first=k == 0)
        return 0
    # The source's level and qqwing's rating are different things (qqwing rates the RESEDA paper's hard
    # puzzle "simple"): each gets its own column, named, and only where the collection has it.
    level = [p.metadata.get("level") or p.metadata.get("label") or "" for p in puzzles]
    rating = [p.metadata.get("qqwing_difficulty") or "" for p in puzzles]
    lines = any(p.N <= 9 for p in puzzles)  # larger puzzles do not fit on a line of a table
    header = ["name", "givens"] + ["level"] * any(level) + ["qqwing rating"] * any(rating) + ["puzzle"] * lines
    rows = [
        [p.name or "", str(p.n_givens)]
        + [lv] * any(level)
        + [r] * any(rating)
        + [p.to_line() if p.N <= 9 else ""] * lines
        for p, lv, r in zip(puzzles, level, rating)
    ]
    _print_table(header, rows, right={1})
    if any(rating):
        _comment(
            "qqwing rating: the difficulty Debian's qqwing gives the puzzle (from the techniques its solver "
            "needs), computed when the collection was bundled; not the source's own level."
        )
    return 0


def _print_table(header: list, rows: list, right=frozenset()) -> None:
    """A plain-text table on stdout, each column as wide as its widest cell (columns in ``right`` right-aligned)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        cells = [f"{c:>{w}}" if i in right else f"{c:<{w}}" for i, (c, w) in enumerate(zip(r, widths))]
        print("  ".join(cells).rstrip())


def cmd_generate(args) -> int:
    from .collection_io import format_collection
    from .generate import GenerationStopped, generate, parse_time_limit

    limit = parse_time_limit(args.time_limit)
    intr = interruptible()
    bar = ProgressBar(enabled=not args.quiet, unit="puzzles", label="generating") if args.count > 1 else None
    status = 0
    with intr as stop:
        for k in range(args.count):
            report = None if args.quiet else _GenerateReport(k, args.count)
            try:
                p = generate(
                    args.box,
                    args.clues,
                    seed=args.seed + k,
                    symmetry=args.symmetry,
                    time_limit=limit,
                    should_stop=stop.is_set,
                    progress=report,
                )
            except GenerationStopped as e:
                if report:
                    report.close()
                print(f"sudoku-lab: interrupted: {e}", file=sys.stderr)
                status = intr.exit_status
                break
            if report:
                report.close()
            # Printed as each puzzle is made, so an interrupted batch keeps what it finished.
            if args.format == "csv":
                text = format_collection([p], "csv")  # a header line, then the puzzle's row
                print(text if k == 0 else text.split("\n", 1)[1], end="")
            else:
                _print_puzzle(p, args.format, first=k == 0)
            sys.stdout.flush()
            if bar:
                bar.update(k + 1, args.count)
    if bar:
        bar.close()
    return status


class _GenerateReport:
    """Progress of one generation on stderr, shown only once it has taken more than a second."""

    def __init__(self, k: int, count: int):
        self.label = f"puzzle {k + 1} of {count}: " if count > 1 else ""
        self.shown = False
        self.t0 = self.last = time.perf_counter()
        self.printer = RunProgress(enabled=True)

    def __call__(self, tries: int, max_tries: int, givens: int, target: int, fewest: int) -> None:
        now = time.perf_counter()
        if now - self.t0 < 1.0 or (not self.printer.tty and now - self.last < 5.0):
            return
        self.shown = True
        self.last = now
        line = (
            f"{self.label}try {tries} of {max_tries}, {givens} givens left (target {target}, fewest so far "
            f"{fewest}), {time.perf_counter() - self.t0:.0f} s"
        )
        self.printer.line(line)

    def close(self) -> None:
        if self.shown:
            self.printer.close()


def cmd_bench(args) -> int:
    from . import bench

    return bench.main(args)


# ------------------------------------------------------------------ parser
@checked
def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    from .solvers.base import DEFAULT_SEED

    algo = algo_in_argv(argv)
    p = _Parser(
        prog="sudoku-lab",
        description="Sudoku Lab: study how stochastic search solves Sudoku. With no command, opens the lab window.",
    )
    p.add_argument("--version", action="version", version=f"sudoku-lab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    g = sub.add_parser(
        "gui",
        help="open the lab window (the default with no command)",
        description="Open the lab window on PUZZLE (default: the RESEDA paper's hard puzzle) with "
        "--algo selected. Needs a display; without one it says so and exits with status 2.",
    )
    g.add_argument("puzzle", nargs="?", help="puzzle to open (file, bundled name or text)")
    g.add_argument("--algo", default=None, help="algorithm to select (see `sudoku-lab algorithms`)")

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

    a = sub.add_parser(
        "algorithms",
        help="list the algorithms and their parameters",
        description="List the algorithms with their parameters (default and range); with ALGO, "
        "also what each parameter means and where the paper defines it.",
    )
    a.add_argument("algo", nargs="?", help="show one algorithm in detail")
    a.set_defaults(func=cmd_algorithms)

    lib = sub.add_parser(
        "library",
        help="list the bundled collections, or the puzzles of one",
        description="Without COLLECTION, list the bundled collections. With one (e.g. "
        "kennett/fiendish), list its puzzles; a puzzle is named by its name or "
        "COLLECTION:K.",
    )
    lib.add_argument("collection", nargs="?", help="collection (or COLLECTION:K for one puzzle)")
    lib.add_argument("--show", action="store_true", help="print the puzzles themselves")
    lib.add_argument(
        "--format",
        default="grid",
        choices=("grid", "line", "numbers", "kennett", "sdk"),
        help="how --show prints each puzzle (default grid)",
    )
    lib.set_defaults(func=cmd_library)

    gen = sub.add_parser(
        "generate",
        help="generate puzzles with a unique solution",
        description="Generate puzzles of box size --box (2: 4x4 .. 5: 25x25) with --clues "
        "givens and a unique solution, reproducibly from --seed.",
    )
    gen.add_argument("--box", type=int, default=3, choices=(2, 3, 4, 5), help="box size n (grid n^2 x n^2)")
    gen.add_argument("--clues", type=int_option(0, 625), required=True, help="number of givens to keep")
    gen.add_argument(
        "--seed",
        type=seed_option,
        default=DEFAULT_SEED,
        help=f"random seed (puzzle k uses seed+k; default {DEFAULT_SEED})",
    )
    gen.add_argument("--count", type=int_option(1, 1_000_000), default=1, help="how many puzzles (default 1)")
    gen.add_argument(
        "--symmetry",
        default="none",
        choices=("none", "rotate180"),
        help="rotate180: a clue pattern symmetric under a half turn (default none)",
    )
    gen.add_argument(
        "--format",
        default="line",
        choices=("line", "grid", "numbers", "kennett", "sdk", "csv"),
        help="output format (default line)",
    )
    gen.add_argument(
        "--time-limit", default="2m", help="give up on one puzzle after this long, e.g. 30s, 5m, or 'none' (default 2m)"
    )
    gen.add_argument("--quiet", action="store_true", help="no progress output")
    gen.set_defaults(func=cmd_generate)

    from . import bench

    b = sub.add_parser(
        "bench",
        help="benchmarks: ratios of ways measured side by side in one run",
        description="Benchmarks, one per sub-command (built-in or added by a plugin). Each times "
        "the ways it compares side by side in one process and prints their ratios, which survive "
        "a noisy machine; absolute times, where printed, are for this machine only and say so.",
    )
    bench.add_arguments(b)
    b.set_defaults(func=cmd_bench)

    if _command_in_argv(argv) not in _CORE_COMMANDS:  # a core command needs none of the experiment modules
        _add_experiment_commands(sub, algo)
    return p


#: The commands defined in this module: a command line naming one builds only these, so ``solve`` does not
#: import the experiment modules (batch, report, reproduce...) just to list commands it never runs.
_CORE_COMMANDS = frozenset({"gui", "check", "solve", "algorithms", "library", "generate", "bench"})


def _command_in_argv(argv: Sequence[str] | None) -> str | None:
    """The sub-command a command line names (its first word that is not an option), if any."""
    return next((a for a in argv or () if not a.startswith("-")), None)


def _add_experiment_commands(sub, algo) -> None:
    """Commands defined next to the code they run (batch, grades, reproduce, compare, report).

    Their modules import scipy, pyarrow, matplotlib or Dask only inside the functions that use them, so
    building the parser stays cheap even when these are added.
    """
    from . import batch, compare, grades, report, reproduce

    batch.add_cli(sub)
    grades.add_cli(sub, lambda parser: add_solver_params(parser, algo or "reseda"))
    reproduce.add_cli(sub)
    compare.add_cli(sub)
    report.add_cli(sub)


def cmd_algorithms(args) -> int:
    from .citations import DOC, doc_file
    from .solvers import get_solver_class, registry

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


# ------------------------------------------------------------------- entry
@checked
def wants_gui(argv: Sequence[str]) -> bool:
    """True when the arguments ask for the window: none at all, or ``gui``."""
    return len(argv) == 0 or argv[0] == "gui"


@checked
def gui_options(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``gui`` options (defaults when the argument list is empty)."""
    args = build_parser().parse_args(argv if argv else ["gui"])
    return args


@checked
def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status: 0, 1 (not solved), 2 (bad input), 70 (a bug), 128+signal."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # answered before the parser imports the solvers (and numba)
        print(f"sudoku-lab {__version__}")
        return 0
    try:
        parser = build_parser(argv)
        if not argv:
            parser.print_help()
            print("\nRun `sudoku-lab` (the installed command) with no arguments to open the lab window.")
            return 0
        args = parser.parse_args(argv)
        if args.command == "gui":
            return _fail("the lab window is opened by the `sudoku-lab` command, not `python -m sudoku_lab`")
        from .warmup import quiet_compiling

        was = quiet_compiling(bool(getattr(args, "quiet", False)))  # --quiet: no progress at all, compiling included
        try:
            return args.func(args)
        finally:
            quiet_compiling(was)
    except SudokuLabError as e:
        return _fail(str(e))
    except OSError as e:  # a file operation no command anticipated: still one line, naming the file
        if isinstance(e, BrokenPipeError):
            return _quiet_broken_pipe()
        from ._files import os_reason

        where = f" {e.filename}" if e.filename else ""
        return _fail(f"cannot use{where}: {os_reason(e)}")
    except KeyboardInterrupt:
        print("sudoku-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        return _fail("out of memory; try fewer runs or puzzles at a time")
    except Exception as e:  # a bug: one line and a report, never a traceback
        from ._crash import internal_error_message

        print(f"sudoku-lab: {internal_error_message(e, 'sudoku-lab ' + ' '.join(argv))}", file=sys.stderr)
        return EXIT_INTERNAL


def _quiet_broken_pipe() -> int:
    """``sudoku-lab ... | head``: stop quietly (and keep Python from complaining while it exits)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 0
