"""Reusable views of the lab: board, probability model, convergence curves, AC3 replay.

Every widget takes immutable data (a Puzzle, arrays from a Snapshot, an
AC3Result) and never holds a solver.
"""

from .ac3_player import AC3Player
from .board import OVERLAYS, BoardView
from .convergence import ConvergencePlot
from .probability import ProbabilityView

__all__ = ["AC3Player", "BoardView", "ConvergencePlot", "OVERLAYS", "ProbabilityView"]
