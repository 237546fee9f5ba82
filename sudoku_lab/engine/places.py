"""Where the lab keeps results directories nobody named: a per-user data directory, never the current one.

The command line writes where it is told (``batch`` and ``grades`` name their outputs, relative to the
current directory as any command does). The lab window has no meaningful current directory (it depends on
how it was started), so its Correctness grades dialog and Batch experiment panel put a results directory
the user did not choose under :func:`results_home`:
``$XDG_DATA_HOME/sudoku-lab/results`` (the XDG base directory for user data), else
``~/.local/share/sudoku-lab/results``. Each is created (mode 0700, checked to be the user's own, as the
cache and crash folders are); when neither can be written (a read-only home on a class machine) there is
no default, and the dialogs ask for a directory instead.

Examples
--------
>>> from sudoku_lab.engine.places import folder_name
>>> folder_name("grades", "reseda_fig4_1_hard", "reseda", "20261201-120000", suffix=".runs")
'grades-reseda_fig4_1_hard-reseda-20261201-120000.runs'
>>> folder_name("my experiment/1", suffix="-results")
'my-experiment-1-results'
"""

from __future__ import annotations

import os
from pathlib import Path

from .._checks import checked
from .._paths import private_dir

__all__ = ["results_home", "folder_name"]


@checked
def results_home(create: bool = True) -> Path | None:
    """The per-user directory for results directories nobody named, or None if none can be written.

    ``$XDG_DATA_HOME/sudoku-lab/results`` when ``XDG_DATA_HOME`` is an absolute path, else
    ``~/.local/share/sudoku-lab/results``. With ``create`` (default) it is made and checked, and None
    when that fails; without, the directory it would be is said (None without a home directory), and
    nothing is made: a dialog says where runs will go before it runs them. Not cached: the answer
    depends on the environment at the time of the call.
    """
    base = os.environ.get("XDG_DATA_HOME")
    if base and os.path.isabs(base):
        anchor = Path(base) / "sudoku-lab"
    else:
        home = os.path.expanduser("~")
        if home in ("~", "/") or not os.path.isabs(home):
            return None
        anchor = Path(home) / ".local" / "share" / "sudoku-lab"
    where = anchor / "results"
    if not create:
        return where
    return where if private_dir(where, anchor) else None


@checked
def folder_name(*words: str, suffix: str = "") -> str:
    """A directory name from ``words`` joined by ``-``: any character but letters, digits, ``-``, ``_`` and
    ``.`` becomes ``-`` (a puzzle's text, a path or a space never makes a folder of its own)."""
    text = "-".join(w for w in words if w) or "results"
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text)
    return safe.strip(".") + suffix
