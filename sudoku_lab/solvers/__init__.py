"""Solvers: one thin class per algorithm over its numba kernels, and the registry.

Every public module of this package is a built-in solver module, imported the
first time the registry is read; solvers outside the package register with the
same :func:`register` (see :mod:`sudoku_lab.plugins` for plugins).

Examples
--------
>>> from sudoku_lab.solvers import registry, create
>>> list(registry())[:2]
['reseda', 'hill_climb']
"""

from __future__ import annotations

from .base import (
    DEFAULT_SEED,
    Event,
    KernelSolver,
    Param,
    PhaseStep,
    Slot,
    Snapshot,
    Solver,
    Status,
    create,
    frozen_copy,
    get_solver_class,
    register,
    registry,
    unregister,
)
from .declare import COST_AXIS, Axis, Column, Layer, Objective, Phase, Threshold  # noqa: F401

__all__ = [
    "COST_AXIS",
    "DEFAULT_SEED",
    "Axis",
    "Column",
    "Event",
    "KernelSolver",
    "Layer",
    "Objective",
    "Param",
    "Phase",
    "PhaseStep",
    "Slot",
    "Snapshot",
    "Solver",
    "Status",
    "Threshold",
    "create",
    "frozen_copy",
    "get_solver_class",
    "register",
    "registry",
    "unregister",
]
