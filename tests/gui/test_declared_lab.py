"""The lab window reads solver declarations: views by role, overlays by role, curves by column, off-thread checks.

A small solver defined here (outside the package) declares a ``cells`` layer,
a ``cell_pairs`` layer, a layer of its own role with a plugin overlay and
view, and a column on an axis of its own; the window shows all of it without
knowing the solver.
"""

from __future__ import annotations

import re
import threading
import tokenize
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel

from sudoku_lab.model import library
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.model.scoring import missing_symbols
from sudoku_lab.solvers import Axis, Column, Layer, Solver, register, unregister
from sudoku_lab.solvers.base import frozen_copy
from sudoku_lab.solvers.declare import COST_AXIS
from sudoku_lab_ui import overlays as overlay_mod, views as view_mod
from sudoku_lab_ui.app import create_window

from lab_helpers import button, iteration, wait_ready  # noqa: E402

pytestmark = pytest.mark.gui

BOX1 = (0, 1, 2, 9, 10, 11, 18, 19, 20)


class MarksSolver(Solver):
    """Fills blanks with 1s and marks things: box 1, a swap, and 'tabu' cells (row 9)."""

    name = "test_marks"
    title = "Marks (test solver)"
    paper = "nobody 2024"
    reference = "docs/algorithms.md#nowhere"
    description = "A test solver that only declares layers."
    order = 990
    iteration_name = "tick"
    axes = (COST_AXIS, Axis("t", "temperature (K)", "right", (0.0, 200.0)))
    columns = (
        Column("cost", "cost"),
        Column("best_cost", "best cost", style="steps"),
        Column("temperature", "temperature", axis="t", color="#D55E00"),
    )
    layers = (
        Layer("box", "cells of box 1", "bool", ("C",), role="cells"),
        Layer("swap", "the last swap", "int64", (1, 2), role="cell_pairs"),
        Layer("tabu", "tabu cells", "bool", ("C",), role="test_tabu"),
        Layer(
            "history", "one record per tick", "records", role="runs", columns=(("tick", "Tick"), ("outcome", "Outcome"))
        ),
    )

    def _reset(self):
        pz = self.puzzle
        self.grid = np.where(pz.grid > 0, pz.grid, 1).astype(np.int8)
        self.best_grid = self.grid.copy()
        self.fixed = pz.grid > 0
        self.cost = self.best_cost = missing_symbols(self.grid, pz.n)
        self.free = np.flatnonzero(pz.grid == 0)

    def _step(self, n):
        rows = []
        for _ in range(n):
            self.iteration += 1
            rows.append([self.iteration, self.cost, self.best_cost, 150.0 - self.iteration])
        self.trace.extend(np.array(rows, dtype=float))
        return n

    def _layers(self):
        C = self.puzzle.C
        box = np.zeros(C, bool)
        box[list(BOX1)] = True
        tabu = np.zeros(C, bool)
        tabu[C - self.puzzle.N :] = True
        return {
            "box": frozen_copy(box),
            "swap": frozen_copy(np.array([self.free[:2]], dtype=np.int64)),
            "tabu": frozen_copy(tabu),
            "history": tuple(
                {"tick": k + 1, "outcome": "solved" if k % 2 else "failed"} for k in range(min(self.iteration, 4))
            ),
        }

    def _state(self):
        return {}

    def _load(self, st):
        pass


class TabuView(QLabel):
    """A plugin view for the plugin role: how many tabu cells."""

    def on_puzzle(self, puzzle):
        self.setText("")

    def on_progress(self, prog):
        self.setText(f"{int(np.sum(prog.snapshot.layers['tabu']))} tabu cells")


class IterationView(QLabel):
    """A plugin view for every solver: the iteration."""

    def on_puzzle(self, puzzle):
        self.setText("")

    def on_progress(self, prog):
        self.setText(f"iteration {prog.snapshot.iteration}")


def _draw_tabu(canvas, name, value, snapshot):
    canvas.highlight(name, value, color="#CC79A7")


