"""Puzzle collections: reading texts, files and standard input in bounded memory, and writing them.

One reader serves every source: :func:`iter_collection` takes numbered lines
and yields puzzles one at a time, so a collection of a million puzzles is
checked or solved as it is read, and only what the caller keeps stays in
memory. :func:`parse_collection` (a text), :func:`load_puzzles` (a file) and
:func:`iter_puzzles` (a file or a binary stream, lazily) all go through it.

Formats, detected from the first lines:

- CSV with a ``puzzle`` column (``name``, ``solution`` and other columns
  become the name, the solution and metadata); a CSV header without one is
  an error saying so, not a puzzle with too many cells;
- Kennett files: boards after ``%`` lines;
- one puzzle per line (``#`` comment lines and blank lines ignored);
- multi-line grids (or ``.sdk`` puzzles) separated by blank lines; a single
  puzzle in any format is a collection of one.

CSV and one-per-line files, the formats of large collections, are decoded in
batches with numpy (about a microsecond per puzzle); other lines fall back to
:meth:`Puzzle.parse`, whose errors name the line and column. Guards keep a
mistaken input from exhausting memory: a line longer than
:data:`MAX_LINE_BYTES`, or one puzzle spread over more than
:data:`MAX_PUZZLE_CHARS` characters, is refused with its line number.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
import typing
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from .._checks import checked, checked_puzzle_text
from ..errors import DataFileError, PuzzleError
from ..files import open_binary, os_reason
from .formats import MAX_PUZZLE_CHARS, SYMBOL_LUT, as_text, is_ascii_number
from .geometry import BOX_SIZES, geometry
from .puzzle import Puzzle

__all__ = [
    "iter_collection",
    "iter_puzzles",
    "parse_collection",
    "load_puzzles",
    "load_puzzle",
    "format_collection",
    "MAX_LINE_BYTES",
]

#: The longest line read: a 25x25 puzzle with its solution and metadata on one CSV line is under 2 kB.
MAX_LINE_BYTES = 1 << 20
#: Puzzles decoded together on the fast path.
_BATCH = 2048
_CELL_COUNTS = {n**4 for n in BOX_SIZES}

#: ``progress(bytes_read, bytes_total)``; bytes_total is None for a stream of unknown length.
ProgressFn = Callable[[int, "int | None"], object]


# ------------------------------------------------------------------- lines
def _binary_lines(fh, source: str, total: int | None, progress: ProgressFn | None) -> Iterator[tuple[int, str]]:
    """Numbered text lines of a binary stream: bounded in length, UTF-8 checked line by line."""
    no = 0
    done = 0
    while True:
        try:
            raw = fh.readline(MAX_LINE_BYTES + 1)
        except OSError as e:
            raise DataFileError(f"cannot read {source}: {os_reason(e)}") from None
        if not raw:
            break
        no += 1
        done += len(raw)
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise PuzzleError(
                f"line {no} is longer than {MAX_LINE_BYTES // (1 << 20)} MB: not a puzzle collection",
                kind="cell_count",
                line=no,
            )
        if no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise PuzzleError(
                f"not a text file: line {no} holds byte 0x{raw[e.start]:02x}, which is not UTF-8",
                kind="bad_character",
                line=no,
            ) from None
        if progress is not None and no % 4096 == 0:
            progress(done, total)
        yield no, text.rstrip("\r\n")
    if progress is not None:
        progress(done, total)


def _text_lines(text: str) -> Iterator[tuple[int, str]]:
    return enumerate(text.splitlines(), 1)


# ------------------------------------------------------------------ reader
@checked
def iter_collection(
    lines: Iterable[tuple[int, str]], *, n: int | None = None, allow_clashes: bool = False
) -> Iterator[Puzzle]:
    """Puzzles of a collection given as ``(line number, text)`` pairs, yielded as they are read.

    The format is decided from the first lines (see the module docstring);
    memory stays bounded by one batch of puzzles, whatever the input's size.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleError
        At the first bad puzzle, naming its line (and column); the puzzles
        before it have been yielded.
    """
    it = iter(lines)
    head: list[tuple[int, str]] = []
    first = None
    for no, ln in it:
        head.append((no, ln))
        s = ln.strip()
        if s and not s.startswith("#"):
            first = s
            break
    if first is None:  # only blank lines and comments
        yield Puzzle.parse("\n".join(ln for _, ln in head), n=n, allow_clashes=allow_clashes)
        return
    if "," in first and "puzzle" in [h.strip().lower() for h in first.split(",")]:
        yield from _csv_rows(head[-1], it, n, allow_clashes)
        return
    if _csv_header_without_puzzle(first):
        no = head[-1][0]
        raise PuzzleError(
            f"line {no}: a CSV header ({', '.join(h.strip() for h in first.split(','))}) without a "
            "'puzzle' column: name the column that holds the puzzles 'puzzle'",
            kind="csv_header",
            line=no,
        )
    if first.startswith("%"):
        yield from _blocks(head[-1:], it, n, allow_clashes, kennett=True)
        return
    cells = _cells_on_line(first)
    if cells in _CELL_COUNTS:
        # One puzzle per line, unless there is only one line, or the file is one 16x16 grid
        # written as 16 lines of 16 symbols (each of which would also be a 4x4 puzzle).
        content = [(head[-1])]
        for no, ln in it:
            head.append((no, ln))
            if ln.strip() and not ln.lstrip().startswith("#"):
                content.append((no, ln))
                if len(content) > 16 or cells != 16:
                    break
        one_grid = len(content) == 16 and all(_cells_on_line(ln) == 16 for _, ln in content)
        if len(content) > 1 and not one_grid:
            yield from _one_per_line(content, it, n, allow_clashes)
            return
    yield from _blocks(head, it, n, allow_clashes, kennett=False)


#: A CSV column name: a word of two characters or more.
_COLUMN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]*[A-Za-z0-9_]")
#: What a puzzle's symbols never hold (they are 1-9, then A-P for 16x16 and 25x25, usually in capitals).
_NOT_SYMBOLS = re.compile(r"[a-zQ-Z_ ]")


def _csv_header_without_puzzle(line: str) -> bool:
    """True for a first line that is a CSV header (comma-separated names, one a word) with no ``puzzle`` column.

    A word is a name when it holds what no row of puzzle symbols holds (a
    small letter, a letter after P, a space or an underscore), so ``ABCD,EFGH``
    stays a row of a 16x16 grid.
    """
    fields = [f.strip() for f in line.split(",")]
    return (
        len(fields) >= 2
        and all(fields)
        and all(len(f) <= 40 for f in fields)
        and any(_COLUMN_NAME.fullmatch(f) and _NOT_SYMBOLS.search(f) for f in fields)
        and "puzzle" not in (f.lower() for f in fields)
    )


def _cells_on_line(line: str) -> int:
    """Cells a line would hold on its own (symbols, or numbers when it holds a multi-digit number)."""
    toks = re.findall(r"[^\s|+,;-]+", line)
    if (
        len(toks) in _CELL_COUNTS
        and any(len(t) > 1 for t in toks)
        and all(is_ascii_number(t) or t == "." for t in toks)
    ):
        return len(toks)  # a whole puzzle as space-separated numbers
    return sum(len(t) for t in toks)


def _blocks(head, it, n, allow_clashes, kennett: bool) -> Iterator[Puzzle]:
    """Multi-line puzzles: blocks separated by blank lines, or (Kennett) each from a ``%`` line to the next.

    A block of ``#`` lines only (a title above the first grid) holds no puzzle and is skipped.
    """
    block: list[tuple[int, str]] = []
    size = 0
    found = 0

    def parse():
        if kennett and not any(ln.strip() for _, ln in block[1:]):
            return None  # a % line with no board after it
        if not kennett and all(ln.lstrip().startswith("#") for _, ln in block):
            return None
        text = "\n".join(ln for _, ln in block)
        return Puzzle.parse(text, n=n, first_line=block[0][0], allow_clashes=allow_clashes)

    for no, ln in _chain(head, it):
        starts = ln.lstrip().startswith("%") if kennett else bool(ln.strip())
        if block and (starts if kennett else not ln.strip()):
            p = parse()
            if p is not None:
                found += 1
                yield p
            block, size = [], 0
        if not block and not starts:
            continue  # blank lines between blocks; lines before the first % line
        block.append((no, ln))
        size += len(ln) + 1
        if size > MAX_PUZZLE_CHARS:
            raise PuzzleError(
                f"line {no}: the puzzle starting on line {block[0][0]} runs past "
                f"{MAX_PUZZLE_CHARS:,} characters: not a puzzle",
                kind="cell_count",
                line=no,
            )
    if block:
        p = parse()
        if p is not None:
            found += 1
            yield p
    if not found:
        raise PuzzleError("no puzzle found: the input holds only comments", kind="empty")


def _chain(head, it):
    yield from head
    yield from it


def _one_per_line(content, it, n, allow_clashes) -> Iterator[Puzzle]:
    batch: list[_Row] = []
    for no, ln in _chain(content, it):
        s = ln.strip()
        if not s or s.startswith("#"):
            continue
        batch.append(_Row(no, s))
        if len(batch) >= _BATCH:
            yield from _decode(batch, n, allow_clashes)
            batch = []
    yield from _decode(batch, n, allow_clashes)


def _csv_rows(header_line, it, n, allow_clashes) -> Iterator[Puzzle]:
    hno, htext = header_line
    header = [h.strip() for h in next(csv.reader([htext]))]
    lower = [h.lower() for h in header]
    col = lower.index("puzzle")
    name_col = lower.index("name") if "name" in lower else None
    sol_col = lower.index("solution") if "solution" in lower else None
    others = [(i, h) for i, h in enumerate(header) if i not in (col, name_col, sol_col)]
    current = [hno]

    def numbered():
        for no, ln in it:
            current[0] = no
            yield ln

    batch: list[_Row] = []
    for row in csv.reader(numbered()):
        no = current[0]
        if not row or not any(x.strip() for x in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) != len(header):
            yield from _decode(batch, n, allow_clashes)
            batch = []
            raise PuzzleError(f"line {no}: {len(row)} fields, the header has {len(header)}", kind="cell_count", line=no)
        name = row[name_col].strip() if name_col is not None else ""
        sol = row[sol_col].strip() if sol_col is not None else ""
        batch.append(_Row(no, row[col], name or None, {h: row[i] for i, h in others}, sol or None))
        if len(batch) >= _BATCH:
            yield from _decode(batch, n, allow_clashes)
            batch = []
    yield from _decode(batch, n, allow_clashes)


class _Row:
    """One puzzle of a line-oriented collection, before decoding."""

    __slots__ = ("no", "text", "name", "meta", "solution")

    def __init__(self, no, text, name=None, meta=None, solution=None):
        self.no, self.text, self.name, self.meta, self.solution = no, text, name, meta, solution


def _compact(texts: list[str], n: int | None) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Decode compact lines of one size with a lookup table: (values (B, C) int16, ok mask (B,), box size)."""
    B = len(texts)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=B)
    size = n
    if size is None:
        for L in lengths[:64]:
            if int(L) in _CELL_COUNTS:
                size = round(int(L) ** 0.25)
                break
    if size is None or size not in BOX_SIZES:
        return np.zeros((B, 0), np.int16), np.zeros(B, bool), None
    C = size**4
    ok = (lengths == C) & np.fromiter((t.isascii() for t in texts), dtype=bool, count=B)
    vals = np.zeros((B, C), np.int16)
    idx = np.flatnonzero(ok)
    if idx.size:
        buf = "".join(texts[i] for i in idx).encode("ascii")
        v = SYMBOL_LUT[np.frombuffer(buf, dtype=np.uint8)].reshape(idx.size, C)
        good = (v.min(axis=1) >= 0) & (v.max(axis=1) <= size * size)
        vals[idx] = v
        ok[idx[~good]] = False
    return vals, ok, size


