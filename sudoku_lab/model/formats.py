"""Text formats of one puzzle: reading (every format detected automatically) and writing.

Formats read and written:

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

This module works on plain grids (int arrays, 0 for a blank) and never builds a
:class:`~sudoku_lab.model.puzzle.Puzzle`: :meth:`Puzzle.parse <sudoku_lab.model.puzzle.Puzzle.parse>`
and :meth:`Puzzle.format <sudoku_lab.model.puzzle.Puzzle.format>` are the usual entry
points and call :func:`read` and :func:`write`. Collections (many puzzles in one
text or file) are :mod:`sudoku_lab.model.collections`.

Everything a user can get wrong raises :class:`~sudoku_lab.errors.PuzzleError`
whose message says what and where (line and column, cells, digit).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .._checks import checked, checked_puzzle_text
from ..errors import PuzzleError, PuzzleTypeError
from .geometry import BOX_SIZES, SYMBOLS, box_size_for_cells, size_text

__all__ = [
    "FORMATS",
    "MAX_CELLS",
    "MAX_PUZZLE_CHARS",
    "Parsed",
    "read",
    "write",
    "write_line",
    "write_numbers",
    "write_grid",
    "write_kennett",
    "write_sdk",
    "as_text",
    "is_ascii_number",
    "SYMBOL_LUT",
]

#: Names of the formats :func:`write` (and :meth:`Puzzle.format`) writes.
FORMATS = ("line", "numbers", "grid", "kennett", "sdk")

#: The most cells a puzzle has (25 x 25) and the longest text :func:`read` accepts: far more than any
#: way of writing one puzzle needs, and a bound on the memory a mistaken input can take.
MAX_CELLS = 625
MAX_PUZZLE_CHARS = 1_000_000

_SDK_CODES = {"A": "author", "C": "comment", "B": "date", "S": "source", "L": "level", "U": "url"}
_SDK_KEYS = {v: k for k, v in _SDK_CODES.items()}
_SEPARATOR_LINE = re.compile(r"^[\s\-+|*=,;]*$")
_CELL_CHAR = re.compile(r"[0-9A-Za-z.]")
_BLANK_HELP = "'.' or '0' for a blank"

#: Digit of every byte of a compact line: 0 for ``.`` and ``0``, 1..35 for the symbols (either
#: case), -1 for anything else. The bulk readers of :mod:`sudoku_lab.model.collections` decode with it.
SYMBOL_LUT = np.full(256, -1, dtype=np.int16)
SYMBOL_LUT[ord(".")] = SYMBOL_LUT[ord("0")] = 0
for _i, _ch in enumerate(SYMBOLS, 1):
    SYMBOL_LUT[ord(_ch)] = SYMBOL_LUT[ord(_ch.lower())] = _i
del _i, _ch


@checked
class Parsed(NamedTuple):
    """What :func:`read` found in one puzzle's text.

    Attributes
    ----------
    grid : list of int or ndarray of int16, length C
        Digits in reading order, 0 for a blank (not yet checked for clashes).
    n : int
        Box size.
    name : str or None
        The last ``%`` comment or ``#D`` description, if any.
    metadata : dict of str to str
        The other ``.sdk`` header fields (author, comment, date, source, level, url).
    """

    grid: object
    n: int
    name: str | None
    metadata: dict


def _digits_help(N: int) -> str:
    last = SYMBOLS[N - 1]
    return f"digits 1-{last}" if N <= 9 else f"digits 1-9 and A-{last}"


@checked_puzzle_text
def as_text(text: str | bytes | bytearray | memoryview) -> str:
    """``text`` as str: bytes are decoded as UTF-8; anything else is a PuzzleTypeError."""
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = 1 + data.count(b"\n", 0, e.start)
            raise PuzzleError(
                f"line {line}: byte 0x{data[e.start]:02x} is not UTF-8 text", kind="bad_character", line=line
            ) from None
    raise PuzzleTypeError(
        f"a puzzle is read from text (str or bytes), got {type(text).__name__}; build one from "
        "an array of digits with Puzzle(grid)"
    )


@checked
def is_ascii_number(tok: str) -> bool:
    """An ASCII number (``str.isdigit`` also accepts '²' and other digits ``int`` then refuses)."""
    return _ascii_number(tok)


def _ascii_number(tok: str) -> bool:
    # Unchecked, for the reader's loop over every token: the checks would make reading numbers 20 % slower.
    return tok.isascii() and tok.isdigit()


def _symbol_value(ch: str) -> int:
    """Digit of a cell character (0 for a blank), or -1 if it is not a symbol."""
    if ch in ".0":
        return 0
    idx = SYMBOLS.find(ch.upper())
    return idx + 1 if idx >= 0 else -1


# ------------------------------------------------------------------ reading
@checked_puzzle_text
def read(text: str | bytes, *, n: int | None = None, first_line: int = 1) -> Parsed:
    """Read one puzzle's cells and header in any supported format.

    Parameters
    ----------
    text : str or bytes
        The puzzle text (bytes are read as UTF-8).
    n : int, optional
        Expected box size; inferred from the number of cells when omitted.
    first_line : int
        Line number of the text's first line, so errors point into the
        enclosing file.

    Returns
    -------
    Parsed

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleError
        Empty input, a bad character (line and column), a symbol out of
        range, the wrong number of cells (how many were found);
        :class:`PuzzleTypeError` (also a TypeError) for something that is not
        text. Clashing givens are not checked here.
    """
    source = as_text(text)
    if len(source) > MAX_PUZZLE_CHARS:
        raise PuzzleError(
            f"the text has {len(source):,} characters; one puzzle (at most {MAX_CELLS} cells, "
            f"25x25) never needs more than {MAX_PUZZLE_CHARS:,}",
            kind="cell_count",
        )
    lines = source.splitlines() or [""]
    label, meta, body = _split_header(lines, first_line)
    grid, size = _parse_cells(body, n)
    return Parsed(grid, size, label, meta)


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


def _fast_line(body, n):
    """The common case, one compact line of symbols, decoded with a lookup table (or None)."""
    if len(body) != 1:
        return None
    raw = body[0][1].strip().encode("ascii", "replace")
    size = box_size_for_cells(len(raw))
    if size is None or (n is not None and n != size):
        return None
    vals = SYMBOL_LUT[np.frombuffer(raw, dtype=np.uint8)]
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
    numeric = (
        all(t == "." or _ascii_number(t) for t, _, _ in toks)
        and len(toks) in counts.values()
        and any(len(t) > 1 for t, _, _ in toks)
    )
    if numeric:
        size = box_size_for_cells(len(toks)) if n is None else n
        return _numeric_cells(toks, size), size
    cells = []
    for tok, line, col in toks:
        for k, ch in enumerate(tok):
            if not _CELL_CHAR.fullmatch(ch):
                raise PuzzleError(
                    f"line {line}, column {col + k}: unexpected character {ch!r} "
                    f"(digits are 1-9 then A-Z, {_BLANK_HELP})",
                    kind="bad_character",
                    line=line,
                    column=col + k,
                )
            cells.append((ch, line, col + k))
        if len(cells) > MAX_CELLS:
            raise PuzzleError(
                f"found more than {MAX_CELLS} cells by line {line}; the largest puzzle (25x25) has {MAX_CELLS}",
                kind="cell_count",
                line=line,
                found=len(cells),
            )
    size = n if n is not None else box_size_for_cells(len(cells))
    if size is None or len(cells) != size**4:
        _raise_cell_count(cells, content_lines, body, size)
    N = size * size
    grid = []
    for ch, line, col in cells:
        v = _symbol_value(ch)
        if v < 0 or v > N:
            raise PuzzleError(
                f"line {line}, column {col}: {ch!r} is not a digit of a {size_text(size)} puzzle "
                f"({_digits_help(N)}, {_BLANK_HELP})",
                kind="bad_symbol",
                line=line,
                column=col,
            )
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
            raise PuzzleError(
                f"line {line}, column {col}: {tok} is out of range for a {size_text(size)} puzzle "
                f"(1-{N}, 0 or '.' for a blank)",
                kind="bad_symbol",
                line=line,
                column=col,
            )
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
            raise PuzzleError(
                f"line {no} has {per_line[no]} cells; each of the {N} rows needs {N}",
                kind="cell_count",
                line=no,
                found=per_line[no],
            )


# ------------------------------------------------------------------ writing
def _rows(grid, n: int) -> list[list[int]]:
    N = n * n
    return np.asarray(grid).reshape(N, N).tolist()


@checked
def write_line(grid: npt.ArrayLike, blank: str = ".") -> str:
    """N*N symbols on one line (``blank`` for empty cells)."""
    return "".join(blank if d == 0 else SYMBOLS[d - 1] for d in np.asarray(grid).reshape(-1).tolist())


@checked
def write_numbers(grid: npt.ArrayLike, n: int) -> str:
    """N lines of N space-separated numbers, 0 for a blank, right-aligned."""
    width = len(str(n * n))
    return "\n".join(" ".join(f"{d:>{width}}" for d in row) for row in _rows(grid, n))


@checked
def write_grid(grid: npt.ArrayLike, n: int, separators: bool = True) -> str:
    """N lines of symbols, with ``|`` and ``-+-`` box separators unless ``separators=False``."""
    rows = []
    for r, row in enumerate(_rows(grid, n)):
        syms = ["." if d == 0 else SYMBOLS[d - 1] for d in row]
        if not separators:
            rows.append("".join(syms))
            continue
        if r and r % n == 0:
            rows.append("+".join(["-" * (2 * n + 1)] * n)[1:-1])
        boxes = [" ".join(syms[b * n : (b + 1) * n]) for b in range(n)]
        rows.append(" | ".join(boxes))
    return "\n".join(rows)


@checked
def write_kennett(grid: npt.ArrayLike, n: int, name: str | None = None) -> str:
    """Kennett's compact format: a ``%`` comment line (the name) then N lines."""
    head = f"% {name}" if name else "%"
    return head + "\n" + write_grid(grid, n, separators=False)


