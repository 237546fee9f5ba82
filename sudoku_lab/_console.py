"""Terminal helpers shared by the commands: Ctrl-C as a stop flag, progress output on stderr."""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Callable

from ._checks import checked

__all__ = [
    "interruptible",
    "ProgressBar",
    "duration_text",
    "note",
    "add_where_options",
    "where_from_args",
    "RunProgress",
    "ReadProgress",
    "int_option",
    "seed_option",
    "resolve_puzzles",
    "resolve_puzzle",
    "add_solver_params",
    "solver_params",
]


class interruptible:
    """Context manager turning Ctrl-C, SIGTERM and SIGHUP into an Event the work polls, so it ends cleanly.

    The first signal sets the event (and prints ``message``, if given): the
    work stops at its next check and keeps every finished result. A second
    Ctrl-C raises KeyboardInterrupt at once. ``signum`` records the first
    signal, for the exit status (128 + signum).

    >>> with interruptible() as stop:
    ...     while not stop.is_set() and False:
    ...         pass
    """

    #: Signals turned into a stop request (those that exist on this platform).
    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __init__(self, message: str | None = None):
        self.message = message
        self.signum: int | None = None

    def _handler(self, signum, frame):
        if self._event.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        if not self._event.is_set():
            self.signum = signum
            if self.message:
                print(f"\n{self.message}", file=sys.stderr, flush=True)
        self._event.set()

    def __enter__(self) -> threading.Event:
        self._event = threading.Event()
        self._old = {}
        try:
            for sig in self.SIGNALS:
                self._old[sig] = signal.getsignal(sig)
                signal.signal(sig, self._handler)
        except ValueError:  # not the main thread: leave the signals alone
            for sig, old in self._old.items():
                signal.signal(sig, old)
            self._old = {}
        return self._event

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False

    @property
    def exit_status(self) -> int:
        """128 + the signal that stopped the work (130 for Ctrl-C)."""
        return 128 + int(self.signum or signal.SIGINT)


class ProgressBar:
    """Counts of finished items: a bar on a terminal, a line per 10 % otherwise."""

    def __init__(self, enabled: bool = True, unit: str = "runs", label: str = ""):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.unit = unit
        self.label = f"{label} " if label else ""
        self._last_decile = -1

    def update(self, done: int, total: int, detail: str = "") -> None:
        """Show ``done`` of ``total`` (and ``detail``, e.g. successes and ETA, after the count)."""
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        tail = f", {detail}" if detail else ""
        if self.tty:
            width = 30
            fill = int(frac * width)
            text = f"\r{self.label}[{'#' * fill}{'.' * (width - fill)}] {done:,}/{total:,} {self.unit}{tail}"
            print(text.ljust(getattr(self, "_width", 0)), end="", file=sys.stderr, flush=True)
            self._width = len(text)
        elif int(frac * 10) != self._last_decile:
            self._last_decile = int(frac * 10)
            print(f"{self.label}{done:,}/{total:,} {self.unit}{tail}", file=sys.stderr, flush=True)

    def batch(self, prog) -> None:
        """Show a :class:`~sudoku_lab.experiments.BatchProgress`: count, successes, rate and time left."""
        detail = f"{prog.solved:,} solved"
        if prog.new:
            detail += f", {prog.rate:,.1f} {self.unit}/s, ETA {duration_text(prog.eta)}"
        self.update(prog.done, prog.total, detail)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def duration_text(seconds: float) -> str:
    """``42 s``, ``3m05s``, ``2h10m``, ``3d04h``; ``?`` when unknown.

    >>> duration_text(185), duration_text(7800)
    ('3m05s', '2h10m')
    """
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


