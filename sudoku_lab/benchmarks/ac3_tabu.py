"""``sudoku-lab bench ac3_tabu``: the AC3-tabu kernel next to a straightforward numpy iteration.

The measured ratio is iterations per second of the numba kernel
(``solver.step``) over :class:`NumpyTabu` (the same iteration written the way
one would in numpy: domains as a boolean (C, N) table, each candidate built
with vectorised roulette wheels, AC3 as rounds of "remove every singleton's
digit from its peers" on the whole table until nothing changes, the tabu list
as a Python list). Both start from the same puzzle and seed and make the same
random draws, so they visit the same states (the benchmark checks their costs
agree); they are timed side by side in interleaved passes in one process
(:func:`._kernel_vs_numpy.kernel_vs_numpy`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from .._checks import checked
from ..model.puzzle import Puzzle
from ._kernel_vs_numpy import Flag, kernel_vs_numpy, reference_way, register_kernel_benchmark, solver_way

__all__ = ["NumpyTabu", "numpy_propagate", "bench_ac3_tabu"]


@checked
def numpy_propagate(dom: np.ndarray, peers: np.ndarray) -> bool:
    """AC3 (singleton propagation) on a boolean domain table, in place; False on a wipe-out.

    Parameters
    ----------
    dom : ndarray of bool, shape (C, N)
        ``dom[cell, d - 1]``: digit d is a candidate. Narrowed in place to the fixed point.
    peers : ndarray of int, shape (C, P)

    Returns
    -------
    bool
        True at a fixed point without an empty domain.

    Notes
    -----
    Rounds remove, at once, every singleton's digit from all its peers. The
    removals are the same deductions the kernel's queue makes one at a time,
    so the fixed point (and whether a domain empties) is the same.
    """
    while True:
        count = dom.sum(axis=1)
        if not count.all():
            return False
        single = dom & (count == 1)[:, None]
        new = dom & ~single[peers].any(axis=1)
        if np.array_equal(new, dom):
            return True
        dom[...] = new


@checked
class NumpyTabu:
    """One AC3-tabu iteration at a time in plain numpy, with the kernel's random draws.

    Parameters
    ----------
    puzzle : Puzzle
    candidates, tenure, p_drop, drop, dead_end : as the solver's parameters (hidden singles off).
    seed : int

    Attributes
    ----------
    S : ndarray of bool, shape (C, N)
        The state's domains.
    cost, best_cost, iteration : int
    costs : list of int
        The state's cost after each iteration.
    """

    def __init__(
        self,
        puzzle: Puzzle,
        candidates: int = 10,
        tenure: int = 10,
        p_drop: float = 0.1,
        drop: int = 1,
        seed: int = 0,
        dead_end: str = "restart",
    ):
        geo = puzzle.geometry
        self.N, self.C = geo.N, geo.C
        self.peers = geo.peers.astype(np.int64)
        g = puzzle.grid.astype(np.int64)
        dom = np.ones((self.C, self.N), dtype=bool)
        given = g > 0
        dom[given] = False
        dom[np.flatnonzero(given), g[given] - 1] = True
        self.consistent = numpy_propagate(dom, self.peers)
        self.S = dom
        self.prefilled = dom.sum(axis=1) == 1
        self.cost = self.best_cost = int((~self.prefilled).sum())
        self.L, self.tenure, self.p_drop, self.drop = candidates, tenure, p_drop, drop
        self.restart = dead_end == "restart"
        self.tabu: list[tuple[int, int]] = []  # (cell, digit index), oldest first
        self.tabu_table = np.zeros((self.C, self.N), dtype=bool)
        self.dead = False
        self.iteration = 0
        self.costs: list[int] = []
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ tabu list
    def _push(self, cell: int, d: int) -> None:
        if self.tabu_table[cell, d]:
            self.tabu.remove((cell, d))
        self.tabu.append((cell, d))
        self.tabu_table[cell, d] = True
        self._trim()

    def _trim(self) -> None:
        while len(self.tabu) > self.tenure:
            c, d = self.tabu.pop(0)
            self.tabu_table[c, d] = False

    # ------------------------------------------------------------ candidates
    def _candidate(self):
        rng = self.rng
        cand = self.S.copy()
        n_drop = 0
        if self.dead and self.restart:  # every search-assigned cell, without a draw
            single = cand.sum(axis=1) == 1
            reset = single & ~self.prefilled
            n_drop = int(reset.sum())
            cand[reset] = True
            if n_drop:
                single = cand.sum(axis=1) == 1
                used = (cand & single[:, None])[self.peers].any(axis=1)
                cand[~single] = ~used[~single]
                numpy_propagate(cand, self.peers)
        elif self.dead or rng.random() < self.p_drop:
            for _ in range(self.drop):
                single = cand.sum(axis=1) == 1
                eligible = np.flatnonzero(single & ~self.prefilled)
                if len(eligible) == 0:
                    break
                w = (~single)[self.peers[eligible]].sum(axis=1)
                u = rng.random()
                total = int(w.sum())
                if total == 0:
                    pick = eligible[int(u * len(eligible))]
                else:
                    i = int(np.searchsorted(np.cumsum(w), u * total, side="right"))
                    pick = eligible[i] if i < len(eligible) else eligible[np.flatnonzero(w)[-1]]
                cand[pick] = True
                n_drop += 1
            if n_drop:
                single = cand.sum(axis=1) == 1
                used = (cand & single[:, None])[self.peers].any(axis=1)
                cand[~single] = ~used[~single]
                numpy_propagate(cand, self.peers)
        count = cand.sum(axis=1)
        open_cells = np.flatnonzero(count > 1)
        cum = np.cumsum(1.0 / count[open_cells])
        i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
        cell = int(open_cells[min(i, len(open_cells) - 1)])
        digits = np.flatnonzero(cand[cell])
        allowed = digits[~self.tabu_table[cell, digits]]
        tabu_choice = len(allowed) == 0
        if tabu_choice:
            allowed = digits
        d = int(allowed[int(rng.random() * len(allowed))])
        cand[cell] = False
        cand[cell, d] = True
        ok = numpy_propagate(cand, self.peers)
        return cell, d, n_drop, cand if ok else None, tabu_choice

    def iterate(self) -> bool:
        """One iteration; True while the search goes on (False once solved)."""
        if self.cost == 0:
            return False
        best, best_cost, wiped = None, 0, 0
        self._trim()
        for _ in range(self.L):
            cell, d, n_drop, cand, tabu_choice = self._candidate()
            if cand is None:
                wiped += 1
                self._push(cell, d)
                continue
            single = cand.sum(axis=1) == 1
            cost = int((~single).sum())
            added = single & (cand != self.S).any(axis=1)
            is_tabu = tabu_choice or bool((self.tabu_table & cand)[added].any())
            if is_tabu and not cost < self.best_cost:
                continue
            if best is None or cost < best_cost:
                best, best_cost = cand, cost
        restarted = self.dead and self.restart  # a dead end's restart is taken whatever its cost
        self.dead = wiped == self.L
        if best is not None and (best_cost <= self.cost or restarted):
            lost = np.flatnonzero((self.S.sum(axis=1) == 1) & (best != self.S).any(axis=1))
            for c in lost:
                self._push(int(c), int(np.flatnonzero(self.S[c])[0]))
            self.S, self.cost = best, best_cost
            self.best_cost = min(self.best_cost, best_cost)
        self.iteration += 1
        self.costs.append(self.cost)
        return self.cost > 0


@checked
def bench_ac3_tabu(
    iterations: int = 2000,
    numpy_iterations: int = 100,
    repeat: int = 3,
    puzzle: str = "mk_hard_c",
    seed: int = 0,
    out: Callable[[str], object] = print,
) -> dict:
    """Iterations per second of the kernel and of :class:`NumpyTabu`, side by side.

    Parameters
    ----------
    iterations : int
        Kernel iterations per pass.
    numpy_iterations : int
        Iterations of the numpy version per pass (it is much slower).
    repeat : int
        Interleaved passes; the fastest of each way counts.
    puzzle : str
        Bundled puzzle (one the search does not solve quickly, so both ways do the same work throughout: both
        run with ``dead_end="drop"``, under which a search that reaches a dead end stays there, since the
        default restart solves every bundled 9 x 9 puzzle within a few hundred iterations).
    seed : int
    out : callable
        Receives each line of the report.

    Returns
    -------
    dict
        ``kernel_iterations_per_second``, ``numpy_iterations_per_second``, ``kernel_over_numpy``,
        ``same_work`` (the numpy iteration's costs are the kernel's first ones).
    """
    from ..model import library

    pz = library.puzzle(puzzle)

    def compare(s, t):
        """The same draws: the kernel's first costs are the numpy iteration's."""
        costs = s.snapshot().trace["cost"][: len(t.costs)].tolist()
        return None if costs == t.costs else f"the kernel's first costs {costs[:8]} are not numpy's {t.costs[:8]}"

    m = kernel_vs_numpy(
        solver="ac3_tabu",
        title="AC3-tabu search, default parameters (10 candidates, AC3 after each) but dead_end=drop (the "
        "default restart solves it in tens of iterations; this run does not end)",
        puzzle=puzzle,
        unit="iterations",
        seeds=(seed,),
        passes=repeat,
        kernel=solver_way("ac3_tabu", pz, iterations, {"iterations": 0, "dead_end": "drop"}),
        numpy=reference_way(
            partial(NumpyTabu, dead_end="drop"), pz, numpy_iterations, lambda t: not t.iterate(), "iteration"
        ),
        kernel_label="solver.step, queue-based AC3",
        compare=compare,
        setup="set-up included",
        out=out,
        numpy_label="boolean domain table, AC3 by whole-table rounds, same draws",
    )
    return m.as_dict("iterations")


register_kernel_benchmark(
    "ac3_tabu",
    bench_ac3_tabu,
    solver="ac3_tabu",
    help="AC3-tabu search: kernel / numpy in iterations/s (side by side, same puzzle and draws)",
    flags=(
        Flag("--iterations", "iterations", "kernel iterations per pass", 10, 10_000_000),
        Flag("--numpy-iterations", "numpy_iterations", "numpy iterations per pass", 1, 100_000),
        Flag("--passes", "repeat", "interleaved passes, the best counts", 1, 100, aliases=("--repeat",)),
    ),
    description="Time AC3-tabu search with its default parameters but dead_end=drop on mk_hard_c. "
    "Measured side by side in "
    "interleaved passes: iterations per second of the numba kernel and of a straightforward numpy iteration "
    "(boolean domain table, vectorised roulette wheels, AC3 as whole-table rounds) making the same random draws, "
    "checked against the kernel's costs; printed as the ratio kernel / numpy.",
)
