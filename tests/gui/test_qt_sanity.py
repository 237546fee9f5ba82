"""Guards against Qt-binding bugs that would crash a long lab session."""

from __future__ import annotations

import gc
import sys

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton


class _Emitter(QObject):
    text = Signal(str)
    flag = Signal(bool)
    anything = Signal(object)


@pytest.mark.parametrize("signal,arg", [("text", "x"), ("flag", True), ("anything", object())])
def test_emitting_signals_keeps_reference_counts(qapp, signal, arg):
    """PySide6 6.12.0 decrefs True on every Python emission: fatal on Python 3.11 after a few thousand."""
    e = _Emitter()
    received = []
    getattr(e, signal).connect(lambda v: received.append(1))
    gc.collect()
    before = (sys.getrefcount(True), sys.getrefcount(None), sys.getrefcount(arg))
    for _ in range(20_000):
        getattr(e, signal).emit(arg)
    gc.collect()
    after = (sys.getrefcount(True), sys.getrefcount(None), sys.getrefcount(arg))
    assert len(received) == 20_000
    assert after == before


def test_widget_signals_keep_reference_counts(qapp):
    b = QPushButton()
    b.setCheckable(True)
    seen = []
    b.toggled.connect(seen.append)
    gc.collect()
    before = sys.getrefcount(True), sys.getrefcount(False)
    for _ in range(10_000):
        b.toggle()
    gc.collect()
    after = sys.getrefcount(True), sys.getrefcount(False)
    assert after == (before[0] + seen.count(True), before[1] + seen.count(False))  # the list holds those
