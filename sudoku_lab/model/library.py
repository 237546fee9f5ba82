"""The bundled puzzle library: the papers' puzzles, Kennett's levels and standard hard sets.

Collections are named after their file under ``resources/puzzles`` without the
``.csv``: ``papers``, ``mantere_koljonen``, ``kennett/fiendish``,
``benchmarks/top1465``, ``benchmarks/lewis_16x16_40`` and so on.

Examples
--------
>>> from sudoku_lab.model import library
>>> [c.name for c in library.collections()][:3]
['papers', 'mantere_koljonen', 'kennett/very_easy']
>>> p = library.puzzle("reseda_fig4_1_hard")
>>> p.n_givens, p.metadata["source"][:33]
(31, 'Maire & Prissette 2012 Figure 4.1')

A puzzle is found by its name (unique across the library), by
``collection:k`` (1-based position) or by ``collection:name``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from .._checks import checked
from .._paths import resource_path
from ..errors import PuzzleError
from .collections import iter_puzzles
from .puzzle import Puzzle

__all__ = [
    "DEFAULT_PUZZLE",
    "CollectionInfo",
    "collections",
    "collection",
    "puzzle",
    "names",
    "reseda_fig4_2_grades",
    "warm_up_puzzles",
]

#: The puzzle the lab opens on: the RESEDA paper's hard puzzle (Figure 4.1).
DEFAULT_PUZZLE = "reseda_fig4_1_hard"

_KENNETT_LEVELS = ("very_easy", "easy", "medium", "hard", "fiendish")

_TITLES = {
    "papers": "Every puzzle printed in the five papers, the Mantere-Koljonen easy/medium/hard a-c benchmark "
    "and AI Escargot",
    "mantere_koljonen": "Mantere and Koljonen's 46 research puzzles s01a..s16",
    "benchmarks/top1465": "magictour top 1465: classic hard set for exact solvers",
    "benchmarks/hardest_1106": "375 puzzles hardest for backtracking",
    "benchmarks/hardest_11plus": "2000 puzzles rated 11+ by Sudoku Explainer (sample)",
    "benchmarks/17_clue": "2000 minimal 17-clue puzzles (sample)",
    "benchmarks/famous_hard": "16 famous hard puzzles (AI Escargot, Platinum Blond, Golden Nugget, ...)",
    "benchmarks/small_unique": "Small puzzles with a unique solution, one 4x4 and one 16x16 (exact-solver checks)",
}


@checked
@dataclass(frozen=True)
class CollectionInfo:
    """What one bundled collection holds.

    Attributes
    ----------
    name : str
        Library name, e.g. ``kennett/fiendish``.
    title : str
        One-line description.
    path : Path
        The CSV file.
    count : int
        Number of puzzles.
    size : int
        Side of its grids (4, 9, 16 or 25); the largest when it holds several sizes.
    sizes : tuple of int
        Every side its grids have, smallest first (``(4, 16)`` for ``benchmarks/small_unique``).
    has_solutions : bool
        Whether a ``solution`` column gives each puzzle's solution.
    unique : bool
        False for the Lewis-style instances, whose puzzles may have several
        solutions (any valid completion counts as solved).
    """

    name: str
    title: str
    path: Path
    count: int
    size: int
    sizes: tuple[int, ...]
    has_solutions: bool
    unique: bool


def _collection_files() -> list[tuple[str, Path]]:
    root = resource_path("puzzles")
    files = [("papers", root / "papers.csv"), ("mantere_koljonen", root / "mantere_koljonen.csv")]
    files += [(f"kennett/{lv}", root / "kennett" / f"{lv}.csv") for lv in _KENNETT_LEVELS]
    bench = sorted((root / "benchmarks").glob("*.csv"))
    lewis = [p for p in bench if p.stem.startswith("lewis_")]
    lewis.sort(key=lambda p: (int(p.stem.split("_")[1].split("x")[0]), int(p.stem.split("_")[2])))
    others = [p for p in bench if p not in lewis]
    order = ["famous_hard", "top1465", "hardest_1106", "hardest_11plus", "17_clue"]
    others.sort(key=lambda p: order.index(p.stem) if p.stem in order else len(order))
    files += [(f"benchmarks/{p.stem}", p) for p in others + lewis]
    return files


def _title(name: str, header: list[str], first: dict) -> str:
    if name in _TITLES:
        return _TITLES[name]
    if name.startswith("kennett/"):
        level = name.split("/")[1].replace("_", " ")
        return f"Kennett generator, level '{level}' (the RESEDA paper's Table 4 source)"
    if name.startswith("benchmarks/lewis_"):
        size, pct = first.get("size", "?"), first.get("givens_percent", "?")
        return f"Lewis-style {size}x{size} instances with {pct} % givens (not unique: any completion counts)"
    return name


@lru_cache(maxsize=1)
def collections() -> tuple[CollectionInfo, ...]:
    """Every bundled collection, papers first, then Kennett levels easy to fiendish, then benchmarks."""
    out = []
    for name, path in _collection_files():
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        header = list(rows[0].keys()) if rows else []
        sides = tuple(sorted({int(round(len(r["puzzle"]) ** 0.5)) for r in rows})) or (0,)
        out.append(
            CollectionInfo(
                name=name,
                title=_title(name, header, rows[0] if rows else {}),
                path=path,
                count=len(rows),
                size=sides[-1],
                sizes=sides,
                has_solutions="solution" in header,
                unique=not name.startswith("benchmarks/lewis_"),
            )
        )
    return tuple(out)


def _info(name: str) -> CollectionInfo:
    for c in collections():
        if c.name == name:
            return c
    known = ", ".join(c.name for c in collections())
    raise PuzzleError(f"no bundled collection named {name!r}; the library has: {known}", kind="empty")


@cache
def collection(name: str) -> tuple[Puzzle, ...]:
    """All puzzles of a collection, with names, solutions (if known) and metadata columns."""
    info = _info(name)
    return tuple(p.renamed(p.name, collection=name) for p in iter_puzzles(info.path, name=f"{name}.csv"))


@lru_cache(maxsize=1)
def _name_index() -> dict[str, tuple[str, int]]:
    index: dict[str, tuple[str, int]] = {}
    for c in collections():
        with c.path.open(newline="", encoding="utf-8") as fh:
            for i, row in enumerate(csv.DictReader(fh)):
                index.setdefault(row["name"], (c.name, i))
    return index


@checked
def names(collection_name: str | None = None) -> list[str]:
    """Puzzle names of one collection, or of the whole library."""
    if collection_name is None:
        return list(_name_index())
    return [p.name for p in collection(collection_name) if p.name is not None]  # all named (iter_puzzles)


@checked
def puzzle(name: str) -> Puzzle:
    """A bundled puzzle by name, ``collection:k`` (1-based) or ``collection:name``.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleError
        If no puzzle has that name (the message suggests close names).
    """
    if ":" in name:
        coll, _, key = name.rpartition(":")
        puzzles = collection(coll)
        if key.isdigit():
            k = int(key)
            if not 1 <= k <= len(puzzles):
                raise PuzzleError(f"{coll} has {len(puzzles)} puzzles; {k} is out of range", kind="empty")
            return puzzles[k - 1]
        for p in puzzles:
            if p.name == key:
                return p
        raise PuzzleError(f"{coll} has no puzzle named {key!r}", kind="empty")
    hit = _name_index().get(name)
    if hit is None:
        import difflib

        close = difflib.get_close_matches(name, list(_name_index()), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise PuzzleError(f"no bundled puzzle named {name!r}{hint}", kind="empty")
    coll, i = hit
    return collection(coll)[i]


@checked
def reseda_fig4_2_grades() -> np.ndarray:
    """Figure 4.2 of the RESEDA paper: grades per cell of reseda_fig4_1_hard over 100 runs.

    Returns
    -------
    ndarray of str, shape (9, 9)
        ``"A"`` (right in all runs), ``"B"`` (right in >= 90 %) or ``""``.
    """
    rows = [
        ln.strip()
        for ln in resource_path("puzzles", "reseda_fig4_2_grades.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    return np.array([["" if ch == "." else ch for ch in row] for row in rows])


@checked
def warm_up_puzzles() -> list[Puzzle]:
    """The small puzzles every kernel is first run on: a 4 x 4 and the RESEDA paper's easy 9 x 9 (Figure 3.1).

    One set for the exact search's warm-up (:func:`sudoku_lab.exact.solver.warm_kernels`) and the solvers'
    (:func:`sudoku_lab.solvers.warm.generic_warm_up`), so what compiles is the same everywhere.
    """
    return [Puzzle.parse("1...\n..2.\n.3..\n...4", name="warm-up 4x4"), puzzle("reseda_fig3_1_easy")]
