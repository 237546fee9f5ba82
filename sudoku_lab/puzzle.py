"""The puzzle model: an immutable Sudoku of box size n = 2..5, its parsers and formatters.

Formats read (all detected automatically) and written:

``line``
    N*N symbols on one line; ``.`` or ``0`` for a blank; digits 1-9 then A-Z
    (A = 10) for N > 9; letters in either case.
``numbers``
    N*N whitespace-separated numbers (0 or ``.`` for a blank), on any number
    of lines; the natural way to write 16x16 and 25x25 puzzles with numbers.
``grid``
    N lines of N symbols with optional spaces and ``|``, ``-``, ``+`` separators
    (Simple Sudoku's ``.ss`` borders such as ``*-----------*`` are separator
    lines too).
``kennett``
    Michael Kennett's compact format: a ``%`` comment line, then N lines of N
    symbols; a file may hold several boards, each after its ``%`` line.
``sdk``
    SadMan/SudoCue ``.sdk``: ``#A`` author, ``#D`` description (our name),
    ``#C`` comment, ``#B`` date, ``#S`` source, ``#L`` level, ``#U`` url, then N
    lines of N symbols.

Collections (one puzzle per line with ``#`` comments, CSV with a ``puzzle``
column, Kennett files, blank-line separated grids) are read by
:func:`parse_collection` and written by :func:`format_collection`.

Everything a user can get wrong raises :class:`~sudoku_lab.errors.PuzzleError`
whose message says what and where (line and column, cells, digit).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

import numpy as np

from .errors import PuzzleError
from .geometry import BOX_SIZES, SYMBOLS, Geometry, as_grid, box_size_for_cells, cell_name, geometry, size_text

__all__ = [
    "Puzzle",
    "FORMATS",
    "parse_collection",
    "format_collection",
    "load_puzzles",
    "load_puzzle",
    "is_valid_solution",
]

#: Names of the formats :meth:`Puzzle.format` writes.
FORMATS = ("line", "numbers", "grid", "kennett", "sdk")

_SDK_CODES = {"A": "author", "C": "comment", "B": "date", "S": "source", "L": "level", "U": "url"}
_SDK_KEYS = {v: k for k, v in _SDK_CODES.items()}
_SEPARATOR_LINE = re.compile(r"^[\s\-+|*=,;]*$")
_CELL_CHAR = re.compile(r"[0-9A-Za-z.]")
_BLANK_HELP = "'.' or '0' for a blank"


def _digits_help(N: int) -> str:
    last = SYMBOLS[N - 1]
    return f"digits 1-{last}" if N <= 9 else f"digits 1-9 and A-{last}"


def _symbol_value(ch: str) -> int:
    """Digit of a cell character (0 for a blank), or -1 if it is not a symbol."""
    if ch in ".0":
        return 0
    idx = SYMBOLS.find(ch.upper())
    return idx + 1 if idx >= 0 else -1


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

    def __init__(self, grid, *, n: int | None = None, name: str | None = None,
                 metadata: Mapping[str, str] | None = None, solution=None):
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
        return (_rebuild, (self._grid.tobytes(), self._n, self._name, dict(self._metadata),
                           None if self._solution is None else self._solution.tobytes()))

    def replace(self, *, name=None, metadata=None, solution=None, grid=None) -> "Puzzle":
        """A copy with some attributes replaced (``solution`` is dropped when the grid changes)."""
        new_grid = self._grid if grid is None else grid
        keep_solution = grid is None or np.array_equal(np.asarray(grid).reshape(-1), self._grid)
        return Puzzle(new_grid, n=self._n, name=self._name if name is None else name,
                      metadata=self._metadata if metadata is None else metadata,
                      solution=solution if solution is not None else (self._solution if keep_solution else None))

    def with_cell(self, cell: int, digit: int) -> "Puzzle":
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
        digits no given peer uses (ALGORITHMS.md, "Candidate domain").
        """
        from .ac3 import initial_domains

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
            raise PuzzleError(f"givens clash: {cell_name(a, self.N)} and {cell_name(b, self.N)} both hold "
                              f"{SYMBOLS[d - 1]} in {shared}{more}", kind="clash", cells=(a, b), digit=d)

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
        from . import exact
        from .ac3 import ac3

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
            raise PuzzleError(f"the puzzle has several solutions: {cell_name(cell, self.N)} can be "
                              f"{SYMBOLS[a - 1]} or {SYMBOLS[b - 1]} ({len(diff)} cells differ "
                              f"between two of them)", kind="several_solutions", cells=tuple(int(c) for c in diff),
                              digit=a)
        sol = np.array(sols[0], dtype=np.int8)
        sol.setflags(write=False)
        return sol

    def solve(self) -> np.ndarray | None:
        """First solution by the exact solver (int8 (C,), read-only), or None."""
        from . import exact

        return exact.solve(self)

    def count_solutions(self, limit: int = 2) -> int:
        """Number of solutions, counting stops at ``limit``."""
        from . import exact

        return exact.count_solutions(self, limit=limit)

    def is_solved_by(self, grid) -> bool:
        """True if ``grid`` (C,) is a valid complete grid that keeps every given."""
        g = np.asarray(grid).reshape(-1)
        if g.size != self.C or not np.array_equal(g[self._grid > 0], self._grid[self._grid > 0]):
            return False
        return is_valid_solution(g, self._n)

    # -------------------------------------------------------------- parsing
    @classmethod
    def parse(cls, text: str, *, n: int | None = None, name: str | None = None,
              allow_clashes: bool = False, first_line: int = 1) -> "Puzzle":
        """Read one puzzle in any supported format.

        Parameters
        ----------
        text : str
            The puzzle text.
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
        PuzzleError
            Empty input, a bad character (line and column), a symbol out of
            range, the wrong number of cells (how many were found), clashing
            givens (both cells and the digit).
        """
        lines = text.splitlines() or [""]
        label, meta, body = _split_header(lines, first_line)
        grid, n = _parse_cells(body, n)
        p = cls(grid, n=n, name=name if name is not None else label, metadata=meta)
        if not allow_clashes:
            p.check_clashes()
        return p

    @classmethod
    def from_array(cls, grid, *, n: int | None = None, name: str | None = None, **kw) -> "Puzzle":
        """Build a puzzle from an array of digits (0 = blank), checking for clashes."""
        p = cls(grid, n=n, name=name, **kw)
        p.check_clashes()
        return p

    # ----------------------------------------------------------- formatting
    def format(self, fmt: str = "line") -> str:
        """Write the puzzle in one of :data:`FORMATS`; ``Puzzle.parse`` reads it back exactly."""
        try:
            writer = {
                "line": self.to_line,
                "numbers": self.to_numbers,
                "grid": self.to_grid,
                "kennett": self.to_kennett,
                "sdk": self.to_sdk,
            }[fmt]
        except KeyError:
            raise ValueError(f"unknown puzzle format {fmt!r}; choose from {', '.join(FORMATS)}") from None
        return writer()

    def to_line(self, blank: str = ".") -> str:
        """N*N symbols on one line (``blank`` for empty cells)."""
        return "".join(blank if d == 0 else SYMBOLS[d - 1] for d in self._grid.tolist())

    def to_numbers(self) -> str:
        """N lines of N space-separated numbers, 0 for a blank, right-aligned."""
        width = len(str(self.N))
        rows = self.as_2d().tolist()
        return "\n".join(" ".join(f"{d:>{width}}" for d in row) for row in rows)

    def to_grid(self, separators: bool = True) -> str:
        """N lines of symbols, with ``|`` and ``-+-`` box separators unless ``separators=False``."""
        n = self._n
        rows = []
        for r, row in enumerate(self.as_2d().tolist()):
            syms = ["." if d == 0 else SYMBOLS[d - 1] for d in row]
            if not separators:
                rows.append("".join(syms))
                continue
            if r and r % n == 0:
                rows.append("+".join(["-" * (2 * n + 1)] * n)[1:-1])
            boxes = [" ".join(syms[b * n:(b + 1) * n]) for b in range(n)]
            rows.append(" | ".join(boxes))
        return "\n".join(rows)

    def to_kennett(self) -> str:
        """Kennett's compact format: a ``%`` comment line (the name) then N lines."""
        head = f"% {self._name}" if self._name else "%"
        return head + "\n" + self.to_grid(separators=False)

    def to_sdk(self) -> str:
        """SadMan/SudoCue ``.sdk``: ``#`` metadata lines (``#D`` = name), then N lines."""
        head = []
        if self._name:
            head.append(f"#D{self._name}")
        for key, code in _SDK_KEYS.items():
            if key in self._metadata:
                head.append(f"#{code}{self._metadata[key]}")
        return "\n".join(head + [self.to_grid(separators=False)])


