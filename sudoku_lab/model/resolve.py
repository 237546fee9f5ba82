"""What a puzzle argument names: a file, ``-`` (stdin), a bundled collection or puzzle, or the puzzle's own text.

The command line, the specification files of experiments and the lab window
all read a puzzle argument this one way, so one mistake gets one message
wherever it is made.
"""

from __future__ import annotations

import sys
from typing import Callable

from .._checks import checked

__all__ = ["resolve_puzzles", "resolve_puzzle"]


#: File suffixes that make an argument a path, not a puzzle's text or name.
_PATH_SUFFIXES = (".txt", ".csv", ".sdk", ".ss", ".sdm", ".tsv", ".dat", ".json", ".jsonl", ".gz")
_SEPARATORS = set(" \t\r\n|+-,;*=")


def _looks_like_puzzle_text(arg: str) -> bool:
    """True when an argument is far more likely a puzzle written out than a name or a path.

    Digits, dots and separators only is always text ("1234" is a puzzle too short). With
    letters (16x16 and 25x25 use A-Z), it is text when it holds about as many cells as a
    puzzle (within 10 %) and almost nothing else, so a mistyped name is never read as a
    puzzle with an "unexpected character '_'".
    """
    cells = sum(1 for ch in arg if ch.isascii() and (ch.isalnum() or ch == "."))
    other = sum(1 for ch in arg if not (ch.isascii() and (ch.isalnum() or ch == ".")) and ch not in _SEPARATORS)
    if not any(ch.isalpha() for ch in arg) and other == 0:
        return True
    near = any(abs(cells - n**4) <= 0.1 * n**4 for n in (2, 3, 4, 5))
    return near and other <= max(1, 0.05 * len(arg))


@checked
def resolve_puzzles(arg: str, progress: Callable[[int, int | None], object] | None = None, allow_clashes: bool = False):
    """The puzzles a command-line argument names, read lazily (an iterator).

    In order: ``-`` (standard input), an existing file (every puzzle in it),
    a bundled collection (``kennett/fiendish``), a bundled puzzle by name or
    ``collection:k``, else the argument's own text as a puzzle. Which reading
    applies is decided from the argument's form, so each mistake gets the
    error of what was meant: ``kennett/fiendish:999`` says the index is out of
    range, ``~/puzles/x.txt`` says there is no such file, a mistyped name
    suggests close names, and a puzzle with a stray character names its line
    and column. ``allow_clashes`` reads puzzles whose givens clash (the lab
    window opens them in its editor, the clashing cells outlined).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    PuzzleError
        An empty (or blank) argument, at once.
    PuzzleError, DataFileError
        When nothing matches or the file cannot be read (as the iterator is consumed).
    """
    import difflib
    import os
    from pathlib import Path

    from ..errors import PuzzleError
    from . import library
    from .collections import iter_puzzles
    from .puzzle import Puzzle

    if arg == "-":
        return iter_puzzles(sys.stdin.buffer, name="<stdin>", progress=progress, allow_clashes=allow_clashes)
    path = Path(os.path.expanduser(arg))
    if not arg.strip() and not _is(path.is_file):
        # Path("") is the current directory: an empty argument (a shell variable never set) was read as one.
        raise PuzzleError(
            "the puzzle argument is empty: give a file, '-' for standard input, a bundled puzzle or collection "
            "name, or the puzzle's text",
            kind="empty",
        )
    collections = [c.name for c in library.collections()]
    if _is(path.exists) and not (_is(path.is_dir) and arg in collections):
        return iter_puzzles(path, progress=progress, allow_clashes=allow_clashes)
    if arg in collections:
        return iter(library.collection(arg))
    prefix = arg.rpartition(":")[0]
    if prefix in collections or arg in library.names():
        return iter([library.puzzle(arg)])  # its errors say what is wrong (index out of range, no such name)
    pathlike = "/" in arg or os.sep in arg or ":" in arg or arg.startswith("~") or path.suffix.lower() in _PATH_SUFFIXES
    if not pathlike and _looks_like_puzzle_text(arg):
        return iter([Puzzle.parse(arg, allow_clashes=allow_clashes)])
    if not pathlike:
        return iter([library.puzzle(arg)])  # "no bundled puzzle named ...; did you mean ..."
    hints = difflib.get_close_matches(arg, collections, n=2) + difflib.get_close_matches(
        arg.rpartition(":")[2] if ":" in arg else arg, library.names(), n=2
    )
    parent = path.parent
    if _is(parent.is_dir) and path.name:
        try:
            names = [p.name for p in parent.iterdir()][:10_000]
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=2)
        hints += [str(parent / m) if str(parent) != "." else m for m in close]
    where = "no such file" if not prefix else f"no such file or bundled collection {prefix!r}"
    hint = f"; did you mean {', '.join(dict.fromkeys(hints))}?" if hints else ""
    raise PuzzleError(f"{where}: {arg}{hint}", kind="empty")


def _is(test) -> bool:
    """A path test that is False, not an error, for names no file can have (too long, a NUL byte)."""
    try:
        return test()
    except (OSError, ValueError):
        return False


@checked
def resolve_puzzle(arg: str, allow_clashes: bool = False):
    """The single puzzle an argument names (the first, when it names several; the rest is not read)."""
    return next(resolve_puzzles(arg, allow_clashes=allow_clashes))
