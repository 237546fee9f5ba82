"""Sudoku Lab in a notebook: the live lab as ipywidgets, for machines that cannot install Qt.

Install with the ``notebook`` extra (``pip install -e '.[notebook]'`` in a checkout), open JupyterLab
and display a :class:`Lab` in a cell::

    from sudoku_lab_notebook import Lab
    Lab(solver="reseda", puzzle="ai_escargot", seed=0)

This package sits beside the core (``sudoku_lab``) and the Qt window (``sudoku_lab_ui``): it uses
the core's public API only, and never imports Qt, pyqtgraph or the window; the core never imports
it (``[tool.importlinter]`` in pyproject.toml). See ``docs/notebook.md``.
"""

from __future__ import annotations

from .board import board_html
from .lab import Lab, figure_png, main_view
from .show import show_figure, show_view

__all__ = ["Lab", "board_html", "figure_png", "main_view", "show_figure", "show_view"]
