"""The public API checks the kinds of its arguments (issue 17, item 9).

19 of 57 calls with a wrong kind of argument escaped as a raw AttributeError,
TypeError or ValueError from deep inside (``run_spec("spec.toml", "out")``,
``build_report("DIR")``, ``library.puzzle(42)``) and 4 were silently accepted
(``step(1.7)`` did one step, ``step("3")`` three, ``ResultStore(42, {})`` made a
directory named ``42``, ``ResultStore(path, "notadict")`` worked).

The public API is every name in ``__all__`` of a module of ``sudoku_lab`` whose
name has no leading underscore (its functions, and its classes' constructors
and public methods), and what the docs' Python API page (docs/api.md) names. The test
enumerates it, so a new public function without annotations or without checks
fails here; for every parameter it builds a value of the wrong kind from the
annotation, passes valid values for the other required parameters, and expects
the documented error (ParameterTypeError, or PuzzleTypeError for a puzzle) with
one line naming the function and the parameter.
"""

from __future__ import annotations

import collections.abc as cabc
import importlib
import inspect
import io
import os
import pkgutil
import re
import types
import typing
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import sudoku_lab
from sudoku_lab._checks import checked, compile_checks, is_checked
from sudoku_lab.errors import ParameterError, ParameterTypeError, PuzzleTypeError, SudokuLabError

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"


