"""Loading (or compiling) the numba kernels before anything waits on them: one place for every front end.

Kernels are compiled on their first call, once per argument types, and
cached on disk by numba (:mod:`sudoku_lab._kernels.common`). A cold start
compiles for tens of seconds; a warm one loads in about a second. Whoever
would otherwise pay that at a bad moment calls :func:`warm_up` first: the
batch runner before timing runs (in each worker process), the benchmarks
before timing, the test session before tests that time or parallelise, the
lab's worker thread while the window shows a "compiling kernels" state.

Examples
--------
>>> from sudoku_lab.stepping.warmup import warm_up
>>> report = warm_up(["reseda"])                        # doctest: +SKIP
>>> report.compiled, report.loaded                      # doctest: +SKIP
((), ('sudoku_lab._kernels.reseda.run', ...))

What gets warmed:

* the shared kernels (exact search, AC3 propagation) that the solvers asked
  for use (their class's ``shared_kernels``: RESEDA, the cuckoo search and
  AC3-tabu name AC3, the exact solver the exact search, the others none), or
  all of them with ``shared=True`` (the commands that check or generate
  puzzles, the benchmarks): each public entry point once on a 4 x 4 and a
  9 x 9 puzzle. The exact search is one kernel of one signature
  (:func:`sudoku_lab._kernels.exact.search`), so that is one compile;
* each solver asked for: its class's own ``warm_up()`` classmethod if it
  defines one (one inherited from the ``Solver`` base class does not count),
  otherwise :func:`generic_warm_up` (reset on a 4 x 4 and a 9 x 9 puzzle, a
  few steps, a snapshot). The built-in kernels' argument types do not depend
  on the box size, so the small puzzles give every specialisation that runs
  on 16 x 16 and 25 x 25 grids use too (``tests/test_warmup.py`` checks it by
  comparing the compiled signatures before and after long runs); a solver
  whose kernels take size-dependent dtypes, or that reaches some kernel only
  late in a run, defines ``warm_up()`` (and may call :func:`generic_warm_up`
  from it).

Compiling is said as it happens, never loading: numba announces each compile
(its ``numba:compile`` event, not sent for a kernel loaded from the cache),
and :func:`warm_up` passes it on to ``on_compile``, by default a
:class:`CompileNotice` on stderr ("compiling kernels, once (3 of 3): reseda:
reseda.run"). A warm cache prints nothing. Worker processes and Dask
workers send the same calls to the process that started them, which prints
them (:mod:`sudoku_lab.engine.experiments`, :mod:`sudoku_lab.engine.cluster`).
:func:`warm_once` is what every clock calls before it starts, so no run's
time includes compiling.

Nothing here touches Qt; :func:`warm_up` may run in any thread (a QThread
included) and reports progress through a plain callback.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, TextIO

import numpy as np

from .._checks import checked
from ..solvers.warm import generic_warm_up

if TYPE_CHECKING:  # names of annotations only: these modules import this one
    from numba.core.dispatcher import Dispatcher

__all__ = [
    "SHARED_GROUPS",
    "shared_groups",
    "warm_up",
    "warm_once",
    "generic_warm_up",
    "WarmUpReport",
    "CompileNotice",
    "quiet_compiling",
    "SHARED",
    "UNCACHED",
]

#: Labels of the shared kernel groups, in the order they are warmed.
SHARED = ("exact search (shared kernels)", "AC3 (shared kernels)")
#: The shared groups by the key a solver names in its ``shared_kernels``, to their :data:`SHARED` label.
SHARED_GROUPS = {"exact": SHARED[0], "ac3": SHARED[1]}


#: What :func:`warm_up` has warmed in this process: :data:`SHARED` labels and solver classes (not names: a
#: name may be registered again, as tests do).
_WARMED: set = set()

ProgressFn = Callable[[int, int, "str | None"], object]
#: ``on_compile(kernel, done, total, item)``: a kernel starts compiling while item ``done + 1`` of ``total`` is warmed.
CompileFn = Callable[[str, int, int, str], object]


@checked
@dataclass(frozen=True)
class WarmUpReport:
    """What :func:`warm_up` did.

    Attributes
    ----------
    items : tuple of str
        What was warmed, in order: the :data:`SHARED` groups, then solver names.
    compiled : tuple of str
        Kernels (``module.function``) compiled by this call: not in numba's
        disk cache, or the cache is off.
    loaded : tuple of str
        Kernels loaded from numba's disk cache by this call.
    seconds : float
        Wall time of the call.

    Kernels already in memory (warmed earlier in this process) are in
    neither list.
    """

    items: tuple[str, ...]
    compiled: tuple[str, ...]
    loaded: tuple[str, ...]
    seconds: float

    @property
    def cold(self) -> bool:
        """True if anything had to be compiled (a cold cache: the slow case worth telling a user about)."""
        return bool(self.compiled)


def _warm_exact() -> None:
    from ..exact.solver import warm_kernels
    from ..model.library import warm_up_puzzles

    warm_kernels(warm_up_puzzles())


def _warm_ac3() -> None:
    from ..exact.ac3 import ac3, initial_domains
    from ..model.library import warm_up_puzzles

    for p in warm_up_puzzles():
        for grid in (p, np.array(p.grid)):
            ac3(grid)
            ac3(grid, hidden_singles=True)
            initial_domains(grid, p.n, one_pass=True)


@checked
def shared_groups(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """The :data:`SHARED` labels of the shared kernel groups the registered solvers ``names`` (all if None) use.

    In :data:`SHARED`'s order. A solver names them in its class's ``shared_kernels``.

    Raises
    ------
    ParameterError
        A name that is not a registered solver, or a solver class naming a group that does not exist.
    """
    from ..solvers import get_solver_class, registry

    return _groups_of([get_solver_class(n) for n in (registry() if names is None else list(names))])


def _groups(shared: bool | None, classes) -> tuple[str, ...]:
    """The :data:`SHARED` labels ``warm_up(shared=...)`` warms with these classes: all, none, or those they use."""
    return SHARED if shared else () if shared is not None else _groups_of(classes)


def _groups_of(classes) -> tuple[str, ...]:
    from ..errors import ParameterError

    used: set[str] = set()
    for cls in classes:
        for key in cls.shared_kernels:
            if key not in SHARED_GROUPS:
                raise ParameterError(
                    f"solver {cls.name!r} names {key!r} in its shared_kernels; the shared kernel groups are "
                    f"{', '.join(map(repr, SHARED_GROUPS))}",
                    name="shared_kernels",
                )
            used.add(SHARED_GROUPS[key])
    return tuple(label for label in SHARED if label in used)


def _solver_hook(cls) -> Callable[[], None]:
    """The class's own ``warm_up()`` if it (or a parent other than ``Solver``) defines one, else the generic default."""
    from ..solvers import Solver

    if any("warm_up" in vars(k) for k in cls.__mro__ if k not in (Solver, object)):
        return cls.warm_up
    return lambda: generic_warm_up(cls)


