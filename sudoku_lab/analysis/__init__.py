"""Analysis of results: statistics (:mod:`~sudoku_lab.analysis.stats`, scipy), reports and their
formats (:mod:`~sudoku_lab.analysis.report`), correctness grades (:mod:`~sudoku_lab.analysis.grades`)
and publication figures (:mod:`~sudoku_lab.analysis.figures`, matplotlib, imported on use)."""
