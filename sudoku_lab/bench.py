"""``sudoku-lab bench``: one sub-command per registered benchmark (see :mod:`sudoku_lab.benchmarks`).

:func:`add_arguments` declares the sub-commands from the registry, so a
benchmark added by a module of ``sudoku_lab.benchmarks`` or by a plugin
appears here without this file changing; :func:`main` runs the chosen one.
"""

from __future__ import annotations

import argparse

from ._checks import checked

__all__ = ["add_arguments", "main"]


@checked
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare every registered benchmark as a sub-command of ``parser`` (``sudoku-lab bench``)."""
    from .benchmarks import benchmarks

    registered = benchmarks()
    sub = parser.add_subparsers(
        dest="benchmark", metavar="BENCHMARK", required=True, help=f"what to measure: {', '.join(registered)}"
    )
    for bench in registered.values():
        p = sub.add_parser(bench.name, help=bench.help, description=bench.description or bench.help)
        if bench.add_arguments is not None:
            bench.add_arguments(p)


@checked
def main(args: argparse.Namespace) -> int:
    """Run the benchmark chosen on the command line; returns its exit status."""
    from .benchmarks import get_benchmark

    return get_benchmark(args.benchmark).run(args, print)
