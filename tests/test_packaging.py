"""The editable install (the README's test command) imports the lab as sudoku_lab_ui, never as `ui`.

The wheel's side is checked in tests/test_library.py (it installs the wheel into
a new virtual environment).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest


@pytest.mark.slow
def test_editable_install_maps_exact_packages(tmp_path, repo_root):
    # The editable wheel pip builds for `pip install -e .`, built with this environment's hatchling.
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-c", f"from hatchling.build import build_editable; print(build_editable({str(dist)!r}))"],
        cwd=repo_root,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = dist / built.stdout.strip().splitlines()[-1]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    out = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # numpy, numba, editables ...
    # A directory that holds a `ui` package of its own, as any project might.
    work = tmp_path / "elsewhere"
    (work / "ui").mkdir(parents=True)
    (work / "ui" / "__init__.py").write_text("IMPOSTOR = True\n")
    code = (
        "import sys, importlib.util\n"
        "import sudoku_lab, sudoku_lab_ui.app\n"
        f"root = {str(repo_root)!r}\n"
        "assert sudoku_lab_ui.app.__file__ == root + '/ui/app.py', sudoku_lab_ui.app.__file__\n"
        "assert sudoku_lab.__file__ == root + '/sudoku_lab/__init__.py', sudoku_lab.__file__\n"
        "assert root not in sys.path, sys.path\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "ok"
    # No `ui` is installed: from a neutral directory it does not import at all ...
    res = subprocess.run([str(py), "-c", "import ui"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert res.returncode != 0 and "No module named 'ui'" in res.stderr
    # ... and next to another project's ui/, the lab's own modules still run (`python -m` puts the cwd first).
    res = subprocess.run(
        [str(py), "-m", "sudoku_lab_ui.bench_gui", "--help"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.startswith("usage: sudoku-lab bench gui")
    script = subprocess.run(
        [str(venv / "bin" / "sudoku-lab"), "--version"], cwd=work, capture_output=True, text=True, env=env, timeout=300
    )
    assert script.returncode == 0 and script.stdout.strip() == "sudoku-lab 0.1.0", script.stderr


def test_the_wheel_ships_the_conformance_kit_and_its_pytest_plugin(tmp_path, repo_root):
    """A plugin's tests import sudoku_lab.testing from the installed wheel, and pytest finds the fixture there."""
    import zipfile

    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(repo_root),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    [wheel] = dist.glob("sudoku_lab-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        text = z.read(entry_points).decode()
    assert {"sudoku_lab/testing.py", "sudoku_lab/_pytest_plugin.py", "sudoku_lab/kernels.py"} <= names
    assert "[pytest11]\nsudoku_lab = sudoku_lab._pytest_plugin" in text


def _extras(repo_root) -> dict[str, list[str]]:
    import tomllib

    return tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _name(requirement: str) -> str:
    import re

    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_qt_is_the_gui_extra_which_the_test_extra_includes(repo_root):
    """PySide6 and pyqtgraph were core dependencies, so the notebook extra installed them."""
    import tomllib

    from sudoku_lab.cli.gui import WINDOW_PACKAGES

    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    qt = {"pyside6-essentials", "pyside6", "pyqtgraph", "shiboken6"}
    assert not qt & {_name(r) for r in project["dependencies"]}
    extras = _extras(repo_root)
    assert {_name(r) for r in extras["gui"]} == {d.lower() for d in WINDOW_PACKAGES.values()}
    assert "sudoku-lab[gui]" in extras["test"]  # the README's test command installs the window too
    assert not qt & {_name(r) for r in extras["notebook"]} and not any("[gui]" in r for r in extras["notebook"])


@pytest.mark.slow
def test_the_notebook_extra_resolves_without_qt(tmp_path, repo_root):
    """What `pip install ".[notebook]"` installs in a fresh environment, resolved by pip itself (a dry run).

    ``--ignore-installed`` resolves as for an empty environment, so the answer does not depend on what this one
    holds; nothing is downloaded but the index pages and metadata pip needs (about 25 s of CPU here), nothing is
    installed, and the project's metadata is built with this environment's hatchling (no build isolation).
    """
    import json

    report = tmp_path / "report.json"
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-build-isolation", "--quiet"]
        + ["--report", str(report), f"{repo_root}[notebook]"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    names = {i["metadata"]["name"].lower().replace("_", "-") for i in json.loads(report.read_text())["install"]}
    assert {"sudoku-lab", "numpy", "numba", "matplotlib", "ipywidgets", "ipykernel"} <= names, sorted(names)
    assert not names & {"pyside6-essentials", "pyside6", "shiboken6", "pyqtgraph"}, sorted(names)
