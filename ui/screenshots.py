"""Remake the README's screenshots with the real lab window: ``python -m sudoku_lab_ui.screenshots docs``.

Drives the window through its own controls, as a user would, and saves what
``QWidget.grab()`` renders:

* ``screenshot-reseda.png``: RESEDA on ``reseda_fig4_1_hard`` (beta 0.6,
  restart partial+full, seed 3, shading on) after 180 EDA steps;
* ``screenshot-long-run.png``: RESEDA on ``ai_escargot`` (restart
  partial+full, seed 7) after ``--long-steps`` steps (32,000), the whole run
  in view, its run ends merged into marks;
* ``screenshot-timeline.png``: a 12,000-step RESEDA run with a parameter
  change, the timeline dragged back to 45% of it;
* ``screenshot-phase-reseda.png``: RESEDA on ``ai_escargot`` after 2,000 EDA
  steps and then Step phase three times, to the end of the *update* phase
  (the rows of p it moved marked, the caption under the board);
* ``screenshot-phase-cuckoo.png``: the cuckoo search on ``mk_hard_c`` after
  3,000 iterations and a whole iteration stepped phase by phase, to the end of
  *abandon* (the nests rebuilt marked in the nests view);
* ``screenshot-acs-phase.png`` (``phase-acs``): the ant colony system on
  ``lewis_16x16_35_01`` after 2 iterations and six Step phase clicks (start,
  then five placements): the placing ant's board with the placed and
  propagated cells outlined, the caption in words under the board;
* ``screenshot-presentation.png``: presentation mode (full screen: take it on a
  1920 x 1080 display) with RESEDA's probability model after a Step phase to
  *update*, the phase's caption in large words;
* ``screenshot-grades-dialog.png``: Run > Correctness grades... on
  ``reseda_fig4_1_hard`` (RESEDA without restarts, 30 runs of 100,000 EDA
  steps on worker processes) with the paper's Figure 4.2 beside ours;
* one file per :class:`Shot` a solver's module in ``ui/solver_views`` adds
  with :func:`register_shot` (its own views in front).

* ``screenshot-batch-panel.png``: Run > Batch experiment... after a small experiment (three configurations,
  two puzzle sets, 10 runs) ran to its end: the form, the TOML, the report's table and the run-length ECDF;
* ``screenshot-compare.png``: the Compare side by side window, four panes
  (RESEDA, hill climbing, GA, cuckoo) on ``ai_escargot`` after 3,000 iterations
  in lockstep (take it on a 1920 x 1080 display);

``--only NAME`` (repeatable) remakes just those files (``reseda``,
``long-run``, ``timeline``, ``phase-reseda``, ``phase-cuckoo``, ``phase-acs``,
``presentation``, ``grades-dialog``, ``compare``, ``batch-panel``, ``export-view``
or a shot's file stem without ``screenshot-``).

Run it on a display, e.g. ``xvfb-run -a -s "-screen 0 1600x1000x24" python -m
sudoku_lab_ui.screenshots docs`` (the window is 1600 x 1000).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


def save_grab(widget, path: Path) -> None:
    """Write what ``widget`` shows as a PNG through the package's one writer (renamed into place, links followed,
    a device or FIFO written directly, never replaced)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from sudoku_lab.files import write_file

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    if not widget.grab().save(buf, "PNG"):
        raise RuntimeError(f"Qt could not encode the screenshot {path} as PNG")
    buf.close()
    write_file(path, lambda fh: fh.write(bytes(data)), "screenshot", binary=True)


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


@dataclass(frozen=True)
class Shot:
    """A screenshot of one solver: the window after ``iterations`` on ``puzzle`` with ``params`` and ``seed``.

    ``front`` names views (keys) to bring to the front of their tab groups;
    ``toggles`` names board overlay toggles (roles) to switch on; ``whole`` shows
    the whole run in the convergence plot instead of the recent range;
    ``changes`` are live parameter changes ``(iteration, name, value)``, made in
    the parameter panel when the run reaches that iteration (a marker on the curves).
    """

    file: str
    algo: str
    puzzle: str
    iterations: int
    params: dict = field(default_factory=dict)
    seed: int = 0
    front: tuple[str, ...] = ()
    toggles: tuple[str, ...] = ()
    whole: bool = True
    changes: tuple[tuple[int, str, object], ...] = ()


_SHOTS: list[Shot] = []


def register_shot(shot: Shot) -> Shot:
    """Add a solver's screenshot to ``python -m sudoku_lab_ui.screenshots``."""
    if any(s.file == shot.file for s in _SHOTS):
        raise ValueError(f"a screenshot named {shot.file!r} is already registered")
    _SHOTS.append(shot)
    return shot


