"""Per-cell correctness grades over many runs: the RESEDA paper's Figure 4.2, for any solver.

For R seeded runs of one configuration, each cell's *fraction correct* is the
share of runs whose final grid (``Snapshot.grid``) holds the solution's digit
there. Grade ``A``: right in at least ``a`` of the runs (default all), ``B``:
at least ``b`` (default 90 %), blank otherwise; givens are ``A``.

Examples
--------
>>> from sudoku_lab.model import library
>>> from sudoku_lab.analysis.grades import correctness_grades
>>> g = correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {"restart": "none"}, runs=5)
>>> g.grade_grid().shape, g.runs_done
((9, 9), 5)
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import __version__
from .._checks import checked
from ..engine.experiments import Task, config_label
from ..errors import DataFileError, ParameterError, PuzzleError
from ..files import json_loads, read_text, write_text
from ..model.geometry import cell_name
from ..model.puzzle import Puzzle
from ..solvers.base import DEFAULT_SEED
from .latex import escape

if TYPE_CHECKING:
    from ..engine.results import Results

__all__ = ["GradeResult", "correctness_grades", "grades_from_results", "grade_cells", "agreement"]


@checked
def grade_cells(fraction: np.ndarray, givens: np.ndarray, a: float = 1.0, b: float = 0.9) -> np.ndarray:
    """Grades from fractions correct.

    Parameters
    ----------
    fraction : ndarray of float64, shape (C,)
    givens : ndarray of bool, shape (C,)
    a, b : float
        Thresholds: ``A`` if fraction >= a, ``B`` if >= b, else ``""``.

    Returns
    -------
    ndarray of str, shape (C,)
    """
    if not 0 <= b <= a <= 1:
        raise ParameterError(f"grade thresholds need 0 <= B <= A <= 1, got A = {a}, B = {b}", name="thresholds")
    eps = 1e-12  # 90/100 must count as 0.9 despite rounding
    out = np.where(fraction >= a - eps, "A", np.where(fraction >= b - eps, "B", ""))
    out[givens] = "A"
    return out


@checked
def agreement(ours: np.ndarray, theirs: np.ndarray) -> float:
    """Share of cells with the same grade in two (N, N) or (C,) grade arrays."""
    a, b = np.asarray(ours).reshape(-1), np.asarray(theirs).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"grade grids differ in size: {a.size} vs {b.size} cells")
    return float(np.mean(a == b))


@checked
@dataclass
class GradeResult:
    """Correctness grades of one configuration on one puzzle.

    Attributes
    ----------
    puzzle : Puzzle
    solution : ndarray of int8, shape (C,)
    solver : str
    params : dict
    seeds : list of int
        Seeds of the runs asked for (``seed0 .. seed0 + R - 1``).
    until : str
        Stopping rule of each run.
    thresholds : (float, float)
        ``(a, b)`` for grades A and B.
    runs : list of RunResult
        The finished runs (fewer than ``seeds`` if interrupted).
    """

    puzzle: Puzzle
    solution: np.ndarray
    solver: str
    params: dict
    seeds: list
    until: str
    thresholds: tuple = (1.0, 0.9)
    runs: list = field(default_factory=list)
    #: Grades read from a file by :meth:`load_json` (the runs are not stored there), or None.
    grades_from_file: np.ndarray | None = None

    @property
    def runs_done(self) -> int:
        return len(self.runs)

    @property
    def complete(self) -> bool:
        return len(self.runs) == len(self.seeds)

    @property
    def fraction(self) -> np.ndarray:
        """Fraction of runs right per cell, float64 (C,); givens 1; NaN before any run."""
        if not self.runs:
            return np.full(self.puzzle.C, math.nan)
        grids = np.stack([r.grid for r in self.runs])
        f = (grids == self.solution[None, :]).mean(axis=0)
        f[self.puzzle.givens] = 1.0
        return f

    @property
    def grades(self) -> np.ndarray:
        """``A``/``B``/``""`` per cell, str (C,)."""
        return grade_cells(self.fraction, self.puzzle.givens, *self.thresholds)

    def grade_grid(self) -> np.ndarray:
        """Grades as an (N, N) array of str."""
        return self.grades.reshape(self.puzzle.N, self.puzzle.N)

    @property
    def successes(self) -> int:
        return sum(r.solved for r in self.runs)

    @property
    def mean_cost(self) -> float:
        return float(np.mean([r.cost for r in self.runs])) if self.runs else math.nan

    @property
    def mean_iterations(self) -> float:
        return float(np.mean([r.iterations for r in self.runs])) if self.runs else math.nan

    def summary(self) -> str:
        g = self.grades[~self.puzzle.givens]
        return (
            f"{self.puzzle.name or 'puzzle'}: {self.solver} over {self.runs_done} runs: "
            f"{self.successes} solved, mean final cost {self.mean_cost:.2f}; free cells graded "
            f"A {int(np.sum(g == 'A'))}, B {int(np.sum(g == 'B'))}, blank {int(np.sum(g == ''))}"
        )

    # ---------------------------------------------------------------- export
    def to_dict(self) -> dict:
        return {
            "kind": "correctness_grades",
            "version": __version__,
            "puzzle": {"name": self.puzzle.name, "n": self.puzzle.n, "grid": self.puzzle.to_line()},
            "solution": Puzzle(self.solution, n=self.puzzle.n).to_line(),
            "solver": self.solver,
            "params": self.params,
            "until": self.until,
            "seeds": list(self.seeds),
            "thresholds": list(self.thresholds),
            "runs_done": self.runs_done,
            "successes": self.successes,
            "mean_cost": None if math.isnan(self.mean_cost) else self.mean_cost,
            "fraction": [None if math.isnan(v) else round(float(v), 6) for v in self.fraction],
            "grades": self.grades.tolist(),
            "runs": [
                {
                    "seed": r.seed,
                    "solved": r.solved,
                    "cost": r.cost,
                    "iterations": r.iterations,
                    "seconds": round(r.seconds, 6),
                }
                for r in self.runs
            ],
        }

    def save_json(self, path: str | os.PathLike[str]) -> None:
        write_text(path, json.dumps(self.to_dict(), indent=1) + "\n", "grades file")

    def to_csv(self) -> str:
        """One row per cell: row, col, cell name, given, solution digit, fraction correct, grade."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["row", "col", "cell", "given", "solution", "fraction_correct", "grade"])
        N = self.puzzle.N
        f, g = self.fraction, self.grades
        for c in range(self.puzzle.C):
            w.writerow(
                [
                    c // N + 1,
                    c % N + 1,
                    cell_name(c, N),
                    int(self.puzzle.grid[c] > 0),
                    int(self.solution[c]),
                    f"{f[c]:.4f}",
                    g[c],
                ]
            )
        return buf.getvalue()

    def save_csv(self, path: str | os.PathLike[str]) -> None:
        write_text(path, self.to_csv(), "grades file")

    def to_latex(self, caption: str | None = None) -> str:
        """The grade grid as a LaTeX ``tabular`` with box rules, in a ``table`` with ``caption`` if given.

        It needs no package: ``\\input`` it into any LaTeX document. The caption is plain text, escaped
        by :func:`sudoku_lab.analysis.latex.escape` (a puzzle name's ``_``, a ``%``, a Greek letter), so
        any text compiles; ``sudoku-lab grades --latex`` and the lab's Export... give :meth:`summary`.
        """
        n, N = self.puzzle.n, self.puzzle.N
        cols = "|" + "|".join(["c" * n] * n) + "|"
        lines = [r"\begin{tabular}{" + cols + "}", r"\hline"]
        grid = self.grade_grid()
        for r in range(N):
            lines.append(" & ".join(escape(g) for g in grid[r]) + r" \\")
            if (r + 1) % n == 0:
                lines.append(r"\hline")
        lines.append(r"\end{tabular}")
        if caption:
            lines = [
                r"\begin{table}[h]",
                r"\centering",
                *lines,
                r"\caption{" + escape(caption) + "}",
                r"\end{table}",
            ]
        return "\n".join(lines) + "\n"

    @classmethod
    def load_json(cls, path: str | os.PathLike[str]) -> GradeResult:
        """Read a file written by :meth:`save_json`.

        The runs themselves are not stored there, so ``runs`` is empty; the
        file's grades are in ``grades_from_file`` (str (C,)).

        Raises
        ------
        ParameterTypeError
            An argument of the wrong kind (also a TypeError).
        DataFileError
            Missing, unreadable, not UTF-8, not JSON, or not a grades file.
        """
        path = Path(path)
        text = read_text(path, "grades file", max_bytes=64 << 20)
        try:
            d = json_loads(text)  # bounded depth: a file nested 200,000 deep is one line, not a RecursionError
            if not isinstance(d, dict) or d.get("kind") != "correctness_grades":
                raise KeyError("kind")
            n = int(d["puzzle"]["n"])
            pz = Puzzle.parse(d["puzzle"]["grid"], n=n, name=d["puzzle"]["name"])
            sol = Puzzle.parse(d["solution"], n=n).grid
            res = cls(pz, sol.copy(), d["solver"], d["params"], d["seeds"], d["until"], tuple(d["thresholds"]))
            grades = np.array(d["grades"], dtype=str)
            if grades.shape != (pz.C,) or not set(grades.tolist()) <= {"A", "B", ""}:
                raise ValueError("grades")
            res.grades_from_file = grades
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, PuzzleError) as e:
            raise DataFileError(f"{path}: not a grades file written by Sudoku Lab ({e})", path=path) from None
        return res


