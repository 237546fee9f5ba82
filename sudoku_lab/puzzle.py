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
column, Kennett files, blank-line separated grids) are read, in bounded
memory, and written by :mod:`sudoku_lab.collection_io`.

Everything a user can get wrong raises :class:`~sudoku_lab.errors.PuzzleError`
whose message says what and where (line and column, cells, digit).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from .errors import PuzzleError, PuzzleTypeError
from .geometry import BOX_SIZES, SYMBOLS, Geometry, as_grid, box_size_for_cells, cell_name, geometry, size_text

__all__ = ["Puzzle", "FORMATS", "MAX_CELLS", "MAX_PUZZLE_CHARS", "is_valid_solution"]

#: Names of the formats :meth:`Puzzle.format` writes.
FORMATS = ("line", "numbers", "grid", "kennett", "sdk")

#: The most cells a puzzle has (25 x 25) and the longest text :meth:`Puzzle.parse` reads: far more than
#: any way of writing one puzzle needs, and a bound on the memory a mistaken input can take.
MAX_CELLS = 625
MAX_PUZZLE_CHARS = 1_000_000

_EMPTY_METADATA = MappingProxyType({})
_SDK_CODES = {"A": "author", "C": "comment", "B": "date", "S": "source", "L": "level", "U": "url"}
_SDK_KEYS = {v: k for k, v in _SDK_CODES.items()}
_SEPARATOR_LINE = re.compile(r"^[\s\-+|*=,;]*$")
_CELL_CHAR = re.compile(r"[0-9A-Za-z.]")
_BLANK_HELP = "'.' or '0' for a blank"


def _digits_help(N: int) -> str:
    last = SYMBOLS[N - 1]
    return f"digits 1-{last}" if N <= 9 else f"digits 1-9 and A-{last}"


def _as_text(text) -> str:
    """``text`` as str: bytes are decoded as UTF-8; anything else is a PuzzleTypeError."""
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = 1 + data.count(b"\n", 0, e.start)
            raise PuzzleError(f"line {line}: byte 0x{data[e.start]:02x} is not UTF-8 text", kind="bad_character",
                              line=line) from None
    raise PuzzleTypeError(f"a puzzle is read from text (str or bytes), got {type(text).__name__}; build one from "
                          "an array of digits with Puzzle(grid)")


def _is_number(tok: str) -> bool:
    """An ASCII number (``str.isdigit`` also accepts '²' and other digits ``int`` then refuses)."""
    return tok.isascii() and tok.isdigit()


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

    def renamed(self, name: str | None, **metadata) -> "Puzzle":
        """A copy with another name and (optionally) extra metadata entries; cheap, for whole collections."""
        meta = {**self._metadata, **metadata} if metadata else self._metadata
        return Puzzle._trusted(self._grid, self._n, name, meta, self._solution)

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
        PuzzleError
            Empty input, a bad character (line and column), a symbol out of
            range, the wrong number of cells (how many were found), clashing
            givens (both cells and the digit); :class:`PuzzleTypeError` (also
            a TypeError) for something that is not text.
        """
        text = _as_text(text)
        if len(text) > MAX_PUZZLE_CHARS:
            raise PuzzleError(f"the text has {len(text):,} characters; one puzzle (at most {MAX_CELLS} cells, "
                              f"25x25) never needs more than {MAX_PUZZLE_CHARS:,}", kind="cell_count")
        lines = text.splitlines() or [""]
        label, meta, body = _split_header(lines, first_line)
        grid, n = _parse_cells(body, n)
        p = cls(grid, n=n, name=name if name is not None else label, metadata=meta)
        if not allow_clashes:
            p.check_clashes()
        return p

    @classmethod
    def _trusted(cls, grid: np.ndarray, n: int, name, metadata, solution) -> "Puzzle":
        """Build from arrays already checked (read-only int8 of the right size): the bulk readers' fast path."""
        p = object.__new__(cls)
        p._grid = grid
        p._n = n
        p._name = name
        p._metadata = (_EMPTY_METADATA if not metadata else metadata if isinstance(metadata, MappingProxyType)
                       else MappingProxyType(metadata))
        p._solution = solution
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
    numeric = (all(t == "." or _is_number(t) for t, _, _ in toks) and len(toks) in counts.values()
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
        if len(cells) > MAX_CELLS:
            raise PuzzleError(f"found more than {MAX_CELLS} cells by line {line}; the largest puzzle (25x25) has "
                              f"{MAX_CELLS}", kind="cell_count", line=line, found=len(cells))
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
