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
the solver's own is. :meth:`History.record` may be taken there (a session saved after Step phase):
the solver's own keyframe holds the phase, and :meth:`History.from_record` rebuilds around the
solver restored at that very phase; :meth:`History.replay_phases` recomputes the phase steps of the
iteration so far (what a front end showed). A history may also *start* in the middle of an
iteration (a session saved after Step phase without its history): its origin is that moment,
``seek(origin)`` gives it back, the whole iterations after it are reached as always, nothing before
it. A solver put in the middle of an iteration behind the history's back (``solver.step_phase()``
called directly) is refused, by every call, in one line.

**A record is verified against its own run.** A record read back (:meth:`History.from_record`,
from a session file someone else wrote) is untrusted but for two states its solver's
:meth:`~sudoku_lab.solvers.Solver.load_state` checks as states it could have produced: the origin's
keyframe and the saved state (the solver's, where the record was taken). What can be seen without
replaying is checked at once, in one line naming the iteration: keyframes where the placement puts
them (on the grid of the first spacing, at most ``interval`` apart: the only check that knows how
keyframes are placed), of the saved state's seed, naming
the log's events up to their iteration; ``furthest`` before where the next keyframe would have been;
the events in order and up to ``furthest``; each change the parameter events at its iteration; the
saved state's log the record's. The rest only a replay shows, and every replay that reaches a part
of the record compares it exactly (arrays, random generator, counters, trace, events: the whole
keyframe): the replay from the origin must pass through every keyframe up to the saved state and
arrive at it (after the changes made there, and the phases, for a state saved mid-iteration), and
the replay from the saved state must pass through the later keyframes and reach ``furthest`` with
the recorded events. A keyframe of the record is never loaded before such a replay reached it: the
first :meth:`History.seek` into a stretch not confirmed yet replays it up to the keyframe it loads
(:meth:`History.unconfirmed` says how many iterations; :meth:`History.verify` does it in slices, or
the whole record, in a solver of its own; :attr:`History.unverified` lists what is left), once.
Confirming a whole record costs a re-run of it at the solver's speed; a history recorded here has
nothing to confirm and no per-iteration cost. A difference is a
:class:`~sudoku_lab.errors.HistoryError` naming the iteration (``the history is not the run of ga
it claims: its keyframe at iteration 64 is not the replay's state there (state.rng...)``); the
history is refused from then on and the solver is left at a state of its own run, where it was or
where the replay found the difference. Which keyframes exist does not matter to the verification:
each one read from a record is compared when a replay reaches it, wherever it is.

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
from typing import Any, Mapping

import numpy as np

from .._checks import checked
from ..errors import HistoryError, ParameterError
from ..model.puzzle import Puzzle
from ..solvers.base import Event, PhaseStep, Snapshot, Solver, Status
from ..solvers.keyframes import difference

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_INTERVAL", "History", "state_nbytes"]

#: Bytes the keyframes of a :class:`History` may hold unless told otherwise (200 MB; the lab's setting).
DEFAULT_MEMORY_LIMIT = 200_000_000

#: Iterations between keyframes before any thinning.
DEFAULT_INTERVAL = 64

#: Most phase steps a replay takes within one iteration looking for a saved mid-iteration state (a phase
#: declared ``repeats=True`` runs many times; a record that never matches must still end).
_MAX_PHASE_STEPS = 1_000_000


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
    #: Taken here, or read from a record and found equal by a replay that reached it (the origin's of a record:
    #: the replays' starting point, which load_state checks). A keyframe read from a record and not yet
    #: confirmed is never loaded: a seek first replays up to it from a confirmed state.
    confirmed: bool = True
    #: Taken here, or loaded once through the checks of ``load_state``: later seeks restore it without them.
    checked: bool = True


@dataclass
class _Segment:
    """A stretch of a recorded run read from a record, confirmed by replaying it from a trusted state.

    Two per record: from the origin's keyframe to the saved state (``home``, the solver's state when the
    history was rebuilt), and from the saved state to the record's furthest iteration (``end_events``: the
    events the record says its run logged there).
    """

    start_state: dict  # the state the replay starts from (the origin's keyframe, or the saved state)
    start: int
    stop: int  # the last iteration it confirms
    home: dict | None = None  # the saved state, to be reached at ``stop`` (the first stretch)
    end_events: int | None = None  # the record's events up to ``stop`` before any change made there (the second)
    solver: Solver | None = None  # the replay, made at first use and dropped when done
    reached: int = 0

    def __post_init__(self):
        self.reached = self.start


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


@checked
class History:
    """Records a solver's run as it steps and puts it back in the state of any iteration reached.

    Parameters
    ----------
    solver : Solver
        A solver after :meth:`~sudoku_lab.solvers.Solver.reset` (any solver keeping the solver
        contract, registered from inside the package or outside), between iterations or in the middle
        of one (stepped by phases). Its current state is the origin: the first state :meth:`seek` can
        reach (see the module's notes on a history started in the middle of an iteration).
    memory_limit : int
        Most bytes the keyframes may hold together (default 200 MB).
    interval : int
        Iterations between keyframes before any thinning (default 64).

    Raises
    ------
    RuntimeError
        The solver has not been reset.
    ParameterError
        ``memory_limit`` or ``interval`` is not positive, or the limit is smaller than one keyframe
        of this solver.

    Notes
    -----
    See the module's notes for the keyframes, their thinning, the replay of parameter changes,
    branches, phases and the verification of a history rebuilt from a record.
    """

    def __init__(self, solver: Solver, memory_limit: int = DEFAULT_MEMORY_LIMIT, interval: int = DEFAULT_INTERVAL):
        _positive_limit(memory_limit)
        if interval <= 0:
            raise ParameterError(f"interval must be a positive number of iterations, got {interval}", name="interval")
        if solver.status == Status.READY:
            raise RuntimeError("call solver.reset(puzzle, seed) before History(solver)")
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
        self._segments: list[_Segment] = []  # what of a record read by from_record is not confirmed yet
        self._unconfirmed = 0  # keyframes read from a record that no replay has reached yet
        self._refused: str | None = None
        first = self._keyframe()
        if first.nbytes > self._limit:
            raise ParameterError(
                f"memory_limit {self._limit} bytes is smaller than one keyframe of {s.name} ({first.nbytes} bytes)",
                name="memory_limit",
            )
        self._keys.append(first)
        self._used = first.nbytes
        self._leave(clean=s.phase == 0)

    # ------------------------------------------------------------ properties
    @property
    def solver(self) -> Solver:
        """The solver being recorded (step it through the history only)."""
        return self._solver

    @property
    def iteration(self) -> int:
        """The solver's current iteration (the last whole one in the middle of an iteration)."""
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

    @property
    def unverified(self) -> tuple[tuple[int, int], ...]:
        """The stretches ``(from, to)`` of a recorded run read by :meth:`from_record` that no replay has confirmed yet.

        Empty for a run recorded here, and once :meth:`verify` (or the seeks and steps that replayed
        them) confirmed the whole record: the stretch from the origin to the saved iteration and the
        one from there to :attr:`furthest`.
        """
        return tuple((g.reached, g.stop) for g in self._segments)

    @property
    def refused(self) -> str | None:
        """Why the history was refused (a replay found it is not its own run), or None."""
        return self._refused

    # ------------------------------------------------------------- commands
    def step(self, n: int = 1) -> int:
        """Advance up to ``n`` iterations, recording; after a seek, replay the recorded run first.

        Recorded parameter changes are made again at their iterations, so a replay repeats the run
        exactly; past :attr:`furthest` the steps are new and recorded. A replay that reaches a keyframe
        read from a record compares it (see :meth:`verify`).

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
        HistoryError
            The replay found the recorded run is not the solver's own (the history is refused; the
            solver is left at a state of its own run, where the difference was found).
        RuntimeError
            The solver was stepped, reset or restored outside the history.
        """
        if n < 0:
            raise ParameterError(f"History.step: n must be a non-negative int, got {n}", name="n")
        self._alive()
        self._sync()
        s = self._solver
        start, before = s.iteration, (len(s.events), s.status)
        try:
            self._advance(start + int(n), record=True)
        except HistoryError as e:
            self._refuse(e)
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
        HistoryError
            As :meth:`step`.
        RuntimeError
            The solver declares no phases, or was stepped, reset or restored outside the history.
        """
        self._alive()
        self._sync()
        s = self._solver
        if not s.phases:
            raise RuntimeError(f"{s.name} declares no phases: step it by whole iterations with History.step")
        try:
            if s.phase == 0:  # before the iteration's draws: the recorded changes made at this iteration
                self._replay_changes(s.iteration + 1, s)
            start = int(s.iteration)
            out = s.step_phase()
            if out is not None and out.ended:
                if self._segments:
                    self._confirm(s)
                if s.iteration > self._furthest:
                    self._furthest = int(s.iteration)
                    if (s.iteration - self._origin) % self._interval == 0:
                        self._add(self._keyframe())
                if s.iteration == self._furthest and len(s.events) > len(self._record):
                    self._record.extend(s.events[len(self._record) :])
        except HistoryError as e:
            self._refuse(e)
        # Clean (whole-iteration state the recorded run passed through) once an iteration ended here.
        self._leave(clean=s.phase == 0 and (s.iteration > start or self._clean))
        return out

    def seek(self, iteration: int) -> Snapshot:
        """Put the solver in the exact state it had after ``iteration`` on the recorded run.

        That is the state the step reaching ``iteration`` left, before any parameter change made at
        it (the next :meth:`step` makes those again). The solver's :meth:`~Solver.snapshot` then
        equals the one taken there on the way. For a history started in the middle of an iteration,
        ``seek(origin)`` gives that very state back.

        A seek re-simulates from the nearest keyframe at or before ``iteration``: at most about one
        keyframe spacing (:attr:`interval`). A keyframe read from a record is first confirmed by
        replaying the record up to it from a trusted state (:meth:`verify`), once: the first seek into
        a long recorded run not verified yet replays it up to there (:meth:`unconfirmed` says how far).

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
        HistoryError
            The replay found the recorded run is not the solver's own (the history is refused).
        RuntimeError
            The solver was stepped, reset or restored outside the history.
        """
        self._alive()
        self._sync()
        if not self._origin <= iteration <= self._furthest:
            raise ParameterError(
                f"History.seek: iteration must be between {self._origin} and {self._furthest} "
                f"(the recorded run), got {iteration}",
                name="iteration",
            )
        s, target = self._solver, int(iteration)
        try:
            if not (target == s.iteration and self._clean):
                key = self._keys[self._key_at(target)]
                # Going forward from where the solver is beats loading an earlier keyframe (the current state is
                # on the recorded run; at the same iteration only before any change made there).
                forward = key.iteration <= s.iteration < target or (s.iteration == target and self._clean)
                if not forward:
                    if not key.confirmed:
                        self._verify_key(key)
                    if key.checked:
                        s._restore_trusted(key.state)  # its own, or checked at its first load: no checks again
                    else:
                        s.load_state(key.state)
                        key.checked = True
                self._advance(target, record=False)
                if s.iteration != target:
                    raise HistoryError(
                        f"the history is not the run of {s.name} it claims: the replay ends at iteration "
                        f"{s.iteration} ({s.status}) on the way to {target}",
                        iteration=int(s.iteration),
                    )
        except HistoryError as e:
            self._refuse(e)
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
        self._alive()
        self._sync()
        events = self._solver.set_params(**changes)
        self._sync(one_call=True)
        return events

    def reset(self, puzzle: Puzzle, seed: int | None = 0) -> None:
        """Reset the solver (:meth:`Solver.reset`) and start a new recording at its iteration 0."""
        self._solver.reset(puzzle, seed)
        self._start()

    # --------------------------------------------------------- verification
    def unconfirmed(self, iteration: int) -> int:
        """Iterations :meth:`seek` to ``iteration`` would replay to confirm the record before its own re-simulation.

        0 for a run recorded here, a keyframe already confirmed, or a seek that goes forward from the
        solver's state. A front end seeking far into a long record not verified yet calls
        :meth:`verify` in steps (``verify(n, iteration)``) meanwhile, to show progress and stay
        responsive.
        """
        if not self._segments or not self._origin <= iteration <= self._furthest:
            return 0
        s, target = self._solver, int(iteration)
        if target == s.iteration and self._clean:
            return 0
        key = self._keys[self._key_at(target)]
        if key.confirmed or key.iteration <= s.iteration < target:
            return 0
        g = self._segment_of(key)
        return max(0, key.iteration - g.reached) if g is not None else 0

    def verify(self, n: int | None = None, iteration: int | None = None) -> bool:
        """Confirm a recorded run read by :meth:`from_record` by replaying it: at most ``n`` iterations more.

        The replay starts from trusted states: the origin's keyframe (which the solver's
        :meth:`~sudoku_lab.solvers.Solver.load_state` checked as a state it could have produced) and
        the saved state the history was rebuilt around. Every recorded keyframe it reaches must be
        the replay's state there (arrays, random generator, counters, trace and events alike), the
        saved state must be where the replay from the origin arrives, and the replay from the saved
        state must reach the record's :attr:`furthest` with the recorded events. The replay runs in
        a solver of its own: the history's solver does not move. Confirming a whole record costs a
        re-run of it (its iterations at the solver's speed).

        Parameters
        ----------
        n : int, optional
            Most iterations to replay in this call (None: as many as it takes; 0: only the checks
            due where the replays are).
        iteration : int, optional
            Confirm what :meth:`seek` to this iteration needs first (:meth:`unconfirmed`); None: the
            record in order, the stretch before the saved state first.

        Returns
        -------
        bool
            True when nothing more is to be confirmed (for ``iteration``: the seek replays no more
            than its own re-simulation).

        Raises
        ------
        HistoryError
            The record is not the solver's own run: one line naming the iteration. The history is
            refused from then on.
        """
        self._alive()
        self._sync()
        if n is not None and n < 0:
            raise ParameterError(f"History.verify: n must be a non-negative int or None, got {n}", name="n")
        budget = None if n is None else int(n)
        try:
            while True:
                if iteration is not None:
                    if not self.unconfirmed(int(iteration)):
                        return True
                    g = self._segment_of(self._keys[self._key_at(int(iteration))])
                elif self._segments:
                    g = self._segments[0]
                else:
                    return True
                assert g is not None  # unconfirmed() found the stretch
                if budget is not None and budget <= 0 and not self._due_now(g):
                    return False
                used = self._verify_segment(g, budget)
                if budget is not None:
                    budget -= used
        except HistoryError as e:
            return self._refuse(e)

    def replay_phases(self) -> tuple[PhaseStep, ...]:
        """The phase steps of the iteration under way so far, recomputed by replaying the recorded run.

        For a front end reopening a session saved after Step phase: the last step's caption and the
        cells it changed are what the student saw then. Replays from the nearest keyframe at or before
        the current iteration in a solver of its own (at most about one keyframe spacing), makes the
        changes recorded there, then steps phases until it is in the solver's state.

        Returns
        -------
        tuple of PhaseStep
            Empty between iterations, or when the history started at this very state.

        Raises
        ------
        HistoryError
            The replay does not arrive at the solver's state: the recorded run is not its own.
        """
        self._alive()
        self._sync()
        s = self._solver
        if not s.phase:
            return ()
        it = int(s.iteration)
        key = self._keys[self._key_at(it)]
        steps: list[PhaseStep] = []
        try:
            v = self._scratch(key.state)
            self._advance(it, record=False, solver=v)
            if v.iteration != it:
                raise HistoryError(
                    f"the history is not the run of {s.name} it claims: the replay ends at iteration {v.iteration} "
                    f"({v.status}) before the iteration under way ({it + 1})",
                    iteration=int(v.iteration),
                )
            steps = self._phases_to(v, s.state_dict(), "the solver's state")
        except HistoryError as e:
            self._refuse(e)
        return tuple(steps)

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

    def _key_at(self, iteration: int) -> int:
        """Index of the nearest keyframe at or before ``iteration``."""
        return bisect.bisect_right([k.iteration for k in self._keys], iteration) - 1

    def _leave(self, clean: bool) -> None:
        """Note where the history leaves the solver, to notice what happens to it before the next call."""
        s = self._solver
        self._at = (int(s.iteration), len(s.events), s.events[-1] if s.events else None, int(s.phase))
        self._clean = clean  # the state the step (or seek) reaching this iteration left, no change made since

    def _alive(self) -> None:
        if self._refused is not None:
            raise HistoryError(
                f"{self._refused} (this history is refused: start a new History(solver) to go on from the solver's "
                "state)"
            )

    def _refuse(self, e: HistoryError) -> Any:
        """Refuse the history for good (its record is not its own run), re-raising ``e``."""
        self._refused = str(e)
        self._segments = []
        self._leave(clean=False)
        raise e

    def _sync(self, one_call: bool = False) -> None:
        """Take in the parameter changes made on the solver since the history last left it."""
        s = self._solver
        it, n, last, phase = self._at
        if (
            s.iteration != it
            or s.phase != phase
            or len(s.events) < n
            or (n and s.events[n - 1] is not last and s.events[n - 1] != last)
        ):
            raise RuntimeError(
                f"{s.name} was stepped, reset or restored outside its History (it is at iteration {s.iteration}, "
                f"phase {s.phase}; the history left it at {it}, phase {phase}): step it through the history, or "
                "start a new one"
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
        self._unconfirmed -= sum(not k.confirmed for k in self._keys if k.iteration > it)
        self._keys = kept
        self._used = sum(k.nbytes for k in kept)
        self._furthest = it
        # What a record still asks to confirm: its keyframes kept. The record's end is now the solver's own
        # state; a saved state beyond it was left by seeking back, which loads confirmed keyframes only.
        for g in self._segments:
            g.stop = min(g.stop, it)
            g.end_events = None
            if g.home is not None and int(g.home["iteration"]) > it:
                g.home = None
        self._segments = [g for g in self._segments if self._pending(g)]

    def _advance(self, target: int, record: bool, solver: Solver | None = None) -> None:
        """Step ``solver`` (the history's by default) to ``target`` along the recorded run, making its changes at
        their iterations; past its end, record (new keyframes, the log) when ``record``."""
        s = self._solver if solver is None else solver
        j = bisect.bisect_left([c.index for c in self._changes], len(s.events))
        while j < len(self._changes) and self._changes[j].iteration < target:
            c = self._changes[j]
            if s.iteration < c.iteration:
                self._step_to(c.iteration, record, s)
                if s.iteration < c.iteration:
                    break  # finished on the way (not on a recorded run)
            self._make_change(c, s)
            j += 1
        self._step_to(target, record, s)

    def _replay_changes(self, target: int, s: Solver, upto: int | None = None) -> None:
        """Make the recorded changes due before iteration ``target``'s draws (``s`` is at ``target - 1``); only
        those logged before event ``upto`` when given."""
        j = bisect.bisect_left([c.index for c in self._changes], len(s.events))
        while j < len(self._changes) and self._changes[j].iteration < target:
            if upto is not None and self._changes[j].index >= upto:
                break
            self._make_change(self._changes[j], s)
            j += 1

    def _make_change(self, c: _Change, s: Solver) -> None:
        if len(s.events) == c.index:
            try:
                s.set_params(**c.params)
            except (ValueError, TypeError) as e:  # a record's change the solver refuses (ParameterError included)
                raise HistoryError(
                    f"the history is not the run of {s.name} it claims: its change at iteration {c.iteration} is "
                    f"refused ({str(e).splitlines()[0] if str(e) else type(e).__name__})",
                    iteration=c.iteration,
                ) from None
        elif len(s.events) < c.index or s.events[c.index] != self._record[c.index]:
            got = s.events[c.index].describe() if len(s.events) > c.index else f"{len(s.events)} events"
            raise HistoryError(
                f"the history is not the run of {s.name} it claims: at iteration {s.iteration} the record has "
                f"{self._record[c.index].describe()} where the replay has {got}",
                iteration=int(s.iteration),
            )
        # else: the solver's own step logged that parameter event; nothing to make again

    def _step_to(self, target: int, record: bool, s: Solver) -> None:
        watch = s is self._solver and bool(self._segments)  # a replay compares the record's keyframes it reaches
        while s.iteration < target and not s.done:
            stop = target
            if s.iteration >= self._furthest:  # new ground: stop at the next keyframe's iteration
                grid = self._origin + ((s.iteration - self._origin) // self._interval + 1) * self._interval
                stop = min(target, grid)
            elif record:
                stop = min(target, self._furthest)
            if watch:
                stop = min(stop, self._next_watched(int(s.iteration)))
            if s.step(stop - s.iteration) == 0:
                break
            if watch:
                self._confirm(s)
            if record and s.iteration > self._furthest:
                self._furthest = int(s.iteration)
                if (s.iteration - self._origin) % self._interval == 0:
                    self._add(self._keyframe())
        if s is self._solver and s.done and s.iteration < min(target, self._furthest):
            raise HistoryError(
                f"the history is not the run of {s.name} it claims: the replay ends at iteration {s.iteration} "
                f"({s.status}), the record goes on to iteration {self._furthest}",
                iteration=int(s.iteration),
            )
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
            self._unconfirmed -= sum(not k.confirmed for k in drop)
            self._keys = [k for k in self._keys if id(k) not in ids]
            self._used = sum(k.nbytes for k in self._keys)

    def _scratch(self, state: Mapping) -> Solver:
        """A solver of the history's class of its own, in ``state`` (for replays that leave the solver alone)."""
        s = self._solver
        v = type(s)(**s.get_params())
        v.load_state(state)
        return v

    # ------------------------------------------------- verification internals
    def _segment_of(self, key: _Keyframe) -> _Segment | None:
        """The stretch of the record whose replay confirms ``key``."""
        for g in self._segments:
            if g.start < key.iteration <= g.stop:
                return g
        return None

    def _checkpoints(self, g: _Segment) -> list[int]:
        """Iterations where ``g``'s replay still has something to compare, from where it is."""
        out = [k.iteration for k in self._keys if not k.confirmed and g.reached <= k.iteration <= g.stop]
        if g.home is not None or g.end_events is not None:
            out.append(g.stop)
        return out

    def _pending(self, g: _Segment) -> bool:
        return bool(self._checkpoints(g))

    def _due_now(self, g: _Segment) -> bool:
        """Has ``g`` a comparison to make where its replay is (no iteration to replay first)?"""
        return any(it <= g.reached for it in self._checkpoints(g))

    def _verify_key(self, key: _Keyframe) -> None:
        """Confirm ``key`` by the replay of its stretch of the record (all of it up to there, once)."""
        g = self._segment_of(key)
        while not key.confirmed:
            if g is None or g not in self._segments:
                raise HistoryError(  # a keyframe no stretch covers: not of this record's run
                    f"the history of {self._solver.name} has a keyframe at iteration {key.iteration} that no "
                    "replay reaches",
                    iteration=key.iteration,
                )
            self._verify_segment(g, None)

    def _verify_segment(self, g: _Segment, budget: int | None) -> int:
        """Replay ``g`` toward its next checkpoint (at most ``budget`` iterations) and compare there; the
        iterations replayed."""
        points = self._checkpoints(g)
        if not points:
            self._close(g)
            return 0
        if g.solver is None:
            g.solver = self._scratch(g.start_state)
        v, target = g.solver, min(points)
        used = 0
        if v.iteration < target:
            stop = target if budget is None else min(target, int(v.iteration) + max(1, budget))
            before = int(v.iteration)
            self._advance(stop, record=False, solver=v)
            used = int(v.iteration) - before
            g.reached = int(v.iteration)
            if v.iteration < stop:
                what = (
                    "its keyframe"
                    if target != g.stop or (g.home is None and g.end_events is None)
                    else ("the saved state" if g.home is not None else "its furthest iteration")
                )
                raise HistoryError(
                    f"the history is not the run of {v.name} it claims: the replay ends at iteration {v.iteration} "
                    f"({v.status}), the record has {what} at iteration {target}",
                    iteration=int(v.iteration),
                )
            if v.iteration < target:
                return used
        # Arrived (the state the step reaching ``target`` left): the keyframe, the record's end, the saved state.
        for key in self._keys:
            if key.iteration == target and not key.confirmed:
                d = difference(v.state_dict(), key.state, "state")
                if d is not None:
                    raise HistoryError(
                        f"the history is not the run of {v.name} it claims: its keyframe at iteration {target} is not "
                        f"the replay's state there ({d})",
                        iteration=target,
                    )
                key.confirmed = True
                self._unconfirmed -= 1
        if target == g.stop and g.end_events is not None:
            self._check_end(v, g.end_events)
            g.end_events = None
        if target == g.stop and g.home is not None:
            self._phases_to(v, g.home, "the saved state", upto=len(g.home["events"]))
            g.home = None
        if not self._pending(g):
            self._close(g)
        return used

    def _close(self, g: _Segment) -> None:
        g.solver = None
        self._segments = [x for x in self._segments if x is not g]

    def _check_end(self, s: Solver, n_events: int) -> None:
        """The record's end reached by a replay (the step's state): its events must be the record's up to there."""
        if list(s.events) != self._record[:n_events]:
            d = difference(list(s.events), self._record[:n_events], "events")
            raise HistoryError(
                f"the history is not the run of {s.name} it claims: at its furthest iteration {s.iteration} its "
                f"event log differs from the replay's ({d})",
                iteration=int(s.iteration),
            )

    def _phases_to(self, v: Solver, state: Mapping, what: str, upto: int | None = None) -> list[PhaseStep]:
        """Make the changes recorded at ``v``'s iteration, then step phases until ``v`` is in ``state``; the steps."""
        it = int(v.iteration)
        if v.phase == 0:
            self._replay_changes(it + 1, v, upto=len(state["events"]) if upto is None else upto)
        steps: list[PhaseStep] = []
        while True:
            d = difference(v.state_dict(), state, "state")
            if d is None:
                return steps
            if not state.get("phase") or v.done or (steps and v.phase == 0) or len(steps) >= _MAX_PHASE_STEPS:
                raise HistoryError(
                    f"the history is not the run of {v.name} it claims: the replay arrives at iteration {it} in "
                    f"another state than {what} ({d})",
                    iteration=it,
                )
            step = v.step_phase()
            if step is None:
                continue  # the run is over: the next round says so
            steps.append(step)

    def _next_watched(self, it: int) -> int:
        """The next iteration after ``it`` where a replay of the history's solver compares the record."""
        out = [k.iteration for k in self._keys if not k.confirmed and k.iteration > it]
        out += [g.stop for g in self._segments if g.end_events is not None and g.stop > it]
        return min(out, default=sys.maxsize)

    def _confirm(self, s: Solver) -> None:
        """The history's solver reached ``s.iteration`` by replay: compare what the record has there."""
        it = int(s.iteration)
        for key in self._keys:
            if key.iteration == it and not key.confirmed:
                d = difference(s.state_dict(), key.state, "state")
                if d is not None:
                    raise HistoryError(
                        f"the history is not the run of {s.name} it claims: its keyframe at iteration {it} is not the "
                        f"replay's state there ({d})",
                        iteration=it,
                    )
                key.confirmed = True
                self._unconfirmed -= 1
        for g in self._segments:
            if g.end_events is not None and g.stop == it:
                self._check_end(s, g.end_events)
                g.end_events = None
        self._segments = [g for g in self._segments if self._pending(g)]

    # ------------------------------------------------------- saving (sessions)
    def record(self) -> dict[str, Any]:
        """The recorded run as plain values, for a session file (:func:`sudoku_lab.stepping.session.save_session`).

        :meth:`from_record` rebuilds the history around a solver restored to the state it had when this
        was taken: its :meth:`seek` then reaches every iteration from :attr:`origin` to :attr:`furthest`
        with the same snapshots, and stepping replays the recorded run, parameter changes included.
        The solver may be in the middle of an iteration (stepped by phases): the record's ``iteration``
        is then the last whole one, and the solver's own keyframe (the session's ``state``) holds the
        phase and what the iteration computed so far.

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
        HistoryError
            The history was refused.
        RuntimeError
            The solver was stepped, reset or restored outside the history.
        """
        self._alive()
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

        What can be seen cheaply is checked here (one line naming what is wrong); the rest is confirmed
        by replay (:meth:`verify`), before any keyframe of the record is used: the origin's keyframe
        and the solver's state are trusted, every other keyframe, the way from the origin to the
        solver's state and the record's end are compared when a replay reaches them.

        Parameters
        ----------
        solver : Solver
            The solver the record was taken from, restored to the state it had then (a session's
            :func:`~sudoku_lab.stepping.session.restore_solver`): same algorithm, on the recorded run,
            between iterations or in the middle of one.
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
            The record is malformed or does not fit its run: a key missing, a value of the wrong type,
            keyframes out of order, off their grid or of another seed, a ``furthest`` its keyframes
            cannot have, events beyond it, a change at another iteration than its events, a keyframe
            for another solver, or ``solver`` not on the recorded run: one line naming what is wrong
            (and the iteration).
        HistoryError
            A check due at once (the saved state at the record's end) finds another run.
        ParameterError
            ``memory_limit`` is not positive or smaller than the origin keyframe.
        """
        if solver.status == Status.READY:
            raise RuntimeError("restore the solver (load_state) before History.from_record(solver, record)")
        r = _checked_record(record, solver)
        limit = r["memory_limit"] if memory_limit is None else int(memory_limit)
        _positive_limit(limit)
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
        h._segments = []
        h._unconfirmed = 0
        h._refused = None
        for k in r["keyframes"]:
            state = dict(k["state"])
            state["puzzle"] = solver.puzzle
            state["events"] = h._record[: k["events"]]
            own = state_nbytes({key: v for key, v in state.items() if key not in ("puzzle", "events")})
            key = _Keyframe(
                k["iteration"], state, own + sys.getsizeof(state["events"]), confirmed=not h._keys, checked=False
            )
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
                h._unconfirmed += 1
                h._add(key)
        # What replays confirm: the way from the origin to the saved state, and from there to the record's end.
        home = solver.state_dict()
        here = int(solver.iteration)
        origin = h._keys[0]
        n_end = next((c.index for c in h._changes if c.iteration == h._furthest), len(h._record))
        h._segments = [_Segment(origin.state, h._origin, here, home=home)]
        if h._furthest > here:
            h._segments.append(_Segment(home, here, h._furthest, end_events=n_end))
        elif list(solver.events[:n_end]) != h._record[:n_end] or len(solver.events) < n_end:
            raise ValueError(  # saved at its end: the saved state's log is the record's
                f"the history's event log up to its furthest iteration {h._furthest} is not the saved state's"
            )
        made_here = any(c.iteration == here and c.index < len(solver.events) for c in h._changes)
        if solver.phase == 0 and not made_here:  # the saved state is what the step reaching it left: a keyframe there
            for key in h._keys:
                if key.iteration == here and not key.confirmed:
                    d = difference(home, key.state, "state")
                    if d is not None:
                        raise ValueError(f"the history's keyframe at iteration {here} is not the saved state ({d})")
                    key.confirmed = True
                    h._unconfirmed -= 1
        h._segments = [g for g in h._segments if h._pending(g)]
        # A record's clean flag is believed only where the log agrees: no change recorded at the saved iteration.
        h._leave(clean=r["clean"] and solver.phase == 0 and not made_here)
        try:
            h.verify(0)  # the checks due where the replays start (a saved state at the origin)
        except HistoryError as e:
            raise ValueError(str(e)) from None
        return h


def _positive_limit(limit: Any) -> None:
    if limit <= 0:
        raise ParameterError(f"memory_limit must be a positive number of bytes, got {limit}", name="memory_limit")


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
    """The fields of a :meth:`History.record`, checked; ValueError (one line naming what is wrong) otherwise.

    Beyond the form: what a record of the solver's own run must be, seen without replaying it (the
    keyframes on their grid and within their spacing, ``furthest`` no further than the next keyframe
    would have been, the events and changes where their iterations say, one seed throughout, the solver
    where the record was taken).
    """

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
    origin, furthest = r["origin"], r["furthest"]
    if not 0 <= origin <= furthest:
        raise ValueError(f"the history's origin {origin} is not between 0 and its furthest {furthest}")
    if not origin <= r["iteration"] <= furthest:
        raise ValueError(
            f"the history's iteration {r['iteration']} is outside its recorded run ({origin} to {furthest})"
        )
    events = r["events"]
    if not all(isinstance(e, Event) for e in events):
        raise ValueError("the history's events are not all events")
    for i, e in enumerate(events):
        if not kind(e.iteration, int) or e.iteration > furthest:
            raise ValueError(
                f"the history's event {i} ({e.describe()}) is at iteration {e.iteration!r}, beyond its run's "
                f"furthest iteration {furthest}"
            )
        if i and e.iteration < events[i - 1].iteration:
            raise ValueError(
                f"the history's event {i} ({e.describe()}) is at iteration {e.iteration}, after one at iteration "
                f"{events[i - 1].iteration}: a run's events are in the order of its iterations"
            )
    previous_index = -1
    for i, c in enumerate(r["changes"]):
        where = f"the history's change {i}"
        if not isinstance(c, dict) or not all(k in c for k in ("index", "iteration", "params")):
            raise ValueError(f"{where} is not a mapping of index, iteration and params")
        if not (kind(c["index"], int) and kind(c["iteration"], int) and isinstance(c["params"], dict)):
            raise ValueError(f"{where} has the wrong types (index and iteration integers, params a mapping)")
        if not 0 <= c["index"] < len(events) or not origin <= c["iteration"] <= furthest:
            raise ValueError(
                f"{where} (event {c['index']} at iteration {c['iteration']}) is outside the recorded run "
                f"({len(events)} events, iterations {origin} to {furthest})"
            )
        if c["index"] <= previous_index or not c["params"]:
            raise ValueError(f"{where} (event {c['index']}) is out of order or changes nothing")
        previous_index = c["index"]
        # A change is the parameter events it logged: those events, at its iteration, with its values.
        for j, (name, value) in enumerate(c["params"].items()):
            e = events[c["index"] + j] if c["index"] + j < len(events) else None
            if e is None or e.kind != "param" or e.iteration != c["iteration"] or e.name != name or e.new != value:
                logged = e.describe() if e is not None else "nothing"
                raise ValueError(
                    f"{where} sets {name}={value!r} at iteration {c['iteration']}, but its event "
                    f"{c['index'] + j} is {logged}"
                )
    keys = r["keyframes"]
    if not keys:
        raise ValueError("the history has no keyframes (its origin's keyframe at least)")
    previous = None
    previous_n = 0
    for i, k in enumerate(keys):
        where = f"the history's keyframe {i}"
        if not isinstance(k, dict) or not all(x in k for x in ("iteration", "events", "state")):
            raise ValueError(f"{where} is not a mapping of iteration, events and state")
        it, n, state = k["iteration"], k["events"], k["state"]
        if not (kind(it, int) and kind(n, int) and isinstance(state, dict)):
            raise ValueError(f"{where} has the wrong types (iteration and events integers, state a mapping)")
        if it > furthest:
            raise ValueError(f"{where} is at iteration {it}, beyond the recorded run's furthest {furthest}")
        if (i == 0 and it != origin) or (previous is not None and it <= previous):
            raise ValueError(f"{where} is at iteration {it}: keyframes start at the origin and go up")
        if not previous_n <= n <= len(events):
            raise ValueError(f"{where} names {n} events, the history has {len(events)} (and keyframes go up)")
        # Its log: the events logged up to the step reaching its iteration, no later ones.
        if (n and events[n - 1].iteration > it) or (n < len(events) and events[n].iteration < it):
            raise ValueError(f"{where} (iteration {it}) names {n} events of the log, which does not fit its iteration")
        missing = [x for x in ("solver", "iteration", "params", "rng", "trace", "algorithm") if x not in state]
        if missing:
            raise ValueError(f"{where}'s state lacks its {missing[0]!r} entry")
        if state["solver"] != solver.name or state["iteration"] != it:
            raise ValueError(
                f"{where}'s state is of {state['solver']!r} at iteration {state['iteration']!r}, "
                f"not of {solver.name!r} at {it}"
            )
        if state.get("seed") != solver.seed:
            raise ValueError(
                f"{where} (iteration {it}) is of a run with seed {state.get('seed')!r}, the saved state's is "
                f"{solver.seed!r}"
            )
        previous, previous_n = it, n
    _check_placement(r)
    # The solver must be where the record was taken, on the recorded run: its log the record's (the events of an
    # iteration it is in the middle of, at the record's end, not in the record yet).
    n = len(solver.events)
    m = min(n, len(events))
    extra = n > len(events) and not (solver.phase and r["iteration"] == furthest)
    if solver.iteration != r["iteration"] or extra or list(solver.events[:m]) != events[:m]:
        raise ValueError(
            f"the solver (at iteration {solver.iteration}, {n} events) is not where the history was saved "
            f"(iteration {r['iteration']} of its recorded run)"
        )
    return r


def _check_placement(r: dict) -> None:
    """Where the keyframes of a record can be, given how :class:`History` places them; ValueError otherwise.

    The one part of a record's checks that knows the placement rule (every ``interval`` iterations of new
    ground from the origin, the spacing doubling at each thinning): the keyframes on the first spacing's
    grid and at most ``interval`` apart, and ``furthest`` before the iteration where the next keyframe
    would have been taken. A placement of another rule changes this function only: the verification by
    replay compares every keyframe of a record wherever it is.
    """
    base, interval, origin, furthest = r["base_interval"], r["interval"], r["origin"], r["furthest"]
    ratio = interval // base
    if interval % base or ratio & (ratio - 1):
        raise ValueError(
            f"the history's interval {interval} is not its base_interval {base} doubled (keyframes thin by halves)"
        )
    its = [k["iteration"] for k in r["keyframes"]]
    for i in range(1, len(its)):
        where = f"the history's keyframe {i} is at iteration {its[i]}"
        if (its[i] - origin) % base:
            raise ValueError(f"{where}, off its grid (every {base} iterations from {origin})")
        if its[i] - its[i - 1] > interval:
            raise ValueError(
                f"{where}, {its[i] - its[i - 1]} iterations after the one before it: keyframes are at most "
                f"{interval} apart"
            )
    last = its[-1]
    # A run reaching `furthest` has a keyframe within `interval` before it, and a spacing doubles only once the
    # keyframes span it. (A history thinned to its origin alone, under a limit smaller than two keyframes, says
    # nothing here: its replay confirms its end.)
    if len(its) > 1 and (furthest >= last + interval or (interval > base and interval > last - origin)):
        raise ValueError(
            f"the history claims its run reaches iteration {furthest}, but its latest keyframe is at {last} and "
            f"they are {interval} apart (the next would be at {last + interval})"
        )
