"""Event markers: aspiration moves of a tabu search are run marks, labelled and merged by kind."""

from __future__ import annotations

from sudoku_lab.markers import event_label, event_markers
from sudoku_lab.solvers.base import Event


def test_a_single_aspiration_is_labelled_with_its_move():
    e = Event(12, "aspiration", "aspiration", None, "r3c4=5")
    assert event_label(e) == "aspiration: r3c4=5"
    (m,) = event_markers([e], 0, 100)
    assert (m.kind, m.iteration, m.count, m.label, m.solved) == ("run", 12.0, 1, "aspiration: r3c4=5", False)


def test_crowded_aspirations_and_restarts_merge_into_counts_by_kind():
    events = [Event(i, "aspiration", "aspiration", None, f"r1c{i % 9 + 1}=1") for i in range(1, 31)]
    events += [Event(i, "restart", "plateau", None, "") for i in range(2, 12)]
    events.sort(key=lambda e: e.iteration)
    marks = event_markers(events, 0, 100, max_markers=4)
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
