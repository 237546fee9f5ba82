"""Board overlays chosen by layer role: what the board draws for a solver's declared layers.

Every snapshot layer whose declared ``role`` has a registered overlay is drawn
on the board, with one toggle per overlay in the window. Built-ins:

=============== ====================================================================
role            drawn as
=============== ====================================================================
``probability`` cell shading by ``max_k p[cell, k]`` (the "Shading" toggle)
``cells``       highlighted cells: the set's outline and a light tint
``cell_pairs``  a link between the two cells of each pair (a swap)
``struck``      struck-out candidates in the pencil marks
``domains``     pencil marks: the candidates the solver still allows
``unit_counts`` a number per row (right margin) and per column (bottom margin)
=============== ====================================================================

A plugin (a module of the ``sudoku_lab.ui_plugins`` entry-point group, or any
code run before the window opens) adds an overlay for its own role::

    from sudoku_lab_ui.overlays import OverlaySpec, register_overlay

    def draw_tabu(canvas, name, value, snapshot):
        canvas.highlight(name, value, color="#CC79A7")

    register_overlay(OverlaySpec("tabu", draw_tabu, "Tabu cells"))

An overlay draws into an :class:`OverlayCanvas` (one per frame), never into
the board itself, so overlays compose and the board repaints once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from sudoku_lab.plugins import UI_PLUGIN_GROUP, Registry

__all__ = [
    "OverlaySpec",
    "OverlayCanvas",
    "register_overlay",
    "unregister_overlay",
    "overlays",
    "overlay_for",
    "domain_masks",
    "MARGIN_SIDES",
    "count_colour",
]


@dataclass(frozen=True)
class OverlaySpec:
    """A board overlay for the layers of one role.

    Attributes
    ----------
    role : str
        The layer role it draws (``Layer.role``).
    draw : callable
        ``draw(canvas, name, value, snapshot)``: draw layer ``name``'s
        ``value`` (never None) of ``snapshot`` into ``canvas``
        (:class:`OverlayCanvas`).
    label : str
        Text of its toggle under the board.
    tooltip : str
        What the toggle shows.
    default_on : bool
        Whether the toggle starts checked.
    """

    role: str
    draw: Callable
    label: str = ""
    tooltip: str = ""
    default_on: bool = True

    def __post_init__(self):
        if not self.role or not isinstance(self.role, str):
            raise TypeError(f"an overlay needs a role name, got {self.role!r}")
        if not callable(self.draw):
            raise TypeError(f"overlay {self.role!r}: draw must be callable, got {self.draw!r}")
        if not self.label:
            object.__setattr__(self, "label", self.role.replace("_", " ").capitalize())


#: False until this module's own built-ins are registered (at its end); then ui/solver_views may load.
_OWN_REGISTERED = False


def _load_solver_views() -> None:
    """The per-solver built-ins of ``ui/solver_views`` (imported once, after this module's own)."""
    if _OWN_REGISTERED:
        from .solver_views import load

        load()


_REGISTRY: Registry[OverlaySpec] = Registry("board overlay", key=lambda s: s.role, group=UI_PLUGIN_GROUP)


def register_overlay(spec: OverlaySpec, replace: bool = False) -> OverlaySpec:
    """Add an overlay for ``spec.role``.

    Raises
    ------
    ValueError
        Another overlay already draws that role (pass ``replace=True`` to
        replace it on purpose).
    """
    if not isinstance(spec, OverlaySpec):
        raise TypeError(f"register_overlay() takes an OverlaySpec, got {spec!r}")
    _load_solver_views()
    return _REGISTRY.register(spec, replace=replace)


def unregister_overlay(role: str) -> None:
    """Remove the overlay of ``role`` (tests, interactive sessions)."""
    _REGISTRY.unregister(role)


def overlays() -> Mapping[str, OverlaySpec]:
    """Registered overlays by role, in registration order (UI plugins loaded)."""
    _load_solver_views()
    return _REGISTRY.mapping()


def overlay_for(role: str | None) -> OverlaySpec | None:
    """The overlay that draws ``role``, or None."""
    return overlays().get(role) if role else None


def domain_masks(allowed) -> np.ndarray:
    """bool (C, N) candidates as the board's uint32 (C,) masks (digit d as bit d - 1)."""
    a = np.asarray(allowed, dtype=bool)
    if a.ndim != 2:
        raise ValueError(f"candidates must be a (C, N) array, got shape {a.shape}")
    weights = np.left_shift(np.uint32(1), np.arange(a.shape[1], dtype=np.uint32))
    return (a.astype(np.uint32) * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)


def _cells(value, C: int) -> tuple[int, ...]:
    v = np.asarray(value)
    if v.dtype == bool:
        if v.shape != (C,):
            raise ValueError(f"a cells layer must be bool ({C},), got shape {v.shape}")
        return tuple(int(c) for c in np.flatnonzero(v))
    return tuple(int(c) for c in v.reshape(-1) if 0 <= int(c) < C)


@dataclass
class OverlayCanvas:
    """What the overlays of one frame draw; :meth:`BoardView.set_canvas` shows it.

    Attributes
    ----------
    C : int
        Cells of the puzzle.
    shading : ndarray of float (C,), optional
    domains, struck : ndarray of uint32 (C,), optional
        Pencil marks and struck-out marks as digit masks.
    cell_sets : dict of str to (tuple of int, colour or None)
    links : dict of str to (ndarray of int (k, 2), colour or None)
    margins : dict of str to dict of int to (str, colour or None)
        Texts in the board's margins by side (``"left"``, ``"top"``, ``"right"``,
        ``"bottom"``), then by row (left, right) or column (top, bottom) index.
    """

    C: int
    shading: np.ndarray | None = None
    domains: np.ndarray | None = None
    struck: np.ndarray | None = None
    cell_sets: dict = field(default_factory=dict)
    links: dict = field(default_factory=dict)
    margins: dict = field(default_factory=dict)

    def shade(self, values) -> None:
        """Shade cells by ``values`` (float (C,) in [0, 1])."""
        self.shading = np.asarray(values, dtype=float).reshape(self.C)

    def pencil(self, allowed) -> None:
        """Pencil marks from bool (C, N) candidates (or uint32 (C,) masks)."""
        a = np.asarray(allowed)
        self.domains = a.astype(np.uint32).reshape(self.C) if a.ndim == 1 else domain_masks(a)

    def strike(self, struck) -> None:
        """Struck-out candidates from bool (C, N) (or uint32 (C,) masks)."""
        a = np.asarray(struck)
        self.struck = a.astype(np.uint32).reshape(self.C) if a.ndim == 1 else domain_masks(a)

    def highlight(self, name: str, cells, color=None) -> None:
        """Highlight a set of cells (bool (C,) mask or flat indices); ``color`` None picks one per name."""
        self.cell_sets[name] = (_cells(cells, self.C), color)

    def link(self, name: str, pairs, color=None) -> None:
        """Draw a link between the two cells of each pair (int (k, 2))."""
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.links[name] = (p[((p >= 0) & (p < self.C)).all(axis=1)], color)

    def margin(self, side: str, index: int, text: str, color=None) -> None:
        """Write a short ``text`` in the board's margin beside row (left, right) or column (top, bottom) ``index``.

        ``color`` None draws it in the board's quiet margin colour.
        """
        if side not in MARGIN_SIDES:
            raise ValueError(f"unknown margin side {side!r}; choose from {', '.join(MARGIN_SIDES)}")
        self.margins.setdefault(side, {})[int(index)] = (str(text), color)


#: Sides of the board a margin text can go (:meth:`OverlayCanvas.margin`).
MARGIN_SIDES = ("left", "top", "right", "bottom")

#: Colours of a unit count: 0 quiet grey, then stronger as the count grows (Okabe-Ito orange, vermillion, dark red).
COUNT_COLOURS = ("#A8A8A8", "#E69F00", "#D55E00", "#990000")


def count_colour(value: int) -> str:
    """The margin colour of a count: grey for 0, orange, vermillion, then dark red from 3 up."""
    return COUNT_COLOURS[min(max(int(value), 0), len(COUNT_COLOURS) - 1)]


# ---------------------------------------------------------------- built-ins
def _draw_probability(canvas: OverlayCanvas, name, value, snapshot) -> None:
    canvas.shade(np.asarray(value).max(axis=1))


def _draw_cells(canvas: OverlayCanvas, name, value, snapshot) -> None:
    canvas.highlight(name, value)


def _draw_pairs(canvas: OverlayCanvas, name, value, snapshot) -> None:
    canvas.link(name, value)


def _draw_struck(canvas: OverlayCanvas, name, value, snapshot) -> None:
    canvas.strike(value)


def _draw_domains(canvas: OverlayCanvas, name, value, snapshot) -> None:
    canvas.pencil(value)


def _draw_unit_counts(canvas: OverlayCanvas, name, value, snapshot) -> None:
    counts = np.asarray(value)
    for side, row in (("right", counts[0]), ("bottom", counts[1])):
        for i, v in enumerate(row):
            canvas.margin(side, i, str(int(v)), count_colour(v))


register_overlay(
    OverlaySpec(
        "probability",
        _draw_probability,
        "Shading",
        "Shade each cell by max_k p[cell, k] (solvers with a probability model)",
        False,
    )
)
register_overlay(
    OverlaySpec("cells", _draw_cells, "Cells", "Outline the cells a solver marks (a restart zone, tabu cells...)")
)
register_overlay(
    OverlaySpec("cell_pairs", _draw_pairs, "Pairs", "Link the two cells of each pair a solver marks (a swap)")
)
register_overlay(
    OverlaySpec("struck", _draw_struck, "Struck out", "Candidates the solver struck out, crossed in the pencil marks")
)
register_overlay(OverlaySpec("domains", _draw_domains, "Domains", "The solver's own candidates as pencil marks"))
register_overlay(
    OverlaySpec(
        "unit_counts",
        _draw_unit_counts,
        "Unit counts",
        "A count per row (right margin) and per column (bottom margin), e.g. clashes; "
        "0 in grey, larger counts in stronger colours",
    )
)


_OWN_REGISTERED = True
