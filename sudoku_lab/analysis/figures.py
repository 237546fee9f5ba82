"""Publication figures with matplotlib's Figure API (never pyplot, so no global state and no GUI).

* :func:`grade_figure`: per-cell correctness grades in the style of the RESEDA
  paper's Figure 4.2, optionally shaded by fraction correct and side by side
  with a reference grid (the paper's), disagreements outlined;
* :func:`probability_figure`: the model p[cell, digit] as one image of
  n x n mini-tiles per cell (27 x 27 for 9x9) on a fixed 0..1 colour scale;
* :func:`convergence_figure`: the solver's declared trace columns on their
  declared axes, with run-end and parameter-change markers;
* :func:`board_figure`: a snapshot's grid: givens on grey, the solver's digits
  in blue, cells that clash in red, cells the solver holds fixed tinted green
  (the lab's board colours); the run animations
  (:mod:`~sudoku_lab.analysis.animation`) draw their frames with the same
  helpers;
* :func:`ecdf_figure`, :func:`box_figure`, :func:`success_figure`,
  :func:`heatmap_figure`: the figures of ``sudoku-lab report``, drawn from
  its data (:class:`~ECDF` and
  :class:`~SummaryRow` lists): run-length distributions,
  box plots of the solved runs, success rates with their 95 % intervals, and a
  configuration x puzzle map of success rates;
* :func:`save`: PNG (chosen DPI), SVG or PDF by file suffix.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._paths import prepare_matplotlib

prepare_matplotlib()  # before matplotlib looks for its configuration directory

from matplotlib.colors import Colormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from .._checks import checked  # noqa: E402
from ..files import DPI_RANGE, check_figure_path, figure_format, write_file  # noqa: E402
from ..model.geometry import SYMBOLS  # noqa: E402

if TYPE_CHECKING:  # names of annotations only: these modules import this one
    from .grades import GradeResult
    from .report import ECDF, SummaryRow

__all__ = [
    "BOARD_COLOURS",
    "grade_figure",
    "probability_figure",
    "convergence_figure",
    "board_figure",
    "ecdf_figure",
    "box_figure",
    "success_figure",
    "heatmap_figure",
    "save",
    "check_figure_path",
    "DPI_RANGE",
    "grade_technique_figure",
]

_GIVEN_BG = "#d9d9d9"
_MISMATCH = "#d62728"
_GRADE_COLOURS = {"A": "#08306b", "B": "#2171b5", "": "#000000"}


def _board_axes(ax, N: int, n: int) -> None:
    ax.set_xlim(0, N)
    ax.set_ylim(N, 0)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for k in range(N + 1):
        lw = 2.2 if k % n == 0 else 0.5
        ax.axhline(k, color="black", lw=lw, zorder=3)
        ax.axvline(k, color="black", lw=lw, zorder=3)
    for side in ax.spines.values():
        side.set_visible(False)


def _draw_grades(
    ax,
    grades: np.ndarray,
    givens: np.ndarray,
    digits: np.ndarray | None,
    fraction: np.ndarray | None,
    mismatch: np.ndarray | None,
    cmap,
    title: str,
) -> None:
    N = grades.shape[0]
    n = int(round(N**0.5))
    _board_axes(ax, N, n)
    if fraction is not None:
        shade = np.where(givens, np.nan, fraction)
        ax.imshow(shade, cmap=cmap, vmin=0.0, vmax=1.0, extent=(0, N, N, 0), interpolation="nearest", zorder=0)
    big = 180 / N
    for r in range(N):
        for c in range(N):
            if givens[r, c]:
                ax.add_patch(Rectangle((c, r), 1, 1, color=_GIVEN_BG, zorder=1))
                if digits is not None:
                    ax.text(
                        c + 0.08,
                        r + 0.12,
                        SYMBOLS[digits[r, c] - 1],
                        fontsize=big * 0.45,
                        va="top",
                        ha="left",
                        color="#555555",
                        zorder=4,
                    )
            g = grades[r, c]
            if g:
                ax.text(
                    c + 0.5,
                    r + 0.55,
                    g,
                    fontsize=big,
                    ha="center",
                    va="center",
                    weight="bold",
                    color=_GRADE_COLOURS.get(g, "black"),
                    zorder=4,
                )
            if fraction is not None and not givens[r, c] and fraction[r, c] < 1.0:
                ax.text(
                    c + 0.95,
                    r + 0.95,
                    f"{100 * fraction[r, c]:.0f}",
                    fontsize=big * 0.35,
                    ha="right",
                    va="bottom",
                    color="#333333",
                    zorder=4,
                )
            if mismatch is not None and mismatch[r, c]:
                ax.add_patch(Rectangle((c + 0.06, r + 0.06), 0.88, 0.88, fill=False, ec=_MISMATCH, lw=2, zorder=5))
    ax.set_title(title, fontsize=11)


def _grade_cmap():
    """White for always right, pale yellow in the B range, deepening to red where runs go wrong.

    The letters A and B sit on the light end, so they stay legible; the colour points at the trouble.
    """
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list(
        "sudoku_lab_grades", [(0.0, "#d7301f"), (0.5, "#fc8d59"), (0.85, "#fee8a0"), (1.0, "#ffffff")]
    )


@checked
def grade_figure(
    result: GradeResult | None = None,
    *,
    grades: npt.ArrayLike | None = None,
    givens: npt.ArrayLike | None = None,
    digits: npt.ArrayLike | None = None,
    fraction: npt.ArrayLike | None = None,
    shade: bool = True,
    reference: npt.ArrayLike | None = None,
    reference_title: str = "paper (Figure 4.2)",
    title: str | None = None,
    cmap: str | Colormap | None = None,
) -> Figure:
    """The grade grid of a :class:`~GradeResult` (or of explicit arrays).

    Parameters
    ----------
    result : GradeResult, optional
        Supplies grades, givens, digits and fraction.
    grades : array of str, shape (N, N) or (C,), optional
        ``"A"``, ``"B"`` or ``""`` per cell (when no ``result``).
    givens : array of bool, optional
        Given cells (drawn on grey with their digit in the corner).
    digits : array of int, optional
        The givens' digits.
    fraction : array of float in [0, 1], optional
        Fraction of runs right per cell; shades the cells when ``shade``.
    shade : bool
        Shade cells by fraction correct and print the percentage of cells
        below 100 %.
    reference : array of str, shape (N, N), optional
        Grades to compare with, drawn alongside; cells that differ are
        outlined in red in both panels and the agreement is in the title.
    title : str, optional
    cmap : str or Colormap, optional
        Shading by fraction correct (default: white at 1, red at 0).

    Returns
    -------
    matplotlib.figure.Figure
    """
    cmap = _grade_cmap() if cmap is None else cmap
    if result is not None:
        N = result.puzzle.N
        grades = result.grade_grid()
        givens = result.puzzle.givens.reshape(N, N)
        digits = result.puzzle.as_2d()
        fraction = result.fraction.reshape(N, N)
        if title is None:
            title = (
                f"{result.puzzle.name or 'puzzle'}: {result.solver}, {result.runs_done} runs, {result.successes} solved"
            )
    if grades is None:
        raise ValueError("grade_figure needs a GradeResult or grades")
    grades = np.asarray(grades)
    N = int(round(grades.size**0.5))
    grades = grades.reshape(N, N)
    givens = np.zeros((N, N), bool) if givens is None else np.asarray(givens, bool).reshape(N, N)
    digits = None if digits is None else np.asarray(digits).reshape(N, N)
    fraction = None if fraction is None or not shade else np.asarray(fraction, float).reshape(N, N)
    panels = 1 if reference is None else 2
    fig = Figure(figsize=(4.6 * panels + (0.8 if fraction is not None else 0), 5.0), layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    mismatch = None
    if reference is not None:
        reference = np.asarray(reference).reshape(N, N)
        mismatch = grades != reference
        agree = 100 * float(np.mean(~mismatch))
        title = f"{title or 'ours'}\n{agree:.0f} % of cells agree with {reference_title}"
    _draw_grades(axes[0], grades, givens, digits, fraction, mismatch, cmap, title or "correctness grades")
    if reference is not None:
        _draw_grades(axes[1], reference, givens, digits, None, mismatch, cmap, reference_title)
    if fraction is not None:
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        sm = ScalarMappable(norm=Normalize(0, 1), cmap=cmap)
        fig.colorbar(sm, ax=axes[0], fraction=0.046, pad=0.03, label="fraction of runs correct")
    return fig


@checked
def grade_technique_figure(
    result: GradeResult | None = None,
    *,
    cell_technique: npt.ArrayLike | None = None,
    grades: npt.ArrayLike | None = None,
    givens: npt.ArrayLike | None = None,
    digits: npt.ArrayLike | None = None,
    fraction: npt.ArrayLike | None = None,
    title: str | None = None,
) -> Figure:
    """The grade grid with each free cell coloured by the technique its placement needed, and a legend.

    Parameters
    ----------
    result : GradeResult, optional
        Supplies grades, givens, digits and fraction (else pass them).
    cell_technique : array of int, shape (C,), optional
        Index in :data:`sudoku_lab.exact.human.TECHNIQUES` per cell, -1 for givens
        (:attr:`sudoku_lab.exact.human.Rating.cell_technique`); computed from the puzzle when omitted.
    grades, givens, digits, fraction : arrays, optional
        As for :func:`grade_figure`; the fraction of correct runs is printed in the corner of cells below 100 %.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The colours are :data:`sudoku_lab.analysis.difficulty.TECHNIQUE_COLOURS`; the legend names each technique
    present with its HoDoKu level (easy ... extreme) and how many cells needed it.
    """
    from matplotlib.patches import Patch

    from ..exact.human import TECHNIQUES, rate
    from .difficulty import TECHNIQUE_COLOURS

    if result is not None:
        N = result.puzzle.N
        grades = result.grade_grid() if result.runs else result.grades_from_file
        givens = result.puzzle.givens
        digits = result.puzzle.grid
        if result.runs:
            fraction = result.fraction
        if cell_technique is None:
            cell_technique = rate(result.puzzle).cell_technique
        if title is None:
            title = f"{result.puzzle.name or 'puzzle'}: {result.solver}, grades and techniques"
    if grades is None or cell_technique is None:
        raise ValueError("grade_technique_figure needs a GradeResult, or grades and cell_technique")
    grades = np.asarray(grades)
    N = int(round(grades.size**0.5))
    grades = grades.reshape(N, N)
    tech = np.asarray(cell_technique).reshape(N, N).astype(int)
    givens = (tech < 0) if givens is None else np.asarray(givens, bool).reshape(N, N)
    digits = None if digits is None else np.asarray(digits).reshape(N, N)
    frac = None if fraction is None else np.asarray(fraction, float).reshape(N, N)
    fig = Figure(figsize=(7.6, 5.0), layout="constrained")
    ax = fig.subplots()
    _draw_grades(ax, grades, givens, digits, None, None, None, title or "grades and techniques")
    for r in range(N):
        for c in range(N):
            t = tech[r, c]
            if t >= 0 and not givens[r, c]:
                ax.add_patch(Rectangle((c, r), 1, 1, color=TECHNIQUE_COLOURS[t], zorder=0.5))
                if frac is not None and frac[r, c] < 1.0:
                    ax.text(
                        c + 0.95,
                        r + 0.95,
                        f"{100 * frac[r, c]:.0f}",
                        fontsize=180 / N * 0.35,
                        ha="right",
                        va="bottom",
                        color="#333333",
                        zorder=4,
                    )
    used = sorted({int(t) for t in tech[~givens].ravel() if t >= 0})
    handles = [
        Patch(
            facecolor=TECHNIQUE_COLOURS[t],
            edgecolor="#555555",
            label=f"{TECHNIQUES[t].name} ({TECHNIQUES[t].grade}, {int(np.sum(tech[~givens] == t))})",
        )
        for t in used
    ]
    fig.legend(
        handles=handles,
        loc="outside right upper",
        fontsize=8,
        title="technique needed (level, cells)",
        title_fontsize=8,
        frameon=False,
    )
    return fig


def probability_image(p: np.ndarray, n: int) -> np.ndarray:
    """p[cell, digit] (C, N) as an (N*n, N*n) image: digit d of cell (r, c) at (n*r + (d-1)//n, n*c + (d-1)%n)."""
    N = n * n
    p = np.asarray(p, dtype=float).reshape(N, N, n, n)  # r, c, digit row, digit col
    return p.transpose(0, 2, 1, 3).reshape(N * n, N * n)


def _draw_probability(ax, p: np.ndarray, n: int, givens=None, cmap: str = "viridis"):
    """Draw p[cell, digit] on ``ax`` as mini-tiles; returns the image (``set_data(probability_image(p, n))``
    redraws it with other values)."""
    N = n * n
    img = probability_image(p, n)
    im = ax.imshow(img, cmap=cmap, vmin=0.0, vmax=1.0, extent=(0, N * n, N * n, 0), interpolation="nearest")
    for k in range(N + 1):
        lw = 2.0 if k % n == 0 else 0.6
        ax.axhline(k * n, color="white", lw=lw)
        ax.axvline(k * n, color="white", lw=lw)
    if givens is not None:
        for cell in np.flatnonzero(np.asarray(givens).reshape(-1)):
            r, c = divmod(int(cell), N)
            ax.add_patch(Rectangle((c * n + 0.15, r * n + 0.15), n - 0.3, n - 0.3, fill=False, ec="#ff7f0e", lw=1.0))
    ax.set_xticks([(k + 0.5) * n for k in range(N)], [str(k + 1) for k in range(N)])
    ax.set_yticks([(k + 0.5) * n for k in range(N)], [str(k + 1) for k in range(N)])
    ax.tick_params(length=0)
    return im


@checked
def probability_figure(
    p: np.ndarray, n: int, givens: npt.ArrayLike | None = None, title: str = "p[cell, digit]", cmap: str = "viridis"
) -> Figure:
    """The probability model as mini-tiles with a fixed 0..1 colour bar.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
    n : int
        Box size.
    givens : array of bool, shape (C,), optional
        Given cells are outlined.
    """
    fig = Figure(figsize=(6.2, 5.4), layout="constrained")
    ax = fig.subplots()
    im = _draw_probability(ax, p, n, givens, cmap)
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="probability")
    return fig


