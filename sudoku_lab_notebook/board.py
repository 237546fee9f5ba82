"""The board as SVG inside HTML: what the notebook lab shows in its board pane, and nothing else.

The colours are the lab's (:func:`sudoku_lab.analysis.figures.board_figure` draws the same board with
matplotlib): givens bold and dark on slate, the solver's digits blue, a digit that clashes with another
in its row, column or box vermillion on a pale red cell, cells the solver holds fixed (a restart's zone,
AC3's prefill) tinted green, and the cells the last phase changed outlined in purple.
"""

from __future__ import annotations

from html import escape

import numpy as np
import numpy.typing as npt

from sudoku_lab.analysis.figures import BOARD_COLOURS
from sudoku_lab.model.geometry import SYMBOLS
from sudoku_lab.model.scoring import conflicting_cells
from sudoku_lab.solvers import Snapshot

__all__ = ["board_html", "COLOURS"]

#: The board's colours: the lab's and the figures' (``BOARD_COLOURS``), and the outline of the last phase's cells.
COLOURS = {**BOARD_COLOURS, "changed": "#7E2F8E"}


def board_html(snapshot: Snapshot, changed: npt.ArrayLike | None = None, best: bool = False, size: int = 360) -> str:
    """The snapshot's grid as an SVG board inside a ``<div>``.

    Parameters
    ----------
    snapshot : Snapshot
        Its ``grid`` (or ``best_grid``), ``fixed`` and ``puzzle`` (givens, box size) are drawn.
    changed : array_like of bool, shape (C,), optional
        Cells to outline: what the last phase changed (``PhaseStep.changed["cells"]``).
    best : bool
        Draw ``best_grid`` instead of ``grid``.
    size : int
        Side of the board in pixels.

    Returns
    -------
    str
        HTML: one ``<svg>`` with a ``<text class="digit given">`` or ``<text class="digit solver">`` per
        filled cell (``data-cell`` its index) and a ``<rect class="changed">`` per outlined cell.
    """
    pz = snapshot.puzzle
    n, N = pz.n, pz.N
    grid = np.asarray(snapshot.best_grid if best else snapshot.grid).reshape(-1)
    givens = np.asarray(pz.givens, bool).reshape(-1)
    fixed = np.asarray(snapshot.fixed, bool).reshape(-1) & ~givens
    clash = conflicting_cells(grid, n)
    outline = np.zeros(N * N, bool) if changed is None else np.asarray(changed, bool).reshape(-1)
    cell = size / N
    font = cell * 0.62
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sudoku-board" width="{size}" height="{size}" '
        f'viewBox="-2 -2 {size + 4} {size + 4}" font-family="DejaVu Sans, Arial, sans-serif">'
    ]
    for k in range(N * N):
        r, c = divmod(k, N)
        d = int(grid[k])
        bad = bool(clash[k]) and d > 0
        bg = (
            COLOURS["given_bg"]
            if givens[k]
            else COLOURS["conflict_bg"]
            if bad
            else COLOURS["fixed_bg"]
            if fixed[k]
            else "#FFFFFF"
        )
        parts.append(
            f'<rect x="{c * cell:.2f}" y="{r * cell:.2f}" width="{cell:.2f}" height="{cell:.2f}" fill="{bg}"/>'
        )
    for k in range(N + 1):
        thick = k % n == 0
        colour, width = (COLOURS["thick_line"], 2.5) if thick else (COLOURS["thin_line"], 0.8)
        pos = k * cell
        parts.append(
            f'<line x1="0" y1="{pos:.2f}" x2="{size}" y2="{pos:.2f}" stroke="{colour}" stroke-width="{width}"/>'
        )
        parts.append(
            f'<line x1="{pos:.2f}" y1="0" x2="{pos:.2f}" y2="{size}" stroke="{colour}" stroke-width="{width}"/>'
        )
    for k in range(N * N):
        d = int(grid[k])
        if d <= 0:
            continue
        r, c = divmod(k, N)
        kind = "given" if givens[k] else "solver"
        colour = COLOURS["conflict_fg"] if clash[k] else COLOURS["given_fg"] if givens[k] else COLOURS["solver_fg"]
        weight = "bold" if givens[k] else "normal"
        parts.append(
            f'<text class="digit {kind}" data-cell="{k}" x="{(c + 0.5) * cell:.2f}" y="{(r + 0.5) * cell:.2f}" '
            f'dy="0.35em" text-anchor="middle" font-size="{font:.1f}" font-weight="{weight}" fill="{colour}">'
            f"{escape(SYMBOLS[d - 1])}</text>"
        )
    for k in np.flatnonzero(outline).tolist():
        r, c = divmod(k, N)
        parts.append(
            f'<rect class="changed" data-cell="{k}" x="{c * cell + 2:.2f}" y="{r * cell + 2:.2f}" '
            f'width="{cell - 4:.2f}" height="{cell - 4:.2f}" fill="none" stroke="{COLOURS["changed"]}" '
            f'stroke-width="3"/>'
        )
    parts.append("</svg>")
    return '<div class="sudoku-lab-board">' + "".join(parts) + "</div>"
