"""Event markers for convergence plots that stay readable on runs of any length.

A 30,000-step run with restarts has thousands of run ends; one labelled line
each is a wall of text. :func:`event_markers` keeps every marker while there
are few in the visible range, and otherwise merges neighbouring ones into
bins ("14 runs ended: 13 failed, 1 solved"), so a plot never draws more than
``max_markers`` of them. Parameter changes, which a user made and wants to
see, are merged only among themselves and only when they are as crowded.

Which event kinds are run markers is each solver's declaration,
:attr:`sudoku_lab.solvers.Solver.marked_events` (run ends and restarts by default;
AC3-tabu adds its aspiration moves): callers pass it as ``marked``.

Used by the lab's convergence view and by :func:`sudoku_lab.analysis.figures.convergence_figure`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Collection, Iterable, Sequence

from .._checks import checked

if TYPE_CHECKING:
    from ..solvers.base import Event

__all__ = ["Marker", "event_markers", "event_label"]


def _default_marked() -> tuple[str, ...]:
    """The base declaration (:attr:`sudoku_lab.solvers.Solver.marked_events`): run ends and restarts."""
    from ..solvers.base import Solver

    return tuple(Solver.marked_events)


@checked
@dataclass(frozen=True)
class Marker:
    """One vertical marker: a single event or a bin of them.

    Attributes
    ----------
    iteration : float
        Where it is drawn (the first event of a bin).
    end : float
        The last event's iteration (equal to ``iteration`` for a single event).
    kind : {"run", "param"}
        Run ends and restarts, or parameter changes.
    count : int
        Events merged into it.
    label : str
        Text to show (short for one event, a summary for a bin).
    detail : str
        Longer text for tooltips (every event's description, capped).
    solved : bool
        A run in it ended solved (drawn in the success colour).
    """

    iteration: float
    end: float
    kind: str
    count: int
    label: str
    detail: str
    solved: bool = False


@checked
def event_label(event: Event) -> str:
    """A short label for one event (``"alpha 0.7 -> 0.9"``, ``"failed: box 5"``)."""
    if event.kind == "param":
        return f"{event.name} {event.old!r} -> {event.new!r}"
    if event.kind == "restart":
        return f"{event.name}: {event.new}" if event.new not in (None, "") else f"{event.name} restart"
    if event.kind == "run_end":
        where = str(event.new).split(",")[0] if event.new else ""
        return f"{event.name}: {where}" if where else str(event.name)
    if event.kind == event.name and event.new not in (None, ""):  # e.g. "aspiration: r3c4=5"
        return f"{event.kind}: {event.new}"
    return f"{event.kind} {event.name}"


def _group(events: Sequence, kind: str, start: float, stop: float, max_markers: int) -> list[Marker]:
    if not events:
        return []
    if len(events) <= max_markers:
        out = []
        i = 0
        while i < len(events):  # events at one iteration (a run end and its restart) share one marker
            j = i
            while j + 1 < len(events) and events[j + 1].iteration == events[i].iteration:
                j += 1
            same = events[i : j + 1]
            out.append(
                Marker(
                    float(same[0].iteration),
                    float(same[0].iteration),
                    kind,
                    len(same),
                    " / ".join(event_label(e) for e in same),
                    "\n".join(e.describe() for e in same),
                    any(e.kind == "run_end" and e.name == "solved" for e in same),
                )
            )
            i = j + 1
        return out
    width = max((stop - start) / max_markers, 1e-9)
    bins: dict[int, list] = {}
    for e in events:
        bins.setdefault(int((e.iteration - start) // width), []).append(e)
    out = []
    for _, group in sorted(bins.items()):
        ends = Counter(e.name for e in group if e.kind == "run_end")
        if kind == "run":
            n_runs = sum(ends.values())
            others = Counter(e.kind for e in group if e.kind != "run_end")
            head = f"{n_runs} runs ended" if n_runs else ", ".join(f"{v} {k}s" for k, v in sorted(others.items()))
            tail = ", ".join(f"{k} {v}" for k, v in sorted(ends.items()))
            label = f"{head}: {tail}" if tail else head
        else:
            label = f"{len(group)} parameter changes"
        detail = "\n".join(e.describe() for e in group[:12]) + (
            f"\n... {len(group) - 12} more" if len(group) > 12 else ""
        )
        out.append(
            Marker(
                float(group[0].iteration),
                float(group[-1].iteration),
                kind,
                len(group),
                label,
                detail,
                ends.get("solved", 0) > 0,
            )
        )
    return out


@checked
def event_markers(
    events: Iterable, start: float, stop: float, max_markers: int = 40, marked: Collection[str] | None = None
) -> list[Marker]:
    """Markers for the events between iterations ``start`` and ``stop`` (inclusive), at most ``max_markers`` per kind.

    Parameters
    ----------
    events : iterable of Event
        A snapshot's events, in iteration order.
    start, stop : float
        The visible range of iterations.
    max_markers : int
        Above this many events of a kind in range, neighbours are merged into
        ``max_markers`` equal-width bins.
    marked : collection of str, optional
        Event kinds drawn as run markers: the solver's ``marked_events`` declaration (default: the base
        class's, run ends and restarts). Parameter changes are always markers of their own.
    """
    kinds = frozenset(_default_marked() if marked is None else marked)
    inside = [e for e in events if start <= e.iteration <= stop]
    runs = [e for e in inside if e.kind in kinds]
    params = [e for e in inside if e.kind == "param"]
    return _group(runs, "run", start, stop, max_markers) + _group(params, "param", start, stop, max_markers)
