"""``sudoku-lab bench exact``: the exact solver's ways of solving a set, side by side, next to qqwing.

Measured in one process, in interleaved passes (the best pass of each counts),
after every kernel is loaded or compiled (:func:`sudoku_lab.stepping.warmup.warm_up`):

``solve``
    :func:`sudoku_lab.exact.solve` per puzzle in a Python loop (what a user's
    script pays: input checks, dispatch, search); its per-puzzle times give
    the median and the slowest puzzle;
``batch``
    :func:`sudoku_lab.exact.solve_many`, the whole set in one kernel call;
``count2``
    :func:`sudoku_lab.exact.count_solutions` with ``limit=2`` per puzzle (a
    uniqueness proof);
``text``
    our text-in/text-out path, the same work qqwing does: the puzzles' lines
    parsed by :func:`sudoku_lab.model.collections.parse_collection`, each solved
    by ``exact.solve`` and its solution written as a line;
``qqwing``
    for 9 x 9 sets, when ``qqwing`` is on the PATH: ``qqwing --solve
    --one-line`` fed the same lines on stdin, timed as a whole process and,
    side by side, on empty input; the difference is its solving time without
    the process start-up.

``tdoku``
    for 9 x 9 sets, when tdoku's benchmark program is given (``tdoku=`` or
    ``--tdoku PATH``, else the ``SUDOKU_LAB_TDOKU`` environment variable; a
    build of ``run_benchmark`` from github.com/t-dillon/tdoku): its own
    measurement, ``run_benchmark -s tdoku -t 1 -w 1 -c 1`` on the same lines,
    once per pass, interleaved with ours; the best puzzles/s it reports
    counts (its time includes no process start-up and no text I/O, like
    ``exact.solve_many``).

Ratios are puzzles per second, ours over the reference (above 1: ours is
faster): over ``exact.solve`` for every row, and over qqwing both as a whole
process and with its start-up subtracted. The like-with-like comparison is
the text path against qqwing without start-up: both read lines, solve and
write lines, neither pays for starting a process.

On the magictour top 1465 set (all 1465 puzzles), the report also gives
ours over tdoku's published figure (:data:`TDOKU_PUBLISHED`: measured by
tdoku's author on another machine, so the ratio says more about the order
of magnitude than the exact factor) and, when tdoku ran here, over tdoku
measured in the same run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from .._checks import checked, int_range
from ..errors import ParameterError
from . import BenchmarkOption, register_benchmark
from ._timing import ratio, ratio_text, side_by_side

__all__ = ["bench_exact", "MEASURES", "TDOKU_PUBLISHED", "TDOKU_ENV"]

#: tdoku's published top1465 figure: github.com/t-dillon/tdoku, benchmarks/results_i7-1065G7/best_results.txt
#: (dataset ``puzzles3_magictour_top1465``, row ``tdoku``), the machine its README's tables come from.
TDOKU_PUBLISHED: dict[str, Any] = {
    "set": "top1465",
    "puzzles": 1465,
    "per_second": 140435.4,
    "us_per_puzzle": 7.1,
    "machine": "Intel Core i7-1065G7 (Ice Lake laptop, 1.3-3.9 GHz, AVX-512), clang 8 -O3 -march=native with "
    "profile-guided optimisation",
    "source": "github.com/t-dillon/tdoku benchmarks/results_i7-1065G7/best_results.txt",
}
#: Environment variable naming tdoku's ``run_benchmark`` program when ``--tdoku`` is not given.
TDOKU_ENV = "SUDOKU_LAB_TDOKU"
#: ``run_benchmark`` options: the tdoku solver only, 1 s of measuring after 1 s of warm-up (which checks
#: every solution), one CSV line of results.
_TDOKU_ARGS = ("-s", "tdoku", "-t", "1", "-w", "1", "-c", "1")

#: What ``--only`` may choose, in report order.
MEASURES = ("solve", "batch", "count2", "text", "qqwing")
_LABELS = {
    "solve": "exact.solve, Python loop",
    "batch": "exact.solve_many, one kernel call",
    "count2": "exact.count_solutions(limit=2), Python loop",
    "text": "text in, text out (parse, exact.solve, write)",
    "qqwing": "qqwing --solve --one-line, whole process",
    "qqwing_solving": "qqwing, start-up subtracted",
}
#: qqwing's solving time must be at least this share of its whole-process time to be told from start-up noise.
_MIN_SOLVING_SHARE = 0.1


class _Found(TypedDict, total=False):
    """What each timed path returned on its last pass, by measurement."""

    solve: list[np.ndarray | None]
    batch: tuple[np.ndarray, np.ndarray]
    count2: list[int]
    text: str
    qqwing: list[str]


def _line(grid: np.ndarray) -> str:
    from ..model.geometry import SYMBOLS

    return "".join("." if d == 0 else SYMBOLS[d - 1] for d in grid.tolist())


def _stack(puzzles: Sequence) -> tuple[list[str], np.ndarray, int]:
    """Names, an int8 (P, C) array and the box size of (name, grid) pairs of one size."""
    from ..exact import as_grid

    puzzles = list(puzzles)
    if not puzzles:
        raise ParameterError("no puzzles to benchmark", name="puzzles")
    checked = [as_grid(g) for _, g in puzzles]
    if len({n for _, n in checked}) > 1:
        raise ParameterError("benchmark puzzles must all have the same Sudoku size", name="puzzles")
    names = [str(name) for name, _ in puzzles]
    return names, np.stack([g for g, _ in checked]), checked[0][1]


def _text_path(text: str, n: int) -> str:
    """Our text-in/text-out solving: parse the lines, solve each puzzle, write each solution as a line."""
    from .. import exact
    from ..model.collections import parse_collection
    from ..model.puzzle import Puzzle

    lines = []
    for p in parse_collection(text, n=n):
        sol = exact.solve(p)
        lines.append("no solution" if sol is None else Puzzle(sol, n=n).to_line())
    return "\n".join(lines) + "\n"


def _run_qqwing(qqwing: str, text: str) -> list[str]:
    done = subprocess.run([qqwing, "--solve", "--one-line"], input=text, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def _run_tdoku(tdoku: str, path: str) -> float:
    """tdoku's own puzzles/s on the puzzle lines in ``path`` (``run_benchmark ... -c 1``: the fifth CSV field)."""
    done = subprocess.run([tdoku, *_TDOKU_ARGS, path], capture_output=True, text=True, check=True, timeout=120)
    for line in reversed(done.stdout.splitlines()):
        fields = [f.strip() for f in line.split(",")]
        if "tdoku" in fields[:-1]:
            try:
                rate = float(fields[fields.index("tdoku") + 1])
            except ValueError:
                break
            if rate > 0:  # a run too short to measure reports nan
                return rate
            break
    raise ValueError(f"no puzzles/s in its output: {done.stdout.strip()[-200:]!r}")