def _rebuild(grid_bytes, n, name, metadata, solution_bytes):
    sol = None if solution_bytes is None else np.frombuffer(solution_bytes, dtype=np.int8)
    return Puzzle(np.frombuffer(grid_bytes, dtype=np.int8), n=n, name=name, metadata=metadata, solution=sol)


def is_valid_solution(grid, n: int) -> bool:
    """True if ``grid`` (C,) is a complete grid with every unit a permutation of 1..N."""
    geo = geometry(n)
    g = np.asarray(grid).reshape(-1)
    if g.size != geo.C:
        return False
    vals = np.sort(g[geo.units], axis=1)
    return bool(np.all(vals == np.arange(1, geo.N + 1)))


# ---------------------------------------------------------------- tokenising
def _split_header(lines: list[str], first_line: int):
    """Separate ``%``/``#`` header lines from the body.

    Returns (label, metadata, body) where body is a list of (line_no, text).
    """
    label = None
    meta: dict[str, str] = {}
    body = []
    for i, raw in enumerate(lines):
        no = first_line + i
        s = raw.strip()
        if s.startswith("%"):
            text = s[1:].strip()
            label = text or label
        elif s.startswith("#"):
            code, value = s[1:2], s[2:].strip()
            if code == "D":
                label = value or label
            elif code in _SDK_CODES:
                meta[_SDK_CODES[code]] = value
        else:
            body.append((no, raw))
    return label, meta, body


