"""Recording a run so any iteration can be revisited exactly: keyframes, recorded changes, re-simulation.

:class:`History` wraps a solver that has been reset and steps it for you. On the way it keeps
keyframes (:meth:`~sudoku_lab.solvers.Solver.state_dict`) and the run's event log; :meth:`History.seek`
then puts the solver in the exact state it had after any iteration reached so far, by loading the
nearest keyframe at or before it and re-simulating the rest (``step(a); step(b)`` equals
``step(a + b)``, so re-simulation repeats the run draw for draw). Stepping after a seek replays the
recorded run, parameter changes included, until something is changed: that starts a new branch.

Examples
--------
>>> from sudoku_lab.model import library
>>> from sudoku_lab.solvers import create
>>> from sudoku_lab.stepping.history import History
>>> from sudoku_lab.testing import assert_snapshots_equal
>>> s = create("hill_climb")
>>> s.reset(library.puzzle("ai_escargot"), seed=1)
>>> h = History(s, memory_limit=20_000_000)
>>> h.step(20)
20
>>> at_20 = s.snapshot()
>>> _ = h.set_params(w1=2.0)  # recorded at iteration 20: applies from iteration 21
>>> h.step(30), h.furthest
(30, 50)
>>> assert_snapshots_equal(h.seek(20), at_20)  # the state after iteration 20, before the change
>>> h.step(30), s.get_params()["w1"]  # the replay makes the change at 20 again
(30, 2.0)

Notes
-----
**Keyframes.** One is taken when the history starts (the *origin*, usually iteration 0) and then,
while stepping into iterations not reached before, every ``interval`` iterations counted from the
origin. Each keyframe's size is measured (every array's ``nbytes``, the trace rows included, plus
the Python objects around them). When the keyframes together pass ``memory_limit`` they are thinned
as :class:`~sudoku_lab.solvers.Trace` thins its rows: the spacing doubles and the keyframes off the
new grid go, except the origin and the latest keyframe; if the origin and the latest alone are over
the limit, the latest goes too. :attr:`History.memory_used` therefore never exceeds the limit; a
seek re-simulates at most about one spacing (more only in that last case), and a limit smaller than
the origin keyframe itself is refused.

**Changes and replay.** The solver's own event log is the record. Parameter events that appear
between the history's steps are parameter changes (made through :meth:`History.set_params` or the
solver's own ``set_params``); the history keeps them, grouped by call, with their iteration and
their position in the log. A change logged at iteration ``i`` applies before iteration ``i + 1``'s
draws, so a replay steps to ``i``, calls ``set_params`` with the recorded values, and steps on.
:meth:`History.seek` gives the state the *step* left at ``i``, before any change made at ``i``; the
changes at ``i`` are re-applied by the next :meth:`History.step`.

**Branches.** A change made anywhere but at the end of the recorded run (after a seek back, or at
the end after a seek that left changes recorded there unapplied) drops the recorded future: the
keyframes after the current iteration and the changes not yet applied; the record becomes the
solver's log up to now, and :attr:`History.furthest` the current iteration.

**Finished runs.** A solver that solves the puzzle or fails early stops there: :meth:`History.step`
then returns fewer iterations than asked, and :attr:`History.furthest` is where it stopped.

**Phases.** :meth:`History.step_phase` steps a solver that declares phases one phase at a time
(:meth:`~sudoku_lab.solvers.Solver.step_phase`). Phases are the same run, draw for draw, as whole
iterations, so phase steps after a seek replay the recorded run (no branch), and the phase ending an
iteration records it as ``step(1)`` does. Keyframes and seeks stay at iteration boundaries: in the
middle of an iteration :attr:`History.iteration` is the last whole one, :meth:`History.step` first
finishes the iteration (counting it as one of its ``n``), :meth:`History.seek` re-simulates to the
whole iteration asked for (the current one included), and :meth:`History.set_params` is refused as
the solver's own is. A solver put in the middle of an iteration behind the history's back
(``solver.step_phase()`` called directly) is refused, by the constructor and by every call, in one
line saying to finish the iteration with ``solver.step(1)`` (or to start a new history).

The history must do all the stepping (and :meth:`Solver.reset` / :meth:`Solver.load_state` must
not be called on the solver behind its back): it refuses to go on, in one line, when the solver was
stepped, reset or restored elsewhere. Only the solver contract is used (``state_dict``,
``load_state``, ``step``, ``set_params``, ``events``), so a solver registered from outside the
package works as a built-in one does.
"""