# ------------------------------------------------------------ the public API
def _public_modules() -> list[str]:
    names = ["sudoku_lab"]
    for info in pkgutil.walk_packages(sudoku_lab.__path__, "sudoku_lab."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return names


def _members(owner: type) -> list[tuple[str, object]]:
    """The constructor, ``__call__`` and public methods a class defines itself."""
    constructor = "__new__" if issubclass(owner, tuple) else "__init__"
    out = []
    for name, attr in vars(owner).items():
        if name.startswith("_") and name not in (constructor, "__call__"):
            continue
        func = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
        if inspect.isfunction(func):
            out.append((name, attr))
    return out


def public_api() -> list[tuple[str, object, type | None, str]]:
    """``(qualified name, function, owning class or None, member kind)`` for the whole public API."""
    seen: dict[int, tuple[str, object]] = {}
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("sudoku_lab"):
                continue
            # Exceptions are raised, not called (a check in their constructor would replace the error being
            # reported); a Protocol is never instantiated.
            if inspect.isclass(obj) and (issubclass(obj, BaseException) or getattr(obj, "_is_protocol", False)):
                continue
            seen.setdefault(id(obj), (f"{module_name}.{name}", obj))
    out = []
    for qualname, obj in seen.values():
        if inspect.isfunction(obj):
            out.append((qualname, obj, None, "function"))
            continue
        for name, attr in _members(obj):
            kind = (
                "static"
                if isinstance(attr, staticmethod) or name == "__new__"
                else "class"
                if isinstance(attr, classmethod)
                else "method"
            )
            func = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
            out.append((f"{qualname}.{name}", func, obj, kind))
    return out


API = public_api()


def _params(func, kind: str) -> list[inspect.Parameter]:
    params = list(inspect.signature(func).parameters.values())
    return params[1:] if kind in ("method", "class") or (kind == "static" and func.__name__ == "__new__") else params


def test_the_enumeration_finds_the_api_the_issue_names():
    names = {q for q, *_ in API}
    for expected in (
        "sudoku_lab.engine.batch.run_spec",
        "sudoku_lab.analysis.report.build_report",
        "sudoku_lab.model.library.puzzle",
        "sudoku_lab.solvers.Solver.step",
        "sudoku_lab.engine.results.ResultStore.__init__",
        "sudoku_lab.Puzzle.parse",
        "sudoku_lab.stepping.loop.MaxIterations.__init__",
        "sudoku_lab.citations.Citation.__new__",
        "sudoku_lab.engine.experiments.Workers.__call__",
    ):
        assert expected in names
    assert len(API) > 300


@pytest.mark.parametrize("qualname,func,owner,kind", API, ids=[q for q, *_ in API])
def test_every_public_function_is_annotated_and_checked(qualname, func, owner, kind):
    missing = [p.name for p in _params(func, kind) if p.annotation is inspect.Parameter.empty]
    assert not missing, f"{qualname}: annotate {', '.join(missing)}"
    assert is_checked(func), f"{qualname} is not checked: decorate it (or its class) with sudoku_lab._checks.checked"
    compile_checks(func)  # every annotation resolves to something the checks understand


def _documented_api_names() -> set[str]:
    """The names the Python API page's prose uses (the generated reference after it lists whole modules)."""
    text = API_PAGE.read_text(encoding="utf-8")
    section = text[: text.index("\n## Reference")]
    return set(re.findall(r"\bsudoku_lab(?:\.\w+)+", section))


def test_what_the_api_page_documents_is_in_the_checked_api():
    checked_objects = {id(func) for _, func, _, _ in API}
    owners = {id(owner) for _, _, owner, _ in API if owner is not None}
    names = _documented_api_names()
    assert "sudoku_lab.exact" in names and "sudoku_lab.engine.results.load_results" in names
    for dotted in sorted(names):
        parts = dotted.split(".")
        for k in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                continue
            for attr in parts[k:]:
                obj = getattr(obj, attr)
            break
        if isinstance(obj, types.ModuleType) or (inspect.isclass(obj) and issubclass(obj, BaseException)):
            continue  # a module's reference is generated; an exception is raised, not called (public_api)
        assert id(obj) in checked_objects or id(obj) in owners, f"docs/api.md documents {dotted}, not in any __all__"


# ------------------------------------------------- valid and wrong arguments
def _puzzle():
    from sudoku_lab.model import library

    return library.puzzle("reseda_fig3_1_easy")


def _is_array_like(hint) -> bool:
    """numpy.typing.ArrayLike in ``hint``: a union whose members a union with it takes in (numpy < 2.5), or a
    ``type`` alias that stays one member (numpy >= 2.5)."""
    import numpy.typing as npt

    return any(m is npt.ArrayLike or getattr(m, "__name__", "") == "_SupportsArray" for m in _alternatives(hint))


def _alternatives(hint) -> list:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


def valid(hint):
    """A value of the kind ``hint`` describes (the first alternative of a union)."""
    if hint is typing.Any or hint is object:
        return 0
    if _is_array_like(hint):
        return [0]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return valid(next(m for m in typing.get_args(hint) if m is not type(None)))
    if origin is typing.Literal:
        return typing.get_args(hint)[0]
    simple = {
        int: 1,
        float: 1.0,
        bool: True,
        str: "x",
        bytes: b"x",
        type(None): None,
        bytearray: bytearray(b"x"),
        memoryview: memoryview(b"x"),
        os.PathLike: Path("x"),
        typing.BinaryIO: io.BytesIO(),
    }
    if hint in simple:
        return simple[hint]
    if origin is os.PathLike:
        return Path("x")
    if origin is type:
        return typing.get_args(hint)[0]
    if hint is cabc.Callable or origin is cabc.Callable:
        return lambda *a, **k: None
    if origin is tuple:
        args = typing.get_args(hint)
        return () if len(args) == 2 and args[1] is ... else tuple(valid(a) for a in args)
    empty = {
        list: [],
        tuple: (),
        set: set(),
        frozenset: frozenset(),
        dict: {},
        cabc.Sequence: [],
        cabc.MutableSequence: [],
        cabc.Iterable: [],
        cabc.Iterator: iter(()),
        cabc.Collection: [],
        cabc.Mapping: {},
        cabc.MutableMapping: {},
        cabc.Set: set(),
    }
    if (origin or hint) in empty:
        return empty[origin or hint]
    if getattr(hint, "__name__", None) in ("Puzzle", "PuzzleLike"):
        return _puzzle()
    if hint is np.ndarray or origin is np.ndarray:
        return np.zeros(1)
    if isinstance(hint, type):
        return mock.NonCallableMock(spec=hint)  # isinstance(m, hint) holds
    raise AssertionError(f"no valid value for {hint!r}")


def _without_none(hint) -> tuple:
    return tuple(m for m in _alternatives(hint) if m is not type(None))


def wrong_values(hint) -> list:
    """Values of the wrong kind for ``hint``: ``object()`` (wrong for anything but Any), and the near misses
    a user makes (a float or a numeric string for an int, a bool for a number, a bare string for a list of
    strings, puzzle text for a Puzzle), for the simple annotations they concern."""
    if hint is typing.Any or hint is object or any(m is typing.Any or m is object for m in _alternatives(hint)):
        return []
    out = [object()]
    core = _without_none(hint)
    if core == (int,):
        out += [1.7, "3", True, np.float64(2.0)]
    elif core == (float,):
        out += ["1.0", True]
    elif core == (bool,):
        out += ["yes", 1]
    elif core == (str,):
        out += [42, b"x"]
    elif str in core and os.PathLike in core or any(typing.get_origin(m) is os.PathLike for m in core):
        out += [42]
    elif len(core) == 1 and typing.get_origin(core[0]) in (dict, cabc.Mapping) or core in ((dict,),):
        out += ["notadict", [("a", 1)]]
    elif (
        len(core) == 1
        and typing.get_origin(core[0]) in (cabc.Sequence, cabc.Iterable, list)
        and typing.get_args(core[0]) == (str,)
    ):
        out += ["abc"]
    elif len(core) == 1 and getattr(core[0], "__name__", None) == "Puzzle":
        out += [_puzzle().to_line(), _puzzle().grid]
    return out


def _cases():
    for qualname, func, owner, kind in API:
        if not is_checked(func):
            continue  # test_every_public_function_is_annotated_and_checked names it
        hints = compile_checks(func)
        for p in _params(func, kind):
            if p.kind == p.VAR_KEYWORD and hints.get(p.name) is typing.Any:
                continue
            assert p.name in hints, (qualname, kind, p.name)
            for k, bad in enumerate(wrong_values(hints[p.name])):
                yield pytest.param(qualname, func, owner, kind, p.name, bad, id=f"{qualname}:{p.name}:{k}")


class _Self:
    """Stands for ``self``: the checks run before the body, so the body never sees it."""


def _call(func, owner, kind, params, target, bad):
    args, kwargs = [], {}
    if kind == "method":
        args.append(_Self())
    elif kind == "class" or func.__name__ == "__new__":
        args.append(owner)
    hints = compile_checks(func)
    skipped = False  # once an optional parameter is left out, the rest go by keyword
    for p in params:
        if p.name != target and (p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)):
            skipped = True
            continue
        value = bad if p.name == target else valid(hints[p.name])
        if p.kind == p.VAR_POSITIONAL:
            args.append(value)
        elif p.kind == p.VAR_KEYWORD:
            kwargs["extra_name"] = value
        elif p.kind == p.POSITIONAL_ONLY or (p.kind == p.POSITIONAL_OR_KEYWORD and not skipped):
            args.append(value)
        else:
            kwargs[p.name] = value
    return func(*args, **kwargs)


