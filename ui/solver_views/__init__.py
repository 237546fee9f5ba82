"""Built-in views and board overlays of individual solvers, one module per solver.

A solver's issue adds ``ui/solver_views/<solver>.py`` and touches nothing else
of the lab: the module calls :func:`~sudoku_lab_ui.views.register_view` and
:func:`~sudoku_lab_ui.overlays.register_overlay` at import time, and every
public module of this package is imported the first time the lab reads (or
adds to) either registry, after the generic views and overlays and before any
``sudoku_lab.ui_plugins`` plugin. Views are chosen by the layer roles a solver
declares (``ViewSpec.requires_role``) or by ``ViewSpec.applies``; a module here
should not name another solver.
"""

from __future__ import annotations

from sudoku_lab.plugins import import_package_modules

__all__ = ["load"]

_state = "no"


def load() -> None:
    """Import every public module of this package once (re-entrant: a module may register while loading)."""
    global _state
    if _state != "no":
        return
    _state = "loading"
    try:
        import_package_modules(__name__)
        _state = "done"
    except BaseException:
        _state = "no"
        raise
