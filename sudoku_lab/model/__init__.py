"""The puzzle model: :class:`~sudoku_lab.model.puzzle.Puzzle`, its text formats, collection files,
the bundled library, grid geometry and the scoring of a filled grid.

Reading "a file, ``-``, a bundled name or puzzle text" into puzzles is
:mod:`sudoku_lab.model.resolve`. Nothing here loads numba until an exact tool is
called (:mod:`sudoku_lab.exact`), so parsing and printing puzzles stays light.
"""
