"""Helpers shared by the window tests: toolbar buttons, the current iteration, waiting until ready."""

from __future__ import annotations

from PySide6.QtWidgets import QToolBar


def button(win, action):
    """The toolbar button of ``action`` (what a user clicks)."""
    for tb in win.findChildren(QToolBar):
        w = tb.widgetForAction(action)
        if w is not None:
            return w
    raise AssertionError(f"no toolbar button for {action.text()}")


def iteration(win):
    """The iteration of the window's latest frame, or None before the first."""
    p = win.controller.latest
    return None if p is None else p.snapshot.iteration


def wait_ready(qtbot, win, timeout=120_000):
    """Wait until the window has checked its puzzle, warmed its kernels and shown a first frame."""
    qtbot.waitUntil(lambda: win.controller.state == "idle" and win.controller.latest is not None, timeout=timeout)
