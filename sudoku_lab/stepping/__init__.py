"""Stepping a solver: the adaptive-chunk loop and its terminations (:mod:`~sudoku_lab.stepping.loop`),
compiling the kernels before any clock starts (:mod:`~sudoku_lab.stepping.warmup`), the events a
curve marks (:mod:`~sudoku_lab.stepping.markers`), recording a run to seek any iteration of it
(:mod:`~sudoku_lab.stepping.history`, whose :class:`~sudoku_lab.stepping.history.History` is also
``sudoku_lab.stepping.History``) and sessions, a run saved to a file and continued exactly
(:mod:`~sudoku_lab.stepping.session`)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # Imported on first use: importing the package (or its loop) stays as light as before.
    if name == "History":
        from .history import History

        return History
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
