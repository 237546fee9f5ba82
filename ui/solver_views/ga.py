"""The GA's part of the lab: its screenshot (no view of its own: its population histogram is the generic
"Population" view, its curves come from its columns, its elite is the board's grid).

:data:`SHOT` is ``docs/screenshot-ga.png`` for ``python -m sudoku_lab_ui.screenshots docs --only ga``:
6000 generations on ``nbcoin_27_medium``, seed 2, the Population view in front.

``python -m sudoku_lab_ui.solver_views.ga OUT`` (on a display, e.g. ``xvfb-run -a -s "-screen 0
1600x1000x24"``, with ``QT_QPA_PLATFORM=xcb``) drives the real window through its controls: the GA on
``nbcoin_27_medium`` (seed 2), a short run of ``--short`` generations and a long one of ``--long``
generations with the mutation probability raised half-way, and saves ``screenshot-ga-short.png`` and
``screenshot-ga-live.png`` (1600 x 1000) in the folder given: the same run with a live parameter change
marked on the curves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..screenshots import Shot, register_shot

__all__ = ["screenshot_ga", "SHOT"]

SHOT = register_shot(Shot("screenshot-ga.png", "ga", "nbcoin_27_medium", 6000, seed=2, front=("population",)))


def screenshot_ga(app, out: Path, generations: int, name: str, puzzle: str = "nbcoin_27_medium",
                  seed: int = 2, change_at: int | None = None) -> Path:
    """Run the GA in the lab window for ``generations`` generations and save the window as ``out/name``.

    With ``change_at``, run that many generations first, then raise the mutation probability to 0.6 in
    the parameter panel (a live change: a marker on the curves) and run on.
    """
    from sudoku_lab import library

    from ..app import create_window
    from ..screenshots import _pump, _ready, _settle

    win = create_window(library.puzzle(puzzle), "ga")
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.seed_box.setValue(seed)
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.iteration == 0, 60, "reset")

    def run_until(n):
        start = win.controller.latest.snapshot.iteration
        win.until_box.setCurrentIndex(1)  # for N iterations
        win.until_value.setValue(n)
        win.act_run.trigger()

        def finished():
            snap = win.controller.latest.snapshot
            return win.controller.state != "running" and (snap.iteration >= start + n or snap.done)

        _pump(app, finished, 3600, f"{n} generations")

    if change_at:
        run_until(change_at)
        win.params_panel.spin_box("mutation_rate").setValue(0.6)
        _settle(app, 0.3)
        run_until(generations - change_at)
    else:
        run_until(generations)
    win.views["convergence"].set_range_mode(None)
    _settle(app, 1.5)
    path = out / name
    win.grab().save(str(path))
    win.close()
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sudoku_lab_ui.solver_views.ga", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="folder for the PNG files")
    ap.add_argument("--short", type=int, default=60, help="generations of the short run (default 60)")
    ap.add_argument("--long", type=int, default=6000, help="generations of the long run (default 6000)")
    args = ap.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    out = Path(args.out)
    print("wrote", screenshot_ga(app, out, args.short, "screenshot-ga-short.png"))
    print("wrote", screenshot_ga(app, out, args.long, "screenshot-ga-live.png", change_at=args.long // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
