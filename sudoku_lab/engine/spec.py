"""Experiment specifications: which solvers, with which parameters, on which puzzles, how often, with what budget.

A specification is a TOML file (read with the standard library's ``tomllib``)
or the equivalent command-line flags of ``sudoku-lab batch``::

    name = "kennett-levels"        # optional: shown in reports
    runs = 5                       # runs per configuration and puzzle
    seed = 2026                    # base seed of every run's seed
    until = "solved,10s"           # budget: 500it (iterations), 1e5evals, 10s; the first reached ends a run
    # or: [budget] iterations = 100000, evaluations = 1e7, seconds = 10

    [[puzzles]]
    set = "kennett/easy"           # a bundled collection or puzzle, a file, or a puzzle's text
    sample = 10                    # a seeded sample of 10 (or: first = 10)
    label = "easy"                 # its name in reports (default: the set)

    [[solvers]]
    name = "reseda"
    params = { restart = "partial+full", alpha = [0.5, 0.7] }   # a list: one configuration per value
    # variants = [{ alpha = 0.5, beta = 0.6 }, { alpha = 0.9, beta = 0.8 }]   # explicit combinations

    [[solvers]]
    name = "hill_climb"
    until = "solved,5s"            # this solver's own budget

Lists in ``params`` expand as a product (two lists of 3 values: 9
configurations); each of ``variants`` is crossed with that product. Every
value is checked against the solver's declared parameters before anything
runs; an error names the file, the line, the key and what is wrong.

A sample of ``k`` puzzles is the first ``k`` of one seeded shuffle of the set
(:func:`shuffled`), in that order, so a larger sample holds the smaller one at
its head. An experiment grows without changing what it has run: more
``runs``, a larger ``sample`` or ``first``, another puzzle set only add tasks
(see :meth:`ExperimentSpec.growth`), and ``sudoku-lab batch`` adds just those
to its results directory.

Seeds: with ``seeding = "spawn"`` (the default) run ``r`` on a puzzle gets
the seed drawn from ``numpy.random.SeedSequence(seed, spawn_key=(puzzle,
r))``, where ``puzzle`` is a checksum of the puzzle's givens, so every
configuration sees the same seeds on the same puzzle (paired comparisons), and
adding puzzles or runs never changes the seeds of the others. ``seeding =
"sequential"`` gives run ``r`` the seed ``seed + r`` (what ``grades`` and
``compare`` use). Either way each row records its seed, and ``sudoku-lab solve
--seed S`` replays that run.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import itertools
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from .._checks import checked
from ..errors import DataFileError, ParameterError, PuzzleError, SudokuLabError
from ..model.puzzle import Puzzle
from ..solvers.base import DEFAULT_SEED
from .experiments import Task, config_label

__all__ = [
    "Config",
    "PuzzleSet",
    "ExperimentSpec",
    "SpecError",
    "load_spec",
    "parse_spec",
    "spec_from_options",
    "parse_config",
    "select",
    "shuffled",
    "check_seed",
    "SEEDINGS",
    "MAX_TASKS",
    "MAX_SEED",
    "DEFAULT_UNTIL",
]

SEEDINGS = ("spawn", "sequential")
#: The most runs one specification may ask for.
MAX_TASKS = 10_000_000
#: Budget of a run when the specification gives none: the same seconds for every solver.
DEFAULT_UNTIL = "solved,10s"
_MAX_RUNS = 1_000_000
#: The largest seed: every run's seed is an int64 in a results table.
MAX_SEED = 2**63 - 1


class SpecError(DataFileError, ParameterError):
    """A specification that cannot be run: the message names the file, line, key and what is wrong.

    Both a :class:`DataFileError` (a file that cannot be used) and a
    :class:`ParameterError` (what it asks for cannot be run), so code
    catching either for a flag or a file catches it.

    Attributes
    ----------
    key : str
        Where in the specification (``solvers[2].params.alpha``), or the
        command-line flag; also ``name``.
    """

    def __init__(self, message, *, path=None, line=None, key=None):
        SudokuLabError.__init__(self, message)
        self.path, self.line, self.key, self.name = path, line, key, key


@checked
@dataclass(frozen=True)
class Config:
    """One configuration: a registered solver, the parameters given for it, its label and budget.

    Attributes
    ----------
    solver : str
    params : dict
        The parameters set by the specification (the others take their defaults).
    label : str
        Its name in results and reports (``solver:p=v,...`` unless the
        specification names it).
    until : str or None
        Its own budget (None: the specification's).
    """

    solver: str
    params: dict
    label: str = ""
    until: str | None = None

    def __post_init__(self):
        if not self.label:
            object.__setattr__(self, "label", config_label(self.solver, self.params))

    def full_params(self) -> dict:
        """Every parameter of the solver: the given ones over the declared defaults."""
        from ..solvers import get_solver_class

        return get_solver_class(self.solver).full_params(self.params)


@checked
@dataclass(frozen=True)
class PuzzleSet:
    """Puzzles that belong together in reports (a collection, a level, a file).

    Attributes
    ----------
    label : str
        Its name in results (``puzzle_set``) and reports.
    source : str
        What the specification named (a collection, file, puzzle or text).
    puzzles : tuple of Puzzle
        The set, in order: run ``r`` of its ``k``-th puzzle is the task ``...#k|r<r>``.
    candidates : tuple of Puzzle
        What a larger selection of the same source would hold, in order; ``puzzles``
        is its head (default: ``puzzles`` itself). A larger sample or ``first``
        only adds puzzles at the end, so the runs already done keep their keys.
    legacy : callable, optional
        ``legacy(k)``: the ``k`` puzzles sudoku-lab 0.1.0 sampled instead (its
        samples were not heads of larger ones; None where it took them all),
        to say so when a results directory holds them.
    """

    label: str
    source: str
    puzzles: tuple
    candidates: tuple = field(default=(), repr=False, compare=False)
    legacy: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if not self.candidates:
            object.__setattr__(self, "candidates", tuple(self.puzzles))

    def digest(self) -> str:
        """A hash of the set's puzzles, names and order (recorded in a results directory)."""
        return _digest(self.puzzles)

    def prefix_digest(self, n: int) -> str | None:
        """The digest of the first ``n`` puzzles a selection of ``n`` would hold, or None beyond the source."""
        return _digest(self.candidates[:n]) if n <= len(self.candidates) else None


def _digest(puzzles) -> str:
    h = hashlib.sha256()
    for p in puzzles:
        h.update(f"{p.name or ''}\t{p.to_line()}\n".encode())
    return h.hexdigest()[:16]


@checked
def shuffled(count: int, seed: int, key: str) -> list[int]:
    """A seeded order of ``range(count)``: a sample of ``k`` is its first ``k``, so a larger sample holds it.

    ``key`` (the puzzle set's source) gives each set its own order for the same seed.
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(key.encode()),)))
    return rng.permutation(count).tolist()


@checked
def select(
    label: str,
    source: str,
    puzzles: Sequence[Puzzle],
    *,
    sample: int | None = None,
    first: int | None = None,
    seed: int = 0,
    legacy: Any = None,
) -> PuzzleSet:
    """The puzzle set ``label``: all of ``puzzles``, their first ``first``, or a seeded ``sample``.

    A sample of ``k`` is the first ``k`` of one seeded shuffle of ``puzzles``
    (:func:`shuffled`, keyed by ``source``), in that order: a larger sample
    holds the smaller one at its head, so an experiment whose sample grows
    only adds runs. ``legacy`` is :attr:`PuzzleSet.legacy`.
    """
    puzzles = tuple(puzzles)
    if sample is not None:
        order = tuple(puzzles[j] for j in shuffled(len(puzzles), seed, source))
        return PuzzleSet(label, source, order[:sample], order, legacy)
    if first is not None:
        return PuzzleSet(label, source, puzzles[:first], puzzles)
    return PuzzleSet(label, source, puzzles)


def _legacy_sample(puzzles: Sequence[Puzzle], rng: np.random.Generator, k: int) -> tuple | None:
    """The sample of sudoku-lab 0.1.0 (numpy's ``choice``, sorted): not the head of a larger sample.

    None when ``k`` leaves nothing out (0.1.0 took the whole set, unsampled).
    """
    if k >= len(puzzles):
        return None
    return tuple(puzzles[j] for j in sorted(rng.choice(len(puzzles), size=k, replace=False).tolist()))


@checked
@dataclass(frozen=True)
class ExperimentSpec:
    """A validated experiment: every configuration on every puzzle, ``runs`` times.

    Attributes
    ----------
    configs : tuple of Config
    puzzle_sets : tuple of PuzzleSet
    runs : int
    seed : int
    seeding : str
        ``spawn`` or ``sequential`` (see the module docstring).
    until : str
        Budget of each run (a configuration may have its own).
    name : str
    output : str or None
        Where results go unless the command line says otherwise.
    source : Path or None
        The TOML file it was read from.
    text : str
        That file's text (recorded in the results' provenance).
    """

    configs: tuple
    puzzle_sets: tuple
    runs: int = 1
    seed: int = DEFAULT_SEED
    seeding: str = "spawn"
    until: str = DEFAULT_UNTIL
    name: str = ""
    output: str | None = None
    source: Path | None = None
    text: str = ""
    _seed_cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def total(self) -> int:
        """Runs in the experiment."""
        return self.runs * len(self.configs) * sum(len(s.puzzles) for s in self.puzzle_sets)

    def solvers(self) -> tuple[str, ...]:
        """The solvers it uses, in order of first appearance."""
        return tuple(dict.fromkeys(c.solver for c in self.configs))

    def seed_of(self, puzzle: Puzzle, run: int) -> int:
        """The seed of run ``run`` on ``puzzle`` (the same for every configuration)."""
        if self.seeding == "sequential":
            return self.seed + run
        line = puzzle.to_line()
        key = self._seed_cache.get(line)
        if key is None:
            key = self._seed_cache[line] = zlib.crc32(line.encode())
        ss = np.random.SeedSequence(self.seed, spawn_key=(key, run))
        return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))  # < 2**63: an int64 column

    def tasks(self) -> Iterator[Task]:
        """Every run, run by run: run 0 of every configuration on every puzzle, then run 1, ...

        An interrupted experiment thus has about as many runs of each
        configuration and puzzle, and its partial results are already balanced.
        A task's key names its configuration, puzzle set, place in the set and
        run, so the tasks of a grown experiment (more runs, more puzzles at the
        end of a set, another set) keep their keys.
        """
        for r in range(self.runs):
            for s in self.puzzle_sets:
                for k, pz in enumerate(s.puzzles):
                    seed = self.seed_of(pz, r)
                    for c in self.configs:
                        yield Task(
                            c.solver,
                            c.params,
                            pz,
                            seed,
                            c.until or self.until,
                            key=_task_key(c, s, k, r),
                            config=c.label,
                            puzzle_set=s.label,
                            run=r,
                        )

    def task_keys(self) -> Iterator[str]:
        """The keys of :meth:`tasks`, in the same order, without building the tasks (or their seeds)."""
        for r in range(self.runs):
            for s in self.puzzle_sets:
                for k in range(len(s.puzzles)):
                    for c in self.configs:
                        yield _task_key(c, s, k, r)

    def growth(self):
        """What may differ from a results directory's experiment for it to be this one, grown or read in part:
        ``runs``, and each puzzle set's size when the directory's puzzles are the head of this set's
        (:class:`~sudoku_lab.engine.results.Growth`)."""
        from .results import Growth

        sets = {s.label: s for s in self.puzzle_sets}

        def prefix_digest(label: str, n: int) -> str | None:
            s = sets.get(label)
            return None if s is None else s.prefix_digest(n)

        def hint(label: str, n: int, digest: str) -> str | None:
            s = sets.get(label)
            old = None if s is None or s.legacy is None else s.legacy(n)
            if old is None or _digest(old) != digest:
                return None
            return (
                "its sample was drawn by sudoku-lab 0.1.0, whose samples could not grow; a sample is now the "
                "head of one seeded shuffle. `report` and `grades --from` still read it; new runs need a new "
                "directory"
            )

        return Growth(counts=("runs",), sets="puzzle_sets", prefix_digest=prefix_digest, hint=hint)

    def canonical(self) -> dict:
        """What defines the experiment's runs, as JSON data: a results directory holding another is refused.

        Every parameter is included, defaults too, so a results directory is
        never resumed under other defaults; puzzle sets by count and digest.
        """
        d = {
            "name": self.name,
            "runs": self.runs,
            "seed": self.seed,
            "seeding": self.seeding,
            "until": self.until,
            "configs": [
                {"label": c.label, "solver": c.solver, "params": c.full_params(), "until": c.until}
                for c in self.configs
            ],
            "puzzle_sets": [
                {"label": s.label, "source": s.source, "puzzles": len(s.puzzles), "digest": s.digest()}
                for s in self.puzzle_sets
            ],
        }
        return json.loads(json.dumps(d))

    def describe(self) -> str:
        """A few lines saying what will run (``batch --dry-run``)."""
        lines = [
            f"{self.name or 'experiment'}: {len(self.configs)} configuration(s) x "
            f"{sum(len(s.puzzles) for s in self.puzzle_sets)} puzzle(s) x {self.runs} run(s) = "
            f"{self.total:,} runs; seeds {self.seeding} from {self.seed}; budget {self.until}"
        ]
        for c in self.configs:
            lines.append(f"  configuration {c.label}" + (f" (budget {c.until})" if c.until else ""))
        for s in self.puzzle_sets:
            lines.append(f"  puzzles {s.label}: {len(s.puzzles)} from {s.source}")
        return "\n".join(lines)


def _task_key(c: Config, s: PuzzleSet, k: int, r: int) -> str:
    return f"{c.label}|{s.label}#{k}|r{r}"


# ----------------------------------------------------------- TOML files
_TOP = ("name", "description", "runs", "seed", "seeding", "until", "budget", "puzzles", "solvers", "output")
_PUZZLE_KEYS = ("set", "sample", "first", "label")
_SOLVER_KEYS = ("name", "label", "params", "variants", "until", "budget")
_BUDGET_KEYS = ("iterations", "evaluations", "seconds")


class _Lines:
    """Line numbers of the keys of a TOML text, for error messages (tomllib reports only syntax errors).

    Tracks ``[table]`` and ``[[array]]`` headers (counting array entries) and
    ``key =`` lines, dotted keys included; a key inside an inline table or
    array is located at the line of its nearest enclosing key.
    """

    _HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"\s*([A-Za-z0-9_\-\"]+(?:\s*\.\s*[A-Za-z0-9_\-\"]+)*)\s*=")

    def __init__(self, text: str):
        self.where: dict[tuple, int] = {}
        counts: dict[tuple, int] = {}
        table: tuple = ()
        for lineno, line in enumerate(text.splitlines(), start=1):
            m = self._HEADER.match(line)
            if m and not self._KEY.match(line):
                parts = tuple(p.strip().strip('"') for p in m.group(2).split("."))
                if m.group(1) == "[[":
                    base = self._resolve(parts[:-1]) + (parts[-1],)
                    idx = counts.get(base, 0)
                    counts[base] = idx + 1
                    table = base + (idx,)
                else:
                    table = self._resolve(parts)
                self.where.setdefault(table, lineno)
                continue
            k = self._KEY.match(line)
            if k:
                parts = tuple(p.strip().strip('"') for p in k.group(1).split("."))
                self.where.setdefault(table + parts, lineno)
        self._counts = counts

    def _resolve(self, parts: tuple) -> tuple:
        """``solvers.params`` after ``[[solvers]]`` means the latest solvers entry's params."""
        out: tuple = ()
        for p in parts:
            out = out + (p,)
            if out in getattr(self, "_counts", {}):
                out = out + (self._counts[out] - 1,)
        return out

    def line(self, path: Sequence) -> int | None:
        path = tuple(path)
        while path:
            if path in self.where:
                return self.where[path]
            path = path[:-1]
        return None


def _where(path: Sequence) -> str:
    out = ""
    for p in path:
        out += f"[{p + 1}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


class _Checker:
    """Raises SpecError with the file, line and key of what is wrong."""

    def __init__(self, source: str | None, lines: _Lines | None, flags: dict | None = None):
        self.source = source
        self.lines = lines
        self.flags = flags or {}

    def fail(self, path: Sequence, message: str):
        key = _where(path)
        if self.lines is None:
            flag = self.flags.get(tuple(p for p in path if not isinstance(p, int))[:1], None)
            where = flag or (f"--{key}" if key else "")
            raise SpecError(f"{where}: {message}" if where else message, key=key)
        line = self.lines.line(path)
        at = f"{self.source} line {line}" if line else str(self.source)
        raise SpecError(f"{at}: {key}: {message}" if key else f"{at}: {message}", path=self.source, line=line, key=key)

    def unknown(self, path: Sequence, key: str, allowed: Sequence[str]):
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f"; known keys: {', '.join(allowed)}"
        self.fail(list(path) + [key], f"unknown key {key!r}{hint}")

    def integer(self, path, value, low: int, high: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
            rng = f"an integer >= {low}" if high is None else f"an integer from {low} to {high:,}"
            self.fail(path, f"must be {rng}, got {value!r}")
        return int(value)

    def string(self, path, value) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"must be a non-empty string, got {value!r}")
        return value.strip()


@checked
def load_spec(path: str | os.PathLike[str]) -> ExperimentSpec:
    """Read and validate a TOML specification file.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    SpecError
        A TOML syntax error (its line and column), an unknown key, solver or
        parameter, a value out of range, a missing puzzle file: the message
        names the file, the line and the key.
    DataFileError
        The file cannot be read.
    """
    from ..files import read_text

    path = Path(path)
    text = read_text(path, "experiment specification", max_bytes=16 << 20)
    return parse_spec(text, source=path)


@checked
def parse_spec(text: str, source: str | os.PathLike[str] | None = None) -> ExperimentSpec:
    """Validate a TOML specification's text (``source``: its file, for messages and relative paths)."""
    import tomllib

    where = str(source) if source is not None else "<spec>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        at = f"{where} line {line}, column {m.group(2)}" if m else where
        raise SpecError(f"{at}: not valid TOML: {msg}", path=source, line=line) from None
    except RecursionError:  # tomllib recurses per nested array or inline table: [[[[... is a file's error
        raise SpecError(f"{where}: not valid TOML: arrays or tables nested too deeply", path=source) from None
    chk = _Checker(where, _Lines(text))
    base = Path(source).parent if source is not None else Path.cwd()
    spec = _build(data, chk, base)
    return dataclasses.replace(spec, source=Path(source) if source is not None else None, text=text)


def _budget_text(chk: _Checker, path: list, budget: Any) -> str:
    """The stopping rule of a ``[budget]`` table, each value checked here so a mistake names its own key."""
    from ..stepping.loop import _MAX_COUNT, _MAX_SECONDS

    if not isinstance(budget, dict) or not budget:
        chk.fail(path, "must be a table with iterations, evaluations and/or seconds")
    parts = ["solved"]
    for key, value in budget.items():
        if key not in _BUDGET_KEYS:
            chk.unknown(path, key, _BUDGET_KEYS)
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        if key == "seconds":
            if not number or not 0 < value <= _MAX_SECONDS:  # also refuses nan and inf
                chk.fail(
                    path + [key],
                    f"must be a number of seconds above 0 and at most {_MAX_SECONDS:.0e} (about "
                    f"30 years), got {value!r}",
                )
            # Positional, never 1e-05 or 1e+20: the stopping-rule text must read back as the same number.
            parts.append(np.format_float_positional(float(value), trim="-") + "s")
        else:
            if not number or not 1 <= value <= _MAX_COUNT or float(value) != int(value):
                chk.fail(path + [key], f"must be a whole number from 1 to {_MAX_COUNT:.0e}, got {value!r}")
            parts.append(f"{int(value)}{'it' if key == 'iterations' else 'evals'}")
    return ",".join(parts)


def _until(chk: _Checker, path: list, until: Any, budget: Any) -> str | None:
    from ..stepping.loop import parse_until

    if until is not None and budget is not None:
        chk.fail(path + ["budget"], "give until or budget, not both")
    if budget is not None:
        text = _budget_text(chk, path + ["budget"], budget)
    elif until is not None:
        text = chk.string(path + ["until"], until)
    else:
        return None
    try:
        parse_until(text)
    except ParameterError as e:
        chk.fail(path + (["until"] if budget is None else ["budget"]), str(e))
    return text


def _build(data: dict, chk: _Checker, base: Path) -> ExperimentSpec:
    for key in data:
        if key not in _TOP:
            chk.unknown([], key, _TOP)
    runs = chk.integer(["runs"], data.get("runs", 1), 1, _MAX_RUNS)
    seeding = data.get("seeding", "spawn")
    if seeding not in SEEDINGS:
        chk.fail(["seeding"], f"must be one of {', '.join(SEEDINGS)}, got {seeding!r}")
    seed = _seed(chk, data.get("seed", 0), runs, seeding)
    until = _until(chk, [], data.get("until"), data.get("budget")) or DEFAULT_UNTIL
    name = chk.string(["name"], data["name"]) if "name" in data else ""
    output = chk.string(["output"], data["output"]) if "output" in data else None
    if output is not None and not Path(output).is_absolute():
        output = str(base / output)
    if "description" in data and not isinstance(data["description"], str):
        chk.fail(["description"], "must be a string")
    sets = _puzzle_sets(chk, data.get("puzzles"), seed, base)
    configs = _configs(chk, data.get("solvers"))
    spec = ExperimentSpec(tuple(configs), tuple(sets), runs, seed, seeding, until, name, output)
    if spec.total > MAX_TASKS:
        chk.fail(
            ["runs"],
            f"the experiment has {spec.total:,} runs; at most {MAX_TASKS:,} fit in one results "
            "directory: split it into several specifications",
        )
    return spec


@checked
def check_seed(seed: Any, runs: int, seeding: str = "sequential", flag: str = "--seed") -> int:
    """``seed`` checked as a specification's (every run's seed fits the results' int64 column); SpecError
    naming ``flag`` otherwise."""
    return _seed(_Checker(None, None, {("seed",): flag}), seed, runs, seeding)


def _seed(chk: _Checker, seed: Any, runs: int, seeding: str) -> int:
    """The base seed: every run's seed must fit the results' int64 ``seed`` column."""
    seed = chk.integer(["seed"], seed, 0, MAX_SEED)
    if seeding == "sequential" and seed + runs - 1 > MAX_SEED:
        chk.fail(
            ["seed"],
            f"with sequential seeding run r has the seed {seed:,} + r, and the last, run {runs - 1:,}, "
            f"would pass {MAX_SEED:,} (the largest seed a results table holds): give a seed at most "
            f"{MAX_SEED - runs + 1:,}",
        )
    return seed


def _entries(chk: _Checker, key: str, value: Any, what: str) -> list:
    if value is None:
        chk.fail([key], f"is missing: name at least one {what}")
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list) or not value:
        chk.fail([key], f"must be a list of {what}s (or [[{key}]] tables)")
    return value