def _clashing(vals: np.ndarray, size: int) -> np.ndarray:
    """Rows (B,) of ``vals`` (B, C) whose givens clash in a unit."""
    if vals.shape[0] == 0:
        return np.zeros(0, bool)
    # Each digit as a bit: a unit's bits sum to their OR exactly when no digit repeats.
    bits = np.where(vals > 0, np.left_shift(1, vals.astype(np.int64)), 0)[:, geometry(size).units]
    # (The ignore: numpy 2.5's stubs have no overload of reduce(axis=int) without out or keepdims.)
    ored = np.bitwise_or.reduce(bits, axis=2)  # type: ignore[call-overload, unused-ignore]
    return np.any(bits.sum(axis=2) != ored, axis=1)


def _decode(batch: list[_Row], n, allow_clashes) -> Iterator[Puzzle]:
    """Yield the batch's puzzles in order: the fast path where it applies, Puzzle.parse for the rest."""
    if not batch:
        return
    texts = [r.text.strip() for r in batch]
    vals, ok, size = _compact(texts, n)
    bad = np.zeros(len(batch), bool) if allow_clashes or size is None else _clashing(vals, size)
    fast = ok & ~bad
    grids = vals.astype(np.int8)
    grids.setflags(write=False)
    sols = _solutions(batch, size, fast) if any(r.solution for r in batch) else {}
    for i, r in enumerate(batch):
        if fast[i]:
            yield Puzzle._trusted(grids[i], size, r.name, r.meta, sols.get(i))
            continue
        try:
            p = Puzzle.parse(r.text, n=n, first_line=r.no, allow_clashes=allow_clashes)
            sol = None
            if r.solution:
                sol = Puzzle.parse(r.solution, n=p.n, first_line=r.no).grid
        except PuzzleError as e:
            if e.line is not None:
                raise
            raise PuzzleError(
                f"line {r.no}: {e}", kind=e.kind, line=r.no, cells=e.cells, digit=e.digit, found=e.found
            ) from None
        if r.name or r.meta or sol is not None:
            p = Puzzle(p.grid, n=p.n, name=r.name, metadata=r.meta, solution=sol)
        yield p


