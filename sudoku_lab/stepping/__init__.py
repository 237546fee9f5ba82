"""Stepping a solver: the adaptive-chunk loop and its terminations (:mod:`~sudoku_lab.stepping.loop`),
compiling the kernels before any clock starts (:mod:`~sudoku_lab.stepping.warmup`), the events a
curve marks (:mod:`~sudoku_lab.stepping.markers`) and sessions, a run saved to a file and continued
exactly (:mod:`~sudoku_lab.stepping.session`)."""
