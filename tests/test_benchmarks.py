"""Benchmarks: the registry (built-ins and plugins), the exact solver's comparisons, RESEDA's numpy reference.

Times are never asserted: tests check what is measured, how ratios are derived,
that solutions are cross-checked, and that the report says what the help says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab import cli, exact
from sudoku_lab._paths import resource_path
from sudoku_lab.benchmarks import (
    Benchmark,
    BenchmarkOption,
    benchmarks,
    exact as bench_exact_module,
    get_benchmark,
    register_benchmark,
    run_benchmark,
)
from sudoku_lab.benchmarks._timing import ratio_text
from sudoku_lab.benchmarks.exact import bench_exact
from sudoku_lab.benchmarks.reseda import NumpyReseda, bench_reseda
from sudoku_lab.errors import ParameterError
from sudoku_lab.model import library
from sudoku_lab.model.collections import format_collection, load_puzzles
from sudoku_lab.model.puzzle import Puzzle, is_valid_solution
from sudoku_lab.solvers import registry

pytestmark = pytest.mark.usefixtures("warm_kernels")

IN_CI = os.environ.get("CI") == "true"
OURS = {"solve", "batch", "count2", "text"}


def _fiendish(k: int):
    return [(p.name, p.grid) for p in load_puzzles(resource_path("puzzles", "kennett", "fiendish.csv"))[:k]]


def _run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "sudoku_lab", *args], capture_output=True, text=True, env=env, timeout=600
    )


# --------------------------------------------------------------- registry
def test_the_built_in_benchmarks_are_registered_with_their_solver():
    reg = benchmarks()
    assert {"exact", "reseda", "gui"} <= set(reg)
    assert (reg["exact"].solver, reg["reseda"].solver, reg["gui"].solver) == ("exact", "reseda", None)
    assert all(isinstance(b, Benchmark) and b.help for b in reg.values())
    assert get_benchmark("exact") is reg["exact"]
    with pytest.raises(ParameterError, match="unknown benchmark 'nosuch'; choose from " + ", ".join(sorted(reg))):
        get_benchmark("nosuch")


def test_a_duplicate_name_is_refused_and_the_first_kept():
    first = get_benchmark("exact")
    with pytest.raises(
        ValueError,
        match=r"a benchmark named 'exact' is already registered \(by "
        r"sudoku_lab\.benchmarks\.exact\); choose another name",
    ):
        register_benchmark("exact", help="another", run=lambda args, out: 0)
    assert get_benchmark("exact") is first


def test_a_benchmark_needs_a_callable_run():
    with pytest.raises(TypeError, match="needs run=callable"):
        register_benchmark("no-run", help="x")
    with pytest.raises(TypeError, match="run must be a callable, got str"):
        Benchmark("bad", "x", "not callable")
    assert "no-run" not in benchmarks() and "bad" not in benchmarks()


PLUGIN = """
from sudoku_lab.benchmarks import BenchmarkOption, int_range, register_benchmark


def run(args, out):
    for k in range(args.times):
        out(f"plugin benchmark line {k + 1} of {args.times}")
    return 7


register_benchmark("plugin-bench", help="a benchmark defined outside the package", run=run, solver="reseda",
                   options=[BenchmarkOption("--times", type=int_range(1, 9), default=1, help="lines to print")])
"""

DUPLICATE = """
from sudoku_lab.benchmarks import register_benchmark

