"""File > Export view...: the dialog clicks through, its preview follows the size and DPI, it writes the files."""

from __future__ import annotations

import csv
import json
import struct

import numpy as np
from PySide6.QtCore import Qt

from lab_helpers import iteration


def _png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def _step(qtbot, win, n):
    start = iteration(win)
    with qtbot.waitSignal(win.controller.stateChanged, check_params_cb=lambda state: state == "idle"):
        win.controller.step(n)
    qtbot.waitUntil(lambda: iteration(win) == start + n and win.controller.state == "idle" and win.settled())


def _rendered(qtbot, dialog, renders):
    qtbot.waitUntil(lambda: dialog.renders > renders, timeout=30_000)
    return dialog.renders


def test_export_view_dialog_previews_and_writes(window, qtbot, tmp_path):
    win = window("ai_escargot", "cuckoo")
    _step(qtbot, win, 6)
    snap = win.controller.latest.snapshot
    assert win.act_export_view in win.menuBar().actions()[0].menu().actions()  # in the File menu
    win.act_export_view.trigger()  # File > Export view...
    dialog = win.export_view_dialog
    qtbot.waitUntil(dialog.isVisible)
    views = [dialog.view_box.itemData(i) for i in range(dialog.view_box.count())]
    assert views == ["board", "convergence", "ac3", "nests"]
    assert dialog.view() == "board"  # no view dock has the focus
    dialog.close()
    menu = win.dock_menu("nests")  # the Nests dock's context menu
    first = menu.actions()[0]
    assert first.text() == "Export Nests..."
    first.trigger()
    assert dialog.isVisible() and dialog.view() == "nests"
    dialog.unit_box.setCurrentIndex(dialog.unit_box.findData("in"))
    dialog.width_box.setValue(4.0)
    dialog.height_box.setValue(3.0)
    dialog.dpi_box.setValue(50)
    n = _rendered(qtbot, dialog, 0)
    qtbot.waitUntil(lambda: dialog.preview_pixels == (200, 150))
    assert not dialog.preview.pixmap().isNull()

    dialog.dpi_box.setValue(100)  # the preview is rendered again at the new resolution
    n = _rendered(qtbot, dialog, n)
    qtbot.waitUntil(lambda: dialog.preview_pixels == (400, 300))
    dialog.width_box.setValue(5.0)  # and at the new size
    _rendered(qtbot, dialog, n)
    qtbot.waitUntil(lambda: dialog.preview_pixels == (500, 300))
    assert dialog.info.text().startswith("PNG: 500 x 300 pixels")

    png = dialog.export_figure(tmp_path / "nests.png")
    assert png == tmp_path / "nests.png" and _png_size(png) == (500, 300)
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("pdf"))
    pdf = dialog.export_figure(tmp_path / "nests")  # the chosen format's suffix is added
    assert pdf == tmp_path / "nests.pdf" and pdf.read_bytes()[:5] == b"%PDF-"

    csv_path, side = dialog.export_data(tmp_path / "nests.csv")
    with open(csv_path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:4] == ["nest", "cost", "best", "abandoned"]
    assert [float(r[1]) for r in rows[1:]] == np.asarray(snap.layers["nest_costs"], float).tolist()
    meta = json.loads(side.read_text())
    assert (meta["solver"], meta["view"], meta["iteration"], meta["seed"]) == (
        "cuckoo",
        "nests",
        snap.iteration,
        win.controller.seed,
    )
    assert meta["puzzle"]["name"] == "ai_escargot"
    assert dialog.message.text() == "Wrote nests.csv and nests.json"


def test_export_view_says_a_bad_option_in_one_line(window, qtbot, tmp_path):
    win = window("reseda_fig3_1_easy", "hill_climb")
    _step(qtbot, win, 3)
    dialog = win.export_view(None)
    dialog.set_snapshot(win.controller.latest.snapshot, 1, "hill_climb_state")  # the lab's panel -> its figure
    assert dialog.view() == "unit_counts"
    _rendered(qtbot, dialog, 0)
    dialog.width_box.setValue(-2.0)
    qtbot.waitUntil(lambda: "width must be from" in dialog.message.text())
    assert "Traceback" not in dialog.message.text()
    assert dialog.export_figure(tmp_path / "x.png") is None
    assert not (tmp_path / "x.png").exists()
    assert dialog.message.text().startswith("Export failed: the figure's width must be from 1.27 to 101.6 cm")
    dialog.close()
    assert dialog.isHidden() and dialog.windowFlags() & Qt.Dialog


def test_the_provenance_says_the_runs_real_state(window, qtbot, tmp_path):
    """Issue 27, item 17: a paused run's data said "status": "running" (the solver's word for not finished)."""
    win = window("reseda_fig4_1_hard", "hill_climb")
    _step(qtbot, win, 3)  # stepped, then waiting: paused
    dialog = win.export_view(None)
    _, side = dialog.export_data(tmp_path / "paused.csv")
    meta = json.loads(side.read_text())
    assert (meta["status"], meta["solver_status"], meta["iteration"]) == ("paused", "running", 3)
    with qtbot.waitSignal(win.controller.runEnded, timeout=60_000):
        win.controller.run()  # hill climbing solves it (seed 1 of the window: 16 moves)
    qtbot.waitUntil(lambda: win.controller.latest is not None and win.controller.latest.snapshot.done)
    dialog = win.export_view(None)
    _, side = dialog.export_data(tmp_path / "solved.csv")
    assert json.loads(side.read_text())["status"] == "solved"
    dialog.close()
