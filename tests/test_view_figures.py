"""Every view of every built-in solver has a figure (PNG, SVG, PDF) and a data table (CSV + JSON provenance)."""

from __future__ import annotations

import csv
import json
import struct

import numpy as np
import pytest

from sudoku_lab import __version__
from sudoku_lab.analysis import figures, view_figures as vf
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create, get_solver_class, registry

BUILT_IN = [name for name, cls in registry().items() if cls.__module__.startswith("sudoku_lab.solvers.")]
PUZZLE = "ai_escargot"  # hard enough that no solver (but the exact one) is done after a few iterations
SEED = 7

#: The views each built-in solver must have: a solver that loses a role, or a view that stops following
#: roles, fails here.
EXPECTED = {
    "reseda": ("board", "convergence", "ac3", "probability", "runs"),
    "hill_climb": ("board", "convergence", "ac3", "runs", "unit_counts"),
    "nbcoin": ("board", "convergence", "ac3", "probability", "population", "box_models"),
    "ga": ("board", "convergence", "ac3", "population"),
    "ac3_tabu": ("board", "convergence", "ac3", "tabu"),
    "cuckoo": ("board", "convergence", "ac3", "nests"),
    "exact": ("board", "convergence", "ac3"),
    "acs": ("board", "convergence", "ac3", "probability", "population"),
}
PAIRS = [(name, view) for name in BUILT_IN for view in vf.view_names(name)]


def _png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def snaps():
    """A snapshot of each built-in solver after a few iterations."""
    out = {}
    for name in BUILT_IN:
        s = create(name)
        s.reset(library.puzzle(PUZZLE), seed=SEED)
        s.step(8)
        out[name] = s.snapshot()
    return out


def test_every_built_in_solver_is_covered():
    assert sorted(BUILT_IN) == sorted(EXPECTED)
    for name in BUILT_IN:
        assert vf.view_names(name) == EXPECTED[name]
        assert vf.view_names(registry()[name]) == EXPECTED[name]


@pytest.mark.parametrize(("solver", "view"), PAIRS)
def test_view_figure_in_every_format(snaps, tmp_path, solver, view):
    snap = snaps[solver]
    fig = figures.view_figure(snap, view, dpi=40)
    assert fig.axes, "a figure with no axes"
    for suffix in (".png", ".svg", ".pdf"):
        data = figures.save(fig, tmp_path / f"{view}{suffix}", dpi=40).read_bytes()
        if suffix == ".png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
        elif suffix == ".svg":
            assert b"<svg" in data[:600]
        else:
            assert data[:5] == b"%PDF-"
        assert len(data) > 2000


def _expected_column(snap, view):
    """(column, the snapshot's own array it must equal) for each view."""
    L, N = snap.layers, snap.puzzle.N
    if view == "board":
        return "digit", np.asarray(snap.grid)
    if view == "convergence":
        return "cost", np.asarray(snap.trace["cost"])
    if view == "probability":
        return "p", np.asarray(L["prob"]).reshape(-1)
    if view == "ac3":
        res = L.get("ac3")
        if res is None:
            from sudoku_lab.exact.ac3 import ac3

            res = ac3(snap.puzzle)
        bits = (np.asarray(res.domains).astype(np.int64)[:, None] >> np.arange(N)) & 1
        return "allowed", bits.reshape(-1)
    if view == "runs":
        layer = "runs" if "runs" in L else "restarts"
        return "run_no", np.array([r["run_no"] for r in L[layer]])
    if view == "tabu":
        return "digit", np.asarray(L["tabu"]).reshape(-1, 4)[:, 1]
    if view == "nests":
        return "cost", np.asarray(L["nest_costs"])
    if view == "population":  # the layer of role "population": the GA's fitness, NB-COIN's, the ants' failed cells
        name = next(d.name for d in get_solver_class(snap.solver).layers if d.role == "population")
        return name, np.asarray(L[name])
    if view == "box_models":
        return "p", np.asarray(L["models"]).reshape(-1)
    if view == "unit_counts":
        return "count", np.asarray(L["clashes"]).reshape(-1)
    raise AssertionError(view)