register_benchmark("exact", help="an impostor", run=lambda args, out: 0)
"""


def _plugin_env(tmp_path: Path, *modules: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    env["SUDOKU_LAB_PLUGINS"] = ",".join(modules)
    return env


def test_a_benchmark_registered_outside_the_package_is_listed_and_runs(tmp_path):
    (tmp_path / "my_bench_plugin.py").write_text(PLUGIN)
    env = _plugin_env(tmp_path, "my_bench_plugin")
    listing = _run("bench", "--help", env=env)
    assert listing.returncode == 0, listing.stderr
    assert "plugin-bench" in listing.stdout and "a benchmark defined outside the package" in listing.stdout
    listed = ", ".join(sorted([*benchmarks(), "plugin-bench"]))  # in name order, among every built-in
    assert listed in " ".join(listing.stdout.split())
    own = _run("bench", "plugin-bench", "--help", env=env)
    assert own.returncode == 0 and "--times" in own.stdout
    done = _run("bench", "plugin-bench", "--times", "2", env=env)
    assert done.returncode == 7, done.stderr
    assert done.stdout.splitlines() == ["plugin benchmark line 1 of 2", "plugin benchmark line 2 of 2"]
    # without the plugin, the sub-command does not exist
    plain = _run("bench", "plugin-bench", env=_plugin_env(tmp_path))
    assert plain.returncode == 2 and "invalid choice: 'plugin-bench'" in plain.stderr


def test_a_plugin_cannot_take_a_built_in_name(tmp_path):
    (tmp_path / "dup_bench_plugin.py").write_text(DUPLICATE)
    (tmp_path / "my_bench_plugin.py").write_text(PLUGIN)
    res = _run("bench", "--help", env=_plugin_env(tmp_path, "dup_bench_plugin", "my_bench_plugin"))
    assert res.returncode == 0
    errors = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(errors) == 1, res.stderr
    assert "plugin 'dup_bench_plugin'" in errors[0] and "failed to load and is skipped" in errors[0]
    assert "a benchmark named 'exact' is already registered (by sudoku_lab.benchmarks.exact)" in errors[0]
    assert "an impostor" not in res.stdout and "exact solver: solve, batch" in res.stdout
    assert "plugin-bench" in res.stdout  # the other plugin still loads


def test_bench_help_lists_every_registered_benchmark(cli):
    res = cli("bench", "--help")
    assert res.returncode == 0
    for name, bench in benchmarks().items():
        assert f"    {name} " in res.stdout or f"    {name}\n" in res.stdout  # a long name gets a line of its own
        assert " ".join(bench.help.split()[:4]) in " ".join(res.stdout.split())


# ------------------------------------------------------------------ exact
def test_bench_exact_reports_valid_solutions_and_ratios_to_exact_solve():
    lines = []
    result = bench_exact(_fiendish(5), out=lines.append, repeat=1, only=("solve", "batch", "count2", "text"))
    assert result["puzzles"] == 5 and result["n"] == 3
    assert result["valid"] is True and result["unsolvable"] == []
    assert set(result["per_second"]) == OURS
    # every row's ratio to exact.solve is derived from the same measurements
    for key in OURS:
        assert result["ratio_to_solve"][key] == pytest.approx(result["per_second"][key] / result["per_second"]["solve"])
    assert result["ratio_to_qqwing"] == {} and result["matches_qqwing"] is None
    assert sorted(result["solve_ms"]) == sorted(name for name, _ in _fiendish(5))
    text = "\n".join(lines)
    assert "best of 1 passes" in text and "/ exact.solve" in text
    for label in (
        "exact.solve, Python loop",
        "exact.solve_many, one kernel call",
        "exact.count_solutions(limit=2), Python loop",
        "text in, text out",
    ):
        assert label in text
    assert "exact.solve per puzzle: median" in text
    assert "5 of 5 puzzles have a unique solution" in text


def test_the_text_path_reads_solves_and_writes_lines():
    pz = library.collection("kennett/fiendish")[:3]
    text = "".join(p.to_line() + "\n" for p in pz)
    out = bench_exact_module._text_path(text, 3).splitlines()
    assert out == [Puzzle(p.solution, n=3).to_line() for p in pz]
    assert bench_exact_module._text_path("12345678" + "." * 27 + "9" + "." * 45 + "\n", 3) == "no solution\n"


def test_bench_exact_on_a_set_without_unique_solutions_gives_per_puzzle_times():
    lines = []
    result = bench_exact(
        resource_path("puzzles", "benchmarks", "lewis_16x16_50.csv"), out=lines.append, repeat=1, only=("solve",)
    )
    assert result["n"] == 4 and result["valid"] is True and set(result["seconds"]) == {"solve"}
    assert len(result["solve_ms"]) == 20 and all(ms > 0 for ms in result["solve_ms"].values())
    assert "qqwing" not in " ".join(lines) and "unique solution" not in " ".join(lines)  # not measured: not claimed
    assert any(ln.startswith("exact solver on 20 16x16 puzzles (") and "lewis_16x16_50.csv" in ln for ln in lines)


def test_bench_exact_rejects_mixed_sizes_and_unknown_measures():
    with pytest.raises(ParameterError, match="same Sudoku size"):
        bench_exact([("a", np.zeros(16, dtype=np.int8)), ("b", np.zeros(81, dtype=np.int8))])
    with pytest.raises(ParameterError, match="only must name some of solve, batch, count2, text, qqwing, got fast"):
        bench_exact(_fiendish(1), only=("solve", "fast"))
    with pytest.raises(ParameterError, match="repeat must be a positive integer"):
        bench_exact(_fiendish(1), repeat=0)


FAKE_QQWING = '''#!{python}
"""A stand-in for qqwing --solve --one-line: answers from a table, after a fixed start-up."""
import json, sys, time
time.sleep(0.05)
table = json.load(open({table!r}))
for line in sys.stdin.read().split():
    print(table[line])
'''


def _fake_qqwing(tmp_path: Path, puzzles, wrong: int | None = None) -> dict:
    """A directory with a fake ``qqwing`` first on PATH, answering each puzzle with its solution."""
    table = {}
    for k, (_, grid) in enumerate(puzzles):
        sol = np.array(exact.solve(grid))
        if k == wrong:  # a different, still valid-looking answer: swap two digits everywhere
            sol = np.where(sol == 1, 2, np.where(sol == 2, 1, sol))
        table[Puzzle(grid, n=3).to_line()] = Puzzle(sol, n=3).to_line()
    (tmp_path / "table.json").write_text(json.dumps(table))
    exe = tmp_path / "bin" / "qqwing"
    exe.parent.mkdir()
    exe.write_text(FAKE_QQWING.format(python=sys.executable, table=str(tmp_path / "table.json")))
    exe.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{exe.parent}{os.pathsep}{env['PATH']}"
    return env


def test_qqwing_start_up_is_measured_and_subtracted(tmp_path, monkeypatch):
    puzzles = _fiendish(8)
    monkeypatch.setenv("PATH", _fake_qqwing(tmp_path, puzzles)["PATH"])
    lines = []
    r = bench_exact(puzzles, out=lines.append, repeat=2)
    assert set(r["seconds"]) >= OURS | {"qqwing"}
    startup = r["qqwing_startup_s"]
    assert startup is not None and startup >= 0.05  # the fake sleeps 50 ms before reading its input
    assert r["matches_qqwing"] is True
    assert set(r["ratio_to_qqwing"]) == OURS
    for key in OURS:
        assert r["ratio_to_qqwing"][key] == pytest.approx(r["per_second"][key] / r["per_second"]["qqwing"])
    if "qqwing_solving" in r["seconds"]:  # the fake's solving time may be lost in its start-up noise
        assert r["seconds"]["qqwing_solving"] == pytest.approx(r["seconds"]["qqwing"] - startup)
        for key in OURS:
            assert r["ratio_to_qqwing_solving"][key] == pytest.approx(
                r["per_second"][key] * r["seconds"]["qqwing_solving"] / len(puzzles)
            )
            assert r["ratio_to_qqwing_solving"][key] < r["ratio_to_qqwing"][key]
    else:
        assert r["ratio_to_qqwing_solving"] == {}
        assert any("within the noise of its start-up" in ln for ln in lines)
    text = "\n".join(lines)
    assert "start-up subtracted" in text and "(like with like)" in text and "whole process" in text
    assert "equal to qqwing's where unique: yes" in text


def test_a_different_answer_from_qqwing_is_reported(tmp_path, monkeypatch):
    puzzles = _fiendish(4)
    monkeypatch.setenv("PATH", _fake_qqwing(tmp_path, puzzles, wrong=2)["PATH"])
    lines = []
    r = bench_exact(puzzles, out=lines.append, repeat=1, only=("text", "qqwing"))
    assert r["matches_qqwing"] is False
    assert "equal to qqwing's where unique: NO" in "\n".join(lines)


@pytest.mark.needs_qqwing
def test_bench_exact_against_the_real_qqwing():
    if not shutil.which("qqwing"):
        if IN_CI:
            pytest.fail("qqwing is not on PATH (CI=true, and .ci/run installs it)")
        pytest.skip("qqwing is not on PATH (Debian: apt-get install qqwing)")
    r = bench_exact(_fiendish(40), out=lambda _: None, repeat=1)
    assert r["matches_qqwing"] is True and r["valid"] is True
    assert set(r["ratio_to_qqwing"]) == OURS and r["qqwing_startup_s"] > 0


def test_bench_exact_command_one_block_per_set(tmp_path, capsys):
    path = tmp_path / "three.csv"
    path.write_text(format_collection(load_puzzles(resource_path("puzzles", "papers.csv"))[:3], "csv"))
    assert (
        cli.main(
            [
                "bench",
                "exact",
                "--set",
                str(path),
                "--set",
                "benchmarks/lewis_16x16_50",
                "--repeat",
                "1",
                "--only",
                "solve,text",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "on 3 9x9 puzzles" in out and "on 20 16x16 puzzles (benchmarks/lewis_16x16_50)" in out
    assert "exact.solve, Python loop" in out and "text in, text out" in out
    assert "solve_many" not in out and "count_solutions" not in out


def test_bench_exact_command_refuses_an_unknown_measure(cli):
    res = cli("bench", "exact", "--only", "solve,fast")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == [
        "sudoku-lab bench exact: error: argument --only: must be a comma-separated list of solve, batch, count2, "
        "text, qqwing, got 'solve,fast' (see sudoku-lab bench exact --help)"
    ]


FAKE_TDOKU = """#!{python}
\"\"\"A stand-in for tdoku's run_benchmark: checks its options, counts the puzzle lines, prints tdoku's CSV line.\"\"\"
import sys
args = sys.argv[1:]
assert args[:8] == ["-s", "tdoku", "-t", "1", "-w", "1", "-c", "1"], args
lines = [ln for ln in open(args[8]).read().split() if ln]
assert len(lines) == {puzzles} and all(len(ln) == 81 for ln in lines), len(lines)
if {fail}:
    print("puzzle failed validation", file=sys.stderr)
    sys.exit(3)
