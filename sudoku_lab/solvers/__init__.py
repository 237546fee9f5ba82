"""Solvers: one thin class per algorithm over its numba kernels, and the registry.

>>> from sudoku_lab.solvers import registry, create
>>> list(registry())[:2]
['reseda', 'exact']
"""

from __future__ import annotations

import importlib

from .base import (  # noqa: F401
    Event,
    Param,
    Snapshot,
    Solver,
    Status,
    create,
    get_solver_class,
    register,
    registry,
)

#: Modules that register the built-in solvers, in menu order.
BUILTIN = ("reseda", "exact_solver")

_loaded = False


def _load_builtin_solvers() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in BUILTIN:
            importlib.import_module(f"{__name__}.{mod}")


__all__ = ["Event", "Param", "Snapshot", "Solver", "Status", "create", "get_solver_class", "register", "registry"]
