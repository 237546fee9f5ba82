"""Reproductions of the hill-climbing paper (Jones, Roach and Perkins 2008): Figures 4 and 5.

The paper's 100 test puzzles (rated easy, medium, hard and hardest) are not
bundled, so both figures run on a sample of the bundled Kennett levels easy,
medium, hard and fiendish, standing for the paper's four ratings. Seeds run
``seed .. seed + k - 1`` over the sample. Published numbers are in
:data:`PAPER`. Times are compared only as ratios between levels: the paper ran
Java on a 3.4 GHz Pentium 4 and its times (up to 35,000 s a puzzle) include
much more than the search.
"""

from __future__ import annotations

import math

import numpy as np

from ..citations import cite
from . import Option, Paper, Report, Runner, register_paper, register_reproduction

register_paper(
    Paper("jones", cite("jones2008").full.rstrip("."), "Figures 4 and 5 of the paper (section 4.4 and section 5)")
)

#: The paper's numbers.
PAPER: dict[str, dict[str, tuple[float, ...]]] = {
    # Figure 4: mean iterations to solve, initial f1, initial clashes with givens (puzzles solved).
    "figure4": {"greedy alone": (71, 164, 59), "greedy + post-swap": (66, 173, 26)},
    # Figure 5: mean givens, iterations, restarts, time to solve (ms), 100 puzzles over four ratings.
    "figure5": {
        "easy": (31.12, 233.96, 0.12, 1443996.56),
        "medium": (25.84, 392.08, 1.08, 1256019.20),
        "hard": (23.44, 724.60, 2.80, 3110608.32),
        "hardest": (20.33, 3587.58, 3.39, 34921304.31),
    },
}

#: Kennett level standing for each of the paper's ratings.
LEVELS = {"easy": "easy", "medium": "medium", "hard": "hard", "hardest": "fiendish"}

#: Moves a run may take before it counts as unsolved.
UNTIL = "solved,200000it"
BUDGET_TEXT = "200,000"

SAMPLE_NOTE = (
    "The paper's 100 test puzzles are not bundled: a sample of the bundled Kennett levels stands for them "
    "(easy, medium, hard, fiendish for the paper's easy, medium, hard, hardest), the first puzzles of "
    "each level, one run each, seeds counted from --seed."
)


def _sample(puzzles: int):
    from ..model import library

    return {rating: library.collection(f"kennett/{level}")[:puzzles] for rating, level in LEVELS.items()}


def _mean(xs) -> float:
    return float(np.mean(xs)) if len(xs) else math.nan


@register_reproduction(
    "hill-climb-figure4",
    paper="jones",
    solver="hill_climb",
    title="Figure 4: greedy initialisation alone vs greedy + post-swapping",
    options={
        "runs": Option(25, "runs per Kennett level: its first RUNS puzzles, one seeded run each", low=1, high=200)
    },
    quick={"runs": 10},
)
def figure4(runner: Runner, runs: int) -> Report:
    puzzles = runs
    sample = [p for pzs in _sample(puzzles).values() for p in pzs]
    rep = Report(
        f"Hill climbing Figure 4: initialisation on {len(sample)} Kennett puzzles ({puzzles} per level)",
        [
            "initialisation",
            "paper iterations",
            "our iterations",
            "paper f1",
            "our f1",
            "paper clashes with givens",
            "our clashes with givens",
            "solved",
        ],
    )
    for label, post in (("greedy alone", False), ("greedy + post-swap", True)):
        params = runner.p(greedy=True, post_swap=post)
        res = runner.run(runner.each("hill_climb", params, sample, UNTIL, puzzle_set="kennett sample"), label)
        if not res:
            rep.interrupted = True
            return rep
        solved = [r for r in res if r.solved]
        it_p, f1_p, cl_p = PAPER["figure4"][label]
        rep.rows.append(
            [
                label,
                it_p,
                f"{_mean([r.iterations for r in solved]):.1f}",
                f1_p,
                f"{_mean([r.extra['init_f1'] for r in solved]):.1f}",
                cl_p,
                f"{_mean([r.extra['init_f2'] for r in solved]):.1f}",
                f"{len(solved)}/{len(res)}",
            ]
        )
    rep.notes.append(SAMPLE_NOTE)
    rep.notes.append(
        "The paper's f1 (164, 173) is above the largest distinct count over rows and columns of a 9x9 "
        "grid (2 x 81 = 162), so its f1 (and probably its clash count) was not measured as defined "
        "here; only the direction of the change (post-swapping raises f1 and lowers the clashes) "
        "compares."
    )
    rep.notes.append(
        "As in the paper, the averages are over the puzzles solved; f1 and the clashes with givens are "
        "those of the first initial state (before any restart), iterations are moves to the solution "
        f"over all restarts (budget {BUDGET_TEXT} moves)."
    )
    rep.interrupted = runner.interrupted
    return rep


@register_reproduction(
    "hill-climb-figure5",
    paper="jones",
    solver="hill_climb",
    title="Figure 5: givens, iterations, restarts and time by difficulty",
    options={
        "runs": Option(
            25,
            "runs per Kennett level: its first RUNS puzzles, one seeded run each (paper: 100 puzzles in 4 ratings)",
            low=1,
            high=200,
            grows=True,
        )
    },
    quick={"runs": 10},
)
def figure5(runner: Runner, runs: int) -> Report:
    puzzles = runs
    rep = Report(
        f"Hill climbing Figure 5: by difficulty, {puzzles} Kennett puzzles per level",
        [
            "paper rating",
            "Kennett level",
            "paper givens",
            "our givens",
            "paper iterations",
            "our iterations",
            "paper restarts",
            "our restarts",
            "paper time / easy",
            "our time / easy",
            "our time (ms)",
            "solved",
        ],
    )
    base_paper = PAPER["figure5"]["easy"][3]
    base_ours = None
    for rating, pzs in _sample(puzzles).items():
        params = runner.p()
        res = runner.run(runner.each("hill_climb", params, pzs, UNTIL, puzzle_set=f"kennett/{LEVELS[rating]}"), rating)
        if not res:
            rep.interrupted = True
            return rep
        solved = [r for r in res if r.solved]
        t = _mean([r.seconds for r in res]) * 1000
        if base_ours is None:
            base_ours = t
        gp, ip, rp, tp = PAPER["figure5"][rating]
        givens = _mean([int((p.grid > 0).sum()) for p in pzs[: len(res)]])
        rep.rows.append(
            [
                rating,
                LEVELS[rating],
                f"{gp:.2f}",
                f"{givens:.2f}",
                f"{ip:.1f}",
                f"{_mean([r.iterations for r in res]):.1f}",
                f"{rp:.2f}",
                f"{_mean([r.extra['restarts'] for r in res]):.2f}",
                f"{tp / base_paper:.2f}",
                f"{t / base_ours:.2f}" if base_ours else "n/a",
                f"{t:.2f}",
                f"{len(solved)}/{len(res)}",
            ]
        )
    rep.notes.append(SAMPLE_NOTE)
    rep.notes.append(
        f"Averages over every run (the paper solved all its puzzles; runs stop at {BUDGET_TEXT} "
        "moves). Times are compared only as ratios to the easy level's: the paper's absolute times "
        "(Java, Pentium 4, 1,444 to 34,921 s a puzzle) say little about the search itself."
    )
    rep.interrupted = runner.interrupted
    return rep