def _solutions(batch: list[_Row], size, fast) -> dict[int, np.ndarray]:
    """Decoded solutions of the fast-path rows whose solution decodes cleanly (the others go the slow way)."""
    idx = [i for i, r in enumerate(batch) if fast[i] and r.solution]
    if not idx:
        return {}
    vals, ok, _ = _compact([batch[i].solution.strip() for i in idx], size)
    ok &= ~_clashing(vals, size)
    grids = vals.astype(np.int8)
    grids.setflags(write=False)
    out = {}
    for k, i in enumerate(idx):
        if ok[k]:
            out[i] = grids[k]
        else:
            fast[i] = False  # let Puzzle.parse name what is wrong with the solution
    return out


# -------------------------------------------------------------- front ends
@checked_puzzle_text
def parse_collection(
    text: str | bytes, *, source: str | None = None, n: int | None = None, allow_clashes: bool = False
) -> list[Puzzle]:
    """Read every puzzle of a collection given as text.

    Errors carry the line number in ``text``; ``source`` (a file name)
    prefixes the message. ``allow_clashes`` accepts clashing givens (for an
    editor).
    """
    try:
        return list(iter_collection(_text_lines(as_text(text)), n=n, allow_clashes=allow_clashes))
    except PuzzleError as e:
        raise _with_source(e, source) from None