def _dispatchers() -> dict[int, tuple[str, Dispatcher]]:
    """Every numba dispatcher in the loaded modules of sudoku_lab and of the registered solvers' packages."""
    from numba.core.dispatcher import Dispatcher

    from .._kernels import deferred
    from ..solvers import registry

    roots = {"sudoku_lab"} | {cls.__module__.split(".")[0] for cls in registry().values()}
    found = {}
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or mod_name.split(".")[0] not in roots or deferred(mod):
            continue  # a kernel module not run yet holds no dispatcher (and reading it would run it)
        for obj in list(vars(mod).values()):
            if isinstance(obj, Dispatcher) and id(obj) not in found:
                found[id(obj)] = (f"{obj.py_func.__module__}.{obj.py_func.__name__}", obj)
    return found


def _cache_counts() -> dict[int, tuple[str, int, int]]:
    """Per dispatcher: name, cache hits and cache misses so far (numba counts one per signature loaded/compiled)."""
    # _cache_hits and _cache_misses are numba's own private counters, absent from its type information.
    return {
        k: (name, sum(d._cache_hits.values()), sum(d._cache_misses.values()))  # type: ignore[attr-defined, unused-ignore]
        for k, (name, d) in _dispatchers().items()
    }


#: Kernel names of what compiled without a cache (a plugin's ``njit(cache=False)``) end with this.
UNCACHED = " (not cached)"

_SILENT = False


@checked
def quiet_compiling(silent: bool = True) -> bool:
    """Say nothing while kernels compile in this process (``--quiet``), or again (False); the previous setting.

    Errors and notes still show. A :class:`CompileNotice` given its own stream always speaks.
    """
    global _SILENT
    was, _SILENT = _SILENT, silent
    return was