def _expected_error(func, name, hint):
    puzzle = any(getattr(m, "__name__", None) in ("Puzzle", "PuzzleLike") for m in _alternatives(hint))
    return PuzzleTypeError if puzzle or name in func.__sudoku_lab_checks__.puzzles else ParameterTypeError


@pytest.mark.parametrize("qualname,func,owner,kind,name,bad", list(_cases()))
def test_a_wrong_kind_of_argument_is_refused_in_one_line(qualname, func, owner, kind, name, bad):
    hint = compile_checks(func)[name]
    error = _expected_error(func, name, hint)
    with pytest.raises(error) as info:
        _call(func, owner, kind, _params(func, kind), name, bad)
    message = str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, SudokuLabError)
    assert "\n" not in message
    where = func.__sudoku_lab_checks__.where
    assert message.startswith(f"{where}: ") and f" {name} must be " in message and ", got " in message, message
    if error is ParameterTypeError:
        assert info.value.name == name


# ---------------------------------------------- the issue's concrete cases
@pytest.fixture
def reseda():
    from sudoku_lab.solvers import create

    s = create("reseda")
    s.reset(_puzzle(), seed=1)
    return s


def test_step_refuses_a_float_and_a_string_and_steps_nothing(reseda):
    """step(1.7) did one step and step("3") three."""
    for n in (1.7, "3", True):
        with pytest.raises(ParameterTypeError, match=rf"^Solver.step: n must be an int, got {type(n).__name__} "):
            reseda.step(n)
    assert reseda.iteration == 0
    with pytest.raises(ParameterError, match=r"^Solver.step: n must be a non-negative int, got -1$"):
        reseda.step(-1)
    assert reseda.step(np.int64(2)) == 2  # a numpy integer is an int