@pytest.fixture
def marks_plugin():
    """The test solver, a view for its own role and an overlay for it, registered like a plugin would."""
    register(MarksSolver)
    view = view_mod.register_view(
        view_mod.ViewSpec("test_tabu_view", "Tabu", TabuView, requires_role="test_tabu", tab_with="convergence")
    )
    never = view_mod.register_view(
        view_mod.ViewSpec("test_never", "Never", TabuView, requires_role="no_solver_has_this")
    )
    overlay = overlay_mod.register_overlay(overlay_mod.OverlaySpec("test_tabu", _draw_tabu, "Tabu"))
    yield view, never, overlay
    unregister(MarksSolver.name)
    view_mod.unregister_view(view.key)
    view_mod.unregister_view(never.key)
    overlay_mod.unregister_overlay(overlay.role)


# ------------------------------------------------------------------ registries
def test_register_view_refuses_a_duplicate_key():
    spec = view_mod.views()["convergence"]
    with pytest.raises(ValueError, match="view named 'convergence' is already registered"):
        view_mod.register_view(view_mod.ViewSpec("convergence", "Other", TabuView))
    assert view_mod.views()["convergence"] is spec
    other = view_mod.ViewSpec("convergence", "Other", TabuView)
    order = list(view_mod.views())
    try:
        assert view_mod.register_view(other, replace=True) is other
        assert view_mod.views()["convergence"] is other
        assert list(view_mod.views()) == order  # replaced where it stood
    finally:
        view_mod.register_view(spec, replace=True)


def test_views_apply_by_role_or_by_function():
    from sudoku_lab.solvers.exact_solver import ExactSolver
    from sudoku_lab.solvers.reseda import Reseda

    by_role = view_mod.ViewSpec("x", "X", TabuView, requires_role="probability")
    assert by_role.applies(Reseda) and not by_role.applies(ExactSolver)
    always = view_mod.ViewSpec("y", "Y", TabuView)
    assert always.applies(Reseda) and always.applies(ExactSolver)
    custom = view_mod.ViewSpec("z", "Z", TabuView, lambda cls: cls.name == "exact")
    assert custom.applies(ExactSolver) and not custom.applies(Reseda)
    assert [v.key for v in view_mod.views_for(ExactSolver)] == ["convergence", "ac3"]
    assert [v.key for v in view_mod.views_for(Reseda)] == ["convergence", "probability", "runs", "ac3"]


def test_register_overlay_refuses_a_duplicate_role():
    with pytest.raises(ValueError, match="board overlay named 'cells' is already registered"):
        overlay_mod.register_overlay(overlay_mod.OverlaySpec("cells", _draw_tabu))
    assert set(overlay_mod.overlays()) >= {"probability", "cells", "cell_pairs", "struck", "domains"}


def test_domain_masks_pack_candidates():
    allowed = np.zeros((4, 9), bool)
    allowed[0, [0, 4, 8]] = True  # digits 1, 5, 9
    allowed[3, :] = True
    m = overlay_mod.domain_masks(allowed)
    assert m.dtype == np.uint32 and list(m) == [1 | 16 | 256, 0, 0, 511]


# ------------------------------------------------------------------ the window
def test_ui_plugins_load_before_the_docks(qtbot, monkeypatch):
    """The window loads the sudoku_lab.ui_plugins group first: a view a plugin registers gets its dock."""
    from sudoku_lab.plugins import UI_PLUGIN_GROUP
    from sudoku_lab_ui import main_window

    groups = []

    def load_plugins(group):  # what an installed plugin's entry point does when loaded
        groups.append(group)
        if "test_plugin_view" not in view_mod.views():
            view_mod.register_view(view_mod.ViewSpec("test_plugin_view", "From a plugin", IterationView))

    monkeypatch.setattr(main_window, "load_plugins", load_plugins)
    try:
        win = create_window(library.puzzle("reseda_fig3_1_easy"))
        qtbot.addWidget(win)
        win.show()
        assert groups == [UI_PLUGIN_GROUP]
        assert "test_plugin_view" in win.view_docks and win.view_docks["test_plugin_view"].isVisible()
        wait_ready(qtbot, win)
        qtbot.waitUntil(lambda: win.views["test_plugin_view"].text() == "iteration 0")
        win.close()
    finally:
        view_mod.unregister_view("test_plugin_view")


