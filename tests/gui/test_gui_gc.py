"""While a lab window is open, cyclic garbage is collected by a GUI-thread timer, never by the worker thread."""

from __future__ import annotations

import gc
import threading


def test_collection_moves_to_the_gui_thread_while_a_window_is_open(window, qtbot):
    from sudoku_lab_ui import gui_gc

    assert gc.isenabled()
    win = window("reseda_fig3_1_easy")
    assert gui_gc.active() and not gc.isenabled()
    seen = []

    class Cycle:
        def __init__(self):
            self.me = self

        def __del__(self):
            seen.append(threading.current_thread() is threading.main_thread())

    def make_garbage():  # a cycle made in another thread is freed by the GUI thread's timer
        for _ in range(gc.get_threshold()[0] + 50):
            Cycle()

    t = threading.Thread(target=make_garbage)
    t.start()
    t.join()
    assert seen == []  # nothing collected in the other thread
    qtbot.waitUntil(lambda: len(seen) > 0)  # the GUI thread's timer, however late it comes
    assert all(seen)
    win.close()
    assert not gui_gc.active() and gc.isenabled()


def test_the_last_of_two_windows_restores_collection(window):
    from sudoku_lab_ui import gui_gc

    a = window("reseda_fig3_1_easy")
    b = window("reseda_fig3_1_easy")
    a.close()
    assert gui_gc.active() and not gc.isenabled()
    b.close()
    assert not gui_gc.active() and gc.isenabled()
