"""``sudoku-lab gui``: the options of the lab window (the window itself is the ``sudoku_lab_ui`` front end).

The window's own packages (PySide6, pyqtgraph) are the ``gui`` extra, not core dependencies:
:func:`missing_window_packages` finds them without importing them, and :func:`window_missing_message`
says how to install them (both from ``sudoku_lab.plugins``, which ``sudoku-lab bench gui`` asks too).
"""

from __future__ import annotations

import argparse

from .._checks import checked
from ..plugins import WINDOW_PACKAGES, missing_window_packages, window_missing_message
from ._console import add_solver_params, seed_option

__all__ = ["WINDOW_PACKAGES", "add_cli", "missing_window_packages", "window_missing_message"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab gui`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    g = sub.add_parser(
        "gui",
        help="open the lab window (the default with no command)",
        description="Open the lab window on PUZZLE (default: the RESEDA paper's hard puzzle) with "
        "--algo selected, its first run seeded with --seed and the algorithm's parameters set by their "
        "options, as `sudoku-lab solve` takes them: `sudoku-lab gui ai_escargot --algo reseda --seed 1 "
        "--alpha 0.5` opens the run that `sudoku-lab solve ai_escargot --algo reseda --seed 1 --alpha 0.5` "
        "makes, paused at its start. Needs a display; without one it says so and exits with status 2.",
    )
    g.add_argument("puzzle", nargs="?", help="puzzle to open (file, bundled name or text)")
    g.add_argument("--algo", default=None, help="algorithm to select (see `sudoku-lab algorithms`)")
    g.add_argument(
        "--seed",
        type=seed_option,
        default=None,
        help="random seed of the first run, a non-negative integer (default 0, as `sudoku-lab solve`); "
        "the Seed box of the window shows it",
    )
    g.add_argument(
        "--session",
        metavar="FILE",
        default=None,
        help="open a saved session (File > Save session...): its puzzle, algorithm, parameters, seed, "
        "layout and run, paused where it was saved (not with a puzzle, --algo, --seed or parameters)",
    )
    add_solver_params(g, algo)