def test_plugin_solver_views_overlays_and_curves(window, qtbot, marks_plugin, tmp_path):
    win = window("reseda_fig3_1_easy", "test_marks")
    docks = win.view_docks
    assert docks["test_tabu_view"].isVisible()  # its role is declared
    assert not docks["test_never"].isVisible() and not docks["test_never"].toggleViewAction().isEnabled()
    assert not docks["probability"].isVisible()  # no probability layer
    assert docks["runs"].isVisible()
    assert win.tabifiedDockWidgets(docks["convergence"]).count(docks["test_tabu_view"]) == 1
    assert "nobody 2024" in win.solver_info.text() and "docs/algorithms.md#nowhere" in win.solver_info.text()
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)  # 10 ticks
    qtbot.waitUntil(lambda: iteration(win) == 10)
    pz = win.controller.puzzle
    free = np.flatnonzero(pz.grid == 0)
    board = win.board
    qtbot.waitUntil(lambda: "box" in board.cell_sets())
    assert board.cell_sets()["box"] == frozenset(BOX1)  # the cells layer
    assert board.cell_sets()["tabu"] == frozenset(range(72, 81))  # the plugin overlay of the plugin role
    assert board.cell_set_color("tabu") == QColor("#CC79A7")
    np.testing.assert_array_equal(board.links()["swap"], [free[:2]])  # the cell_pairs layer
    # pixels: box 1's outline on the left edge of r2c1, nothing on r5c5 (outside every set)
    image = board.grab().toImage()
    r = board.cell_rect(9)
    width = max(2.0, r.width() / 12)
    on_outline = QPointF(r.left() + width / 2 + 1, r.center().y() - r.height() / 4)
    colour = image.pixelColor(on_outline.toPoint())
    assert colour == board.cell_set_color("box") or _close(colour, board.cell_set_color("box"), 40)
    plain = board.cell_rect(40)
    assert (
        _close(
            image.pixelColor(QPointF(plain.left() + width / 2 + 1, plain.center().y()).toPoint()), QColor("white"), 10
        )
        or pz.grid[40] > 0
    )
    # toggles: one per overlay role, enabled by the solver's declarations
    toggles = win.overlay_toggles
    assert toggles["cells"].isEnabled() and toggles["cell_pairs"].isEnabled() and toggles["test_tabu"].isEnabled()
    assert not toggles["probability"].isEnabled() and not toggles["domains"].isEnabled()
    toggles["cells"].setChecked(False)
    assert "box" not in board.cell_sets() and "tabu" in board.cell_sets()
    toggles["cell_pairs"].setChecked(False)
    assert board.links() == {}
    # the plugin view is fed, the runs table has the declared columns, solved rows are green
    assert win.views["test_tabu_view"].text() == "9 tabu cells" or docks["test_tabu_view"].visibleRegion().isEmpty()
    runs = win.views["runs"]
    qtbot.waitUntil(lambda: runs.table.rowCount() == 4)
    assert runs.headers() == ["Tick", "Outcome"]
    assert runs.table.item(1, 1).text() == "solved"
    assert runs.table.item(1, 1).foreground().color() == QColor(Qt.darkGreen)
    assert runs.table.item(0, 1).foreground().color() != QColor(Qt.darkGreen)
    # the convergence plot: the declared columns on the declared axes
    conv = win.views["convergence"]
    conv.setVisible(True)
    docks["convergence"].raise_()
    qtbot.waitUntil(lambda: conv.curves["temperature"].getOriginalDataset()[0] is not None)
    assert list(conv.curves) == ["cost", "best_cost", "temperature"]
    assert [label.text for _, label in conv.legend.items] == ["cost", "best cost", "temperature"]
    assert conv.curves["temperature"].getViewBox() is conv.right_view
    assert conv.plot.getAxis("right").labelText == "temperature (K)"
    assert conv.plot.getAxis("bottom").labelText == "tick"
    # export: no probability layer, so only the convergence figure
    assert [p.name for p in win.export_figures(str(tmp_path))] == ["sudoku-lab-convergence.pdf"]
    # another solver: the overlay toggles follow its declarations
    win.solver_box.setCurrentIndex(win.solver_box.findData("reseda"))
    qtbot.waitUntil(lambda: win.controller.solver_name == "reseda" and win.controller.state == "idle")
    assert toggles["probability"].isEnabled() and toggles["cells"].isEnabled()
    assert not toggles["test_tabu"].isEnabled() and not docks["test_tabu_view"].isVisible()


