"""A figure and a data table for every view of every solver, drawn from a snapshot and the solver's declarations.

The lab shows a solver's state in *views* chosen from the layer roles its
class declares (:mod:`sudoku_lab.solvers.declare`). This module draws the same
views with matplotlib, headless, so any of them can be exported for a paper:

========================  ============================  ===========================================
view                      shown for                     figure
========================  ============================  ===========================================
``board``                 every solver                  the grid: givens, digits, clashes, fixed cells
``convergence``           every solver                  the declared trace columns on their axes
``ac3``                   every solver                  the domains after AC3 (the solver's own run
                                                        of role ``ac3``, else the puzzle's), struck
                                                        candidates in red
``probability``           role ``probability``          p[cell, digit] as mini-tiles (and the
                                                        ``entropy`` layer's map beside it)
``runs``                  role ``runs``                 each finished run's best cost, by outcome
``tabu``                  role ``tabu``                 the board with the tabu features, fading
                                                        with age, and the list
``nests``                 role ``nests``                nest costs sorted, best and abandoned marked;
                                                        the nests' history as an image
``population``            role ``population``           histogram of the members' values, best, mean
                                                        and worst marked
``box_models``            role ``box_models``           one heatmap per box (positions x digits), the
                                                        rows that moved most outlined
``unit_counts``           role ``unit_counts``          the counts per row and per column (hill
                                                        climbing's clashes), the last swap
========================  ============================  ===========================================

* :func:`view_names` lists a solver's views; :func:`view_title` names one;
* :func:`view_figure` draws one, sized, at a resolution and font size
  (:class:`FigureStyle`); :func:`export_view` writes it as PNG, SVG or PDF;
* :func:`view_data` is the plotted arrays as columns of one table;
  :func:`export_view_data` writes them as CSV with a JSON provenance sidecar
  (puzzle, solver, parameters and their change log, seed, iteration, version):
  :func:`provenance`.

Examples
--------
>>> from sudoku_lab.solvers import create
>>> from sudoku_lab.analysis import view_figures as vf
>>> from sudoku_lab.model.library import puzzle
>>> s = create("hill_climb")
>>> s.reset(puzzle("reseda_fig3_1_easy"), seed=1)
>>> vf.view_names(s)
('board', 'convergence', 'ac3', 'runs', 'unit_counts')
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .._checks import checked
from ..errors import ParameterError
from ..files import DPI_RANGE, check_figure_path, check_writable, figure_format, write_file, write_text
from ..model.geometry import SYMBOLS
from ..solvers.base import Snapshot, Solver
from . import figures as _fig
from .figures import Figure, Rectangle

__all__ = [
    "FigureStyle",
    "ViewData",
    "VIEW_TITLES",
    "view_names",
    "view_title",
    "view_figure",
    "view_data",
    "export_view",
    "export_view_data",
    "provenance",
    "RUN_STATES",
    "CM_PER_INCH",
    "SIZE_RANGE_IN",
    "FONT_RANGE",
]

CM_PER_INCH = 2.54
#: Figure sides accepted, in inches (0.5 in to 1 m).
SIZE_RANGE_IN = (0.5, 40.0)
#: Base font sizes accepted, in points.
FONT_RANGE = (4.0, 40.0)
#: matplotlib's base font size: every text of a figure is scaled by ``font_size / BASE_FONT``.
BASE_FONT = 10.0


# ------------------------------------------------------------------ style
@checked
@dataclass(frozen=True)
class FigureStyle:
    """Size, resolution and font size of an exported figure.

    Attributes
    ----------
    width, height : float, optional
        Figure size in ``unit``; None keeps the view's own size (both or neither).
    unit : {"in", "cm"}
    dpi : int
        Dots per inch of a PNG (a PNG is ``width x dpi`` by ``height x dpi`` pixels); SVG and PDF are vector.
    font_size : float, optional
        Base font size in points: every text is scaled by ``font_size / 10`` (matplotlib's default);
        None keeps the view's own sizes.

    Raises
    ------
    ParameterError
        A size outside 0.5 to 40 inches, one side without the other, an unknown unit, a dpi outside
        :data:`~sudoku_lab.files.DPI_RANGE` or a font size outside 4 to 40 points: one message naming it.
    """

    width: float | None = None
    height: float | None = None
    unit: str = "in"
    dpi: int = 200
    font_size: float | None = None

    def __post_init__(self):
        if self.unit not in ("in", "cm"):
            raise ParameterError(f"the size unit must be 'in' or 'cm', got {self.unit!r}", name="unit")
        if (self.width is None) != (self.height is None):
            raise ParameterError("give both the width and the height of the figure, or neither", name="size")
        lo, hi = SIZE_RANGE_IN
        scale = CM_PER_INCH if self.unit == "cm" else 1.0
        for name in ("width", "height"):
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ParameterError(f"the figure's {name} must be a number, got {v!r}", name=name)
            if not lo * scale <= v <= hi * scale:
                raise ParameterError(
                    f"the figure's {name} must be from {lo * scale:g} to {hi * scale:g} {self.unit}, got {v:g}",
                    name=name,
                )
        dlo, dhi = DPI_RANGE
        if isinstance(self.dpi, bool) or not isinstance(self.dpi, int) or not dlo <= self.dpi <= dhi:
            raise ParameterError(f"dpi must be an integer from {dlo} to {dhi}, got {self.dpi!r}", name="dpi")
        f = self.font_size
        if f is not None:
            flo, fhi = FONT_RANGE
            if isinstance(f, bool) or not isinstance(f, (int, float)) or not flo <= f <= fhi:
                raise ParameterError(
                    f"the font size must be from {flo:g} to {fhi:g} points, got {f!r}", name="font_size"
                )

    @property
    def inches(self) -> tuple[float, float] | None:
        """(width, height) in inches, or None for the view's own size."""
        if self.width is None or self.height is None:
            return None
        scale = CM_PER_INCH if self.unit == "cm" else 1.0
        return float(self.width) / scale, float(self.height) / scale

    def pixels(self) -> tuple[int, int] | None:
        """The PNG's (width, height) in pixels, or None for the view's own size."""
        size = self.inches
        return None if size is None else (round(size[0] * self.dpi), round(size[1] * self.dpi))


def _style(style: FigureStyle | None, kw: Mapping[str, Any]) -> FigureStyle:
    if style is not None and kw:
        raise ParameterError("give a FigureStyle or its fields as keywords, not both", name="style")
    if style is not None:
        if not isinstance(style, FigureStyle):
            raise ParameterError(f"style must be a FigureStyle, got {type(style).__name__}", name="style")
        return style
    unknown = sorted(set(kw) - {"width", "height", "unit", "dpi", "font_size"})
    if unknown:
        raise ParameterError(
            f"unknown figure option {unknown[0]!r} (width, height, unit, dpi, font_size)", name=unknown[0]
        )
    return FigureStyle(**kw)


def _apply_style(fig: Figure, style: FigureStyle) -> Figure:
    size = style.inches
    if size is not None:
        fig.set_size_inches(*size)
    fig.set_dpi(style.dpi)
    if style.font_size is not None:
        from matplotlib.text import Text

        factor = style.font_size / BASE_FONT
        for t in fig.findobj(Text):
            t.set_fontsize(float(t.get_fontsize()) * factor)
    raw = getattr(fig, "_view_title", None)
    sup = getattr(fig, "_suptitle", None)
    if raw is not None and sup is not None:  # the title wrapped again for the new width and font size
        sup.set_text(_wrap(raw, fig.get_figwidth(), float(sup.get_fontsize())))
    return fig


# ------------------------------------------------------------------ views
#: Every view this module draws, with its title (the lab's dock titles).
VIEW_TITLES: Mapping[str, str] = {
    "board": "Board",
    "convergence": "Convergence",
    "ac3": "AC3 propagation",
    "probability": "Probability model",
    "runs": "Runs and restarts",
    "tabu": "Tabu list",
    "nests": "Nests",
    "population": "Population",
    "box_models": "Box models",
    "unit_counts": "Counts per row and column",
}
#: The layer role each view needs (views absent here are shown for every solver).
_ROLE = {
    "probability": "probability",
    "runs": "runs",
    "tabu": "tabu",
    "nests": "nests",
    "population": "population",
    "box_models": "box_models",
    "unit_counts": "unit_counts",
}


def _solver_class(solver) -> type[Solver]:
    from ..solvers import get_solver_class

    if isinstance(solver, Snapshot):
        return get_solver_class(solver.solver)
    if isinstance(solver, str):
        return get_solver_class(solver)
    if isinstance(solver, type) and issubclass(solver, Solver):
        return solver
    if isinstance(solver, Solver):
        return type(solver)
    raise ParameterError(f"expected a solver, its name or a snapshot, got {type(solver).__name__}", name="solver")


@checked
def view_names(solver: Any) -> tuple[str, ...]:
    """The views of a solver, in the lab's order: ``board``, ``convergence``, ``ac3``, then those its layer roles add.

    Parameters
    ----------
    solver : Solver subclass, Solver, str or Snapshot
        The solver (its class, an instance, its registry name, or one of its snapshots).
    """
    cls = _solver_class(solver)
    return tuple(v for v in VIEW_TITLES if v not in _ROLE or cls.layers_with_role(_ROLE[v]))


@checked
def view_title(view: str) -> str:
    """The title of a view ("Nests", "Tabu list")."""
    _check_view_name(view)
    return VIEW_TITLES[view]


def _check_view_name(view) -> None:
    if not isinstance(view, str) or view not in VIEW_TITLES:
        raise ParameterError(f"unknown view {view!r}: the views are {', '.join(VIEW_TITLES)}", name="view")


def _check_view(snapshot: Snapshot, view: str, cls: type[Solver]) -> None:
    _check_view_name(view)
    names = view_names(cls)
    if view not in names:
        raise ParameterError(
            f"the {cls.name} solver has no {view!r} view (it declares no layer with role {_ROLE[view]!r}); "
            f"its views are {', '.join(names)}",
            name="view",
        )


def _layer(snapshot: Snapshot, cls: type[Solver], role: str):
    for d in cls.layers_with_role(role):
        v = snapshot.layers.get(d.name)
        if v is not None:
            return d, v
    return None, None


def _label(snapshot: Snapshot, cls: type[Solver]) -> str:
    return f"{cls.title}, {snapshot.puzzle.name or 'puzzle'}, {cls.iteration_name} {snapshot.iteration:,}"


def _cells(snapshot: Snapshot) -> dict[str, np.ndarray]:
    N = snapshot.puzzle.N
    cell = np.arange(snapshot.puzzle.C)
    return {"cell": cell, "row": cell // N + 1, "col": cell % N + 1}


# --------------------------------------------------------------- drawing
def _draw_board(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    return _fig.board_figure(snapshot, title=title if title is not None else _label(snapshot, cls))


def _draw_convergence(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    return _fig.convergence_figure(snapshot, title=title if title is not None else _label(snapshot, cls), solver=cls)


def _draw_probability(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    d, p = _layer(snapshot, cls, "probability")
    n, N = snapshot.puzzle.n, snapshot.puzzle.N
    _, h = _layer(snapshot, cls, "entropy")
    panels = 1 if h is None else 2
    fig = Figure(figsize=(6.2 if panels == 1 else 10.6, 5.4), layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False, width_ratios=[1.0] if panels == 1 else [1.35, 1.0])[0]
    if p is None:
        _empty(axes[0], "no probability model yet")
    else:
        im = _fig._draw_probability(axes[0], p, n, snapshot.fixed)
        axes[0].set_title(d.help.split(" (")[0].split(":")[0], fontsize=10)  # the layer's own words, short
        fig.colorbar(im, ax=axes[0], fraction=0.046, pad=0.03, label="probability")
    if h is not None:
        ax = axes[1]
        img = np.asarray(h, float).reshape(N, N)
        im2 = ax.imshow(img, cmap="magma", vmin=0.0, vmax=1.0, extent=(0, N, N, 0), interpolation="nearest")
        for k in range(N + 1):
            lw = 2.0 if k % n == 0 else 0.5
            ax.axhline(k, color="white", lw=lw)
            ax.axvline(k, color="white", lw=lw)
        ax.set_xticks([k + 0.5 for k in range(N)], [str(k + 1) for k in range(N)])
        ax.set_yticks([k + 0.5 for k in range(N)], [str(k + 1) for k in range(N)])
        ax.tick_params(length=0)
        ax.set_title("entropy per cell (normalised)", fontsize=10)
        fig.colorbar(im2, ax=ax, fraction=0.046, pad=0.03, label="entropy")
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _wrap(text: str, width_in: float, points: float) -> str:
    """``text`` wrapped to a figure ``width_in`` inches wide at ``points`` (a character is about 0.55 em)."""
    import textwrap

    width = max(20, int(width_in * 72 / (0.55 * points)))
    return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))


def _suptitle(fig: Figure, text: str, **kw) -> None:
    """The figure's title, wrapped to its width (again by :func:`_apply_style` when the size changes)."""
    t = fig.suptitle(text, **kw)
    t.set_text(_wrap(text, fig.get_figwidth(), float(t.get_fontsize())))
    fig._view_title = text  # type: ignore[attr-defined]


def _integers(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins="auto", integer=True))  # "auto": as many as the axis has room for


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#777777")
    ax.set_xticks([])
    ax.set_yticks([])


def _ac3_result(snapshot: Snapshot, cls: type[Solver]):
    """The solver's own AC3 run (role ``ac3``) and its caption, else the puzzle's AC3."""
    d, result = _layer(snapshot, cls, "ac3")
    if result is not None:
        it = snapshot.layers.get(f"{d.name}_iteration")
        where = "prefilter" if it == 0 else (f"{cls.iteration_name} {it}" if it is not None else "latest iteration")
        return result, f"the solver's AC3 ({where})"
    from ..exact.ac3 import ac3

    return ac3(snapshot.puzzle), "the puzzle's AC3"


def _bits(domains: np.ndarray, N: int) -> np.ndarray:
    """uint32 masks (C,) as bool (C, N): digit d allowed at column d - 1."""
    d = np.asarray(domains).astype(np.int64).reshape(-1, 1)
    return ((d >> np.arange(N)) & 1).astype(bool)


def _pencil_board(ax, snapshot: Snapshot, allowed: np.ndarray, struck: np.ndarray | None = None) -> None:
    """A board of pencil marks: singletons as big digits, other allowed digits small, struck ones red."""
    pz = snapshot.puzzle
    n, N = pz.n, pz.N
    givens = np.asarray(pz.givens, bool).reshape(-1)
    _fig._board_axes(ax, N, n)
    big, small = 150 / N, 55 / N
    for cell in range(pz.C):
        r, c = divmod(cell, N)
        if givens[cell]:
            ax.add_patch(Rectangle((c, r), 1, 1, color=_fig.BOARD_COLOURS["given_bg"], lw=0, zorder=0))
        digits = np.flatnonzero(allowed[cell]) + 1
        if len(digits) == 1 and (struck is None or not struck[cell].any()):
            colour = _fig.BOARD_COLOURS["given_fg"] if givens[cell] else _fig.BOARD_COLOURS["solver_fg"]
            ax.text(c + 0.5, r + 0.54, SYMBOLS[digits[0] - 1], fontsize=big, ha="center", va="center", color=colour)
            continue
        if len(digits) == 0 and (struck is None or not struck[cell].any()):
            ax.add_patch(Rectangle((c, r), 1, 1, color=_fig.BOARD_COLOURS["conflict_bg"], lw=0, zorder=0))
        for d in range(1, N + 1):
            on = allowed[cell, d - 1]
            gone = struck is not None and struck[cell, d - 1]
            if not (on or gone):
                continue
            i, j = divmod(d - 1, n)
            x, y = c + (j + 0.5) / n, r + (i + 0.5) / n
            t = ax.text(
                x,
                y,
                SYMBOLS[d - 1],
                fontsize=small,
                ha="center",
                va="center",
                color=_fig.BOARD_COLOURS["conflict_fg"] if gone else "#333333",
            )
            if gone:
                ax.plot(
                    [x - 0.35 / n, x + 0.35 / n],
                    [y + 0.3 / n, y - 0.3 / n],
                    color=_fig.BOARD_COLOURS["conflict_fg"],
                    lw=0.8,
                )
                t.set_alpha(0.9)


def _ac3_arrays(snapshot: Snapshot, cls: type[Solver]):
    result, caption = _ac3_result(snapshot, cls)
    N = snapshot.puzzle.N
    before = _bits(result.initial, N)
    after = _bits(result.domains, N)
    return result, caption, before, after


def _draw_ac3(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    result, caption, before, after = _ac3_arrays(snapshot, cls)
    fig = Figure(figsize=(6.0, 6.4), layout="constrained")
    ax = fig.subplots()
    # Removals are struck only for an AC3 of one move (a few); the puzzle's AC3 or a prefilter removes
    # most candidates, which would bury the domains left under red.
    one_move = caption.startswith("the solver's") and "prefilter" not in caption
    _pencil_board(ax, snapshot, after, before & ~after if one_move else None)
    N = snapshot.puzzle.N
    cell = result.wipeout_cell
    state = (
        "consistent"
        if result.consistent
        else "wipe-out" + (f" at r{cell // N + 1}c{cell % N + 1}" if cell is not None else "")
    )
    removed = f"{result.n_removed} removals{' (red)' * one_move}"
    ax.set_title(f"{caption}: {removed}, {result.n_fixed} cells fixed, {state}", fontsize=9)
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _runs_records(snapshot: Snapshot, cls: type[Solver]):
    d, rows = _layer(snapshot, cls, "runs")
    return d, tuple(rows or ())


def _draw_runs(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    d, rows = _runs_records(snapshot, cls)
    fig = Figure(figsize=(7.0, 4.0), layout="constrained")
    ax = fig.subplots()
    keys = [k for k, _ in d.columns] if d is not None else []
    cost_key = next((k for k in ("best_cost", "cost") if k in keys), None)
    if not rows or cost_key is None:
        _empty(ax, "no finished run yet" if not rows else "the runs declare no cost")
    else:
        x = np.arange(1, len(rows) + 1)
        y = np.array([float(r.get(cost_key) if r.get(cost_key) is not None else np.nan) for r in rows])
        solved = np.array([r.get("outcome") == "solved" for r in rows])
        if (~solved).any():
            ax.bar(x[~solved], y[~solved], color="#D55E00", label="not solved", width=0.8)
        if solved.any():
            ax.scatter(x[solved], np.zeros(int(solved.sum())), color="#009E73", marker="v", zorder=3, label="solved")
        if len(rows) <= 20:
            ax.set_xticks(x)  # one tick per run (an integer locator gives fractions for a single run)
        else:
            _integers(ax.xaxis)
        _integers(ax.yaxis)
        ax.set_xlabel("run")
        header = dict(d.columns)[cost_key]
        ax.set_ylabel(header.lower())
        ax.set_xlim(0.3, len(rows) + 0.7)
        ax.grid(True, axis="y", color="#e5e5e5", lw=0.6)
        ax.legend(loc="upper right", fontsize=8)
        ax.set_title(f"{len(rows)} run{'s' * (len(rows) != 1)}, {int(solved.sum())} solved", fontsize=10)
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _tabu_rows(snapshot: Snapshot, cls: type[Solver]) -> np.ndarray:
    _, t = _layer(snapshot, cls, "tabu")
    return np.zeros((0, 4), np.int64) if t is None else np.asarray(t).reshape(-1, 4)


def _draw_tabu(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    rows = _tabu_rows(snapshot, cls)
    pz = snapshot.puzzle
    N = pz.N
    tenure = float(snapshot.params.get("tenure", 0) or 0) or float(max(1, rows[:, 2].max(initial=1)))
    fig = Figure(figsize=(9.0, 5.4), layout="constrained")
    ax, side = fig.subplots(1, 2, width_ratios=[1.15, 1.0])
    board = _fig._Board(ax, pz)
    board.show(snapshot.grid, snapshot.fixed)
    for cell, digit, age, reason in rows.tolist():
        r, c = divmod(int(cell), N)
        alpha = max(0.25, 1.0 - 0.75 * min(age, tenure) / tenure)
        colour = "#CC79A7" if reason == 1 else "#E69F00"
        ax.add_patch(Rectangle((c + 0.04, r + 0.04), 0.92, 0.92, fill=False, ec=colour, lw=2.2, alpha=alpha, zorder=5))
        ax.text(
            c + 0.93,
            r + 0.1,
            SYMBOLS[int(digit) - 1],
            fontsize=85 / N,
            ha="right",
            va="top",
            color=colour,
            alpha=alpha,
            zorder=5,
        )
    ax.set_title("board: tabu features outlined (orange: undone, purple: wipe-out)", fontsize=8)
    side.axis("off")
    shown = rows[-24:]
    if len(shown):
        text = [
            [
                f"r{int(c) // N + 1}c{int(c) % N + 1}",
                SYMBOLS[int(d) - 1],
                str(int(a)),
                "wipe-out" if q == 1 else "undone",
            ]
            for c, d, a, q in shown.tolist()
        ]
        table = side.table(
            cellText=text, colLabels=["cell", "digit", "age", "reason"], loc="upper center", cellLoc="center"
        )
        table.auto_set_font_size(False)
        table.set_fontsize(8)
        table.scale(1.0, 1.15)
        more = f" (newest {len(shown)} of {len(rows)})" if len(rows) > len(shown) else ""
        side.set_title(f"tabu list, oldest first{more}", fontsize=9)
    else:
        _empty(side, "the tabu list is empty")
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _nest_arrays(snapshot: Snapshot, cls: type[Solver]):
    d, costs = _layer(snapshot, cls, "nests")
    costs = np.asarray(costs if costs is not None else [], dtype=float).reshape(-1)
    P = costs.size
    best = snapshot.layers.get("best_nest")
    best = int(best) if best is not None and 0 <= int(best) < P else (int(np.argmin(costs)) if P else -1)
    ab = snapshot.layers.get("abandoned")
    abandoned = np.asarray(ab, bool).reshape(-1) if ab is not None and np.size(ab) == P else np.zeros(P, bool)
    hist = snapshot.layers.get("nest_history")
    stride = int(snapshot.layers.get("history_stride") or 1)
    start = int(snapshot.layers.get("history_start") or 0)
    hist = (
        np.asarray(hist).reshape(-1, P)
        if hist is not None and np.size(hist) and np.shape(hist)[-1] == P
        else np.zeros((0, P))
    )
    hist_it = start + (np.arange(len(hist)) + 1) * stride
    return costs, best, abandoned, hist, hist_it


def _draw_nests(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    costs, best, abandoned, hist, hist_it = _nest_arrays(snapshot, cls)
    P = costs.size
    fig = Figure(figsize=(9.0, 4.4), layout="constrained")
    ax, hx = fig.subplots(1, 2)
    order = np.lexsort((np.arange(P), np.arange(P) != best, costs))  # ties: the best first
    colours = ["#009E73" if k == best else "#D55E00" if abandoned[k] else "#56B4E9" for k in order]
    ax.bar(np.arange(P), costs[order], color=colours, width=0.85)
    ax.set_xlabel("nests, sorted by cost")
    ax.set_ylabel("cost")
    _integers(ax.xaxis)
    ax.set_xlim(-0.6, P - 0.4)
    if P and costs.max() > 0:
        ax.set_ylim(0, float(costs.max()) * 1.45)  # room for the legend above the bars
    ax.grid(True, axis="y", color="#e5e5e5", lw=0.6)
    from matplotlib.patches import Patch

    ax.legend(
        [Patch(color="#009E73"), Patch(color="#D55E00"), Patch(color="#56B4E9")],
        ["best", "abandoned in the latest iteration", "other"],
        fontsize=7,
        loc="upper left",
    )
    ax.set_title(f"{P} nests, best cost {costs.min():g}" if P else "no nests", fontsize=10)
    if len(hist):
        step = float(hist_it[1] - hist_it[0]) if len(hist_it) > 1 else 1.0
        lo, hi = float(hist_it[0]) - step / 2, float(hist_it[-1]) + step / 2
        im = hx.imshow(hist.T, aspect="auto", cmap="viridis_r", interpolation="nearest", extent=(lo, hi, P - 0.5, -0.5))
        fig.colorbar(im, ax=hx, fraction=0.05, pad=0.02, label="cost")
        hx.set_xlabel(cls.iteration_name)
        hx.set_ylabel("nest")
        _integers(hx.yaxis)
        hx.set_title("each nest's cost over time", fontsize=10)
    else:
        _empty(hx, "no history yet")
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _population_values(snapshot: Snapshot, cls: type[Solver]) -> np.ndarray:
    _, v = _layer(snapshot, cls, "population")
    return np.zeros(0) if v is None else np.asarray(v, dtype=float).reshape(-1)


def _fitness_sense(cls: type[Solver]) -> bool:
    return cls.objective.native is not None and cls.objective.native_sense == "max"


def _draw_population(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    values = _population_values(snapshot, cls)
    d, _ = _layer(snapshot, cls, "population")
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.subplots()
    if not values.size:
        _empty(ax, "no population yet")
    else:
        lo, hi = float(values.min()), float(values.max())
        integral = bool(np.all(values == np.round(values))) and hi - lo <= 60
        bins = np.arange(lo - 0.5, hi + 1.5) if integral else np.linspace(lo, hi if hi > lo else lo + 1, 31)
        ax.hist(values, bins=bins.tolist(), color="#56B4E9", edgecolor="white")
        if integral:
            _integers(ax.xaxis)
        maximise = _fitness_sense(cls)
        best, worst = (hi, lo) if maximise else (lo, hi)
        for v, name, colour, ls in (
            (best, "best", "#009E73", "-"),
            (float(values.mean()), "mean", "#000000", "--"),
            (worst, "worst", "#D55E00", ":"),
        ):
            ax.axvline(v, color=colour, ls=ls, lw=1.4, label=f"{name} {v:g}")
        ax.legend(fontsize=8, loc="upper left")
        ax.set_xlabel(d.help if d is not None else "value")
        ax.set_ylabel("members")
        ax.set_title(f"{values.size} members", fontsize=10)
    _suptitle(fig, title if title is not None else _label(snapshot, cls))
    return fig


def _box_arrays(snapshot: Snapshot, cls: type[Solver]):
    _, M = _layer(snapshot, cls, "box_models")
    N = snapshot.puzzle.N
    M = np.full((N, N, N), np.nan) if M is None else np.asarray(M, float).reshape(N, N, N)
    moved = snapshot.layers.get("moved")
    moved = np.zeros((N, N)) if moved is None or np.size(moved) != N * N else np.asarray(moved, float).reshape(N, N)
    return M, moved


def _draw_box_models(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    M, moved = _box_arrays(snapshot, cls)
    n, N = snapshot.puzzle.n, snapshot.puzzle.N
    fig = Figure(figsize=(2.2 * n + 1.2, 2.2 * n + 0.6), layout="constrained")
    axes = fig.subplots(n, n, squeeze=False)
    top = set()
    if np.any(moved > 0):
        k = min(N, int(np.count_nonzero(moved > 0)))
        top = {tuple(int(i) for i in np.unravel_index(j, moved.shape)) for j in np.argsort(moved, axis=None)[::-1][:k]}
    im = None
    for b in range(N):
        ax = axes[b // n, b % n]
        im = ax.imshow(M[b], cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
        for bb, pos in top:
            if bb == b:
                ax.add_patch(Rectangle((-0.5, pos - 0.5), N, 1, fill=False, ec="#D55E00", lw=1.4))
        ax.set_title(f"box {b + 1}", fontsize=8)
        ax.set_xticks(range(N), [SYMBOLS[d] for d in range(N)], fontsize=6)
        ax.set_yticks(range(N), [str(p + 1) for p in range(N)], fontsize=6)
        ax.tick_params(length=0)
    if im is not None:
        fig.colorbar(im, ax=axes, fraction=0.03, pad=0.02, label="M[box, position, digit]")
    _suptitle(
        fig,
        (title if title is not None else _label(snapshot, cls))
        + "\nrows: positions in the box, columns: digits; outlined: the rows that moved most",
        fontsize=10,
    )
    return fig


def _unit_arrays(snapshot: Snapshot, cls: type[Solver]):
    d, counts = _layer(snapshot, cls, "unit_counts")
    N = snapshot.puzzle.N
    counts = np.zeros((2, N), np.int64) if counts is None else np.asarray(counts).reshape(2, N)
    return d, counts


def _draw_unit_counts(snapshot: Snapshot, cls: type[Solver], title: str | None) -> Figure:
    d, counts = _unit_arrays(snapshot, cls)
    pz = snapshot.puzzle
    N = pz.N
    fig = Figure(figsize=(9.0, 4.6), layout="constrained")
    ax, bx = fig.subplots(1, 2, width_ratios=[1.0, 1.0])
    board = _fig._Board(ax, pz)
    board.show(snapshot.grid, snapshot.fixed)
    for k in range(N):
        ax.text(
            N + 0.25,
            k + 0.55,
            str(int(counts[0, k])),
            fontsize=60 / N * 1.4,
            ha="left",
            va="center",
            color="#D55E00" if counts[0, k] else "#777777",
            clip_on=False,
        )
        ax.text(
            k + 0.5,
            N + 0.3,
            str(int(counts[1, k])),
            fontsize=60 / N * 1.4,
            ha="center",
            va="top",
            color="#D55E00" if counts[1, k] else "#777777",
            clip_on=False,
        )
    _, pairs = _layer(snapshot, cls, "cell_pairs")
    if pairs is not None:
        for a, b in np.asarray(pairs).reshape(-1, 2).tolist():
            (ra, ca), (rb, cb) = divmod(int(a), N), divmod(int(b), N)
            ax.annotate(
                "",
                (cb + 0.5, rb + 0.5),
                (ca + 0.5, ra + 0.5),
                arrowprops={"arrowstyle": "<->", "color": "#CC79A7", "lw": 2},
                zorder=6,
            )
    ax.set_title("board: counts in the margins, the last swap arrowed", fontsize=9)
    x = np.arange(1, N + 1)
    bx.bar(x - 0.2, counts[0], width=0.4, color="#0072B2", label="row")
    bx.bar(x + 0.2, counts[1], width=0.4, color="#E69F00", label="column")
    bx.set_xticks(x)
    bx.set_xlabel("row or column")
    bx.set_ylabel("count")
    _integers(bx.yaxis)
    bx.legend(fontsize=8)
    bx.grid(True, axis="y", color="#e5e5e5", lw=0.6)
    what = d.name if d is not None else "counts"
    bx.set_title(f"{what} per row and column: rows {int(counts[0].sum())}, columns {int(counts[1].sum())}", fontsize=9)
    extra = ", ".join(
        f"{k} = {snapshot.layers[k]:g}"
        for k in ("f", "f1", "f2")
        if isinstance(snapshot.layers.get(k), (int, float, np.integer, np.floating))
    )
    _suptitle(
        fig, (title if title is not None else _label(snapshot, cls)) + (f"\n{extra}" if extra else ""), fontsize=11
    )
    return fig


_DRAW: dict[str, Callable[[Snapshot, type[Solver], str | None], Figure]] = {
    "board": _draw_board,
    "convergence": _draw_convergence,
    "ac3": _draw_ac3,
    "probability": _draw_probability,
    "runs": _draw_runs,
    "tabu": _draw_tabu,
    "nests": _draw_nests,
    "population": _draw_population,
    "box_models": _draw_box_models,
    "unit_counts": _draw_unit_counts,
}


@checked
def view_figure(
    snapshot: Snapshot,
    view: str,
    style: FigureStyle | None = None,
    *,
    title: str | None = None,
    solver: type[Solver] | None = None,
    **options: Any,
) -> Figure:
    """Draw one view of a snapshot as a matplotlib Figure.

    Parameters
    ----------
    snapshot : Snapshot
        What to draw.
    view : str
        One of :func:`view_names` of the snapshot's solver.
    style : FigureStyle, optional
        Size, dpi and font size; or give its fields as keywords (``width=12, height=8, unit="cm",
        dpi=300, font_size=9``).
    title : str, optional
        Figure title (default: the solver, the puzzle and the iteration).
    solver : Solver subclass, optional
        Whose declarations to use (default: the registered class of ``snapshot.solver``).

    Raises
    ------
    ParameterError
        An unknown view, a view the solver does not have, or a bad size, dpi or font size: one message.
    """
    st = _style(style, options)
    cls = solver or _solver_class(snapshot)
    _check_view(snapshot, view, cls)
    return _apply_style(_DRAW[view](snapshot, cls, title), st)


# ------------------------------------------------------------------ data
@checked
@dataclass(frozen=True)
class ViewData:
    """The arrays a view plots, as the equal-length columns of one table.

    Attributes
    ----------
    view : str
    columns : Mapping[str, ndarray]
        Column name to a 1-D array; all of one length.
    notes : Mapping[str, object]
        What the columns mean and scalars the figure shows (JSON-ready).
    """

    view: str
    columns: Mapping[str, np.ndarray]
    notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def to_csv(self) -> str:
        """The table as CSV text (a header row, then one row per entry; floats with full precision)."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        names = list(self.columns)
        w.writerow(names)
        cols = [np.asarray(self.columns[k]) for k in names]
        for i in range(self.rows):
            w.writerow([_cell(c[i]) for c in cols])
        return out.getvalue()


def _cell(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (np.floating, float)):
        return "" if math.isnan(float(v)) else repr(float(v))
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    return "" if v is None else str(v)


def _data_board(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    from ..model.scoring import conflicting_cells

    cols = _cells(snapshot)
    cols.update(
        digit=np.asarray(snapshot.grid, np.int64).reshape(-1),
        given=np.asarray(snapshot.puzzle.givens, bool).reshape(-1),
        fixed=np.asarray(snapshot.fixed, bool).reshape(-1),
        clash=conflicting_cells(snapshot.grid, snapshot.puzzle.n),
    )
    return ViewData("board", cols, {"cost": int(snapshot.cost), "digit": "0 = empty"})


def _data_convergence(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    cols = {k: np.asarray(v) for k, v in snapshot.trace.items()}
    labels = {c.name: c.label for c in cls.columns if c.name in cols}
    return ViewData("convergence", cols, {"labels": labels, "iteration": cls.iteration_name})


def _data_probability(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    d, p = _layer(snapshot, cls, "probability")
    N, C = snapshot.puzzle.N, snapshot.puzzle.C
    p = np.full((C, N), np.nan) if p is None else np.asarray(p, float).reshape(C, N)
    cell = np.repeat(np.arange(C), N)
    cols = {
        "cell": cell,
        "row": cell // N + 1,
        "col": cell % N + 1,
        "digit": np.tile(np.arange(1, N + 1), C),
        "p": p.reshape(-1),
    }
    _, h = _layer(snapshot, cls, "entropy")
    if h is not None:
        cols["entropy"] = np.repeat(np.asarray(h, float).reshape(-1), N)
    return ViewData("probability", cols, {"layer": d.name if d is not None else None})


def _data_ac3(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    result, caption, before, after = _ac3_arrays(snapshot, cls)
    N, C = snapshot.puzzle.N, snapshot.puzzle.C
    cell = np.repeat(np.arange(C), N)
    cols = {
        "cell": cell,
        "row": cell // N + 1,
        "col": cell % N + 1,
        "digit": np.tile(np.arange(1, N + 1), C),
        "before": before.reshape(-1),
        "allowed": after.reshape(-1),
        "removed": (before & ~after).reshape(-1),
    }
    notes = {
        "source": caption,
        "removals": result.n_removed,
        "fixed": result.n_fixed,
        "consistent": bool(result.consistent),
    }
    return ViewData("ac3", cols, notes)


def _data_runs(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    d, rows = _runs_records(snapshot, cls)
    keys = [k for k, _ in d.columns] if d is not None else []
    cols = {k: np.array([r.get(k) for r in rows], dtype=object) for k in keys}
    return ViewData("runs", cols, {"headers": dict(d.columns) if d is not None else {}})


def _data_tabu(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    rows = _tabu_rows(snapshot, cls)
    N = snapshot.puzzle.N
    cell = rows[:, 0].astype(np.int64)
    cols = {
        "cell": cell,
        "row": cell // N + 1,
        "col": cell % N + 1,
        "digit": rows[:, 1],
        "age": rows[:, 2],
        "reason": rows[:, 3],
    }
    return ViewData("tabu", cols, {"order": "oldest first", "reason": "0 = a move undid it, 1 = a wipe-out"})


def _data_nests(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    costs, best, abandoned, hist, hist_it = _nest_arrays(snapshot, cls)
    P = costs.size
    cols: dict[str, np.ndarray] = {
        "nest": np.arange(P),
        "cost": costs,
        "best": np.arange(P) == best,
        "abandoned": abandoned,
    }
    for k, it in enumerate(hist_it.tolist()):
        cols[f"cost_at_{it}"] = hist[k]
    return ViewData("nests", cols, {"history": "cost_at_<iteration>: each nest's cost at that iteration"})


def _data_population(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    d, _ = _layer(snapshot, cls, "population")
    v = _population_values(snapshot, cls)
    name = d.name if d is not None else "value"
    notes: dict[str, Any] = {"layer": name}
    if v.size:
        notes.update(
            best=float(v.max() if _fitness_sense(cls) else v.min()),
            mean=float(v.mean()),
            worst=float(v.min() if _fitness_sense(cls) else v.max()),
        )
    return ViewData("population", {"member": np.arange(v.size), name: v}, notes)


def _data_box_models(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    M, moved = _box_arrays(snapshot, cls)
    N = snapshot.puzzle.N
    box, pos, digit = (a.reshape(-1) for a in np.meshgrid(np.arange(N), np.arange(N), np.arange(N), indexing="ij"))
    cols = {"box": box + 1, "position": pos + 1, "digit": digit + 1, "p": M.reshape(-1), "moved": moved[box, pos]}
    return ViewData("box_models", cols, {"moved": "largest change of the row (box, position) in the latest update"})


def _data_unit_counts(snapshot: Snapshot, cls: type[Solver]) -> ViewData:
    d, counts = _unit_arrays(snapshot, cls)
    N = snapshot.puzzle.N
    cols = {
        "unit": np.array(["row"] * N + ["column"] * N, dtype=object),
        "index": np.tile(np.arange(1, N + 1), 2),
        "count": counts.reshape(-1),
    }
    notes = {k: snapshot.layers[k] for k in ("f", "f1", "f2") if k in snapshot.layers}
    notes["layer"] = d.name if d is not None else None
    return ViewData("unit_counts", cols, _jsonable(notes))


_DATA: dict[str, Callable[[Snapshot, type[Solver]], ViewData]] = {
    "board": _data_board,
    "convergence": _data_convergence,
    "ac3": _data_ac3,
    "probability": _data_probability,
    "runs": _data_runs,
    "tabu": _data_tabu,
    "nests": _data_nests,
    "population": _data_population,
    "box_models": _data_box_models,
    "unit_counts": _data_unit_counts,
}


@checked
def view_data(snapshot: Snapshot, view: str, solver: type[Solver] | None = None) -> ViewData:
    """The arrays a view plots, as the columns of one table (see :class:`ViewData`).

    ``board``: cell, row, col, digit, given, fixed, clash; ``convergence``: the trace; ``probability``: cell,
    row, col, digit, p (and entropy); ``ac3``: cell, row, col, digit, before, allowed, removed; ``runs``: the
    run records' declared keys; ``tabu``: cell, row, col, digit, age, reason; ``nests``: nest, cost, best,
    abandoned and ``cost_at_<iteration>`` per history row; ``population``: member and the layer's values;
    ``box_models``: box, position, digit, p, moved; ``unit_counts``: unit, index, count. Rows, columns,
    digits, boxes and positions count from 1, cells and members from 0.

    Raises
    ------
    ParameterError
        An unknown view or one the solver does not have.
    """
    cls = solver or _solver_class(snapshot)
    _check_view(snapshot, view, cls)
    return _DATA[view](snapshot, cls)


# ------------------------------------------------------------ provenance
def _jsonable(v):
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return float(v) if math.isfinite(float(v)) else None
    if v is None or isinstance(v, (int, str)):
        return v
    return str(v)


#: The states of a run a front end knows (:func:`provenance`'s ``state``): not started since its reset, being
#: stepped, paused between steps (also when rewound), stopped by the user, or finished by the solver.
RUN_STATES = ("ready", "running", "paused", "stopped", "solved", "failed")


@checked
def provenance(
    snapshot: Snapshot, view: str | None = None, seed: int | None = None, state: str | None = None
) -> dict[str, Any]:
    """Where an exported view comes from: puzzle, solver, parameters and their change log, seed, iteration, version.

    Parameters
    ----------
    snapshot : Snapshot
    view : str, optional
    seed : int, optional
        The run's seed (a snapshot does not carry it); None when unknown.
    state : str, optional
        The run's state as the front end that shows it knows it, one of :data:`RUN_STATES` (the lab
        window: ``paused`` between steps, ``running``, ...): recorded as ``status``. A snapshot of a
        finished run records its ``solved`` or ``failed`` whatever ``state`` says. None: the solver's
        own status (``running`` for a run not finished, stepped or not). ``solver_status`` always holds
        the solver's.

    Raises
    ------
    ParameterError
        ``view`` is not one of the solver's views (:func:`view_names`), or ``state`` is not one of
        :data:`RUN_STATES`.
    """
    from .. import __version__

    if state is not None and state not in RUN_STATES:
        raise ParameterError(f"a run's state is one of {', '.join(RUN_STATES)}, not {state!r}", name="state")
    status = snapshot.status if snapshot.done or state is None else state

    pz = snapshot.puzzle
    cls = _solver_class(snapshot)
    if view is not None:
        _check_view(snapshot, view, cls)  # a record of a view that does not exist would describe nothing
    changes = [e for e in snapshot.events if e.kind == "param"]
    return _jsonable(
        {
            "sudoku_lab": __version__,
            "view": view,
            "view_title": VIEW_TITLES.get(view or "", None),
            "puzzle": {
                "name": pz.name,
                "n": pz.n,
                "givens": "".join(SYMBOLS[d - 1] if d else "." for d in pz.grid.tolist()),
            },
            "solver": snapshot.solver,
            "solver_title": cls.title,
            "params": dict(snapshot.params),
            "param_changes": [{"iteration": e.iteration, "name": e.name, "old": e.old, "new": e.new} for e in changes],
            "events": [
                {"iteration": e.iteration, "kind": e.kind, "name": e.name, "old": e.old, "new": e.new}
                for e in snapshot.events
            ],
            "seed": seed,
            "iteration": snapshot.iteration,
            "evaluations": snapshot.evaluations,
            "status": status,
            "solver_status": snapshot.status,
            "cost": snapshot.cost,
            "best_cost": snapshot.best_cost,
        }
    )


# --------------------------------------------------------------- writing
@checked
def export_view(
    snapshot: Snapshot,
    view: str,
    path: str | os.PathLike[str],
    style: FigureStyle | None = None,
    *,
    title: str | None = None,
    **options: Any,
) -> Path:
    """Draw a view (:func:`view_figure`) and write it as PNG, SVG or PDF by the suffix of ``path``.

    Every option is checked before anything is drawn or written.

    Raises
    ------
    ParameterError
        A bad view, size, dpi, font size or suffix.
    DataFileError
        The file cannot be written.
    """
    st = _style(style, options)
    cls = _solver_class(snapshot)
    _check_view(snapshot, view, cls)
    target = check_figure_path(path, st.dpi)
    fig = view_figure(snapshot, view, st, title=title, solver=cls)
    fmt = figure_format(target)
    write_file(target, lambda fh: fig.savefig(fh, format=fmt, dpi=st.dpi), "figure", binary=fmt != "svg")
    return target


@checked
def export_view_data(
    snapshot: Snapshot, view: str, path: str | os.PathLike[str], seed: int | None = None, state: str | None = None
) -> tuple[Path, Path]:
    """Write a view's plotted arrays (:func:`view_data`) as CSV, and its :func:`provenance` as JSON beside it.

    The sidecar is ``path`` with the suffix ``.json`` (``nests.csv`` and ``nests.json``); it also holds the
    table's columns and notes. ``seed`` and ``state`` (the run's, one of :data:`RUN_STATES`) go into it as
    :func:`provenance` records them.

    Returns
    -------
    (Path, Path)
        The CSV and the JSON file.

    Raises
    ------
    ParameterError
        A bad view, or a path without the suffix .csv.
    DataFileError
        A file cannot be written.
    """
    path = Path(path)
    if path.suffix.lower() != ".csv":
        raise ParameterError(f"view data is written as .csv, not {path.name!r}", name="out")
    data = view_data(snapshot, view)
    sidecar = path.with_suffix(".json")
    check_writable(path, "view data")
    check_writable(sidecar, "provenance")
    meta = provenance(snapshot, view, seed, state)
    meta["data"] = {
        "file": path.name,
        "rows": data.rows,
        "columns": list(data.columns),
        "notes": _jsonable(dict(data.notes)),
    }
    write_text(path, data.to_csv(), "view data")
    write_text(sidecar, json.dumps(meta, indent=2) + "\n", "provenance")
    return path, sidecar