@checked
def write_sdk(grid: npt.ArrayLike, n: int, name: str | None = None, metadata: Mapping[str, str] | None = None) -> str:
    """SadMan/SudoCue ``.sdk``: ``#`` metadata lines (``#D`` = name), then N lines."""
    metadata = metadata or {}
    head = []
    if name:
        head.append(f"#D{name}")
    for key, code in _SDK_KEYS.items():
        if key in metadata:
            head.append(f"#{code}{metadata[key]}")
    return "\n".join(head + [write_grid(grid, n, separators=False)])


@checked
def write(
    grid: npt.ArrayLike,
    n: int,
    fmt: str = "line",
    *,
    name: str | None = None,
    metadata: Mapping[str, str] | None = None,
) -> str:
    """Write a grid in one of :data:`FORMATS`; :func:`read` reads it back exactly.

    Parameters
    ----------
    grid : array_like of int, shape (C,) or (N, N)
        Digits, 0 for a blank.
    n : int
        Box size.
    fmt : str
        One of :data:`FORMATS`.
    name, metadata
        Written by the formats that carry them (``kennett``: the name; ``sdk``:
        the name and the ``.sdk`` header fields).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ValueError
        For an unknown format.
    """
    if fmt == "line":
        return write_line(grid)
    if fmt == "numbers":
        return write_numbers(grid, n)
    if fmt == "grid":
        return write_grid(grid, n)
    if fmt == "kennett":
        return write_kennett(grid, n, name)
    if fmt == "sdk":
        return write_sdk(grid, n, name, metadata)
    raise ValueError(f"unknown puzzle format {fmt!r}; choose from {', '.join(FORMATS)}")