def _close(a: QColor, b: QColor, tol: int) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a.getRgb()[:3], b.getRgb()[:3]))


def test_runs_table_columns_are_the_declared_ones(window, qtbot):
    from sudoku_lab.solvers.reseda import Reseda

    win = window("reseda_fig3_1_easy")
    table = win.views["runs"]
    assert table.headers() == [h for _, h in Reseda.layers_with_role("runs")[0].columns]
    qtbot.mouseClick(button(win, win.act_run), Qt.LeftButton)
    qtbot.waitUntil(lambda: win.controller.latest.snapshot.done, timeout=60_000)
    records = win.controller.latest.snapshot.layers["restarts"]
    qtbot.waitUntil(lambda: table.table.rowCount() == len(records))
    last = table.table.rowCount() - 1
    outcome = table.headers().index("Outcome")
    assert table.table.item(last, outcome).text() == records[-1]["outcome"] == "solved"
    assert table.table.item(last, 0).foreground().color() == QColor(Qt.darkGreen)


def test_shading_is_the_probability_overlay(window, qtbot):
    win = window("ai_escargot")
    assert win.show_shading is win.overlay_toggles["probability"] and win.show_shading.isEnabled()
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: (iteration(win) or 0) >= 10)
    assert win.board._shading is None  # off by default
    win.show_shading.setChecked(True)
    p = win.controller.latest.snapshot.layers["prob"]
    np.testing.assert_allclose(win.board._shading, p.max(axis=1))
    win.solver_box.setCurrentIndex(win.solver_box.findData("exact"))
    assert not win.show_shading.isEnabled()
    assert win.board._shading is None  # at once, before the new solver's first frame
    qtbot.waitUntil(
        lambda: (
            win.controller.state == "idle"
            and win.controller.latest is not None
            and win.controller.latest.snapshot.solver == "exact"
        )
    )
    assert win.board._shading is None


def test_threshold_line_follows_the_parameter(window, qtbot):
    win = window("ai_escargot")
    conv = win.views["convergence"]
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    line = conv.thresholds[("rho", "beta")]
    qtbot.waitUntil(lambda: line.isVisible() and line.value() == win.controller.current_params()["beta"])
    win.params_panel.spin_box("beta").setValue(0.4)
    qtbot.waitUntil(lambda: line.value() == pytest.approx(0.4))
    assert line.label.toPlainText() == "beta 0.4"


