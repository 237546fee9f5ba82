"""The puzzle generator: unique solution, exact clue count, reproducible, symmetric, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_lab import exact
from sudoku_lab.errors import ParameterError
from sudoku_lab.exact.generate import generate, generate_grid, random_grid
from sudoku_lab.model.puzzle import Puzzle, is_valid_solution

# Comfortably above the greedy pass's floor for each size (see the module docstring).
CLUES = {2: 6, 3: 28, 4: 120, 5: 375}


@pytest.mark.parametrize("n", sorted(CLUES))
def test_generated_puzzles_are_unique_with_the_requested_clues(n):
    for seed in (1, 2):
        puzzle, solution = generate_grid(n, CLUES[n], seed)
        assert puzzle.dtype == np.int8 and puzzle.shape == (n**4,)
        assert np.count_nonzero(puzzle) == CLUES[n]
        assert exact.count_solutions(puzzle, limit=2) == 1
        assert is_valid_solution(solution, n)
        assert np.array_equal(puzzle[puzzle > 0], solution[puzzle > 0])
        assert np.array_equal(exact.solve(puzzle), solution)


@pytest.mark.parametrize("n", sorted(CLUES))
def test_same_seed_same_puzzle_other_seed_other_puzzle(n):
    a, sa = generate_grid(n, CLUES[n], 11)
    b, sb = generate_grid(n, CLUES[n], 11)
    c, _ = generate_grid(n, CLUES[n], 12)
    assert np.array_equal(a, b) and np.array_equal(sa, sb)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("n", sorted(CLUES))
def test_rotate180_keeps_the_clue_pattern_symmetric(n):
    clues = CLUES[n] + (CLUES[n] % 2 if n % 2 == 0 else 1)
    puzzle, _ = generate_grid(n, clues, 5, symmetry="rotate180")
    assert np.count_nonzero(puzzle) == clues
    assert np.array_equal(puzzle > 0, (puzzle > 0)[::-1])
    assert exact.is_unique(puzzle)


def test_random_grid_is_valid_and_reproducible():
    for n in (2, 3, 4, 5):
        grid = random_grid(n, 3)
        assert is_valid_solution(grid, n)
        assert np.array_equal(grid, random_grid(n, 3))
        assert not np.array_equal(grid, random_grid(n, 4))


def test_a_generator_can_be_passed_as_the_seed():
    a, _ = generate_grid(3, 30, np.random.default_rng(9))
    b, _ = generate_grid(3, 30, np.random.default_rng(9))
    assert np.array_equal(a, b)


def test_generate_returns_a_named_puzzle_that_regenerates_from_its_name():
    p = generate(3, 30, seed=4)
    assert isinstance(p, Puzzle)
    assert p.name == "generated_n3_c30_s4"
    assert np.array_equal(p.grid, generate_grid(3, 30, 4)[0])
    fresh = generate(2, 6)
    seed = int(fresh.name.rsplit("_s", 1)[1])
    assert np.array_equal(fresh.grid, generate(2, 6, seed=seed).grid)
    assert generate(2, 6, seed=np.random.default_rng(1)).name == "generated_n2_c6"


def test_all_clues_is_the_solution_itself():
    puzzle, solution = generate_grid(2, 16, 0)
    assert np.array_equal(puzzle, solution)


def test_too_few_clues_names_the_fewest_reached():
    with pytest.raises(ParameterError, match=r"fewest reached was (\d+)") as info:
        generate_grid(2, 3, 0, max_tries=2)
    assert info.value.name == "clues"
    fewest = int(str(info.value).split("fewest reached was ")[1].split(";")[0])
    assert 4 <= fewest <= 16


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fewer_than_n_minus_1_clues_is_refused_at_once(n):
    """Two digits absent from the givens could be swapped: no unique solution below N - 1 givens."""
    N = n * n
    with pytest.raises(ParameterError, match=f"needs at least {N - 1} givens") as info:
        generate_grid(n, N - 2, 0)
    assert info.value.name == "clues"


def test_a_time_limit_bounds_an_unreachable_target_and_reports_progress():
    """25x25 at 250 clues ran silently for 15 minutes: now it reports, and stops at its limit."""
    seen = []
    with pytest.raises(ParameterError, match=r"within 2 s \(1 try\): the fewest givens reached was (\d+)") as info:
        generate_grid(5, 250, 0, time_limit=2.0, progress=lambda *a: seen.append(a))
    # "(1 try)": the limit ended the first greedy pass; without one, all 20 passes would run (minutes each)
    fewest = int(str(info.value).split("reached was ")[1].split(";")[0])
    assert 250 < fewest < 625
    assert seen and all(t == 1 and mx == 20 and target == 250 for t, mx, _, target, _ in seen)
    givens = [g for _, _, g, _, _ in seen]
    assert givens == sorted(givens, reverse=True) and givens[-1] >= fewest


def test_should_stop_interrupts_generation():
    from sudoku_lab.exact.generate import GenerationStopped

    calls = []
    with pytest.raises(GenerationStopped, match="stopped during try 1 of 20"):
        generate_grid(5, 250, 0, should_stop=lambda: len(calls) > 3 or calls.append(1))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n=6, clues=10), "n"),
        (dict(n=3, clues=82), "clues"),
        (dict(n=3, clues=-1), "clues"),
        (dict(n=3, clues=30.0), "clues"),
        (dict(n=2, clues=7, symmetry="rotate180"), "clues"),
        (dict(n=3, clues=30, symmetry="mirror"), "symmetry"),
        (dict(n=3, clues=30, max_tries=0), "max_tries"),
        (dict(n=3, clues=30, seed=-5), "seed"),
        (dict(n=3, clues=30, seed="abc"), "seed"),
    ],
)
def test_bad_arguments_raise_parameter_errors(kwargs, name):
    with pytest.raises(ParameterError) as info:
        generate_grid(**kwargs)
    assert info.value.name == name


@pytest.mark.parametrize("count", [1, 3])
def test_generate_as_csv_reads_back_as_every_generated_puzzle(count, capsys):
    from sudoku_lab import cli
    from sudoku_lab.model.collections import parse_collection

    assert (
        cli.main(
            [
                "generate",
                "--box",
                "2",
                "--clues",
                "6",
                "--seed",
                "5",
                "--count",
                str(count),
                "--format",
                "csv",
                "--quiet",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("name,puzzle,solution\n") and out.endswith("\n")
    back = list(parse_collection(out))
    made = [generate(2, 6, seed=5 + k) for k in range(count)]
    assert [p.name for p in back] == [p.name for p in made]
    assert [p.to_line() for p in back] == [p.to_line() for p in made]