print("GNU,12.2.0, -O3  -march=native," + args[8] + ",tdoku,{rate},15.5,7.9,9.05")
"""


def _fake_tdoku(tmp_path: Path, puzzles: int, rate: float = 50000.0, fail: bool = False) -> Path:
    exe = tmp_path / "run_benchmark"
    exe.write_text(FAKE_TDOKU.format(python=sys.executable, puzzles=puzzles, rate=rate, fail=fail))
    exe.chmod(0o755)
    return exe


def test_bench_exact_measures_tdoku_in_the_same_run_when_given(tmp_path, monkeypatch):
    monkeypatch.delenv("SUDOKU_LAB_TDOKU", raising=False)
    puzzles = _fiendish(6)
    lines = []
    r = bench_exact(
        puzzles, out=lines.append, repeat=2, only=("solve", "batch"), tdoku=_fake_tdoku(tmp_path, 6, rate=12345.5)
    )
    assert r["tdoku_per_second"] == 12345.5
    assert r["tdoku_published"] is None  # six puzzles are not top1465
    assert set(r["ratio_to_tdoku"]) == {"solve", "batch"} and r["ratio_to_tdoku_published"] == {}
    for key in ("solve", "batch"):
        assert r["ratio_to_tdoku"][key] == pytest.approx(r["per_second"][key] / 12345.5)
    assert "tdoku" not in r["seconds"]
    text = "\n".join(lines)
    assert (
        "tdoku (github.com/t-dillon/tdoku), the fastest public solver, on this set: 12,346 puzzles/s measured here"
        in text
    )
    assert "ours / tdoku, puzzles per second (above 1: ours is faster)" in text and "measured here" in text
    row = next(
        ln for ln in lines if ln.startswith("    exact.solve_many, one kernel call") and ln.rstrip().endswith("x")
    )
    assert row.split()[-2:] == ["-", ratio_text(r["ratio_to_tdoku"]["batch"], 1).strip()]
    assert not list(tmp_path.glob("sudoku-lab-tdoku-*"))  # its puzzle file is gone


def test_bench_exact_takes_tdoku_from_the_environment_and_survives_its_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("SUDOKU_LAB_TDOKU", str(_fake_tdoku(tmp_path, 3, fail=True)))
    lines = []
    r = bench_exact(_fiendish(3), out=lines.append, repeat=1, only=("solve",))
    assert r["tdoku_per_second"] is None and r["ratio_to_tdoku"] == {}
    assert r["per_second"]["solve"] > 0
    assert any(ln.startswith("  tdoku failed (") and ln.endswith("not compared") for ln in lines)
    monkeypatch.setenv("SUDOKU_LAB_TDOKU", str(tmp_path / "no-such-program"))
    lines.clear()
    r = bench_exact(_fiendish(2), out=lines.append, repeat=1, only=("solve",))
    assert r["tdoku_per_second"] is None
    assert any("was not found or is not executable: not run" in ln for ln in lines)


def test_bench_exact_runs_tdoku_on_9x9_sets_only(tmp_path):
    puzzles = [(p.name, p.grid) for p in load_puzzles(resource_path("puzzles", "benchmarks", "lewis_16x16_50.csv"))[:2]]
    lines = []
    r = bench_exact(puzzles, out=lines.append, repeat=1, only=("solve",), tdoku=_fake_tdoku(tmp_path, 2))
    assert r["tdoku_per_second"] is None and r["tdoku_published"] is None
    assert "  tdoku solves 9x9 puzzles only: not run" in lines
    assert not any("ours / tdoku" in ln for ln in lines)


def test_bench_exact_on_top1465_shows_tdokus_published_figure(monkeypatch):
    from sudoku_lab.benchmarks.exact import TDOKU_PUBLISHED

    monkeypatch.delenv("SUDOKU_LAB_TDOKU", raising=False)
    puzzles = [(p.name, p.grid) for p in load_puzzles(resource_path("puzzles", "benchmarks", "top1465.csv"))]
    lines = []
    r = bench_exact(puzzles, out=lines.append, repeat=1, only=("batch",), label="benchmarks/top1465")
    assert r["tdoku_published"] == TDOKU_PUBLISHED and TDOKU_PUBLISHED["per_second"] == 140435.4
    assert r["ratio_to_tdoku_published"]["batch"] == pytest.approx(r["per_second"]["batch"] / 140435.4)
    assert r["tdoku_per_second"] is None and r["ratio_to_tdoku"] == {}
    text = "\n".join(lines)
    assert "tdoku published on top1465: 140,435 puzzles/s (7.1 us per puzzle) on another machine:" in text
    assert "Intel Core i7-1065G7" in text and "benchmarks/results_i7-1065G7/best_results.txt" in text
    assert "on this set: not measured here" in text
    row = next(ln for ln in lines if ln.startswith("    exact.solve_many, one kernel call"))
    assert row.split()[-2:] == [ratio_text(r["ratio_to_tdoku_published"]["batch"], 1).strip(), "-"]
    # A part of the set is not what the published figure measured.
    lines.clear()
    r = bench_exact(puzzles[:100], out=lines.append, repeat=1, only=("batch",), label="benchmarks/top1465")
    assert r["tdoku_published"] is None and not any("tdoku" in ln for ln in lines)


def test_bench_exact_command_takes_a_tdoku_program(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SUDOKU_LAB_TDOKU", raising=False)
    path = tmp_path / "three.csv"
    path.write_text(format_collection(load_puzzles(resource_path("puzzles", "papers.csv"))[:3], "csv"))
    exe = _fake_tdoku(tmp_path, 3, rate=99999.0)
    args = ["bench", "exact", "--set", str(path), "--repeat", "1", "--only", "solve", "--tdoku", str(exe)]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "on this set: 99,999 puzzles/s measured here" in out


# ----------------------------------------------------------------- RESEDA
def test_numpy_reseda_samples_keep_the_givens_and_fill_boxes_with_permutations():
    pz = library.puzzle("reseda_fig3_1_easy")
    ref = NumpyReseda(pz, seed=3)
    S = ref._sample()
    assert S.shape == (ref.Q, pz.C)
    given = pz.grid > 0
    assert (S[:, given] == pz.grid[given]).all()
    boxes = pz.geometry.units[2 * pz.N :]
    assert all(sorted(row[box].tolist()) == list(range(1, 10)) for row in S for box in boxes)
    status = "running"
    while status == "running" and ref.steps < 2000:
        status = ref.step()
    assert status in ("solved", "converged") and ref.steps > 1


def test_bench_reseda_prints_the_ratio_its_help_names():
    lines = []
    fiendish = library.collection("kennett/fiendish")[:1]
    r = bench_reseda(attempts=2, numpy_runs=1, out=lines.append, fiendish=fiendish)
    assert r["kernel_over_numpy"] == pytest.approx(r["kernel_same_step_per_second"] / r["numpy_steps_per_second"])
    assert r["kernel_over_numpy"] > 0 and 0 <= r["easy_solved"] <= 2 and len(r["fiendish_times"]) == 1
    text = "\n".join(lines)
    assert "kernel / numpy" in get_benchmark("reseda").help
    ratio_line = next(ln for ln in lines if "kernel / numpy" in ln)
    assert ratio_line.rstrip().endswith(ratio_text(r["kernel_over_numpy"]).strip())  # 5.99x, not 6.0
    # absolute times are labelled as such, as the help says; no pass/fail verdicts against fixed targets
    assert text.count("absolute, this machine") == 2 and "met" not in text.split()


def test_bench_gui_is_the_lab_benchmark_in_a_subprocess(monkeypatch):
    from sudoku_lab.benchmarks import gui

    seen = {}

    class Done:
        returncode = 0
        stdout = "line one\nline two\n"

    def fake_run(cmd, **kw):
        seen["cmd"] = cmd
        return Done()

    monkeypatch.setattr(gui.subprocess, "run", fake_run)
    warmed = []
    monkeypatch.setattr("sudoku_lab.stepping.warmup.warm_up", lambda names, *a, **k: warmed.append(tuple(names)))
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "gui", "--runs", "3", "--rounds", "2"])
    lines = []
    assert get_benchmark("gui").run(args, lines.append) == 0
    assert seen["cmd"][1:] == [
        "-m",
        "sudoku_lab_ui.bench_gui",
        "--runs",
        "3",
        "--rounds",
        "2",
        "--iterations",
        "20000",
        "--algo",
        "reseda",
        "--panes",
        "1,2,4",
    ]
    assert lines == ["line one", "line two"]
    args = parser.parse_args(["bench", "gui", "--algo", "all", "--iterations", "50"])
    assert get_benchmark("gui").run(args, lines.append) == 0
    algos = [seen["cmd"][i + 1] for i, a in enumerate(seen["cmd"]) if a == "--algo"]
    assert algos == [n for n in registry() if n != "exact"], "all: every registered metaheuristic"
    assert not registry()["exact"].stochastic and all(c.stochastic for n, c in registry().items() if n != "exact")
    assert warmed == [("reseda",), tuple(algos)], "the kernels are compiled before the subprocess starts"
    with pytest.raises(ParameterError, match="unknown algorithm 'nosuch'"):
        get_benchmark("gui").run(parser.parse_args(["bench", "gui", "--algo", "nosuch"]), lines.append)


def test_lewis_sets_are_benchmarked_by_the_command_in_the_readme(capsys):
    """The README's Lewis row comes from ``bench exact --only solve`` on the bundled Lewis sets (here the
    16x16 ones, quick): every puzzle gets a valid completion and a per-puzzle time."""
    names = [f"benchmarks/lewis_16x16_{p}" for p in (35, 40, 45, 50)]
    args = ["bench", "exact", "--only", "solve", "--repeat", "1"] + [a for n in names for a in ("--set", n)]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert out.count("exact.solve per puzzle: median") == 4
    assert out.count("solutions valid and keep the givens: yes") == 4


def test_text_path_solutions_are_valid_completions():
    pz = library.collection("benchmarks/lewis_9x9_35")[:3]
    text = "".join(p.to_line() + "\n" for p in pz)
    for p, line in zip(pz, bench_exact_module._text_path(text, 3).splitlines()):
        sol = Puzzle.parse(line).grid
        assert is_valid_solution(sol, 3) and (sol[p.grid > 0] == p.grid[p.grid > 0]).all()


# ------------------------------------------------- kernel against numpy
class FakeClock:
    """A clock that moves only when told: each timed run and each set-up advances it by a scripted amount."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _way(name, clock, log, durations, work, setup=100.0):
    """A fake way: its set-up advances the clock by ``setup`` (never to be timed), its runs by the next duration."""
    times = iter(durations)

    def prepare(seed):
        log.append(f"{name} prepare {seed}")
        clock.now += setup

        def run():
            log.append(f"{name} run {seed}")
            clock.now += next(times)
            return work(seed) if callable(work) else work

        return run

    return prepare