@pytest.mark.parametrize(("solver", "view"), PAIRS)
def test_view_data_csv_and_provenance(snaps, tmp_path, solver, view):
    snap = snaps[solver]
    data = figures.view_data(snap, view)
    csv_path, json_path = figures.export_view_data(snap, view, tmp_path / f"{solver}-{view}.csv", seed=SEED)
    assert json_path == tmp_path / f"{solver}-{view}.json"
    with open(csv_path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(data.columns)
    assert len(rows) - 1 == data.rows
    column, expected = _expected_column(snap, view)
    k = rows[0].index(column)
    assert np.array_equal(np.array([float(r[k]) for r in rows[1:]]), np.asarray(expected, dtype=float))
    meta = json.loads(json_path.read_text())
    assert meta["sudoku_lab"] == __version__
    assert meta["solver"] == solver and meta["view"] == view
    assert meta["seed"] == SEED and meta["iteration"] == snap.iteration
    assert meta["puzzle"]["name"] == PUZZLE
    assert len(meta["puzzle"]["givens"]) == snap.puzzle.C
    assert meta["params"] == json.loads(json.dumps(vf._jsonable(dict(snap.params))))
    assert meta["data"]["columns"] == list(data.columns) and meta["data"]["file"] == csv_path.name


def test_provenance_holds_the_parameter_change_log(tmp_path):
    s = create("reseda")
    s.reset(library.puzzle(PUZZLE), seed=3)
    s.step(2)
    old = s.snapshot().params["alpha"]
    s.set_params(alpha=0.3)
    s.step(2)
    snap = s.snapshot()
    _, side = vf.export_view_data(snap, "probability", tmp_path / "p.csv", seed=3)
    meta = json.loads(side.read_text())
    assert meta["params"]["alpha"] == 0.3
    assert meta["param_changes"] == [{"iteration": 2, "name": "alpha", "old": old, "new": 0.3}]
    assert any(e["kind"] == "param" and e["name"] == "alpha" for e in meta["events"])
    givens = "".join(str(d) if d else "." for d in library.puzzle(PUZZLE).grid.tolist())
    assert meta["puzzle"]["givens"] == givens


# ------------------------------------------------------------------ options
def test_png_pixels_are_size_times_dpi(snaps, tmp_path):
    snap = snaps["cuckoo"]
    out = vf.export_view(snap, "nests", tmp_path / "a.png", width=4, height=3, dpi=50)
    assert _png_size(out) == (200, 150)
    out = vf.export_view(snap, "nests", tmp_path / "b.png", width=10.16, height=7.62, unit="cm", dpi=100)
    assert _png_size(out) == (400, 300)
    assert vf.FigureStyle(10.16, 7.62, "cm", 100).pixels() == (400, 300)


def test_font_size_scales_every_text(snaps):
    snap = snaps["ga"]
    base = figures.view_figure(snap, "population")
    big = figures.view_figure(snap, "population", font_size=20)
    assert big.axes[0].xaxis.label.get_fontsize() == pytest.approx(2 * base.axes[0].xaxis.label.get_fontsize())
    assert big._suptitle.get_fontsize() == pytest.approx(2 * base._suptitle.get_fontsize())


def test_vector_formats_keep_the_size(snaps, tmp_path):
    out = vf.export_view(snaps["reseda"], "board", tmp_path / "b.pdf", width=6, height=5, dpi=300)
    head = out.read_bytes()
    assert b"/MediaBox [ 0 0 432 360 ]" in head  # 6 x 5 inches at 72 points an inch


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"width": -3, "height": 4}, "width must be from 0.5 to 40 in, got -3"),
        ({"width": 4, "height": 0, "unit": "cm"}, "height must be from 1.27 to 101.6 cm, got 0"),
        ({"width": 4}, "give both the width and the height"),
        ({"width": 4, "height": 3, "unit": "mm"}, "unit must be 'in' or 'cm'"),
        ({"dpi": 5}, "dpi must be an integer from 10 to 1200, got 5"),
        ({"dpi": 5000}, "dpi must be an integer from 10 to 1200, got 5000"),
        ({"font_size": 100}, "font size must be from 4 to 40 points"),
        ({"colour": "red"}, "unknown figure option 'colour'"),
    ],
)
def test_bad_options_are_one_clear_error(snaps, tmp_path, options, message):
    target = tmp_path / "x.png"
    with pytest.raises(ParameterError, match=message):
        vf.export_view(snaps["reseda"], "board", target, **options)
    assert not target.exists()


def test_unknown_view_and_view_of_another_solver(snaps, tmp_path):
    with pytest.raises(ParameterError, match="unknown view 'histogram': the views are board, convergence"):
        figures.view_figure(snaps["reseda"], "histogram")
    with pytest.raises(ParameterError, match="the ga solver has no 'nests' view .*its views are board"):
        vf.export_view_data(snaps["ga"], "nests", tmp_path / "n.csv")
    assert not (tmp_path / "n.csv").exists()
    with pytest.raises(ParameterError, match="view data is written as .csv"):
        vf.export_view_data(snaps["ga"], "population", tmp_path / "n.txt")
    with pytest.raises(ParameterError, match="figures are written as .png, .svg or .pdf"):
        vf.export_view(snaps["ga"], "population", tmp_path / "n.jpg")


def test_provenance_refuses_a_view_that_does_not_exist(snaps):
    """It returned a record for any name, so a sidecar could describe a view nobody drew."""
    with pytest.raises(ParameterError, match=r"^unknown view 'zzz': the views are board, convergence, ac3, "):
        figures.provenance(snaps["reseda"], "zzz")
    with pytest.raises(ParameterError, match=r"^the ga solver has no 'nests' view .*its views are board, "):
        figures.provenance(snaps["ga"], "nests")
    assert figures.provenance(snaps["ga"], "population")["view_title"] == "Population"
    assert figures.provenance(snaps["ga"])["view"] is None  # no view: the run's record alone
