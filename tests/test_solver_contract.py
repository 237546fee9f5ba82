"""Contracts every registered solver must keep (DESIGN.md, Tests): the shipped kit over the registry.

The checks live in :mod:`sudoku_lab.testing` (so a plugin's tests run the same ones);
here they run on every registered solver, built-in or installed plugin, each
declared example a test of its own. tests/test_testing_kit.py proves the kit
against broken solvers.
"""

from __future__ import annotations

import pytest

from sudoku_lab.solvers import Layer, create, registry
from sudoku_lab.solvers.declare import check_layers
from sudoku_lab.testing import parametrize_with_checks


def test_every_builtin_solver_declares_examples():
    """Built-in solvers name the puzzles and settings that exercise them, in their own module."""
    missing = [
        name for name, cls in registry().items() if cls.__module__.startswith("sudoku_lab.") and not cls.examples
    ]
    assert not missing, f"declare Solver.examples for {missing}"


@parametrize_with_checks(list(registry().values()))
def test_solver_contract(solver, check):
    check(solver)


def test_check_layers_reports_wrong_declarations():
    """The layer check is not vacuous: wrong dtype, shape, missing keys and writeable arrays are all caught."""
    s = create("reseda", restart="full", beta=0.3)
    from sudoku_lab.model import library

    s.reset(library.puzzle("reseda_fig4_1_hard"), seed=7)
    s.step(3)
    snap = s.snapshot()
    wrong = (
        Layer("prob", "", "float32", ("C", "N")),
        Layer("entropy", "", "float64", ("N",)),
        Layer("kept", "", "int8", ("Q", "C")),
        Layer("restarts", "", "records", columns=(("nope", "x"),)),
        Layer("zone", "", "str"),
        Layer("ghost", "", "int"),
    )
    problems = "\n".join(check_layers(wrong, snap))
    for text in (
        "'prob' has dtype float64, declared float32",
        "'entropy' has shape (81,)",
        "'kept' has shape",
        "'zone' should be a str",
        "'ghost' is missing",
        "'rho' is in the snapshot but not",
    ):
        assert text in problems
    s.step(400)  # with beta = 0.3 runs fail fast: records exist, and lack the key
    snap = s.snapshot()
    assert snap.layers["restarts"]
    assert "'restarts' record 0 lacks keys ['nope']" in "\n".join(check_layers(wrong, snap))


def test_the_contract_runs_every_declared_example_of_every_solver():
    """The parametrisation is not silently empty: each solver gets each check, per example where it takes one."""
    mark = parametrize_with_checks(list(registry().values()))
    ids = {p.id for p in mark.args[1]}
    for name, cls in registry().items():
        for i in range(len(cls.examples) or 1):
            assert f"{name}-chunking_does_not_change_the_run[{i}]" in ids
        assert f"{name}-solves_its_examples" in ids and f"{name}-invalid_parameters" in ids
    with pytest.raises(TypeError):
        parametrize_with_checks(["reseda"])
