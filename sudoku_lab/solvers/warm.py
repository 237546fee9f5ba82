"""The generic warm-up of a solver class: its kernels run once on small puzzles, so no clock includes compiling.

:func:`generic_warm_up` is what :func:`sudoku_lab.stepping.warmup.warm_up` does
for a class without its own ``warm_up()``; a class that has one calls it
from there and adds what a few steps do not reach. It lives with the solvers
(it needs nothing above them), so a solver's ``warm_up()`` never reaches up
to the stepping layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._checks import checked

if TYPE_CHECKING:
    from .base import Solver

__all__ = ["generic_warm_up"]


@checked
def generic_warm_up(cls: type[Solver]) -> None:
    """Run a solver class's kernels once: reset on a 9 x 9 and a 4 x 4 puzzle, step a few times, snapshot.

    The default of :func:`warm_up` for a class without its own ``warm_up()``;
    a class that has one may call this from it and add what a few steps do
    not reach. Errors on the 9 x 9 puzzle propagate; the 4 x 4 one is a
    best effort (warming is an optimisation, and a solver, e.g. a plugin, that
    cannot take a 4 x 4 puzzle must still work on the puzzles it can).
    """
    from ..model.library import warm_up_puzzles

    small, nine = warm_up_puzzles()
    _step_a_little(cls, nine)
    try:
        _step_a_little(cls, small)
    except Exception:  # noqa: BLE001 - see the docstring
        pass


def _step_a_little(cls, puzzle) -> None:
    solver = cls()
    solver.reset(puzzle, seed=0)
    solver.snapshot()
    for _ in range(3):
        if solver.done:
            break
        solver.step(2)
        solver.snapshot()