#: Most runs one grades experiment takes: a million runs of RESEDA is about an hour per core already.
MAX_RUNS = 1_000_000


@checked
def correctness_grades(
    puzzle: Puzzle,
    solver: str = "reseda",
    params: dict | None = None,
    runs: int = 100,
    seed: int = DEFAULT_SEED,
    until: str = "solved,100000it",
    thresholds: tuple[float, float] = (1.0, 0.9),
    jobs: int = 1,
    results_file: str | os.PathLike[str] | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
    on_run: Callable[[GradeResult], None] | None = None,
) -> GradeResult:
    """Run ``runs`` seeded runs and grade every cell.

    Parameters
    ----------
    puzzle : Puzzle
        Must have a unique solution (checked with the exact solver).
    solver : str
        Registry name; any solver works.
    params : dict, optional
        Solver parameters (validated before anything runs).
    runs : int
        R (default 100, as in the paper), at most :data:`MAX_RUNS`.
    seed : int
        Run i uses seed ``seed + i`` (non-negative).
    until : str
        Stopping rule of each run (the solver finishing always ends it).
    thresholds : (float, float)
        Grade A and B thresholds.
    jobs : int
        Worker processes (capped at the CPUs available).
    results_file : path, optional
        Results directory (:class:`~sudoku_lab.engine.results.ResultStore`) where
        each run is saved as it finishes; one of the same configuration is
        resumed (more runs than before add to it; giving a parameter its
        default value explicitly is the same configuration), one in use by
        another process is refused.
    should_stop : callable, optional
        Checked between (and during) runs; the result then holds the runs
        finished so far.
    progress : callable, optional
        ``progress(done, total)`` after each run.
    scheduler : str, optional
        Run on a Dask cluster instead (``tcp://host:port`` or ``local:N``).
    on_run : callable, optional
        ``on_run(grades_so_far)`` after each run finishes (and once for each
        run a resumed results directory held), with a new GradeResult of the
        runs finished so far, in seed order: a live grid (the lab's Correctness
        grades dialog) redraws from it.

    Raises
    ------
    PuzzleTypeError
        ``puzzle`` is not a Puzzle (also a TypeError).
    ParameterTypeError
        Another argument of the wrong kind (also a TypeError).
    ParameterError
        Runs, seed, thresholds or solver parameters out of range.
    PuzzleError
        The puzzle has no unique solution.
    DataFileError
        ``results_file`` holds another configuration or cannot be written.
    """
    from ..engine.experiments import run_batch
    from ..engine.results import ResultStore, closing
    from ..solvers import get_solver_class
    from ..stepping.loop import parse_until

    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= MAX_RUNS:
        raise ParameterError(f"runs must be an integer from 1 to {MAX_RUNS:,}, got {runs!r}", name="runs")
    from ..engine.spec import check_seed

    check_seed(seed, runs, "sequential", flag="seed")  # run i's seed, seed + i, must fit the results' int64 column
    given = dict(params or {})
    params = get_solver_class(solver).full_params(given)
    parse_until(until)  # a bad stopping rule is refused now, not by the first run
    grade_cells(np.zeros(1), np.zeros(1, bool), *thresholds)  # validate thresholds early
    try:
        solution = np.array(puzzle.check(unique=True))
    except PuzzleError as e:
        raise PuzzleError(f"grades need a puzzle with one solution: {e}", kind=e.kind, cells=e.cells) from None
    seeds = [seed + i for i in range(runs)]
    result = GradeResult(puzzle, solution, solver, params, seeds, until, tuple(thresholds))
    label = config_label(solver, given)
    tasks = [
        Task(solver, params, puzzle, s, until, key=str(s), config=label, puzzle_set=puzzle.name or "", run=i)
        for i, s in enumerate(seeds)
    ]
    # The number of runs is not part of the experiment: asking for more later adds to the same directory.
    store = (
        None
        if results_file is None
        else ResultStore(
            results_file,
            {"solver": solver, "params": params, "puzzle": puzzle.to_line(), "until": until, "seed0": seed},
            kind="grades",
        )
    )
    finished: list = [None] * len(tasks)

    def one_more(i: int, run) -> None:
        finished[i] = run
        if on_run is not None:
            on_run(replace(result, runs=[r for r in finished if r is not None]))

    with closing(store):
        done = run_batch(
            tasks,
            store,
            on_result=one_more if on_run is not None else None,
            jobs=jobs,
            scheduler=scheduler,
            should_stop=should_stop,
            progress=(lambda p: progress(p.done, p.total)) if progress else None,
        )
    result.runs = [r for r in done if r is not None]
    return result