def _is_top1465(label: str | None, names: Sequence[str]) -> bool:
    """Whether the set is the whole magictour top 1465, which tdoku's published figure is about."""
    if len(names) != TDOKU_PUBLISHED["puzzles"]:
        return False
    stem = Path(str(label or "")).stem.lower()
    return stem == TDOKU_PUBLISHED["set"] or all(name.lower().startswith("top1465") for name in names)


def _check_only(only) -> tuple[str, ...]:
    chosen = tuple(MEASURES if only is None else only)
    bad = [m for m in chosen if m not in MEASURES]
    if bad or not chosen:
        raise ParameterError(
            f"only must name some of {', '.join(MEASURES)}, got {', '.join(map(str, bad)) or 'none'}", name="only"
        )
    return tuple(m for m in MEASURES if m in chosen)


@checked
def bench_exact(
    puzzles: Sequence[tuple[str, npt.ArrayLike]] | str | os.PathLike[str],
    out: Callable[[str], object] = print,
    repeat: int = 3,
    only: Sequence[str] | None = None,
    label: str | None = None,
    tdoku: str | os.PathLike[str] | None = None,
) -> dict:
    """Time the exact solver on a set of puzzles, side by side, next to qqwing when it is installed.

    See the module's docstring for what each measurement is. Every solution
    found is checked to be a valid grid that keeps the givens and, for
    puzzles with a unique solution, to equal qqwing's.

    Parameters
    ----------
    puzzles : sequence of (str, array_like of int, shape (C,)), or str or Path
        ``(name, grid)`` pairs of one size, or a puzzle file in any format
        :func:`sudoku_lab.model.collections.load_puzzles` reads.
    out : callable
        Receives each line of the report.
    repeat : int
        Passes per measurement.
    only : sequence of str, optional
        The measurements to make, among :data:`MEASURES` (default all; a
        whole-set kernel call or a uniqueness proof can take minutes on hard
        25 x 25 sets, where ``only=("solve",)`` still gives per-puzzle times).
    label : str, optional
        What the set is called in the report (a label ending in ``top1465``
        on a set of 1465 puzzles brings tdoku's published figure in).
    tdoku : str or Path, optional
        tdoku's ``run_benchmark`` program, to measure tdoku here in the same
        run (9 x 9 sets); default: the ``SUDOKU_LAB_TDOKU`` environment
        variable, else tdoku is not run.

    Returns
    -------
    dict
        ``puzzles``, ``n``; ``seconds`` and ``per_second`` keyed by the
        measurements made (``qqwing`` is the whole process; ``qqwing_solving``
        its time without start-up, when separable); ``qqwing_startup_s``;
        ``ratio_to_solve`` (puzzles/s over ``exact.solve``'s),
        ``ratio_to_qqwing`` (over qqwing's whole process) and
        ``ratio_to_qqwing_solving`` (over qqwing without start-up), keyed by
        our measurements; ``solve_ms`` (best time per puzzle, by name);
        ``valid`` (all our solutions valid; None if none was kept);
        ``matches_qqwing`` (None when qqwing was not run); ``unsolvable``
        (names without a solution, when known); ``tdoku_published`` (a copy
        of :data:`TDOKU_PUBLISHED` when the set is top1465, else None),
        ``tdoku_per_second`` (measured here, else None),
        ``ratio_to_tdoku_published`` and ``ratio_to_tdoku`` (ours over
        each, keyed by our measurements; empty without the figure).
    """
    from .. import exact
    from ..model.collections import load_puzzles
    from ..model.puzzle import Puzzle, is_valid_solution
    from ..stepping.warmup import warm_up

    if isinstance(puzzles, (str, Path)):
        label = label or str(puzzles)
        puzzles = [(p.name, p.grid) for p in load_puzzles(puzzles)]
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ParameterError(f"repeat must be a positive integer, got {repeat!r}", name="repeat")
    only = _check_only(only)
    if tdoku is None:
        tdoku = os.environ.get(TDOKU_ENV) or None
    # Another os.PathLike than a Path is not read as a file: _stack fails on it (not iterable).
    names, grids, n = _stack(puzzles)  # type: ignore[arg-type]
    P = len(names)
    text = "".join(_line(g) + "\n" for g in grids)
    notes = []
    qqwing = None
    if "qqwing" in only:
        qqwing = shutil.which("qqwing") if n == 3 else None
        if n != 3:
            notes.append("qqwing solves 9x9 puzzles only: no comparison")
        elif qqwing is None:
            notes.append("qqwing not found on PATH: no comparison")

    tdoku_exe = None
    if tdoku is not None:
        found_exe = shutil.which(str(tdoku))
        if n != 3:
            notes.append("tdoku solves 9x9 puzzles only: not run")
        elif found_exe is None:
            notes.append(f"tdoku's benchmark program {str(tdoku)!r} was not found or is not executable: not run")
        else:
            tdoku_exe = found_exe
    published = dict(TDOKU_PUBLISHED) if n == 3 and _is_top1465(label, names) else None

    results: _Found = {}
    solve_ms: list[np.ndarray] = []  # per pass, each puzzle's time
    tdoku_rates: list[float] = []  # per pass, tdoku's own puzzles/s

    def solve_all():
        sols, ms = [], np.empty(P)
        for i, g in enumerate(grids):
            t0 = time.perf_counter()
            sols.append(exact.solve(g))
            ms[i] = (time.perf_counter() - t0) * 1e3
        solve_ms.append(ms)
        results["solve"] = sols

    cases: dict[str, Callable[[], object]] = {
        "solve": solve_all,
        "batch": lambda: results.__setitem__("batch", exact.solve_many(grids, n)),
        "count2": lambda: results.__setitem__("count2", [exact.count_solutions(g, limit=2) for g in grids]),
        "text": lambda: results.__setitem__("text", _text_path(text, n)),
    }
    if qqwing is not None:
        exe = qqwing
        cases["qqwing"] = lambda: results.__setitem__("qqwing", _run_qqwing(exe, text))
        cases["qqwing_empty"] = lambda: _run_qqwing(exe, "")
    cases = {k: f for k, f in cases.items() if k.split("_")[0] in only}
    tdoku_file = None
    if tdoku_exe is not None:
        import tempfile

        from ..files import write_text

        tdoku_dir = tempfile.mkdtemp(prefix="sudoku-lab-tdoku-")
        tdoku_file = os.path.join(tdoku_dir, "puzzles.txt")
        write_text(tdoku_file, text, "tdoku's puzzle file")
        exe_t, file_t = tdoku_exe, tdoku_file
        cases["tdoku"] = lambda: tdoku_rates.append(_run_tdoku(exe_t, file_t))

    # Load or compile every kernel, and run each path once on one puzzle, before anything is timed.
    warm_up(("exact",))
    exact.solve(grids[0])
    exact.solve_many(grids[:1], n)
    exact.count_solutions(grids[0], limit=2)
    _text_path(text.partition("\n")[0], n)
    if qqwing:
        try:
            _run_qqwing(qqwing, text.partition("\n")[0] + "\n")
        except (OSError, subprocess.CalledProcessError) as e:
            notes.append(f"qqwing failed ({e}): no comparison")
            qqwing = None
            cases.pop("qqwing", None)
            cases.pop("qqwing_empty", None)
    try:
        seconds = side_by_side(cases, repeat)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        if "tdoku" not in cases:
            raise
        # tdoku failed: say so, and measure ours without it.
        notes.append(f"tdoku failed ({str(e).strip() or type(e).__name__}): not compared")
        cases.pop("tdoku")
        tdoku_rates.clear()
        seconds = side_by_side(cases, repeat)
    finally:
        if tdoku_file is not None:
            shutil.rmtree(os.path.dirname(tdoku_file), ignore_errors=True)
    seconds.pop("tdoku", None)  # its own rate counts, not the wall time of the process
    tdoku_per_second = max(tdoku_rates) if tdoku_rates else None

    startup = seconds.pop("qqwing_empty", None)
    # startup: measured whenever qqwing is (both or neither are among the cases)
    if qqwing and startup is not None and seconds["qqwing"] - startup >= _MIN_SOLVING_SHARE * seconds["qqwing"]:
        seconds["qqwing_solving"] = seconds["qqwing"] - startup
    elif qqwing:
        notes.append(
            f"qqwing's solving time is within the noise of its start-up on {P} puzzles: no start-up-"
            "subtracted ratio (use a larger set)"
        )
    per_second = {k: P / v for k, v in seconds.items()}
    ours = [k for k in ("solve", "batch", "count2", "text") if k in seconds]
    ratio_to_solve = {
        k: ratio(per_second[k], per_second.get("solve"))
        for k in ours + ["qqwing"]
        if k in per_second and "solve" in per_second
    }
    ratio_to_qqwing = {k: ratio(per_second[k], per_second["qqwing"]) for k in ours} if qqwing else {}
    ratio_to_qqwing_solving = (
        {k: ratio(per_second[k], per_second["qqwing_solving"]) for k in ours} if "qqwing_solving" in per_second else {}
    )
    ratio_to_tdoku_published = {k: ratio(per_second[k], published["per_second"]) for k in ours} if published else {}
    ratio_to_tdoku = {k: ratio(per_second[k], tdoku_per_second) for k in ours} if tdoku_per_second else {}

    # Correctness: our solutions (from whichever path ran) are valid; equal to qqwing's where unique.
    sols: list[np.ndarray | None] | None
    if "solve" in results:
        sols = list(results["solve"])
    elif "batch" in results:
        sols = [s if c else None for s, c in zip(*results["batch"])]
    elif "text" in results:
        sols = [None if ln == "no solution" else Puzzle.parse(ln, n=n).grid for ln in results["text"].splitlines()]
    else:
        sols = None
    unsolvable = None if sols is None else [name for name, s in zip(names, sols) if s is None]
    valid = (
        None
        if sols is None
        else all(
            s is None or (is_valid_solution(s, n) and np.array_equal(s[g > 0], g[g > 0])) for s, g in zip(sols, grids)
        )
    )
    counts = results.get("count2")
    if counts is None and qqwing:
        counts = exact.solve_many(grids, n, limit=2)[1].tolist()  # not timed: only to know where to compare
    matches = None
    if qqwing:
        assert counts is not None  # counted just above when not timed
        theirs = results["qqwing"]
        ours_lines = [] if sols is None else [[_line(s) if s is not None else "" for s in sols]]
        if "text" in results:
            ours_lines.append(results["text"].splitlines())
        matches = len(theirs) == P and all(
            c != 1 or mine[i] == q for mine in ours_lines for i, (q, c) in enumerate(zip(theirs, counts))
        )
    best_ms = np.min(solve_ms, axis=0) if solve_ms else np.zeros(0)
    per_puzzle = dict(zip(names, best_ms.tolist()))

    header = (
        f"exact solver on {P} {n * n}x{n * n} puzzles{f' ({label})' if label else ''}: best of {repeat} "
        f"passes, measured side by side in one process, one core, kernels compiled before timing"
    )
    out(header)
    with_solve = "solve" in per_second
    out(f"  {'':<50} {'puzzles/s':>10} {'time':>10}" + (f" {'/ exact.solve':>14}" if with_solve else ""))
    for key in ours + ["qqwing", "qqwing_solving"]:
        if key in seconds:
            name = _LABELS[key] + (
                f" (empty input {startup * 1e3:.1f} ms)" if key == "qqwing_solving" and startup is not None else ""
            )
            col = f" {ratio_text(ratio_to_solve.get(key), 14)}" if with_solve and key != "qqwing_solving" else ""
            out(f"  {name:<50} {per_second[key]:>10,.0f} {seconds[key] * 1e3:>7.1f} ms{col}")
    if per_puzzle:
        slow = names[int(np.argmax(best_ms))]
        out(f"  exact.solve per puzzle: median {np.median(best_ms):.2f} ms, max {np.max(best_ms):.2f} ms ({slow})")
    if ratio_to_qqwing:
        out(
            f"  {'ours / qqwing, puzzles per second (above 1: ours is faster)':<64} {'whole process':>13} "
            f"{'start-up subtracted':>21}"
        )
        for key in ours:
            like = " (like with like)" if key == "text" else ""
            out(
                f"    {_LABELS[key] + like:<62} {ratio_text(ratio_to_qqwing[key], 13)} "
                f"{ratio_text(ratio_to_qqwing_solving.get(key), 21)}"
            )
    if published or tdoku_per_second:
        here = f"{tdoku_per_second:,.0f} puzzles/s measured here" if tdoku_per_second else "not measured here"
        out(f"  tdoku (github.com/t-dillon/tdoku), the fastest public solver, on this set: {here}")
        if published:
            out(
                f"  tdoku published on top1465: {published['per_second']:,.0f} puzzles/s "
                f"({published['us_per_puzzle']} us per puzzle) on another machine:"
            )
            out(f"    {published['machine']}")
            out(f"    from {published['source']}")
        out(
            f"  {'ours / tdoku, puzzles per second (above 1: ours is faster)':<64} {'published':>13} "
            f"{'measured here':>21}"
        )
        for key in ours:
            out(
                f"    {_LABELS[key]:<62} {ratio_text(ratio_to_tdoku_published.get(key), 13)} "
                f"{ratio_text(ratio_to_tdoku.get(key), 21)}"
            )
    for note in notes:
        out(f"  {note}")
    if counts is not None:
        unique = sum(c == 1 for c in counts)
        none = sum(c == 0 for c in counts)
        out(f"  {unique} of {P} puzzles have a unique solution, {none} have none")
    checks = [] if valid is None else [f"solutions valid and keep the givens: {'yes' if valid else 'NO'}"]
    if matches is not None:
        checks.append(f"equal to qqwing's where unique: {'yes' if matches else 'NO'}")
    if checks:
        out("  " + "; ".join(checks))
    return {
        "puzzles": P,
        "n": n,
        "seconds": seconds,
        "per_second": per_second,
        "qqwing_startup_s": startup,
        "ratio_to_solve": ratio_to_solve,
        "ratio_to_qqwing": ratio_to_qqwing,
        "ratio_to_qqwing_solving": ratio_to_qqwing_solving,
        "solve_ms": per_puzzle,
        "valid": valid,
        "matches_qqwing": matches,
        "unsolvable": unsolvable,
        "tdoku_published": published,
        "tdoku_per_second": tdoku_per_second,
        "ratio_to_tdoku_published": ratio_to_tdoku_published,
        "ratio_to_tdoku": ratio_to_tdoku,
    }