class RunProgress:
    """One run's progress: a self-overwriting line on a terminal, a line every few seconds otherwise."""

    def __init__(self, enabled: bool = True, what: str = "iteration"):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.what = what
        self._last = 0.0
        self._shown = False

    def update(self, prog) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.tty and now - self._last < 5.0 and not prog.done:
            return
        self._last = now
        s = prog.snapshot
        self.line(
            f"{s.iteration} {self.what}s, best cost {s.best_cost}, {prog.rate:,.0f}/s, "
            f"{prog.elapsed:.1f} s, {100 * prog.fraction:.0f} %"
        )

    def line(self, text: str) -> None:
        """Show ``text`` as the current progress line (over the previous one on a terminal)."""
        if not self.enabled:
            return
        self._shown = True
        print(("\r" + text.ljust(70)) if self.tty else text, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.tty and self._shown:
            print(file=sys.stderr)


# ------------------------------------------------------------ option types
def int_option(low: int, high: int | None = None):
    """An argparse ``type`` for an integer in ``[low, high]``: a bad value is one clear usage error.

    >>> int_option(1)("3")
    3
    """
    import argparse

    words = f"an integer >= {low}" if high is None else f"an integer from {low} to {high:,}"

    def parse(text: str) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {words}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {words}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


#: Seeds: numpy takes any non-negative integer.
seed_option = int_option(0)


def note(text: str) -> None:
    """Tell the user something that is not an error (one line on stderr)."""
    print(f"sudoku-lab: note: {text}", file=sys.stderr)


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
    from .errors import ParameterError
    from .experiments import effective_jobs

    if args.scheduler:
        from .cluster import parse_scheduler

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


# ------------------------------------------------------------ puzzle arguments
#: File suffixes that make an argument a path, not a puzzle's text or name.
_PATH_SUFFIXES = (".txt", ".csv", ".sdk", ".ss", ".sdm", ".tsv", ".dat", ".json", ".jsonl", ".gz")
_SEPARATORS = set(" \t\r\n|+-,;*=")


def _looks_like_puzzle_text(arg: str) -> bool:
    """True when an argument is far more likely a puzzle written out than a name or a path.

    Digits, dots and separators only is always text ("1234" is a puzzle too short). With
    letters (16x16 and 25x25 use A-Z), it is text when it holds about as many cells as a
    puzzle (within 10 %) and almost nothing else, so a mistyped name is never read as a
    puzzle with an "unexpected character '_'".
    """
    cells = sum(1 for ch in arg if ch.isascii() and (ch.isalnum() or ch == "."))
    other = sum(1 for ch in arg if not (ch.isascii() and (ch.isalnum() or ch == ".")) and ch not in _SEPARATORS)
    if not any(ch.isalpha() for ch in arg) and other == 0:
        return True
    near = any(abs(cells - n**4) <= 0.1 * n**4 for n in (2, 3, 4, 5))
    return near and other <= max(1, 0.05 * len(arg))


@checked
def resolve_puzzles(arg: str, progress: Callable[[int, int | None], object] | None = None, allow_clashes: bool = False):
    """The puzzles a command-line argument names, read lazily (an iterator).

    In order: ``-`` (standard input), an existing file (every puzzle in it),
    a bundled collection (``kennett/fiendish``), a bundled puzzle by name or
    ``collection:k``, else the argument's own text as a puzzle. Which reading
    applies is decided from the argument's form, so each mistake gets the
    error of what was meant: ``kennett/fiendish:999`` says the index is out of
    range, ``~/puzles/x.txt`` says there is no such file, a mistyped name
    suggests close names, and a puzzle with a stray character names its line
    and column. ``allow_clashes`` reads puzzles whose givens clash (the lab
    window opens them in its editor, the clashing cells outlined).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleError, DataFileError
        When nothing matches or the file cannot be read (as the iterator is consumed).
    """
    import difflib
    import os
    from pathlib import Path

    from . import library
    from .collection_io import iter_puzzles
    from .errors import PuzzleError
    from .puzzle import Puzzle

    if arg == "-":
        return iter_puzzles(sys.stdin.buffer, name="<stdin>", progress=progress, allow_clashes=allow_clashes)
    path = Path(os.path.expanduser(arg))
    collections = [c.name for c in library.collections()]
    if _is(path.exists) and not (_is(path.is_dir) and arg in collections):
        return iter_puzzles(path, progress=progress, allow_clashes=allow_clashes)
    if arg in collections:
        return iter(library.collection(arg))
    prefix = arg.rpartition(":")[0]
    if prefix in collections or arg in library.names():
        return iter([library.puzzle(arg)])  # its errors say what is wrong (index out of range, no such name)
    pathlike = "/" in arg or os.sep in arg or ":" in arg or arg.startswith("~") or path.suffix.lower() in _PATH_SUFFIXES
    if not pathlike and _looks_like_puzzle_text(arg):
        return iter([Puzzle.parse(arg, allow_clashes=allow_clashes)])
    if not pathlike:
        return iter([library.puzzle(arg)])  # "no bundled puzzle named ...; did you mean ..."
    hints = difflib.get_close_matches(arg, collections, n=2) + difflib.get_close_matches(
        arg.rpartition(":")[2] if ":" in arg else arg, library.names(), n=2
    )
    parent = path.parent
    if _is(parent.is_dir) and path.name:
        try:
            names = [p.name for p in parent.iterdir()][:10_000]
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=2)
        hints += [str(parent / m) if str(parent) != "." else m for m in close]
    where = "no such file" if not prefix else f"no such file or bundled collection {prefix!r}"
    hint = f"; did you mean {', '.join(dict.fromkeys(hints))}?" if hints else ""
    raise PuzzleError(f"{where}: {arg}{hint}", kind="empty")


def _is(test) -> bool:
    """A path test that is False, not an error, for names no file can have (too long, a NUL byte)."""
    try:
        return test()
    except (OSError, ValueError):
        return False


@checked
def resolve_puzzle(arg: str, allow_clashes: bool = False):
    """The single puzzle an argument names (the first, when it names several; the rest is not read)."""
    return next(resolve_puzzles(arg, allow_clashes=allow_clashes))


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

    from .solvers import get_solver_class, registry

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
    from .errors import ParameterError
    from .solvers import get_solver_class, registry

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


class ReadProgress:
    """Progress of reading a large file, on stderr, shown only once reading has taken more than a second."""

    def __init__(self, label: str):
        self.label = label
        self.t0 = self._last = time.perf_counter()
        self.printer = RunProgress(enabled=True)

    def __call__(self, done: int, total: int | None) -> None:
        now = time.perf_counter()
        if now - self.t0 < 1.0 or (not self.printer.tty and now - self._last < 5.0):
            return
        self._last = now
        share = f"{100 * done / total:.0f} % of {total / 1e6:.0f} MB" if total else f"{done / 1e6:.0f} MB"
        self.printer.line(f"reading {self.label}: {share}, {now - self.t0:.0f} s")

    def close(self) -> None:
        self.printer.close()