@checked
class CompileNotice:
    """Kernels compiling, said on stderr as it happens; nothing at all while every kernel comes from the cache.

    Called as :func:`warm_up`'s ``on_compile`` (in this process, or with what
    worker processes send). On a terminal, one line rewritten for each
    kernel: ``compiling kernels, once (3 of 3): reseda: reseda.run``;
    otherwise one such line per item (solver or shared group), whichever
    worker sends it. :meth:`close` ends with how many kernels compiled and
    how long it took, so a run's time printed next is not mistaken for it.
    """

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream
        self.kernels: set[str] = set()
        self.items: set[str] = set()
        self.t0: float | None = None
        self._width = 0
        self._lock = threading.Lock()  # Dask's events come on the client's thread

    @property
    def _out(self):
        return self.stream if self.stream is not None else sys.stderr

    @property
    def _tty(self) -> bool:
        try:
            return self._out.isatty()
        except (AttributeError, ValueError):
            return False

    def __call__(self, kernel: str, done: int, total: int, item: str) -> None:
        with self._lock:
            if self.t0 is None:
                self.t0 = time.perf_counter()
            self.kernels.add(kernel)
            once = "" if kernel.endswith(UNCACHED) else ", once"
            text = f"compiling kernels{once} ({done + 1} of {total}): {item}: {kernel}"
            if self._tty:
                self._print("\r" + text.ljust(self._width), end="")
                self._width = len(text)
            elif item not in self.items:
                self._print(text)
            self.items.add(item)

    @property
    def seconds(self) -> float:
        """Seconds since the first kernel started compiling (0 if none did)."""
        return 0.0 if self.t0 is None else time.perf_counter() - self.t0

    def close(self, finished: bool = True) -> None:
        """End the notice: how many kernels compiled in how long (``finished``), or just end the line."""
        from .._kernels.common import CACHE_DIR

        with self._lock:
            if self.t0 is None:
                return
            n = len(self.kernels)
            uncached = sum(k.endswith(UNCACHED) for k in self.kernels)
            text = ""
            if finished:
                later = (
                    "later runs load them from the cache"
                    if CACHE_DIR is not None
                    else "no writable cache, so every start compiles them"
                )
                if uncached == n and CACHE_DIR is not None:
                    later = "their solver keeps no cache, so every start compiles them"
                elif uncached:
                    later += f" ({uncached} of them kept by no cache: every start compiles those)"
                text = (
                    f"compiled {n} kernel{'s' if n != 1 else ''} in {self.seconds:.1f} s"
                    f"{'' if uncached == n else ', once'}: {later}"
                )
            if self._tty:
                self._print("\r" + text.ljust(self._width))
            elif text:
                self._print(text)
            self.t0 = None
            self.kernels.clear()
            self.items.clear()
            self._width = 0

    def _print(self, text: str, end: str = "\n") -> None:
        if _SILENT and self.stream is None:
            return
        try:
            print(text, end=end, file=self._out, flush=True)
        except (OSError, ValueError):  # a closed or full stderr must not stop the warm-up
            pass


def _uncached(dispatcher) -> bool:
    """Whether numba keeps no cache of this kernel (``njit(cache=False)``, as some plugins are)."""
    from numba.core.caching import NullCache

    return isinstance(getattr(dispatcher, "_cache", None), NullCache)


class _CompileListener:
    """numba's ``numba:compile`` events of one thread, passed on as kernel names (``reseda.run``)."""

    def __init__(self, callback: Callable[[str], object]):
        from numba.core import event

        class Listener(event.Listener):
            def on_start(inner, ev):  # noqa: N805 - numba's Listener interface
                if threading.get_ident() != self.thread:
                    return  # another thread compiling at the same time (the lab's background checks)
                try:
                    dispatcher = ev.data["dispatcher"]
                    fn = dispatcher.py_func
                    if fn.__module__.split(".")[0] == "numba":
                        return  # numba's own helpers, compiled as part of a kernel
                    name = f"{fn.__module__}.{fn.__qualname__}".removeprefix("sudoku_lab._kernels.")
                    callback(name + (UNCACHED if _uncached(dispatcher) else ""))
                except Exception:  # noqa: BLE001 - a notice must never break a compilation
                    pass

            def on_end(inner, ev):  # noqa: N805
                pass

        self.thread = threading.get_ident()
        self.listener = Listener()

    def installed(self):
        from numba.core import event

        return event.install_listener("numba:compile", self.listener)


