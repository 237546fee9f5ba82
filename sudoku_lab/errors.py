"""The exceptions Sudoku Lab raises for bad input.

Every error a user can cause (a malformed puzzle, a parameter out of range, a
corrupt results file) is one of these, with a message that names what is wrong
and where. The CLI prints ``str(error)`` on one line and exits with status 2;
the GUI shows it inline and in the status bar.

A message often quotes what a file held (a puzzle's name, a session's
``saved_by``, a column of a results table, a parameter's text). Whatever that
was, the message of every error here is :func:`printable`: its control
characters are shown escaped (``\\x1b``, ``\\n``, ``\\t``), so an error never
carries an escape sequence to a terminal, a line break into a one-line status
bar or a dialog, or a direction override into a crash report.
"""

from __future__ import annotations

import re

#: The public part; :func:`printable` serves the core's own messages (crash reports, the command line's output).
__all__ = [
    "SudokuLabError",
    "PuzzleError",
    "ParameterError",
    "DataFileError",
    "HistoryError",
    "StateError",
    "PuzzleTypeError",
    "ParameterTypeError",
]


#: What :func:`printable` escapes: the C0 and C1 control characters and DEL (Unicode category Cc: escape
#: sequences, line breaks, tabs, backspace, bell), the line and paragraph separators, and the bidirectional
#: formatting characters, which reorder the text around them when shown ("Trojan source").
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def printable(text: str, keep: str = "") -> str:
    """``text`` with its control characters shown escaped, as Python writes them: ``\\x1b``, ``\\n``, ``\\u202e``.

    Parameters
    ----------
    text : str
        Any text (a message quoting what a file held).
    keep : str
        Characters left as they are (``"\\n"`` for several lines of output).

    Returns
    -------
    str
        ``text`` itself when it holds nothing to escape. Escaping is idempotent:
        what it returns holds no control character, so escaping it again changes
        nothing (a backslash is not escaped).

    Examples
    --------
    >>> printable("saved by \\x1b[31mred\\x1b[0m\\n")
    'saved by \\\\x1b[31mred\\\\x1b[0m\\\\n'
    """
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: m.group() if m.group() in keep else _escaped(m), text)


class SudokuLabError(ValueError):
    """Base class of every user-facing error (a ``ValueError``).

    ``str(error)`` is the message made :func:`printable`, whatever it quotes, so
    the command line, the window's dialogs and status bar and the crash report
    all show it on one line with its control characters escaped. ``args`` keep
    what was given.
    """

    def __str__(self) -> str:
        return printable(super().__str__())


class PuzzleError(SudokuLabError):
    """A puzzle that cannot be read or is not a proper Sudoku.

    Attributes
    ----------
    kind : str
        One of ``"empty"``, ``"cell_count"``, ``"bad_character"``, ``"bad_symbol"``,
        ``"clash"``, ``"no_solution"``, ``"several_solutions"``, ``"box_size"``,
        ``"csv_header"`` (a CSV file without a ``puzzle`` column).
    line, column : int or None
        1-based position in the input text (``bad_character``, ``bad_symbol``).
    cells : tuple of int
        Flat cell indices involved (the two clashing givens, a cell where two
        solutions differ, a cell whose domain AC3 empties).
    digit : int or None
        The digit involved, if any.
    found : int or None
        How many cells were found (``cell_count``).
    """

    def __init__(self, message, *, kind, line=None, column=None, cells=(), digit=None, found=None):
        super().__init__(message)
        self.kind = kind
        self.line = line
        self.column = column
        self.cells = tuple(int(c) for c in cells)
        self.digit = digit
        self.found = found


class ParameterError(SudokuLabError):
    """A solver or command parameter that is unknown or out of range.

    Attributes
    ----------
    name : str
        The parameter's name.
    """

    def __init__(self, message, *, name=None):
        super().__init__(message)
        self.name = name


class DataFileError(SudokuLabError):
    """A results, session or collection file that cannot be read."""

    def __init__(self, message, *, path=None, line=None):
        super().__init__(message)
        self.path = path
        self.line = line


class StateError(SudokuLabError):
    """A solver keyframe (a session's saved state, a history's keyframe) its solver could not have produced.

    One line naming the field and what is wrong with it (``state.algorithm.box_free[3, 2] is 1000000,
    outside -1..80``): see :mod:`sudoku_lab.solvers.keyframes`.
    """


class HistoryError(SudokuLabError):
    """A recorded run (a :class:`~sudoku_lab.stepping.history.History`) that is not the run it claims.

    Its replay reached a recorded keyframe, the saved state or the record's end and found another
    state there (a keyframe of another seed, a change moved to another iteration, an event log that
    differs, a run that ends before the record's furthest iteration).

    Attributes
    ----------
    iteration : int or None
        The iteration where the replay and the record part.
    """

    def __init__(self, message, *, iteration=None):
        super().__init__(message)
        self.iteration = iteration


class PuzzleTypeError(PuzzleError, TypeError):
    """A puzzle given as the wrong kind of object (``Puzzle.parse(42)``, ``reset(grid_array)``).

    Both a :class:`PuzzleError`, as documented for every puzzle input, and a
    ``TypeError``, as Python code expects for a wrong type.
    """

    def __init__(self, message):
        super().__init__(message, kind="type")


class ParameterTypeError(ParameterError, TypeError):
    """A parameter given as the wrong kind of object (``loop.run(solver, 5)``): a ParameterError and a TypeError."""


#: Exit statuses of the ``sudoku-lab`` command and of the lab window: 2 for bad input (one line on stderr),
#: 70 for a bug (EX_SOFTWARE: one line and a crash report), 128 + the signal for an interrupted command.
EXIT_USAGE = 2
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
