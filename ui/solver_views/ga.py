"""The GA's part of the lab: its screenshot (no view of its own: its population histogram is the generic
"Population" view, its curves come from its columns, its elite is the board's grid).

``python -m sudoku_lab_ui.screenshots docs --only ga`` (on a display, e.g. ``xvfb-run -a -s "-screen 0
1600x1000x24"``, with ``QT_QPA_PLATFORM=xcb``) takes ``docs/screenshot-ga.png`` through the window's own
controls: 6000 generations on ``nbcoin_27_medium``, seed 2, the mutation probability raised from 0.3 to 0.6
in the parameter panel at generation 3000 (a live change, marked on the curves), the Population view in front.
"""

from __future__ import annotations

from ..screenshots import Shot, register_shot

__all__ = ["SHOT"]

SHOT = register_shot(
    Shot(
        "screenshot-ga.png",
        "ga",
        "nbcoin_27_medium",
        6000,
        seed=2,
        front=("population",),
        changes=((3000, "mutation_rate", 0.6),),
    )
)