def test_result_store_refuses_a_number_for_its_path_and_makes_no_directory(tmp_path, monkeypatch):
    """ResultStore(42, {}) created a directory named 42."""
    from sudoku_lab.engine.results import ResultStore

    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ParameterTypeError,
        match=r"^ResultStore: path must be a path \(str or os.PathLike\), "
        r"got int 42$",
    ):
        ResultStore(42, {})
    assert list(tmp_path.iterdir()) == []


def test_result_store_refuses_a_spec_that_is_not_a_dict(tmp_path):
    """ResultStore(path, "notadict") worked."""
    from sudoku_lab.engine.results import ResultStore

    with pytest.raises(ParameterTypeError, match=r"^ResultStore: spec must be a dict, got str 'notadict'$"):
        ResultStore(tmp_path / "r", "notadict")
    assert not (tmp_path / "r").exists()
    with ResultStore(Path(tmp_path / "ok"), {"x": 1}) as store:  # a PathLike is a path
        assert len(store) == 0


CONCRETE = [
    # The issue's examples: raw errors from deep inside.
    (
        "batch.run_spec",
        lambda: _m("batch").run_spec("spec.toml", "out"),
        ParameterTypeError,
        r"^batch.run_spec: spec must be an ExperimentSpec, got str 'spec.toml'; read one with "
        r"spec.load_spec\(path\)$",
    ),
    (
        "library.puzzle",
        lambda: _m("library").puzzle(42),
        ParameterTypeError,
        r"^library.puzzle: name must be a str, got int 42$",
    ),
    # Found the same way (probing the documented API with wrong kinds): raw errors...
    (
        "Solver.load_state",
        lambda: _solver().load_state(42),
        ParameterTypeError,
        r"^Solver.load_state: state must be a mapping, got int 42$",
    ),
    (
        "Puzzle.with_cell",
        lambda: _puzzle().with_cell("a", 3),
        ParameterTypeError,
        r"^Puzzle.with_cell: cell must be an int, got str 'a'$",
    ),
    (
        "collection_io.load_puzzles",
        lambda: _m("collection_io").load_puzzles(42),
        ParameterTypeError,
        r"^collections.load_puzzles: path must be a path \(str or os.PathLike\), got int 42$",
    ),
    (
        "collection_io.iter_puzzles",
        lambda: _m("collection_io").iter_puzzles(42),
        ParameterTypeError,
        r"^collections.iter_puzzles: source must be a path \(str or os.PathLike\) or a binary file object, "
        r"got int 42$",
    ),
    (
        "collection_io.format_collection",
        lambda: _m("collection_io").format_collection(42),
        ParameterTypeError,
        r"^collections.format_collection: puzzles must be an iterable of Puzzle, got int 42$",
    ),
    (
        "grades.correctness_grades",
        lambda: _m("grades").correctness_grades("p"),
        PuzzleTypeError,
        r"^grades.correctness_grades: puzzle must be a Puzzle, got str 'p'$",
    ),
    (
        "figures.save fig",
        lambda: _m("figures").save(42, "a.pdf"),
        ParameterTypeError,
        r"^figures.save: fig must be a matplotlib.figure.Figure, got int 42$",
    ),
    (
        "figures.save path",
        lambda: _m("figures").save(_m("figures").Figure(), 42),
        ParameterTypeError,
        r"^figures.save: path must be a path \(str or os.PathLike\), got int 42$",
    ),
    (
        "figures.convergence_figure",
        lambda: _m("figures").convergence_figure(42),
        ParameterTypeError,
        r"^figures.convergence_figure: snapshot must be a Snapshot, got int 42$",
    ),
    (
        "warmup.warm_up",
        lambda: _m("warmup").warm_up(42),
        ParameterTypeError,
        r"^warmup.warm_up: names must be an iterable of str or None, got int 42$",
    ),
    (
        "spec.load_spec",
        lambda: _m("spec").load_spec(42),
        ParameterTypeError,
        r"^spec.load_spec: path must be a path \(str or os.PathLike\), got int 42$",
    ),
    (
        "spec.parse_spec",
        lambda: _m("spec").parse_spec(42),
        ParameterTypeError,
        r"^spec.parse_spec: text must be a str, got int 42$",
    ),
    (
        "experiments.run_batch",
        lambda: _m("experiments").run_batch(42),
        ParameterTypeError,
        r"^experiments.run_batch: tasks must be a list of Task, got int 42$",
    ),
    (
        "report.ecdf",
        lambda: _m("report").ecdf(42),
        ParameterTypeError,
        r"^report.ecdf: results must be a path \(str or os.PathLike\), a Results or a pyarrow.Table, got int 42$",
    ),
    (
        "report.compare_pairs",
        lambda: _m("report").compare_pairs(42),
        ParameterTypeError,
        r"^report.compare_pairs: results must be a path \(str or os.PathLike\), a Results or a pyarrow.Table, "
        r"got int 42$",
    ),
    (
        "loop.iterate",
        lambda: next(_m("loop").iterate(_solver(), "3", min_interval="x")),
        ParameterTypeError,
        r"^loop.iterate: min_interval must be a number, got str 'x'$",
    ),
    # ...and silent acceptance.
    (
        "loop.MaxSeconds",
        lambda: _m("loop").MaxSeconds("5"),
        ParameterTypeError,
        r"^MaxSeconds: seconds must be a number, got str '5'$",
    ),
    (
        "loop.MaxIterations",
        lambda: _m("loop").MaxIterations(2.5),
        ParameterTypeError,
        r"^MaxIterations: n must be an int, got float 2.5$",
    ),
    (
        "Puzzle.check",
        lambda: _puzzle().check(unique="yes"),
        ParameterTypeError,
        r"^Puzzle.check: unique must be a bool, got str 'yes'$",
    ),
    (
        "experiments.execute",
        lambda: _m("experiments").execute(42),
        ParameterTypeError,
        r"^experiments.execute: tasks must be an iterable of Task, got int 42$",
    ),
    (
        "results.load_results",
        lambda: _m("results").load_results(42),
        ParameterTypeError,  # read a directory "42"
        r"^results.load_results: path must be a path \(str or os.PathLike\), got int 42$",
    ),
    (
        "warmup.warm_up str",
        lambda: _m("warmup").warm_up("reseda"),
        ParameterTypeError,  # "unknown algorithm 'r'"
        r"^warmup.warm_up: names must be an iterable of str or None, got str 'reseda'$",
    ),
    (
        "spec.spec_from_options",
        lambda: _m("spec").spec_from_options("reseda", ["reseda_fig3_1_easy"]),
        ParameterTypeError,
        r"^spec.spec_from_options: algos must be a sequence of str, got str 'reseda'$",
    ),
]