@checked
def warm_up(
    names: Iterable[str] | None = None,
    progress: ProgressFn | None = None,
    shared: bool | None = None,
    on_compile: CompileFn | str | None = "stderr",
) -> WarmUpReport:
    """Load or compile the kernels of these registered solvers (all if None) and the shared ones they use.

    Parameters
    ----------
    names : iterable of str, optional
        Registered solver names; None warms every registered solver.
    progress : callable, optional
        ``progress(done, total, name)``: called before each item with the
        number of items finished and the item about to be warmed (a solver
        name or a :data:`SHARED` label), and once at the end with
        ``done == total`` and ``name=None``. Called from the thread that runs
        :func:`warm_up` (a GUI must hand it to its own thread, e.g. through a
        Qt signal).
    shared : bool, optional
        None (the default): also the shared kernel groups these solvers use
        (:func:`shared_groups`); True: every shared group; False: none.
    on_compile : callable, "stderr" or None
        ``on_compile(kernel, done, total, item)`` each time a kernel starts
        compiling (not when it is loaded from the cache), from the thread
        that runs :func:`warm_up`. ``"stderr"`` (the default) says so on
        stderr with a :class:`CompileNotice`, closed at the end; None says
        nothing.

    Returns
    -------
    WarmUpReport

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        If a name is not a registered solver (before anything is compiled).
    """
    from ..solvers import get_solver_class, registry

    classes = [get_solver_class(n) for n in (registry() if names is None else list(names))]
    return _warm_items(classes, _groups(shared, classes), progress, on_compile)


def _warm_items(classes, groups, progress, on_compile) -> WarmUpReport:
    """:func:`warm_up` of these solver classes and these :data:`SHARED` groups (warmed first)."""
    t0 = time.perf_counter()
    warmers = dict(zip(SHARED, (_warm_exact, _warm_ac3)))
    items: list[tuple[str, Callable[[], None]]] = [(label, warmers[label]) for label in groups]
    keys: list[object] = list(groups)  # what _WARMED records for each item
    for cls in classes:
        items.append((cls.name, _solver_hook(cls)))
        keys.append(cls)
    before = _cache_counts()
    stderr_notice = CompileNotice() if on_compile == "stderr" else None
    # Another string than "stderr" says nothing, as its call would fail inside the listener, which drops errors.
    notice = stderr_notice if stderr_notice is not None else on_compile if callable(on_compile) else None
    at_done, at_label = 0, ""  # the item being warmed, for the notice
    listening = (
        nullcontext()
        if notice is None
        else _CompileListener(lambda kernel: notice(kernel, at_done, len(items), at_label)).installed()
    )
    finished = False
    try:
        with listening:
            for done, ((label, fn), key) in enumerate(zip(items, keys)):
                at_done, at_label = done, label
                if progress is not None:
                    progress(done, len(items), label)
                _WARMED.add(key)  # before: a class's own warm_up() may drive loop.iterate, which calls warm_once
                try:
                    fn()
                except BaseException:
                    _WARMED.discard(key)
                    raise
        finished = True
    finally:
        if stderr_notice is not None:
            stderr_notice.close(finished)
    if progress is not None:
        progress(len(items), len(items), None)
    compiled, loaded = [], []
    for key, (name, hits, misses) in _cache_counts().items():
        _, hits0, misses0 = before.get(key, (name, 0, 0))
        if misses > misses0:
            compiled.append(name)
        elif hits > hits0:
            loaded.append(name)
    return WarmUpReport(
        items=tuple(label for label, _ in items),
        compiled=tuple(sorted(compiled)),
        loaded=tuple(sorted(loaded)),
        seconds=time.perf_counter() - t0,
    )


@checked
def warm_once(names: Iterable[str] = (), shared: bool | None = None) -> WarmUpReport | None:
    """:func:`warm_up` of what this process has not warmed yet (None when that is nothing), compiling said on stderr.

    What every clock calls before it starts (:func:`sudoku_lab.stepping.loop.iterate`,
    :func:`sudoku_lab.engine.experiments.run_task`, the commands that print a time),
    so that no run's time includes compiling, and the commands that would
    otherwise be silent while kernels compile. After the first call it costs
    a set lookup.

    Parameters
    ----------
    names : iterable of str
        Registered solver names.
    shared : bool, optional
        As for :func:`warm_up`: None, the shared groups these solvers use; True, all; False, none.
    """
    from ..solvers import get_solver_class

    classes = [get_solver_class(n) for n in dict.fromkeys(names)]
    todo = [cls for cls in classes if cls not in _WARMED]
    need = {label for label in _groups(shared, classes) if label not in _WARMED}
    if not todo and not need:
        return None
    if shared is None:  # a solver warmed before without a group it uses (warm_up(shared=False)) comes again for it
        todo += [cls for cls in classes if cls not in todo and need & set(_groups_of([cls]))]
    # What was warmed before is warmed again only in memory, which costs nothing worth a finer call.
    return warm_up([cls.name for cls in todo], shared=shared if need else False)