def test_kernel_vs_numpy_interleaves_seed_by_seed_and_takes_the_best_whole_pass():
    from sudoku_lab.benchmarks._kernel_vs_numpy import kernel_vs_numpy

    clock, log, lines = FakeClock(), [], []
    # two seeds, three passes; per-pass kernel sums 6, 5, 7 and numpy sums 40, 50, 30; the fastest single runs
    # (1.0 for the kernel, 10.0 for numpy) lie in other passes, so a per-run best would give other rates
    kernel = _way("kernel", clock, log, [1.0, 5.0, 3.0, 2.0, 4.0, 3.0], 100)
    numpy = _way("numpy", clock, log, [10.0, 30.0, 25.0, 25.0, 15.0, 15.0], 4)
    m = kernel_vs_numpy(
        solver="nosuch",
        title="Toy",
        puzzle="p",
        unit="steps",
        seeds=(3, 4),
        passes=3,
        kernel=kernel,
        numpy=numpy,
        kernel_label="k",
        numpy_label="n",
        out=lines.append,
        clock=clock,
        warm=False,
    )
    one_pass = [
        "kernel prepare 3",
        "kernel run 3",
        "numpy prepare 3",
        "numpy run 3",
        "kernel prepare 4",
        "kernel run 4",
        "numpy prepare 4",
        "numpy run 4",
    ]
    assert log == one_pass * 3
    assert (m.kernel_seconds, m.numpy_seconds) == (5.0, 30.0)  # the set-ups (100 each) are not timed
    assert (m.kernel_work, m.numpy_work) == (200, 8)
    assert m.kernel_rate == pytest.approx(40.0) and m.numpy_rate == pytest.approx(8 / 30)
    assert m.ratio == pytest.approx(150.0) and m.same_work and m.differences == ()
    assert lines == [
        "Toy on p, seeds 3..4, best of 3 interleaved passes, set-up not timed, one process, kernels compiled before "
        "timing",
        "  numba kernel (k): 40 steps/s over 200 steps",
        "  straightforward numpy (n): 0 steps/s over 8 steps",
        "    kernel / numpy, steps per second (above 1: the kernel is faster): 150.0x",
    ]
    assert m.as_dict("steps") == {
        "kernel_steps_per_second": m.kernel_rate,
        "numpy_steps_per_second": m.numpy_rate,
        "kernel_over_numpy": m.ratio,
        "same_work": True,
    }


