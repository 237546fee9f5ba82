"""The report's figures draw the report's numbers: ECDF steps, boxes, intervals and heatmap cells, in every format."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from matplotlib.colors import to_hex
from matplotlib.image import imread
from test_report import RUNS, results_of

from sudoku_lab.analysis import figures, report
from sudoku_lab.engine.results import SCHEMA, Results

LEVELS = ("easy", "medium", "hard", "fiendish", "diabolical")
CONFIGS = ("reseda", "reseda:alpha=0.5,restart=full", "hill_climb", "nbcoin", "ga", "cuckoo", "ac3_tabu:k=3")


@pytest.fixture(scope="module")
def fixed():
    return results_of(RUNS + [("C", "easy", "e1", True, 7, 0.7)])


@pytest.fixture(scope="module")
def wide():
    """7 configurations x 5 levels x 3 puzzles x 6 runs, harder levels and later configurations slower."""
    rng = np.random.default_rng(5)
    rows = []
    for li, level in enumerate(LEVELS):
        for p in range(3):
            for ci, c in enumerate(CONFIGS):
                for r in range(6):
                    t = float(rng.lognormal(np.log(10 ** (0.5 * li + 0.3 * ci - 2)), 1.0))
                    ok = t < 5.0
                    rows.append(
                        {
                            **dict.fromkeys(SCHEMA.names),
                            "config": c,
                            "solver": c.split(":")[0],
                            "puzzle_set": level,
                            "puzzle": f"{level}_{p}",
                            "run": r,
                            "until": "solved,5s",
                            "solved": ok,
                            "iterations": int(t * 1000) + 1,
                            "evaluations": int(t * 1e5) + 1,
                            "seconds": min(t, 5.0),
                        }
                    )
    return report.build_report(Results(pa.Table.from_pylist(rows, schema=SCHEMA), {}, None, []))


def _panel(fig, title_start):
    return next(ax for ax in fig.axes if ax.get_title().startswith(title_start))


def test_ecdf_figure_draws_the_run_length_steps(fixed):
    ecdfs = report.ecdf(fixed)
    fig = figures.ecdf_figure(ecdfs)
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == [
        "easy, 1-4 runs",
        "hard, 2-3 runs",
        "all (pooled), 1-7 runs",
    ]
    easy = _panel(fig, "easy")
    lines = {ln.get_label(): ln for ln in easy.lines}
    assert set(lines) == {"A", "B", "C"}
    # From 0 at the first solution, up by 1/runs per solved run, flat to where the unsolved run stopped.
    assert lines["A"].get_xdata().tolist() == [1.0, 1.0, 2.0, 3.0, 5.0]
    assert lines["A"].get_ydata().tolist() == [0.0, 0.25, 0.5, 0.75, 0.75]
    assert lines["A"].get_drawstyle() == "steps-post"
    assert lines["B"].get_ydata().tolist() == [0.0, 0.0]  # none solved: a flat line at 0
    assert easy.get_xscale() == "linear" and easy.get_ylabel() == "fraction of runs solved"
    assert fig.legends and [t.get_text() for t in fig.legends[0].get_texts()] == ["A", "B", "C"]
    # The same configuration keeps its colour in every panel.
    hard = {ln.get_label(): ln for ln in _panel(fig, "hard").lines}
    assert hard["A"].get_color() == lines["A"].get_color() != lines["B"].get_color()
    assert figures.ecdf_figure(ecdfs, log=True).axes[0].get_xscale() == "log"


def test_box_figure_boxes_the_solved_runs(fixed):
    fig = figures.box_figure(report.ecdf(fixed, "iterations"), title="boxes")
    easy = _panel(fig, "easy")
    texts = [t.get_text() for t in easy.texts]
    assert texts.count("none solved") == 1 and {"3/4", "0/4", "1/1"} <= set(texts)
    assert len(easy.patches) == 2  # A and C; B solved nothing
    medians = sorted(float(np.mean(ln.get_xdata())) for ln in easy.lines if ln.get_gid() == "median")
    assert medians == [7.0, 20.0]
    assert [t.get_text() for t in easy.get_yticklabels()] == ["A", "B", "C"]
    assert "iterations" in fig.axes[-1].get_xlabel() or any("iterations" in ax.get_xlabel() for ax in fig.axes)
    assert fig.get_suptitle() == "boxes"


def test_success_figure_draws_each_rate_with_its_interval(fixed):
    rows = report.summarize(fixed)
    fig = figures.success_figure(rows)
    ax = fig.axes[0]
    bars = ax.containers
    assert len(bars) == len(rows)
    for row, eb in zip(rows, bars):
        line, _, (segments,) = eb.lines
        assert line.get_ydata()[0] == pytest.approx(row.rate)
        (x0, y0), (x1, y1) = segments.get_segments()[0]
        assert (y0, y1) == pytest.approx(row.interval)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["easy", "hard", "all (pooled)"]
    assert any(ln.get_linestyle() == "--" for ln in ax.lines)  # the pooled group set apart


def test_heatmap_figure_maps_every_configuration_and_puzzle(fixed):
    fig = figures.heatmap_figure(report.summarize(fixed, by="puzzle"))
    ax = fig.axes[0]
    img = ax.images[0].get_array()
    expected = np.array([[1.0, 0.5, 0.5], [0.0, 0.0, 1.0], [1.0, np.nan, np.nan]])
    assert np.allclose(np.ma.filled(img, np.nan), expected, equal_nan=True)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "C"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["e1", "e2", "h1"]
    assert sorted(t.get_text() for t in ax.texts) == sorted(["100", "50", "50", "0", "0", "100", "100"])
    [top] = ax.child_axes
    assert [t.get_text() for t in top.get_xticklabels()] == ["easy", "hard"]  # the puzzle sets above
    by_set = figures.heatmap_figure(report.summarize(fixed)).axes[0]  # columns are sets: no second label row
    assert by_set.get_xlabel() == "puzzle set" and not by_set.child_axes
    assert np.allclose(
        np.ma.filled(by_set.images[0].get_array(), np.nan), [[0.75, 0.5], [0.0, 1.0], [1.0, np.nan]], equal_nan=True
    )


@pytest.mark.parametrize("kind", report.FIGURES)
def test_seven_configurations_and_five_levels_in_every_format(wide, kind, tmp_path):
    fig = report.figure(wide, kind)
    colours = set()
    for ax in fig.axes:
        colours |= {to_hex(ln.get_color()) for ln in ax.lines if not ln.get_label().startswith("_")}
    if kind == "ecdf":
        assert len(colours) == len(CONFIGS)  # every configuration its own colour
        assert sum(ax.get_visible() for ax in fig.axes) == len(LEVELS) + 1
    png = figures.save(fig, tmp_path / f"{kind}.png", dpi=60)
    pixels = imread(png)
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 50  # drawn, not a blank page
    other = figures.save(fig, tmp_path / f"{kind}{'.svg' if report.FIGURES.index(kind) % 2 else '.pdf'}")
    data = other.read_bytes()
    assert len(data) > 8000
    assert data[:5] == b"%PDF-" if other.suffix == ".pdf" else b"ac3_tabu:k=3" in data


@pytest.mark.parametrize(
    "runs",
    [
        [(c, "s", "p", False, 100, 5.0) for c in "ab" for _ in range(3)],  # nothing solved
        [(c, "s", "p", True, 10, 1.0) for c in "ab" for _ in range(3)],  # every value the same
        [("a", "s", "p", True, 10, 1.0)],  # one run
        [("a", "s", "p", True, 0, 0.001), ("a", "s", "p", True, 5000, 0.5)],  # a zero on a wide range: no log axis
    ],
    ids=["none-solved", "all-equal", "one-run", "zero-iterations"],
)
def test_degenerate_data_draws_without_warnings(runs, tmp_path):
    rep = report.build_report(results_of(runs))
    for kind in report.FIGURES:
        fig = report.figure(rep, kind, "iterations")
        figures.save(fig, tmp_path / "f.png", dpi=30)  # drawing is where log axes and empty boxes would warn
        if kind in ("ecdf", "box") and runs[0][4] == 0:
            assert all(ax.get_xscale() == "linear" for ax in fig.axes if ax.get_visible())