_STYLES = {"solid": "-", "dashed": "--", "dotted": ":", "steps": "-"}
from ..solvers.base import Snapshot, Solver  # noqa: E402
from ..solvers.declare import column_colours  # noqa: E402


@checked
def convergence_figure(
    snapshot: Snapshot, title: str | None = None, solver: type[Solver] | None = None, max_markers: int = 40
) -> Figure:
    """The solver's declared trace columns against iterations, on their declared axes, with event markers.

    Parameters
    ----------
    snapshot : Snapshot
        Any snapshot (its trace, events and parameters are drawn).
    title : str, optional
        Figure title (default: the solver's title and the puzzle's name).
    solver : Solver subclass, optional
        Whose declarations to use (default: the registered class of ``snapshot.solver``).
    max_markers : int
        Run ends beyond this many are merged into bins (:func:`sudoku_lab.stepping.markers.event_markers`).
    """
    from ..solvers import get_solver_class

    cls = solver or get_solver_class(snapshot.solver)
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.subplots()
    _draw_convergence(ax, snapshot, cls, max_markers)
    ax.set_title(title if title is not None else f"{cls.title}: {snapshot.puzzle.name or 'puzzle'}")
    return fig


class _Curves:
    """What :func:`_draw_convergence` drew: each column's line with its data, and the event markers.

    :meth:`upto` shows the curves and markers up to an iteration only (a run animation's frame), on the
    axes limits of the whole trace, so the axes stay put from frame to frame.
    """

    def __init__(self, iterations: np.ndarray):
        self.iterations = iterations
        self.lines: list[tuple[Any, np.ndarray]] = []  # (Line2D, its y values)
        self.markers: list[tuple[float, list]] = []  # (iteration, its artists)

    def upto(self, iteration: float) -> None:
        k = int(np.searchsorted(self.iterations, iteration, side="right"))
        for line, y in self.lines:
            line.set_data(self.iterations[:k], y[:k])
        for at, artists in self.markers:
            for a in artists:
                a.set_visible(at <= iteration)


