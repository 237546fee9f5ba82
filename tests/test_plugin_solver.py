"""A solver defined entirely outside the package, found through its entry points, in every front end.

examples/plugin/toy_descent is the README's worked example of adding a solver:
its kernel, declarations, a layer with its own view and board overlay, a trace
column on its own axis, a benchmark and a reproduction. Here it is made
visible the way an installed distribution is (a ``.dist-info`` with
``entry_points.txt`` on the path; no file of ``sudoku_lab`` or ``ui`` is
touched) and driven through ``solve``, ``grades``, ``algorithms``, ``bench``,
``reproduce`` and the lab window.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_SRC = ROOT / "examples" / "plugin"


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    """An environment where toy_descent is installed as far as importlib.metadata can tell."""
    site = tmp_path_factory.mktemp("site")
    info = site / "toy_descent-0.1.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: toy-descent\nVersion: 0.1\n")
    info.joinpath("entry_points.txt").write_text(
        "[sudoku_lab.plugins]\ntoy_descent = toy_descent\n\n[sudoku_lab.ui_plugins]\ntoy_descent = toy_descent.ui\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SUDOKU_LAB_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(PLUGIN_SRC)])
    return env


def _cli(env, *args, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "sudoku_lab", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def test_the_package_does_not_know_the_plugin():
    """The example is really outside: nothing in sudoku_lab or ui names it."""
    for folder in ("sudoku_lab", "ui"):
        for f in (ROOT / folder).rglob("*.py"):
            assert "toy_descent" not in f.read_text() and "toy-descent" not in f.read_text(), f


def test_solve_and_algorithms(plugin_env):
    listing = _cli(plugin_env, "algorithms")
    assert listing.returncode == 0 and listing.stderr == "", listing.stderr  # no plugin failed to load
    assert "toy-descent: Toy swap descent (plugin example)" in listing.stdout
    detail = _cli(plugin_env, "algorithms", "toy-descent").stdout
    assert "accepted       swaps accepted (last 100)" in detail
    assert "heat           accepted swaps per cell, decaying [float64 (C,)]" in detail
    res = _cli(
        plugin_env,
        "solve",
        "reseda_fig3_1_easy",
        "--algo",
        "toy-descent",
        "--temperature",
        "0.5",
        "--seed",
        "4",
        "--until",
        "solved,200000it",
        "--format",
        "line",
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    from sudoku_lab.model import library

    assert res.stdout.splitlines()[-1] == "".join(map(str, library.puzzle("reseda_fig3_1_easy").solution))


def test_grades(plugin_env, tmp_path):
    out = tmp_path / "g.png"
    res = _cli(
        plugin_env,
        "grades",
        "reseda_fig3_1_easy",
        "--algo",
        "toy-descent",
        "--runs",
        "4",
        "--until",
        "solved,20000it",
        "--temperature",
        "0.5",
        "--out",
        str(out),
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(tmp_path.joinpath("g.grades.json").read_text())
    assert data["solver"] == "toy-descent" and data["runs_done"] == 4
    assert out.stat().st_size > 5000


def test_bench(plugin_env):
    listing = " ".join(_cli(plugin_env, "bench", "--help").stdout.split())
    assert "toy-descent the plugin example's kernel vs pure Python, swaps per second" in listing
    res = _cli(plugin_env, "bench", "toy-descent", "--steps", "300")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("toy-descent: kernel ") and "(measured side by side in this run)" in res.stdout


def test_reproduce(plugin_env, tmp_path):
    helped = " ".join(_cli(plugin_env, "reproduce", "--help").stdout.split())
    assert "toy-descent-table (easy puzzle solved by swap descent at temperature 0.5)" in helped
    md = tmp_path / "toy.md"
    res = _cli(plugin_env, "reproduce", "toy-descent-table", "--runs", "4", "--quiet", "--markdown", str(md))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith("| reseda_fig3_1_easy |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # The count is the plugin solver's own: the same seeds through `solve` give the same successes,
    # and the verdict is Fisher's test on 18/20 against it.
    solved = sum(
        _cli(
            plugin_env,
            "solve",
            "reseda_fig3_1_easy",
            "--algo",
            "toy-descent",
            "--temperature",
            "0.5",
            "--seed",
            str(seed),
            "--until",
            "solved,20000it",
            "--quiet",
        ).returncode
        == 0
        for seed in range(4)
    )
    from scipy.stats import fisher_exact

    p = fisher_exact([[solved, 4 - solved], [18, 2]]).pvalue
    assert cells[1:3] == ["18/20", f"{solved}/4"]
    assert cells[-1] == ("consistent" if p >= 0.05 else "**ours lower**" if solved / 4 < 0.9 else "**ours higher**")
    assert md.read_text().startswith("Command: `sudoku-lab reproduce toy-descent-table --runs 4")


LAB_SCRIPT = r"""
import json, sys
import numpy as np
from PySide6.QtWidgets import QApplication
from sudoku_lab.model import library
from sudoku_lab_ui.app import create_window

app = QApplication.instance() or QApplication(["lab"])
win = create_window(library.puzzle("reseda_fig4_1_hard"), "toy-descent")
win.show()

def wait(cond, ms=180_000):
    import time
    end = time.monotonic() + ms / 1000
    while not cond():
        app.processEvents()
        if time.monotonic() > end:
            raise SystemExit("timed out")
        time.sleep(0.01)

wait(lambda: win.controller.state == "idle" and win.controller.latest is not None)
win.act_step_n.trigger()  # one "step n" click
wait(lambda: win.controller.latest.snapshot.iteration > 0 and win.settled())
snap = win.controller.latest.snapshot
docks = win.view_docks
conv = win.views["convergence"]
x, y = conv.curves["accepted"].getOriginalDataset()
from toy_descent.ui import hottest
print(json.dumps({
    "iteration": snap.iteration,
    "heat_dock_visible": docks["toy_heat"].isVisible(),
    "probability_dock_visible": docks["probability"].isVisible(),
    "heat_view_text": win.views["toy_heat"].label.text(),
    "hot_cells_drawn": sorted(win.board.cell_sets().get("heat", ())),
    "hot_cells_expected": np.flatnonzero(hottest(snap.layers["heat"])).tolist(),
    "swap_drawn": np.asarray(win.board.links()["swap"]).tolist(),
    "swap_layer": snap.layers["swap"].tolist(),
    "curves": list(conv.curves),
    "accepted_points": len(x),
    "accepted_last": float(y[-1]),
    "accepted_trace_last": float(snap.trace["accepted"][-1]),
    "right_axis": conv.plot.getAxis("right").labelText,
}))
win.close()
"""


@pytest.mark.gui  # a child process opens the lab window offscreen
def test_lab_window(plugin_env, tmp_path):
    """The plugin's view is shown, its overlay drawn on the board, its column plotted on its own axis."""
    script = tmp_path / "lab.py"
    script.write_text(LAB_SCRIPT)
    env = {**plugin_env, "QT_QPA_PLATFORM": "offscreen"}
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["iteration"] > 0
    assert got["heat_dock_visible"] and not got["probability_dock_visible"]
    assert got["heat_view_text"].startswith("hottest cells: ")
    assert got["hot_cells_drawn"] == sorted(got["hot_cells_expected"]) and len(got["hot_cells_drawn"]) == 5
    assert got["swap_drawn"] == got["swap_layer"]
    assert got["curves"] == ["cost", "best_cost", "accepted"]
    assert got["accepted_points"] == got["iteration"]
    assert got["accepted_last"] == got["accepted_trace_last"]
    assert got["right_axis"] == "acceptance"
