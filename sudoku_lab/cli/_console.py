"""Command-line option types and the options several commands share (the only argparse helpers), and how
the command line's text reaches the terminal (:func:`printable_output`)."""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .._checks import int_range
from ..engine._progress import note
from ..errors import printable

__all__ = [
    "add_where_options",
    "where_from_args",
    "int_option",
    "seed_option",
    "algo_in_argv",
    "add_solver_params",
    "solver_params",
    "printable_output",
]


# ------------------------------------------------------------ option types
def int_option(low: int, high: int | None = None):
    """An argparse ``type`` for an integer in ``[low, high]``: a bad value is one clear usage error.

    >>> int_option(1)("3")
    3
    """
    return argparse_type(int_range(low, high))


def argparse_type(parse: Callable[[str], object]) -> Callable[[str], object]:
    """``parse`` as an argparse ``type``: its ``ValueError`` message becomes the usage error, word for word."""

    def wrapped(text: str) -> object:
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    wrapped.__name__ = getattr(parse, "__name__", "value")
    return wrapped


#: Seeds: numpy takes any non-negative integer.
seed_option = int_option(0)


def add_where_options(parser, jobs_default: str) -> None:
    """``--jobs`` (worker processes; ``jobs_default`` says the default) and ``--scheduler`` (a Dask cluster)."""
    parser.add_argument(
        "--jobs",
        type=int_option(1),
        default=None,
        help=f"worker processes ({jobs_default}; capped at the CPUs available)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster: tcp://host:8786, or local:N to start N local worker processes",
    )


def where_from_args(args, default_jobs: int) -> tuple[int, str | None]:
    """``(jobs, scheduler)`` of :func:`add_where_options`' options, checked before anything runs.

    ``--jobs`` with ``--scheduler`` is refused, the address checked, and ``--jobs`` beyond the CPUs
    capped with a note.
    """
    from ..engine.experiments import effective_jobs
    from ..errors import ParameterError

    if args.scheduler:
        from ..engine.cluster import parse_scheduler

        if args.jobs is not None:
            raise ParameterError(
                "--jobs and --scheduler: choose worker processes on this machine or a Dask cluster, not both",
                name="jobs",
            )
        parse_scheduler(args.scheduler)
        return 1, args.scheduler
    jobs, capped = effective_jobs(args.jobs or default_jobs)
    if capped and args.jobs is not None:
        note(capped)
    return jobs, None


# ------------------------------------------------------------ solver parameters
def algo_in_argv(argv) -> str | None:
    """The value of ``--algo`` in a command line, if any (to show that solver's parameters in ``--help``)."""
    argv = list(argv or ())
    for i, a in enumerate(argv):
        if a == "--algo" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--algo="):
            return a.split("=", 1)[1]
    return None


def add_solver_params(parser, algo: str | None = None) -> None:
    """One option per parameter name of every registered solver; values are validated per solver.

    Two solvers may declare the same name with different types or meanings
    (NB-COIN's float ``k``, AC3-tabu's integer ``k``): the option takes text, and
    the chosen solver's own declaration checks it. ``--help`` describes the
    parameters of ``algo`` alone, in its words, when one is selected; otherwise
    every solver's own help under each option.
    """
    import argparse

    from ..solvers import get_solver_class, registry

    reg = registry()
    selected = None
    if algo is not None and algo in reg:
        selected = get_solver_class(algo)
    decls: dict[str, list] = {}
    for cls in reg.values():
        for prm in cls.params:
            decls.setdefault(prm.name, []).append((cls, prm))
    title = (
        f"{selected.name} parameters (other algorithms: `--algo NAME --help`)"
        if selected
        else "algorithm parameters (`--algo NAME --help` shows one algorithm's)"
    )
    group = parser.add_argument_group(title)
    for name, owners in decls.items():
        flag = "--" + name.replace("_", "-")
        mine = [(c, p) for c, p in owners if selected is None or c is selected]
        if not mine:
            group.add_argument(flag, dest=f"param_{name}", default=None, help=argparse.SUPPRESS)
            continue
        helps = []
        for cls, prm in mine:
            default = prm.default if not isinstance(prm.default, bool) else str(prm.default).lower()
            text = f"{prm.help} Default {default}; {prm.range_text()}."
            helps.append(text if selected else f"[{cls.name}] {text}")
        kinds = {p.kind for _, p in mine}
        prm = mine[0][1]
        metavar = (
            "{" + ",".join(prm.choices) + "}"
            if kinds == {"choice"} and len(mine) == 1
            else prm.kind.upper()
            if len(kinds) == 1
            else "VALUE"
        )
        group.add_argument(
            flag, dest=f"param_{name}", default=None, metavar=metavar, help=" ".join(helps).replace("%", "%%")
        )