def _draw_convergence(ax, snapshot: Snapshot, cls: type[Solver], max_markers: int = 40) -> _Curves:
    """Draw the declared trace columns of ``snapshot`` on ``ax`` (and twin axes), with markers and a legend."""
    from ..stepping.markers import event_markers

    trace = snapshot.trace
    it = np.asarray(trace["iteration"])
    curves = _Curves(it)
    axes = {}
    for a in cls.axes:
        target = ax if a.side == "left" else ax.twinx()
        target.set_ylabel(a.label)
        if a.limits is not None:
            lo, hi = a.limits
            target.set_ylim(lo, hi + 0.02 * (hi - lo))
        axes[a.key] = target
    colours = column_colours(cls.columns)
    for c in cls.columns:
        if c.name not in trace or not c.shown:
            continue
        target = axes[c.axis]
        kw: dict[str, Any] = {"drawstyle": "steps-post"} if c.style == "steps" else {}
        y = np.asarray(trace[c.name])
        if len(it) < 3:  # a trace of one or two points (the exact solver's) is invisible as a line alone
            kw["marker"] = "o"
        (line,) = target.plot(it, y, _STYLES[c.style], color=colours[c.name], lw=1.2, label=c.label, **kw)
        curves.lines.append((line, y))
        for t in c.thresholds:
            value = snapshot.params.get(t.param)
            if value is not None:
                target.axhline(
                    float(value),
                    color=colours[c.name],
                    ls=(0, (4, 3)),
                    lw=1,
                    label=f"{t.label or t.param} = {float(value):g}",
                )
    ax.set_xlabel(cls.iteration_name)
    start, stop = (float(it[0]), float(it[-1])) if len(it) else (0.0, float(snapshot.iteration))
    for m in event_markers(snapshot.events, start, stop, max_markers, cls.marked_events):
        if m.kind == "run":
            drawn = [
                ax.axvline(
                    m.iteration,
                    color="#009E73" if m.solved else "#D55E00",
                    lw=0.6 + 0.3 * min(m.count, 5) ** 0.5,
                    alpha=0.5,
                )
            ]
        else:
            drawn = [
                ax.axvline(m.iteration, color="#555555", lw=0.9, ls="--", alpha=0.8),
                ax.annotate(
                    m.label,
                    (m.iteration, 1.0),
                    xycoords=("data", "axes fraction"),
                    rotation=90,
                    va="top",
                    ha="right",
                    fontsize=7,
                    color="#555555",
                ),
            ]
        curves.markers.append((float(m.iteration), drawn))
    handles, labels = [], []
    for target in dict.fromkeys(axes.values()):
        h, lab = target.get_legend_handles_labels()
        handles += h
        labels += lab
    if handles:
        ax.legend(handles, labels, loc="upper right", fontsize=8)
    return curves


