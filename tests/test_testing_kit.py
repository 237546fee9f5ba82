"""The conformance kit (sudoku_lab.testing) catches broken solvers, says what broke, and ships to plugins.

A small, correct pure-Python solver passes every check; five copies of it, each
broken in one way, are each caught by the check concerned, with a message that
names the solver, the check, the example and what broke.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab.errors import ParameterError
from sudoku_lab.model.scoring import missing_symbols
from sudoku_lab.solvers import Layer, Param, Solver, Status, create, registry
from sudoku_lab.solvers.keyframes import Field, anything, integer, require_box_permutations, require_givens
from sudoku_lab.testing import (
    SolverCheck,
    SolverCheckError,
    check_solver,
    invalid_values,
    isolated_registry,
    solver_checks,
)

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_SRC = ROOT / "examples" / "plugin"


class Swaps(Solver):
    """In-box swaps of free cells, kept when the cost does not rise (or with probability exp(-delta/T))."""

    name = "kit-swaps"
    title = "kit test solver"
    params = (
        Param("temperature", "float", 0.5, "Metropolis temperature.", low=0.0, high=5.0),
        Param("tries", "int", 1, "Swaps proposed per iteration.", low=1, high=4),
        Param("ties", "choice", "accept", "Keep a swap of equal cost.", choices=("accept", "reject")),
        Param("greedy", "bool", False, "Ignore the temperature.", live=False),
    )
    examples = (({}, "unique_4x4_a"), ({"tries": 2}, "reseda_fig3_1_easy"))
    example_budget = 3000

    def _reset(self):
        pz = self.puzzle
        N, n = pz.N, pz.n
        grid = pz.grid.copy()
        self.boxes = []
        for b in range(N):
            r0, c0 = (b // n) * n, (b % n) * n
            cells = [(r0 + i) * N + c0 + j for i in range(n) for j in range(n)]
            free = self._free(cells)
            missing = [d for d in range(1, N + 1) if d not in set(grid[cells].tolist())]
            self.rng.shuffle(missing)
            for c, d in zip([c for c in free if pz.grid[c] == 0], missing):
                grid[c] = d
            self.boxes.append(np.array(free, dtype=np.int64))
        self.grid, self.fixed = grid, pz.grid > 0
        self.cost = int(missing_symbols(grid, n))
        self.best_grid, self.best_cost = grid.copy(), self.cost

    def _free(self, cells):
        return [c for c in cells if self.puzzle.grid[c] == 0]

    def _draws(self, n):
        return self.rng.random((n, 4 * self._params["tries"]))

    def _accept(self, after):
        return True

    def _step(self, n):
        before = self.rng.bit_generator.state
        u = self._draws(n)
        done = 0
        rows = []
        for i in range(n):
            for t in range(self._params["tries"]):
                box = self.boxes[int(u[i, 4 * t] * len(self.boxes))]
                if len(box) < 2:
                    continue
                a = int(u[i, 4 * t + 1] * len(box))
                b = (a + 1 + int(u[i, 4 * t + 2] * (len(box) - 1))) % len(box)
                ca, cb = box[a], box[b]
                self.grid[ca], self.grid[cb] = self.grid[cb], self.grid[ca]
                after = int(missing_symbols(self.grid, self.puzzle.n))
                delta = after - self.cost
                keep = (
                    delta < 0
                    or (delta == 0 and self._params["ties"] == "accept")
                    or (
                        not self._params["greedy"]
                        and self._params["temperature"] > 0
                        and u[i, 4 * t + 3] < np.exp(-delta / self._params["temperature"])
                    )
                )
                if keep and self._accept(after):
                    self.cost = after
                else:
                    self.grid[ca], self.grid[cb] = self.grid[cb], self.grid[ca]
            self.iteration += 1
            self.evaluations += self._params["tries"]
            if self.cost < self.best_cost:
                self.best_cost, self.best_grid = self.cost, self.grid.copy()
            rows.append((self.iteration, self.cost, self.best_cost))
            done += 1
            if self.cost == 0:
                self.status = Status.SOLVED
                break
        self.trace.extend(np.array(rows, dtype=float).reshape(-1, 3))
        if done < n:  # keep the stream where step(1) x n leaves it
            self.rng.bit_generator.state = before
            self._draws(done)
        return done

    _ARRAYS = ("grid", "best_grid", "fixed")

    def _state(self):
        return {
            **{k: getattr(self, k).copy() for k in self._ARRAYS},
            "boxes": [b.copy() for b in self.boxes],
            "cost": self.cost,
            "best_cost": self.best_cost,
        }

    # What a keyframe may hold: the grids are read and checked, the boxes and the costs rebuilt (keyframes).
    keyframe = {
        "grid": Field("int8", ("C",), 1, "N"),
        "best_grid": Field("int8", ("C",), 1, "N"),
        "fixed": Field("bool", ("C",), derived=True),
    }
    extra = {"boxes": anything(), "cost": integer(), "best_cost": integer()}

    def _load(self, st):
        self.grid, self.best_grid = st["grid"], st["best_grid"]

    def _derive(self):
        pz = self.puzzle
        self.fixed = pz.grid > 0
        self.boxes = [np.array(self._free(list(cells)), dtype=np.int64) for cells in _boxes(pz)]
        self.cost = int(missing_symbols(self.grid, pz.n))
        self.best_cost = int(missing_symbols(self.best_grid, pz.n))

    def _check_loaded(self):
        for name in ("grid", "best_grid"):
            require_givens(getattr(self, name), self.puzzle, f"state.algorithm.{name}")
            require_box_permutations(getattr(self, name), self.puzzle, f"state.algorithm.{name}")


def _boxes(pz):
    N, n = pz.N, pz.n
    return [[(b // n * n + i) * N + b % n * n + j for i in range(n) for j in range(n)] for b in range(N)]


class TrustsItsKeyframe(Swaps):
    """Declares nothing: a keyframe from a file reaches its state unchecked."""

    name = "kit-trusts-its-keyframe"
    keyframe = {}
    extra = {}

    def _load(self, st):
        for k in self._ARRAYS:
            setattr(self, k, np.array(st[k], copy=True))
        self.boxes = [np.array(b) for b in st["boxes"]]
        self.cost, self.best_cost = st["cost"], st["best_cost"]


class ReadsUncheckedBoxes(Swaps):
    """Reads its box tables from the keyframe unchecked (declared as anything): a crafted box index crashes a step."""

    name = "kit-reads-unchecked-boxes"

    def _derive(self):
        boxes = self.boxes if hasattr(self, "boxes") else None
        super()._derive()
        self.boxes = boxes

    def _load(self, st):
        super()._load(st)
        self.boxes = [np.asarray(b) for b in st["boxes"]]


class StoresASet(Swaps):
    """Keeps the cells it swapped in a set: a keyframe a session cannot store (File > Save session would fail)."""

    name = "kit-stores-a-set"
    extra = {**Swaps.extra, "touched": anything()}

    def _state(self):
        return {**super()._state(), "touched": {int(c) for b in self.boxes for c in b[:1]}}


class NeverSolves(Swaps):
    """Refuses the swap that would solve: runs on forever at cost 2."""

    name = "kit-never-solves"

    def _accept(self, after):
        return after > 0


class ChunkDependent(Swaps):
    """Draws at least 8 rows of numbers per call: a chunk of one wastes draws, so step(1) x n is not step(n)."""

    name = "kit-chunky"

    def _draws(self, n):
        return self.rng.random((max(n, 8), 4 * self._params["tries"]))[:n]


class WriteableSnapshots(Swaps):
    """Hands out its own grid in snapshots instead of a read-only copy."""

    name = "kit-writeable"

    def snapshot(self):
        return dataclasses.replace(super().snapshot(), grid=self.grid)


class MovesAGiven(Swaps):
    """Counts the first given of each box as free, so swaps move it."""

    name = "kit-moves-a-given"

    def _free(self, cells):
        givens = [c for c in cells if self.puzzle.grid[c] > 0]
        return super()._free(cells) + givens[:1]

    def _check_loaded(self):  # consistent with its own mistake: it does not check the givens it moves
        for name in ("grid", "best_grid"):
            require_box_permutations(getattr(self, name), self.puzzle, f"state.algorithm.{name}")


class ForgetsALayer(Swaps):
    """Shows a count of swaps kept in a layer but leaves it out of its keyframes: a seek cannot bring it back."""

    name = "kit-forgets-a-layer"
    layers = (Layer("kept", "swaps kept since the reset", "int"),)

    def _reset(self):
        super()._reset()
        self.kept = 0

    def _accept(self, after):
        self.kept += 1
        return True

    def _layers(self):
        return {"kept": self.kept}

    def _load(self, st):
        super()._load(st)
        self.kept = 0  # not in _state: lost


def test_a_correct_solver_passes_every_check():
    check_solver(Swaps)  # raises SolverCheckError otherwise
    assert len(solver_checks(Swaps)) == 4 + 10 * len(Swaps.examples)


@pytest.mark.parametrize(
    "cls,check,words",
    [
        (
            NeverSolves,
            "solves_its_examples",
            "kit-never-solves: solves_its_examples: solved none of its 2 declared examples within 3000 iterations "
            "(seed 3)",
        ),
        (
            ChunkDependent,
            "chunking_does_not_change_the_run",
            "kit-chunky: chunking_does_not_change_the_run, example 0 ({} on unique_4x4_a): chunking changes the run: "
            "20 x step(1) differs from step(20) (state.rng.state.state: ",
        ),
        (
            WriteableSnapshots,
            "snapshots_are_read_only_and_frozen",
            "kit-writeable: snapshots_are_read_only_and_frozen, example 0 ({} on unique_4x4_a): snapshot grid is "
            "writeable: snapshots hold read-only copies (frozen_copy)",
        ),
        (
            MovesAGiven,
            "givens_never_move",
            "kit-moves-a-given: givens_never_move, example 0 ({} on unique_4x4_a): a given moved in the grid by "
            "iteration 15 (cell ",
        ),
        (
            ForgetsALayer,
            "history_seeks_and_replays_exactly",
            "kit-forgets-a-layer: history_seeks_and_replays_exactly, example 0 ({} on unique_4x4_a): after "
            "History.seek(",
        ),
        (
            TrustsItsKeyframe,
            "mutated_keyframes_are_refused",
            "kit-trusts-its-keyframe: mutated_keyframes_are_refused, example 0 ({} on unique_4x4_a): it declares no "
            "keyframe",
        ),
        (
            ReadsUncheckedBoxes,
            "mutated_keyframes_are_refused",
            "kit-reads-unchecked-boxes: mutated_keyframes_are_refused, example 0 ({} on unique_4x4_a): loading a "
            "keyframe with state.algorithm.boxes as null raised TypeError",
        ),
        (
            StoresASet,
            "mutated_keyframes_are_refused",
            "kit-stores-a-set: mutated_keyframes_are_refused, example 0 ({} on unique_4x4_a): its keyframe holds a "
            "value a session cannot store",
        ),
    ],
    ids=[
        "never-solves",
        "chunking",
        "writeable-snapshots",
        "moves-a-given",
        "forgets-a-layer",
        "trusts-its-keyframe",
        "reads-unchecked-boxes",
        "stores-a-set",
    ],
)
def test_each_broken_solver_is_caught_saying_what_broke(cls, check, words):
    with pytest.raises(SolverCheckError) as info:
        check_solver(cls)
    message = str(info.value)
    assert isinstance(info.value, AssertionError) and "\n" not in message
    assert message.startswith(words), message
    # ... and by that check alone: the breakage is not mistaken for another one
    failing = []
    for c in solver_checks(cls):
        try:
            c(cls)
        except SolverCheckError:
            failing.append(c.name)
    # (a solver moving givens may also end on a grid that is not the solution: that check may fail too; a
    # History relies on chunking invariance and on frozen snapshots, so its check may catch those too)
    expected = {check, "solves_its_examples"} if cls is MovesAGiven else {check}
    if cls in (ChunkDependent, WriteableSnapshots):
        expected.add("history_seeks_and_replays_exactly")
    assert check in failing and set(failing) <= expected, failing


def test_invalid_values_are_generated_from_each_declaration():
    temperature, tries, ties, greedy = Swaps.params
    assert invalid_values(temperature) == [
        ("below the low end", -1.0),
        ("above the high end", 6.0),
        ("of the wrong type", "abc"),
    ]
    assert invalid_values(tries)[:2] == [("below the low end", 0), ("above the high end", 5)]
    assert invalid_values(Param("p", "float", 0.5, "h", low=0.0, high=1.0, low_open=True))[0] == (
        "below the low end",
        0.0,
    )
    assert invalid_values(ties)[0] == ("a choice not offered", "no-such-ties")
    for p in Swaps.params:
        for _what, value in invalid_values(p):
            with pytest.raises(ParameterError, match=rf"^{p.name} must be [^\n]*$"):
                p.validate(value)


def test_a_parameter_accepted_out_of_range_is_caught():
    class Lax(Swaps):
        name = "kit-lax"

        @classmethod
        def validate_params(cls, values):
            return {k: v for k, v in values.items()}  # no checks at all

    with pytest.raises(
        SolverCheckError,
        match=r"^kit-lax: invalid_parameters: the constructor accepted "
        r"temperature=-1.0 \(below the low end\)$",
    ):
        SolverCheck("invalid_parameters")(Lax)


def test_a_crash_is_reported_in_one_line_with_the_solver_and_example():
    class Crashes(Swaps):
        name = "kit-crashes"

        def _layers(self):
            raise KeyError("heat")

    with pytest.raises(
        SolverCheckError,
        match=r"^kit-crashes: snapshots_are_read_only_and_frozen, example 1 "
        r"\(\{'tries': 2\} on reseda_fig3_1_easy\): raised KeyError: 'heat'$",
    ):
        SolverCheck("snapshots_are_read_only_and_frozen", 1)(Crashes)
    with pytest.raises(ParameterError, match="unknown check 'nope'"):
        SolverCheck("nope")


def test_the_registry_fixture_restores_the_registry(solver_registry):
    before = dict(registry())
    solver_registry.register(Swaps)
    assert "kit-swaps" in solver_registry and create("kit-swaps").name == "kit-swaps"
    with isolated_registry() as inner:
        inner.unregister("reseda")
        inner.register(NeverSolves)
        assert "reseda" not in registry() and "kit-never-solves" in registry()
    assert "reseda" in registry() and "kit-never-solves" not in registry() and "kit-swaps" in registry()
    assert {k: v for k, v in registry().items() if k != "kit-swaps"} == before


def test_a_test_of_its_own_registry_leaves_nothing_behind(pytester):
    """Through the pytest11 entry point: a plain test file gets the fixture, and the next test sees nothing."""
    pytester.makepyfile(
        test_inner="""
        from sudoku_lab.solvers import registry
        from test_kit_solvers import Swaps

        def test_registers(solver_registry):
            solver_registry.register(Swaps)
            assert "kit-swaps" in registry()

        def test_after():
            assert "kit-swaps" not in registry()
    """
    )
    pytester.syspathinsert(Path(__file__).parent)
    (pytester.path / "test_kit_solvers.py").write_text(
        "from test_testing_kit import Swaps  # noqa: F401\n", encoding="utf-8"
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "test_inner.py")
    result.assert_outcomes(passed=2)


def test_the_plugin_example_runs_the_kit_with_its_own_test_file(tmp_path):
    """examples/plugin/tests/test_conformance.py, three lines, runs every check on the installed toy plugin."""
    text = (PLUGIN_SRC / "tests" / "test_conformance.py").read_text(encoding="utf-8")
    assert "sudoku_lab.testing" in text and len([line for line in text.splitlines() if line.strip()]) <= 5
    site = tmp_path / "site"
    info = site / "toy_descent-0.1.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: toy-descent\nVersion: 0.1\n")
    info.joinpath("entry_points.txt").write_text("[sudoku_lab.plugins]\ntoy_descent = toy_descent\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SUDOKU_LAB_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(PLUGIN_SRC)])
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA"],
        cwd=PLUGIN_SRC,
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    passed = {line.split("[", 1)[1].rsplit("]", 1)[0] for line in res.stdout.splitlines() if line.startswith("PASSED")}
    from sudoku_lab.testing import CHECKS

    for name, (_, per_example) in CHECKS.items():
        assert (f"toy-descent-{name}[0]" if per_example else f"toy-descent-{name}") in passed, (name, passed)