def shots() -> list[Shot]:
    """Registered solver screenshots (the solver views loaded)."""
    from .views import views

    views()  # imports ui/solver_views, where shots are registered
    return list(_SHOTS)


def _set_param(win, name: str, value) -> None:
    """Set a parameter in the parameter panel, as a user would."""
    w = win.params_panel.spin_box(name)
    if hasattr(w, "setCurrentText"):
        w.setCurrentText(str(value))
    elif hasattr(w, "setChecked"):
        w.setChecked(bool(value))
    else:
        w.setValue(value)


def take(app, out: Path, shot: Shot, timeout: float = 3600) -> Path:
    """Drive the window through its own controls to ``shot`` and save what it shows."""
    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle(shot.puzzle))
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    box = win.solver_box
    box.setCurrentIndex(box.findData(shot.algo))
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.solver == shot.algo, 120, "the solver")
    for name, value in shot.params.items():
        _set_param(win, name, value)
    win.seed_box.setValue(shot.seed)
    want = {**win.controller.current_params(), **shot.params}
    _pump(
        app,
        lambda: (
            _ready(win)
            and win.controller.latest.snapshot.params == want
            and win.controller.latest.snapshot.iteration == 0
        ),
        60,
        "reset",
    )
    for role in shot.toggles:
        win.overlay_toggles[role].setChecked(True)
    win.until_box.setCurrentIndex(1)  # for N iterations
    done = 0
    for at, name, value in sorted(shot.changes) + [(shot.iterations, None, None)]:
        if at > done:
            win.until_value.setValue(at - done)
            win.act_run.trigger()

            def finished(at=at) -> bool:  # a short run may end before a "running" state is ever seen
                latest = win.controller.latest
                return (
                    win.controller.state != "running"
                    and latest is not None
                    and (latest.snapshot.iteration >= at or latest.snapshot.done)
                )

            _pump(app, finished, timeout, f"{at} iterations")
            done = at
        if name is not None:
            _set_param(win, name, value)  # live: logged at this iteration, a marker on the curves
            _settle(app, 0.3)
    for key in shot.front:
        win.view_docks[key].raise_()
    if shot.whole:
        win.views["convergence"].set_range_mode(None)
    _settle(app, 1.5)
    path = out / shot.file
    save_grab(win, path)
    win.close()
    return path


def short_run(app, out: Path) -> Path:
    from sudoku_lab.model import library

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
    _pump(
        app,
        lambda: win.controller.latest.snapshot.iteration >= 180 or win.controller.latest.snapshot.done,
        300,
        "180 steps",
    )
    _pump(app, lambda: win.controller.state != "running", 60, "the end of the steps")
    _settle(app)
    path = out / "screenshot-reseda.png"
    save_grab(win, path)
    win.close()
    return path


def long_run(app, out: Path, steps: int) -> Path:
    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle("ai_escargot"))
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.params_panel.spin_box("restart").setCurrentText("partial+full")
    win.seed_box.setValue(7)
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.params["restart"] == "partial+full", 60, "reset")
    win.until_box.setCurrentIndex(1)  # for N iterations
    win.until_value.setValue(steps)
    win.act_run.trigger()
    _pump(app, lambda: win.controller.state == "running", 60, "running")
    _pump(app, lambda: win.controller.state != "running", 3600, f"{steps} steps")
    win.views["convergence"].set_range_mode(None)
    _settle(app, 1.5)
    path = out / "screenshot-long-run.png"
    save_grab(win, path)
    win.close()
    return path