def _entry(chk: _Checker, path: list, entry: Any, main: str, allowed: Sequence[str], what: str, needs: str) -> dict:
    """One ``[[puzzles]]`` or ``[[solvers]]`` entry as a table: a bare string is its ``main`` key."""
    if isinstance(entry, str):
        entry = {main: entry}
    if not isinstance(entry, dict):
        chk.fail(path, f"must be a {what} or a table with {main} = ..., got {entry!r}")
    for key in entry:
        if key not in allowed:
            chk.unknown(path, key, allowed)
    if main not in entry:
        chk.fail(path, f"needs {main} = {needs}")
    return entry


def _puzzle_sets(chk: _Checker, value: Any, seed: int, base: Path) -> list[PuzzleSet]:
    out: list[PuzzleSet] = []
    for i, entry in enumerate(_entries(chk, "puzzles", value, "puzzle set")):
        path = ["puzzles", i]
        entry = _entry(
            chk,
            path,
            entry,
            "set",
            _PUZZLE_KEYS,
            "puzzle set name",
            "a bundled collection or puzzle, a file or a puzzle's text",
        )
        source = chk.string(path + ["set"], entry["set"])
        if "sample" in entry and "first" in entry:
            chk.fail(path + ["first"], "give sample or first, not both")
        puzzles = _resolve(chk, path + ["set"], source, base)
        sample = chk.integer(path + ["sample"], entry["sample"], 1) if "sample" in entry else None
        first = chk.integer(path + ["first"], entry["first"], 1) if "first" in entry else None
        label = chk.string(path + ["label"], entry["label"]) if "label" in entry else source
        if any(s.label == label for s in out):
            chk.fail(
                path + (["label"] if "label" in entry else ["set"]),
                f"a puzzle set is already labelled {label!r}; give each a different label",
            )

        def legacy(k, puzzles=puzzles, source=source):
            key = (zlib.crc32(source.encode()),)
            return _legacy_sample(puzzles, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key)), k)

        out.append(select(label, source, puzzles, sample=sample, first=first, seed=seed, legacy=legacy))
    return out


