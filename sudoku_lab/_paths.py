"""Where things are: the bundled resources, and per-user directories the lab may write to.

A checkout keeps the resources at the top of the repository (``resources/``);
the wheel ships the same tree as ``sudoku_lab/resources`` (see ``pyproject.toml``).

The lab writes to two per-user places: a cache (numba's compiled kernels) and a
state directory (crash reports). On a shared or read-only install the home
directory may not be writable either (a class machine, a container run as
another user, an HPC account), so :func:`user_dir` falls back to a private
directory under the system's temporary directory, and reports ``None`` when
nothing at all is writable; callers then do without.
"""

from __future__ import annotations

import os
import stat
import tempfile
from functools import lru_cache
from pathlib import Path

__all__ = ["resources_dir", "resource_path", "user_dir", "user_dir_candidates", "private_dir", "prepare_matplotlib"]


@lru_cache(maxsize=1)
def resources_dir() -> Path:
    """The directory holding ``puzzles/`` and the other bundled files."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "resources", here.parent / "resources"):
        if (candidate / "puzzles").is_dir():
            return candidate
    raise FileNotFoundError(
        "Sudoku Lab's bundled resources are missing: looked in "
        f"{here / 'resources'} (installed) and {here.parent / 'resources'} (checkout)"
    )


def resource_path(*parts: str) -> Path:
    """Path of a bundled file, e.g. ``resource_path("puzzles", "papers.csv")``."""
    return resources_dir().joinpath(*parts)


_XDG = {"cache": ("XDG_CACHE_HOME", ".cache"), "state": ("XDG_STATE_HOME", ".local/state")}


def user_dir_candidates(kind: str) -> list[tuple[Path, Path]]:
    """Where :func:`user_dir` looks, in order, for ``kind`` ``"cache"`` or ``"state"``.

    Pairs ``(anchor, directory)``: ``$XDG_CACHE_HOME/sudoku-lab`` (or
    ``~/.cache/sudoku-lab``; ``XDG_STATE_HOME`` and ``~/.local/state`` for
    state), then ``sudoku-lab-<uid>/<kind>`` under the temporary directory.
    Every directory from the anchor down must be the user's own.
    """
    var, default = _XDG[kind]
    out = []
    base = os.environ.get(var)
    if base and os.path.isabs(base):
        d = Path(base) / "sudoku-lab"
        out.append((d, d))
    else:
        home = os.path.expanduser("~")
        if home not in ("~", "/") and os.path.isabs(home):
            d = Path(home) / default / "sudoku-lab"
            out.append((d, d))
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    try:
        anchor = Path(tempfile.gettempdir()) / f"sudoku-lab-{uid}"
        out.append((anchor, anchor / kind))
    except FileNotFoundError:  # no usable temporary directory at all
        pass
    return out


def private_dir(path: Path, anchor: Path | None = None) -> bool:
    """Create ``path`` (mode 0700) if needed; True if it can be written and nobody else controls it.

    Every directory from ``anchor`` (default: ``path`` itself) down to
    ``path`` must belong to this user and be closed to writes by others: in a
    shared place such as /tmp, a directory someone else made could hold
    planted compiled code.
    """
    anchor = path if anchor is None else anchor
    try:
        anchor.parent.mkdir(parents=True, exist_ok=True)
        below = [p for p in path.parents if p == anchor or anchor in p.parents]
        for d in [*reversed(below), path]:
            d.mkdir(mode=0o700, exist_ok=True)  # pathlib would give intermediate directories the default mode
        if hasattr(os, "getuid"):
            chain = [path, *[p for p in path.parents if p == anchor or anchor in p.parents]]
            for d in chain:
                st = d.stat()
                if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                    return False
        with tempfile.TemporaryFile(dir=path):
            pass
        return True
    except OSError:
        return False


def user_dir(kind: str, *sub: str) -> Path | None:
    """A writable per-user directory for ``kind`` (``"cache"`` or ``"state"``), or None if there is none.

    ``sub`` names a subdirectory (created). Not cached: the answer depends on
    the environment at the time of the call.
    """
    for anchor, cand in user_dir_candidates(kind):
        target = cand.joinpath(*sub)
        if private_dir(target, anchor):
            return target
    return None


def prepare_matplotlib() -> None:
    """Give matplotlib a writable configuration directory when its own default is not writable.

    Otherwise, on a shared install with a read-only home, every figure prints
    two lines of warnings about a temporary cache directory. Call before
    importing matplotlib; ``MPLCONFIGDIR`` set by the user wins.
    """
    if os.environ.get("MPLCONFIGDIR"):
        return
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    default = Path(base) / "matplotlib"
    try:
        default.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=default):
            pass
        return
    except OSError:
        pass
    mine = user_dir("cache", "matplotlib")
    if mine is not None:
        os.environ["MPLCONFIGDIR"] = str(mine)