def test_kernel_vs_numpy_reports_work_that_differs_and_gives_no_ratio():
    from sudoku_lab.benchmarks._kernel_vs_numpy import Done, kernel_vs_numpy

    clock, log, lines = FakeClock(), [], []
    counts = iter([50, 49])  # the kernel does less on the second pass: not deterministic
    kernel = _way("kernel", clock, log, [1.0, 1.0], lambda seed: Done(next(counts), ("k", seed)))
    numpy = _way("numpy", clock, log, [2.0, 2.0], lambda seed: Done(5, ("n", seed)))
    seen = []

    def compare(k, n):
        seen.append((k, n))
        return "costs 3, 2 against 3, 1"

    m = kernel_vs_numpy(
        solver="nosuch",
        title="Toy",
        puzzle="p",
        unit="moves",
        seeds=(7,),
        passes=2,
        kernel=kernel,
        numpy=numpy,
        kernel_label="k",
        numpy_label="n",
        compare=compare,
        out=lines.append,
        clock=clock,
        warm=False,
    )
    assert seen == [(("k", 7), ("n", 7))] * 2  # every pass, with each way's result for the same seed
    assert m.ratio is None and not m.same_work
    assert m.differences == ("seed 7: costs 3, 2 against 3, 1", "the kernel way did 50 moves then 49 on seed 7")
    assert "  WORK DIFFERS: seed 7: costs 3, 2 against 3, 1" in lines
    assert "  WORK DIFFERS: the kernel way did 50 moves then 49 on seed 7" in lines
    assert lines[-1].endswith("faster): - (not given: the two ways did not do the same work)")
    # a plain int result is never compared
    m = kernel_vs_numpy(
        solver="nosuch",
        title="Toy",
        puzzle="p",
        unit="moves",
        seeds=(1,),
        passes=1,
        kernel=_way("k", clock, log, [1.0], 8),
        numpy=_way("n", clock, log, [2.0], 2),
        kernel_label="k",
        numpy_label="n",
        compare=compare,
        out=lambda _: None,
        clock=clock,
        warm=False,
    )
    assert m.same_work and m.ratio == pytest.approx(8.0) and len(seen) == 2