@checked
def grades_from_results(
    results: Results | str | os.PathLike[str],
    puzzle: str | None = None,
    config: str | None = None,
    thresholds: tuple[float, float] = (1.0, 0.9),
) -> GradeResult:
    """Grade every cell from the final grids of a results table (``batch``, ``compare``, ``grades``, ``reproduce``).

    Parameters
    ----------
    results : Results or path
        What :func:`sudoku_lab.engine.results.load_results` reads.
    puzzle : str, optional
        The puzzle to grade, by name or givens (line format); needed when the
        results hold several.
    config : str, optional
        The configuration (its label, or a solver name when only one
        configuration of it ran); needed when the results hold several.
    thresholds : (float, float)
        Grade A and B thresholds.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        Several puzzles or configurations and none chosen (the message lists
        them), or a choice the results do not hold.
    PuzzleError
        The puzzle has no unique solution.
    """
    from ..engine.experiments import RunResult
    from ..engine.results import Results, load_results

    res = results if isinstance(results, Results) else load_results(results)
    rows = res.rows()
    if not rows:
        raise ParameterError(f"{res.path} holds no runs", name="from")
    rows = _choose(
        rows, "puzzle", puzzle, lambda r: (r["puzzle"], r["givens"]), "the PUZZLE argument (its name or givens)"
    )
    rows = _choose(rows, "config", config, lambda r: (r["config"], r["solver"]), "--config LABEL")
    first = rows[0]
    pz = Puzzle.parse(first["givens"], n=int(first["box"]), name=first["puzzle"] or None)
    grade_cells(np.zeros(1), np.zeros(1, bool), *thresholds)
    try:
        solution = np.array(pz.check(unique=True))
    except PuzzleError as e:
        raise PuzzleError(f"grades need a puzzle with one solution: {e}", kind=e.kind, cells=e.cells) from None
    runs = sorted((RunResult.from_row(r) for r in rows), key=lambda r: r.seed)
    until = {r["until"] for r in rows}
    out = GradeResult(
        pz,
        solution,
        first["solver"],
        json_loads(first["params"] or "{}"),
        [r.seed for r in runs],
        until.pop() if len(until) == 1 else "mixed",
        tuple(thresholds),
        runs=runs,
    )
    return out


