"""Guards against Qt-binding bugs that would crash a long lab session.

PySide6 6.12.0 returns True from every ``Signal.emit`` and None from every void method without
taking a reference for it, so each emission drops a reference to True and each void call one to
None. On Python 3.10 and 3.11 True's count (a few hundred at start) reaches zero within seconds of
a running lab (30 frames a second), and the interpreter aborts ("deallocating True or False").
From Python 3.12, True and None are immortal (PEP 683): a lost reference neither shows in
``sys.getrefcount`` nor frees them, so that bug is invisible there and harmless.

The checks on True and None therefore run only where those objects are reference counted (and
say why they skip elsewhere); the checks on a sentinel object, which every Python counts, run
everywhere and guard the same paths (signal arguments, slot return values, queued deliveries,
objects stored by a void Qt call) against the same kind of bug.
"""

from __future__ import annotations

import gc
import sys

import pytest
from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QStandardItem
from PySide6.QtWidgets import QPushButton

N = 200  # per check; enough to show a per-call leak, too few to exhaust True's count (a few hundred)


def _counted(obj) -> bool:
    """True if Python tracks ``obj``'s reference count (it is not immortal)."""
    before = sys.getrefcount(obj)
    holder = [obj, obj, obj]
    moved = sys.getrefcount(obj) != before
    del holder
    return moved


immortal_true_none = pytest.mark.skipif(
    not (_counted(True) and _counted(None)),
    reason=f"True and None are immortal on Python {sys.version_info.major}.{sys.version_info.minor} (PEP 683: "
    "3.12 and later): a lost reference to them neither shows in sys.getrefcount nor frees them; the "
    "sentinel tests cover these paths here",
)


class _Sentinel:
    """An ordinary object: reference counted on every Python version."""


class _Emitter(QObject):
    text = Signal(str)
    flag = Signal(bool)
    anything = Signal(object)
    nothing = Signal()


class _Receiver(QObject):
    def __init__(self, reply):
        super().__init__()
        self.reply = reply
        self.calls = 0

    @Slot(object, result=object)
    def echo(self, value):
        self.calls += 1
        return self.reply


def _delta(action, *objs, n=N):
    """Change of each object's reference count over ``n`` calls of ``action`` (after collecting garbage).

    Three calls before counting let one-time caches (connections, type lookups) settle.
    """
    for _ in range(3):
        action()
    gc.collect()
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(n):
        action()
    gc.collect()
    after = [sys.getrefcount(o) for o in objs]  # counted exactly as before (a zip would hold one more)
    return [a - b for a, b in zip(after, before)]


def _true_none_delta(action, n=N):
    """:func:`_delta` of True and None; if references were lost, end the whole session with a message.

    A binding that drops a reference per call frees True or None after a few hundred calls; any later
    Qt test would then abort the interpreter with no report at all, so this stops pytest cleanly.
    """
    d = _delta(action, True, None, n=n)
    if min(d) < 0:
        import PySide6

        pytest.exit(
            f"PySide6 {PySide6.__version__} loses references to True/None ({d[0]:+d}/{d[1]:+d} over {n} "
            'calls): a lab session would abort within seconds ("deallocating True"). Install a PySide6 '
            "that pyproject.toml allows (6.12.0 has this bug).",
            returncode=1,
        )
    return d


# True and None first: where they are lost, the sentinel tests' emissions would free them.
@immortal_true_none
@pytest.mark.parametrize("signal,arg", [("text", "x"), ("flag", False), ("anything", _Sentinel()), ("nothing", None)])
def test_emitting_signals_keeps_the_counts_of_true_and_none(qapp, signal, arg):
    """PySide6 6.12.0 drops a reference to True on every emission (emit returns True): fatal on Python 3.11."""
    e = _Emitter()
    received = []
    sig = getattr(e, signal)
    sig.connect(lambda *v: received.append(1))
    args = () if signal == "nothing" else (arg,)
    assert _true_none_delta(lambda: sig.emit(*args)) == [0, 0]
    assert len(received) == N + 3  # with _delta's three settling calls


@immortal_true_none
def test_void_qt_calls_keep_the_count_of_none(qapp):
    """PySide6 6.12.0 drops a reference to None on every call of a void method."""
    obj = QObject()
    assert _true_none_delta(lambda: obj.setObjectName("x")) == [0, 0]


@immortal_true_none
def test_widget_signals_keep_reference_counts(qapp):
    b = QPushButton()
    b.setCheckable(True)
    seen = []
    b.toggled.connect(seen.append)
    gc.collect()
    before = sys.getrefcount(True), sys.getrefcount(False)
    for _ in range(N):
        b.toggle()
    gc.collect()
    after = sys.getrefcount(True), sys.getrefcount(False)
    assert after == (before[0] + seen.count(True), before[1] + seen.count(False))  # the list holds those


def test_the_sentinel_is_reference_counted():
    assert _counted(_Sentinel()), "the sentinel tests below would be vacuous"


@pytest.mark.parametrize("how", ["lambda", "slot", "queued"])
def test_a_sentinel_through_a_signal_and_back_from_its_slot_keeps_its_count(qapp, how):
    """The argument of every emission and the value every slot returns are neither leaked nor over-released."""
    arg, reply = _Sentinel(), _Sentinel()
    e, r = _Emitter(), _Receiver(reply)
    if how == "lambda":
        e.anything.connect(lambda v: r.echo(v))
    elif how == "slot":
        e.anything.connect(r.echo)
    else:  # what crosses threads in the lab: the argument waits in the event queue until delivery
        e.anything.connect(r.echo, Qt.QueuedConnection)

    def emit():
        e.anything.emit(arg)

    def deliver():
        if how == "queued":
            qapp.processEvents()

    gc.collect()
    before = sys.getrefcount(arg), sys.getrefcount(reply)
    for i in range(N):
        emit()
        if i % 50 == 49:
            deliver()
    deliver()
    gc.collect()
    assert r.calls == N
    assert (sys.getrefcount(arg), sys.getrefcount(reply)) == before


def test_a_sentinel_stored_by_a_void_qt_call_is_held_exactly_once(qapp):
    """``QStandardItem.setData`` (void) keeps one reference to what it stores, whatever the number of calls."""
    item, s, other = QStandardItem(), _Sentinel(), _Sentinel()
    gc.collect()
    before = sys.getrefcount(s), sys.getrefcount(other)
    for _ in range(N):
        item.setData(s)
    gc.collect()
    counts = sys.getrefcount(s), sys.getrefcount(other)  # before asking data(): pytest keeps what asserts see
    assert counts == (before[0] + 1, before[1]) and item.data() is s
    for _ in range(N):
        item.setData(other)
    gc.collect()  # the old value is released exactly once
    counts = sys.getrefcount(s), sys.getrefcount(other)
    assert counts == (before[0], before[1] + 1) and item.data() is other
