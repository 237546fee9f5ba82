"""Every example notebook (examples/**/*.ipynb) runs headless, top to bottom, in a kernel of this Python.

The kernel is declared for ``sys.executable`` (sudoku_lab_notebook.execute), so a fresh virtual
environment with the test extra runs them, whatever kernels Jupyter knows of. A new notebook is
picked up by the glob: adding one is a one-file change.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from sudoku_lab_notebook.execute import execute_notebook

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("**/*.ipynb"))


def _outputs(nb) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _pngs(nb) -> int:
    return sum("image/png" in o.get("data", {}) for o in _outputs(nb))


def test_there_are_example_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"eda.ipynb", "local_search.ipynb", "population.ipynb", "exact.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_runs_without_an_error_and_draws_its_figures(path):
    nb = execute_notebook(path, timeout=600)
    outputs = _outputs(nb)
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}" if errors else ""
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"], path.name
    assert _pngs(nb) >= 2, f"{path.name}: fewer than two figures in its outputs"
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets and all("<Sudoku Lab: " in o.data["text/plain"] for o in widgets), path.name
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= 4, f"{path.name}: a notebook teaches in text cells"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_saved_notebook_keeps_its_figures_for_readers_without_a_kernel(path):
    nb = nbformat.read(path, as_version=4)
    assert _pngs(nb) >= 2, f"{path.name}: run `python -m sudoku_lab_notebook.execute {path.name} --write` to save them"
    assert "widgets" not in nb.metadata  # the live lab's state is not saved (it is large and stale)
