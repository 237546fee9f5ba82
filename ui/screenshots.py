"""Remake the README's screenshots with the real lab window: ``python -m sudoku_lab_ui.screenshots docs``.

Drives the window through its own controls, as a user would, and saves what
``QWidget.grab()`` renders:

* ``screenshot-reseda.png``: RESEDA on ``reseda_fig4_1_hard`` (beta 0.6,
  restart partial+full, seed 3, shading on) after 180 EDA steps;
* ``screenshot-long-run.png``: RESEDA on ``ai_escargot`` (restart
  partial+full, seed 7) after ``--long-steps`` steps (32,000), the whole run
  in view, its run ends merged into marks.

Run it on a display, e.g. ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m
sudoku_lab_ui.screenshots docs`` (the window is 1600 x 1000).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _pump(app, cond, timeout: float, what: str) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"the window did not get to {what} within {timeout:g} s")
        app.processEvents()
        time.sleep(0.01)


def _settle(app, seconds: float = 0.8) -> None:
    t0 = time.monotonic()
    _pump(app, lambda: time.monotonic() - t0 > seconds, seconds + 1, "settle")


def _ready(win) -> bool:
    return win.controller.state == "idle" and win.controller.latest is not None


def short_run(app, out: Path) -> Path:
    from sudoku_lab import library

    from .app import create_window

    win = create_window(library.puzzle("reseda_fig4_1_hard"))
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.params_panel.spin_box("beta").setValue(0.6)
    win.params_panel.spin_box("restart").setCurrentText("partial+full")
    win.seed_box.setValue(3)
    win.show_shading.setChecked(True)
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.params["beta"] == 0.6, 60, "reset")
    win.step_n.setValue(180)
    win.act_step_n.trigger()
    _pump(app, lambda: win.controller.latest.snapshot.iteration >= 180 or win.controller.latest.snapshot.done,
          300, "180 steps")
    _pump(app, lambda: win.controller.state != "running", 60, "the end of the steps")
    _settle(app)
    path = out / "screenshot-reseda.png"
    win.grab().save(str(path))
    win.close()
    return path


def long_run(app, out: Path, steps: int) -> Path:
    from sudoku_lab import library

    from .app import create_window

    win = create_window(library.puzzle("ai_escargot"))
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.params_panel.spin_box("restart").setCurrentText("partial+full")
    win.seed_box.setValue(7)
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.params["restart"] == "partial+full", 60,
          "reset")
    win.until_box.setCurrentIndex(1)  # for N iterations
    win.until_value.setValue(steps)
    win.act_run.trigger()
    _pump(app, lambda: win.controller.state == "running", 60, "running")
    _pump(app, lambda: win.controller.state != "running", 3600, f"{steps} steps")
    win.views["convergence"].set_range_mode(None)
    _settle(app, 1.5)
    path = out / "screenshot-long-run.png"
    win.grab().save(str(path))
    win.close()
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sudoku_lab_ui.screenshots", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="folder for the PNG files (docs/ for the README's)")
    ap.add_argument("--long-steps", type=int, default=32_000, help="EDA steps of the long run (default 32000)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        print(f"sudoku-lab: error: {out} is not a folder", file=sys.stderr)
        return 2
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    for path in (short_run(app, out), long_run(app, out, args.long_steps)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
