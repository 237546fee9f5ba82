"""Start the lab: QApplication, main window, first puzzle."""

from __future__ import annotations

import os
import sys

from sudoku_lab import library
from sudoku_lab.errors import SudokuLabError

__all__ = ["run_app", "create_window"]


def create_window(puzzle=None, algo: str | None = None, settings=None):
    """Build the main window on ``puzzle`` (default: the bundled default) with ``algo`` selected.

    A QApplication must exist. Returns the window, not yet shown.
    """
    from .main_window import MainWindow

    win = MainWindow(settings=settings)
    if algo:
        win.controller.set_solver(algo)
    win.start(puzzle if puzzle is not None else library.puzzle(library.DEFAULT_PUZZLE))
    return win


def run_app(options=None) -> int:
    """Open the lab; ``options`` are the parsed ``sudoku-lab gui`` arguments (puzzle, algo)."""
    from sudoku_lab.cli import resolve_puzzle
    from sudoku_lab.solvers import get_solver_class

    puzzle = None
    algo = getattr(options, "algo", None)
    try:
        if getattr(options, "puzzle", None):
            puzzle = resolve_puzzle(options.puzzle)
            puzzle.check()
        if algo:
            get_solver_class(algo)
    except SudokuLabError as e:
        print(f"sudoku-lab: error: {e}", file=sys.stderr)
        return 2
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                 or os.environ.get("QT_QPA_PLATFORM")):
        print("sudoku-lab: error: no display to open the lab window on (DISPLAY is not set); the headless "
              "commands work anywhere: see sudoku-lab --help", file=sys.stderr)
        return 2
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Sudoku Lab")
    app.setOrganizationName("Sudoku Lab")
    settings = QSettings()
    win = create_window(puzzle, algo, settings=settings)
    win.restore_layout()
    win.show()
    return app.exec()