def timeline_run(app, out: Path, steps: int) -> Path:
    """A long RESEDA run with a parameter change, then the timeline dragged back to about 45% of it."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle("ai_escargot"))
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.params_panel.spin_box("restart").setCurrentText("partial+full")
    win.seed_box.setValue(7)
    _pump(app, lambda: _ready(win) and win.controller.latest.snapshot.params["restart"] == "partial+full", 60, "reset")
    c = win.controller
    win.step_n.setValue(steps // 2)
    win.act_step_n.trigger()  # half the run, a change of alpha there (a mark), the other half
    _pump(app, lambda: _ready(win) and c.latest.snapshot.iteration == steps // 2, 3600, f"{steps // 2} steps")
    _set_param(win, "alpha", 0.8)
    _pump(app, lambda: c.latest is not None and c.latest.snapshot.params["alpha"] == 0.8, 60, "alpha")
    win.until_box.setCurrentIndex(1)  # for N iterations
    win.until_value.setValue(steps - steps // 2)
    win.act_run.trigger()
    _pump(app, lambda: c.state == "running", 60, "running")
    _pump(app, lambda: c.state != "running" and c.latest.snapshot.iteration == steps, 3600, f"{steps} steps")
    win.views["convergence"].set_range_mode(None)
    _settle(app, 1.0)
    bar = win.timeline.bar
    target = int(steps * 0.45)
    y = bar.height() // 2
    QTest.mousePress(bar, Qt.LeftButton, Qt.NoModifier, QPoint(bar.x_of(steps), y))
    QTest.mouseMove(bar, QPoint(bar.x_of(target), y))
    QTest.mouseRelease(bar, Qt.LeftButton, Qt.NoModifier, QPoint(bar.x_of(target), y))
    _pump(app, lambda: win.settled() and c.timeline_info is not None and c.timeline_info.rewound, 120, "rewind")
    _settle(app, 1.5)
    path = out / "screenshot-timeline.png"
    save_grab(win, path)
    win.close()
    return path


def phase_run(
    app,
    out: Path,
    file: str,
    algo: str,
    puzzle: str,
    seed: int,
    steps: int,
    phases: int,
    front: tuple[str, ...] = (),
    present: bool = False,
) -> Path:
    """``steps`` whole iterations with Step N, then ``phases`` clicks of Step phase (presentation mode first with
    ``present``); the window as it shows the last phase."""
    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle(puzzle))
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    c = win.controller
    box = win.solver_box
    box.setCurrentIndex(box.findData(algo))
    _pump(app, lambda: _ready(win) and c.latest.snapshot.solver == algo, 120, "the solver")
    win.seed_box.setValue(seed)
    _pump(app, lambda: _ready(win) and c.latest.snapshot.iteration == 0, 60, "reset")
    if steps:
        win.step_n.setValue(steps)
        win.act_step_n.trigger()
        _pump(
            app,
            lambda: _ready(win) and (c.latest.snapshot.iteration == steps or c.latest.snapshot.done),
            3600,
            f"{steps} steps",
        )
    if present:
        win.presentation.enter()
        _settle(app, 1.0)
    for _ in range(phases):
        before = c.latest.phase  # a phase declared repeats=True comes back with the same index: wait for a new step
        win.act_step_phase.trigger()
        _pump(
            app,
            lambda before=before: c.latest.phase is not None and c.latest.phase is not before and win.settled(),
            120,
            "phase",
        )
    for key in front:
        win.view_docks[key].raise_()
    _settle(app, 1.5)
    path = out / file
    save_grab(win, path)
    if present:
        win.presentation.leave()
    win.close()
    return path


def grades_dialog(app, out: Path, runs: int = 30) -> Path:
    """Run > Correctness grades... on ``reseda_fig4_1_hard`` as in the paper's Figure 4.2 (RESEDA without
    restarts, 100,000 EDA steps a run), ``runs`` runs on worker processes: the dialog with the paper's grid beside
    ours (about a minute on two cores)."""
    import tempfile

    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle("reseda_fig4_1_hard"), "reseda")
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    win.act_grades.trigger()
    d = win.grades_dialog
    d.resize(1500, 860)
    d.params_panel.spin_box("restart").setCurrentText("none")
    d.runs_box.setValue(runs)
    d.seed_box.setValue(0)
    with tempfile.TemporaryDirectory() as tmp:
        d.results_edit.setText(str(Path(tmp) / "fig4_2.runs"))
        d.run_button.click()
        _pump(app, lambda: not d.running, 1800, "the grades")
        _settle(app, 1.0)
        path = out / "screenshot-grades-dialog.png"
        save_grab(d, path)
    d.close()
    win.close()
    return path


def batch_panel_shot(app, out: Path) -> Path:
    """Run > Batch experiment...: three configurations (RESEDA at two alphas, hill climbing) on two puzzle sets,
    10 runs each, run to the end in the panel's worker processes; the table and the run-length ECDF."""
    import tempfile

    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle("reseda_fig3_1_easy"))
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    panel = win.batch_experiment()
    panel.resize(1800, 1000)
    panel.name_edit.setText("alpha-and-hill-climb")
    panel.solver_rows[0].params.setText("alpha=[0.5,0.9]")
    panel.add_solver("hill_climb", "")
    panel.puzzle_rows[0].combo.setCurrentText("kennett/easy")
    panel.puzzle_rows[0].sample.setValue(3)
    panel.add_puzzles("mk_medium_a", 0)
    panel.runs_box.setValue(10)
    panel.iterations_box.setValue(5000)
    panel.seconds_box.setValue(2)
    panel._form_changed()
    with tempfile.TemporaryDirectory() as tmp:
        panel.out_edit.setText(str(Path(tmp) / "alpha-and-hill-climb-results"))
        panel.start()
        _pump(app, lambda: not panel.running, 1800, "the batch")
        _settle(app, 1.5)
        path = out / "screenshot-batch-panel.png"
        save_grab(panel, path)
    win.close()
    return path


