"""Publication figures with matplotlib's Figure API (never pyplot, so no global state and no GUI).

* :func:`grade_figure`: per-cell correctness grades in the style of the RESEDA
  paper's Figure 4.2, optionally shaded by fraction correct and side by side
  with a reference grid (the paper's), disagreements outlined;
* :func:`probability_figure`: the model p[cell, digit] as one image of
  n x n mini-tiles per cell (27 x 27 for 9x9) on a fixed 0..1 colour scale;
* :func:`convergence_figure`: the solver's declared trace columns on their
  declared axes, with run-end and parameter-change markers;
* :func:`save`: PNG (chosen DPI), SVG or PDF by file suffix.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._paths import prepare_matplotlib

prepare_matplotlib()  # before matplotlib looks for its configuration directory

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ._files import DPI_RANGE, atomic_write, check_figure_path  # noqa: E402
from .geometry import SYMBOLS  # noqa: E402

__all__ = ["grade_figure", "probability_figure", "convergence_figure", "save", "check_figure_path", "DPI_RANGE"]

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


def _draw_grades(ax, grades: np.ndarray, givens: np.ndarray, digits: np.ndarray | None,
                 fraction: np.ndarray | None, mismatch: np.ndarray | None, cmap, title: str) -> None:
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
                    ax.text(c + 0.08, r + 0.12, SYMBOLS[digits[r, c] - 1], fontsize=big * 0.45, va="top",
                            ha="left", color="#555555", zorder=4)
            g = grades[r, c]
            if g:
                ax.text(c + 0.5, r + 0.55, g, fontsize=big, ha="center", va="center", weight="bold",
                        color=_GRADE_COLOURS.get(g, "black"), zorder=4)
            if fraction is not None and not givens[r, c] and fraction[r, c] < 1.0:
                ax.text(c + 0.95, r + 0.95, f"{100 * fraction[r, c]:.0f}", fontsize=big * 0.35, ha="right",
                        va="bottom", color="#333333", zorder=4)
            if mismatch is not None and mismatch[r, c]:
                ax.add_patch(Rectangle((c + 0.06, r + 0.06), 0.88, 0.88, fill=False, ec=_MISMATCH, lw=2,
                                       zorder=5))
    ax.set_title(title, fontsize=11)


def _grade_cmap():
    """White for always right, pale yellow in the B range, deepening to red where runs go wrong.

    The letters A and B sit on the light end, so they stay legible; the colour points at the trouble.
    """
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list(
        "sudoku_lab_grades", [(0.0, "#d7301f"), (0.5, "#fc8d59"), (0.85, "#fee8a0"), (1.0, "#ffffff")])


def grade_figure(result=None, *, grades=None, givens=None, digits=None, fraction=None, shade: bool = True,
                 reference=None, reference_title: str = "paper (Figure 4.2)", title: str | None = None,
                 cmap=None) -> Figure:
    """The grade grid of a :class:`~sudoku_lab.grades.GradeResult` (or of explicit arrays).

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
            title = (f"{result.puzzle.name or 'puzzle'}: {result.solver}, {result.runs_done} runs, "
                     f"{result.successes} solved")
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


def probability_image(p: np.ndarray, n: int) -> np.ndarray:
    """p[cell, digit] (C, N) as an (N*n, N*n) image: digit d of cell (r, c) at (n*r + (d-1)//n, n*c + (d-1)%n)."""
    N = n * n
    p = np.asarray(p, dtype=float).reshape(N, N, n, n)  # r, c, digit row, digit col
    return p.transpose(0, 2, 1, 3).reshape(N * n, N * n)


def probability_figure(p: np.ndarray, n: int, givens=None, title: str = "p[cell, digit]",
                       cmap: str = "viridis") -> Figure:
    """The probability model as mini-tiles with a fixed 0..1 colour bar.

    Parameters
    ----------
    p : ndarray of float64, shape (C, N)
    n : int
        Box size.
    givens : array of bool, shape (C,), optional
        Given cells are outlined.
    """
    N = n * n
    img = probability_image(p, n)
    fig = Figure(figsize=(6.2, 5.4), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(img, cmap=cmap, vmin=0.0, vmax=1.0, extent=(0, N * n, N * n, 0), interpolation="nearest")
    for k in range(N + 1):
        lw = 2.0 if k % n == 0 else 0.6
        ax.axhline(k * n, color="white", lw=lw)
        ax.axvline(k * n, color="white", lw=lw)
    if givens is not None:
        for cell in np.flatnonzero(np.asarray(givens).reshape(-1)):
            r, c = divmod(int(cell), N)
            ax.add_patch(Rectangle((c * n + 0.15, r * n + 0.15), n - 0.3, n - 0.3, fill=False, ec="#ff7f0e",
                                   lw=1.0))
    ax.set_xticks([(k + 0.5) * n for k in range(N)], [str(k + 1) for k in range(N)])
    ax.set_yticks([(k + 0.5) * n for k in range(N)], [str(k + 1) for k in range(N)])
    ax.tick_params(length=0)
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="probability")
    return fig


_STYLES = {"solid": "-", "dashed": "--", "dotted": ":", "steps": "-"}
from .solvers.declare import column_colours  # noqa: E402


def convergence_figure(snapshot, title: str | None = None, solver=None, max_markers: int = 40) -> Figure:
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
        Run ends beyond this many are merged into bins (:func:`sudoku_lab.markers.event_markers`).
    """
    from .markers import event_markers
    from .solvers import get_solver_class

    cls = solver or get_solver_class(snapshot.solver)
    trace = snapshot.trace
    it = np.asarray(trace["iteration"])
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.subplots()
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
        kw = {"drawstyle": "steps-post"} if c.style == "steps" else {}
        target.plot(it, trace[c.name], _STYLES[c.style], color=colours[c.name], lw=1.2, label=c.label, **kw)
        for t in c.thresholds:
            value = snapshot.params.get(t.param)
            if value is not None:
                target.axhline(float(value), color=colours[c.name], ls=(0, (4, 3)), lw=1,
                               label=f"{t.label or t.param} = {float(value):g}")
    ax.set_xlabel(cls.iteration_name)
    start, stop = (float(it[0]), float(it[-1])) if len(it) else (0.0, float(snapshot.iteration))
    for m in event_markers(snapshot.events, start, stop, max_markers):
        if m.kind == "run":
            ax.axvline(m.iteration, color="#009E73" if m.solved else "#D55E00", lw=0.6 + 0.3 * min(m.count, 5) ** 0.5,
                       alpha=0.5)
        else:
            ax.axvline(m.iteration, color="#555555", lw=0.9, ls="--", alpha=0.8)
            ax.annotate(m.label, (m.iteration, 1.0), xycoords=("data", "axes fraction"), rotation=90, va="top",
                        ha="right", fontsize=7, color="#555555")
    handles, labels = [], []
    for target in dict.fromkeys(axes.values()):
        h, lab = target.get_legend_handles_labels()
        handles += h
        labels += lab
    if handles:
        ax.legend(handles, labels, loc="upper right", fontsize=8)
    ax.set_title(title if title is not None else f"{cls.title}: {snapshot.puzzle.name or 'puzzle'}")
    return fig


def save(fig: Figure, path, dpi: int = 200) -> Path:
    """Write ``fig`` as PNG, SVG or PDF according to the suffix of ``path``.

    Written to a temporary file and renamed, so a full disk leaves no half figure.
    """
    path = check_figure_path(path, dpi)
    fmt = path.suffix.lower().lstrip(".")
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi), "figure")
    return path