# ------------------------------------------------------------------ boards
#: The lab's board colours (sudoku_lab_ui.widgets.theme.BOARD): Okabe and Ito's blue and vermillion.
BOARD_COLOURS = {
    "given_bg": "#E3E8EF",
    "fixed_bg": "#D4EFE3",
    "given_fg": "#111111",
    "solver_fg": "#0072B2",
    "conflict_fg": "#D55E00",
    "conflict_bg": "#FBE3D6",
    "thin_line": "#9AA3AD",
    "thick_line": "#1F2328",
}


class _Board:
    """A board drawn on ``ax`` once (lines, given cells, a text per cell); :meth:`show` puts a grid on it.

    Givens are dark on slate, the solver's digits blue, a digit that clashes with another in its row,
    column or box vermillion on a pale red cell, and cells the solver holds fixed (a restart's zone,
    AC3's prefill) tinted green: the lab's board, redrawn by matplotlib so it needs no display.
    """

    def __init__(self, ax, puzzle):
        self.n, self.N = puzzle.n, puzzle.N
        N, n = self.N, self.n
        self.givens = np.asarray(puzzle.givens, bool).reshape(-1)
        ax.set_xlim(0, N)
        ax.set_ylim(N, 0)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ax.spines.values():
            side.set_visible(False)
        for k in range(N + 1):
            thick = k % n == 0
            colour, lw = (BOARD_COLOURS["thick_line"], 2.0) if thick else (BOARD_COLOURS["thin_line"], 0.6)
            ax.axhline(k, color=colour, lw=lw, zorder=3 if thick else 2)
            ax.axvline(k, color=colour, lw=lw, zorder=3 if thick else 2)
        self.cells = []
        self.texts = []
        size = 150 / N
        for cell in range(N * N):
            r, c = divmod(cell, N)
            bg = Rectangle(
                (c, r), 1, 1, color=BOARD_COLOURS["given_bg"] if self.givens[cell] else "white", lw=0, zorder=0
            )
            ax.add_patch(bg)
            self.cells.append(bg)
            self.texts.append(
                ax.text(
                    c + 0.5,
                    r + 0.54,
                    "",
                    fontsize=size,
                    ha="center",
                    va="center",
                    weight="bold" if self.givens[cell] else "normal",
                    zorder=4,
                )
            )
        self._shown: list | None = None

    def show(self, grid: np.ndarray, fixed: np.ndarray | None = None) -> None:
        """Draw ``grid`` (int8 (C,), 0 = empty) with its conflicts, and ``fixed`` (bool (C,)) tinted."""
        from ..model.scoring import conflicting_cells

        grid = np.asarray(grid).reshape(-1)
        clash = conflicting_cells(grid, self.n)
        held = np.zeros(grid.size, bool) if fixed is None else np.asarray(fixed, bool).reshape(-1) & ~self.givens
        state = list(zip(grid.tolist(), clash.tolist(), held.tolist()))
        for cell, (d, bad, fix) in enumerate(state):
            if self._shown is not None and self._shown[cell] == (d, bad, fix):
                continue
            given = self.givens[cell]
            text = self.texts[cell]
            text.set_text(SYMBOLS[d - 1] if d > 0 else "")
            text.set_color(
                BOARD_COLOURS["conflict_fg"]
                if bad
                else BOARD_COLOURS["given_fg"]
                if given
                else BOARD_COLOURS["solver_fg"]
            )
            bg = (
                BOARD_COLOURS["given_bg"]
                if given
                else BOARD_COLOURS["conflict_bg"]
                if bad
                else BOARD_COLOURS["fixed_bg"]
                if fix
                else "white"
            )
            self.cells[cell].set_color(bg)
        self._shown = state


