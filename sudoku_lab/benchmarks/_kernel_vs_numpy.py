"""One harness for "a solver's numba kernel against its straightforward numpy reference".

Every per-solver benchmark (``reseda``, ``hill_climb``, ``nbcoin``, ``ga``,
``ac3_tabu``, ``cuckoo``) measures the same thing the same way:

1. the solver's kernels are compiled (or loaded) before any timing;
2. both ways run on the same puzzle from the same seeds, in ``passes``
   interleaved passes: within a pass, seed by seed, the kernel then the numpy
   reference, so a slow patch of a loaded machine hits both alike;
3. each way's set-up (``prepare(seed)``) is not timed; its run is;
4. the fastest pass of each way counts (the least disturbed by other load),
   as work done in that pass over its time: steps, moves, generations or
   iterations per second, and their ratio kernel / numpy;
5. the work is checked: each way does the same work for a seed in every
   pass, and where the benchmark can say what "the same" is (the AC3-tabu
   reference makes the kernel's draws) ``compare`` checks the two ways agree.
   A difference is reported, and no ratio is given for work that differs.

:func:`register_kernel_benchmark` makes the ``sudoku-lab bench NAME``
sub-command of such a benchmark from its function and its options.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from .._checks import checked, int_range
from ..model.puzzle import Puzzle
from . import BenchmarkOption, register_benchmark
from ._timing import ratio, ratio_text

__all__ = [
    "Done",
    "KernelVsNumpy",
    "Flag",
    "kernel_vs_numpy",
    "reference_way",
    "register_kernel_benchmark",
    "solver_way",
]


@checked
class Done(NamedTuple):
    """What one run of a way did: ``count`` units of work, and what ``compare`` reads (the solver, the reference).

    A way's run may return a plain int instead (no comparison then).
    """

    count: int  # type: ignore[assignment]  # the field's public name shadows tuple.count
    result: Any = None


@checked
class KernelVsNumpy(NamedTuple):
    """The measurement of :func:`kernel_vs_numpy`.

    Attributes
    ----------
    kernel_rate, numpy_rate : float
        Work per second of each way's fastest pass (0.0 if it timed nothing).
    ratio : float or None
        ``kernel_rate / numpy_rate``; None when the work differed or a rate is missing.
    kernel_work, numpy_work : int
        Units of work done in a pass (every seed) by each way.
    kernel_seconds, numpy_seconds : float
        Time of each way's fastest pass.
    differences : tuple of str
        What did not match (empty when both ways did the same work).
    """

    kernel_rate: float
    numpy_rate: float
    ratio: float | None
    kernel_work: int
    numpy_work: int
    kernel_seconds: float
    numpy_seconds: float
    differences: tuple[str, ...]

    @property
    def same_work(self) -> bool:
        """True when no difference was found."""
        return not self.differences

    def as_dict(self, unit: str) -> dict:
        """``kernel_<unit>_per_second``, ``numpy_<unit>_per_second``, ``kernel_over_numpy`` and ``same_work``."""
        return {
            f"kernel_{unit}_per_second": self.kernel_rate,
            f"numpy_{unit}_per_second": self.numpy_rate,
            "kernel_over_numpy": self.ratio,
            "same_work": self.same_work,
        }


def _seeds_text(seeds: Sequence[int]) -> str:
    seeds = list(seeds)
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}..{seeds[-1]}"
    return "seeds " + ", ".join(map(str, seeds))


def _split(done: int | Done) -> tuple[int, Any]:
    if isinstance(done, Done):
        return int(done.count), done.result
    return int(done), None


@checked
def solver_way(
    solver: str, puzzle: Puzzle, steps: int, params: Mapping[str, Any] | None = None, setup_timed: bool = True
) -> Callable[[int], Callable[[], Done]]:
    """The kernel's way for :func:`kernel_vs_numpy`: a registered solver stepped ``steps`` times from a seed.

    Parameters
    ----------
    solver : str
        Registered solver, created with ``params``.
    puzzle : Puzzle
    steps : int
        Iterations of one ``step`` call (fewer are done when the run ends sooner).
    params : mapping, optional
        Parameters of the solver.
    setup_timed : bool
        Time the creation and ``reset`` with the steps (else only the steps).

    Returns
    -------
    callable
        ``prepare(seed) -> run``; ``run()`` returns ``Done(iterations done, the solver)``.
    """
    from ..solvers import create

    def prepare(seed: int) -> Callable[[], Done]:
        def start():
            s = create(solver, **dict(params or {}))
            s.reset(puzzle, seed)
            return s

        if setup_timed:

            def run() -> Done:
                s = start()
                return Done(s.step(steps), s)
        else:
            ready = start()

            def run() -> Done:
                return Done(ready.step(steps), ready)

        return run

    return prepare


@checked
def reference_way(
    reference: Callable[..., Any],
    puzzle: Puzzle,
    steps: int,
    advance: Callable[[Any], object],
    counter: str,
    setup_timed: bool = True,
) -> Callable[[int], Callable[[], Done]]:
    """The numpy reference's way for :func:`kernel_vs_numpy`: ``reference(puzzle, seed=seed)`` advanced to ``steps``.

    Parameters
    ----------
    reference : callable
        The reference's class (or any ``reference(puzzle, seed=seed)``).
    puzzle : Puzzle
    steps : int
        Most units of work of one run.
    advance : callable
        ``advance(ref)`` does one unit of work; a true value ends the run (solved, converged).
    counter : str
        The reference's attribute counting the units done.
    setup_timed : bool
        Time the construction with the run (else only the run).

    Returns
    -------
    callable
        ``prepare(seed) -> run``; ``run()`` returns ``Done(units done, the reference)``.
    """

    def prepare(seed: int) -> Callable[[], Done]:
        ready = None if setup_timed else reference(puzzle, seed=seed)

        def run() -> Done:
            ref = reference(puzzle, seed=seed) if ready is None else ready
            while getattr(ref, counter) < steps and not advance(ref):
                pass
            return Done(getattr(ref, counter), ref)

        return run

    return prepare


@checked
def kernel_vs_numpy(
    *,
    solver: str,
    title: str,
    puzzle: str,
    unit: str,
    seeds: Sequence[int],
    passes: int,
    kernel: Callable[[int], Callable[[], int | Done]],
    numpy: Callable[[int], Callable[[], int | Done]],
    kernel_label: str,
    numpy_label: str,
    setup: str = "set-up not timed",
    compare: Callable[[Any, Any], str | None] | None = None,
    out: Callable[[str], object] = print,
    clock: Callable[[], float] = time.perf_counter,
    warm: bool = True,
) -> KernelVsNumpy:
    """Time a solver's kernel against its numpy reference and print the report in the shared format.

    Parameters
    ----------
    solver : str
        The registered solver whose kernels are compiled before timing.
    title : str
        First words of the report: the algorithm and its configuration.
    puzzle : str
        Name of the puzzle both ways run on (for the report).
    unit : str
        The unit of work, plural ("steps", "moves", "generations", "iterations").
    seeds : sequence of int
        Seeds run by both ways in every pass, in this order.
    passes : int
        Interleaved passes; the fastest pass of each way counts.
    kernel, numpy : callable
        ``prepare(seed) -> run``: the set-up of one run for ``seed`` (not timed), returning the run
        (timed), which returns the units of work it did, or a :class:`Done`.
    kernel_label, numpy_label : str
        What each way is, in a few words (printed in parentheses).
    setup : str
        What the timing includes of the set-up, for the report's first line.
    compare : callable, optional
        ``compare(kernel_result, numpy_result)`` for one seed (the :class:`Done` results): None when
        the two ways did the same work, else what differs. Called outside the timing.
    out : callable
        Receives each line of the report (four when the work matches).
    clock : callable
        Seconds, monotonic (``time.perf_counter``; a fake one in the tests).
    warm : bool
        Compile or load the solver's kernels first (``False`` only in tests of the harness).

    Returns
    -------
    KernelVsNumpy
    """
    if passes < 1:
        raise ValueError(f"passes must be at least 1, got {passes}")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    if warm:
        from ..stepping.warmup import warm_up

        warm_up((solver,))
    ways = {"kernel": kernel, "numpy": numpy}
    best = {key: float("inf") for key in ways}
    work = {key: 0 for key in ways}
    first: dict[tuple[str, int], int] = {}  # (way, seed) -> work done in the first pass
    differences: list[str] = []
    for _ in range(passes):
        elapsed = {key: 0.0 for key in ways}
        done = {key: 0 for key in ways}
        for seed in seeds:
            results = {}
            for key, prepare in ways.items():
                run = prepare(seed)
                t0 = clock()
                count, results[key] = _split(run())
                elapsed[key] += clock() - t0
                done[key] += count
                seen = first.setdefault((key, seed), count)
                if seen != count:
                    differences.append(f"the {key} way did {seen} {unit} then {count} on seed {seed}")
            if compare is not None and results["kernel"] is not None and results["numpy"] is not None:
                diff = compare(results["kernel"], results["numpy"])
                if diff:
                    differences.append(f"seed {seed}: {diff}")
        for key in ways:
            if elapsed[key] < best[key]:
                best[key], work[key] = elapsed[key], done[key]
    rates = {key: work[key] / best[key] if best[key] > 0 else 0.0 for key in ways}
    differences = list(dict.fromkeys(differences))  # each difference once, however many passes found it
    r = None if differences else ratio(rates["kernel"] or None, rates["numpy"] or None)
    out(
        f"{title} on {puzzle}, {_seeds_text(seeds)}, best of {passes} interleaved passes, {setup}, one process, "
        "kernels compiled before timing"
    )
    out(f"  numba kernel ({kernel_label}): {rates['kernel']:,.0f} {unit}/s over {work['kernel']} {unit}")
    out(f"  straightforward numpy ({numpy_label}): {rates['numpy']:,.0f} {unit}/s over {work['numpy']} {unit}")
    for diff in differences:
        out(f"  WORK DIFFERS: {diff}")
    tail = " (not given: the two ways did not do the same work)" if differences else ""
    out(f"    kernel / numpy, {unit} per second (above 1: the kernel is faster): {ratio_text(r, 0)}{tail}")
    return KernelVsNumpy(
        rates["kernel"],
        rates["numpy"],
        r,
        work["kernel"],
        work["numpy"],
        best["kernel"],
        best["numpy"],
        tuple(differences),
    )


@checked
class Flag(NamedTuple):
    """One option of a kernel benchmark's sub-command, for the benchmark function's parameter ``param``.

    Its default is that parameter's default; an int default makes it an integer option in
    ``[low, high]``, any other a text option.
    """

    flag: str
    param: str
    help: str
    low: int = 1
    high: int | None = None
    aliases: tuple[str, ...] = ()


@checked
def register_kernel_benchmark(
    name: str, bench: Callable[..., dict], *, solver: str, help: str, description: str, flags: Sequence[Flag]
) -> None:
    """Register ``sudoku-lab bench NAME`` for a kernel-vs-numpy benchmark function.

    Parameters
    ----------
    name : str
        Sub-command name.
    bench : callable
        ``bench(**options, out=out) -> dict``; the dict's ``same_work`` (True if absent) is the exit
        status: 0 when the two ways did the same work, 1 otherwise.
    solver, help, description : str
        As :func:`register_benchmark`.
    flags : sequence of Flag
        The sub-command's options.
    """
    defaults = {p.name: p.default for p in inspect.signature(bench).parameters.values()}
    for f in flags:
        if f.param not in defaults:
            raise ValueError(f"benchmark {name!r}: {f.flag} names {f.param!r}, not a parameter of {bench.__name__}")

    options = tuple(
        BenchmarkOption(
            f.flag,
            *f.aliases,
            dest=f.param,
            type=int_range(f.low, f.high) if isinstance(defaults[f.param], int) else str,
            default=defaults[f.param],
            help=f"{f.help} (default {defaults[f.param]})",
        )
        for f in flags
    )

    def run(args, out: Callable[[str], object]) -> int:
        result = bench(**{f.param: getattr(args, f.param) for f in flags}, out=out)
        return 0 if result.get("same_work", True) else 1

    run.__module__ = bench.__module__  # the registry names the module that registered it
    register_benchmark(name, help=help, options=options, run=run, solver=solver, description=description)
