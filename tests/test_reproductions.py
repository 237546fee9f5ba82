"""The registry of paper reproductions: built-ins, plugins outside the package, refusals, and the reports."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sudoku_lab
from sudoku_lab.errors import ParameterError
from sudoku_lab.reproductions import (
    COMPARISON_HEADER,
    Option,
    Paper,
    Reproduction,
    comparison_cells,
    get_paper,
    get_reproduction,
    papers,
    register_paper,
    register_reproduction,
    reproductions,
    resolve_options,
)
from sudoku_lab.reproductions._core import difference_text, p_text
from sudoku_lab.reproductions.runner import run_experiment

PACKAGE = Path(sudoku_lab.__file__).resolve().parent

RESEDA = ["reseda-table1", "reseda-table2", "reseda-fig4-2", "reseda-table3", "reseda-table4", "reseda-escargot"]


def test_builtin_reproductions_come_from_their_paper_module():
    from sudoku_lab.solvers import registry as solvers

    reg = reproductions()
    assert [n for n in reg if n.startswith("reseda-")] == RESEDA
    for name in RESEDA:
        rep = reg[name]
        assert rep.run.__module__ == "sudoku_lab.reproductions.reseda"
        assert rep.paper == "reseda" and rep.solver in solvers()
    assert "Maire" in get_paper("reseda").citation and "reseda" in papers()
    assert dict(reg["reseda-fig4-2"].options).keys() == {"runs", "out"}
    assert reg["reseda-table4"].options["puzzles"].default == 200


def test_shared_code_knows_no_paper():
    # A new paper adds sudoku_lab/reproductions/<paper>.py only: the CLI and the machinery name none.
    for path in (
        PACKAGE / "cli" / "reproduce.py",
        PACKAGE / "reproductions" / "runner.py",
        PACKAGE / "reproductions" / "_core.py",
    ):
        text = path.read_text(encoding="utf-8").lower()
        assert "reseda" not in text and "escargot" not in text and "kennett" not in text, path


def test_a_duplicate_name_is_refused_and_the_first_one_kept():
    first = get_reproduction("reseda-table1")
    with pytest.raises(
        ValueError,
        match=r"reproduction named 'reseda-table1' is already registered \(by "
        r"sudoku_lab\.reproductions\.reseda\.table1\)",
    ):
        register_reproduction("reseda-table1", paper="reseda", title="again", solver="reseda", run=lambda runner: None)
    with pytest.raises(ValueError, match="paper named 'reseda' is already registered"):
        register_paper(Paper("reseda", "someone else", "somewhere"))
    assert get_reproduction("reseda-table1") is first
    # Registering the very same object again is harmless.
    assert register_reproduction(first) is first


def test_an_experiment_may_declare_its_own_integer_option():
    """nbcoin-table2's --ga-generations: a flag of its own, checked against its range, refused elsewhere."""
    from sudoku_lab import cli
    from sudoku_lab.reproductions import option_names, resolve_options

    assert "ga_generations" in option_names() and option_names()[:4] == ("runs", "puzzles", "solve_runs", "out")
    rep = get_reproduction("nbcoin-table2")
    assert resolve_options(rep, {"ga_generations": 500})["ga_generations"] == 500
    with pytest.raises(ParameterError, match="--ga-generations applies to nbcoin-table2 only"):
        resolve_options(get_reproduction("reseda-table1"), {"ga_generations": 5})
    with pytest.raises(ParameterError, match="--ga-generations of nbcoin-table2 must be an integer from 0"):
        resolve_options(rep, {"ga_generations": -1})
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command").choices["reproduce"]
    flag = next(a for a in sub._actions if a.dest == "ga_generations")
    assert flag.option_strings == ["--ga-generations"] and "generation budget of the GA column" in flag.help


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="option 'Seeds' must be a lower-case identifier"):
        Reproduction("x-1", "x", "t", "reseda", lambda runner: None, {"Seeds": Option(3)})
    with pytest.raises(ValueError, match="option 'jobs' must be a lower-case identifier that is not one of"):
        Reproduction("x-1", "x", "t", "reseda", lambda runner: None, {"jobs": Option(3)})
    with pytest.raises(TypeError, match="options must be a mapping of str to Option, got dict .*; its 'runs' is int 3"):
        Reproduction("x-1", "x", "t", "reseda", lambda runner: None, {"runs": 3})
    with pytest.raises(TypeError, match="solver must be a non-empty string"):
        Reproduction("x-1", "x", "t", "", lambda runner: None)
    with pytest.raises(
        ParameterError, match="unknown reproduction 'reseda-table9'; choose from " + ", ".join(reproductions())
    ):
        get_reproduction("reseda-table9")