def _tokens(body):
    """Whitespace/``|`` separated tokens with their 1-based (line, column), skipping separator lines."""
    toks = []
    content_lines = []
    for no, raw in body:
        if _SEPARATOR_LINE.match(raw):
            continue
        content_lines.append(no)
        for m in re.finditer(r"[^\s|+,;-]+", raw):
            toks.append((m.group(), no, m.start() + 1))
    return toks, content_lines


_LUT = np.full(256, -1, dtype=np.int16)
_LUT[ord(".")] = _LUT[ord("0")] = 0
for _i, _ch in enumerate(SYMBOLS, 1):
    _LUT[ord(_ch)] = _LUT[ord(_ch.lower())] = _i


def _fast_line(body, n):
    """The common case, one compact line of symbols, decoded with a lookup table (or None)."""
    if len(body) != 1:
        return None
    raw = body[0][1].strip().encode("ascii", "replace")
    size = box_size_for_cells(len(raw))
    if size is None or (n is not None and n != size):
        return None
    vals = _LUT[np.frombuffer(raw, dtype=np.uint8)]
    if vals.min() < 0 or vals.max() > size * size:
        return None  # let the slow path name the line and column
    return vals, size


def _parse_cells(body, n):
    """Parse the body lines into (grid, n), raising PuzzleError with positions."""
    fast = _fast_line(body, n)
    if fast is not None:
        return fast
    toks, content_lines = _tokens(body)
    if not toks:
        raise PuzzleError("no puzzle found: the input is empty", kind="empty")
    counts = {n_: n_**4 for n_ in BOX_SIZES}
    numeric = (all(t == "." or t.isdigit() for t, _, _ in toks) and len(toks) in counts.values()
               and any(len(t) > 1 for t, _, _ in toks))
    if numeric:
        size = box_size_for_cells(len(toks)) if n is None else n
        return _numeric_cells(toks, size), size
    cells = []
    for tok, line, col in toks:
        for k, ch in enumerate(tok):
            if not _CELL_CHAR.fullmatch(ch):
                raise PuzzleError(f"line {line}, column {col + k}: unexpected character {ch!r} "
                                  f"(digits are 1-9 then A-Z, {_BLANK_HELP})",
                                  kind="bad_character", line=line, column=col + k)
            cells.append((ch, line, col + k))
    size = n if n is not None else box_size_for_cells(len(cells))
    if size is None or len(cells) != size**4:
        _raise_cell_count(cells, content_lines, body, size)
    N = size * size
    grid = []
    for ch, line, col in cells:
        v = _symbol_value(ch)
        if v < 0 or v > N:
            raise PuzzleError(f"line {line}, column {col}: {ch!r} is not a digit of a {size_text(size)} puzzle "
                              f"({_digits_help(N)}, {_BLANK_HELP})", kind="bad_symbol", line=line, column=col)
        grid.append(v)
    _check_row_lengths(cells, content_lines, N)
    return grid, size


