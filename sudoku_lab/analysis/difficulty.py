"""Human-technique difficulty against qqwing's classes, and against the correctness grades of stochastic runs.

:func:`qqwing_classes` runs Debian's ``qqwing`` on 9 x 9 puzzles and reads the
class it gives each (simple, easy, intermediate, expert: qqwing says *expert*
when its solver has to guess, *intermediate* when it needs naked or hidden
pairs or locked candidates, *easy* for hidden singles, *simple* for naked
singles only). :func:`qqwing_agreement` tabulates our HoDoKu-style grade
(:func:`sudoku_lab.exact.human.rate`) against those classes per group of
puzzles (the Kennett levels) and measures whether the two orderings agree.

:func:`technique_correlation` relates the per-cell correctness grades of
:mod:`sudoku_lab.analysis.grades` (the fraction of runs that got a cell right)
to the HoDoKu level of the technique each cell's placement needed
(:attr:`sudoku_lab.exact.human.Rating.cell_level`): Spearman's rho with its
p-value per puzzle and pooled over the puzzles.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import checked
from ..errors import ParameterError, SudokuLabError
from ..exact.human import GRADES, rate
from ..model.puzzle import Puzzle

__all__ = [
    "QQWING_CLASSES",
    "qqwing_classes",
    "AgreementTable",
    "qqwing_agreement",
    "CorrelationReport",
    "technique_correlation",
    "load_grade_fractions",
    "TECHNIQUE_COLOURS",
]

#: A colour per technique of :data:`sudoku_lab.exact.human.TECHNIQUES` (the figures and the lab's overlay):
#: greens for HoDoKu's easy techniques, oranges for medium, blues and purples for hard, pink for the last resort;
#: all light enough for a digit or a grade letter on top.
TECHNIQUE_COLOURS: tuple[str, ...] = (
    "#edf8e9",  # full house
    "#c7e9c0",  # naked single
    "#74c476",  # hidden single
    "#fee391",  # locked candidates (pointing)
    "#fec44f",  # locked candidates (claiming)
    "#fdae6b",  # naked pair
    "#fd8d3c",  # naked triple
    "#fdd0a2",  # hidden pair
    "#f16913",  # hidden triple
    "#c6dbef",  # naked quad
    "#9ecae1",  # hidden quad
    "#6baed6",  # X-wing
    "#4292c6",  # swordfish
    "#bcbddc",  # XY-wing
    "#9e9ac8",  # simple colouring
    "#f768a1",  # trial and error (bifurcation)
)

#: qqwing's difficulty classes, easiest first (its ``Difficulty`` enum without UNKNOWN).
QQWING_CLASSES: tuple[str, ...] = ("simple", "easy", "intermediate", "expert")


@checked
def qqwing_classes(puzzles: Sequence[Puzzle], program: str = "qqwing") -> list[str]:
    """qqwing's class of each 9 x 9 puzzle (``qqwing --solve --stats --csv``), lower case.

    Raises
    ------
    SudokuLabError
        qqwing is not on the PATH, fails, or a puzzle is not 9 x 9.
    """
    exe = shutil.which(program)
    if exe is None:
        raise SudokuLabError(f"{program} is not installed (Debian/Ubuntu: apt install qqwing)")
    for p in puzzles:
        if p.N != 9:
            raise ParameterError(f"qqwing rates 9x9 puzzles only; {p.name or 'a puzzle'} is {p.N}x{p.N}")
    text = "".join(p.to_line() + "\n" for p in puzzles)
    out = subprocess.run(
        [exe, "--solve", "--stats", "--csv", "--nosolution"], input=text, capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        raise SudokuLabError(f"{program} failed (exit status {out.returncode}): {out.stderr.strip()[:200]}")
    rows = [line.split(",") for line in out.stdout.splitlines() if line.strip()]
    rows = [r for r in rows if r and r[0] != "Givens"]  # the header line
    classes = [r[9].strip().lower() for r in rows if len(r) > 9]
    if len(classes) != len(puzzles) or any(c not in QQWING_CLASSES for c in classes):
        raise SudokuLabError(f"{program} gave {len(classes)} ratings for {len(puzzles)} puzzles")
    return classes


@checked
@dataclass(frozen=True)
class AgreementTable:
    """Our grades against qqwing's classes, per group of puzzles.

    Attributes
    ----------
    groups : tuple of str
        Group names (the Kennett levels), in the order given (easiest first).
    grade_counts : ndarray of int64, shape (G, 5)
        Puzzles per group and grade of :data:`sudoku_lab.exact.human.GRADES`.
    qqwing_counts : ndarray of int64, shape (G, 4)
        Puzzles per group and class of :data:`QQWING_CLASSES`.
    grade_mean_rank, qqwing_mean_rank : ndarray of float64, shape (G,)
        Mean rank per group (grades 1..5, classes 1..4).
    spearman, spearman_p, kendall, kendall_p : float
        Spearman's rho and Kendall's tau-b between our grade rank and qqwing's class rank over all
        puzzles, with their p-values (scipy.stats).
    ordering_agrees : bool
        True when the groups' mean ranks are ordered the same way by both raters (equal order of the
        mean-rank vectors, ties excepted).
    """

    groups: tuple[str, ...]
    grade_counts: np.ndarray
    qqwing_counts: np.ndarray
    grade_mean_rank: np.ndarray
    qqwing_mean_rank: np.ndarray
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float
    ordering_agrees: bool

    def rows(self) -> list[list[str]]:
        """Table rows: group, puzzles, counts per grade, counts per qqwing class, the two mean ranks."""
        out = []
        for i, g in enumerate(self.groups):
            out.append(
                [g, str(int(self.grade_counts[i].sum()))]
                + [str(int(x)) for x in self.grade_counts[i]]
                + [str(int(x)) for x in self.qqwing_counts[i]]
                + [f"{self.grade_mean_rank[i]:.2f}", f"{self.qqwing_mean_rank[i]:.2f}"]
            )
        return out

    @staticmethod
    def header() -> list[str]:
        """Column names of :meth:`rows`."""
        return ["level", "puzzles", *GRADES, *(f"q:{c}" for c in QQWING_CLASSES), "grade rank", "qqwing rank"]

    def summary(self) -> str:
        """One line: the correlations and whether the orderings agree."""
        return (
            f"Spearman rho {self.spearman:.3f} (p = {self.spearman_p:.2g}), Kendall tau-b {self.kendall:.3f} "
            f"(p = {self.kendall_p:.2g}) over {int(self.grade_counts.sum())} puzzles; mean ranks per level "
            f"{'increase the same way' if self.ordering_agrees else 'are ordered differently'}"
        )

    def to_markdown(self) -> str:
        """The table in Markdown, followed by the summary line."""
        head = self.header()
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows()]
        return "\n".join(lines) + "\n\n" + self.summary() + "\n"


def _same_order(a: np.ndarray, b: np.ndarray) -> bool:
    """Every pair of groups strictly ordered by one rater is not ordered the opposite way by the other."""
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if (a[i] - a[j]) * (b[i] - b[j]) < 0:
                return False
    return True


@checked
def qqwing_agreement(
    groups: Mapping[str, Sequence[Puzzle]], classes: Mapping[str, Sequence[str]] | None = None
) -> AgreementTable:
    """Rate every puzzle of every group by human techniques and by qqwing; the agreement table.

    Parameters
    ----------
    groups : mapping of str to sequence of Puzzle
        The groups in order, easiest first (``{"very_easy": [...], ...}``).
    classes : mapping of str to sequence of str, optional
        qqwing's classes per group, when already known; else :func:`qqwing_classes` runs qqwing.
    """
    from scipy import stats

    names = tuple(groups)
    gc = np.zeros((len(names), len(GRADES)), dtype=np.int64)
    qc = np.zeros((len(names), len(QQWING_CLASSES)), dtype=np.int64)
    ours: list[int] = []
    theirs: list[int] = []
    gm = np.zeros(len(names))
    qm = np.zeros(len(names))
    for i, name in enumerate(names):
        ps = list(groups[name])
        q = list(classes[name]) if classes is not None else qqwing_classes(ps)
        g = [GRADES.index(rate(p).grade) for p in ps]
        k = [QQWING_CLASSES.index(c) for c in q]
        for a, b in zip(g, k):
            gc[i, a] += 1
            qc[i, b] += 1
        ours += g
        theirs += k
        gm[i] = np.mean(g) + 1 if g else np.nan
        qm[i] = np.mean(k) + 1 if k else np.nan
    rho, rp = stats.spearmanr(ours, theirs)
    tau, tp = stats.kendalltau(ours, theirs)
    return AgreementTable(names, gc, qc, gm, qm, float(rho), float(rp), float(tau), float(tp), _same_order(gm, qm))


# ---------------------------------------------------------------- grades vs techniques
@checked
@dataclass(frozen=True)
class CorrelationReport:
    """Spearman's rho between per-cell correctness and per-cell technique level.

    Attributes
    ----------
    puzzles : tuple of str
        Puzzle names.
    rho, p : ndarray of float64, shape (P,)
        Per puzzle, Spearman's rho and its two-sided p-value over the puzzle's free cells (NaN when
        either variable is constant there).
    cells : ndarray of int64, shape (P,)
        Free cells per puzzle.
    pooled_rho, pooled_p : float
        The same over the free cells of all puzzles together.
    """

    puzzles: tuple[str, ...]
    rho: np.ndarray
    p: np.ndarray
    cells: np.ndarray
    pooled_rho: float
    pooled_p: float

    def rows(self) -> list[list[str]]:
        """Table rows: puzzle, free cells, rho, p; then the pooled row."""
        out = [
            [name, str(int(c)), f"{r:.3f}", f"{p:.3g}"]
            for name, c, r, p in zip(self.puzzles, self.cells, self.rho, self.p)
        ]
        out.append(["pooled", str(int(self.cells.sum())), f"{self.pooled_rho:.3f}", f"{self.pooled_p:.3g}"])
        return out

    def to_markdown(self) -> str:
        """The table in Markdown."""
        lines = ["| puzzle | free cells | Spearman rho | p |", "|---|---|---|---|"]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows()]
        return "\n".join(lines) + "\n"


def _spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    r, p = stats.spearmanr(x, y)
    return float(r), float(p)


@checked
def technique_correlation(
    fractions: Sequence[np.ndarray], levels: Sequence[np.ndarray], names: Sequence[str] | None = None
) -> CorrelationReport:
    """Spearman's rho of per-cell correctness against per-cell technique level, per puzzle and pooled.

    Parameters
    ----------
    fractions : sequence of ndarray of float64, shape (C,)
        Per puzzle, the fraction of runs that got each cell right (:attr:`GradeResult.fraction`).
    levels : sequence of ndarray of int, shape (C,)
        Per puzzle, the technique level of each cell (:attr:`Rating.cell_level`); 0 marks a given,
        and givens are left out.
    names : sequence of str, optional
        Puzzle names (default ``puzzle 1``, ...).

    Notes
    -----
    A harder technique is expected to go with a lower fraction of correct runs, so a negative rho is the
    expected sign. Ties are ranked by their mean rank (scipy.stats.spearmanr).
    """
    if len(fractions) != len(levels):
        raise ParameterError(f"{len(fractions)} grade grids but {len(levels)} technique grids", name="levels")
    names = list(names) if names is not None else [f"puzzle {i + 1}" for i in range(len(fractions))]
    rhos, ps, cells = [], [], []
    xs, ys = [], []
    for f, lv in zip(fractions, levels):
        f = np.asarray(f, dtype=np.float64).ravel()
        lv = np.asarray(lv).ravel()
        if f.shape != lv.shape:
            raise ParameterError(f"a grade grid of {f.size} cells against a technique grid of {lv.size}", name="levels")
        free = lv > 0
        r, p = _spearman(f[free], lv[free].astype(np.float64))
        rhos.append(r)
        ps.append(p)
        cells.append(int(free.sum()))
        xs.append(f[free])
        ys.append(lv[free].astype(np.float64))
    x = np.concatenate(xs) if xs else np.zeros(0)
    y = np.concatenate(ys) if ys else np.zeros(0)
    pr, pp = _spearman(x, y)
    return CorrelationReport(
        tuple(names),
        np.array(rhos, dtype=np.float64),
        np.array(ps, dtype=np.float64),
        np.array(cells, dtype=np.int64),
        pr,
        pp,
    )


@checked
def load_grade_fractions(path: str | os.PathLike[str]) -> tuple[Puzzle, str, np.ndarray]:
    """The puzzle, the solver and the per-cell fraction of correct runs of a ``.grades.json`` file.

    Returns
    -------
    puzzle : Puzzle
    solver : str
    fraction : ndarray of float64, shape (C,)
        Givens 1.0.

    Raises
    ------
    DataFileError
        Not a grades file, or one without the fractions (written before any run finished).
    """
    from ..errors import DataFileError
    from ..files import json_loads, read_text
    from .grades import GradeResult

    res = GradeResult.load_json(path)  # checks the file and reads the puzzle
    try:
        d = json_loads(read_text(path, "grades file", max_bytes=64 << 20))
    except ValueError as e:  # the file changed since load_json read it
        raise DataFileError(f"{path}: not a grades file written by Sudoku Lab ({e})", path=path) from None
    f = d.get("fraction")
    if not isinstance(f, list) or len(f) != res.puzzle.C or any(not isinstance(x, (int, float)) for x in f):
        raise DataFileError(f"{path}: the grades file holds no fraction of correct runs per cell", path=path)
    return res.puzzle, res.solver, np.array(f, dtype=np.float64)
