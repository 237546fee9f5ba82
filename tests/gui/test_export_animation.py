"""File > Export animation... for a slide (issue 27, item 16): a stretch of the run, a frame size, a caption size;
an .mp4 where no ffmpeg runs is one line in the dialog, before any work."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import Qt

from sudoku_lab.model import library
from sudoku_lab_ui.export_animation import ExportAnimationDialog, RunToExport


@pytest.fixture
def dialog(qtbot):
    d = ExportAnimationDialog()
    qtbot.addWidget(d)
    d.set_run(RunToExport(library.puzzle("reseda_fig4_1_hard"), "reseda", {}, 1, [], 20))
    d.show()
    return d


def test_steps_14_to_18_at_1920x1080_with_a_caption_to_read(qtbot, dialog, tmp_path):
    assert (dialog.from_box.value(), dialog.to_box.value(), dialog.to_box.maximum()) == (0, 20, 20)
    assert dialog.size_box.currentText() == "1024 x 512" and dialog.caption_box.value() == 14.0
    assert dialog.progress_bar.text() == "Ready"  # not "0%" before anything is drawn
    dialog.from_box.setValue(14)
    dialog.to_box.setValue(18)
    dialog.size_box.setCurrentIndex(dialog.size_box.findText("1920 x 1080"))
    dialog.every_box.setValue(1)
    out = tmp_path / "slide.gif"
    dialog.path_edit.setText(str(out))
    with qtbot.waitSignal(dialog.exportFinished, timeout=300_000) as done:
        qtbot.mouseClick(dialog.export_button, Qt.LeftButton)
    result = done.args[0]
    assert result.iterations == (14, 15, 16, 17, 18) and result.size == (1920, 1080)
    assert dialog.progress_bar.text() == "5 of 5 frames"
    assert result.captions[0].startswith("RESEDA (restarted EDA), EDA step 14, cost ")
    with Image.open(out) as im:
        assert im.size == (1920, 1080) and im.n_frames == 5
        frame = np.asarray(im.convert("RGB"))
    dark = np.flatnonzero((frame[:200].max(axis=2) < 110).any(axis=1))
    first_line = np.split(dark, np.flatnonzero(np.diff(dark) > 1) + 1)[0]
    assert len(first_line) >= 0.03 * 1080  # the caption's first line: over 3 % of the frame's height


@pytest.mark.parametrize(
    ("choice", "line"),
    [
        ("ffmpeg", "Cannot export: MP4 needs ffmpeg, and the one IMAGEIO_FFMPEG_EXE names"),
        ("size", "Cannot export: the frame size is WIDTH x HEIGHT in pixels, like 1920 x 1080, not '800 x'"),
        ("range", "Cannot export: the iterations drawn end at or after their start, got 9 to 3"),
    ],
)
def test_a_choice_that_cannot_work_is_one_line_before_any_work(qtbot, dialog, tmp_path, monkeypatch, choice, line):
    out = tmp_path / "x.mp4"
    if choice == "ffmpeg":
        monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(tmp_path / "none" / "ffmpeg"))
    elif choice == "size":
        dialog.size_box.setEditText("800 x")
    else:
        dialog.from_box.setValue(9)
        dialog.to_box.setValue(3)
    dialog.path_edit.setText(str(out))
    qtbot.mouseClick(dialog.export_button, Qt.LeftButton)
    text = dialog.status.text()
    assert text.startswith(line) and "\n" not in text and not dialog.running
    assert str(out) not in text and list(tmp_path.iterdir()) == []