def _raise_cell_count(cells, content_lines, body, size):
    """Say how many cells were found, for which size, and which row is short or long if rows are visible."""
    found = len(cells)
    if size is None:
        # Name the nearest size: "found 80 cells; a 9x9 puzzle has 81" is what the user needs to hear.
        size = min(BOX_SIZES, key=lambda k: abs(k**4 - found))
    N = size * size
    msg = f"found {found} cell{'' if found == 1 else 's'}; a {size_text(size)} puzzle has {N * N}"
    if len(content_lines) == N:
        per_line = {no: 0 for no in content_lines}
        for _, line, _ in cells:
            per_line[line] += 1
        odd = [no for no in content_lines if per_line[no] != N]
        if odd:
            msg += f" (line {odd[0]} has {per_line[odd[0]]} cells, not {N})"
    if any("-" in raw and not _SEPARATOR_LINE.match(raw) for _, raw in body):
        msg += " ('-' is read as a separator; write blanks as '.' or '0')"
    raise PuzzleError(msg, kind="cell_count", found=found)


def _numeric_cells(toks, size):
    N = size * size
    out = []
    for tok, line, col in toks:
        v = 0 if tok == "." else int(tok)
        if v > N:
            raise PuzzleError(f"line {line}, column {col}: {tok} is out of range for a {size_text(size)} puzzle "
                              f"(1-{N}, 0 or '.' for a blank)", kind="bad_symbol", line=line, column=col)
        out.append(v)
    return out


def _check_row_lengths(cells, content_lines, N):
    """A puzzle written as exactly N lines must have N cells on every line."""
    if len(content_lines) != N:
        return
    per_line = {no: 0 for no in content_lines}
    for _, line, _ in cells:
        per_line[line] += 1
    for no in content_lines:
        if per_line[no] != N:
            raise PuzzleError(f"line {no} has {per_line[no]} cells; each of the {N} rows needs {N}",
                              kind="cell_count", line=no, found=per_line[no])


# --------------------------------------------------------------- collections
def parse_collection(text: str, *, source: str | None = None, n: int | None = None,
                     allow_clashes: bool = False) -> list[Puzzle]:
    """Read every puzzle of a collection.

    Detects CSV (a header with a ``puzzle`` column; ``name``, ``solution`` and
    other columns become name, solution and metadata), Kennett files (boards
    after ``%`` lines), one puzzle per line (``#`` comment lines and blank lines
    ignored), and multi-line grids separated by blank lines. A single puzzle in
    any format is a collection of one.

    Errors carry the line number in ``text``; ``source`` (a file name) prefixes
    the message. ``allow_clashes`` accepts clashing givens (for an editor).
    """
    try:
        return _parse_collection(text, n, allow_clashes)
    except PuzzleError as e:
        if source:
            raise PuzzleError(f"{source}: {e}", kind=e.kind, line=e.line, column=e.column, cells=e.cells,
                              digit=e.digit, found=e.found) from None
        raise


def _parse_collection(text, n, allow_clashes=False):
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    if "," in first and "puzzle" in [h.strip().lower() for h in first.split(",")]:
        return _parse_csv(text, n, allow_clashes)
    if any(ln.lstrip().startswith("%") for ln in lines):
        return _parse_blocks(lines, n, lambda s: s.lstrip().startswith("%"), allow_clashes)
    content = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if len(content) > 1 and _cells_on_line(content[0][1]) in _CELL_COUNTS and not _is_one_grid(content):
        # One puzzle per line (the first line is a whole puzzle): errors name their line.
        return [_parse_line(ln, i, n, allow_clashes) for i, ln in content]
    blocks = _blank_line_blocks(lines)
    if len(blocks) > 1:
        return [Puzzle.parse("\n".join(b), n=n, first_line=start, allow_clashes=allow_clashes) for start, b in blocks]
    return [Puzzle.parse(text, n=n, allow_clashes=allow_clashes)]


_CELL_COUNTS = {n**4 for n in BOX_SIZES}


def _parse_line(line: str, line_no: int, n, allow_clashes: bool) -> Puzzle:
    try:
        return Puzzle.parse(line, n=n, first_line=line_no, allow_clashes=allow_clashes)
    except PuzzleError as e:
        if e.line is not None:
            raise
        raise PuzzleError(f"line {line_no}: {e}", kind=e.kind, line=line_no, cells=e.cells, digit=e.digit,
                          found=e.found) from None


def _cells_on_line(line: str) -> int:
    """Cells a line would hold on its own (symbols, or numbers when it holds a multi-digit number)."""
    toks = re.findall(r"[^\s|+,;-]+", line)
    if (len(toks) in _CELL_COUNTS and any(len(t) > 1 for t in toks)
            and all(t.isdigit() or t == "." for t in toks)):
        return len(toks)  # a whole puzzle as space-separated numbers
    return sum(len(t) for t in toks)


