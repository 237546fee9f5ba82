"""Sudoku Lab's pytest plugin (entry point ``pytest11``): the ``solver_registry`` fixture.

Kept apart from :mod:`sudoku_lab.testing` so that pytest loading it imports nothing
but pytest (every pytest run where Sudoku Lab is installed loads it).
"""

from __future__ import annotations

import pytest

__all__: list[str] = []


@pytest.fixture
def solver_registry():
    """A registry of the test's own: solvers registered through it (or ``sudoku_lab.solvers.register``)
    during the test are gone afterwards, and one it replaced or removed is back.

    ::

        def test_my_solver(solver_registry):
            solver_registry.register(MySolver)
            assert create("my-solver").name == "my-solver"
    """
    from sudoku_lab.testing import isolated_registry

    with isolated_registry() as scope:
        yield scope
