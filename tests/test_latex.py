"""The LaTeX the lab writes compiles (issue 27, item 15): grade tables and the report's tabulars, through pdflatex.

Every fragment is put in a minimal document (``\\documentclass{article}``, nothing else: the fragments
promise to need no package), compiled with ``pdflatex -halt-on-error -interaction=nonstopmode`` in a
temporary directory, and the PDF is read back with ``pdftotext``: the names must be there as they were
written (OT1's ``\\_`` is a rule, which pdftotext reads as a space). Marked ``needs_pdflatex``: skipped
without TeX Live, failed under CI (which installs it).
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab.analysis import report
from sudoku_lab.analysis.grades import GradeResult
from sudoku_lab.analysis.latex import comment, escape
from sudoku_lab.engine.experiments import RunResult
from sudoku_lab.model import library

pytestmark = pytest.mark.needs_pdflatex


def compile_latex(where: Path, fragment: str) -> str:
    """Compile ``fragment`` in a document of its own under ``where``; the PDF's text (pdftotext)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "fragment.tex").write_text(fragment, encoding="utf-8")
    (where / "doc.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\input{fragment}\n\\end{document}\n", encoding="utf-8"
    )
    run = subprocess.run(
        ["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", "doc.tex"],
        cwd=where,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=600,
    )
    errors = [line for line in run.stdout.splitlines() if line.startswith("!")]
    assert run.returncode == 0, f"pdflatex failed: {errors or run.stdout[-2000:]}"
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "doc.pdf", "-"], cwd=where, capture_output=True, check=True, timeout=300
    )
    # The lines as pdftotext breaks them, joined; an accent it reads as a combining mark, composed.
    return unicodedata.normalize("NFC", " ".join(text.stdout.decode("utf-8").split()))


def printed(text: str) -> str:
    """``text`` as pdftotext reads it from the PDF: ``_`` (a rule in OT1) as a space, spaces collapsed."""
    return " ".join(text.replace("_", " ").split())


def grades_of(name: str, solved: bool = True) -> GradeResult:
    """A GradeResult of one pretend run on bundled puzzle ``name`` (its table and caption, without solving)."""
    pz = library.puzzle(name)
    run = RunResult("0", "reseda", name, 0, solved, "solved", "solved", 5, 500, 0.01, 0, 0, pz.grid.copy())
    return GradeResult(pz, pz.grid.copy(), "reseda", {}, [0], "solved,100000it", runs=[run])


# ---------------------------------------------------------------- the escaping
HOSTILE = "a_b & 100 % $5 #1 {x} <y> [z] a|b ~ ^ back\\slash x--y"


def test_escaped_text_typesets_as_written(tmp_path):
    unicode = "ρ ≥ β, Müller, Ångström, Zoë, “quoted” – ok…"
    lines = [
        escape(HOSTILE),
        escape(unicode),
        escape("two\n\nparagraphs\tand a tab"),
        escape("\x07bell, zero\u200bwidth, emoji \U0001f600, 中"),
    ]
    text = compile_latex(tmp_path, "\n\n".join(lines) + "\n")
    # OT1 draws ~ and ^ as accents (pdftotext reads U+02DC and U+02C6); everything else is itself.
    assert "a b & 100 % $5 #1 {x} <y> [z] a|b \u02dc \u02c6 back\\slash x--y" in text
    assert "ρ ≥ β, Müller, Ångström, Zoë, “quoted” – ok. . ." in text
    assert "two paragraphs and a tab" in text
    assert "bell, zerowidth, emoji [U+1F600], [U+4E2D]" in text


def test_a_comment_stays_one_line():
    assert comment("results: /data/x\n\\end{document}") == "% results: /data/x \\end{document}"


