"""The puzzle model: an immutable Sudoku of box size n = 2..5.

:class:`Puzzle` holds the givens (and optionally a name, metadata and a known
solution), answers questions about them (candidates, clashes) and validates
them with the exact solver (:meth:`Puzzle.check`). Reading and writing text is
:mod:`sudoku_lab.model.formats` (:meth:`Puzzle.parse` and :meth:`Puzzle.format` call
it); collections (many puzzles per text or file, read in bounded memory) are
:mod:`sudoku_lab.model.collections`.

Dependencies point one way: this module uses :mod:`sudoku_lab.model.formats`,
:mod:`sudoku_lab.exact` and :mod:`sudoku_lab.exact.ac3`, which work on plain grids or
any object with ``.grid`` and ``.n`` (:class:`sudoku_lab.model.geometry.PuzzleLike`)
and never import this module. ``exact`` and ``ac3`` load numba, so they are
imported on first use: parsing and formatting puzzles stays light.

Everything a user can get wrong raises :class:`~sudoku_lab.errors.PuzzleError`
whose message says what and where (line and column, cells, digit).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import checked, checked_puzzle_text
from ..errors import PuzzleError
from . import formats
from .formats import FORMATS, MAX_CELLS, MAX_PUZZLE_CHARS
from .geometry import SYMBOLS, Geometry, as_grid, cell_name, geometry, size_text

# isort: split
# Importable from this module before the parsers moved to sudoku_lab.model.formats; kept for callers.
from ..errors import PuzzleTypeError  # noqa: F401
from .geometry import BOX_SIZES, box_size_for_cells  # noqa: F401

__all__ = ["Puzzle", "FORMATS", "MAX_CELLS", "MAX_PUZZLE_CHARS", "is_valid_solution"]

_EMPTY_METADATA: MappingProxyType[str, str] = MappingProxyType({})


@checked
class Puzzle:
    """An immutable Sudoku puzzle.

    Parameters
    ----------
    grid : array_like of int, shape (C,) or (N, N)
        Givens, 0 for a blank cell, digits 1..N.
    n : int, optional
        Box size; inferred from the number of cells when omitted.
    name : str, optional
        A label (library name, file name, ``%`` comment or ``#D`` description).
    metadata : mapping of str to str, optional
        Extra columns of a collection (level, source, ...), read-only.
    solution : array_like of int, shape (C,), optional
        The known solution, if a collection provides one (not checked here;
        :meth:`check` computes it independently).

    Notes
    -----
    Construction checks only shape and symbol range. Use :meth:`parse` (which
    also rejects clashing givens) or :meth:`check` (clashes, no solution,
    several solutions). A puzzle with clashing givens can still be built, so an
    editor can show the clash.
    """

    __slots__ = ("_grid", "_n", "_name", "_metadata", "_solution", "__weakref__")

    @checked(puzzles=("grid",))
    def __init__(
        self,
        grid: npt.ArrayLike,
        *,
        n: int | None = None,
        name: str | None = None,
        metadata: Mapping[str, str] | None = None,
        solution: npt.ArrayLike | None = None,
    ):
        a, n = as_grid(grid, n)
        g = np.array(a, dtype=np.int8)
        g.setflags(write=False)
        self._grid = g
        self._n = int(n)
        self._name = name
        self._metadata = MappingProxyType(dict(metadata or {}))
        if solution is not None:
            s = np.array(solution, dtype=np.int8).reshape(-1)
            if s.size != g.size:
                raise PuzzleError(f"solution has {s.size} cells, puzzle has {g.size}", kind="cell_count")
            s.setflags(write=False)
            solution = s
        self._solution = solution

    # ------------------------------------------------------------------ basics
    @property
    def n(self) -> int:
        """Box size (2..5)."""
        return self._n

    @property
    def N(self) -> int:
        """Side of the grid and number of digits."""
        return self._n * self._n

    @property
    def C(self) -> int:
        """Number of cells."""
        return self._grid.size

    @property
    def grid(self) -> np.ndarray:
        """Givens, read-only int8 array of shape (C,), 0 = blank."""
        return self._grid

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def metadata(self) -> Mapping[str, str]:
        return self._metadata

    @property
    def solution(self) -> np.ndarray | None:
        """The solution a collection provided, read-only int8 (C,), or None."""
        return self._solution

    @property
    def geometry(self) -> Geometry:
        return geometry(self._n)

    def as_2d(self) -> np.ndarray:
        """Read-only (N, N) view of the givens."""
        return self._grid.reshape(self.N, self.N)

    def __getitem__(self, rc) -> int:
        r, c = rc
        return int(self._grid[r * self.N + c])

    def __eq__(self, other) -> bool:
        if not isinstance(other, Puzzle):
            return NotImplemented
        return self._n == other._n and np.array_equal(self._grid, other._grid)

    def __hash__(self) -> int:
        return hash((self._n, self._grid.tobytes()))

    def __repr__(self) -> str:
        label = f" {self._name!r}" if self._name else ""
        return f"<Puzzle{label} {size_text(self._n)}, {self.n_givens} givens: {self.to_line()}>"

    def __str__(self) -> str:
        return self.to_grid()

    def __reduce__(self):
        return (
            _rebuild,
            (
                self._grid.tobytes(),
                self._n,
                self._name,
                dict(self._metadata),
                None if self._solution is None else self._solution.tobytes(),
            ),
        )

    def replace(
        self,
        *,
        name: str | None = None,
        metadata: Mapping[str, str] | None = None,
        solution: npt.ArrayLike | None = None,
        grid: npt.ArrayLike | None = None,
    ) -> Puzzle:
        """A copy with some attributes replaced (``solution`` is dropped when the grid changes)."""
        new_grid = self._grid if grid is None else grid
        keep_solution = grid is None or np.array_equal(np.asarray(grid).reshape(-1), self._grid)
        return Puzzle(
            new_grid,
            n=self._n,
            name=self._name if name is None else name,
            metadata=self._metadata if metadata is None else metadata,
            solution=solution if solution is not None else (self._solution if keep_solution else None),
        )

    def renamed(self, name: str | None, **metadata: str) -> Puzzle:
        """A copy with another name and (optionally) extra metadata entries; cheap, for whole collections."""
        meta = {**self._metadata, **metadata} if metadata else self._metadata
        return Puzzle._trusted(self._grid, self._n, name, meta, self._solution)

    def with_cell(self, cell: int, digit: int) -> Puzzle:
        """A copy with one cell set to ``digit`` (0 clears it); the editor's primitive."""
        g = self._grid.copy()
        g[cell] = digit
        return self.replace(grid=g)

    # ------------------------------------------------------------- accessors
    @property
    def givens(self) -> np.ndarray:
        """Read-only bool mask (C,) of the given cells."""
        m = self._grid > 0
        m.setflags(write=False)
        return m

    @property
    def given_cells(self) -> np.ndarray:
        """Flat indices (int64) of the given cells."""
        return np.flatnonzero(self._grid)

    @property
    def free_cells(self) -> np.ndarray:
        """Flat indices (int64) of the blank cells."""
        return np.flatnonzero(self._grid == 0)

    @property
    def n_givens(self) -> int:
        return int(np.count_nonzero(self._grid))

    def units(self) -> np.ndarray:
        """Cells of every unit, int32 (3N, N): rows, columns, boxes."""
        return self.geometry.units

    def peers(self, cell: int) -> np.ndarray:
        """Peers of ``cell`` (int32, sorted)."""
        return self.geometry.peers[cell]

    def candidates(self) -> np.ndarray:
        """One-pass candidate domains, uint32 (C,) bitmasks (digit d is bit d-1).

        A given's domain is its own digit; a blank cell's domain holds the
        digits no given peer uses (the "candidate domain" of docs/algorithms.md,
        "Common terms").
        """
        from ..exact.ac3 import initial_domains

        dom = initial_domains(self._grid, self._n, one_pass=True)
        dom.setflags(write=False)
        return dom

    def candidate_digits(self, cell: int) -> list[int]:
        """The one-pass candidates of ``cell`` as a sorted list of digits."""
        mask = int(self.candidates()[cell])
        return [d for d in range(1, self.N + 1) if mask >> (d - 1) & 1]

    # ----------------------------------------------------------- validation
    def clashes(self) -> list[tuple[int, int, int]]:
        """Pairs of givens that share a unit and a digit: ``(cell_a, cell_b, digit)``, a < b."""
        g = self._grid
        out = []
        for unit in self.geometry.units:
            vals = g[unit]
            for d in np.unique(vals[vals > 0]):
                where = unit[vals == d]
                for i in range(len(where)):
                    for j in range(i + 1, len(where)):
                        pair = (int(where[i]), int(where[j]), int(d))
                        if pair not in out:
                            out.append(pair)
        return sorted(out)

    def has_clashes(self) -> bool:
        """True if two givens share a unit and a digit (vectorised; :meth:`clashes` lists them)."""
        v = np.sort(self._grid[self.geometry.units], axis=1)
        return bool(np.any((v[:, 1:] == v[:, :-1]) & (v[:, 1:] > 0)))

    def check_clashes(self) -> None:
        """Raise PuzzleError naming the first two clashing givens, if any."""
        if not self.has_clashes():
            return
        found = self.clashes()
        if found:
            a, b, d = found[0]
            geo = self.geometry
            shared = [geo.unit_name(u) for u in geo.cell_units[a] if u in geo.cell_units[b]][0]
            more = f" ({len(found) - 1} more clash{'es' if len(found) > 2 else ''})" if len(found) > 1 else ""
            raise PuzzleError(
                f"givens clash: {cell_name(a, self.N)} and {cell_name(b, self.N)} both hold "
                f"{SYMBOLS[d - 1]} in {shared}{more}",
                kind="clash",
                cells=(a, b),
                digit=d,
            )

    def check(self, unique: bool = True) -> np.ndarray:
        """Validate the puzzle and return its (first) solution.

        Raises :class:`PuzzleError` for clashing givens, for a puzzle with no
        solution (naming the cell whose candidates AC3 empties, when it does),
        and, when ``unique``, for a puzzle with several solutions (naming a
        cell where two solutions differ).

        Returns
        -------
        ndarray of int8, shape (C,)
            The solution (read-only).
        """
        from .. import exact
        from ..exact.ac3 import ac3

        self.check_clashes()
        if unique:
            sols = exact.find_solutions(self, limit=2)
        else:  # any completion: solve() restarts, a complete search can take very long on big grids
            sol = exact.solve(self)
            sols = [] if sol is None else [sol]
        if len(sols) == 0:
            res = ac3(self)
            where = ""
            cells: tuple[int, ...] = ()
            if not res.consistent and res.wipeout_cell is not None:
                where = f": propagation empties the candidates of {cell_name(res.wipeout_cell, self.N)}"
                cells = (res.wipeout_cell,)
            else:
                where = " (no clash between givens; exhaustive search finds no completion)"
            raise PuzzleError(f"the puzzle has no solution{where}", kind="no_solution", cells=cells)
        if unique and len(sols) > 1:
            diff = np.flatnonzero(sols[0] != sols[1])
            cell = int(diff[0])
            a, b = sorted((int(sols[0][cell]), int(sols[1][cell])))
            raise PuzzleError(
                f"the puzzle has several solutions: {cell_name(cell, self.N)} can be "
                f"{SYMBOLS[a - 1]} or {SYMBOLS[b - 1]} ({len(diff)} cells differ "
                f"between two of them)",
                kind="several_solutions",
                cells=tuple(int(c) for c in diff),
                digit=a,
            )
        sol = np.array(sols[0], dtype=np.int8)
        sol.setflags(write=False)
        return sol

    def solve(self) -> np.ndarray | None:
        """First solution by the exact solver (int8 (C,), read-only), or None."""
        from .. import exact

        return exact.solve(self)

    def count_solutions(self, limit: int = 2) -> int:
        """Number of solutions, counting stops at ``limit``."""
        from .. import exact

        return exact.count_solutions(self, limit=limit)

    def is_solved_by(self, grid: npt.ArrayLike) -> bool:
        """True if ``grid`` (C,) is a valid complete grid that keeps every given."""
        g = np.asarray(grid).reshape(-1)
        if g.size != self.C or not np.array_equal(g[self._grid > 0], self._grid[self._grid > 0]):
            return False
        return is_valid_solution(g, self._n)

    # -------------------------------------------------------------- parsing
    @classmethod
    @checked_puzzle_text
    def parse(
        cls,
        text: str | bytes,
        *,
        n: int | None = None,
        name: str | None = None,
        allow_clashes: bool = False,
        first_line: int = 1,
    ) -> Puzzle:
        """Read one puzzle in any supported format (the formats are described in :mod:`sudoku_lab.model.formats`).

        Parameters
        ----------
        text : str or bytes
            The puzzle text (bytes are read as UTF-8).
        n : int, optional
            Expected box size; inferred from the number of cells when omitted.
        name : str, optional
            Name to give the puzzle (overrides a ``%`` or ``#D`` line).
        allow_clashes : bool
            Accept clashing givens (for an editor); by default they raise.
        first_line : int
            Line number of the text's first line, so errors point into the
            enclosing file.

        Raises
        ------
        ParameterTypeError
            An argument of the wrong kind (also a TypeError).
        PuzzleError
            Empty input, a bad character (line and column), a symbol out of
            range, the wrong number of cells (how many were found), clashing
            givens (both cells and the digit); :class:`PuzzleTypeError` (also
            a TypeError) for something that is not text.
        """
        grid, n, label, meta = formats.read(text, n=n, first_line=first_line)
        p = cls(grid, n=n, name=name if name is not None else label, metadata=meta)
        if not allow_clashes:
            p.check_clashes()
        return p

    @classmethod
    def _trusted(cls, grid: np.ndarray, n: int, name, metadata, solution) -> Puzzle:
        """Build from arrays already checked (read-only int8 of the right size): the bulk readers' fast path."""
        p = object.__new__(cls)
        p._grid = grid
        p._n = n
        p._name = name
        p._metadata = (
            _EMPTY_METADATA
            if not metadata
            else metadata
            if isinstance(metadata, MappingProxyType)
            else MappingProxyType(metadata)
        )
        p._solution = solution
        return p

    @classmethod
    @checked(puzzles=("grid",))
    def from_array(cls, grid: npt.ArrayLike, *, n: int | None = None, name: str | None = None, **kw: Any) -> Puzzle:
        """Build a puzzle from an array of digits (0 = blank), checking for clashes."""
        p = cls(grid, n=n, name=name, **kw)
        p.check_clashes()
        return p

    # ----------------------------------------------------------- formatting
    def format(self, fmt: str = "line") -> str:
        """Write the puzzle in one of :data:`FORMATS`; ``Puzzle.parse`` reads it back exactly."""
        return formats.write(self._grid, self._n, fmt, name=self._name, metadata=self._metadata)

    def to_line(self, blank: str = ".") -> str:
        """N*N symbols on one line (``blank`` for empty cells)."""
        return formats.write_line(self._grid, blank)

    def to_numbers(self) -> str:
        """N lines of N space-separated numbers, 0 for a blank, right-aligned."""
        return formats.write_numbers(self._grid, self._n)

    def to_grid(self, separators: bool = True) -> str:
        """N lines of symbols, with ``|`` and ``-+-`` box separators unless ``separators=False``."""
        return formats.write_grid(self._grid, self._n, separators)

    def to_kennett(self) -> str:
        """Kennett's compact format: a ``%`` comment line (the name) then N lines."""
        return formats.write_kennett(self._grid, self._n, self._name)

    def to_sdk(self) -> str:
        """SadMan/SudoCue ``.sdk``: ``#`` metadata lines (``#D`` = name), then N lines."""
        return formats.write_sdk(self._grid, self._n, self._name, self._metadata)


def _rebuild(grid_bytes, n, name, metadata, solution_bytes):
    sol = None if solution_bytes is None else np.frombuffer(solution_bytes, dtype=np.int8)
    return Puzzle(np.frombuffer(grid_bytes, dtype=np.int8), n=n, name=name, metadata=metadata, solution=sol)


@checked
def is_valid_solution(grid: npt.ArrayLike, n: int) -> bool:
    """True if ``grid`` (C,) is a complete grid with every unit a permutation of 1..N."""
    geo = geometry(n)
    g = np.asarray(grid).reshape(-1)
    if g.size != geo.C:
        return False
    vals = np.sort(g[geo.units], axis=1)
    return bool(np.all(vals == np.arange(1, geo.N + 1)))