def _resolve(chk: _Checker, path: list, source: str, base: Path) -> list[Puzzle]:
    from ..model.resolve import resolve_puzzles

    arg = source
    candidate = base / source
    if not Path(source).is_absolute() and not Path(source).exists() and candidate.exists():
        arg = str(candidate)  # a file named relative to the specification
    try:
        puzzles = list(resolve_puzzles(arg))
    except (PuzzleError, DataFileError) as e:
        chk.fail(path, str(e))
    if not puzzles:
        chk.fail(path, f"{source} holds no puzzles")
    named = []
    for k, p in enumerate(puzzles):
        if not p.name:
            p = Puzzle(p.grid, n=p.n, name=f"{Path(source).stem if len(puzzles) > 1 else 'puzzle'}_{k + 1}")
        named.append(p)
    return named


def _configs(chk: _Checker, value: Any) -> list[Config]:
    from ..solvers import get_solver_class, registry

    out: list[Config] = []
    seen: dict[str, list] = {}
    for i, entry in enumerate(_entries(chk, "solvers", value, "solver")):
        path = ["solvers", i]
        entry = _entry(chk, path, entry, "name", _SOLVER_KEYS, "solver name", f"one of {', '.join(registry())}")
        name = chk.string(path + ["name"], entry["name"])
        try:
            cls = get_solver_class(name)
        except ParameterError as e:
            chk.fail(path + ["name"], str(e))
        params = entry.get("params", {})
        if not isinstance(params, dict):
            chk.fail(path + ["params"], "must be a table of parameter = value (or a list of values)")
        variants = entry.get("variants", [{}])
        if not isinstance(variants, list) or not variants or not all(isinstance(v, dict) for v in variants):
            chk.fail(path + ["variants"], "must be a list of tables of parameter = value")
        axes = []
        for key, val in params.items():
            values = val if isinstance(val, list) else [val]
            if not values:
                chk.fail(path + ["params", key], "an empty list gives no configuration")
            axes.append([(key, _param_value(chk, path + ["params", key], cls, key, v)) for v in values])
        checked_variants = []
        for j, var in enumerate(variants):
            checked_variants.append(
                {k: _param_value(chk, path + ["variants", j, k], cls, k, v) for k, v in var.items()}
            )
        until = _until(chk, path, entry.get("until"), entry.get("budget"))
        label = chk.string(path + ["label"], entry["label"]) if "label" in entry else None
        combos = [dict(c) for c in itertools.product(*axes)] if axes else [{}]
        for var_i, var in enumerate(checked_variants):
            for combo in combos:
                given = {**combo, **var}
                try:
                    cls.full_params(given)
                except ParameterError as e:
                    where = path + (["variants", var_i] if var else ["params"])
                    chk.fail(where, f"{e} (in the configuration {config_label(name, given)})")
                varied = {
                    k: v
                    for k, v in given.items()
                    if (isinstance(params.get(k), list) and len(params[k]) > 1) or k in var
                }
                if label is None:
                    lab = config_label(name, given)
                elif len(combos) * len(checked_variants) == 1:
                    lab = label
                else:
                    lab = config_label(label, varied)
                if lab in seen:
                    chk.fail(
                        path + (["label"] if label else ["name"]),
                        f"the configuration {lab!r} is already in solvers[{seen[lab][1] + 1}]; give this one "
                        "another label or other parameters",
                    )
                seen[lab] = [path, i]
                out.append(Config(name, given, lab, until))
    return out