@checked
def board_figure(snapshot: Snapshot, title: str | None = None, best: bool = False) -> Figure:
    """A snapshot's grid as the lab draws it: givens, the solver's digits, conflicts and fixed cells.

    Parameters
    ----------
    snapshot : Snapshot
        Its ``grid`` (int8 (C,)) and ``fixed`` (bool (C,)) are drawn.
    title : str, optional
        Default: the solver, the iteration and the cost.
    best : bool
        Draw ``best_grid`` instead of ``grid``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = Figure(figsize=(5.0, 5.3), layout="constrained")
    ax = fig.subplots()
    board = _Board(ax, snapshot.puzzle)
    board.show(snapshot.best_grid if best else snapshot.grid, snapshot.fixed)
    if title is None:
        cost = snapshot.best_cost if best else snapshot.cost
        title = f"{snapshot.solver}, iteration {snapshot.iteration:,}, {'best ' if best else ''}cost {cost}"
    ax.set_title(title)
    return fig


# --------------------------------------------------------------- reports
#: Okabe and Ito's colours (distinct for colour-blind readers; yellow last, it is faint on white), then the
#: same colours dashed, dotted and dash-dotted: 32 configurations stay apart.
_SERIES_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_SERIES_DASHES = ("-", "--", ":", "-.")
_METRIC_LABELS = {
    "seconds": "seconds",
    "iterations": "iterations (each solver's own unit)",
    "evaluations": "evaluations (candidate grids)",
}


def _series_style(i: int) -> tuple[str, str]:
    """Colour and line style of the i-th configuration, the same in every report figure."""
    return _SERIES_COLOURS[i % len(_SERIES_COLOURS)], _SERIES_DASHES[(i // len(_SERIES_COLOURS)) % len(_SERIES_DASHES)]


def _groups_and_configs(items) -> tuple[list, list]:
    """The (group, pooled) pairs and the configurations of report items, in the report's order."""
    return (
        list(dict.fromkeys((it.group, bool(it.pooled)) for it in items)),
        list(dict.fromkeys(it.config for it in items)),
    )


