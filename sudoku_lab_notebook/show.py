"""Static figures in a notebook's outputs: PNG images that stay in the saved notebook (and read on GitHub)."""

from __future__ import annotations

from typing import Any

from IPython.display import Image

from sudoku_lab.analysis.view_figures import view_figure
from sudoku_lab.solvers import Snapshot

from .lab import figure_png

__all__ = ["show_figure", "show_view"]


def show_figure(fig: Any, dpi: int = 90) -> Image:
    """A matplotlib Figure as an IPython PNG image: the last expression of a cell shows it.

    matplotlib's Figure API (no pyplot) has no display of its own in a notebook; this draws it with Agg.
    """
    return Image(data=figure_png(fig, dpi=dpi), format="png")


def show_view(snapshot: Snapshot, view: str, dpi: int = 90, **style: Any) -> Image:
    """One view of a snapshot (:func:`~sudoku_lab.analysis.view_figures.view_figure`) as a PNG image.

    Parameters
    ----------
    snapshot : Snapshot
        What to draw.
    view : str
        One of the solver's views (``board``, ``convergence``, ``probability``, ``nests``...).
    dpi : int
        Resolution of the PNG.
    **style
        ``width``, ``height``, ``unit``, ``font_size``, as :func:`view_figure` takes them.
    """
    return show_figure(view_figure(snapshot, view, **style), dpi=dpi)
