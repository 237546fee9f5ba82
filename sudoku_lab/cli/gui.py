"""``sudoku-lab gui``: the options of the lab window (the window itself is the ``sudoku_lab_ui`` front end)."""

from __future__ import annotations

import argparse

from .._checks import checked

__all__ = ["add_cli"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab gui`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    g = sub.add_parser(
        "gui",
        help="open the lab window (the default with no command)",
        description="Open the lab window on PUZZLE (default: the RESEDA paper's hard puzzle) with "
        "--algo selected. Needs a display; without one it says so and exits with status 2.",
    )
    g.add_argument("puzzle", nargs="?", help="puzzle to open (file, bundled name or text)")
    g.add_argument("--algo", default=None, help="algorithm to select (see `sudoku-lab algorithms`)")
    g.add_argument(
        "--session",
        metavar="FILE",
        default=None,
        help="open a saved session (File > Save session...): its puzzle, algorithm, parameters, seed, "
        "layout and run, paused where it was saved",
    )
