"""Shared colours and fonts of the lab's widgets.

The palette is Okabe and Ito's colour-blind safe set (Okabe & Ito 2008,
"Color Universal Design"), used on a white background with dark text because
light backgrounds survive classroom projectors best. Continuous data use
perceptually uniform colour maps that stay readable in grey scale and for
every common colour-vision deficiency (viridis for probabilities, cividis for
entropy).

Colours are hex strings so the module imports without a QApplication; use
:func:`qcolor` where Qt needs a ``QColor``.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont

__all__ = [
    "BLACK",
    "ORANGE",
    "SKY_BLUE",
    "GREEN",
    "YELLOW",
    "BLUE",
    "VERMILLION",
    "PURPLE",
    "GREY",
    "BOARD",
    "PLOT",
    "MARKERS",
    "SET_COLOURS",
    "LINK_COLOURS",
    "PROB_COLORMAP",
    "ENTROPY_COLORMAP",
    "PRESENTATION",
    "qcolor",
    "ui_font",
    "mono_font",
]

# Okabe-Ito.
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
GREY = "#7F7F7F"

#: Board colours (BoardView).
BOARD = {
    "background": "#FFFFFF",
    "given_bg": "#E3E8EF",  # light slate: givens are "printed" cells
    "fixed_bg": "#D4EFE3",  # light bluish green: cells fixed by the solver (restart zone, AC3)
    "shade": YELLOW,  # shading overlay (a highlighter), alpha grows with the value
    "given_fg": "#111111",
    "solver_fg": BLUE,
    "conflict_fg": VERMILLION,
    "pencil_fg": "#4A4A4A",
    "removed_fg": VERMILLION,
    "thin_line": "#9AA3AD",
    "thick_line": "#1F2328",
    "diff": PURPLE,
    "highlight": VERMILLION,
    "focus": BLUE,
    "selection": ORANGE,
    "selection_bg": "#FDEFD3",
}

#: Plot colours (pyqtgraph widgets).
PLOT = {
    "background": "#FFFFFF",
    "foreground": "#222222",
    "grid_thin": (255, 255, 255, 90),
    "grid_thick": (255, 255, 255, 255),
    "given_outline": ORANGE,
}

# Convergence curves take their colours from the solvers' declarations
# (sudoku_lab.solvers.declare.column_colours), so the lab and exported figures agree.

#: Event markers of the convergence plot: run ends and restarts (failed, solved) and parameter changes.
MARKERS = {
    "run": VERMILLION,
    "solved": GREEN,
    "param": "#444444",
}

#: Colours of the board's named cell sets (restart zones, tabu cells...), in name order.
SET_COLOURS = (ORANGE, PURPLE, SKY_BLUE, GREEN)
#: Colours of the board's linked cell pairs (swaps).
LINK_COLOURS = (VERMILLION, BLUE, PURPLE)

#: pyqtgraph colour map names.
PROB_COLORMAP = "viridis"
ENTROPY_COLORMAP = "cividis"


#: Presentation mode (a projector seen from the back of a room): pure black on white, thick lines, large
#: type, and every distinction made twice, so that it survives a washed-out projector and every common
#: colour-vision deficiency: givens in black, heaviest weight, on grey; the solver's digits in Okabe-Ito
#: blue, normal weight, on white; conflicts in vermillion, bold and underlined. Curves keep their
#: Okabe-Ito colours except yellow and sky blue, too pale on white, which become black and blue-green;
#: both heatmaps use cividis (uniform, readable in grey and for deuteranopes and protanopes).
PRESENTATION = {
    "font_scale": 1.8,  # at a 1080-pixel-high screen; in proportion to the screen's height elsewhere
    "line_scale": 2.5,  # curve, marker and grid-line pens
    "board": {
        "background": "#FFFFFF",
        "given_bg": "#D0D0D0",
        "fixed_bg": "#BFE6D5",
        "given_fg": "#000000",
        "solver_fg": BLUE,
        "conflict_fg": VERMILLION,
        "thin_line": "#000000",
        "thick_line": "#000000",
    },
    "foreground": "#000000",
    "curve_colours": {YELLOW: BLACK, SKY_BLUE: GREEN},
    "colormap": "cividis",
    "caption_bg": "#000000",
    "caption_fg": "#FFFFFF",
    "caption_event": YELLOW,  # yellow on black: the one pairing where Okabe-Ito's yellow is the strongest
}


def qcolor(color, alpha: float | None = None) -> QColor:
    """A new ``QColor`` from a hex string, an (r, g, b[, a]) tuple or a QColor, with an optional alpha (0..255)."""
    c = QColor(*color) if isinstance(color, tuple) else QColor(color)
    if alpha is not None:
        c.setAlpha(int(alpha))
    return c


def ui_font(point_size: float = 11.0, bold: bool = False) -> QFont:
    """The sans-serif font of labels and axes (11 pt reads from the back of a room)."""
    f = QFont()
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


def mono_font(point_size: float = 10.5) -> QFont:
    """A fixed-width font for columns of numbers (probability read-outs, logs)."""
    f = QFont("monospace")
    f.setStyleHint(QFont.StyleHint.Monospace)
    f.setPointSizeF(point_size)
    return f