from __future__ import annotations

import bisect
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import checked
from ..errors import ParameterError
from ..model.puzzle import Puzzle
from ..solvers.base import Event, PhaseStep, Snapshot, Solver, Status

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_INTERVAL", "History", "state_nbytes"]

#: Bytes the keyframes of a :class:`History` may hold unless told otherwise (200 MB; the lab's setting).
DEFAULT_MEMORY_LIMIT = 200_000_000

#: Iterations between keyframes before any thinning.
DEFAULT_INTERVAL = 64


@dataclass(frozen=True)
class _Change:
    """One recorded ``set_params`` call: where it sits in the log, at which iteration, with what values."""

    index: int  # position of its first event in the solver's event log
    iteration: int
    params: dict


@dataclass
class _Keyframe:
    iteration: int
    state: dict
    nbytes: int


@checked
def state_nbytes(obj: Any) -> int:
    """Bytes held by a keyframe (or any nest of dicts, lists, tuples, arrays and small objects).

    Every array counts its ``nbytes`` (a :meth:`~sudoku_lab.solvers.Solver.state_dict`'s trace rows
    are one), every other object its ``sys.getsizeof`` and, for containers and objects with a
    ``__dict__``, what they hold; an object reached twice counts once.

    Parameters
    ----------
    obj : object
        A keyframe or any part of one.

    Returns
    -------
    int
        The estimate in bytes.
    """
    seen: set[int] = set()
    total = 0
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            total += o.nbytes + sys.getsizeof(np.empty(0))
            continue
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        elif hasattr(o, "__dict__") and not isinstance(o, type):
            stack.extend(vars(o).values())
    return total


def _whole_iterations(solver: Solver) -> None:
    if solver.phase:
        raise RuntimeError(
            f"{solver.name} is in the middle of iteration {solver.iteration + 1} (stepped by phases, next phase "
            f"{solver.phases[solver.phase].name!r}): a History records whole iterations; finish it with "
            "solver.step(1) first"
        )