def _param_value(chk: _Checker, path: list, cls, key: str, value: Any):
    known = [p.name for p in cls.params]
    retired = cls.retired_params.get(key)  # a removed parameter says why and what to do
    if retired:
        chk.fail(path, retired)
    if key not in known:
        close = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"its parameters are {', '.join(known) or 'none'}"
        chk.fail(path, f"{key!r} is not a parameter of {cls.name} ({hint})")
    if isinstance(value, (list, dict)):
        chk.fail(path, f"must be a single value here, got {value!r}")
    try:
        return cls.param(key).validate(value)
    except SudokuLabError as e:
        chk.fail(path, str(e))


# ----------------------------------------------------------- flags
@checked
def parse_config(text: str) -> list[Config]:
    """Configurations from ``NAME`` or ``NAME:param=value,param=[v1,v2],...`` (a list expands as a product).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    SpecError
        Unknown solver or parameter, a value out of range, a malformed item.
    """
    name, _, rest = text.strip().partition(":")
    params: dict = {}
    for item in _split_items(rest, text):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise SpecError(f"--algo {text!r}: {item!r} should be PARAM=VALUE (or PARAM=[V1,V2])", key="algo")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            params[key] = [v.strip() for v in value[1:-1].split(",") if v.strip()]
        else:
            params[key] = value
    chk = _Checker(None, None, {("solvers",): f"--algo {text!r}"})
    return _configs(chk, [{"name": name.strip(), **({"params": params} if params else {})}])


