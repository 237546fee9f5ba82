"""``sudoku-lab bench gui`` drives the real window: the same seeded runs headless and in the window."""

from __future__ import annotations

import re

import pytest

from sudoku_lab.solvers import registry


@pytest.mark.parametrize("name", [n for n, c in registry().items() if c.stochastic])
def test_bench_gui_runs_each_solver_in_the_window_and_headless(name, qapp, capsys, warm_kernels):
    """Identical seeded runs in both settings (equal iteration counts), the solver's views on screen, a ratio."""
    from sudoku_lab_ui import bench_gui

    assert bench_gui.main(["--algo", name, "--runs", "2", "--rounds", "1", "--iterations", "60"]) == 0
    out = capsys.readouterr().out
    cls = registry()[name]
    head = next(ln for ln in out.splitlines() if f"[{name}]" in ln)
    assert cls.examples[0][1] in head, "the solver's first example puzzle"
    counts = [int(m) for m in re.findall(r"^\s+(?:headless|window drawing)\s.*?(\d+) " + cls.iteration_name, out, re.M)]
    assert len(counts) == 2 and counts[0] == counts[1] > 0, out
    assert "counts differ" not in out
    assert "Convergence" in head.split("views:")[1]
    assert re.search(r"window / headless: \d+\.\d\d", out)
    peak = re.search(r"history \(keyframes\) peaked at ([\d.,]+) MB \(limit 200 MB\); process peak RSS", out)
    assert peak and float(peak.group(1)) > 0, out  # the window's runs are recorded