def _panels(n: int, width: float, height: float, legend: float = 0.0, **kw):
    """A figure of n panels, at most three a row; unused cells hidden. Returns (figure, axes in reading order)."""
    cols = min(max(n, 1), 3)
    rows = -(-max(n, 1) // cols)
    fig = Figure(figsize=(width * cols + legend, height * rows + 0.5), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, **kw).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _group_title(group: str, pooled: bool) -> str:
    return f"{group} (pooled)" if pooled else group


def _use_log(values) -> bool:
    """A log axis when every value is positive and they span more than 1.5 decades."""
    v = np.asarray(values, dtype=float)
    return bool(v.size) and float(v.min()) > 0 and float(v.max()) / float(v.min()) > 10**1.5


@checked
def ecdf_figure(
    ecdfs: Sequence[ECDF], metric: str | None = None, title: str | None = None, log: bool | None = None
) -> Figure:
    """Run-length distributions: fraction of runs solved against the metric, a panel per group.

    Parameters
    ----------
    ecdfs : sequence of ECDF
        From :func:`sudoku_lab.analysis.report.ecdf` (one per configuration and group).
    metric : str, optional
        ``seconds``, ``iterations`` or ``evaluations`` (default: the ECDFs').
    title : str, optional
    log : bool, optional
        Log x axis (default: when the values span more than 1.5 decades).

    Notes
    -----
    Hoos and Stuetzle's run-length distributions (Stochastic Local Search,
    2004, section 4.1): the curve of a configuration rises at each solved
    run's value by 1/runs and stays flat, below 1 by its failures, up to
    where its unsolved runs stopped.
    """
    groups, configs = _groups_and_configs(ecdfs)
    metric = metric or (ecdfs[0].metric if ecdfs else "seconds")
    every = [v for e in ecdfs for v in (*e.values.tolist(), e.horizon)]
    log = _use_log(every) if log is None else log
    fig, axes = _panels(len(groups), 3.7, 2.9, legend=2.2, sharex=True, sharey=True)
    for ax, (group, pooled) in zip(axes, groups):
        mine = [e for e in ecdfs if e.group == group and bool(e.pooled) == pooled]
        for e in mine:
            colour, dash = _series_style(configs.index(e.config))
            x, y = e.x, e.y
            if x.size:
                xs = np.concatenate([x[:1], x, [max(e.horizon, x[-1])]])
                ys = np.concatenate([[0.0], y, y[-1:]])
            else:
                xs, ys = np.array([e.horizon, e.horizon]), np.zeros(2)
            ax.step(xs, ys, where="post", color=colour, ls=dash, lw=1.5, label=e.config)
        runs = sorted({e.runs for e in mine})
        each = f"{runs[0]} runs" if len(runs) == 1 else f"{runs[0]}-{runs[-1]} runs"
        ax.set_title(f"{_group_title(group, pooled)}, {each}", fontsize=10)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, color="#e5e5e5", lw=0.6)
        if log:
            ax.set_xscale("log")
    for ax in axes:
        if ax.get_subplotspec().is_last_row() or not _has_panel_below(ax, axes):
            ax.set_xlabel(_METRIC_LABELS.get(metric, metric))
            ax.tick_params(labelbottom=True)
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel("fraction of runs solved")
    _series_legend(fig, configs, line=True)
    fig.suptitle(title if title is not None else f"Run-length distributions ({metric})")
    return fig


def _has_panel_below(ax, axes) -> bool:
    spec = ax.get_subplotspec()
    below = spec.rowspan.stop
    return any(
        o.get_subplotspec().rowspan.start == below and o.get_subplotspec().colspan.start == spec.colspan.start
        for o in axes
    )


def _series_legend(fig: Figure, configs, line: bool) -> None:
    from matplotlib.lines import Line2D

    handles = []
    for i in range(len(configs)):
        colour, dash = _series_style(i)
        handles.append(
            Line2D(
                [], [], color=colour, ls=dash if line else "none", lw=1.8 if line else 0, marker=None if line else "o"
            )
        )
    if handles:
        fig.legend(
            handles,
            configs,
            loc="outside right upper",
            fontsize=8,
            frameon=False,
            title="configuration",
            title_fontsize=9,
        )