# ---------------------------------------------------------------- grade tables
def test_the_grades_tex_of_sudoku_lab_grades_compiles(tmp_path, cli):
    """Issue 27, item 15: ``grades --latex`` wrote ``reseda_fig3_2_medium`` unescaped, and pdflatex stopped."""
    out = tmp_path / "g.pdf"
    run = cli(
        "grades", "reseda_fig3_2_medium", "--algo", "hill_climb", "--runs", "3", "--until", "solved,60it",
        "--quiet", "--latex", "--out", out,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    tex = out.with_suffix(".tex").read_text()
    text = compile_latex(tmp_path / "tex", tex)
    summary = run.stdout.splitlines()[0]  # the caption is the summary the command prints
    assert summary.startswith("reseda_fig3_2_medium: hill_climb over 3 runs: ")
    assert f"Table 1: {printed(summary)}" in text
    letters = re.findall(r"\b[AB]\b", text.split("Table 1")[0])
    assert len(letters) == int(np.sum(json_grades(out) != ""))


def json_grades(out: Path) -> np.ndarray:
    import json

    return np.array(json.loads(out.with_suffix(".grades.json").read_text())["grades"])


def test_grade_tables_of_the_papers_puzzles_and_every_box_size_compile(tmp_path):
    """The named puzzles of the papers, and one puzzle of each box size (4x4 to 25x25), each with its caption."""
    names = library.names("papers")
    sizes = {}
    for name in library.names():
        sizes.setdefault(library.puzzle(name).n, name)
    names += [sizes[n] for n in sorted(sizes) if sizes[n] not in names]
    assert sorted(library.puzzle(n).n for n in names[-3:]) == [2, 4, 5] and len(names) > 20
    results = [grades_of(name) for name in names]
    text = compile_latex(tmp_path, "\n".join(r.to_latex(caption=r.summary()) + "\\clearpage" for r in results))
    for k, r in enumerate(results, start=1):
        assert f"Table {k}: {printed(r.summary())}" in text


@pytest.mark.slow
def test_the_grade_table_of_every_bundled_puzzle_compiles(tmp_path):
    """All 7,000 bundled names (about 10 s of pdflatex): each table in one document, its caption read back."""
    names = library.names()
    results = [grades_of(name, solved=k % 2 == 0) for k, name in enumerate(names)]
    pages = []
    for k, r in enumerate(results):
        pages.append(r.to_latex(caption=r.summary()))
        if k % 10 == 9:
            pages.append("\\clearpage")  # at most ten floats wait for a page
    text = compile_latex(tmp_path, "\n".join(pages))
    at = 0
    for k, r in enumerate(results, start=1):  # in order: each caption after the one before
        at = text.find(f"Table {k}: {printed(r.summary())}", at)
        assert at >= 0, r.puzzle.name


# ---------------------------------------------------------------- the report
def test_the_report_in_latex_compiles_with_hostile_names(tmp_path):
    """``sudoku-lab report --format latex``: configuration labels and puzzle sets as a specification may name them."""
    from test_report import results_of

    label_a, label_b = "reseda:alpha=0.5 & 100 %_{x}", "ρ ≥ β [b]"
    runs = [
        (label_a, "set_1 #1", "p_1", True, 10, 1.0),
        (label_a, "set_1 #1", "p_1", False, 100, 5.0),
        (label_b, "set_1 #1", "p_1", True, 30, 3.0),
        (label_b, "set_1 #1", "p_1", True, 20, 2.0),
        (label_a, "~^\\ set", "p_2", True, 10, 1.0),
        (label_b, "~^\\ set", "p_2", False, 100, 5.0),
    ]
    res = results_of(runs)
    res = type(res)(res.table, {}, "/data/a_b\nc%d", ["a note with $ and \\end{document}"])
    rep = report.build_report(res)
    whole = rep.format("latex")
    text = compile_latex(tmp_path / "report", whole)
    for label in (label_a, label_b):
        assert f"{printed(label)} vs" in text or f"vs {printed(label)}" in text
        assert printed(label) in text
    assert "set 1 #1" in text and "\u02dc\u02c6\\ set" in text and "[b]" in text
    assert "Pairwise comparisons" not in text  # the header stays in comment lines
    for table in report.TABLES:
        assert printed(label_a) in compile_latex(tmp_path / table, rep.format("latex", table))