def test_options_resolve_to_defaults_and_refuse_what_an_experiment_does_not_take():
    t1, t4 = get_reproduction("reseda-table1"), get_reproduction("reseda-table4")
    assert resolve_options(t1, {"runs": None}) == {"runs": 100}
    assert resolve_options(t4, {"puzzles": 7, "runs": None}) == {"puzzles": 7}
    takers = ", ".join(n for n, r in reproductions().items() if "puzzles" in r.options)
    assert "reseda-table4" in takers
    with pytest.raises(ParameterError, match=f"--puzzles applies to {takers} only, not to reseda-table1"):
        resolve_options(t1, {"puzzles": 5})
    with pytest.raises(ParameterError, match="--runs applies to .*, not to reseda-table4"):
        resolve_options(t4, {"runs": 5})
    with pytest.raises(ParameterError, match="--puzzles of reseda-table4 must be an integer from 1 to 200, got 201"):
        resolve_options(t4, {"puzzles": 201})
    with pytest.raises(ParameterError, match="--out applies to reseda-fig4-2 only"):
        run_experiment("reseda-table2", out=Path("x.png"))


def test_comparison_cells_words_and_formats():
    cells = comparison_cells(3, 100, 36, 100)
    assert cells[:2] == ["[1, 9] %", "[27, 46] %"]
    assert cells[2].startswith("+33.0 [+22.7, +43.0] pp") and cells[3] == "< 0.001" and cells[4] == "**ours higher**"
    assert comparison_cells(98, 100, 100, 100)[2:] == ["+2.0 [-2.0, +7.0] pp", "0.497", "consistent"]
    assert comparison_cells(42, 100, 27, 100)[4] == "**ours lower**"
    assert comparison_cells(42, 100, 0, 0)[1:] == ["n/a"] * 4
    assert difference_text(0.0, -0.01, 0.02) == "0.0 [-1.0, +2.0] pp"
    # Rounding never puts p on the other side of 0.05.
    assert p_text(0.0496) == "0.0496" and p_text(0.0504) == "0.050" and p_text(0.5) == "0.500"


def test_report_with_an_assumed_n_says_so():
    rep = run_experiment("reseda-table2", runs=2, params={"Q": "20", "Q1": "4"})
    text = rep.markdown()
    assert "| alpha | paper | ours | " + " | ".join(COMPARISON_HEADER) + " | paper steps | our steps |" in text
    assert "without the number of runs; n = 100 is assumed" in text
    assert text.count("/2 |") == 6 and "Fisher's exact test" in text and "Paper: Sylvain Maire" in text
    assert re.search(r"\| 0\.99 \| 99/100 \| \d/2 \| \[95, 100\] % \|", text)


def test_figure_4_2_words_the_grade_count_apart_from_the_test():
    text = run_experiment("reseda-fig4-2", runs=2).markdown()
    assert re.search(r"\| cells with the paper's grade \| 81/81 \| \d+/81 \(\d+ %\) \|", text)
    assert "| runs solved | 3/100 | " in text and "| runs solved: Fisher p |  | " in text
    assert re.search(r"\| runs solved: verdict \|  \| (consistent|\*\*ours (higher|lower)\*\*) \|", text)
    assert "agree" not in text and "yes" not in text


