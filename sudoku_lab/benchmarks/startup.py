"""``sudoku-lab bench startup``: what a first start pays to compile, per item, and what a warm start costs.

Each item is warmed in a fresh Python process: once into an empty kernel cache
of its own (the cold bill a new user's first command pays for it), then again
on that cache (the warm start, loading). The shared kernel groups (``exact-search``,
``ac3``: AC3 propagation) are items of their own, and a
solver's item warms the solver alone (``warm_up([name], shared=False)``), so
the items add up: a first ``solve --algo reseda`` pays ``ac3`` and
``reseda``. The CPU time is the child's own (``resource.getrusage`` of the
children), so a busy machine stretches wall time more than it; ``floor``
is the same process importing numpy, numba and the package and warming
nothing, the part of every start no kernel change can remove. With
``--command`` the first ``sudoku-lab solve --algo reseda reseda_fig3_1_easy``
is also timed whole, cold and warm, as a new user runs it.

Nothing here is a ratio of two ways: the figures are this machine's, and the
report says so; the docs' cold-start figures come from this bench.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from .._checks import checked
from ..errors import ParameterError
from . import BenchmarkOption, register_benchmark

__all__ = ["bench_startup", "FIRST_COMMAND"]

#: The child's script: warm one item (or nothing, for "floor"), print the kernels it compiled and loaded.
_CHILD = """
import sys
from sudoku_lab.stepping.warmup import warm_up
item = sys.argv[1]
if item == "floor":
    import numba, numpy  # noqa: F401
    import sudoku_lab.solvers  # noqa: F401
    print(0, 0)
else:
    if item in ("exact-search", "ac3"):
        from sudoku_lab.stepping.warmup import SHARED_GROUPS, _warm_items
        r = _warm_items([], (SHARED_GROUPS[item.removesuffix("-search")],), None, None)
    else:
        r = warm_up([item], shared=False, on_compile=None)
    print(len(r.compiled), len(r.loaded))
"""

#: The first command a new user runs (README, then the docs' tutorial).
FIRST_COMMAND = ("solve", "--algo", "reseda", "reseda_fig3_1_easy")


def _child(argv: Sequence[str], cache: str, what: str) -> tuple[float, float, str]:
    """Run ``argv`` (``what``, for an error) with ``NUMBA_CACHE_DIR=cache``: its CPU seconds (user + system),
    wall seconds and stdout."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=1800)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit status {done.returncode}): {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


@checked
def bench_startup(
    items: Sequence[str] | None = None,
    command: bool = False,
    out: Callable[[str], object] = print,
) -> dict:
    """Measure each item's cold bill into an empty cache and its warm start (see the module's docstring).

    Parameters
    ----------
    items : sequence of str, optional
        ``floor``, ``exact-search``, ``ac3`` and registered solver names but ``exact`` (whose kernels are the
        exact-search group's); default all of them.
    command : bool
        Also time :data:`FIRST_COMMAND`, cold and warm.
    out : callable
        Where the report's lines go.

    Returns
    -------
    dict
        ``rows``: per item ``{"item", "cold_cpu", "cold_wall", "compiled", "warm_cpu", "warm_wall"}``;
        ``total_cold_cpu``: the cold CPU of every item but ``floor``, minus the floor each child paid;
        ``command``: ``{"cold_cpu", "cold_wall", "warm_cpu", "warm_wall"}`` or None.
    """
    from ..solvers import registry

    # The exact solver is left out: its kernels are the exact-search group's.
    known = ["floor", "exact-search", "ac3", *(name for name in registry() if name != "exact")]
    chosen = known if items is None else list(items)
    bad = [i for i in chosen if i not in known]
    if bad:
        raise ParameterError(f"no startup item {bad[0]!r}; the items are {', '.join(known)}", name="items")
    rows: list[dict] = []
    out(
        "cold start per item (a fresh process, an empty kernel cache each), then warm; "
        f"this machine's seconds, {os.cpu_count()} cores"
    )
    out(f"{'item':<12} {'cold CPU':>9} {'cold wall':>10} {'compiled':>9} {'warm CPU':>9} {'warm wall':>10}")
    for item in chosen:
        with tempfile.TemporaryDirectory(prefix="sudoku-lab-startup-") as cache:
            argv = [sys.executable, "-c", _CHILD, item]
            cold_cpu, cold_wall, said = _child(argv, cache, f"warming {item}")
            warm_cpu, warm_wall, _ = _child(argv, cache, f"warming {item}")
        compiled = int(said.split()[0])
        rows.append(
            {"item": item, "cold_cpu": cold_cpu, "cold_wall": cold_wall, "compiled": compiled,
             "warm_cpu": warm_cpu, "warm_wall": warm_wall}
        )  # fmt: skip
        out(f"{item:<12} {cold_cpu:9.1f} {cold_wall:10.1f} {compiled:9d} {warm_cpu:9.2f} {warm_wall:10.2f}")
    floor = next((r["cold_cpu"] for r in rows if r["item"] == "floor"), 0.0)
    total = sum(r["cold_cpu"] - floor for r in rows if r["item"] != "floor")
    out(f"every item's cold bill, each less the floor: {total:.1f} s of CPU")
    cmd = None
    if command:
        with tempfile.TemporaryDirectory(prefix="sudoku-lab-startup-") as cache:
            argv = [sys.executable, "-m", "sudoku_lab", *FIRST_COMMAND]
            cold_cpu, cold_wall, _ = _child(argv, cache, "sudoku-lab " + " ".join(FIRST_COMMAND))
            warm_cpu, warm_wall, _ = _child(argv, cache, "sudoku-lab " + " ".join(FIRST_COMMAND))
        cmd = {"cold_cpu": cold_cpu, "cold_wall": cold_wall, "warm_cpu": warm_cpu, "warm_wall": warm_wall}
        out(
            f"sudoku-lab {' '.join(FIRST_COMMAND)}: cold {cold_wall:.1f} s wall ({cold_cpu:.1f} s CPU), "
            f"warm {warm_wall:.2f} s wall ({warm_cpu:.2f} s CPU)"
        )
    return {"rows": rows, "total_cold_cpu": total, "command": cmd}


def _items(text: str) -> tuple[str, ...]:
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    if not names:
        raise ValueError("must name at least one item (floor, exact-search, ac3 or a solver)")
    return names


def _run(args, out) -> int:
    try:
        bench_startup(args.items, command=args.command, out=out)
    except ParameterError as e:
        out(f"sudoku-lab bench startup: error: {e}")
        return 2
    except RuntimeError as e:  # a child process failed: its stderr's end, not a traceback of this one
        out(f"sudoku-lab bench startup: error: {e}")
        return 1
    return 0


register_benchmark(
    "startup",
    help="the cold-start bill per item (shared kernels, each solver) into an empty cache, and the warm start",
    options=[
        BenchmarkOption(
            "--items",
            type=_items,
            default=None,
            help="comma-separated items: floor, exact-search, ac3, solver names (default: all)",
        ),
        BenchmarkOption(
            "--command",
            action="store_true",
            help="also time the first 'sudoku-lab solve --algo reseda reseda_fig3_1_easy', cold and warm",
        ),
    ],  # fmt: skip
    run=_run,
    solver=None,
    description=__doc__.split("\n\n", 1)[0].replace("``", "'"),
)