def test_kernel_vs_numpy_refuses_no_pass_or_no_seed():
    from sudoku_lab.benchmarks._kernel_vs_numpy import kernel_vs_numpy

    args = dict(
        solver="x",
        title="t",
        puzzle="p",
        unit="steps",
        kernel=lambda s: lambda: 1,
        numpy=lambda s: lambda: 1,
        kernel_label="k",
        numpy_label="n",
        warm=False,
    )
    with pytest.raises(ValueError, match="passes must be at least 1, got 0"):
        kernel_vs_numpy(seeds=(0,), passes=0, **args)
    with pytest.raises(ValueError, match="seeds must name at least one seed"):
        kernel_vs_numpy(seeds=(), passes=1, **args)


def test_the_ways_run_the_solver_and_the_reference_from_the_seed():
    from sudoku_lab.benchmarks._kernel_vs_numpy import Done, reference_way, solver_way
    from sudoku_lab.benchmarks.nbcoin import NumpyNBCoin
    from sudoku_lab.solvers import create

    pz = library.puzzle("nbcoin_106_difficult")
    for timed in (True, False):
        done = solver_way("nbcoin", pz, 7, {"generations": 50}, setup_timed=timed)(3)()
        ref = create("nbcoin", generations=50)
        ref.reset(pz, 3)
        ref.step(7)
        assert isinstance(done, Done) and done.count == 7 and done.result.iteration == 7
        np.testing.assert_array_equal(done.result.snapshot().grid, ref.snapshot().grid)  # same seed, same run
        got = reference_way(NumpyNBCoin, pz, 4, NumpyNBCoin.generation, "generations", setup_timed=timed)(3)()
        twin = NumpyNBCoin(pz, seed=3)
        for _ in range(4):
            twin.generation()
        assert got.count == 4 and got.result.generations == 4
        np.testing.assert_array_equal(got.result.M, twin.M)
    # a run that ends sooner (advance says so) counts what it did
    stop = reference_way(NumpyNBCoin, pz, 10, lambda r: r.generation() or r.generations == 2, "generations")(0)()
    assert stop.count == 2


