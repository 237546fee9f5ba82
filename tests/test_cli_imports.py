"""Each sub-command imports only what it runs: building the parser and solving a puzzle load no
``scipy.stats``, pandas, pyarrow, matplotlib or dask (``sudoku-lab solve`` once spent two thirds of its time
importing ``scipy.stats``), and no Qt.

numba itself imports the ``scipy`` package, and the first kernel it runs (from its cache or compiled)
imports ``scipy.linalg`` for its BLAS probe (``numba.np.arraymath``); that much scipy is numba's and is
allowed, the rest is not. ``--help`` runs no kernel and needs none of its code, so it imports no numba at all
(about a second of CPU): the solver modules read their kernels' layout modules and import the kernels lazily.

Real processes through both entry points (the installed ``sudoku-lab`` script, which goes through
``sudoku_lab.cli:main``, and ``python -m sudoku_lab``), with Python's own import log
(``PYTHONPROFILEIMPORTTIME``) read from stderr, so nothing imported by the test itself interferes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("scipy", "pandas", "pyarrow", "matplotlib", "dask", "PySide6", "shiboken6", "pyqtgraph")
#: The scipy numba loads on its own: the package (imported by ``import numba``) and, once a kernel runs, linalg.
NUMBAS_SCIPY = ("scipy", "scipy._", "scipy.__config__", "scipy.version", "scipy.linalg")
EASY = "reseda_fig3_1_easy"
_LOGGED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$")


def _imported(cmd: list[str]) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    mods = {m.group(1) for line in out.stderr.splitlines() if (m := _LOGGED.match(line))}
    return out, mods


def _entry(kind: str) -> list[str]:
    if kind == "python -m":
        return [sys.executable, "-m", "sudoku_lab"]
    exe = Path(sys.executable).parent / "sudoku-lab"
    if not exe.is_file():
        pytest.skip(f"the installed sudoku-lab command is not next to {sys.executable}")
    return [str(exe)]


@pytest.mark.parametrize(
    "kind, args",
    [
        ("sudoku-lab", ["solve", "--help"]),
        ("sudoku-lab", ["solve", "--quiet", EASY]),
        ("sudoku-lab", ["solve", "--algo", "reseda", "--quiet", EASY]),
        ("python -m", ["solve", "--algo", "reseda", "--help"]),
        ("python -m", ["solve", "--algo", "reseda", "--quiet", EASY]),
        ("python -m", ["--help"]),
    ],
)
def test_solve_and_its_help_import_no_statistics_tables_plots_or_qt(kind, args):
    out, mods = _imported(_entry(kind) + args)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "sudoku_lab.cli" in mods  # the log was read: the command really ran through the CLI
    heavy = sorted(m for m in mods if m.split(".")[0] in HEAVY and not (m == "scipy" or m.startswith(NUMBAS_SCIPY[1:])))
    assert not heavy, f"{kind} {' '.join(args)} imported {', '.join(heavy[:8])}"
    if args[0] == "solve":  # nor the modules of the commands it does not run
        others = sorted(
            mods
            & {
                "sudoku_lab.engine.batch",
                "sudoku_lab.engine.compare",
                "sudoku_lab.analysis.grades",
                "sudoku_lab.analysis.report",
                "sudoku_lab.reproductions.runner",
                "sudoku_lab.analysis.stats",
                "sudoku_lab.engine.results",
            }
        )
        assert not others, f"{kind} {' '.join(args)} imported {', '.join(others)}"
    if "--help" in args:  # no kernel ran, none was compiled or loaded from the cache, and numba was not even imported
        assert "numba" not in mods and "numba.np.arraymath" not in mods and "scipy.linalg" not in mods
    else:
        assert "numba.np.arraymath" in mods  # (the allowance above is numba's, not a command's)
        assert out.stdout.count("|") == 18  # the solved grid: nine rows, two box separators each


_EVERY_HELP = """
import sys
from sudoku_lab.cli import _CORE, _EXPERIMENTS, main
from sudoku_lab.benchmarks import benchmarks as benches

runs = [["--help"]] + [[c, "--help"] for c in _CORE + _EXPERIMENTS] + [["bench", b, "--help"] for b in benches()]
runs += [["solve", "--algo", a, "--help"] for a in ("hill_climb", "ac3_tabu", "cuckoo", "acs")]
for argv in runs:
    try:
        main(argv)
    except SystemExit as e:
        assert e.code == 0, (argv, e.code)
    assert "numba" not in sys.modules, f"sudoku-lab {' '.join(argv)} imported numba"
print(len(runs))
"""


def test_no_help_text_imports_numba():
    """Every sub-command's and every benchmark's ``--help`` (and ``solve --algo X --help``), in one process: none
    imports numba. (The two entry points' own help is in the test above.)"""
    out = subprocess.run([sys.executable, "-c", _EVERY_HELP], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) >= 25  # every command was asked (14 commands, 10 benchmarks, ...)
