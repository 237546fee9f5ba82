"""What the phase tests (tests/test_phases*.py) share: two solvers on one run, one iteration by phases."""

from __future__ import annotations

import numpy as np

from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers import PhaseStep, Solver, create


def pair(name: str, params: dict, puzzle: str | Puzzle, seed: int = 0) -> tuple[Solver, Solver]:
    """Two solvers ``name`` with ``params``, both reset on ``puzzle`` (a library name or a Puzzle) with ``seed``."""
    pz = library.puzzle(puzzle) if isinstance(puzzle, str) else puzzle
    a, b = create(name, **params), create(name, **params)
    a.reset(pz, seed)
    b.reset(pz, seed)
    return a, b


def one_iteration(s: Solver) -> list[PhaseStep]:
    """Phase steps until the iteration ends (empty if the run was over)."""
    out = []
    while True:
        st = s.step_phase()
        if st is None:
            return out
        out.append(st)
        if st.ended:
            return out


def rng_copy(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state (to replay its draws in a twin)."""
    c = np.random.default_rng()
    c.bit_generator.state = rng.bit_generator.state
    return c
