"""The lab's widgets driven for real: clicks, keys, hover, images handed to pyqtgraph, AC3 replay."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

from sudoku_lab.exact.ac3 import ac3
from sudoku_lab.model import library
from sudoku_lab.model.geometry import cell_name, geometry
from sudoku_lab.model.puzzle import Puzzle
from sudoku_lab.solvers.base import Event
from sudoku_lab_ui.widgets import theme
from sudoku_lab_ui.widgets.ac3_player import AC3Player, describe_removals
from sudoku_lab_ui.widgets.board import BoardView
from sudoku_lab_ui.widgets.convergence import LABELLED_MARKERS, MAX_MARKERS, ConvergencePlot
from sudoku_lab_ui.widgets.probability import ProbabilityView, model_image

pytestmark = pytest.mark.gui

HARD = "reseda_fig4_1_hard"
LEWIS16 = "benchmarks/lewis_16x16_40:1"


def centre(view: BoardView, cell: int) -> QPoint:
    return view.cell_rect(cell).center().toPoint()


def pixel(image, point: QPointF) -> QColor:
    return image.pixelColor(point.toPoint())


def close_colour(a: QColor, b: QColor, tol: int = 12) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a.getRgb()[:3], b.getRgb()[:3]))


@pytest.fixture
def board(qtbot):
    view = BoardView()
    qtbot.addWidget(view)
    view.resize(500, 500)
    return view


def random_model(rng, C: int, N: int) -> np.ndarray:
    p = rng.random((C, N))
    return p / p.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------- BoardView
@pytest.mark.parametrize("name, side", [(HARD, 500), (LEWIS16, 800)])
def test_board_paints_givens_on_tinted_cells(qtbot, name, side):
    puzzle = library.puzzle(name)
    view = BoardView()
    qtbot.addWidget(view)
    view.resize(side, side)
    view.set_puzzle(puzzle)
    view.set_domains(puzzle.candidates())
    image = view.grab().toImage()
    given, blank = int(puzzle.given_cells[0]), int(puzzle.free_cells[0])
    # A cell's corner holds no text: it shows the cell's background.
    corner = lambda cell: view.cell_rect(cell).topLeft() + QPointF(3, 3)  # noqa: E731
    assert close_colour(pixel(image, corner(given)), QColor(theme.BOARD["given_bg"]))
    assert close_colour(pixel(image, corner(blank)), QColor(theme.BOARD["background"]))
    # Digits are drawn: the given's cell holds dark text pixels somewhere.
    r = view.cell_rect(given).toRect().adjusted(3, 3, -3, -3)
    darkest = min(
        image.pixelColor(x, y).lightness() for x in range(r.left(), r.right(), 2) for y in range(r.top(), r.bottom(), 2)
    )
    assert darkest < 80


def test_board_click_and_type_emits_edits(qtbot, board):
    board.set_puzzle(library.puzzle(HARD))
    board.set_editable(True)
    with qtbot.waitExposed(board):
        board.show()
    with qtbot.waitSignal(board.cellClicked) as clicked:
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=centre(board, 10))
    assert clicked.args == [10]
    assert board.selected_cell() == 10
    with qtbot.waitSignal(board.cellEdited) as edited:
        qtbot.keyClick(board, Qt.Key.Key_5)
    assert edited.args == [10, 5]
    with qtbot.waitSignal(board.cellEdited) as cleared:
        qtbot.keyClick(board, Qt.Key.Key_Backspace)
    assert cleared.args == [10, 0]
    with qtbot.assertNotEmitted(board.cellEdited):
        qtbot.keyClick(board, "a")  # not a digit of a 9x9 puzzle
    qtbot.keyClick(board, Qt.Key.Key_Right)
    qtbot.keyClick(board, Qt.Key.Key_Down)
    assert board.selected_cell() == 20
    for _ in range(3):
        qtbot.keyClick(board, Qt.Key.Key_Up)
    assert board.selected_cell() == 74  # wraps from row 1 to row 9
    board.set_editable(False)
    with qtbot.assertNotEmitted(board.cellEdited):
        qtbot.keyClick(board, Qt.Key.Key_7)


def test_board_letters_are_digits_on_16x16(qtbot):
    view = BoardView()
    qtbot.addWidget(view)
    view.resize(800, 800)
    view.set_puzzle(library.puzzle(LEWIS16))
    view.set_editable(True)
    view.set_selected_cell(17)
    with qtbot.waitSignal(view.cellEdited) as edited:
        qtbot.keyClick(view, "g")
    assert edited.args == [17, 16]


def test_board_conflicts_of_a_hand_made_grid(board):
    # 4x4: r1c1 = 1 is given; the solver writes 1 at r1c3 (same row), 1 at r2c2 (same box),
    # 3 at r4c2 and r4c4 (same row) and 4 at r3c1 (no clash).
    givens = np.zeros(16, dtype=np.int8)
    givens[0] = 1
    board.set_puzzle(Puzzle(givens))
    grid = np.zeros(16, dtype=np.int8)
    grid[[2, 5, 13, 15, 8]] = [1, 1, 3, 3, 4]
    board.set_grid(grid)
    assert board.conflict_cells().tolist() == [0, 2, 5, 13, 15]
    solution = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], dtype=np.int8)
    board.set_solution(solution)
    assert board.diff_cells().tolist() == [2, 5, 8, 15]  # 13 holds the solution's 3
    board.set_grid(None)
    assert board.conflict_cells().tolist() == []


def test_board_hover_signal_and_tooltip(qtbot, board):
    puzzle = library.puzzle(HARD)
    board.set_puzzle(puzzle)
    board.set_domains(puzzle.candidates())
    with qtbot.waitExposed(board):
        board.show()
    with qtbot.waitSignal(board.cellHovered) as hovered:
        QTest.mouseMove(board, centre(board, 40))
    assert hovered.args == [40]
    digits = " ".join(str(d) for d in puzzle.candidate_digits(40))
    assert board.tooltip_text(40) == f"r5c5: candidates {digits}"
    assert board.tooltip_text(1) == "r1c2: given 1 candidates 1"
    board.set_tooltip_provider(lambda cell: f"cell {cell_name(cell, 9)} says hi")
    QApplication.sendEvent(
        board, QHelpEvent(QEvent.Type.ToolTip, centre(board, 40), board.mapToGlobal(centre(board, 40)))
    )
    assert QToolTip.text() == "cell r5c5 says hi"
    QToolTip.hideText()
    with qtbot.waitSignal(board.cellHovered) as left:
        QApplication.sendEvent(board, QEvent(QEvent.Type.Leave))
    assert left.args == [-1]


def test_board_pencil_marks_drop_when_cells_are_small(qtbot):
    sizes = {HARD: 500, LEWIS16: 800, "benchmarks/lewis_25x25_40:1": 800}
    fits = []
    for name, side in sizes.items():
        view = BoardView()
        qtbot.addWidget(view)
        view.resize(side, side)
        view.set_puzzle(library.puzzle(name))
        fits.append(view.pencil_marks_fit())
        assert not view.grab().isNull()
    assert fits == [True, True, False]


def test_board_focus_outline_and_layers_reset(board):
    puzzle = library.puzzle(HARD)
    board.set_puzzle(puzzle)
    board.set_focus_cell(40)
    board.set_highlight([0, 1], "#00FF00")
    image = board.grab().toImage()
    rect = board.cell_rect(40)
    edge = QPointF(rect.center().x(), rect.top() + 3)  # on the outline, above the digit
    assert close_colour(pixel(image, edge), QColor(theme.BOARD["focus"]), tol=30)
    assert board.highlighted_cells() == {0, 1}
    board.set_shading(np.linspace(0, 1, 81))
    board.set_puzzle(puzzle.with_cell(0, 4))  # an edit: per-run layers belong to the old puzzle
    assert board.focus_cell() == -1 and board.highlighted_cells() == frozenset()
    with pytest.raises(ValueError, match=r"shape \(81,\)"):
        board.set_domains(np.zeros(80, dtype=np.uint32))


# ------------------------------------------------------------ ProbabilityView
def test_probability_image_maps_digits_to_tile_pixels(qtbot):
    rng = np.random.default_rng(7)
    p = random_model(rng, 81, 9) * 0.5  # max < 1: the colour scale must stay 0..1
    view = ProbabilityView()
    qtbot.addWidget(view)
    givens = np.zeros(81, dtype=bool)
    givens[[0, 40]] = True
    view.set_model(p, 3, givens)
    img = view.probability_image()
    assert img.shape == (27, 27)
    for cell, d in [(0, 1), (0, 9), (10, 5), (40, 3), (80, 7), (72, 9)]:
        r, c = divmod(cell, 9)
        assert img[3 * r + (d - 1) // 3, 3 * c + (d - 1) % 3] == p[cell, d - 1]
    expected = np.empty((27, 27))
    for cell in range(81):
        for d in range(9):
            expected[3 * (cell // 9) + d // 3, 3 * (cell % 9) + d % 3] = p[cell, d]
    np.testing.assert_array_equal(img, expected)
    assert tuple(view.prob_panel.image.getLevels()) == (0.0, 1.0)
    outline_x, _ = view.prob_panel.givens.getData()
    assert len(outline_x) == 2 * 8  # two tiles, four edges each


def test_probability_16x16_image_and_errors(qtbot):
    view = ProbabilityView()
    qtbot.addWidget(view)
    p = random_model(np.random.default_rng(1), 256, 16)
    view.set_model(p, 4)
    assert view.probability_image().shape == (64, 64)
    assert view.probability_image()[4 * 1 + 2, 4 * 3 + 1] == p[1 * 16 + 3, 9]  # digit A = 10
    np.testing.assert_array_equal(model_image(p, 4), view.probability_image())
    with pytest.raises(ValueError, match=r"\(81, 9\)"):
        view.set_model(p, 3)


def test_probability_hover_reports_the_cell(qtbot):
    p = np.zeros((81, 9))
    p[:, 0] = 1.0
    p[31] = [0.02, 0, 0, 0.1, 0.1, 0, 0, 0.07, 0.71]  # r4c5
    h = np.zeros(81)
    h[31] = 0.45
    view = ProbabilityView()
    qtbot.addWidget(view)
    view.resize(600, 650)
    view.set_model(p, 3)
    view.set_entropy(h)
    with qtbot.waitExposed(view):
        view.show()
    panel = view.prob_panel
    # Digit 9 of r4c5 is pixel (3*3 + 2, 3*4 + 2); aim at its centre.
    scene = panel.plot.getViewBox().mapViewToScene(QPointF(3 * 4 + 2.5, 3 * 3 + 2.5))
    target = panel.view.mapFromScene(scene)
    with qtbot.waitSignal(view.cellHovered) as hovered:
        QTest.mouseMove(panel.view.viewport(), target)
    assert hovered.args == [31]
    assert view.describe_cell(31) == ("r4c5: 1 .02  2 .00  3 .00  4 .10  5 .10  6 .00  7 .00  8 .07  9 .71   H .45")
    assert view.readout.text().splitlines() == [
        "r4c5   entropy .45",
        "  1  .02   2  .00   3  .00",
        "  4  .10   5  .10   6  .00",
        "  7  .00   8  .07   9  .71",
    ]


def test_entropy_map_and_hover(qtbot):
    h = np.linspace(0, 1, 81)
    h[3] = -0.0
    h[4] = 1 + 1e-12
    view = ProbabilityView()
    qtbot.addWidget(view)
    view.resize(600, 650)
    view.set_entropy(h)  # the box size comes from the length
    np.testing.assert_array_equal(view.entropy_image(), np.clip(h, 0, 1).reshape(9, 9))
    assert tuple(view.entropy_panel.image.getLevels()) == (0.0, 1.0)
    view.set_mode("entropy")
    assert view.mode() == "entropy"
    with qtbot.waitExposed(view):
        view.show()
    panel = view.entropy_panel
    scene = panel.plot.getViewBox().mapViewToScene(QPointF(7.5, 2.5))  # r3c8
    with qtbot.waitSignal(view.cellHovered) as hovered:
        QTest.mouseMove(panel.view.viewport(), panel.view.mapFromScene(scene))
    assert hovered.args == [2 * 9 + 7]
    assert view.readout.text() == "r3c8   entropy .31"  # h = 25/80
    view.clear()
    assert view.probability_image() is None and view.entropy_image() is None


def test_probability_view_takes_a_reseda_snapshot(qtbot):
    from sudoku_lab.solvers.reseda import Reseda

    puzzle = library.puzzle(HARD)
    solver = Reseda()
    solver.reset(puzzle, 1)
    solver.step(5)
    snap = solver.snapshot()
    view = ProbabilityView()
    qtbot.addWidget(view)
    view.set_model(snap.layers["prob"], puzzle.n, snap.fixed)
    view.set_entropy(snap.layers["entropy"])
    np.testing.assert_array_equal(view.probability_image(), model_image(snap.layers["prob"], 3))
    assert view.entropy_image().min() >= 0


# ------------------------------------------------------------ ConvergencePlot
def big_trace(T: int = 100_000) -> dict[str, np.ndarray]:
    x = np.arange(T, dtype=float)
    rng = np.random.default_rng(3)
    cost = 40 * np.exp(-x / 30_000) + rng.integers(0, 4, T)
    return {
        "iteration": x,
        "cost": cost,
        "best_cost": np.minimum.accumulate(cost),
        "mean_cost": cost + 3,
        "rho": np.linspace(0.1, 0.6, T),
        "entropy": np.linspace(0.9, 0.2, T),
    }


def legend_labels(plot) -> list[str]:
    return [label.text for _, label in plot.legend.items]


def test_convergence_curves_are_the_declared_columns(qtbot):
    from sudoku_lab.analysis.figures import column_colours
    from sudoku_lab.solvers.reseda import Reseda

    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.set_solver(Reseda)
    trace = {**big_trace(), "undeclared": np.arange(100_000, dtype=float) % 7}
    plot.set_trace(trace)
    declared = [c.name for c in Reseda.columns]
    assert list(plot.curves) == declared + ["undeclared"]  # nothing dropped, nothing invented
    assert legend_labels(plot) == [c.label for c in Reseda.columns] + ["undeclared"]
    colours = column_colours(Reseda.columns)
    for name in declared + ["undeclared"]:
        x, y = plot.curves[name].getOriginalDataset()
        assert len(x) == len(y) == 100_000
        np.testing.assert_array_equal(y, trace[name])
        assert np.shares_memory(x, trace["iteration"])  # handed over, not copied
    for name in declared:
        assert plot.curves[name].opts["pen"].color().name().lower() == colours[name].lower()
    # style="dotted" where the points are sparse; dense, a lighter solid line (a dash pattern along a
    # noisy 100,000-point path takes a second to stroke)
    assert plot.curves["mean_cost"].opts["pen"].style() == Qt.PenStyle.SolidLine
    plot.set_trace({k: v[:100] for k, v in trace.items()})
    assert plot.curves["mean_cost"].opts["pen"].style() == Qt.PenStyle.DotLine
    plot.set_trace(trace)
    assert plot.curves["best_cost"].opts["stepMode"] == "right"  # style="steps"
    # rho and entropy live on the declared right axis with its fixed limits and label
    assert plot.curves["rho"].getViewBox() is plot.right_view
    assert plot.curves["cost"].getViewBox() is plot.plot.getViewBox()
    lo, hi = plot.right_view.viewRange()[1]
    assert lo == pytest.approx(0.0) and hi == pytest.approx(1.02)
    assert plot.plot.getAxis("right").isVisible()
    assert plot.plot.getAxis("right").labelText == "rho, entropy"
    assert plot.curves["cost"].opts["autoDownsample"] and plot.curves["cost"].opts["clipToView"]


def test_convergence_of_a_solver_with_cost_only(qtbot):
    from sudoku_lab.solvers.exact_solver import ExactSolver
    from sudoku_lab.solvers.reseda import Reseda

    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.set_solver(Reseda)
    plot.set_trace(big_trace())
    plot.set_solver(ExactSolver)
    x = np.arange(10.0)
    plot.set_trace({"iteration": x, "cost": x[::-1], "best_cost": x[::-1]})
    assert list(plot.curves) == ["cost", "best_cost"]
    assert legend_labels(plot) == [c.label for c in ExactSolver.columns]
    assert not plot.plot.getAxis("right").isVisible()
    assert plot.thresholds == {}


def test_hidden_columns_are_switchable(qtbot):
    from sudoku_lab.solvers import Axis, Column

    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    cols = (Column("cost"), Column("best_cost", style="steps"), Column("temperature", axis="t", shown=False))
    plot.set_declarations(cols, (Axis("cost", "cost"), Axis("t", "temperature", "right")))
    x = np.arange(50.0)
    plot.set_trace({"iteration": x, "cost": x, "best_cost": x, "temperature": 100 - x})
    assert not plot.column_visible("temperature")
    action = next(a for a in plot.curves_menu.actions() if a.text() == "temperature")
    assert not action.isChecked()
    action.trigger()  # the Curves menu
    assert plot.column_visible("temperature") and action.isChecked()
    lo, hi = plot.right_view.viewRange()[1]
    assert hi >= 100  # its axis follows its data
    plot.set_column_visible("temperature", False)
    assert not action.isChecked()


def test_threshold_line_sits_at_the_parameter_value(qtbot):
    from sudoku_lab.solvers.reseda import Reseda

    solver = Reseda(beta=0.35)
    solver.reset(library.puzzle(HARD), 3)
    solver.step(60)
    snap = solver.snapshot()
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.set_solver(Reseda)
    plot.set_trace(snap.trace)
    plot.set_params(snap.params)
    line = plot.thresholds[("rho", "beta")]
    assert line.isVisible() and line.value() == 0.35
    assert line.getViewBox() is plot.right_view  # rho's axis
    assert line.label.toPlainText() == "beta 0.35"
    plot.set_params({**snap.params, "beta": 0.5})
    assert line.value() == 0.5 and line.label.toPlainText() == "beta 0.5"
    plot.set_column_visible("rho", False)  # the line goes with its column
    assert not line.isVisible()
    plot.set_params({})  # no such parameter: no line
    plot.set_column_visible("rho", True)
    assert not line.isVisible()


def long_run_events(runs: int, every: int = 37) -> list[Event]:
    out = []
    for k in range(runs):
        it = (k + 1) * every
        out.append(Event(it, "run_end", "solved" if k == runs - 1 else "failed", None, f"partial, {every} steps"))
        if k < runs - 1:
            out.append(Event(it, "restart", "partial", None, f"box {k % 9 + 1}"))
    return out


def test_markers_merge_on_a_long_run_and_split_when_zoomed(qtbot):
    from sudoku_lab_ui.widgets.convergence import RANGES

    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.resize(900, 400)
    T = 30_000
    x = np.arange(T, dtype=float)
    plot.set_trace({"iteration": x, "cost": 20 + 0 * x, "best_cost": 10 + 0 * x})
    with qtbot.waitExposed(plot):
        plot.show()
    events = long_run_events(800)  # 800 runs over 29,600 steps, and a parameter change
    events.insert(300, Event(events[299].iteration, "param", "alpha", 0.7, 0.9))
    plot.set_events(events)
    plot.update_markers()
    drawn = plot.drawn_markers()
    runs = [m for m in drawn if m.kind == "run"]
    assert 0 < len(runs) <= MAX_MARKERS  # 800 run ends merged into bins
    assert sum(m.count for m in runs) == len([e for e in events if e.kind != "param"])
    assert len(plot.markers()) <= 2 * MAX_MARKERS
    assert [m.label for m in drawn if m.kind == "param"] == ["alpha 0.7 -> 0.9"]
    labels = plot.labelled_markers()
    assert "alpha 0.7 -> 0.9" in labels  # parameter changes keep their label
    assert all(t.startswith("×") or t == "alpha 0.7 -> 0.9" for t in labels)  # bins show their count only
    assert len(labels) <= LABELLED_MARKERS
    tips = [line.toolTip() for line in plot.markers()]
    assert any("runs ended" in t and "failed" in t for t in tips)
    # Follow the last 1,000 iterations: about 27 run ends in view, each its own marker with a label
    plot.set_range_mode(RANGES[1][1])
    x0, x1 = plot.x_range()
    assert x1 >= T - 1 and x1 - x0 == pytest.approx(1000 * 1.02, rel=0.05)
    qtbot.waitUntil(lambda: plot.drawn_markers() and min(m.iteration for m in plot.drawn_markers()) >= x0)
    plot.update_markers()
    inside = [e for e in events if x0 <= e.iteration <= x1 and e.kind == "run_end"]
    assert len(plot.drawn_markers()) == len(inside)
    assert all(m.count == 2 or m.label.startswith("solved") for m in plot.drawn_markers())  # end + restart
    # The whole run is one click away
    plot.set_range_mode(None)
    assert plot.x_range()[0] <= 0 and plot.x_range()[1] >= T


def test_follow_recent_range_follows_and_detaches_on_zoom(qtbot):
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.resize(800, 300)
    plot.set_range_mode(1000)
    assert plot.range_box.currentText() == "Last 1,000"
    for T in (500, 5_000, 12_000):
        x = np.arange(T, dtype=float)
        plot.set_trace({"iteration": x, "cost": x % 10, "best_cost": 0 * x})
        x0, x1 = plot.x_range()
        if T <= 1000:
            assert x0 <= 0 and x1 >= T
        else:
            assert x0 == pytest.approx(T - 1 - 1000, abs=30) and x1 >= T - 1
    assert plot.range_mode() == 1000
    plot.plot.getViewBox().sigRangeChangedManually.emit([True, False])  # what a wheel zoom emits
    assert plot.range_mode() == "custom" and plot.range_box.currentData() == "custom"
    plot.plot.setXRange(100, 200, padding=0)
    x = np.arange(13_000, dtype=float)
    plot.set_trace({"iteration": x, "cost": x % 10, "best_cost": 0 * x})
    assert plot.x_range() == pytest.approx((100, 200))  # detached: a new frame does not move the view
    plot.range_box.setCurrentIndex(plot.range_box.findData(None))  # "Whole run"
    assert plot.range_mode() is None and plot.x_range()[1] >= 13_000


# ------------------------------------------------------------------- AC3Player
@pytest.fixture
def player(qtbot):
    widget = AC3Player()
    qtbot.addWidget(widget)
    widget.resize(1000, 560)
    widget.set_puzzle(library.puzzle(HARD))
    return widget


def test_ac3_fine_steps_replay_the_log(player):
    result = ac3(library.puzzle(HARD))
    assert player.result.log.tolist() == result.log.tolist()
    for k in range(1, 61):
        player.fine_step()
        assert player.position == k
        np.testing.assert_array_equal(player.current_domains(), result.domains_after(k))
    row = result.log[59]
    removed = player.last_removed()
    np.testing.assert_array_equal(player.board.removed(), removed)  # struck through on the board
    assert np.flatnonzero(removed).tolist() == [row["cell"]]
    assert removed[row["cell"]] == 1 << (row["digit"] - 1)
    assert player.board.focus_cell() == result.pops[row["pop"]]
    assert [player.log_list.item(i).text() for i in range(player.log_list.count())] == describe_removals(result)[:60]


def test_ac3_step_pops_one_cell(qtbot, player):
    result = player.result
    with qtbot.waitSignal(player.positionChanged):
        qtbot.mouseClick(player.step_button, Qt.MouseButton.LeftButton)
    assert player.pops == 1
    np.testing.assert_array_equal(player.current_domains(), result.domains_after_pops(1))
    for k in range(2, 11):
        player.step()
        assert player.pops == k
        np.testing.assert_array_equal(player.current_domains(), result.domains_after_pops(k))
    assert player.counters.text().startswith(f"pop 10 / {result.n_pops},")


def test_ac3_run_to_end_back_and_reset(qtbot, player):
    result = player.result
    qtbot.mouseClick(player.run_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(player.current_domains(), result.domains)
    assert player.at_end and player.message.text().startswith("Fixed point.")
    assert f"fixed {result.n_fixed} cells" in player.counters.text()
    player.back()
    assert player.position == result.n_removed - 1
    np.testing.assert_array_equal(player.current_domains(), result.domains_after(result.n_removed - 1))
    assert player.log_list.count() == result.n_removed - 1
    player.reset_replay()
    assert (player.pops, player.position) == (0, 0)
    np.testing.assert_array_equal(player.board.domains(), result.initial)
    assert player.board.removed() is None
    for _ in range(5):
        player.fine_step()
    qtbot.mouseClick(player.back_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(player.current_domains(), result.domains_after(4))
    item = player.log_list.item(1)
    player.log_list.itemClicked.emit(item)  # jump back to the second removal
    assert player.position == 2 and player.log_list.count() == 2


def test_ac3_wipeout_message(qtbot):
    widget = AC3Player()
    qtbot.addWidget(widget)
    widget.set_puzzle(Puzzle.parse("11" + "." * 79, allow_clashes=True))
    assert widget.result is not None and not widget.result.consistent
    widget.run_to_end()
    assert widget.message.text() == "contradiction: r1c2 has no candidate left"
    assert widget.board.highlighted_cells() == {1}
    widget.back()
    assert "contradiction" not in widget.message.text()


def test_ac3_hidden_singles_checkbox_recomputes(player):
    player.set_puzzle(library.puzzle("benchmarks/17_clue:1"))
    plain = player.result
    player.fine_step()
    player.hidden_singles.setChecked(True)
    strong = player.result
    assert strong.hidden_singles and strong.n_hidden > 0 and strong.n_open < plain.n_open
    assert (player.pops, player.position) == (0, 0)
    texts = describe_removals(strong)
    log = strong.log
    k = int(np.flatnonzero(log["because"] < 0)[0])
    end = k
    while end < len(log) and (log["because"][end], log["cell"][end]) == (log["because"][k], log["cell"][k]):
        end += 1
    cell, unit = int(log["cell"][k]), -1 - int(log["because"][k])
    placed = int(strong.domains_after(end)[cell]).bit_length()
    assert texts[k] == (
        f"{cell_name(cell, 9)} loses {log['digit'][k]} (hidden single: {placed} has one place "
        f"left in {geometry(3).unit_name(unit)})"
    )
    plain_row = plain.log[0]
    assert describe_removals(plain)[0] == (
        f"{cell_name(plain_row['cell'], 9)} loses {plain_row['digit']} because "
        f"{cell_name(plain_row['because'], 9)} = {plain_row['digit']}"
    )
    player.run_to_end()
    np.testing.assert_array_equal(player.current_domains(), strong.domains)


def test_ac3_keyboard_shortcuts(qtbot, player):
    with qtbot.waitExposed(player):
        player.show()
    with qtbot.waitActive(player):
        player.activateWindow()
    player.board.setFocus()
    qtbot.keyClick(player.board, Qt.Key.Key_Right)
    assert player.position == 1
    qtbot.keyClick(player.board, Qt.Key.Key_End)
    assert player.at_end
    qtbot.keyClick(player.board, Qt.Key.Key_Home)
    assert (player.pops, player.position) == (0, 0)


@pytest.mark.parametrize("size", [(420, 760), (1000, 560)])  # a side dock (side under the board), a wide one
def test_ac3_buttons_stay_where_they_are_after_every_click(qtbot, size):
    """The explanation's height changed with its text (one to three lines), moving the buttons by a line
    between two clicks: a second click missed, or toggled "hidden singles" under the pointer."""
    widget = AC3Player()
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_puzzle(library.puzzle(HARD))
    qtbot.wait(20)
    watched = [widget.hidden_singles, widget.reset_button, widget.back_button, widget.fine_button]
    watched += [widget.step_button, widget.run_button]

    def places():
        return [b.mapTo(widget, QPoint(0, 0)) for b in watched]

    start = places()
    texts = {widget.message.text()}
    clicks = [widget.step_button] * 4 + [widget.fine_button] * 3 + [widget.back_button] * 2
    clicks += [widget.run_button, widget.back_button, widget.reset_button, widget.step_button]
    for k, b in enumerate(clicks):
        qtbot.mouseClick(b, Qt.MouseButton.LeftButton)
        qtbot.wait(10)  # the layout's turn
        texts.add(widget.message.text())
        assert places() == start, (k, b.text(), widget.message.text())
    assert len(texts) >= 6  # the explanation did change, from one line to several
    need = widget.message.heightForWidth(widget.message.width())
    assert widget.message.height() >= need  # whole inside its fixed area (it scrolls a longer text)


@pytest.mark.parametrize("how", ["off the mark", "out of the plot"])
def test_a_marks_tooltip_goes_when_the_pointer_leaves_the_mark(qtbot, monkeypatch, how):
    """A QGraphicsScene shows an item's tooltip with no area of its own, so under X11 it stayed on show while
    the pointer moved anywhere over the plot (seen under Xvfb with openbox; the offscreen platform hides it
    anyway). The tooltip is now given the mark's area: Qt hides it once the pointer is outside that."""
    shown = []
    real = QToolTip.showText

    def recording(pos, text, w=None, rect=None, *args):
        rect = QRect() if rect is None else rect
        shown.append((text, QRect(rect)))
        return real(pos, text, w, rect, *args)

    monkeypatch.setattr(QToolTip, "showText", staticmethod(recording))
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.resize(700, 400)
    plot.show()
    qtbot.waitExposed(plot)
    x = np.arange(0, 200, dtype=float)
    plot.set_trace({"iteration": x, "cost": 40 - x / 10, "best_cost": 40 - x / 10})
    plot.set_events([Event(100, "run_end", "failed", None, "partial")])
    plot.update_markers()
    qtbot.wait(50)
    line = plot.markers()[0]
    viewport = plot.view.viewport()
    on = plot.view.mapFromScene(line.mapToScene(QPointF(0, 0)))
    on.setY(viewport.height() // 2)
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, on, viewport.mapToGlobal(on)))
    qtbot.waitUntil(QToolTip.isVisible, timeout=5000)
    assert QToolTip.text() == line.toolTip()
    assert shown and shown[-1][0] == line.toolTip(), shown  # shown by the plot, with the mark's area:
    area = shown[-1][1]
    assert area.contains(on) and area.width() < 30 and not area.contains(QPoint(on.x() + 150, on.y())), area
    if how == "off the mark":  # still over the plot, 150 px beside the mark
        QTest.mouseMove(viewport, QPoint(on.x() + 150, on.y()))
    else:
        QApplication.sendEvent(viewport, QEvent(QEvent.Type.Leave))
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=5000)
    qtbot.wait(400)  # gone, not fading: the next test starts without it
