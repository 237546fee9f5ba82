"""Per-cell correctness grades over many runs: the RESEDA paper's Figure 4.2, for any solver.

For R seeded runs of one configuration, each cell's *fraction correct* is the
share of runs whose final grid (``Snapshot.grid``) holds the solution's digit
there. Grade ``A``: right in at least ``a`` of the runs (default all), ``B``:
at least ``b`` (default 90 %), blank otherwise; givens are ``A``.

>>> from sudoku_lab import library
>>> from sudoku_lab.grades import correctness_grades
>>> g = correctness_grades(library.puzzle("reseda_fig3_1_easy"), "reseda", {"restart": "none"}, runs=5)
>>> g.grade_grid().shape, g.runs_done
((9, 9), 5)
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from . import __version__
from .errors import DataFileError, ParameterError, PuzzleError
from .experiments import ResultsFile, Task, run_tasks
from .geometry import cell_name
from .puzzle import Puzzle

__all__ = ["GradeResult", "correctness_grades", "grade_cells", "agreement", "add_cli"]


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


def agreement(ours: np.ndarray, theirs: np.ndarray) -> float:
    """Share of cells with the same grade in two (N, N) or (C,) grade arrays."""
    a, b = np.asarray(ours).reshape(-1), np.asarray(theirs).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"grade grids differ in size: {a.size} vs {b.size} cells")
    return float(np.mean(a == b))


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
        return (f"{self.puzzle.name or 'puzzle'}: {self.solver} over {self.runs_done} runs: "
                f"{self.successes} solved, mean final cost {self.mean_cost:.2f}; free cells graded "
                f"A {int(np.sum(g == 'A'))}, B {int(np.sum(g == 'B'))}, blank {int(np.sum(g == ''))}")

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
            "runs": [{"seed": r.seed, "solved": r.solved, "cost": r.cost, "iterations": r.iterations,
                      "seconds": round(r.seconds, 6)} for r in self.runs],
        }

    def save_json(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    def to_csv(self) -> str:
        """One row per cell: row, col, cell name, given, solution digit, fraction correct, grade."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["row", "col", "cell", "given", "solution", "fraction_correct", "grade"])
        N = self.puzzle.N
        f, g = self.fraction, self.grades
        for c in range(self.puzzle.C):
            w.writerow([c // N + 1, c % N + 1, cell_name(c, N), int(self.puzzle.grid[c] > 0),
                        int(self.solution[c]), f"{f[c]:.4f}", g[c]])
        return buf.getvalue()

    def save_csv(self, path) -> None:
        Path(path).write_text(self.to_csv(), encoding="utf-8")

    def to_latex(self, caption: str | None = None) -> str:
        """The grade grid as a LaTeX ``tabular`` with box rules (needs no extra packages)."""
        n, N = self.puzzle.n, self.puzzle.N
        cols = "|" + "|".join(["c" * n] * n) + "|"
        lines = [r"\begin{tabular}{" + cols + "}", r"\hline"]
        grid = self.grade_grid()
        for r in range(N):
            lines.append(" & ".join(grid[r]) + r" \\")
            if (r + 1) % n == 0:
                lines.append(r"\hline")
        lines.append(r"\end{tabular}")
        if caption:
            lines = [r"\begin{table}[h]", r"\centering", *lines, r"\caption{" + caption + "}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    @classmethod
    def load_json(cls, path) -> "GradeResult":
        """Read a file written by :meth:`save_json` (fraction and grades are recomputed from runs)."""
        path = Path(path)
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            if d.get("kind") != "correctness_grades":
                raise KeyError("kind")
            n = int(d["puzzle"]["n"])
            pz = Puzzle.parse(d["puzzle"]["grid"], n=n, name=d["puzzle"]["name"])
            sol = Puzzle.parse(d["solution"], n=n).grid
            res = cls(pz, sol.copy(), d["solver"], d["params"], d["seeds"], d["until"], tuple(d["thresholds"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise DataFileError(f"{path}: not a grades file written by Sudoku Lab ({e})", path=path) from None
        return res


def correctness_grades(puzzle: Puzzle, solver: str = "reseda", params: dict | None = None, runs: int = 100,
                       seed: int = 0, until: str = "solved,100000it", thresholds=(1.0, 0.9), jobs: int = 1,
                       results_file=None, should_stop: Callable[[], bool] | None = None,
                       progress: Callable[[int, int], None] | None = None) -> GradeResult:
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
        R (default 100, as in the paper).
    seed : int
        Run i uses seed ``seed + i``.
    until : str
        Stopping rule of each run (the solver finishing always ends it).
    thresholds : (float, float)
        Grade A and B thresholds.
    jobs : int
        Worker processes.
    results_file : path, optional
        JSON-lines file where each run is saved as it finishes; an existing
        file of the same configuration is resumed.
    should_stop : callable, optional
        Checked between (and, with ``jobs=1``, during) runs; the result then
        holds the runs finished so far.
    progress : callable, optional
        ``progress(done, total)`` after each run.
    """
    from .solvers import get_solver_class

    if runs < 1:
        raise ParameterError(f"runs must be at least 1, got {runs}", name="runs")
    params = dict(params or {})
    cls = get_solver_class(solver)
    params = {k: v for k, v in cls(**params).get_params().items() if k in params}  # validated, typed
    grade_cells(np.zeros(1), np.zeros(1, bool), *thresholds)  # validate thresholds early
    try:
        solution = np.array(puzzle.check(unique=True))
    except PuzzleError as e:
        raise PuzzleError(f"grades need a puzzle with one solution: {e}", kind=e.kind, cells=e.cells) from None
    seeds = [seed + i for i in range(runs)]
    result = GradeResult(puzzle, solution, solver, params, seeds, until, tuple(thresholds))
    store = None
    if results_file is not None:
        header = {"kind": "grades", "solver": solver, "params": params, "puzzle": puzzle.to_line(),
                  "until": until, "seed0": seed}
        store = ResultsFile(results_file, header, puzzle.n)
        result.runs.extend(store.results[k] for k in sorted(store.results, key=lambda k: int(k)) if
                           int(k) in seeds)
    done_keys = {r.key for r in result.runs}
    tasks = [Task(solver, params, puzzle, s, until, key=str(s)) for s in seeds if str(s) not in done_keys]
    if progress:
        progress(len(result.runs), runs)
    for _, res in run_tasks(tasks, jobs=jobs, should_stop=should_stop):
        result.runs.append(res)
        if store is not None:
            store.add(res)
        if progress:
            progress(len(result.runs), runs)
    result.runs.sort(key=lambda r: r.seed)
    return result


# ---------------------------------------------------------------------- CLI
def add_cli(sub, add_solver_params) -> None:
    g = sub.add_parser(
        "grades", help="per-cell correctness grades over many runs (the RESEDA paper's Figure 4.2)",
        description="Run --runs seeded runs of --algo on PUZZLE and grade every cell: A if the final grid "
        "was right there in all runs, B in at least 90 %%. Writes the figure (--out: .pdf, .svg or .png), "
        "the grades as CSV and JSON next to it, and each finished run to OUT.runs.jsonl: Ctrl-C stops "
        "with the finished runs saved, and the same command resumes.")
    g.add_argument("puzzle", help="file, bundled puzzle name or puzzle text (needs a unique solution)")
    g.add_argument("--algo", default="reseda", help="algorithm (default reseda)")
    g.add_argument("--runs", type=int, default=100, help="number of runs R (default 100)")
    g.add_argument("--seed", type=int, default=0, help="run i uses seed SEED+i (default 0)")
    g.add_argument("--until", default="solved,100000it", help="stopping rule per run (default solved,100000it)")
    g.add_argument("--out", default="grades.pdf", help="figure file, .pdf/.svg/.png (default grades.pdf)")
    g.add_argument("--dpi", type=int, default=200, help="PNG resolution (default 200)")
    g.add_argument("--thresholds", default="1.0,0.9", help="fractions for grades A,B (default 1.0,0.9)")
    g.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    g.add_argument("--no-shade", action="store_true", help="do not shade cells by fraction correct")
    g.add_argument("--latex", action="store_true", help="also write OUT.tex with a LaTeX table")
    g.add_argument("--compare", default=None,
                   help="reference grades to compare with: 'paper' (Figure 4.2) or a grades .json file")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    add_solver_params(g)
    g.set_defaults(func=cmd_grades)


def cmd_grades(args) -> int:
    import sys

    from . import figures
    from ._console import ProgressBar, interruptible
    from .cli import EXIT_INTERRUPTED, _solver_params, resolve_puzzle
    from .solvers import get_solver_class

    try:
        a, b = (float(x) for x in args.thresholds.split(","))
    except ValueError:
        raise ParameterError(f"--thresholds needs two numbers like 1.0,0.9, got {args.thresholds!r}",
                             name="thresholds") from None
    out = Path(args.out)
    if out.suffix.lower() not in (".pdf", ".svg", ".png"):
        raise ParameterError(f"--out must end in .pdf, .svg or .png, got {out.name!r}", name="out")
    puzzle = resolve_puzzle(args.puzzle)
    cls = get_solver_class(args.algo)
    params = _solver_params(cls, args)
    bar = ProgressBar(enabled=not args.quiet)
    with interruptible() as stop:
        res = correctness_grades(puzzle, args.algo, params, runs=args.runs, seed=args.seed, until=args.until,
                                 thresholds=(a, b), jobs=args.jobs, results_file=out.with_suffix(".runs.jsonl"),
                                 should_stop=stop.is_set, progress=bar.update)
        interrupted = stop.is_set()
    bar.close()
    if res.runs_done == 0:
        print("sudoku-lab: no run finished; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else 1
    reference = _reference(args.compare, puzzle)
    fig = figures.grade_figure(res, shade=not args.no_shade, reference=reference)
    figures.save(fig, out, dpi=args.dpi)
    res.save_csv(out.with_suffix(".grades.csv"))
    res.save_json(out.with_suffix(".grades.json"))
    if args.latex:
        out.with_suffix(".tex").write_text(res.to_latex(caption=res.summary()), encoding="utf-8")
    print(res.summary())
    if reference is not None:
        print(f"agreement with {args.compare}: {100 * agreement(res.grade_grid(), reference):.1f} % of cells")
    print(f"wrote {out}, {out.with_suffix('.grades.csv')}, {out.with_suffix('.grades.json')}"
          + (f", {out.with_suffix('.tex')}" if args.latex else ""))
    if interrupted:
        print(f"interrupted after {res.runs_done} of {args.runs} runs; run the same command to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _reference(spec, puzzle):
    if spec is None:
        return None
    if spec == "paper":
        from . import library

        if puzzle.to_line() != library.puzzle("reseda_fig4_1_hard").to_line():
            raise ParameterError("--compare paper needs puzzle reseda_fig4_1_hard (the paper's Figure 4.1)",
                                 name="compare")
        return library.reseda_fig4_2_grades()
    other = GradeResult.load_json(spec)
    d = json.loads(Path(spec).read_text(encoding="utf-8"))
    return np.array(d["grades"]).reshape(other.puzzle.N, other.puzzle.N)