# every per-solver benchmark runs on the harness, with its solver, seeds and passes
SMALL = {
    "reseda": dict(attempts=1, puzzles=1, numpy_runs=2, passes=2),
    "hill_climb": dict(moves=20, repeat=2),
    "nbcoin": dict(runs=2, generations=3, passes=2),
    "ga": dict(generations=3, seeds=2, passes=2),
    "ac3_tabu": dict(iterations=12, numpy_iterations=3, repeat=2),
    "cuckoo": dict(iterations=40, repeat=2),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_solver_benchmark_times_on_the_harness(name, monkeypatch):
    import importlib

    from sudoku_lab.benchmarks import _kernel_vs_numpy

    module = importlib.import_module(f"sudoku_lab.benchmarks.{name}")
    calls = []

    def spy(**kw):
        calls.append(kw)
        return _kernel_vs_numpy.kernel_vs_numpy(**kw)

    monkeypatch.setattr(module, "kernel_vs_numpy", spy)
    kwargs = dict(SMALL[name])
    if name == "reseda":
        kwargs["fiendish"] = library.collection("kennett/fiendish")[:1]
    lines = []
    result = getattr(module, f"bench_{name}")(**kwargs, out=lines.append)
    assert len(calls) == 1 and calls[0]["solver"] == get_benchmark(name).solver == name
    assert calls[0]["passes"] == kwargs.get("passes", kwargs.get("repeat"))
    assert result["same_work"] is True and result["kernel_over_numpy"] > 0
    head = next(ln for ln in lines if "interleaved passes" in ln)
    assert f"best of {calls[0]['passes']} interleaved passes" in head
    assert sum("kernel / numpy" in ln for ln in lines) == 1


def test_bench_ac3_tabu_catches_a_reference_that_does_not_make_the_kernels_draws(monkeypatch):
    from sudoku_lab.benchmarks import ac3_tabu

    class OtherDraws(ac3_tabu.NumpyTabu):
        def __init__(self, puzzle, seed=0, **kw):
            super().__init__(puzzle, seed=seed + 1, **kw)

    monkeypatch.setattr(ac3_tabu, "NumpyTabu", OtherDraws)
    lines = []
    r = ac3_tabu.bench_ac3_tabu(iterations=30, numpy_iterations=20, repeat=1, out=lines.append)
    assert r["same_work"] is False and r["kernel_over_numpy"] is None
    assert any(ln.startswith("  WORK DIFFERS: seed 0: the kernel's first costs") for ln in lines)


def test_kernel_benchmark_options_come_from_the_function_and_keep_their_old_names():
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "ac3_tabu", "--repeat", "2"])
    assert (args.repeat, args.iterations, args.numpy_iterations) == (2, 2000, 100)
    assert parser.parse_args(["bench", "hill_climb", "--passes", "4"]).repeat == 4
    args = parser.parse_args(["bench", "reseda", "--numpy-runs", "5"])
    assert (args.numpy_runs, args.passes, args.attempts, args.puzzles) == (5, 3, 200, 50)
    assert parser.parse_args(["bench", "ga", "--puzzle", "mk_hard_a"]).puzzle == "mk_hard_a"
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "nbcoin", "--passes", "0"])