# ------------------------------------------------------------------------ CLI
def _only_option(text: str) -> tuple[str, ...]:
    parts = tuple(p.strip() for p in str(text).split(",") if p.strip())
    bad = [p for p in parts if p not in MEASURES]
    if bad or not parts:
        raise ValueError(f"must be a comma-separated list of {', '.join(MEASURES)}, got {text!r}")
    return parts


#: The sub-command's options.
_OPTIONS = (
    BenchmarkOption(
        "--set",
        action="append",
        default=None,
        metavar="SET",
        help="bundled collection, file, or puzzle; repeat for several sets, each measured on its "
        "own (default kennett/fiendish)",
    ),
    BenchmarkOption(
        "--repeat", type=int_range(1, 1000), default=3, help="passes per measurement, the best counts (default 3)"
    ),
    BenchmarkOption(
        "--tdoku",
        default=None,
        metavar="PATH",
        help=f"tdoku's run_benchmark program (github.com/t-dillon/tdoku), to measure tdoku here in the same run "
        f"on 9x9 sets (default: ${TDOKU_ENV}, else not run)",
    ),
    BenchmarkOption(
        "--only",
        type=_only_option,
        default=None,
        metavar="LIST",
        help=f"measure only these, comma-separated: {', '.join(MEASURES)} (default all; "
        "'--only solve' for hard 25x25 sets)",
    ),
)


