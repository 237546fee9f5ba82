"""What every reproduction shares: the report, the runner over :func:`~sudoku_lab.engine.experiments.run_batch`,
and the cells comparing a published success count with ours.

Nothing here knows a paper or a solver; a paper's module (``<paper>.py``) builds
its tables from these pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .._checks import checked
from ..engine.experiments import BatchProgress, Task, Workers

if TYPE_CHECKING:
    from ..engine.results import ResultStore
    from ..model.puzzle import Puzzle

__all__ = [
    "Report",
    "Runner",
    "COMPARISON_HEADER",
    "COMPARISON_NOTE",
    "comparison_cells",
    "percent_interval",
    "difference_text",
    "p_text",
]

#: Column headers of the cells :meth:`Report.rate_cells` returns, in order.
COMPARISON_HEADER = ("paper 95 % CI", "our 95 % CI", "difference (ours - paper) 95 % CI", "Fisher p", "verdict")

#: How the comparison cells are computed (added to every report that has them).
COMPARISON_NOTE = (
    "Success counts: exact (Clopper-Pearson) 95 % interval of each; difference of the rates (ours - "
    "paper) in percentage points (pp) with Newcombe's hybrid score 95 % interval; Fisher's exact "
    'test, two-sided. Verdict: "consistent" when p >= 0.05 (no significant difference), '
    '"ours higher" / "ours lower" when p < 0.05. The verdict follows the test: near p = 0.05 the '
    "interval of the difference can just exclude 0 while p >= 0.05, or the reverse."
)


def percent_interval(lo: float, hi: float) -> str:
    """``[lo, hi] %`` with whole percents."""
    return f"[{100 * lo:.0f}, {100 * hi:.0f}] %"


def _pp(x: float) -> str:
    v = round(100 * x, 1)
    return f"{v:+.1f}" if v != 0 else "0.0"


def difference_text(d: float, lo: float, hi: float) -> str:
    """``+2.0 [-3.1, +7.3] pp``: a difference of rates and its interval in percentage points."""
    return f"{_pp(d)} [{_pp(lo)}, {_pp(hi)}] pp"


def p_text(p: float, threshold: float = 0.05) -> str:
    """A p-value with three decimals (more if rounding would put it on the other side of ``threshold``)."""
    if p < 0.001:
        return "< 0.001"
    for digits in range(3, 8):
        text = f"{p:.{digits}f}"
        if (float(text) < threshold) == (p < threshold):
            return text
    return f"{p:.3g}"


@checked
def comparison_cells(k_paper: int, n_paper: int, k: int, n: int) -> list[str]:
    """The cells under :data:`COMPARISON_HEADER` for the paper's ``k_paper/n_paper`` and our ``k/n``.

    A significant difference is printed in bold. Without any run of ours
    (``n == 0``) the cells that need it say ``n/a``.
    """
    from ..analysis.stats import Rate, clopper_pearson, compare_rates

    if n <= 0:
        return [percent_interval(*clopper_pearson(k_paper, n_paper)), "n/a", "n/a", "n/a", "n/a"]
    c = compare_rates(Rate(k_paper, n_paper), Rate(k, n))
    verdict = f"**{c.verdict}**" if c.significant else c.verdict
    return [
        percent_interval(*c.paper_interval),
        percent_interval(*c.our_interval),
        difference_text(c.difference, *c.difference_interval),
        p_text(c.p),
        verdict,
    ]


@checked
@dataclass
class Report:
    """A reproduced table: a title, a header, rows of cells, and notes.

    Rows built with :meth:`rate_cells` make the report explain the comparison
    (:data:`COMPARISON_NOTE`) under the table.
    """

    title: str
    header: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    interrupted: bool = False
    #: True once a row holds comparison cells (set by :meth:`rate_cells`).
    compares_rates: bool = False
    #: The paper and where its numbers come from, the last note (set by ``run_experiment``).
    citation: str = ""
    #: The verdict of every comparison made with :meth:`rate_cells` ("consistent", "ours higher", "ours lower").
    verdicts: list = field(default_factory=list)

    def rate_cells(self, k_paper: int, n_paper: int, k: int, n: int) -> list[str]:
        """:func:`comparison_cells`, and remember to explain them under the table (and the verdict)."""
        self.compares_rates = True
        cells = comparison_cells(k_paper, n_paper, k, n)
        if n > 0:
            self.verdicts.append(cells[-1].strip("*"))
        return cells

    def markdown(self) -> str:
        lines = [
            f"### {self.title}",
            "",
            "| " + " | ".join(self.header) + " |",
            "|" + "|".join("---" for _ in self.header) + "|",
        ]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        notes = (
            list(self.notes)
            + ([COMPARISON_NOTE] if self.compares_rates else [])
            + ([self.citation] if self.citation else [])
        )
        if notes:
            lines += [""] + [f"- {n}" for n in notes]
        if self.interrupted:
            lines += ["", "**Interrupted: the rows above hold the runs finished so far.**"]
        return "\n".join(lines) + "\n"


@checked
class Runner:
    """Runs a reproduction's task lists with the user's shared options, through the experiment engine.

    Every task list goes through :func:`~sudoku_lab.engine.experiments.run_batch`:
    in this process, in worker processes or on a Dask cluster, each finished
    run written at once to the results directory when there is one. A task
    that directory already holds is not run again: its stored result comes
    back, so a reproduction run again with the same directory resumes where it
    stopped (and one that decides what to run from earlier results, such as
    tries until some are solved, decides the same way again).

    Attributes
    ----------
    seed : int
        First seed; a reproduction numbers its runs from it.
    params : dict
        The user's ``--param`` values (checked against the reproduction's solver).
    store : ResultStore or None
        Where finished runs go (:class:`~sudoku_lab.engine.results.ResultStore`).
    interrupted : bool
        True once a task list stopped before its end (Ctrl-C).
    """

    def __init__(
        self,
        jobs: int = 1,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[str, BatchProgress], None] | None = None,
        params: dict | None = None,
        seed: int = 0,
        *,
        store: ResultStore | None = None,
        scheduler: str | None = None,
        workers: Workers | None = None,
    ):
        """
        Parameters
        ----------
        jobs, scheduler
            Worker processes, or a Dask scheduler (``tcp://host:port``, ``local:N``), started for each task
            list; ``workers`` (:class:`~sudoku_lab.engine.experiments.Workers`) keeps them for all of them instead.
        should_stop : callable, optional
            True stops promptly; the finished runs are kept.
        progress : callable, optional
            ``progress(label, BatchProgress)`` at the start of a task list and after each run.
        """
        self.jobs = jobs
        self.scheduler = scheduler
        self.workers = workers
        self.should_stop = should_stop or (lambda: False)
        self.progress = progress
        self.params = dict(params or {})
        self.seed = seed
        self.store = store
        self.interrupted = False
        self._tasks: dict[str, tuple] = {}  # key -> what it runs, to refuse a key reused for another run

    def run(self, tasks: list[Task], label: str) -> list:
        """Run ``tasks``; the results finished (run now or read back from the store), in task order.

        ``label`` names the list (a cell or row of the table) in progress output and prefixes the task
        keys (``label/key``; a task without a key is numbered), so keys need to be unique within a list only.
        A task without a ``puzzle_set`` gets ``label`` as its own.
        """
        from ..engine.experiments import run_batch

        keyed = []
        for i, t in enumerate(tasks):
            key = f"{label}/{t.key or i}"
            what = (t.solver, repr(sorted(t.params.items())), t.puzzle.to_line(), t.seed, t.until)
            if self._tasks.setdefault(key, what) != what:
                raise ValueError(
                    f"task {key!r} was given for two different runs: give the tasks of a list distinct "
                    "keys, and lists of different runs distinct labels"
                )
            keyed.append(replace(t, key=key, puzzle_set=t.puzzle_set or label))
        progress = None
        if self.progress:

            def progress(p):
                self.progress(label, p)

        out = run_batch(
            keyed,
            self.store,
            jobs=self.jobs,
            scheduler=self.scheduler,
            workers=self.workers,
            should_stop=self.should_stop,
            progress=progress,
        )
        if any(r is None for r in out):
            self.interrupted = True
        return [r for r in out if r is not None]

    def repeat(
        self, solver: str, params: dict, puzzle: Puzzle, until: str, runs: int, start: int = 0, puzzle_set: str = ""
    ) -> list[Task]:
        """Tasks ``start .. start + runs - 1`` of one configuration on one puzzle: seeds counted from
        :attr:`seed`, keys and run indices the run's number."""
        return [
            Task(solver, params, puzzle, self.seed + i, until, key=str(i), puzzle_set=puzzle_set, run=i)
            for i in range(start, start + runs)
        ]

    def each(
        self, solver: str, params: dict, puzzles: Iterable[Puzzle], until: str, puzzle_set: str = ""
    ) -> list[Task]:
        """One task per puzzle of ``puzzles``: seeds counted from :attr:`seed`, keys the puzzle's index."""
        return [
            Task(solver, params, p, self.seed + i, until, key=str(i), puzzle_set=puzzle_set)
            for i, p in enumerate(puzzles)
        ]

    def p(self, **setting: Any) -> dict:
        """The user's --param values, with the experiment's own settings (what the table varies) on top."""
        return {**self.params, **setting}
