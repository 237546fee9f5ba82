"""Progress on a terminal and Ctrl-C as a stop flag: what the commands and the benchmarks show while long work runs.

Everything here writes to stderr only (a command's results go to stdout) and
never to a window; the lab shows progress its own way.
"""

from __future__ import annotations

import signal
import sys
import threading
import time

__all__ = ["interruptible", "ProgressBar", "duration_text", "RunProgress", "ReadProgress", "note"]


class interruptible:
    """Context manager turning Ctrl-C, SIGTERM and SIGHUP into an Event the work polls, so it ends cleanly.

    The first signal sets the event (and prints ``message``, if given): the
    work stops at its next check and keeps every finished result. A second
    Ctrl-C raises KeyboardInterrupt at once. ``signum`` records the first
    signal, for the exit status (128 + signum).

    >>> with interruptible() as stop:
    ...     while not stop.is_set() and False:
    ...         pass
    """

    #: Signals turned into a stop request (those that exist on this platform).
    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __init__(self, message: str | None = None):
        self.message = message
        self.signum: int | None = None

    def _handler(self, signum, frame):
        if self._event.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        if not self._event.is_set():
            self.signum = signum
            if self.message:
                print(f"\n{self.message}", file=sys.stderr, flush=True)
        self._event.set()

    def __enter__(self) -> threading.Event:
        self._event = threading.Event()
        self._old = {}
        try:
            for sig in self.SIGNALS:
                self._old[sig] = signal.getsignal(sig)
                signal.signal(sig, self._handler)
        except ValueError:  # not the main thread: leave the signals alone
            for sig, old in self._old.items():
                signal.signal(sig, old)
            self._old = {}
        return self._event

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False

    @property
    def exit_status(self) -> int:
        """128 + the signal that stopped the work (130 for Ctrl-C)."""
        return 128 + int(self.signum or signal.SIGINT)


class ProgressBar:
    """Counts of finished items: a bar on a terminal, a line per 10 % otherwise."""

    def __init__(self, enabled: bool = True, unit: str = "runs", label: str = ""):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.unit = unit
        self.label = f"{label} " if label else ""
        self._last_decile = -1

    def update(self, done: int, total: int, detail: str = "") -> None:
        """Show ``done`` of ``total`` (and ``detail``, e.g. successes and ETA, after the count)."""
        if not self.enabled:
            return
        frac = done / total if total else 1.0
        tail = f", {detail}" if detail else ""
        if self.tty:
            width = 30
            fill = int(frac * width)
            text = f"\r{self.label}[{'#' * fill}{'.' * (width - fill)}] {done:,}/{total:,} {self.unit}{tail}"
            print(text.ljust(getattr(self, "_width", 0)), end="", file=sys.stderr, flush=True)
            self._width = len(text)
        elif int(frac * 10) != self._last_decile:
            self._last_decile = int(frac * 10)
            print(f"{self.label}{done:,}/{total:,} {self.unit}{tail}", file=sys.stderr, flush=True)

    def batch(self, prog) -> None:
        """Show a :class:`~sudoku_lab.engine.experiments.BatchProgress`: count, successes, rate and time left."""
        detail = f"{prog.solved:,} solved"
        if prog.new:
            detail += f", {prog.rate:,.1f} {self.unit}/s, ETA {duration_text(prog.eta)}"
        self.update(prog.done, prog.total, detail)

    def close(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def duration_text(seconds: float) -> str:
    """``42 s``, ``3m05s``, ``2h10m``, ``3d04h``; ``?`` when unknown.

    >>> duration_text(185), duration_text(7800)
    ('3m05s', '2h10m')
    """
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


class RunProgress:
    """One run's progress: a self-overwriting line on a terminal, a line every few seconds otherwise."""

    def __init__(self, enabled: bool = True, what: str = "iteration"):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.what = what
        self._last = 0.0
        self._shown = False

    def update(self, prog) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.tty and now - self._last < 5.0 and not prog.done:
            return
        self._last = now
        s = prog.snapshot
        self.line(
            f"{s.iteration} {self.what}s, best cost {s.best_cost}, {prog.rate:,.0f}/s, "
            f"{prog.elapsed:.1f} s, {100 * prog.fraction:.0f} %"
        )

    def line(self, text: str) -> None:
        """Show ``text`` as the current progress line (over the previous one on a terminal)."""
        if not self.enabled:
            return
        self._shown = True
        print(("\r" + text.ljust(70)) if self.tty else text, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.tty and self._shown:
            print(file=sys.stderr)


def note(text: str) -> None:
    """Tell the user something that is not an error (one line on stderr)."""
    print(f"sudoku-lab: note: {text}", file=sys.stderr)


class ReadProgress:
    """Progress of reading a large file, on stderr, shown only once reading has taken more than a second."""

    def __init__(self, label: str):
        self.label = label
        self.t0 = self._last = time.perf_counter()
        self.printer = RunProgress(enabled=True)

    def __call__(self, done: int, total: int | None) -> None:
        now = time.perf_counter()
        if now - self.t0 < 1.0 or (not self.printer.tty and now - self._last < 5.0):
            return
        self._last = now
        share = f"{100 * done / total:.0f} % of {total / 1e6:.0f} MB" if total else f"{done / 1e6:.0f} MB"
        self.printer.line(f"reading {self.label}: {share}, {now - self.t0:.0f} s")

    def close(self) -> None:
        self.printer.close()
