"""Figures render to every format; the probability image maps digits where DESIGN.md says."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from sudoku_lab.analysis import figures
from sudoku_lab.analysis.grades import correctness_grades
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create


def _png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_probability_image_layout():
    n = 3
    p = np.zeros((81, 9))
    p[4 * 9 + 5, 7 - 1] = 1.0  # digit 7 of r5c6 (0-based r4, c5)
    img = figures.probability_image(p, n)
    assert img.shape == (27, 27)
    assert np.argwhere(img == 1.0).tolist() == [[3 * 4 + (7 - 1) // 3, 3 * 5 + (7 - 1) % 3]]
    p16 = np.arange(256 * 16, dtype=float).reshape(256, 16)
    img16 = figures.probability_image(p16, 4)
    assert img16.shape == (64, 64) and img16[4 * 2 + 1, 4 * 3 + 2] == p16[2 * 16 + 3, 1 * 4 + 2]


@pytest.fixture(scope="module")
def grades():
    return correctness_grades(library.puzzle("reseda_fig4_1_hard"), "reseda", {"restart": "none"}, runs=6)


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_grade_figure_in_every_format(grades, tmp_path, suffix):
    fig = figures.grade_figure(grades, reference=library.reseda_fig4_2_grades())
    out = figures.save(fig, tmp_path / f"g{suffix}", dpi=100)
    data = out.read_bytes()
    assert len(data) > 5000
    if suffix == ".svg":
        assert b"<svg" in data[:500] and b"agree with paper" in data
    if suffix == ".pdf":
        assert data[:5] == b"%PDF-"


def test_png_dpi_sets_the_size(grades, tmp_path):
    fig = figures.grade_figure(grades)
    w1, h1 = _png_size(figures.save(fig, tmp_path / "a.png", dpi=50))
    w2, h2 = _png_size(figures.save(fig, tmp_path / "b.png", dpi=100))
    assert (w2, h2) == (2 * w1, 2 * h1)


def test_probability_and_convergence_figures(tmp_path):
    s = create("reseda", restart="full")
    s.reset(library.puzzle("reseda_fig4_1_hard"), 2)
    s.step(60)
    snap = s.snapshot()
    f1 = figures.probability_figure(snap.layers["prob"], 3, snap.fixed)
    f2 = figures.convergence_figure(snap)
    assert figures.save(f1, tmp_path / "p.png").stat().st_size > 5000
    assert figures.save(f2, tmp_path / "c.svg").stat().st_size > 5000
    left, right = f2.axes
    assert len(left.lines[0].get_xdata()) == snap.iteration
    # Columns on the axes RESEDA declares, the beta threshold at the run's beta, from the declarations only.
    assert [ln.get_label() for ln in left.lines if not ln.get_label().startswith("_")] == [
        "cost of the step's best sample",
        "mean cost of the kept samples",
        "best cost since reset",
    ]
    labels = {ln.get_label(): ln for ln in right.lines}
    assert set(labels) == {"rho = min over cells of max_k p", "mean normalised entropy of p", "beta = 0.6"}
    assert list(labels["beta = 0.6"].get_ydata()) == [0.6, 0.6]
    assert right.get_ylabel() == "rho, entropy" and left.get_ylabel() == "cost (missing symbols)"


def test_convergence_figure_merges_crowded_run_ends(tmp_path):
    """Hundreds of run ends become at most max_markers lines, and no run end is lost from the counts."""
    from sudoku_lab.stepping.markers import event_markers

    s = create("reseda", restart="full", beta=0.2, Q=20, Q1=4)
    s.reset(library.puzzle("ai_escargot"), 1)
    s.step(3000)
    snap = s.snapshot()
    ends = [e for e in snap.events if e.kind == "run_end"]
    assert len(ends) > 100
    marks = event_markers(snap.events, 0, snap.iteration, max_markers=25)
    assert len(marks) <= 25
    assert sum(m.count for m in marks) == len([e for e in snap.events if e.kind in ("run_end", "restart")])
    assert all("runs ended" in m.label for m in marks)
    fig = figures.convergence_figure(snap, max_markers=25)
    vlines = [
        ln
        for ln in fig.axes[0].lines
        if list(ln.get_xdata())[0] == list(ln.get_xdata())[-1] and len(ln.get_xdata()) == 2
    ]
    assert len(vlines) == len(marks)
    few = event_markers(snap.events, 0, ends[3].iteration, max_markers=25)  # zoomed in: one marker per run end
    assert [m.iteration for m in few] == [e.iteration for e in ends[:4]]
    assert all(m.label.count("failed") == 1 for m in few)


def test_bad_output_names_are_refused(grades, tmp_path):
    fig = figures.grade_figure(grades)
    with pytest.raises(ParameterError, match="not 'g.jpg'"):
        figures.save(fig, tmp_path / "g.jpg")
    with pytest.raises(ParameterError, match="dpi must be an integer from 10 to 1200, got 0"):
        figures.save(fig, tmp_path / "g.png", dpi=0)


# ------------------------------------------------------------------ provenance: the run's state (issue 27, item 17)
def test_provenance_records_the_runs_state_and_the_solvers_status(tmp_path):
    solver = create("hill_climb")
    solver.reset(library.puzzle("reseda_fig4_1_hard"), seed=1)
    solver.step(5)
    paused = solver.snapshot()
    assert not paused.done and paused.status == "running"  # the solver's word for "not finished"
    rec = figures.provenance(paused, "board", seed=1, state="paused")
    assert (rec["status"], rec["solver_status"]) == ("paused", "running")
    assert figures.provenance(paused, "board", seed=1)["status"] == "running"  # no state known: the solver's
    solver.step(1000)
    done = solver.snapshot()
    assert done.status == "solved"
    assert figures.provenance(done, "board", seed=1, state="paused")["status"] == "solved"  # finished is finished
    with pytest.raises(ParameterError, match="a run's state is one of ready, running, paused, stopped, solved, failed"):
        figures.provenance(paused, "board", state="asleep")
    _, side = figures.export_view_data(paused, "board", tmp_path / "b.csv", seed=1, state="paused")
    import json

    assert json.loads(side.read_text())["status"] == "paused"
