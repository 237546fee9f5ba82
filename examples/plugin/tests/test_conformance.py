from sudoku_lab.testing import parametrize_with_checks

from toy_descent import ToyDescent


@parametrize_with_checks([ToyDescent])
def test_toy_descent(solver, check):
    check(solver)
