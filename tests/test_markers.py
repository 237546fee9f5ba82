"""Event markers: aspiration moves of a tabu search are run marks, labelled and merged by kind.

Which kinds are marked is each solver's declaration (``Solver.marked_events``), read here.
"""

from __future__ import annotations

from sudoku_lab.solvers import Solver, get_solver_class
from sudoku_lab.solvers.base import Event
from sudoku_lab.stepping.markers import event_label, event_markers

TABU = get_solver_class("ac3_tabu").marked_events


def test_a_single_aspiration_is_labelled_with_its_move():
    e = Event(12, "aspiration", "aspiration", None, "r3c4=5")
    assert event_label(e) == "aspiration: r3c4=5"
    (m,) = event_markers([e], 0, 100, marked=TABU)
    assert (m.kind, m.iteration, m.count, m.label, m.solved) == ("run", 12.0, 1, "aspiration: r3c4=5", False)


def test_crowded_aspirations_and_restarts_merge_into_counts_by_kind():
    events = [Event(i, "aspiration", "aspiration", None, f"r1c{i % 9 + 1}=1") for i in range(1, 31)]
    events += [Event(i, "restart", "plateau", None, "") for i in range(2, 12)]
    events.sort(key=lambda e: e.iteration)
    marks = event_markers(events, 0, 100, max_markers=4, marked=TABU)
    assert len(marks) <= 4 and sum(m.count for m in marks) == 40
    first = marks[0]  # iterations 0..24: 24 aspirations (1..24) and all 10 restarts
    assert first.label == "24 aspirations, 10 restarts"
    assert marks[1].label == "6 aspirations"


def test_run_ends_still_lead_the_label_of_a_bin():
    events = [Event(i, "run_end", "failed" if i % 3 else "solved", None, "") for i in range(1, 41)]
    marks = event_markers(events, 0, 40, max_markers=2)
    # bins of width 20: iterations 1..19 first (every third solved), then 20..39
    assert marks[0].label == "19 runs ended: failed 13, solved 6" and marks[0].solved
    assert marks[1].label == "20 runs ended: failed 13, solved 7"


def test_the_marked_kinds_are_each_solvers_declaration():
    """Before: one table in markers.py (RUN_KINDS) decided for every solver, a plugin's included."""
    events = [
        Event(3, "aspiration", "aspiration", None, "r1c1=2"),
        Event(5, "restart", "full", None, ""),
        Event(7, "jump", "levy", None, "far"),
        Event(9, "run_end", "failed", None, ""),
        Event(11, "param", "alpha", 0.5, 0.7),
        Event(13, "info", "coupling", None, ""),
    ]

    def kinds(marked=None):
        return [(m.kind, m.iteration) for m in event_markers(events, 0, 20, marked=marked)]

    # the built-ins keep today's markers: run ends and restarts everywhere, aspirations for AC3-tabu only
    assert Solver.marked_events == ("run_end", "restart")
    assert {
        name
        for name in ("reseda", "hill_climb", "nbcoin", "ga", "cuckoo", "exact")
        if get_solver_class(name).marked_events == Solver.marked_events
    } == {"reseda", "hill_climb", "nbcoin", "ga", "cuckoo", "exact"}
    assert set(TABU) == {"run_end", "restart", "aspiration"}
    assert kinds() == [("run", 5.0), ("run", 9.0), ("param", 11.0)]
    assert kinds(TABU) == [("run", 3.0), ("run", 5.0), ("run", 9.0), ("param", 11.0)]
    # a plugin marks a kind of its own, and parameter changes stay markers whatever it declares
    assert kinds(("jump",)) == [("run", 7.0), ("param", 11.0)]
