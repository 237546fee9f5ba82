"""The solver registry: declarations checked at registration, duplicate names refused, plugins loaded.

The plugin example in examples/plugin is the external solver of the end-to-end
test (tests/test_plugin_solver.py); here the registry's own rules are checked
in-process, with every registration undone afterwards.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sudoku_lab import plugins as _registry
from sudoku_lab.solvers import Column, Layer, Param, Solver, register, registry, unregister
from sudoku_lab.solvers.declare import Axis, Threshold

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIR = ROOT / "examples" / "plugin"


def _solver(name="tmp-solver", **attrs):
    return type("Tmp", (Solver,), {"name": name, **attrs})


def test_a_second_solver_with_a_taken_name_is_refused():
    reseda = registry()["reseda"]
    with pytest.raises(ValueError, match="'reseda' is already registered .*sudoku_lab.solvers.reseda.Reseda"):
        register(_solver("reseda"))
    assert registry()["reseda"] is reseda
    assert register(reseda) is reseda  # the same class again is harmless


@pytest.mark.parametrize(
    "attrs,message",
    [
        ({"columns": (Column("best_cost"),)}, "every solver traces 'cost'"),
        (
            {"columns": (Column("cost"), Column("x", axis="nowhere"))},
            "column 'x' is on axis 'nowhere', which is not declared",
        ),
        (
            {"columns": (Column("cost", thresholds=(Threshold("beta"),)),)},
            "threshold parameter 'beta' is not a parameter",
        ),
        ({"axes": (Axis("a", "a"), Axis("b", "b"))}, "at most one axis per side"),
        ({"layers": (Layer("p", "", "float64", ("C", "Q")),)}, "shape symbol 'Q' is neither"),
        ({"layers": {"p": "old-style description"}}, "layers must be a tuple of Layer declarations"),
        ({"examples": (({"alpha": 0.5}, "reseda_fig3_1_easy"),)}, "examples[0] names unknown parameters: alpha"),
        ({"examples": ("reseda_fig3_1_easy",)}, "examples[0] must be a (params mapping, puzzle name) pair"),
    ],
)
def test_inconsistent_declarations_are_refused_at_registration(attrs, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        register(_solver(**attrs))
    assert "tmp-solver" not in registry()


def test_a_layer_shape_may_name_a_parameter():
    cls = _solver(params=(Param("Q", "int", 5, "samples", low=1),), layers=(Layer("samples", "", "int8", ("Q", "C")),))
    try:
        assert register(cls) is cls
        assert registry()["tmp-solver"] is cls
    finally:
        unregister("tmp-solver")
    assert "tmp-solver" not in registry()


def test_a_broken_plugin_is_reported_in_one_line_and_the_built_ins_still_load(tmp_path):
    (tmp_path / "broken_plugin.py").write_text("raise RuntimeError('boom')\n")
    env_code = "import sudoku_lab.solvers as s; print(sorted(s.registry()))"
    res = subprocess.run(
        [sys.executable, "-c", env_code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**_env(), "PYTHONPATH": str(tmp_path), _registry.PLUGIN_ENV: "broken_plugin"},
    )
    assert res.returncode == 0, res.stderr
    assert "exact" in res.stdout and "reseda" in res.stdout
    assert res.stderr.strip().splitlines() == [
        "sudoku-lab: plugin 'broken_plugin' (from $SUDOKU_LAB_PLUGINS) failed to load and is skipped: "
        "RuntimeError: boom"
    ]


@pytest.fixture
def toy_descent(monkeypatch, own_reproductions):
    """The plugin example imported into this process, as ``SUDOKU_LAB_PLUGINS=toy_descent`` would; all gone after.

    Its reproduction and paper go to the test's own registries (``own_reproductions``); its solver and benchmark
    are unregistered and its modules forgotten, so no later test sees it. Loading plugins in a fresh interpreter
    is tests/test_plugin_solver.py's subject (and the broken plugin's test above).
    """
    from sudoku_lab import benchmarks

    registry(), benchmarks.benchmarks()  # complete first: built-ins must not load while the plugin is there
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    import toy_descent as module

    yield module
    unregister("toy-descent")
    benchmarks._REGISTRY.unregister("toy-descent")
    for name in [n for n in sys.modules if n == "toy_descent" or n.startswith("toy_descent.")]:
        del sys.modules[name]
    assert "toy-descent" not in registry() and "toy-descent" not in benchmarks.benchmarks()


def test_colliding_parameter_names_are_checked_per_solver(toy_descent, cli):
    """toy-descent's alpha is an integer in [0, 8], RESEDA's a float in [0, 1]: each solver checks its own,
    and each solver's --help shows its own text."""
    ok = cli(
        "solve",
        "reseda_fig3_1_easy",
        "--algo",
        "toy-descent",
        "--alpha",
        "3",
        "--seed",
        "2",
        "--until",
        "solved,200000it",
        "--quiet",
    )
    assert ok.returncode == 0, ok.stderr
    assert "toy-descent seed 2: solved" in ok.stderr  # the verdict: standard output holds only the grid
    bad = cli("solve", "reseda_fig3_1_easy", "--algo", "toy-descent", "--alpha", "0.5", "--quiet")
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "sudoku-lab: error: alpha must be an integer in [0, 8], got '0.5'"
    )
    bad = cli("solve", "reseda_fig3_1_easy", "--algo", "reseda", "--alpha", "3", "--quiet")
    assert bad.returncode == 2 and "alpha must be [0, 1], got 3" in bad.stderr
    toy_help = cli("solve", "--algo", "toy-descent", "--help").stdout
    reseda_help = cli("solve", "--algo", "reseda", "--help").stdout
    assert "Decay of the heat map" in toy_help and "Smoothing: fraction of p kept" not in toy_help
    assert "Smoothing: fraction of p kept" in reseda_help and "Decay of the heat map" not in reseda_help
    both = " ".join(cli("solve", "--help").stdout.split())
    assert "[reseda] Smoothing" in both and "[toy-descent] Decay" in both


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", _registry.PLUGIN_ENV)}
