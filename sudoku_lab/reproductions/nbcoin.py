"""Reproduction of the NB-COIN paper (Waiyapara, Wattanapornprom and Chongstitvatana): Table II.

Six puzzles (the bundled ``papers`` collection's ``nbcoin_*``), 100 runs each,
at most 100000 generations: NB-COIN's successes and mean generations of the
successful runs beside the paper's, and the same for the GA baseline of Sato
and Inoue (solver ``ga``, referred to by its registry name only; its column is
left out, with a note, where no solver of that name is registered). Seeds
``seed .. seed + runs - 1``; the user's ``--param`` values apply to NB-COIN.
``--generations`` (or ``--param generations=``) sets the budget of both columns,
``--ga-generations`` the GA's alone.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import checked
from ..citations import cite
from . import COMPARISON_HEADER, Option, Paper, Report, Runner, register_paper, register_reproduction

__all__ = ["PAPER", "PUZZLES", "GA_PARAMS", "magnitude_verdict", "table2"]

register_paper(
    Paper("waiyapara", cite("waiyapara").full.rstrip("."), "Table II of the paper (Table I for the settings)")
)

#: Table II: puzzle -> (givens, NB-COIN (successes, mean generations), GA (successes, mean generations)), 100 runs.
PAPER = {
    "nbcoin_01_easy": (38, (100, 2), (100, 62)),
    "nbcoin_11_easy": (34, (100, 4), (100, 137)),
    "nbcoin_27_medium": (30, (100, 130), (100, 910)),
    "nbcoin_29_medium": (29, (100, 1196), (100, 3193)),
    "nbcoin_77_difficult": (28, (100, 2710), (100, 9482)),
    "nbcoin_106_difficult": (24, (100, 2341), (96, 26825)),
}
PUZZLES = tuple(PAPER)
PAPER_RUNS = 100
BUDGET = 100_000
#: The GA column's settings (NB-COIN Table I; Sato and Inoue's GA by its registry name).
GA_PARAMS = {"population": 150, "tournament": 3, "crossover_rate": 0.3, "mutation_rate": 0.3, "elites": 1}

MAGNITUDE_NOTE = (
    'Generations: mean over the successful runs. Verdict "same order" when ours is within a factor '
    '10 of the paper\'s (|log10(ours / paper)| < 1), else "ours higher" / "ours lower" '
    "(the paper's rule: iteration counts of the same order of magnitude)."
)


@checked
def magnitude_verdict(ours: float, paper: float) -> str:
    """``same order`` within a factor 10 of the paper's mean, else ``ours higher`` / ``ours lower``; n/a if none."""
    if not (ours > 0 and paper > 0) or math.isnan(ours):
        return "n/a"
    r = math.log10(ours / paper)
    if abs(r) < 1.0:
        return "same order"
    return "**ours higher**" if r > 0 else "**ours lower**"


def _ga_registered() -> bool:
    from ..solvers import registry

    return "ga" in registry()


def _column(
    runner: Runner,
    rep: Report,
    solver: str,
    params: dict,
    pz,
    runs: int,
    budget: int,
    label: str,
    paper: tuple[int, float],
) -> list | None:
    res = runner.run(runner.repeat(solver, params, pz, f"solved,{budget}it", runs), label)
    if not res:
        return None
    k = sum(r.solved for r in res)
    gens = [r.iterations for r in res if r.solved]
    mean = float(np.mean(gens)) if gens else math.nan
    k_paper, g_paper = paper
    return [
        f"{k_paper}/{PAPER_RUNS}",
        f"{k}/{len(res)}",
        *rep.rate_cells(k_paper, PAPER_RUNS, k, len(res)),
        g_paper,
        "n/a" if math.isnan(mean) else f"{mean:.1f}",
        magnitude_verdict(mean, g_paper),
    ]


@checked
@register_reproduction(
    "nbcoin-table2",
    paper="waiyapara",
    solver="nbcoin",
    title="Table II: NB-COIN and the GA of Sato and Inoue on the six nbcoin_* puzzles",
    options={
        "runs": Option(100, "runs per puzzle and algorithm (paper: 100)", low=1, high=1_000_000, grows=True),
        "puzzles": Option(6, "how many of the six puzzles, in the table's order", low=1, high=6, grows=True),
        "generations": Option(
            BUDGET, "generation budget of a run (paper: 100000; --param generations= overrides it)", low=1, high=10**9
        ),
        "ga_generations": Option(0, "generation budget of the GA column (0: the same as NB-COIN's)", low=0, high=10**9),
    },
    quick={"runs": 20, "generations": 1000, "ga_generations": 20_000},
)
def table2(runner: Runner, runs: int, puzzles: int, generations: int = BUDGET, ga_generations: int = 0) -> Report:
    """NB-COIN (and GA, when registered) successes and mean generations against Table II."""
    from ..model import library

    budget = int(runner.params.get("generations", generations)) or generations
    nb_params = {**runner.params, "generations": budget}
    header = [
        "puzzle",
        "givens",
        "algorithm",
        "paper",
        "ours",
        *COMPARISON_HEADER,
        "paper generations",
        "our generations",
        "generations verdict",
    ]
    ga_budget = ga_generations or budget
    where = f"budget {budget} generations" + ("" if ga_budget == budget else f", GA {ga_budget}")
    rep = Report(
        f"NB-COIN Table II: successes in {runs} runs and mean generations of the successful runs ({where})", header
    )
    ga = _ga_registered()
    rep.notes.append(MAGNITUDE_NOTE)
    from ..solvers import get_solver_class

    rest = ", ".join(f"{p.name} {p.default}" for p in get_solver_class("nbcoin").params if p.name not in nb_params)
    rep.notes.append(
        "NB-COIN settings: "
        + ", ".join(f"{k}={v}" for k, v in sorted(nb_params.items()))
        + (f" (others at their defaults: {rest})." if rest else ".")
    )
    if ga:
        rep.notes.append(
            "GA settings: "
            + ", ".join(f"{k}={v}" for k, v in GA_PARAMS.items())
            + f", generations={ga_budget} (no local search: the paper's is not described)."
        )
    else:
        rep.notes.append("GA column left out: solver ga not registered on this branch.")
    for name in PUZZLES[:puzzles]:
        pz = library.puzzle(name)
        givens, nb, ga_paper = PAPER[name]
        cols = [("NB-COIN", "nbcoin", nb_params, nb, budget)]
        if ga:
            cols.append(("GA", "ga", {**GA_PARAMS, "generations": ga_budget}, ga_paper, ga_budget))
        for label, solver, params, paper, its in cols:
            cells = _column(runner, rep, solver, params, pz, runs, its, f"{name} {label}", paper)
            if cells is None:
                rep.interrupted = True
                return rep
            rep.rows.append([name, givens, label, *cells])
    rep.interrupted = runner.interrupted
    return rep