def _split_items(rest: str, text: str) -> list[str]:
    """Split ``a=1,b=[2,3],c=x`` at the commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise SpecError(f"--algo {text!r}: a ']' without its '['", key="algo")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    if depth:
        raise SpecError(f"--algo {text!r}: a '[' without its ']'", key="algo")
    items.append(cur)
    return [s.strip() for s in items if s.strip()]


@checked
def spec_from_options(
    algos: Sequence[str],
    puzzles: Sequence[str],
    *,
    runs: int = 1,
    seed: int = DEFAULT_SEED,
    seeding: str = "spawn",
    until: str = DEFAULT_UNTIL,
    sample: int | None = None,
    first: int | None = None,
    name: str = "",
) -> ExperimentSpec:
    """The specification the command-line flags of ``batch`` (and ``compare``) describe.

    ``sample`` / ``first`` apply to each puzzle set. Raises SpecError naming the flag.
    """
    from ..stepping.loop import parse_until

    if not algos:
        raise SpecError("name at least one configuration with --algo NAME[:PARAM=VALUE,...]", key="algo")
    if not puzzles:
        raise SpecError(
            "name at least one puzzle set (a bundled collection or puzzle, a file, puzzle text)", key="puzzles"
        )
    if seeding not in SEEDINGS:
        raise SpecError(f"--seeding must be one of {', '.join(SEEDINGS)}, got {seeding!r}", key="seeding")
    parse_until(until)
    configs: list[Config] = []
    for a in algos:
        for c in parse_config(a):
            if any(o.label == c.label for o in configs):
                raise SpecError(f"--algo {a!r}: the configuration {c.label!r} is named twice", key="algo")
            configs.append(c)
    chk = _Checker(None, None, {("puzzles",): "puzzles", ("runs",): "--runs", ("seed",): "--seed"})
    chk.integer(["runs"], runs, 1, _MAX_RUNS)
    _seed(chk, seed, runs, seeding)
    entries = []
    for p in puzzles:
        e: dict = {"set": p}
        if sample is not None:
            e["sample"] = sample
        if first is not None:
            e["first"] = first
        entries.append(e)
    sets = _puzzle_sets(chk, entries, seed, Path.cwd())
    spec = ExperimentSpec(tuple(configs), tuple(sets), runs, seed, seeding, until, name)
    if spec.total > MAX_TASKS:
        raise SpecError(
            f"the experiment has {spec.total:,} runs; at most {MAX_TASKS:,} fit in one results directory", key="runs"
        )
    return spec
