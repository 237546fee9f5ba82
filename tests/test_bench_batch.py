"""``sudoku-lab bench batch``: one batch in one process, the pool and a local Dask cluster, side by side."""

from __future__ import annotations

import re

import pytest

from sudoku_lab import cli
from sudoku_lab.benchmarks import benchmarks

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("warm_kernels")]


def test_the_three_ways_run_the_same_batch_and_their_ratios_are_printed(capsys):
    assert benchmarks()["batch"].solver == "reseda"
    assert cli.main(["bench", "batch", "--runs", "12", "--repeat", "1", "--set", "kennett/medium"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "batch: 12 RESEDA runs (default parameters: partial+full restarts, until solved) on "
        "kennett/medium, 2 worker processes"
    )
    times = {
        m.group(1): float(m.group(2))
        for m in re.finditer(
            r"^  (one process|process pool \(2\)|Dask local:2) +"
            r"([\d.]+) s",
            out,
            re.M,
        )
    }
    assert set(times) == {"one process", "process pool (2)", "Dask local:2"}
    for way in ("process pool (2)", "Dask local:2"):
        printed = re.search(rf"^  {re.escape(way)} .* ([\d.]+)x one process$", out, re.M).group(1)
        assert float(printed) == pytest.approx(times["one process"] / times[way], rel=0.05)
    assert "the same runs every way (solved, iterations of each of the 12): yes" in out
    assert re.search(
        r"targets on 2 cores: process pool \(2\) +[\d.]+x \(target 1.8x\): (met|NOT met); "
        r"Dask local:2 +[\d.]+x \(target 1.6x\): (met|NOT met)",
        out,
    )
