"""The exceptions Sudoku Lab raises for bad input.

Every error a user can cause (a malformed puzzle, a parameter out of range, a
corrupt results file) is one of these, with a message that names what is wrong
and where. The CLI prints ``str(error)`` on one line and exits with status 2;
the GUI shows it inline and in the status bar.
"""

from __future__ import annotations

__all__ = ["SudokuLabError", "PuzzleError", "ParameterError", "DataFileError", "PuzzleTypeError", "ParameterTypeError"]


class SudokuLabError(ValueError):
    """Base class of every user-facing error (a ``ValueError``)."""


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
