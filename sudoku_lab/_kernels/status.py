"""What every kernel entry point reports, and the counters every kernel keeps first: defined once.

A kernel's entry point (``run_steps``, ``run_moves``, ``run_generations``,
``run_iterations``) advances up to ``n`` iterations and returns how many it did
and one of the status codes below. Its int64 counters array starts with
:data:`C_ITERATION` and :data:`C_EVALUATIONS`; the rest of its layout is the
kernel's own. :class:`sudoku_lab.solvers.base.KernelSolver` reads these to run
the chunk loop and map a code to a solver status, so a kernel module imports
them from here rather than numbering them again.
"""

from __future__ import annotations

__all__ = ["RUNNING", "SOLVED", "BUDGET", "STOPPED", "C_ITERATION", "C_EVALUATIONS"]

RUNNING = 0  #: the chunk's iterations are done, the search goes on
SOLVED = 1  #: the solver's current or best grid is a solution
BUDGET = 2  #: the iteration budget is spent: the search (or, for RESEDA, the run) failed
#: First code a kernel may give its own meaning (RESEDA's CONVERGED = STOPPED: rho(n) > beta).
STOPPED = 3

C_ITERATION = 0  #: iterations since reset (counters[0] of every kernel)
C_EVALUATIONS = 1  #: cost evaluations since reset (counters[1] of every kernel)