def solver_params(algo: str, args) -> dict:
    """The parameters given on the command line for ``algo``; an option of another solver is an error.

    Raises
    ------
    ParameterError
        An option that ``algo`` does not declare (``solve --alpha 2`` without
        ``--algo reseda`` must not be silently ignored), or a bad value.
    """
    from ..errors import ParameterError
    from ..solvers import get_solver_class, registry

    cls = get_solver_class(algo)
    declared = {p.name for p in cls.params}
    out = {}
    for name, value in vars(args).items():
        if not name.startswith("param_") or value is None:
            continue
        prm = name[len("param_") :]
        if prm not in declared:
            flag = "--" + prm.replace("_", "-")
            owners = [c.name for c in registry().values() if prm in {p.name for p in c.params}]
            raise ParameterError(
                f"{flag} is not a parameter of {algo} (it belongs to {', '.join(owners)}); "
                f"choose that algorithm with --algo {owners[0]}",
                name=prm,
            )
        out[prm] = value
    checked = cls.full_params(out)  # values and the rules between parameters
    return {name: checked[name] for name in out}


# ------------------------------------------------------------ output
class PrintableStream:
    """A text stream writing to ``stream`` with control characters escaped (:func:`sudoku_lab.errors.printable`).

    Newlines are kept; a carriage return only as the first character of a
    write, where the progress lines put theirs to redraw themselves. Everything
    else (an escape sequence in a puzzle's name, a tab or a carriage return in
    a results column, a bidirectional override in a parameter's text) is shown
    escaped. Binary output goes to ``stream.buffer``, untouched.
    """

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        if text[:1] == "\r":
            self._stream.write("\r" + printable(text[1:], keep="\n"))
        else:
            self._stream.write(printable(text, keep="\n"))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, buffer, encoding, ...: the stream's own
        return getattr(self._stream, name)


def _terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def printable_output() -> Iterator[None]:
    """While a command runs, what it writes to standard error, and to standard output when that is a terminal,
    goes through :class:`PrintableStream`.

    Error messages are escaped by the errors themselves (:class:`~sudoku_lab.errors.SudokuLabError`); this
    covers every other line a command prints: the puzzle names, tables, notes and progress that quote what
    a file held. Standard output to a file or a pipe is data and is left exactly as the command wrote it.
    """
    out, err = sys.stdout, sys.stderr
    if err is not None:
        sys.stderr = PrintableStream(err)  # a text stream in all but name: write, and the stream's own rest
    if out is not None and _terminal(out):
        sys.stdout = PrintableStream(out)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


#: Formats whose puzzles a collection separates by a blank line (as ``collections.format_collection`` writes them).
_BLOCK_FORMATS = ("grid", "numbers", "sdk")


def comment(text: str) -> None:
    """A line about the data (a name, a time, a verdict): on stderr, so stdout holds only the data and can be piped.

    Standard output is flushed first, so a terminal (or ``2>&1``) still shows each line next to its puzzle.
    """
    sys.stdout.flush()
    print(text, file=sys.stderr, flush=True)


def print_puzzle(puzzle, fmt: str, first: bool) -> None:
    """One puzzle of a collection on stdout, in ``fmt``, so that ``sudoku-lab check -`` reads the whole output back."""
    if not first and fmt in _BLOCK_FORMATS:
        print()
    print(puzzle.format(fmt))


def print_table(header: list, rows: list, right=frozenset()) -> None:
    """A plain-text table on stdout, each column as wide as its widest cell (columns in ``right`` right-aligned)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        cells = [f"{c:>{w}}" if i in right else f"{c:<{w}}" for i, (c, w) in enumerate(zip(r, widths))]
        print("  ".join(cells).rstrip())