def export_view_run(app, out: Path, file: str = "screenshot-export-view.png") -> Path:
    """The cuckoo search 300 iterations into a hard puzzle, File > Export view... on its nests: the dialog."""
    from sudoku_lab.model import library

    from .app import create_window

    win = create_window(library.puzzle("mk_hard_c"))
    win.resize(1600, 1000)
    win.show()
    _pump(app, lambda: _ready(win), 300, "ready")
    c = win.controller
    win.solver_box.setCurrentIndex(win.solver_box.findData("cuckoo"))
    _pump(app, lambda: _ready(win) and c.latest.snapshot.solver == "cuckoo", 120, "the solver")
    win.seed_box.setValue(3)
    _pump(app, lambda: _ready(win) and c.latest.snapshot.iteration == 0, 60, "reset")
    win.step_n.setValue(300)
    win.act_step_n.trigger()
    _pump(app, lambda: _ready(win) and c.latest.snapshot.iteration == 300, 600, "300 steps")
    dialog = win.export_view("nests")
    dialog.resize(1100, 560)
    dialog.dpi_box.setValue(120)
    done = dialog.renders
    _pump(app, lambda: dialog.renders > done and not dialog._timer.isActive(), 120, "the preview")
    _settle(app, 1.0)
    path = out / file
    save_grab(dialog, path)
    dialog.close()
    win.close()
    return path


def _compare_shot(app, out: Path) -> Path:
    from .compare_window import screenshot

    return screenshot(app, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sudoku_lab_ui.screenshots",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("out", help="folder for the PNG files (docs/ for the README's)")
    ap.add_argument("--long-steps", type=int, default=32_000, help="EDA steps of the long run (default 32000)")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "remake only this screenshot (repeatable): reseda, long-run, timeline, phase-reseda, phase-cuckoo, "
            "phase-acs, presentation, grades-dialog, compare, batch-panel, export-view or a solver shot's stem"
        ),
    )
    args = ap.parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        print(f"sudoku-lab: error: {out} is not a folder", file=sys.stderr)
        return 2
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    jobs = [("reseda", lambda: short_run(app, out)), ("long-run", lambda: long_run(app, out, args.long_steps))]
    jobs.append(("timeline", lambda: timeline_run(app, out, 12_000)))
    jobs.append(
        (
            "phase-reseda",
            lambda: phase_run(app, out, "screenshot-phase-reseda.png", "reseda", "ai_escargot", 7, 2000, 3),
        )
    )
    jobs.append(
        (
            "phase-cuckoo",
            lambda: phase_run(
                app, out, "screenshot-phase-cuckoo.png", "cuckoo", "mk_hard_c", 3, 3000, 3, front=("nests",)
            ),
        )
    )
    jobs.append(
        (
            "phase-acs",
            lambda: phase_run(app, out, "screenshot-acs-phase.png", "acs", "lewis_16x16_35_01", 2, 2, 6),
        )
    )
    jobs.append(
        (
            "presentation",
            lambda: phase_run(
                app, out, "screenshot-presentation.png", "reseda", "ai_escargot", 7, 300, 3, present=True
            ),
        )
    )
    jobs.append(("grades-dialog", lambda: grades_dialog(app, out)))
    jobs.append(("compare", lambda: _compare_shot(app, out)))
    jobs.append(("batch-panel", lambda: batch_panel_shot(app, out)))
    jobs.append(("export-view", lambda: export_view_run(app, out)))
    jobs += [(Path(s.file).stem.removeprefix("screenshot-"), lambda s=s: take(app, out, s)) for s in shots()]
    unknown = set(args.only) - {name for name, _ in jobs}
    if unknown:
        print(
            f"sudoku-lab: error: no screenshot named {', '.join(sorted(unknown))}; choose from "
            f"{', '.join(name for name, _ in jobs)}",
            file=sys.stderr,
        )
        return 2
    for name, job in jobs:
        if not args.only or name in args.only:
            print(f"wrote {job()}")
    return 0


if __name__ == "__main__":
    # Run the importable module's main: ui/solver_views registers its shots into
    # sudoku_lab_ui.screenshots, which is not this __main__ module's registry.
    from sudoku_lab_ui.screenshots import main as _main

    sys.exit(_main())
