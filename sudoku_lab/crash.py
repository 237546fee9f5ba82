"""Internal errors: one line for the user, the full report in a file.

Every error a user can cause is a :class:`~sudoku_lab.errors.SudokuLabError`
with its own message. Anything else is a bug; the command line and the window
then show one line that names the exception and where the full report (the
traceback, versions, command line) was written, never the traceback itself.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import traceback
from pathlib import Path

from ._checks import checked
from .errors import printable

__all__ = ["write_report", "internal_error_message"]


def _versions() -> list[str]:
    from . import __version__

    out = [f"sudoku-lab {__version__}", f"Python {sys.version.split()[0]} on {platform.platform()}"]
    for mod in ("numpy", "numba", "PySide6", "pyqtgraph", "matplotlib"):
        m = sys.modules.get(mod)
        if m is not None:
            out.append(f"{mod} {getattr(m, '__version__', '?')}")
    return out


@checked
def write_report(exc: BaseException, context: str = "") -> Path | None:
    """Write a crash report for ``exc``; return its path, or None if no directory is writable."""
    from ._paths import user_dir

    where = user_dir("state")
    if where is None:
        return None
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = where / f"crash-{stamp}-{os.getpid()}.txt"
    text = "\n".join(
        [
            f"Sudoku Lab internal error, {_dt.datetime.now().isoformat(timespec='seconds')}",
            *(_versions()),
            f"command: {' '.join(sys.argv)}",
            f"context: {context}" if context else "",
            "",
            "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        ]
    )
    try:
        # The exception's text may quote a file: the report is read in a terminal too (cat, less -R).
        path.write_text(printable(text, keep="\n"), encoding="utf-8")
    except OSError:
        return None
    return path


@checked
def internal_error_message(exc: BaseException, context: str = "") -> str:
    """Write the report and return the one line to show: the exception and where its report is."""
    path = write_report(exc, context)
    what = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    what = printable(what.splitlines()[0]) if what else type(exc).__name__  # shown in a terminal or a dialog
    if len(what) > 200:
        what = what[:197] + "..."
    where = f"full report in {path}" if path else "no writable directory for a report"
    return f"internal error ({what}); {where}. Please report it."
