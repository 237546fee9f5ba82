"""The experiment engine: specifications (:mod:`~sudoku_lab.engine.spec`), batch execution serially, on
worker processes or a Dask cluster (:mod:`~sudoku_lab.engine.experiments`,
:mod:`~sudoku_lab.engine.cluster`, :mod:`~sudoku_lab.engine._chunks`), the results store
(:mod:`~sudoku_lab.engine.results`), and the batch and compare runs built on them."""