@checked
class History:
    """Records a solver's run as it steps and puts it back in the state of any iteration reached.

    Parameters
    ----------
    solver : Solver
        A solver after :meth:`~sudoku_lab.solvers.Solver.reset` (any solver keeping the solver
        contract, registered from inside the package or outside). Its current iteration is the
        origin: the first iteration :meth:`seek` can reach.
    memory_limit : int
        Most bytes the keyframes may hold together (default 200 MB).
    interval : int
        Iterations between keyframes before any thinning (default 64).

    Raises
    ------
    RuntimeError
        The solver has not been reset, or is in the middle of an iteration stepped by phases.
    ParameterError
        ``memory_limit`` or ``interval`` is not positive, or the limit is smaller than one keyframe
        of this solver.

    Notes
    -----
    See the module's notes for the keyframes, their thinning, the replay of parameter changes and
    branches.
    """

    def __init__(self, solver: Solver, memory_limit: int = DEFAULT_MEMORY_LIMIT, interval: int = DEFAULT_INTERVAL):
        if memory_limit <= 0:
            raise ParameterError(
                f"memory_limit must be a positive number of bytes, got {memory_limit}", name="memory_limit"
            )
        if interval <= 0:
            raise ParameterError(f"interval must be a positive number of iterations, got {interval}", name="interval")
        if solver.status == Status.READY:
            raise RuntimeError("call solver.reset(puzzle, seed) before History(solver)")
        _whole_iterations(solver)
        self._solver = solver
        self._limit = int(memory_limit)
        self._interval0 = int(interval)
        self._start()

    def _start(self) -> None:
        s = self._solver
        self._origin = int(s.iteration)
        self._interval = self._interval0
        self._keys: list[_Keyframe] = []
        self._used = 0
        self._record: list[Event] = list(s.events)  # the recorded run's event log, up to furthest
        self._changes: list[_Change] = []
        self._furthest = self._origin
        first = self._keyframe()
        if first.nbytes > self._limit:
            raise ParameterError(
                f"memory_limit {self._limit} bytes is smaller than one keyframe of {s.name} ({first.nbytes} bytes)",
                name="memory_limit",
            )
        self._keys.append(first)
        self._used = first.nbytes
        self._leave(clean=True)

    # ------------------------------------------------------------ properties
    @property
    def solver(self) -> Solver:
        """The solver being recorded (step it through the history only)."""
        return self._solver

    @property
    def iteration(self) -> int:
        """The solver's current iteration."""
        return int(self._solver.iteration)

    @property
    def origin(self) -> int:
        """The iteration the history started at (0 after a reset): the first one :meth:`seek` reaches."""
        return self._origin

    @property
    def furthest(self) -> int:
        """The furthest iteration of the recorded run: :meth:`seek` reaches any from :attr:`origin` to it."""
        self._sync()
        return self._furthest

    @property
    def events(self) -> tuple[Event, ...]:
        """The recorded run's event log up to :attr:`furthest` (parameter changes, restarts...), for timeline marks.

        After a seek back it still holds the run's later events, which stepping will replay.
        """
        self._sync()
        return tuple(self._record)

    @property
    def memory_used(self) -> int:
        """Bytes the keyframes hold now (never more than :attr:`memory_limit`)."""
        return self._used

    @property
    def memory_limit(self) -> int:
        """Most bytes the keyframes may hold."""
        return self._limit

    @property
    def keyframes(self) -> tuple[int, ...]:
        """The iterations keyframes are kept at, in order (the origin first)."""
        return tuple(k.iteration for k in self._keys)

    @property
    def interval(self) -> int:
        """The current spacing of keyframes in iterations (doubles at each thinning)."""
        return self._interval

    # ------------------------------------------------------------- commands
    def step(self, n: int = 1) -> int:
        """Advance up to ``n`` iterations, recording; after a seek, replay the recorded run first.

        Recorded parameter changes are made again at their iterations, so a replay repeats the run
        exactly; past :attr:`furthest` the steps are new and recorded.

        Parameters
        ----------
        n : int
            Iterations to advance (``>= 0``).

        Returns
        -------
        int
            Iterations done: fewer than ``n`` if the solver finished (solved or failed).

        Raises
        ------
        ParameterError
            ``n`` is negative.
        RuntimeError
            The solver was stepped, reset or restored outside the history.
        """
        if n < 0:
            raise ParameterError(f"History.step: n must be a non-negative int, got {n}", name="n")
        self._sync()
        s = self._solver
        start, before = s.iteration, (len(s.events), s.status)
        self._advance(start + int(n), record=True)
        done = int(s.iteration) - start
        # Clean: the state the last step reaching this iteration left (no change made at it since).
        self._leave(clean=done > 0 or (self._clean and (len(s.events), s.status) == before))
        return done

    def step_phase(self) -> PhaseStep | None:
        """Advance one phase of the solver's next iteration (:meth:`~sudoku_lab.solvers.Solver.step_phase`), recording.

        Phases are the same run, draw for draw, as whole iterations, so stepping by phases after a
        seek replays the recorded run as :meth:`step` does (the recorded parameter changes at the
        current iteration are made before the iteration's first phase) and starts no branch. While
        the iteration is under way :attr:`iteration` stays at the last whole one; the phase that ends
        it records it exactly as ``step(1)`` would (a keyframe on the grid, its events). In the
        middle of an iteration :meth:`step` finishes it (counting it as one) and :meth:`seek` goes
        back to whole iterations as always; :meth:`set_params` is refused until it ends.

        Returns
        -------
        PhaseStep or None
            What the phase did, or None when the run is over (nothing done).

        Raises
        ------
        RuntimeError
            The solver declares no phases, or was stepped, reset or restored outside the history.
        """
        self._sync()
        s = self._solver
        if not s.phases:
            raise RuntimeError(f"{s.name} declares no phases: step it by whole iterations with History.step")
        if s.phase == 0:  # before the iteration's draws: the recorded changes made at this iteration
            self._replay_changes(s.iteration + 1)
        start = int(s.iteration)
        out = s.step_phase()
        if out is not None and out.ended:
            if s.iteration > self._furthest:
                self._furthest = int(s.iteration)
                if (s.iteration - self._origin) % self._interval == 0:
                    self._add(self._keyframe())
            if s.iteration == self._furthest and len(s.events) > len(self._record):
                self._record.extend(s.events[len(self._record) :])
        # Clean (whole-iteration state the recorded run passed through) once an iteration ended here.
        self._leave(clean=s.phase == 0 and (s.iteration > start or self._clean))
        return out

    def seek(self, iteration: int) -> Snapshot:
        """Put the solver in the exact state it had after ``iteration`` on the recorded run.

        That is the state the step reaching ``iteration`` left, before any parameter change made at
        it (the next :meth:`step` makes those again). The solver's :meth:`~Solver.snapshot` then
        equals the one taken there on the way.

        Parameters
        ----------
        iteration : int
            From :attr:`origin` to :attr:`furthest`.

        Returns
        -------
        Snapshot
            The solver's snapshot at ``iteration``.

        Raises
        ------
        ParameterError
            ``iteration`` is outside the recorded run.
        RuntimeError
            The solver was stepped, reset or restored outside the history.
        """
        self._sync()
        if not self._origin <= iteration <= self._furthest:
            raise ParameterError(
                f"History.seek: iteration must be between {self._origin} and {self._furthest} "
                f"(the recorded run), got {iteration}",
                name="iteration",
            )
        s, target = self._solver, int(iteration)
        if not (target == s.iteration and self._clean):
            pos = bisect.bisect_right([k.iteration for k in self._keys], target) - 1
            key = self._keys[pos]
            # Going forward from where the solver is beats loading an earlier keyframe (the current state is
            # on the recorded run; at the same iteration only before any change made there).
            if not (key.iteration <= s.iteration < target or (s.iteration == target and self._clean)):
                s.load_state(key.state)
            self._advance(target, record=False)
            if s.iteration != target:
                raise RuntimeError(
                    f"{s.name} did not replay its recorded run: it stopped at iteration {s.iteration} on the way "
                    f"to {target} (its steps must depend only on its state_dict)"
                )
        self._leave(clean=True)
        return s.snapshot()

    def set_params(self, **changes: Any) -> list[Event]:
        """Change parameters at the current iteration (as :meth:`Solver.set_params`), recording the change.

        The same as calling the solver's own ``set_params``, except that the call is recorded as one
        (a replay makes the changes in one call too). After a seek back this starts a new branch.

        Returns
        -------
        list of Event
            The events logged.

        Raises
        ------
        ParameterError
            As :meth:`Solver.set_params`.
        """
        self._sync()
        events = self._solver.set_params(**changes)
        self._sync(one_call=True)
        return events

    def reset(self, puzzle: Puzzle, seed: int | None = 0) -> None:
        """Reset the solver (:meth:`Solver.reset`) and start a new recording at its iteration 0."""
        self._solver.reset(puzzle, seed)
        self._start()

    # ------------------------------------------------------------- internals
    def _keyframe(self) -> _Keyframe:
        s = self._solver
        state = s.state_dict()
        # The puzzle and the events are immutable: one shared object each instead of a copy per keyframe
        # (load_state copies them back). A long run logs thousands of events; copied, they outweighed the arrays.
        state["puzzle"] = s.puzzle
        state["events"] = list(s.events)
        own = state_nbytes({k: v for k, v in state.items() if k not in ("puzzle", "events")})
        return _Keyframe(int(s.iteration), state, own + sys.getsizeof(state["events"]))

    def _leave(self, clean: bool) -> None:
        """Note where the history leaves the solver, to notice what happens to it before the next call."""
        s = self._solver
        self._at = (int(s.iteration), len(s.events), s.events[-1] if s.events else None, int(s.phase))
        self._clean = clean  # the state the step (or seek) reaching this iteration left, no change made since

    def _sync(self, one_call: bool = False) -> None:
        """Take in the parameter changes made on the solver since the history last left it."""
        s = self._solver
        it, n, last, phase = self._at
        if not phase:
            _whole_iterations(s)  # phase steps taken behind the history's back
        if (
            s.iteration != it
            or s.phase != phase
            or len(s.events) < n
            or (n and s.events[n - 1] is not last and s.events[n - 1] != last)
        ):
            raise RuntimeError(
                f"{s.name} was stepped, reset or restored outside its History (it is at iteration {s.iteration}, "
                f"the history left it at {it}): step it through the history, or start a new one"
            )
        new = s.events[n:]
        if not new:
            return
        if new[0].kind != "param" or any(e.iteration != it for e in new):
            raise RuntimeError(
                f"{s.name} logged events other than parameter changes outside its History "
                f"({new[0].describe()}): step it through the history"
            )
        if not self._at_end(n):
            self._branch(n)
        # One group per set_params call, replayed as one call. Calls made directly on the solver are told apart
        # where a name repeats (one call changes a name once); events a call's own hook logged follow its changes.
        groups: list[list[Event]] = []
        for e in new:
            if not groups or (
                e.kind == "param" and not one_call and any(g.kind == "param" and g.name == e.name for g in groups[-1])
            ):
                groups.append([])
            groups[-1].append(e)
        index = n
        for g in groups:
            self._changes.append(_Change(index, it, {e.name: e.new for e in g if e.kind == "param"}))
            index += len(g)
        self._record.extend(new)
        self._leave(clean=False)

    def _at_end(self, n_events: int) -> bool:
        """Is the solver (with ``n_events`` logged) at the end of the recorded run, every recorded event in?"""
        return self._solver.iteration == self._furthest and n_events >= len(self._record)

    def _branch(self, n_events: int) -> None:
        """Drop the recorded future beyond the solver's current state (it had ``n_events`` logged)."""
        it = int(self._solver.iteration)
        del self._record[n_events:]
        self._changes = [c for c in self._changes if c.index < n_events]
        kept = [k for k in self._keys if k.iteration <= it]
        self._keys = kept
        self._used = sum(k.nbytes for k in kept)
        self._furthest = it

    def _advance(self, target: int, record: bool) -> None:
        """Step to ``target`` along the recorded run, making its changes at their iterations; past its end,
        record (new keyframes, the log) when ``record``."""
        s = self._solver
        j = bisect.bisect_left([c.index for c in self._changes], len(s.events))
        while j < len(self._changes) and self._changes[j].iteration < target:
            c = self._changes[j]
            if s.iteration < c.iteration:
                self._step_to(c.iteration, record)
                if s.iteration < c.iteration:
                    break  # finished on the way (not on a recorded run)
            self._make_change(c)
            j += 1
        self._step_to(target, record)

    def _replay_changes(self, target: int) -> None:
        """Make the recorded changes due before iteration ``target``'s draws (the solver is at ``target - 1``)."""
        s = self._solver
        j = bisect.bisect_left([c.index for c in self._changes], len(s.events))
        while j < len(self._changes) and self._changes[j].iteration < target:
            self._make_change(self._changes[j])
            j += 1

    def _make_change(self, c: _Change) -> None:
        s = self._solver
        if len(s.events) == c.index:
            s.set_params(**c.params)
        elif len(s.events) < c.index or s.events[c.index] != self._record[c.index]:
            raise RuntimeError(
                f"{s.name} did not replay its recorded run: its event log differs at iteration {s.iteration} "
                "(its steps must depend only on its state_dict)"
            )
        # else: the solver's own step logged that parameter event; nothing to make again

    def _step_to(self, target: int, record: bool) -> None:
        s = self._solver
        while s.iteration < target and not s.done:
            stop = target
            if s.iteration >= self._furthest:  # new ground: stop at the next keyframe's iteration
                grid = self._origin + ((s.iteration - self._origin) // self._interval + 1) * self._interval
                stop = min(target, grid)
            elif record:
                stop = min(target, self._furthest)
            if s.step(stop - s.iteration) == 0:
                break
            if record and s.iteration > self._furthest:
                self._furthest = int(s.iteration)
                if (s.iteration - self._origin) % self._interval == 0:
                    self._add(self._keyframe())
        if record and s.iteration == self._furthest and len(s.events) > len(self._record):
            self._record.extend(s.events[len(self._record) :])  # the new steps' own events (restarts, run ends)

    def _add(self, key: _Keyframe) -> None:
        self._keys.append(key)
        self._used += key.nbytes
        while self._used > self._limit:
            middle = self._keys[1:-1]
            if middle:
                self._interval *= 2
                drop = [k for k in middle if (k.iteration - self._origin) % self._interval]
            else:
                drop = self._keys[1:]  # the origin and the latest alone are over the limit: keep the origin
            ids = {id(k) for k in drop}
            self._keys = [k for k in self._keys if id(k) not in ids]
            self._used = sum(k.nbytes for k in self._keys)

    # ------------------------------------------------------- saving (sessions)
    def record(self) -> dict[str, Any]:
        """The recorded run as plain values, for a session file (:func:`sudoku_lab.stepping.session.save_session`).

        :meth:`from_record` rebuilds the history around a solver restored to the state it had when this
        was taken: its :meth:`seek` then reaches every iteration from :attr:`origin` to :attr:`furthest`
        with the same snapshots, and stepping replays the recorded run, parameter changes included.

        Returns
        -------
        dict
            ``version`` (1), ``solver`` (its name), ``origin``, ``furthest``, ``iteration`` (where the
            solver is), ``clean`` (no change made at that iteration since the step reaching it),
            ``interval`` (the spacing now), ``base_interval`` (the spacing asked for), ``memory_limit``,
            ``events`` (the recorded run's log, a list of :class:`~sudoku_lab.solvers.Event`),
            ``changes`` (one ``{"index", "iteration", "params"}`` per recorded ``set_params`` call:
            ``index`` is its first event's position in ``events``) and ``keyframes`` (one
            ``{"iteration", "events", "state"}`` each, in order: ``state`` a
            :meth:`~sudoku_lab.solvers.Solver.state_dict` without its ``puzzle`` and ``events``, which are
            the solver's puzzle and the first ``events`` entries of the log). The keyframes' arrays are
            shared, not copied (they are never written again), so this is cheap and may be handed to
            another thread.

        Raises
        ------
        RuntimeError
            The solver was stepped, reset or restored outside the history, or is in the middle of an
            iteration stepped by phases.
        """
        self._sync()
        s = self._solver
        record = list(self._record)
        keys = []
        for k in self._keys:
            events = k.state["events"]
            n = len(events)
            if record[:n] != list(events):  # every keyframe is on the recorded run: its log is a prefix of it
                raise RuntimeError(f"the keyframe at iteration {k.iteration} is not on the recorded run of {s.name}")
            state = {key: v for key, v in k.state.items() if key not in ("puzzle", "events")}
            keys.append({"iteration": k.iteration, "events": n, "state": state})
        return {
            "version": 1,
            "solver": s.name,
            "origin": self._origin,
            "furthest": self._furthest,
            "iteration": int(s.iteration),
            "clean": bool(self._clean),
            "interval": self._interval,
            "base_interval": self._interval0,
            "memory_limit": self._limit,
            "events": record,
            "changes": [{"index": c.index, "iteration": c.iteration, "params": dict(c.params)} for c in self._changes],
            "keyframes": keys,
        }

    @classmethod
    def from_record(cls, solver: Solver, record: Any, memory_limit: int | None = None) -> History:
        """Rebuild a :class:`History` from :meth:`record` around ``solver``, restored where the record was taken.

        Parameters
        ----------
        solver : Solver
            The solver the record was taken from, restored to the state it had then (a session's
            :func:`~sudoku_lab.stepping.session.restore_solver`): same algorithm, on the recorded run.
        record : Mapping
            What :meth:`record` returned (after a round trip through a session file).
        memory_limit : int, optional
            The rebuilt history's limit (default: the recorded one); a smaller one thins the keyframes as
            stepping would.

        Returns
        -------
        History
            Its :meth:`seek` gives the recorded run's snapshots; :meth:`step` replays it.

        Raises
        ------
        ValueError
            The record is malformed (a key missing, a value of the wrong type, keyframes out of order
            or beyond :attr:`furthest`, a keyframe for another solver), or ``solver`` is not on the
            recorded run: one line naming what is wrong.
        ParameterError
            ``memory_limit`` is not positive or smaller than the origin keyframe.
        """
        if solver.status == Status.READY:
            raise RuntimeError("restore the solver (load_state) before History.from_record(solver, record)")
        _whole_iterations(solver)
        r = _checked_record(record, solver)
        limit = r["memory_limit"] if memory_limit is None else int(memory_limit)
        if limit <= 0:
            raise ParameterError(f"memory_limit must be a positive number of bytes, got {limit}", name="memory_limit")
        h = cls.__new__(cls)
        h._solver = solver
        h._limit = limit
        h._interval0 = r["base_interval"]
        h._origin = r["origin"]
        h._interval = r["interval"]
        h._furthest = r["furthest"]
        h._record = list(r["events"])
        h._changes = [_Change(c["index"], c["iteration"], dict(c["params"])) for c in r["changes"]]
        h._keys = []
        h._used = 0
        for k in r["keyframes"]:
            state = dict(k["state"])
            state["puzzle"] = solver.puzzle
            state["events"] = h._record[: k["events"]]
            own = state_nbytes({key: v for key, v in state.items() if key not in ("puzzle", "events")})
            key = _Keyframe(k["iteration"], state, own + sys.getsizeof(state["events"]))
            if not h._keys:
                if key.nbytes > limit:
                    raise ParameterError(
                        f"memory_limit {limit} bytes is smaller than one keyframe of {solver.name} "
                        f"({key.nbytes} bytes)",
                        name="memory_limit",
                    )
                h._keys.append(key)
                h._used = key.nbytes
            else:
                h._add(key)
        h._leave(clean=r["clean"])
        return h


_RECORD_KEYS = (
    ("version", int),
    ("solver", str),
    ("origin", int),
    ("furthest", int),
    ("iteration", int),
    ("clean", bool),
    ("interval", int),
    ("base_interval", int),
    ("memory_limit", int),
    ("events", list),
    ("changes", list),
    ("keyframes", list),
)


def _checked_record(record: Any, solver: Solver) -> dict:
    """The fields of a :meth:`History.record`, checked; ValueError (one line naming what is wrong) otherwise."""

    def kind(v: Any, t: type) -> bool:
        return isinstance(v, t) and (t is bool or not isinstance(v, bool))

    if not isinstance(record, dict):
        raise ValueError(f"the history is a {type(record).__name__}, not a mapping")
    for key, t in _RECORD_KEYS:
        if key not in record:
            raise ValueError(f"the history lacks its {key!r} entry")
        if not kind(record[key], t):
            raise ValueError(f"the history's {key} is a {type(record[key]).__name__}, not a {t.__name__}")
    r = record
    if r["version"] != 1:
        raise ValueError(f"the history is in version {r['version']}, this Sudoku Lab reads version 1")
    if r["solver"] != solver.name:
        raise ValueError(f"the history is of solver {r['solver']!r}, not {solver.name!r}")
    for key in ("interval", "base_interval", "memory_limit"):
        if r[key] <= 0:
            raise ValueError(f"the history's {key} is {r[key]}, not a positive number")
    if not 0 <= r["origin"] <= r["furthest"]:
        raise ValueError(f"the history's origin {r['origin']} is not between 0 and its furthest {r['furthest']}")
    if not r["origin"] <= r["iteration"] <= r["furthest"]:
        raise ValueError(
            f"the history's iteration {r['iteration']} is outside its recorded run ({r['origin']} to {r['furthest']})"
        )
    events = r["events"]
    if not all(isinstance(e, Event) for e in events):
        raise ValueError("the history's events are not all events")
    for i, c in enumerate(r["changes"]):
        where = f"the history's change {i}"
        if not isinstance(c, dict) or not all(k in c for k in ("index", "iteration", "params")):
            raise ValueError(f"{where} is not a mapping of index, iteration and params")
        if not (kind(c["index"], int) and kind(c["iteration"], int) and isinstance(c["params"], dict)):
            raise ValueError(f"{where} has the wrong types (index and iteration integers, params a mapping)")
        if not 0 <= c["index"] < len(events) or not r["origin"] <= c["iteration"] <= r["furthest"]:
            raise ValueError(
                f"{where} (event {c['index']} at iteration {c['iteration']}) is outside the recorded run "
                f"({len(events)} events, iterations {r['origin']} to {r['furthest']})"
            )
    keys = r["keyframes"]
    if not keys:
        raise ValueError("the history has no keyframes (its origin's keyframe at least)")
    previous = None
    for i, k in enumerate(keys):
        where = f"the history's keyframe {i}"
        if not isinstance(k, dict) or not all(x in k for x in ("iteration", "events", "state")):
            raise ValueError(f"{where} is not a mapping of iteration, events and state")
        it, n, state = k["iteration"], k["events"], k["state"]
        if not (kind(it, int) and kind(n, int) and isinstance(state, dict)):
            raise ValueError(f"{where} has the wrong types (iteration and events integers, state a mapping)")
        if it > r["furthest"]:
            raise ValueError(f"{where} is at iteration {it}, beyond the recorded run's furthest {r['furthest']}")
        if (i == 0 and it != r["origin"]) or (previous is not None and it <= previous):
            raise ValueError(f"{where} is at iteration {it}: keyframes start at the origin and go up")
        if not 0 <= n <= len(events):
            raise ValueError(f"{where} names {n} events, the history has {len(events)}")
        missing = [x for x in ("solver", "iteration", "params", "rng", "trace", "algorithm") if x not in state]
        if missing:
            raise ValueError(f"{where}'s state lacks its {missing[0]!r} entry")
        if state["solver"] != solver.name or state["iteration"] != it:
            raise ValueError(
                f"{where}'s state is of {state['solver']!r} at iteration {state['iteration']!r}, "
                f"not of {solver.name!r} at {it}"
            )
        previous = it
    # The solver must be where the record was taken, on the recorded run.
    n = len(solver.events)
    if solver.iteration != r["iteration"] or n > len(events) or list(solver.events) != events[:n]:
        raise ValueError(
            f"the solver (at iteration {solver.iteration}, {n} events) is not where the history was saved "
            f"(iteration {r['iteration']} of its recorded run)"
        )
    return r