def test_no_analysis_module_imports_the_cli():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("cli.py", "__main__.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
                assert not any(
                    n.split(".")[-1] == "cli" or n.endswith(".cli") or n == "sudoku_lab.cli" for n in names
                ), f"{path} imports the cli"
            elif isinstance(node, ast.Import):
                assert not any(a.name == "sudoku_lab.cli" for a in node.names), f"{path} imports the cli"


PLUGIN = textwrap.dedent("""
    from sudoku_lab.model import library
    from sudoku_lab.engine.experiments import Task
    from sudoku_lab.reproductions import (COMPARISON_HEADER, Option, Paper, Report, register_paper,
                                          register_reproduction)

    register_paper(Paper("toy", "A. Author, A toy paper, Journal of Tests 1, 2024", "Table 1 of the toy paper"))


    @register_reproduction("toy-table1", paper="toy", title="toy Table 1: the exact solver on two puzzles",
                           solver="exact", options={"runs": Option(2, "puzzles solved", low=1, high=5)})
    def toy_table1(runner, runs):
        pz = library.puzzle("reseda_fig3_1_easy")
        tasks = [Task("exact", runner.p(), pz, runner.seed + i, "solved,100000it", key=str(i)) for i in range(runs)]
        res = runner.run(tasks, "toy")
        k = sum(r.solved for r in res)
        rep = Report("Toy Table 1 reproduced", ["what", "paper", "ours", *COMPARISON_HEADER])
        rep.rows.append(["solved", "9/10", f"{k}/{len(res)}", *rep.rate_cells(9, 10, k, len(res))])
        return rep
""")

DUPLICATE = textwrap.dedent("""
    from sudoku_lab.reproductions import register_reproduction

    @register_reproduction("reseda-table1", paper="reseda", title="a second Table 1", solver="reseda")
    def mine(runner):
        raise AssertionError("never run")
""")


def _cli(tmp_path, *args):
    env = dict(os.environ, SUDOKU_LAB_PLUGINS="toy_repro,dup_repro", PYTHONPATH=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-m", "sudoku_lab", "reproduce", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )


def test_a_reproduction_from_outside_the_package(tmp_path):
    (tmp_path / "toy_repro.py").write_text(PLUGIN, encoding="utf-8")
    (tmp_path / "dup_repro.py").write_text(DUPLICATE, encoding="utf-8")
    md = tmp_path / "toy.md"
    out = _cli(tmp_path, "toy-table1", "--runs", "2", "--quiet", "--markdown", str(md))
    assert out.returncode == 0, out.stderr
    assert "| solved | 9/10 | 2/2 | [55, 100] % | [16, 100] % |" in out.stdout
    assert (
        "Paper: A. Author, A toy paper, Journal of Tests 1, 2024. Published numbers: Table 1 of the toy paper."
        in out.stdout
    )
    assert md.read_text().startswith("Command: `sudoku-lab reproduce toy-table1 --runs 2 --quiet --markdown")
    # The duplicate plugin is refused in one line and skipped; the built-in Table 1 stays.
    refusal = [line for line in out.stderr.splitlines() if "dup_repro" in line]
    assert len(refusal) == 1 and "reproduction named 'reseda-table1' is already registered" in refusal[0]
    assert "(by sudoku_lab.reproductions.reseda.table1)" in refusal[0]

    helped = _cli(tmp_path, "--help")
    words = " ".join(helped.stdout.split())  # argparse wraps lines
    assert helped.returncode == 0 and "toy-table1 (toy Table 1: the exact solver on two puzzles)" in words
    assert "toy: A. Author, A toy paper" in words and "reseda (reseda-table1," in words and "solvers: " in words
    assert "exact (toy-table1)" in words

    for args, fragment in [
        (["toy-table1", "--param", "alpha=0.5"], "exact has no parameter 'alpha'"),  # checked against its solver
        (
            ["toy-table1", "--out", "x.png"],
            "--out applies to reseda-fig4-2 only (the figure of the grades), not to toy-table1",
        ),
        (["toy-table1", "--runs", "6"], "--runs of toy-table1 must be an integer from 1 to 5, got 6"),
        # every experiment taking --puzzles is listed, in the papers' order (other papers' come after RESEDA's)
        (
            ["reseda-table1", "--puzzles", "3"],
            "--puzzles applies to "
            + ", ".join(n for n, r in reproductions().items() if "puzzles" in r.options)
            + " only, not to reseda-table1",
        ),
    ]:
        bad = _cli(tmp_path, *args)
        assert bad.returncode == 2, (args, bad.stderr)
        lines = [line for line in bad.stderr.splitlines() if "dup_repro" not in line]
        assert len(lines) == 1 and fragment in lines[0], (args, bad.stderr)
        assert bad.stdout == ""


def test_the_built_in_reproductions_are_listed_in_the_papers_order_whichever_module_is_imported_first():
    """The order was the modules' import order: `reproduce --help`, `reproduce all` and every message listing
    experiments started with NB-COIN in the command, and with whichever module a test had imported first in
    pytest."""
    from sudoku_lab.reproductions import PAPER_ORDER

    code = (
        "import sys, importlib; importlib.import_module(sys.argv[1]); from sudoku_lab.reproductions import "
        "papers, reproductions; print(list(papers)); print([r.paper for r in reproductions().values()])"
    )
    for first in ("sudoku_lab.reproductions.nbcoin", "sudoku_lab.reproductions.soto_cuckoo", "sudoku_lab.cli"):
        out = subprocess.run(
            [sys.executable, "-c", code.replace("list(papers)", "list(papers())"), first],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        papers_line, order_line = out.stdout.splitlines()
        assert papers_line == repr(list(PAPER_ORDER)), first
        ranks = [PAPER_ORDER.index(p) for p in eval(order_line)]  # noqa: S307 - our own repr of a list of str
        assert ranks == sorted(ranks) and set(ranks) == set(range(len(PAPER_ORDER))), (first, order_line)
