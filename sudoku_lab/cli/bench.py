"""``sudoku-lab bench``: one sub-command per registered benchmark (see :mod:`sudoku_lab.benchmarks`).

:func:`add_cli` declares the sub-commands from the registry, each with the
options its benchmark declares (:class:`sudoku_lab.benchmarks.BenchmarkOption`), so a
benchmark added by a module of ``sudoku_lab.benchmarks`` or by a plugin
appears here without this file changing; :func:`main` runs the chosen one.
"""

from __future__ import annotations

import argparse

from .._checks import checked
from ._console import argparse_type

__all__ = ["add_cli", "add_arguments", "main"]


@checked
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare every registered benchmark as a sub-command of ``parser`` (``sudoku-lab bench``)."""
    from ..benchmarks import benchmarks

    registered = benchmarks()
    sub = parser.add_subparsers(
        dest="benchmark", metavar="BENCHMARK", required=True, help=f"what to measure: {', '.join(registered)}"
    )
    for bench in registered.values():
        p = sub.add_parser(bench.name, help=bench.help, description=bench.description or bench.help)
        for option in bench.options:
            kwargs = dict(option.kwargs)
            if callable(kwargs.get("type")) and kwargs["type"] not in (int, float, str):
                kwargs["type"] = argparse_type(kwargs["type"])
            p.add_argument(*option.flags, **kwargs)
        if bench.add_arguments is not None:  # deprecated: a plugin declaring its options on the parser itself
            bench.add_arguments(p)


@checked
def main(args: argparse.Namespace) -> int:
    """Run the benchmark chosen on the command line; returns its exit status."""
    from ..benchmarks import get_benchmark

    return get_benchmark(args.benchmark).run(args, print)


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab bench`` and one sub-command per registered benchmark on ``sub``."""
    b = sub.add_parser(
        "bench",
        help="benchmarks: ratios of ways measured side by side in one run",
        description="Benchmarks, one per sub-command (built-in or added by a plugin). Each times "
        "the ways it compares side by side in one process and prints their ratios, which survive "
        "a noisy machine; absolute times, where printed, are for this machine only and say so.",
    )
    add_arguments(b)
    b.set_defaults(func=main)