@checked
def box_figure(
    ecdfs: Sequence[ECDF], metric: str | None = None, title: str | None = None, log: bool | None = None
) -> Figure:
    """Box plots of the metric of the solved runs, one box per configuration, a panel per group.

    Parameters are those of :func:`ecdf_figure` (the boxes use ``values``,
    the successes are written next to each box: ``k/n``).
    """
    import matplotlib

    groups, configs = _groups_and_configs(ecdfs)
    metric = metric or (ecdfs[0].metric if ecdfs else "seconds")
    log = _use_log([v for e in ecdfs for v in e.values.tolist()]) if log is None else log
    # `vert` gives way to `orientation` from matplotlib 3.10 (and warns from 3.11).
    horizontal = (
        {"orientation": "horizontal"}
        if tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 10)
        else {"vert": False}
    )
    fig, axes = _panels(len(groups), 3.9, 0.8 + 0.36 * max(len(configs), 1), sharex=True, sharey=True)
    for ax, (group, pooled) in zip(axes, groups):
        mine = {e.config: e for e in ecdfs if e.group == group and bool(e.pooled) == pooled}
        rows = [(i, mine[c]) for i, c in enumerate(configs) if c in mine]
        full = [(i, e) for i, e in rows if e.values.size]
        if full:
            parts = ax.boxplot(
                [e.values for _, e in full],
                positions=[i for i, _ in full],
                widths=0.6,
                patch_artist=True,
                manage_ticks=False,
                **horizontal,
                flierprops={"marker": ".", "markersize": 3, "alpha": 0.6},
                medianprops={"color": "black", "lw": 1.2},
            )
            for box, median, (i, _) in zip(parts["boxes"], parts["medians"], full):
                box.set_facecolor(_series_style(i)[0])
                box.set_alpha(0.55)
                median.set_gid("median")
        for i, e in rows:
            ax.annotate(
                f"{e.values.size}/{e.runs}",
                (1.0, i),
                xycoords=("axes fraction", "data"),
                xytext=(-3, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                fontsize=7,
                color="#444444",
            )
            if not e.values.size:
                ax.annotate(
                    "none solved",
                    (0.5, i),
                    xycoords=("axes fraction", "data"),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="#888888",
                )
        ax.set_title(_group_title(group, pooled), fontsize=10)
        ax.grid(True, axis="x", color="#e5e5e5", lw=0.6)
        if log:
            ax.set_xscale("log")
    values = [v for e in ecdfs for v in e.values.tolist()]
    if values and axes:
        # Room at the right for the solved/runs counts, so they never sit on a box.
        lo, hi = min(values), max(values)
        if log:
            a, b = np.log10(lo), np.log10(hi)
            span = max(b - a, 0.5)
            axes[0].set_xlim(10 ** (a - 0.04 * span), 10 ** (b + 0.2 * span))
        else:
            span = max(hi - lo, abs(hi) * 0.1, 1e-9)
            axes[0].set_xlim(lo - 0.04 * span, hi + 0.2 * span)
    for ax in axes:
        ax.set_yticks(range(len(configs)), configs, fontsize=8)
        ax.set_ylim(len(configs) - 0.5, -0.5)
        if ax.get_subplotspec().is_last_row() or not _has_panel_below(ax, axes):
            ax.set_xlabel(f"{_METRIC_LABELS.get(metric, metric)}, solved runs")
            ax.tick_params(labelbottom=True)
    fig.suptitle(title if title is not None else f"Solved runs: {metric} (solved/runs at the right)")
    return fig


@checked
def success_figure(rows: Sequence[SummaryRow], title: str | None = None) -> Figure:
    """Success rate with its 95 % interval per group (level) and configuration, side by side.

    Parameters
    ----------
    rows : sequence of SummaryRow
        From :func:`sudoku_lab.analysis.report.summarize` (its ``rate`` and ``interval``).
    title : str, optional
    """
    groups, configs = _groups_and_configs(rows)
    width = min(18.0, max(5.5, 1.2 + 0.22 * len(groups) * max(len(configs), 1) + 0.3 * len(groups)))
    fig = Figure(figsize=(width + 2.2, 4.0), layout="constrained")
    ax = fig.subplots()
    k = max(len(configs), 1)
    step = min(0.8 / k, 0.2)
    for r in rows:
        g = groups.index((r.group, bool(r.pooled)))
        i = configs.index(r.config)
        colour, _ = _series_style(i)
        lo, hi = r.interval
        x = g + (i - (k - 1) / 2) * step
        ax.errorbar(
            [x], [r.rate], yerr=[[r.rate - lo], [hi - r.rate]], fmt="o", color=colour, ms=4.5, capsize=2.5, lw=1.2
        )
    for g, (_, pooled) in enumerate(groups):
        if pooled and g:
            ax.axvline(g - 0.5, color="#888888", ls="--", lw=0.8)
    ax.set_xticks(range(len(groups)), [_group_title(g, p) for g, p in groups])
    if len(groups) > 4 or max((len(g) for g, _ in groups), default=0) > 14:
        for t in ax.get_xticklabels():
            t.set_rotation(30)
            t.set_horizontalalignment("right")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("success rate (95 % interval)")
    ax.grid(True, axis="y", color="#e5e5e5", lw=0.6)
    _series_legend(fig, configs, line=False)
    ax.set_title(title if title is not None else "Success rate per configuration (Clopper-Pearson 95 % interval)")
    return fig


@checked
def heatmap_figure(
    rows: Sequence[SummaryRow], title: str | None = None, cmap: str = "viridis", annotate: bool | None = None
) -> Figure:
    """Success rate of every configuration (rows) on every puzzle (columns), puzzle sets separated.

    Parameters
    ----------
    rows : sequence of SummaryRow
        From :func:`sudoku_lab.analysis.report.summarize` with ``by="puzzle"`` (pooled rows are left out;
        ``puzzle_set`` groups the columns).
    title : str, optional
    cmap : str
        Colour map of the fixed 0..1 scale.
    annotate : bool, optional
        Write the percentage in each cell (default: when the cells are large enough to read).
    """
    rows = [r for r in rows if not r.pooled]
    columns = list(dict.fromkeys((r.puzzle_set, r.group) for r in rows))
    configs = list(dict.fromkeys(r.config for r in rows))
    rate = np.full((len(configs), len(columns)), np.nan)
    for r in rows:
        rate[configs.index(r.config), columns.index((r.puzzle_set, r.group))] = r.rate
    C, P = rate.shape
    label_room = 0.09 * max((len(c) for c in configs), default=0)
    width = min(18.0, max(5.0, 1.6 + label_room + 0.3 * P))
    fig = Figure(figsize=(width, min(14.0, 2.2 + 0.32 * C + (1.2 if P <= 80 else 0.3))), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(rate, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    ax.set_yticks(range(C), configs, fontsize=8)
    names = [g for _, g in columns]
    if P <= 80:
        ax.set_xticks(range(P), names, rotation=90, fontsize=7 if P > 20 else 8)
    else:
        ax.set_xticks([])
    ax.tick_params(length=0)
    sets = [s for s, _ in columns]
    starts = [k for k in range(P) if k == 0 or sets[k] != sets[k - 1]]
    ax.set_xlabel("puzzle set" if any(sets) and len(starts) == P and names == sets else "puzzle")
    if any(sets) and len(starts) < P:  # sets of one puzzle each (a summary by set) need no second label
        for k in starts[1:]:
            ax.axvline(k - 0.5, color="white", lw=2.5)
        top = ax.secondary_xaxis("top")
        ends = starts[1:] + [P]
        top.set_xticks([(a + b - 1) / 2 for a, b in zip(starts, ends)], [sets[a] or "-" for a in starts], fontsize=8)
        top.tick_params(length=0)
    if annotate is None:
        annotate = P <= 30 and C <= 20
    if annotate:
        for (i, j), v in np.ndenumerate(rate):
            if not np.isnan(v):
                ax.text(
                    j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=7, color="black" if v > 0.6 else "white"
                )
    fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="success rate")
    ax.set_title(title if title is not None else f"Success rate per configuration and {ax.get_xlabel()}")
    return fig


@checked
def save(fig: Figure, path: str | os.PathLike[str], dpi: int = 200) -> Path:
    """Write ``fig`` as PNG, SVG or PDF according to the suffix of ``path``.

    A file is written to a temporary file and renamed, so a full disk leaves
    no half figure; a symlink is followed; standard output (``-``), a device
    or a FIFO is written directly, as PDF unless its name has another
    figure suffix (see :func:`sudoku_lab.files.write_file`).

    Raises
    ------
    ParameterTypeError
        ``fig`` is not a matplotlib Figure, ``path`` not a str or PathLike, or
        ``dpi`` not an int (also a TypeError).
    ParameterError
        A suffix other than .png, .svg or .pdf, or a dpi out of range.
    DataFileError
        The file cannot be written.
    """
    target = check_figure_path(path, dpi)
    fmt = figure_format(target)
    write_file(target, lambda fh: fig.savefig(fh, format=fmt, dpi=dpi), "figure", binary=fmt != "svg")
    return target


# ------------------------------------------------------------ every view
#: Names :mod:`~sudoku_lab.analysis.view_figures` provides here too (``figures.view_figure(snapshot, "nests")``).
_VIEW_NAMES = (
    "FigureStyle",
    "ViewData",
    "view_names",
    "view_title",
    "view_figure",
    "view_data",
    "export_view",
    "export_view_data",
    "provenance",
    "RUN_STATES",
)


def __getattr__(name: str):
    """The view figures (:mod:`~sudoku_lab.analysis.view_figures`) under this module's name, imported on use."""
    if name in _VIEW_NAMES:
        from . import view_figures

        return getattr(view_figures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
