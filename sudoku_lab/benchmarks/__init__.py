"""Benchmarks: a registry of speed comparisons, one or more per solver, run by ``sudoku-lab bench``.

A benchmark times several ways of doing the same work side by side in one
process and prints their ratios (see :mod:`sudoku_lab.benchmarks._timing`);
a solver's kernel against its numpy reference is timed by one harness,
:mod:`sudoku_lab.benchmarks._kernel_vs_numpy`.
The built-in ones are the public modules of this package (``exact``,
``reseda``, ``gui``); a solver's author adds one the same way from anywhere,
through :func:`register_benchmark`, and it becomes ``sudoku-lab bench NAME``::

    from sudoku_lab.benchmarks import register_benchmark

    def add_arguments(parser):
        parser.add_argument("--runs", type=int, default=10)

    def run(args, out):
        out(f"my solver: {args.runs} runs ...")
        return 0

    register_benchmark("my-solver", help="my solver next to RESEDA, in steps/s",
                       add_arguments=add_arguments, run=run, solver="my-solver")

Modules outside the package are found as plugins (the entry-point group
``sudoku_lab.plugins`` or ``$SUDOKU_LAB_PLUGINS``, see :mod:`sudoku_lab._registry`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .._checks import checked
from .._registry import Registry

__all__ = ["Benchmark", "register_benchmark", "benchmarks", "get_benchmark"]


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
    add_arguments : callable or None
        ``add_arguments(parser)`` declares the sub-command's options on its
        ``argparse`` parser.
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
    add_arguments: Callable[[argparse.ArgumentParser], None] | None
    run: Callable[[argparse.Namespace, Callable[[str], object]], int]
    solver: str | None = None
    description: str = ""

    def __post_init__(self):
        if not callable(self.run):
            raise TypeError(f"benchmark {self.name!r}: run must be callable, got {self.run!r}")
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
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
    run: Callable[[argparse.Namespace, Callable[[str], object]], int] | None = None,
    solver: str | None = None,
    description: str = "",
) -> Benchmark:
    """Add a benchmark to ``sudoku-lab bench``.

    Parameters
    ----------
    name : str or Benchmark
        Sub-command name, or a ready :class:`Benchmark` (then no other argument).
    help, add_arguments, run, solver, description
        The fields of :class:`Benchmark`.

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
        bench = Benchmark(
            name=name, help=help, add_arguments=add_arguments, run=run, solver=solver, description=description
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
