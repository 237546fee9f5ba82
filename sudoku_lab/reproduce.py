"""Re-run the RESEDA paper's experiments and print our numbers next to the published ones.

``sudoku-lab reproduce NAME`` with NAME one of :data:`EXPERIMENTS`. Every
experiment takes ``--runs`` (and Table 4 ``--puzzles``) to shrink it, and
``--param NAME=VALUE`` to try another reading of the paper (e.g.
``--param selection=groups``). Success counts are compared with the exact
binomial 95 % interval of the published count; times are compared as ratios
(the paper ran C++ on a 2.66 GHz Core 2 Duo).

Published numbers are copied from ``shared/paper_results.md`` (paper file
000_59ce2e996e12e8b9.txt) into :data:`PAPER`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import ParameterError
from .experiments import Task, run_tasks
from .stats import Rate, clopper_pearson, expected_time_to_success

__all__ = ["EXPERIMENTS", "PAPER", "Report", "run_experiment", "add_cli"]

#: The paper's numbers (000_59ce2e996e12e8b9.txt, via shared/paper_results.md).
PAPER = {
    "table1": {  # reseda_fig3_1_easy, 100 runs, no restart: (successes, mean steps of successful runs)
        0.99: {"permutations": (98, 574), "pre-computation": (100, 522), "both": (100, 188)},
        0.9: {"permutations": (82, 67), "pre-computation": (96, 60), "both": (100, 25)},
        0.7: {"permutations": (42, 25), "pre-computation": (71, 22), "both": (100, 9)},
        0.5: {"permutations": (11, 17), "pre-computation": (35, 14), "both": (100, 6)},
    },
    "table2": {0.99: (99, 277), 0.9: (81, 37), 0.7: (61, 14), 0.5: (43, 8), 0.3: (26, 7), 0.1: (12, 7)},
    "fig4_1_no_restart": (3, 100),
    "table3": {  # reseda_fig4_1_hard, 1000 attempts: successes, mean time per attempt (s), ETS (s)
        "none": (89, 0.198, 2.225), "diagonal": (474, 0.614, 1.295), "boxes": (619, 1.113, 1.798),
        "all": (906, 1.694, 1.869)},
    "table4": {  # Kennett levels, 1000 puzzles each: (successes, mean time per attempt) for 27, 9, 3 zones
        "very_easy": {"all": (1000, 0.046), "boxes": (1000, 0.049), "diagonal": (1000, 0.047)},
        "easy": {"all": (1000, 0.113), "boxes": (994, 0.129), "diagonal": (982, 0.104)},
        "medium": {"all": (959, 1.015), "boxes": (884, 0.718), "diagonal": (659, 0.502)},
        "hard": {"all": (811, 2.394), "boxes": (563, 1.451), "diagonal": (365, 0.726)},
        "fiendish": {"all": (605, 3.458), "boxes": (336, 1.831), "diagonal": (221, 0.824)},
    },
    "table5": {"diagonal": (0, 1.251), "boxes": (1, 2.857), "all": (9, 7.045)},  # ai_escargot, 1000 attempts
    "escargot_coupled": {"successes": 580, "attempts": 1000, "time": 1.517, "permutations": 24,
                         "mean_time_to_success": 63.0},
}

#: Experiments ``reproduce`` knows.
EXPERIMENTS = ("reseda-table1", "reseda-table2", "reseda-fig4-2", "reseda-table3", "reseda-table4",
               "reseda-escargot")

_COLUMNS = {
    "permutations": {"sampling": "blocks", "precompute": False},
    "pre-computation": {"sampling": "independent", "precompute": True},
    "both": {"sampling": "blocks", "precompute": True},
}
_ZONE_LABEL = {"diagonal": "1 zone of 3 (diagonal boxes)", "boxes": "1 zone of 9 (boxes)",
               "all": "1 zone of 27 (rows, columns, boxes)"}


@dataclass
class Report:
    """A reproduced table: a title, a header, rows of cells, and notes."""

    title: str
    header: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    interrupted: bool = False

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.header) + " |",
                 "|" + "|".join("---" for _ in self.header) + "|"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        if self.notes:
            lines += [""] + [f"- {n}" for n in self.notes]
        if self.interrupted:
            lines += ["", "**Interrupted: the rows above hold the runs finished so far.**"]
        return "\n".join(lines) + "\n"


def _ci_text(k: int, n: int) -> str:
    lo, hi = clopper_pearson(k, n)
    return f"[{100 * lo:.0f}, {100 * hi:.0f}] %"


#: Column headers of the cells :func:`_compare` returns.
_COMPARE = ("paper 95 % CI", "our 95 % CI", "verdict")


def _compare(k_paper: int, n_paper: int, k: int, n: int) -> list[str]:
    """Table cells: the paper's 95 % interval, ours, and the verdict.

    ``yes``: our rate lies inside the paper's interval. ``consistent``: it does
    not, but the paper's rate lies inside ours (with fewer runs than the paper
    our own uncertainty is the larger one, so the difference is not
    significant). ``**no**``: neither.
    """
    paper, ours = Rate(k_paper, n_paper), Rate(k, n)
    if paper.contains(ours):
        verdict = "yes"
    elif ours.contains(paper):
        verdict = "consistent"
    else:
        verdict = "**no**"
    return [_ci_text(k_paper, n_paper), _ci_text(k, n), verdict]


class _Runner:
    """Runs task lists with shared options (jobs, cancellation, progress)."""

    def __init__(self, jobs: int, should_stop: Callable[[], bool] | None, progress, params: dict):
        self.jobs = jobs
        self.should_stop = should_stop or (lambda: False)
        self.progress = progress
        self.params = params
        self.interrupted = False

    def run(self, tasks: list[Task], label: str) -> list:
        out = [None] * len(tasks)
        done = 0
        if self.progress:
            self.progress(label, 0, len(tasks))
        for i, res in run_tasks(tasks, jobs=self.jobs, should_stop=self.should_stop):
            out[i] = res
            done += 1
            if self.progress:
                self.progress(label, done, len(tasks))
        if done < len(tasks):
            self.interrupted = True
        return [r for r in out if r is not None]

    def p(self, **setting) -> dict:
        """The user's --param values, with the experiment's own settings (what the table varies) on top."""
        return {**self.params, **setting}


def _steps_of_success(results) -> float:
    steps = [r.iterations for r in results if r.solved]
    return float(np.mean(steps)) if steps else math.nan


def _success_cells(runner: _Runner, pz, params: dict, runs: int, seed: int, label: str, k_paper: int,
                   steps_paper) -> list | None:
    """Run seeds ``seed..seed+runs-1``; the table cells comparing successes and steps with the paper's.

    None if nothing finished (interrupted).
    """
    tasks = [Task("reseda", params, pz, seed + i, "solved,100000it", key=str(i)) for i in range(runs)]
    res = runner.run(tasks, label)
    if not res:
        return None
    k = sum(r.solved for r in res)
    return [f"{k_paper}/100", f"{k}/{len(res)}", *_compare(k_paper, 100, k, len(res)),
            steps_paper, f"{_steps_of_success(res):.1f}"]


def table1(runner: _Runner, runs: int, seed: int) -> Report:
    from . import library

    pz = library.puzzle("reseda_fig3_1_easy")
    rep = Report("RESEDA Table 1: reseda_fig3_1_easy, no restart (successes / mean steps of successful runs)",
                 ["alpha", "column", "paper", "ours", *_COMPARE, "paper steps", "our steps"])
    for alpha, cols in PAPER["table1"].items():
        for col, (k_paper, steps_paper) in cols.items():
            params = runner.p(restart="none", alpha=alpha, **_COLUMNS[col])
            cells = _success_cells(runner, pz, params, runs, seed, f"alpha {alpha} {col}", k_paper, steps_paper)
            if cells is None:
                rep.interrupted = True
                return rep
            rep.rows.append([alpha, col, *cells])
    rep.interrupted = runner.interrupted
    return rep


def table2(runner: _Runner, runs: int, seed: int) -> Report:
    from . import library

    pz = library.puzzle("reseda_fig3_2_medium")
    rep = Report("RESEDA Table 2: reseda_fig3_2_medium, both optimisations, no restart",
                 ["alpha", "paper", "ours", *_COMPARE, "paper steps", "our steps"])
    for alpha, (k_paper, steps_paper) in PAPER["table2"].items():
        params = runner.p(restart="none", alpha=alpha, sampling="blocks", precompute=True)
        cells = _success_cells(runner, pz, params, runs, seed, f"alpha {alpha}", k_paper, steps_paper)
        if cells is None:
            rep.interrupted = True
            return rep
        rep.rows.append([alpha, *cells])
    rep.interrupted = runner.interrupted
    return rep


def fig4_2(runner: _Runner, runs: int, seed: int, out: Path | None) -> Report:
    from . import figures, library
    from .grades import GradeResult, agreement

    pz = library.puzzle("reseda_fig4_1_hard")
    params = runner.p(restart="none")
    tasks = [Task("reseda", params, pz, seed + i, "solved,100000it", key=str(seed + i)) for i in range(runs)]
    res = runner.run(tasks, "Figure 4.2 runs")
    g = GradeResult(pz, np.array(pz.check()), "reseda", params, [seed + i for i in range(runs)], "solved,100000it",
                    runs=res)
    paper = library.reseda_fig4_2_grades()
    k_paper, n_paper = PAPER["fig4_1_no_restart"]
    ours = g.grade_grid()
    free = ~pz.givens.reshape(9, 9)
    rep = Report(f"RESEDA Figure 4.2: grades on reseda_fig4_1_hard over {g.runs_done} runs, no restart",
                 ["quantity", "paper", "ours"])
    rep.rows.append(["cells with the same grade", "81/81", f"{int(np.sum(ours == paper))}/81 "
                     f"({100 * agreement(ours, paper):.0f} %)"])
    rep.rows.append(["free cells with the same grade", f"{int(free.sum())}/{int(free.sum())}",
                     f"{int(np.sum((ours == paper) & free))}/{int(free.sum())}"])
    for grade in ("A", "B", ""):
        rep.rows.append([f"free cells graded {grade or 'blank'}", int(np.sum((paper == grade) & free)),
                         int(np.sum((ours == grade) & free))])
    rep.rows.append(["runs solved", f"{k_paper}/{n_paper}", f"{g.successes}/{g.runs_done}"])
    cmp = _compare(k_paper, n_paper, g.successes, max(g.runs_done, 1))
    rep.rows.append(["95 % interval of the runs solved", cmp[0], cmp[1]])
    rep.rows.append(["solved: verdict", "", cmp[2]])
    rep.notes.append("ours:  " + " / ".join("".join(ch or "." for ch in row) for row in ours))
    rep.notes.append("paper: " + " / ".join("".join(ch or "." for ch in row) for row in paper))
    if out is not None and g.runs_done:
        fig = figures.grade_figure(g, reference=paper)
        figures.save(fig, out)
        rep.notes.append(f"figure written to {out}")
    rep.interrupted = runner.interrupted
    return rep


def _attempts(runner, pz, params, runs, seed, label):
    tasks = [Task("reseda", params, pz, seed + i, "solved,1000000it", key=str(i)) for i in range(runs)]
    return runner.run(tasks, label)


def table3(runner: _Runner, runs: int, seed: int) -> Report:
    from . import library

    pz = library.puzzle("reseda_fig4_1_hard")
    rep = Report(f"RESEDA Table 3: reseda_fig4_1_hard, {runs} attempts per method (paper: 1000)",
                 ["method", "paper successes", "ours", *_COMPARE, "paper time/attempt",
                  "our time/attempt", "time ratio paper/ours", "paper ETS", "our ETS"])
    methods = [("none", "no partial restart", dict(restart="none"))] + [
        (z, f"restart with {_ZONE_LABEL[z]}", dict(restart="partial", zones=z)) for z in ("diagonal", "boxes", "all")]
    for key, label, setting in methods:
        res = _attempts(runner, pz, runner.p(**setting), runs, seed, label)
        if not res:
            rep.interrupted = True
            return rep
        k = sum(r.solved for r in res)
        t = float(np.mean([r.seconds for r in res]))
        kp, tp, etsp = PAPER["table3"][key]
        ets = expected_time_to_success(t, k, len(res))
        rep.rows.append([label, f"{kp}/1000", f"{k}/{len(res)}", *_compare(kp, 1000, k, len(res)),
                         f"{tp:.3f} s", f"{t:.4f} s", f"{tp / t:.1f}x", f"{etsp:.3f} s", f"{ets:.3f} s"])
    rep.interrupted = runner.interrupted
    return rep


def table4(runner: _Runner, puzzles: int, seed: int) -> Report:
    from . import library

    rep = Report(f"RESEDA Table 4: Kennett levels, one attempt per puzzle, {puzzles} puzzles per level "
                 "(paper: 1000): successes and mean time per attempt",
                 ["level", "zones", "paper", "ours", *_COMPARE, "paper time", "our time",
                  "ratio"])
    ets = {}
    for level, cols in PAPER["table4"].items():
        pzs = library.collection(f"kennett/{level}")[:puzzles]
        for zones in ("all", "boxes", "diagonal"):
            params = runner.p(restart="partial", zones=zones)
            tasks = [Task("reseda", params, p, seed + i, "solved,1000000it", key=str(i)) for i, p in enumerate(pzs)]
            res = runner.run(tasks, f"{level} {zones}")
            if not res:
                rep.interrupted = True
                return rep
            k = sum(r.solved for r in res)
            t = float(np.mean([r.seconds for r in res]))
            kp, tp = cols[zones]
            rep.rows.append([level.replace("_", " "), {"all": 27, "boxes": 9, "diagonal": 3}[zones], f"{kp}/1000",
                             f"{k}/{len(res)}", *_compare(kp, 1000, k, len(res)),
                             f"{tp:.3f} s", f"{t:.4f} s", f"{tp / t:.1f}x"])
            if zones == "diagonal":
                ets[level] = (expected_time_to_success(tp, kp, 1000), expected_time_to_success(t, k, len(res)))
    rep.notes.append("Recommended strategy (3 diagonal zones, then full restarts), mean time to solve = time / "
                     "success rate: " + "; ".join(f"{lv.replace('_', ' ')} paper {a:.3f} s, ours {b:.3f} s"
                                                  for lv, (a, b) in ets.items()))
    rep.interrupted = runner.interrupted
    return rep


def escargot(runner: _Runner, runs: int, seed: int, solve_runs: int) -> Report:
    from . import library
    from .puzzle import Puzzle
    from .solvers.reseda import admissible_box_permutations

    pz = library.puzzle("ai_escargot")
    sol = np.array(pz.check())
    rep = Report(f"RESEDA Table 5 and section 5.2: ai_escargot, {runs} attempts per row (paper: 1000)",
                 ["method", "paper", "ours", *_COMPARE, "paper time/attempt", "our time/attempt"])
    for zones in ("diagonal", "boxes", "all"):
        res = _attempts(runner, pz, runner.p(restart="partial", zones=zones), runs, seed, f"escargot {zones}")
        if not res:
            rep.interrupted = True
            return rep
        k = sum(r.solved for r in res)
        kp, tp = PAPER["table5"][zones]
        rep.rows.append([f"partial restart, {_ZONE_LABEL[zones]}", f"{kp}/1000", f"{k}/{len(res)}",
                         *_compare(kp, 1000, k, len(res)), f"{tp:.3f} s",
                         f"{float(np.mean([r.seconds for r in res])):.4f} s"])
    perms = admissible_box_permutations(pz.grid, pz.n, 0)
    box = pz.geometry.units[2 * pz.N]
    fixed = pz.grid.copy()
    fixed[box] = sol[box]
    right = Puzzle(fixed, n=pz.n, name="ai_escargot + right top-left permutation")
    res = _attempts(runner, right, runner.p(restart="partial", zones="all"), runs, seed, "escargot, right box")
    if res:
        k = sum(r.solved for r in res)
        t = float(np.mean([r.seconds for r in res]))
        c = PAPER["escargot_coupled"]
        rep.rows.append(["right permutation of the top-left box fixed, 27 zones", f"{c['successes']}/1000",
                         f"{k}/{len(res)}", *_compare(c["successes"], 1000, k, len(res)), f"{c['time']:.3f} s",
                         f"{t:.4f} s"])
        est = expected_time_to_success(t * len(perms), k, len(res))
        rep.notes.append(f"admissible permutations of the top-left box: paper {c['permutations']}, ours {len(perms)}")
        rep.notes.append(f"estimated mean time to success with coupling ({len(perms)} x time / rate): paper "
                         f"{c['mean_time_to_success']:.0f} s, ours {est:.1f} s")
    if solve_runs > 0:
        params = runner.p(restart="partial", zones="all", coupling=True, coupling_box=1)
        tasks = [Task("reseda", params, pz, seed + i, "solved,3600s", key=str(i)) for i in range(solve_runs)]
        solved = runner.run(tasks, "escargot coupling until solved")
        if solved:
            times = [r.seconds for r in solved]
            ok = sum(r.solved for r in solved)
            rep.rows.append([f"coupling run until solved (measured, {len(solved)} seeds)", "~63 s (estimate)",
                             f"{ok}/{len(solved)} solved", "", "", "", f"mean {np.mean(times):.1f} s, max "
                             f"{np.max(times):.1f} s to success"])
    rep.interrupted = runner.interrupted
    return rep


def run_experiment(name: str, *, runs: int | None = None, puzzles: int | None = None, seed: int = 0, jobs: int = 1,
                   params: dict | None = None, out: Path | None = None, solve_runs: int = 3,
                   should_stop=None, progress=None) -> Report:
    """Run one of :data:`EXPERIMENTS` and return its report (see the module docstring)."""
    from .solvers import get_solver_class

    params = dict(params or {})
    get_solver_class("reseda").validate_params(params)
    runner = _Runner(jobs, should_stop, progress, params)
    if name == "reseda-table1":
        return table1(runner, runs or 100, seed)
    if name == "reseda-table2":
        return table2(runner, runs or 100, seed)
    if name == "reseda-fig4-2":
        return fig4_2(runner, runs or 100, seed, out)
    if name == "reseda-table3":
        return table3(runner, runs or 1000, seed)
    if name == "reseda-table4":
        return table4(runner, puzzles or 200, seed)
    if name == "reseda-escargot":
        return escargot(runner, runs or 100, seed, solve_runs)
    raise ParameterError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}", name="experiment")


# ---------------------------------------------------------------------- CLI
def add_cli(sub) -> None:
    from ._console import int_option, seed_option

    r = sub.add_parser("reproduce", help="re-run a paper's experiment and compare with the published numbers",
                       description="Re-run one of the RESEDA paper's experiments and print our numbers next to "
                       "the paper's, with exact binomial 95 % intervals. Shrink with --runs / --puzzles; try "
                       "another reading of the paper with --param NAME=VALUE. Ctrl-C prints what finished.")
    r.add_argument("experiment", choices=EXPERIMENTS, help="the experiment: " + ", ".join(EXPERIMENTS))
    r.add_argument("--runs", type=int_option(1, 1_000_000), default=None,
                   help="runs or attempts per configuration (default: the paper's 100, or 1000 for Table 3; 100 "
                        "for AI Escargot)")
    r.add_argument("--puzzles", type=int_option(1, 200), default=None,
                   help="Table 4: puzzles per Kennett level, 1 to 200 (default 200)")
    r.add_argument("--seed", type=seed_option, default=0, help="first seed (default 0)")
    r.add_argument("--jobs", type=int_option(1), default=1,
                   help="worker processes (default 1: times stay comparable; capped at the CPUs available)")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="override a RESEDA parameter for every configuration, e.g. selection=groups")
    r.add_argument("--out", default=None, help="reseda-fig4-2: write the figure here (.pdf/.svg/.png)")
    r.add_argument("--solve-runs", type=int_option(0, 1000), default=3,
                   help="reseda-escargot: coupled runs until solved (default 3)")
    r.add_argument("--markdown", default=None, help="also write the report to this Markdown file")
    r.add_argument("--quiet", action="store_true", help="no progress output")
    r.set_defaults(func=cmd_reproduce)


def _parse_params(items) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"--param needs NAME=VALUE, got {item!r}", name="param")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def cmd_reproduce(args) -> int:
    from ._console import ProgressBar, interruptible
    from ._files import atomic_write_text, check_figure_path, check_writable
    from .experiments import effective_jobs

    # Every option is checked before the first run, not after an hour of them.
    params = _parse_params(args.param)
    from .solvers import get_solver_class

    get_solver_class("reseda").validate_params(params)
    out = None
    if args.out:
        if args.experiment != "reseda-fig4-2":
            raise ParameterError(f"--out applies to reseda-fig4-2 only (the figure of the grades), not to "
                                 f"{args.experiment}", name="out")
        out = check_figure_path(args.out)
    if args.markdown:
        check_writable(args.markdown, "report")
    jobs, note = effective_jobs(args.jobs)
    if note:
        print(f"sudoku-lab: note: {note}", file=sys.stderr)
    bars = {}

    def progress(label, done, total):
        if args.quiet:
            return
        bar = bars.setdefault(label, ProgressBar(unit="runs", label=label))
        bar.update(done, total)
        if done == total:
            bar.close()

    intr = interruptible("stopping: the report will hold the runs finished so far (Ctrl-C again to quit at once)")
    with intr as stop:
        rep = run_experiment(args.experiment, runs=args.runs, puzzles=args.puzzles, seed=args.seed, jobs=jobs,
                             params=params, out=out, solve_runs=args.solve_runs, should_stop=stop.is_set,
                             progress=progress)
    text = rep.markdown()
    cmd = "sudoku-lab reproduce " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["reproduce"] else [args.experiment])
    print(text)
    if args.markdown:
        atomic_write_text(args.markdown, f"Command: `{cmd}`\n\n" + text, "report")
    return intr.exit_status if rep.interrupted else 0
