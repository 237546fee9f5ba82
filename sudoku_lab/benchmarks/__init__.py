"""Benchmarks: a registry of speed comparisons, one or more per solver, run by ``sudoku-lab bench``.

A benchmark times several ways of doing the same work side by side in one
process and prints their ratios (see :mod:`sudoku_lab.benchmarks._timing`);
a solver's kernel against its numpy reference is timed by one harness,
:mod:`sudoku_lab.benchmarks._kernel_vs_numpy`.
The built-in ones are the public modules of this package (``exact``,
``reseda``, ``gui``); a solver's author adds one the same way from anywhere,
through :func:`register_benchmark`, and it becomes ``sudoku-lab bench NAME``::

    from sudoku_lab.benchmarks import BenchmarkOption, register_benchmark

    def run(args, out):
        out(f"my solver: {args.runs} runs ...")
        return 0

    register_benchmark("my-solver", help="my solver next to RESEDA, in steps/s",
                       options=[BenchmarkOption("--runs", type=int, default=10, help="runs (default 10)")],
                       run=run, solver="my-solver")

Options are declared as data (:class:`BenchmarkOption`, the arguments of argparse's
``add_argument``), so only the command line (:mod:`sudoku_lab.cli`) builds
parsers; :func:`run_benchmark` runs one from Python with the options' defaults.

Modules outside the package are found as plugins (the entry-point group
``sudoku_lab.plugins`` or ``$SUDOKU_LAB_PLUGINS``, see :mod:`sudoku_lab.plugins`).
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._checks import checked, int_range
from ..errors import ParameterError
from ..plugins import Registry

__all__ = [
    "Benchmark",
    "BenchmarkOption",
    "int_range",
    "register_benchmark",
    "benchmarks",
    "get_benchmark",
    "run_benchmark",
]


@checked
@dataclass(frozen=True, init=False)
class BenchmarkOption:
    """One option of a benchmark's sub-command: the arguments of argparse's ``add_argument``, as data.

    ``BenchmarkOption("--runs", type=int_range(1, 1000), default=10, help="...")``. A ``type``
    that raises ``ValueError`` gives its message as the usage error, word for word
    (:func:`sudoku_lab._checks.int_range` is one).

    Attributes
    ----------
    flags : tuple of str
        ``("--runs",)`` or ``("--set", "-s")``.
    kwargs : dict
        ``type``, ``default``, ``help``, ``action``, ``metavar``, ``dest``, ``choices``.
    """

    flags: tuple[str, ...]
    kwargs: Mapping[str, Any]

    def __init__(self, *flags: str, **kwargs: Any):
        if not flags or not all(isinstance(f, str) and f.startswith("-") for f in flags):
            raise TypeError(f"an BenchmarkOption needs option flags such as '--runs', got {flags!r}")
        object.__setattr__(self, "flags", tuple(flags))
        object.__setattr__(self, "kwargs", types.MappingProxyType(dict(kwargs)))

    @property
    def dest(self) -> str:
        """The attribute name its value gets (``--no-dask`` -> ``no_dask``)."""
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return str(self.kwargs.get("dest") or long.lstrip("-").replace("-", "_"))

    def default(self) -> Any:
        """Its value when not given (``store_true``: False; ``append``: a new list when the default is None)."""
        action = self.kwargs.get("action")
        if action == "store_true":
            return bool(self.kwargs.get("default", False))
        value = self.kwargs.get("default")
        return list(value) if isinstance(value, list) else value


@checked
@dataclass(frozen=True)
class Benchmark:
    """One ``sudoku-lab bench`` sub-command.

    Attributes
    ----------
    name : str
        Sub-command name (``sudoku-lab bench NAME``); unique.
    help : str
        One line for ``sudoku-lab bench --help``: what is compared, in which unit.
    options : tuple of BenchmarkOption
        The sub-command's options.
    run : callable
        ``run(args, out) -> int``: measures, passes each line of its report to
        ``out`` and returns the exit status.
    solver : str or None
        The registered solver it measures, if it is about one.
    description : str
        Longer text for ``sudoku-lab bench NAME --help`` (default: ``help``).
    """

    name: str
    help: str
    run: Callable[[Any, Callable[[str], object]], int]
    options: tuple[BenchmarkOption, ...] = ()
    solver: str | None = None
    description: str = ""
    #: Deprecated: ``add_arguments(parser)`` declaring options on an argparse parser (use ``options``).
    add_arguments: Callable[[Any], None] | None = field(default=None, repr=False)

    def __post_init__(self):
        if not callable(self.run):
            raise TypeError(f"benchmark {self.name!r}: run must be callable, got {self.run!r}")
        object.__setattr__(self, "options", tuple(self.options))
        if not all(isinstance(o, BenchmarkOption) for o in self.options):
            raise TypeError(f"benchmark {self.name!r}: options must be BenchmarkOption objects, got {self.options!r}")
        if self.add_arguments is not None and not callable(self.add_arguments):
            raise TypeError(
                f"benchmark {self.name!r}: add_arguments must be callable or None, got {self.add_arguments!r}"
            )


def _origin(bench: Benchmark) -> str:
    return getattr(bench.run, "__module__", None) or "an unknown module"


_REGISTRY: Registry[Benchmark] = Registry("benchmark", package=__name__, order=lambda b: b.name, origin=_origin)


@checked
def register_benchmark(
    name: str | Benchmark,
    help: str = "",
    *,
    options: Sequence[BenchmarkOption] = (),
    run: Callable[[Any, Callable[[str], object]], int] | None = None,
    solver: str | None = None,
    description: str = "",
    add_arguments: Callable[[Any], None] | None = None,
) -> Benchmark:
    """Add a benchmark to ``sudoku-lab bench``.

    Parameters
    ----------
    name : str or Benchmark
        Sub-command name, or a ready :class:`Benchmark` (then no other argument).
    help, options, run, solver, description
        The fields of :class:`Benchmark`.
    add_arguments : callable, optional
        Deprecated (a ``DeprecationWarning``): ``add_arguments(parser)`` declaring
        the options on an argparse parser. Declare ``options`` instead.

    Returns
    -------
    Benchmark

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ValueError
        If another benchmark already has that name.
    """
    if isinstance(name, Benchmark):
        bench = name
    else:
        if run is None:
            raise TypeError(f"benchmark {name!r} needs run=callable(args, out) -> int")
        if add_arguments is not None:
            warnings.warn(
                f"benchmark {name!r}: add_arguments= is deprecated; declare options=[BenchmarkOption(...)] instead "
                "(sudoku_lab.benchmarks.BenchmarkOption)",
                DeprecationWarning,
                stacklevel=3,
            )
        bench = Benchmark(
            name=name,
            help=help,
            options=tuple(options),
            run=run,
            solver=solver,
            description=description,
            add_arguments=add_arguments,
        )
    return _REGISTRY.register(bench)


@checked
def benchmarks() -> Mapping[str, Benchmark]:
    """Every registered benchmark by name (built-ins and plugins), in name order."""
    return _REGISTRY.mapping()


@checked
def get_benchmark(name: str) -> Benchmark:
    """The benchmark registered as ``name``; ParameterError naming the known ones otherwise."""
    return _REGISTRY.get(name, param="benchmark")


@checked
def run_benchmark(name: str, out: Callable[[str], object] = print, **options: Any) -> int:
    """Run the benchmark ``name`` from Python: its options' defaults, overridden by ``options``; the exit status.

    >>> run_benchmark("exact", only=("count",), repeat=1, set=["unique_4x4_a"])  # doctest: +SKIP
    """
    bench = get_benchmark(name)
    values = {o.dest: o.default() for o in bench.options}
    unknown = sorted(set(options) - set(values))
    if unknown:
        raise ParameterError(
            f"benchmark {name!r} has no option {', '.join(unknown)}; its options: {', '.join(values) or 'none'}",
            name=unknown[0],
        )
    values.update(options)
    return bench.run(types.SimpleNamespace(**values), out)