def _run(args, out: Callable[[str], object]) -> int:
    from ..engine._progress import ReadProgress
    from ..model.resolve import resolve_puzzles

    for k, name in enumerate(args.set or ["kennett/fiendish"]):
        reading = ReadProgress(name)
        puzzles = [(p.name or f"{name} #{i + 1}", p.grid) for i, p in enumerate(resolve_puzzles(name, reading))]
        reading.close()
        if k:
            out("")
        bench_exact(puzzles, out=out, repeat=args.repeat, only=args.only, label=name, tdoku=args.tdoku)
    return 0


register_benchmark(
    "exact",
    help="exact solver: solve, batch, uniqueness and text-to-text in puzzles/s, as ratios to exact.solve, to qqwing "
    "and to tdoku",
    options=_OPTIONS,
    run=_run,
    solver="exact",
    description="Time the exact solver on a puzzle set, side by side in one process: exact.solve per puzzle "
    "(with the median and slowest puzzle), exact.solve_many in one call, count_solutions(limit=2) per puzzle, "
    "and the text-in/text-out path (parse lines, solve, write lines); for 9x9 sets, qqwing --solve as a whole "
    "process and with its start-up (empty input) subtracted. Prints puzzles/s, each row's ratio to "
    "exact.solve, and ours / qqwing both ways (above 1: ours is faster); text-to-text against qqwing without "
    "start-up compares like with like. On top1465, ours next to tdoku's published figure; with --tdoku PATH "
    f"(or ${TDOKU_ENV}), tdoku's run_benchmark measured in the same run too.",
)
