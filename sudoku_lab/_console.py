"""Terminal helpers shared by the commands: Ctrl-C as a stop flag, progress output on stderr."""

from __future__ import annotations

import signal
import sys
import threading
import time

__all__ = ["interruptible", "ProgressBar", "RunProgress"]


class interruptible:
    """Context manager turning Ctrl-C into an Event the work polls, so it ends cleanly with its results.

    >>> with interruptible() as stop:
    ...     while not stop.is_set() and False:
    ...         pass
    """

    def __enter__(self) -> threading.Event:
        self._event = threading.Event()
        self._old = signal.getsignal(signal.SIGINT)
        try:
            signal.signal(signal.SIGINT, lambda *_: self._event.set())
        except ValueError:  # not the main thread: leave Ctrl-C alone
            self._old = None
        return self._event

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        return False


class ProgressBar:
    """Counts of finished items: a bar on a terminal, a line per 10 % otherwise."""

    def __init__(self, enabled: bool = True, unit: str = "runs", label: str = ""):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.unit = unit
        self.label = f"{label} " if label else ""
        self._last_decile = -1

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        if self.tty:
            width = 30
            fill = int(frac * width)
            print(f"\r{self.label}[{'#' * fill}{'.' * (width - fill)}] {done}/{total} {self.unit}", end="",
                  file=sys.stderr, flush=True)
        elif int(frac * 10) != self._last_decile:
            self._last_decile = int(frac * 10)
            print(f"{self.label}{done}/{total} {self.unit}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


class RunProgress:
    """One run's progress: a self-overwriting line on a terminal, a line every few seconds otherwise."""

    def __init__(self, enabled: bool = True, what: str = "iteration"):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.what = what
        self._last = 0.0

    def update(self, prog) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.tty and now - self._last < 5.0 and not prog.done:
            return
        self._last = now
        s = prog.snapshot
        line = (f"{s.iteration} {self.what}s, best cost {s.best_cost}, {prog.rate:,.0f}/s, "
                f"{prog.elapsed:.1f} s, {100 * prog.fraction:.0f} %")
        print(("\r" + line.ljust(70)) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr,
              flush=True)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)
