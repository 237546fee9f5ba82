"""Fingerprint seeded runs, to tell whether two versions of Sudoku Lab make the same runs or only run faster.

For each seed: the status, the iterations and evaluations at the end, two sha256 digests of the snapshots
taken at reset, every ``--every`` iterations and at the end, and the CPU time per iteration:

- ``search``: the current grid and cost, the counts and every array or number layer of the snapshot
  (RESEDA's p, its kept samples, rho, the zone...): what the rest of the run depends on;
- ``best``: the best grid and best cost so far (reported, never read by the search), apart, so that a
  change in what is reported is told from a change of the search;
- ``cpu ms/it``: ``time.process_time()`` around the ``step`` calls alone (the solver's kernels warmed by a
  throwaway run first), which other processes' load distorts far less than the wall clock.

It uses only what every version since the flat layout has (``solvers.create``, ``reset``, ``step``,
``snapshot``, ``library.puzzle``), so the same file runs in an old checkout and in today's, e.g. for issue
27's RESEDA with coupling (docs/benchmarks.md, "2026-12-01")::

    python examples/run_digest.py ai_escargot --algo reseda --seeds 11-15 \
        --param restart=partial --param zones=all --param coupling=true --param coupling_box=1
"""

from __future__ import annotations

import argparse
import hashlib
import time
import warnings

import numpy as np

try:  # the layer packages
    from sudoku_lab.model import library
except ImportError:  # the flat layout (before the layers)
    from sudoku_lab import library  # type: ignore[no-redef]
from sudoku_lab.solvers import create


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def _add(h, value) -> None:
    a = np.ascontiguousarray(value)
    h.update(f"{a.dtype}{a.shape}".encode())
    h.update(a.tobytes())


def _take(snap, search, best) -> None:
    _add(search, snap.grid)
    _add(search, np.array([snap.cost, snap.iteration, snap.evaluations], dtype=np.int64))
    for name in sorted(snap.layers):
        v = snap.layers[name]
        if isinstance(v, np.ndarray) or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool)):
            h = hashlib.sha256(name.encode())
            _add(h, v)
            search.update(h.digest())
    _add(best, snap.best_grid)
    _add(best, np.array([snap.best_cost], dtype=np.int64))


def run(puzzle, algo: str, params: dict, seed: int, every: int, max_it: int) -> dict:
    """One seeded run to its end (or ``max_it`` iterations): counts, digests and CPU seconds of ``step``."""
    s = create(algo, **params)
    s.reset(puzzle, seed)
    search, best = hashlib.sha256(), hashlib.sha256()
    _take(s.snapshot(), search, best)
    cpu = 0.0
    while not s.done and s.iteration < max_it:
        t = time.process_time()
        s.step(min(every, max_it - s.iteration))
        cpu += time.process_time() - t
        _take(s.snapshot(), search, best)
    return {
        "seed": seed,
        "status": str(s.status),
        "iterations": int(s.iteration),
        "evaluations": int(s.evaluations),
        "search": search.hexdigest()[:16],
        "best": best.hexdigest()[:16],
        "cpu": cpu,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("puzzle", help="bundled puzzle name, e.g. ai_escargot")
    ap.add_argument("--algo", default="reseda")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a solver parameter")
    ap.add_argument("--seeds", default="0", help="e.g. 11-15 or 0,3,7-9 (default 0)")
    ap.add_argument("--every", type=int, default=100, help="iterations between digested snapshots (default 100)")
    ap.add_argument("--max", type=int, default=1_000_000, help="most iterations of a run (default 1000000)")
    ap.add_argument("--warm", type=int, default=300, help="iterations of the throwaway run (default 300)")
    args = ap.parse_args(argv)
    params = dict(p.split("=", 1) for p in args.param)
    with warnings.catch_warnings():  # an old layout's module path says where it moved: not this script's business
        warnings.simplefilter("ignore", DeprecationWarning)
        pz = library.puzzle(args.puzzle)
    w = create(args.algo, **params)  # warm: the kernels load (or compile) outside the timed steps
    w.reset(pz, 0)
    w.step(args.warm)
    print("| seed | status | iterations | evaluations | search digest | best digest | cpu ms/it |")
    print("|---|---|---|---|---|---|---|")
    for seed in _seeds(args.seeds):
        r = run(pz, args.algo, params, seed, args.every, args.max)
        per = r["cpu"] / r["iterations"] * 1e3 if r["iterations"] else float("nan")
        print(
            f"| {seed} | {r['status']} | {r['iterations']} | {r['evaluations']} | {r['search']} | {r['best']} "
            f"| {per:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
