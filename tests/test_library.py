"""The bundled library, from the checkout and from an installed wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab._paths import resources_dir
from sudoku_lab.errors import PuzzleError
from sudoku_lab.model import library


def test_collections_are_listed_in_order_with_counts():
    infos = library.collections()
    names = [c.name for c in infos]
    assert names[:7] == [
        "papers",
        "mantere_koljonen",
        "kennett/very_easy",
        "kennett/easy",
        "kennett/medium",
        "kennett/hard",
        "kennett/fiendish",
    ]
    by = {c.name: c for c in infos}
    assert by["papers"].count == 20 and by["mantere_koljonen"].count == 46
    assert all(by[f"kennett/{lv}"].count == 200 for lv in ("very_easy", "easy", "medium", "hard", "fiendish"))
    assert by["benchmarks/top1465"].count == 1465
    assert by["benchmarks/lewis_25x25_40"].size == 25 and not by["benchmarks/lewis_25x25_40"].unique
    assert sum(c.count for c in infos if c.has_solutions) > 1000


def test_puzzles_carry_names_solutions_and_metadata():
    p = library.puzzle("reseda_fig4_1_hard")
    assert p.name == "reseda_fig4_1_hard" and p.n_givens == 31
    assert p.metadata["collection"] == "papers" and "Figure 4.1" in p.metadata["source"]
    assert p.is_solved_by(p.solution)
    k = library.puzzle("kennett/fiendish:3")
    assert k.name == "kennett_fiendish_003" and k.metadata["level"] == "fiendish"
    assert library.puzzle("kennett/fiendish:kennett_fiendish_003") == k
    assert library.names("papers")[0] == "reseda_fig3_1_easy"


@pytest.mark.parametrize(
    "name,fragment",
    [
        ("reseda_fig41_hard", "did you mean reseda_fig4_1_hard"),
        ("kennett/fiendish:201", "kennett/fiendish has 200 puzzles; 201 is out of range"),
        ("kennett/fiendish:nope", "kennett/fiendish has no puzzle named 'nope'"),
        ("nowhere:1", "no bundled collection named 'nowhere'"),
    ],
)
def test_unknown_names_get_clear_errors(name, fragment):
    with pytest.raises(PuzzleError, match=fragment):
        library.puzzle(name)


def test_figure_4_2_grades():
    g = library.reseda_fig4_2_grades()
    assert g.shape == (9, 9)
    assert "".join(g[0]) == "ABABAAB"  # .ABABAAB. with blanks dropped
    assert set(np.unique(g)) == {"", "A", "B"}
    assert np.all(g[6:] == "A")


def test_resources_come_from_the_checkout_here():
    assert resources_dir() == Path(__file__).resolve().parents[1] / "resources"


@pytest.mark.slow
def test_wheel_installs_and_reads_its_own_resources(tmp_path, repo_root):
    """Build the wheel, install it into a fresh venv, and load puzzles from there (not from the checkout)."""
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
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
    )
    # Dependencies (numpy, numba, ...) come from this environment, appended after the venv's own packages.
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = (
        "import sudoku_lab, sys\n"
        "from sudoku_lab import library\n"
        "from sudoku_lab._paths import resources_dir\n"
        f"assert str(resources_dir()).startswith({str(venv)!r}), resources_dir()\n"
        f"assert sudoku_lab.__file__.startswith({str(venv)!r}), sudoku_lab.__file__\n"
        "p = library.puzzle('reseda_fig4_1_hard')\n"
        "assert p.is_solved_by(p.check())\n"
        "assert len(library.collection('kennett/fiendish')) == 200\n"
        "assert 'PySide6' not in sys.modules\n"
        "import importlib.util, sudoku_lab_ui\n"
        f"assert sudoku_lab_ui.__file__.startswith({str(venv)!r}), sudoku_lab_ui.__file__\n"
        "assert importlib.util.find_spec('ui') is None\n"
        "from sudoku_lab.citations import doc_file\n"
        f"assert str(doc_file()).startswith({str(venv)!r}) and '## RESEDA' in doc_file().read_text(), doc_file()\n"
        "print('ok', sudoku_lab.__version__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    out = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok 0.1.0")
    cli = subprocess.run(
        [str(venv / "bin" / "sudoku-lab"), "solve", "reseda_fig3_1_easy", "--format", "line"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == "".join(str(d) for d in library.puzzle("reseda_fig3_1_easy").solution)


def test_every_size_a_collection_holds_is_listed(capsys):
    """``library`` said 4x4 of benchmarks/small_unique, which also holds a 16x16 puzzle."""
    from sudoku_lab.cli import main

    assert main(["library"]) == 0
    rows = {r.split()[0]: r for r in capsys.readouterr().out.splitlines()[1:] if r}
    assert " 4x4, 16x16 " in rows["benchmarks/small_unique"]
    assert "  9x9  " in rows["papers"] and "  25x25  " in rows["benchmarks/lewis_25x25_40"]
    by = {c.name: c for c in library.collections()}
    for name, info in by.items():
        assert info.sizes == tuple(sorted({p.N for p in library.collection(name)})), name
        assert info.size == max(info.sizes)
    assert by["benchmarks/small_unique"].sizes == (4, 16)


def _check_one_solution_each(name: str) -> None:
    """Every puzzle has exactly one solution (counted up to 2 by the exact solver) unless the collection's own
    ``solutions`` column records another count, which must then be the true one; a given solution must be it."""
    from sudoku_lab import exact

    bad = []
    puzzles = library.collection(name)
    for n in sorted({p.n for p in puzzles}):
        group = [p for p in puzzles if p.n == n]
        sols, counts = exact.solve_many(np.stack([p.grid.ravel() for p in group]), n, limit=2)
        for p, sol, count in zip(group, sols, counts):
            recorded = int(p.metadata.get("solutions") or 1)
            if recorded != 1:  # documented as not unique: check the record instead
                count = exact.count_solutions(p, limit=recorded + 1)
                if count != recorded:
                    bad.append(f"{p.name}: {count} solutions, the collection says {recorded}")
            elif count != 1:
                bad.append(f"{p.name}: {'no' if count == 0 else 'several'} solutions")
            elif p.solution is not None and not np.array_equal(np.asarray(p.solution).ravel(), sol):
                bad.append(f"{p.name}: the collection's solution is not the exact solver's")
    assert not bad, f"{name}: " + "; ".join(bad[:10])


@pytest.mark.parametrize("name", [c.name for c in library.collections() if c.unique])
def test_puzzles_of_collections_that_claim_uniqueness_have_one_solution(name):
    """All of them, the large ones included: top1465, hardest_11plus and 17_clue take 0.2-2 s each in one
    batched kernel call (about 6 s in all on a loaded two-core machine)."""
    _check_one_solution_each(name)