def test_a_puzzle_with_several_solutions_loads_and_runs(window, qtbot):
    win = window("reseda_fig3_1_easy")
    assert win.show_diff.isEnabled()
    panel = win.puzzle_panel
    panel.select_collection("benchmarks/lewis_9x9_35")
    assert panel.select_puzzle(panel.table.model().index(0, 0).data())
    view = panel.table
    rect = view.visualRect(view.currentIndex().siblingAtColumn(0))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=rect.center())
    expected = library.collection("benchmarks/lewis_9x9_35")[0]
    qtbot.waitUntil(
        lambda: (
            win.controller.puzzle == expected
            and win.controller.latest is not None
            and win.controller.latest.snapshot.puzzle == expected
        ),
        timeout=60_000,
    )
    assert expected.count_solutions(2) == 2
    assert win.controller.several_solutions and win.controller.solution is None
    assert not win.show_diff.isEnabled() and win.show_diff.toolTip() == "this puzzle has several solutions"
    assert not panel.error_label.isVisible()
    win.step_n.setValue(25)
    qtbot.mouseClick(button(win, win.act_step_n), Qt.LeftButton)
    qtbot.waitUntil(lambda: iteration(win) == 25 or win.controller.latest.snapshot.done)
    assert win.controller.latest.snapshot.puzzle == expected
    assert len(win.board.diff_cells()) == 0  # no solution to compare with
    # back to a unique puzzle: the diff overlay is available again
    win.puzzle_panel.paste(library.puzzle("reseda_fig4_1_hard").to_line())
    qtbot.waitUntil(lambda: win.controller.puzzle == library.puzzle("reseda_fig4_1_hard"), timeout=60_000)
    assert win.show_diff.isEnabled() and not win.controller.several_solutions


def test_an_unsolvable_puzzle_is_refused_after_the_check(window, qtbot):
    win = window("reseda_fig3_1_easy")
    before = win.controller.puzzle
    grid = np.zeros(81, dtype=np.int8)
    grid[1:9] = np.arange(1, 9)  # row 1 holds 1..8, so r1c1 must be 9...
    grid[36] = 9  # ... but r5c1 already is: no clash, no solution
    win.puzzle_panel.paste(Puzzle(grid).to_line())
    qtbot.waitUntil(lambda: win.puzzle_panel.error_label.isVisible(), timeout=60_000)
    assert "no solution" in win.puzzle_panel.error_label.text() and "r1c1" in win.puzzle_panel.error_label.text()
    assert win.controller.puzzle is before
    assert win.board.is_editable() and win.board.highlighted_cells() == {0}


@pytest.fixture
def slow_check(monkeypatch):
    """``arm()``: from now on Puzzle.check waits (off the GUI thread, it must) until released (at the latest when
    the test ends)."""
    release = threading.Event()
    threads = []
    original = Puzzle.check

    def check(self, unique=True):
        threads.append(threading.current_thread())
        release.wait(600)  # a guard only: a slow machine must not see the check end before the test releases it
        return original(self, unique=unique)

    def arm():
        monkeypatch.setattr(Puzzle, "check", check)
        return release, threads

    yield arm
    release.set()


def test_validation_runs_off_the_gui_thread(window, qtbot, slow_check):
    win = window("reseda_fig3_1_easy")
    release, threads = slow_check()
    ticks = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    target = library.puzzle("kennett_hard_007")
    QApplication.clipboard().setText(target.to_line())
    qtbot.mouseClick(win.puzzle_panel.paste_button, Qt.LeftButton)  # returns at once: the check runs elsewhere
    assert win.controller.checking == target
    assert win.status_labels["puzzle"].text().startswith("checking")
    assert win.puzzle_panel.status_label.isVisible()
    start = len(ticks)
    qtbot.waitUntil(lambda: len(ticks) - start >= 20)  # the event loop runs meanwhile
    assert win.controller.checking == target and win.controller.puzzle != target
    release.set()
    qtbot.waitUntil(lambda: win.controller.puzzle == target, timeout=30_000)
    timer.stop()
    assert threads and all(t is not threading.main_thread() for t in threads)
    assert not win.status_labels["puzzle"].isVisible() and not win.puzzle_panel.status_label.isVisible()


def test_a_newer_puzzle_supersedes_an_older_check(window, qtbot, slow_check):
    win = window("reseda_fig3_1_easy")
    release, threads = slow_check()
    first, second = library.puzzle("kennett_hard_007"), library.puzzle("reseda_fig4_1_hard")
    win.puzzle_panel.paste(first.to_line())
    qtbot.waitUntil(lambda: len(threads) == 1)
    win.puzzle_panel.paste(second.to_line())
    assert win.controller.checking == second
    release.set()  # both checks end; only the newer one may load
    qtbot.waitUntil(lambda: win.controller.puzzle == second, timeout=30_000)
    qtbot.waitUntil(lambda: win.controller.latest is not None and win.controller.latest.snapshot.puzzle == second)
    QApplication.processEvents()
    assert win.controller.puzzle == second and win.board.puzzle() == second