def _with_source(e: PuzzleError, source: str | None) -> PuzzleError:
    if not source:
        return e
    return PuzzleError(
        f"{source}: {e}", kind=e.kind, line=e.line, column=e.column, cells=e.cells, digit=e.digit, found=e.found
    )


@checked
def iter_puzzles(
    source: str | os.PathLike[str] | typing.BinaryIO,
    *,
    n: int | None = None,
    allow_clashes: bool = False,
    name: str | None = None,
    progress: ProgressFn | None = None,
) -> Iterator[Puzzle]:
    """The puzzles of a file (a path) or a binary stream, lazily, named like :func:`load_puzzles` names them.

    Parameters
    ----------
    source : str, Path or binary file object
    name : str, optional
        What errors call the source and what unnamed puzzles are named after
        (default: the file's path and stem).
    progress : callable, optional
        ``progress(bytes_read, bytes_total)`` every few thousand lines.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    DataFileError
        The file cannot be opened or read (missing, a directory, no permission).
    PuzzleError
        At the first bad puzzle, prefixed with the source's name.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        with open_binary(path, "puzzle file") as fh:  # a FIFO or a device too: read as a stream, lines bounded
            st = os.fstat(fh.fileno())
            total = st.st_size if stat.S_ISREG(st.st_mode) else None
            yield from _named(
                iter_collection(_binary_lines(fh, str(path), total, progress), n=n, allow_clashes=allow_clashes),
                name or str(path),
                path.stem,
            )
    else:
        label = name or getattr(source, "name", None) or "<stream>"
        yield from _named(
            iter_collection(_binary_lines(source, str(label), None, progress), n=n, allow_clashes=allow_clashes),
            str(label),
            str(label),
        )


def _named(puzzles: Iterator[Puzzle], source: str, stem: str) -> Iterator[Puzzle]:
    """Prefix errors with ``source``; name an unnamed single puzzle ``stem``, several ``stem:k``."""
    try:
        first = next(puzzles, None)
        if first is None:
            raise PuzzleError("no puzzle found", kind="empty")
        try:
            second = next(puzzles, None)
        except PuzzleError:
            # The look-ahead that names the first puzzle met a bad second one: the first is still given (one of
            # several, so stem:1) before the error, as every puzzle before a bad one is.
            yield first if first.name else first.renamed(f"{stem}:1")
            raise
        if second is None:
            yield first if first.name else first.renamed(stem)
            return
        for k, p in enumerate(_chain([first, second], puzzles), 1):
            yield p if p.name else p.renamed(f"{stem}:{k}")
    except PuzzleError as e:
        raise _with_source(e, source) from None


@checked
def load_puzzles(
    path: str | os.PathLike[str],
    *,
    n: int | None = None,
    allow_clashes: bool = False,
    progress: ProgressFn | None = None,
) -> list[Puzzle]:
    """Read every puzzle of a file; unnamed puzzles are named after the file (``stem`` or ``stem:k``).

    Raises
    ------
    ParameterTypeError
        ``path`` is not a str or PathLike, or another argument of the wrong kind.
    DataFileError
        The file cannot be read.
    PuzzleError
        A puzzle that cannot be read or is not a proper Sudoku (with its line).
    """
    return list(iter_puzzles(path, n=n, allow_clashes=allow_clashes, progress=progress))


@checked
def load_puzzle(path: str | os.PathLike[str], *, n: int | None = None) -> Puzzle:
    """Read the first puzzle of a file (the rest of the file is not read).

    Raises
    ------
    ParameterTypeError
        ``path`` is not a str or PathLike, or ``n`` not an int.
    DataFileError
        The file cannot be read.
    PuzzleError
        The first puzzle cannot be read or is not a proper Sudoku.
    """
    return next(iter_puzzles(path, n=n))


@checked
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
