"""``sudoku-lab library``: the bundled collections, or the puzzles of one."""

from __future__ import annotations

import argparse

from .._checks import checked
from ._console import (
    comment as _comment,
    print_puzzle as _print_puzzle,
    print_table as _print_table,
)

__all__ = ["add_cli", "cmd_library"]


@checked
def add_cli(sub: argparse._SubParsersAction, algo: str | None = None) -> None:
    """Declare ``sudoku-lab library`` on ``sub`` (``algo``: the ``--algo`` of the command line, for ``--help``)."""
    lib = sub.add_parser(
        "library",
        help="list the bundled collections, or the puzzles of one",
        description="Without COLLECTION, list the bundled collections. With one (e.g. "
        "kennett/fiendish), list its puzzles; a puzzle is named by its name or "
        "COLLECTION:K.",
    )
    lib.add_argument("collection", nargs="?", help="collection (or COLLECTION:K for one puzzle)")
    lib.add_argument("--show", action="store_true", help="print the puzzles themselves")
    lib.add_argument(
        "--format",
        default="grid",
        choices=("grid", "line", "numbers", "kennett", "sdk"),
        help="how --show prints each puzzle (default grid)",
    )
    lib.set_defaults(func=cmd_library)


@checked
def cmd_library(args: argparse.Namespace) -> int:
    from ..model import library

    if args.collection is None:
        cols = library.collections()
        _print_table(
            ["collection", "puzzles", "size", "description"],
            [[c.name, str(c.count), ", ".join(f"{n}x{n}" for n in c.sizes), c.title] for c in cols],
            right={1},
        )
        _comment(f"\nDefault puzzle: {library.DEFAULT_PUZZLE}. Show one collection with: sudoku-lab library NAME")
        return 0
    puzzles = (
        library.collection(args.collection) if ":" not in args.collection else [library.puzzle(args.collection)]
    )  # errors name the collection, the index and the range
    if args.show:
        for k, p in enumerate(puzzles):
            _comment(f"# {p.name}")
            _print_puzzle(p, args.format, first=k == 0)
        return 0
    # The source's level and qqwing's rating are different things (qqwing rates the RESEDA paper's hard
    # puzzle "simple"): each gets its own column, named, and only where the collection has it.
    level = [p.metadata.get("level") or p.metadata.get("label") or "" for p in puzzles]
    rating = [p.metadata.get("qqwing_difficulty") or "" for p in puzzles]
    lines = any(p.N <= 9 for p in puzzles)  # larger puzzles do not fit on a line of a table
    header = ["name", "givens"] + ["level"] * any(level) + ["qqwing rating"] * any(rating) + ["puzzle"] * lines
    rows = [
        [p.name or "", str(p.n_givens)]
        + [lv] * any(level)
        + [r] * any(rating)
        + [p.to_line() if p.N <= 9 else ""] * lines
        for p, lv, r in zip(puzzles, level, rating)
    ]
    _print_table(header, rows, right={1})
    if any(rating):
        _comment(
            "qqwing rating: the difficulty Debian's qqwing gives the puzzle (from the techniques its solver "
            "needs), computed when the collection was bundled; not the source's own level."
        )
    return 0