def test_pencil_marks_come_from_a_background_thread(window, qtbot, monkeypatch):
    from sudoku_lab.exact.ac3 import ac3 as real_ac3
    from sudoku_lab_ui import board_panel

    where = []

    def ac3(puzzle, *a, **k):
        where.append(threading.current_thread())
        return real_ac3(puzzle, *a, **k)

    monkeypatch.setattr(board_panel, "ac3", ac3)
    win = window("ai_escargot")
    win.show_pencil.setChecked(True)
    qtbot.waitUntil(lambda: win.board.domains() is not None)
    np.testing.assert_array_equal(win.board.domains(), real_ac3(win.controller.puzzle).domains)
    assert where and all(t is not threading.main_thread() for t in where)


def test_cold_start_shows_compiling_kernels_with_run_disabled(qtbot, monkeypatch, request):
    from sudoku_lab_ui import worker

    release = threading.Event()
    request.addfinalizer(release.set)  # before the window closes, even when the test fails
    warmed = []
    real = worker.warm_up

    def slow_warm_up(names, progress=None):
        warmed.append(list(names))
        release.wait(600)  # a guard only: a slow machine must not end the "compilation" before the test looks
        real(names, progress)

    monkeypatch.setattr(worker, "warm_up", slow_warm_up)
    win = create_window(library.puzzle("reseda_fig3_1_easy"))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.controller.state == "compiling")
    assert win.status_labels["state"].text() == "compiling kernels..."
    assert not win.act_run.isEnabled() and not button(win, win.act_run).isEnabled()
    assert not win.act_step.isEnabled()
    QApplication.processEvents()  # the GUI thread is free meanwhile
    release.set()
    wait_ready(qtbot, win)
    assert warmed[0] == ["reseda"]
    assert win.act_run.isEnabled() and win.status_labels["state"].text() == "ready"
    win.close()


# ------------------------------------------------------------------ the code
WINDOW_MODULES = (
    "main_window.py",
    "board_panel.py",
    "view_host.py",
    "run_toolbar.py",
    "edit_mode.py",
    "overlays.py",
    "views.py",
    "controller.py",
    "worker.py",
)
RESEDA_WORDS = ("prob", "beta", "rho", "alpha", "zone_cells", "zone_name", "restarts", "kept", "reseda")


@pytest.mark.parametrize("module", WINDOW_MODULES)
def test_the_window_names_no_reseda_layer_or_parameter(module):
    """No identifier and no key-like string literal ("prob", 'beta') of RESEDA's in the window's code."""
    import sudoku_lab_ui

    path = Path(sudoku_lab_ui.__file__).parent / module
    key = re.compile(r"""^[rRbBuU]?(['"])(\w+)\1$""")
    found = []
    with open(path, "rb") as f:
        for tok in tokenize.tokenize(f.readline):
            word = tok.string if tok.type == tokenize.NAME else None
            if tok.type == tokenize.STRING and key.match(tok.string):
                word = key.match(tok.string).group(2)
            if word is not None and word.lower() in RESEDA_WORDS:
                found.append((tok.start[0], word))
    assert not found, f"{module} names RESEDA's {found}"


def test_the_source_check_finds_a_layer_name(tmp_path, monkeypatch):
    import sudoku_lab_ui

    fake = tmp_path / "sudoku_lab_ui"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "main_window.py").write_text('x = snapshot.layers.get("prob")\n')
    monkeypatch.setattr(sudoku_lab_ui, "__file__", str(fake / "__init__.py"))
    with pytest.raises(AssertionError, match=re.escape("names RESEDA's [(1, 'prob')]")):
        test_the_window_names_no_reseda_layer_or_parameter("main_window.py")
