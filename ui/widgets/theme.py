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
    "presentation_styles",
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
    # The cells a phase changed: a blue outline, no fill; conflicts are vermillion digits, underlined.
    # Blue against vermillion stays apart for every common colour-vision deficiency (Okabe & Ito 2008).
    "changed": BLUE,
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
#: blue, normal weight, on white; conflicts in vermillion, bold and underlined; the cells a phase changed
#: outlined in blue, never filled. The curves and threshold
#: lines of one plot get one Okabe-Ito colour each (:func:`presentation_styles`): their own where it is
#: strong on white and not taken, else the next free one of ``curve_colours`` (yellow never: it vanishes
#: on a projector; sky blue only once the six strong colours are taken), and a line style of their own
#: once colours run out; both heatmaps use cividis (uniform, readable in grey and for deuteranopes and
#: protanopes).
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
        "changed": BLUE,
        "thin_line": "#000000",
        "thick_line": "#000000",
    },
    "foreground": "#000000",
    # The strong colours first, in the order a curve that needs a new one takes them; sky blue last.
    "curve_colours": (BLUE, ORANGE, GREEN, PURPLE, VERMILLION, BLACK, SKY_BLUE),
    "curve_styles": ("solid", "dashed", "dotted", "dashdot"),
    "colormap": "cividis",
    "caption_bg": "#000000",
    "caption_fg": "#FFFFFF",
    "caption_event": YELLOW,  # yellow on black: the one pairing where Okabe-Ito's yellow is the strongest
}


def presentation_styles(lines) -> list[tuple[str, str]]:
    """Colour and line style of each line of one plot in presentation mode, no two the same.

    Parameters
    ----------
    lines : sequence of (str, str)
        Each curve's or threshold line's own colour (hex) and style (``"solid"``, ``"dashed"``,
        ``"dotted"``, ``"dashdot"``), in the order the plot declares them (curves before threshold lines).

    Returns
    -------
    list of (str, str)
        The upper-case hex colour and style to draw each with: its own colour when that is one of
        ``PRESENTATION["curve_colours"]`` other than sky blue and no earlier line has it; else the first
        of those colours no line has; once every colour is taken, a colour with a style no line of that
        colour has yet.
    """
    palette = [c.upper() for c in PRESENTATION["curve_colours"]]
    strong = palette[:-1]  # sky blue (last) only when the others are taken
    styles = list(PRESENTATION["curve_styles"])
    wanted = [(str(c).upper(), s) for c, s in lines]
    out: list[tuple[str, str] | None] = [None] * len(wanted)
    taken: set[str] = set()
    for i, (colour, style) in enumerate(wanted):  # first pass: lines keep their own strong colour
        if colour in strong and colour not in taken:
            out[i] = (colour, style)
            taken.add(colour)
    used = {pair for pair in out if pair is not None}
    for i, (_own, style) in enumerate(wanted):
        if out[i] is not None:
            continue
        free = [c for c in palette if c not in taken]
        if free:
            pair = (free[0], style)
            taken.add(free[0])
        else:  # every colour taken: the first (colour, style) pair no line has, trying the line's own style first
            order = [style] + [s for s in styles if s != style]
            pair = next(((c, s) for s in order for c in palette if (c, s) not in used), (palette[0], style))
        out[i] = pair
        used.add(pair)
    return [pair for pair in out if pair is not None]


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