def _is_one_grid(content) -> bool:
    """True when L lines of L cells each form one L x L puzzle (16 lines of 16 symbols is one 16x16)."""
    L = len(content)
    return L * L in _CELL_COUNTS and all(_cells_on_line(ln) == L for _, ln in content)


def _blank_line_blocks(lines):
    blocks, cur, start = [], [], 1
    for i, ln in enumerate(lines, 1):
        if ln.strip():
            if not cur:
                start = i
            cur.append(ln)
        elif cur:
            blocks.append((start, cur))
            cur = []
    if cur:
        blocks.append((start, cur))
    return blocks


def _parse_blocks(lines, n, is_header, allow_clashes=False):
    out = []
    starts = [i for i, ln in enumerate(lines) if is_header(ln)]
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        chunk = [ln for ln in lines[s:end]]
        if any(ln.strip() for ln in chunk[1:]):
            out.append(Puzzle.parse("\n".join(chunk), n=n, first_line=s + 1, allow_clashes=allow_clashes))
    return out


def _parse_csv(text, n, allow_clashes=False):
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    lower = [h.lower() for h in header]
    col = lower.index("puzzle")
    name_col = lower.index("name") if "name" in lower else None
    sol_col = lower.index("solution") if "solution" in lower else None
    out = []
    for line_no, row in enumerate(reader, 2):
        if not row or not any(x.strip() for x in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) != len(header):
            raise PuzzleError(f"line {line_no}: {len(row)} fields, the header has {len(header)}",
                              kind="cell_count", line=line_no)
        meta = {h: row[i] for i, h in enumerate(header) if i not in (col, name_col, sol_col)}
        p = Puzzle.parse(row[col], n=n, first_line=line_no, allow_clashes=allow_clashes)
        sol = None
        if sol_col is not None and row[sol_col].strip():
            sol = Puzzle.parse(row[sol_col], n=p.n, first_line=line_no).grid
        name = row[name_col].strip() if name_col is not None else ""
        out.append(Puzzle(p.grid, n=p.n, name=name or None, metadata=meta, solution=sol))
    return out


def format_collection(puzzles: Iterable[Puzzle], fmt: str = "line") -> str:
    """Write puzzles as a collection that :func:`parse_collection` reads back.

    ``fmt`` is ``"line"`` (one per line; use ``"csv"`` to keep names and solutions),
    ``"csv"`` (name, puzzle, solution and metadata columns), ``"kennett"``,
    ``"grid"``, ``"numbers"`` or ``"sdk"`` (blocks separated by blank lines).
    """
    puzzles = list(puzzles)
    if fmt == "csv":
        extra = sorted({k for p in puzzles for k in p.metadata})
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["name", "puzzle", "solution", *extra])
        for p in puzzles:
            sol = "" if p.solution is None else Puzzle(p.solution, n=p.n).to_line()
            w.writerow([p.name or "", p.to_line(), sol, *[p.metadata.get(k, "") for k in extra]])
        return buf.getvalue()
    if fmt == "line":
        return "\n".join(p.to_line() for p in puzzles) + "\n"
    if fmt == "kennett":
        return "\n".join(p.to_kennett() for p in puzzles) + "\n"
    if fmt in ("grid", "numbers", "sdk"):
        return "\n\n".join(p.format(fmt) for p in puzzles) + "\n"
    raise ValueError(f"unknown collection format {fmt!r}; choose from csv, line, kennett, grid, numbers, sdk")


def load_puzzles(path, *, n: int | None = None, allow_clashes: bool = False) -> list[Puzzle]:
    """Read every puzzle of a file; unnamed puzzles are named after the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise PuzzleError(f"{path}: not a text file ({e.reason} at byte {e.start})", kind="bad_character") from None
    puzzles = parse_collection(text, source=str(path), n=n, allow_clashes=allow_clashes)
    if not puzzles:
        raise PuzzleError(f"{path}: no puzzle found", kind="empty")
    if len(puzzles) == 1:
        return [puzzles[0] if puzzles[0].name else puzzles[0].replace(name=path.stem)]
    return [p if p.name else p.replace(name=f"{path.stem}:{i}") for i, p in enumerate(puzzles, 1)]


def load_puzzle(path, *, n: int | None = None) -> Puzzle:
    """Read the one puzzle of a file (the first, if the file holds several)."""
    return load_puzzles(path, n=n)[0]