def _choose(rows: list, what: str, choice: str | None, names: Callable, flag: str) -> list:
    """The rows of the one ``what`` (puzzle or configuration) chosen, or the only one there is."""
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(names(r)[0], []).append(r)
    if choice is None:
        if len(groups) == 1:
            return rows
        raise ParameterError(f"the results hold {_listing(groups, what)}; choose one with {flag}", name=what)
    picked = [r for r in rows if choice in names(r)]
    if not picked:
        import difflib

        close = difflib.get_close_matches(choice, list(groups), n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ParameterError(
            f"the results hold no {what} {choice!r}{hint}: they hold {_listing(groups, what)}", name=what
        )
    if len({names(r)[0] for r in picked}) > 1:
        raise ParameterError(
            f"{choice!r} names several {what}s ({', '.join(sorted({names(r)[0] for r in picked}))});"
            f" choose one with {flag}",
            name=what,
        )
    return picked


#: How many names a message lists before it says how many more there are.
_LISTED = 12


def _listing(groups, what: str) -> str:
    """'3 puzzles: a, b, c', or '20 puzzles, the first 12: a, ..., l (and 8 more; ...)': never a list cut silently."""
    names = sorted(groups)
    if len(names) <= _LISTED:
        return f"{len(names)} {what}{'s' if len(names) != 1 else ''}: {', '.join(names)}"
    every = (
        "`sudoku-lab report RESULTS --by puzzle` lists every one"
        if what == "puzzle"
        else ("`sudoku-lab report RESULTS` lists every one")
    )
    return (
        f"{len(names):,} {what}s, the first {_LISTED}: {', '.join(names[:_LISTED])} "
        f"(and {len(names) - _LISTED:,} more; {every})"
    )