def test_a_kernel_benchmark_exits_1_when_the_work_differs(monkeypatch):
    from sudoku_lab.benchmarks import _REGISTRY
    from sudoku_lab.benchmarks._kernel_vs_numpy import Flag, register_kernel_benchmark

    def bench_toy(runs: int = 4, puzzle: str = "p", out=print) -> dict:
        out(f"toy {runs} {puzzle}")
        return {"same_work": runs != 13}

    register_kernel_benchmark(
        "toy-kvn",
        bench_toy,
        solver="reseda",
        help="toy",
        description="a toy",
        flags=(Flag("--runs", "runs", "runs", 1, 100, aliases=("-r",)), Flag("--puzzle", "puzzle", "a puzzle")),
    )
    try:
        bench = get_benchmark("toy-kvn")
        lines = []
        assert run_benchmark("toy-kvn", lines.append) == 0 and lines == ["toy 4 p"]
        args = cli.build_parser(["bench"]).parse_args(["bench", "toy-kvn", "-r", "13", "--puzzle", "q"])
        assert bench.run(args, lines.append) == 1
        assert lines[-1] == "toy 13 q"
        assert [o.flags for o in bench.options] == [("--runs", "-r"), ("--puzzle",)]
        assert "(default 4)" in bench.options[0].kwargs["help"]
        with pytest.raises(ValueError, match="--seeds names 'seeds', not a parameter of bench_toy"):
            register_kernel_benchmark(
                "toy-kvn2",
                bench_toy,
                solver="reseda",
                help="t",
                description="t",
                flags=(Flag("--seeds", "seeds", "s"),),
            )
    finally:
        _REGISTRY.unregister("toy-kvn")
    assert "toy-kvn" not in benchmarks() and "toy-kvn2" not in benchmarks()


def test_options_are_data_the_command_line_turns_into_arguments(cli):
    """A bad value gets the option type's own message as the usage error; run_benchmark takes the defaults."""
    out = cli("bench", "exact", "--repeat", "0")
    assert out.returncode == 2
    assert "argument --repeat: must be an integer from 1 to 1,000, got 0" in out.stderr
    with pytest.raises(
        ParameterError, match="benchmark 'exact' has no option runs; its options: set, repeat, tdoku, only"
    ):
        run_benchmark("exact", runs=3)
    with pytest.raises(TypeError, match="option flags such as '--runs'"):
        BenchmarkOption("runs", default=3)


def test_a_benchmark_declaring_its_options_on_the_parser_still_works_and_is_told_to_move():
    def add_arguments(parser):
        parser.add_argument("--times", type=int, default=2)

    with pytest.warns(DeprecationWarning, match="add_arguments= is deprecated; declare options="):
        register_benchmark("old-style", help="x", add_arguments=add_arguments, run=lambda args, out: args.times)
    try:
        argv = ["bench", "old-style", "--times", "5"]
        args = cli.build_parser(argv).parse_args(argv)
        assert get_benchmark("old-style").run(args, print) == 5
    finally:
        from sudoku_lab.benchmarks import _REGISTRY

        _REGISTRY.unregister("old-style")


# ------------------------------------------------------------------ bench startup (issue 28, item 1)
@pytest.mark.slow
def test_bench_startup_measures_a_cold_then_a_warm_start_per_item():
    """An item compiles into its own empty cache (kernels compiled, more CPU than the floor), then loads from it."""
    from sudoku_lab.benchmarks.startup import bench_startup

    lines = []
    r = bench_startup(["floor", "ac3"], out=lines.append)
    floor, ac3 = r["rows"]
    assert (floor["item"], floor["compiled"], ac3["item"]) == ("floor", 0, "ac3")
    assert ac3["compiled"] >= 1  # an empty cache: AC3's kernels compiled, not loaded
    assert ac3["cold_cpu"] > ac3["warm_cpu"]  # its warm start loaded them (a compile costs seconds, a load less)
    assert r["total_cold_cpu"] == pytest.approx(ac3["cold_cpu"] - floor["cold_cpu"])
    assert lines[-1] == f"every item's cold bill, each less the floor: {r['total_cold_cpu']:.1f} s of CPU"
    assert [line.split()[0] for line in lines[2:4]] == ["floor", "ac3"]


def test_bench_startup_names_an_unknown_item(capsys):
    assert cli.main(["bench", "startup", "--items", "floor,nosuch"]) == 2
    assert "no startup item 'nosuch'; the items are floor, exact-search, ac3, reseda, " in capsys.readouterr().out


def test_bench_startup_says_which_child_failed(monkeypatch):
    """A child process that fails is an error line naming the item and its stderr, not a traceback."""
    from sudoku_lab.benchmarks import run_benchmark, startup

    monkeypatch.setattr(startup, "_CHILD", "import sys; sys.exit('no kernels here')")
    lines = []
    assert run_benchmark("startup", out=lines.append, items=("ac3",)) == 1
    assert lines[-1] == "sudoku-lab bench startup: error: warming ac3 failed (exit status 1): no kernels here"