def _m(name: str):
    return importlib.import_module(f"sudoku_lab.{sudoku_lab.MOVED_MODULES.get(name, name)}")


def _solver():
    from sudoku_lab.solvers import create

    s = create("reseda")
    s.reset(_puzzle(), seed=1)
    return s


@pytest.mark.parametrize("call,error,pattern", [c[1:] for c in CONCRETE], ids=[c[0] for c in CONCRETE])
def test_the_concrete_wrong_calls_give_the_documented_error(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("name", ["build_report", "summarize", "ecdf", "compare_pairs"])
def test_the_report_functions_take_a_results_path_as_grades_from_results_does(name, tmp_path):
    """build_report("DIR") raised AttributeError ('str' object has no attribute 'column')."""
    from sudoku_lab.analysis import report
    from sudoku_lab.errors import DataFileError

    with pytest.raises(DataFileError, match="DIR do not exist"):
        getattr(report, name)(str(tmp_path / "DIR"))


def test_the_report_functions_read_the_results_at_a_path(tmp_path):
    from sudoku_lab.analysis import report
    from sudoku_lab.engine.experiments import Task, run_task
    from sudoku_lab.engine.results import ResultStore, results_from_rows, task_row

    task = Task("exact", {}, _puzzle(), 0, "solved", key="t0", config="exact", puzzle_set="easy")
    with ResultStore(tmp_path / "res", {"x": 1}) as store:
        store.add(task_row(task, run_task(task)))
    from_path = report.build_report(tmp_path / "res")
    from_rows = report.build_report(results_from_rows([task_row(task, run_task(task))]))
    assert (
        [(r.config, r.runs, r.successes) for r in from_path.summary]
        == [(r.config, r.runs, r.successes) for r in from_rows.summary]
        == [("exact", 1, 1)]
    )


def test_a_puzzle_as_text_or_a_grid_where_a_puzzle_is_expected_is_a_puzzle_type_error(reseda):
    for thing in (_puzzle().to_line(), _puzzle().grid):
        with pytest.raises(
            PuzzleTypeError,
            match=r"^Solver.reset: puzzle must be a Puzzle, got .*; read one with "
            r"Puzzle.parse\(text\) or library.puzzle\(name\)$",
        ):
            reseda.reset(thing, seed=0)
    with pytest.raises(PuzzleTypeError, match=r"^Puzzle: grid must be an array-like"):
        _m("puzzle").Puzzle(None)


# ------------------------------------------------------------ the checker
@checked
def _sample(
    n: int,
    x: float = 1.0,
    flag: bool = False,
    path: str | os.PathLike[str] | None = None,
    *,
    names: typing.Sequence[str] = (),
    table: typing.Mapping[str, int] | None = None,
    mode: typing.Literal["a", "b"] = "a",
    puzzle: sudoku_lab.model.puzzle.Puzzle | None = None,
) -> int:
    return n


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n": np.int64(3)},
        {"n": 1, "x": 3},
        {"n": 1, "x": np.float32(0.5)},
        {"n": 1, "flag": np.bool_(True)},
        {"n": 1, "path": Path("a")},
        {"n": 1, "path": "a"},
        {"n": 1, "names": ("a", "b")},
        {"n": 1, "names": ["a"]},
        {"n": 1, "table": {"a": 1}},
        {"n": 1, "mode": "b"},
    ],
)
def test_the_checker_takes_what_the_api_documents(kwargs):
    assert _sample(**kwargs) == kwargs["n"]


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"n": True}, ParameterTypeError, "n must be an int, got bool True"),
        ({"n": 2.0}, ParameterTypeError, "n must be an int, got float 2.0"),
        ({"n": 1, "x": False}, ParameterTypeError, "x must be a number, got bool False"),
        ({"n": 1, "flag": 1}, ParameterTypeError, "flag must be a bool, got int 1"),
        (
            {"n": 1, "path": b"a"},
            ParameterTypeError,
            "path must be a path (str or os.PathLike) or None, got bytes b'a'",
        ),
        ({"n": 1, "names": "ab"}, ParameterTypeError, "names must be a sequence of str, got str 'ab'"),
        (
            {"n": 1, "names": ["a", 3]},
            ParameterTypeError,
            "names must be a sequence of str, got list with int 3 at [1]",
        ),
        (
            {"n": 1, "table": {"a": "1"}},
            ParameterTypeError,
            "table must be a mapping of str to int or None, got dict {'a': '1'}; its 'a' is str '1'",
        ),
        ({"n": 1, "mode": "c"}, ParameterError, "mode must be one of 'a', 'b', got str 'c'"),
        ({"n": 1, "puzzle": "1..."}, PuzzleTypeError, "puzzle must be a Puzzle or None, got str '1...'"),
        ({"n": np.zeros((9, 9))}, ParameterTypeError, "n must be an int, got ndarray of shape (9, 9)"),
    ],
)
def test_the_checker_refuses_with_one_line(kwargs, error, message):
    with pytest.raises(error) as info:
        _sample(**kwargs)
    assert str(info.value) == f"test_api_types._sample: {message}"
    assert type(info.value) is error  # a wrong value of the right kind (mode="c") is not a TypeError


def test_a_checked_function_keeps_its_signature_and_docstring():
    from sudoku_lab.solvers import Solver

    assert str(inspect.signature(Solver.step)) == "(self, n: 'int' = 1) -> 'int'"
    assert Solver.step.__doc__.startswith("Advance up to ``n`` iterations")
    assert Solver.step.__name__ == "step" and Solver.step.__qualname__ == "Solver.step"


def test_array_like_as_a_type_alias_is_checked(monkeypatch):
    """numpy 2.5 (Python >= 3.12) made numpy.typing.ArrayLike a ``type`` alias, which no union flattens:
    the checker knew only the old union and every function taking ArrayLike failed at its first call."""
    import numpy.typing as npt
    from typing_extensions import TypeAliasType  # pytest-qt, a test extra, requires it

    from sudoku_lab import _checks

    alias = TypeAliasType("ArrayLike", npt.ArrayLike)
    monkeypatch.setattr(npt, "ArrayLike", alias)
    for hint in (alias, alias | None, int | alias):
        accepts = _checks._predicate(hint)
        assert accepts([1, 2]) and accepts(np.zeros(3)) and not accepts(object()), hint
    assert _checks._predicate(alias | None)(None) and not _checks._predicate(alias)(None)
