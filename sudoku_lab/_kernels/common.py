"""Shared numba decorator and bit helpers for every kernel, and where compiled kernels are cached.

Kernels are plain functions on plain numpy arrays. They are compiled with one
decorator, :data:`jit`, so that the compile options are decided in one place:
``cache=True`` (compiled code is reused across processes), ``nogil=True`` (the
GUI thread keeps running while a worker thread is inside a kernel) and no
fastmath (results must be bit-for-bit reproducible across machines).

The cache lives in a per-user directory named after a hash of every source
file of this package (:func:`cache_key`), not next to the sources:

- numba keys a cached kernel on its own file only, so a kernel calling a
  helper from another module would keep running stale machine code after the
  helper changed; a directory per version of the whole package cannot;
- a shared install (a root-owned virtual environment used by accounts whose
  home is read-only, as on class machines, HPC clusters or containers run as
  another user) has no writable ``__pycache__``, and numba then refuses to
  decorate at all ("cannot cache function ...: no locator available").

:data:`CACHE_DIR` is ``$NUMBA_CACHE_DIR/<key>`` when that variable is set and
usable, else ``~/.cache/sudoku-lab/numba/<key>`` (``$XDG_CACHE_HOME``), else a
private directory under the system's temporary directory; when nothing is
writable, kernels are compiled without a cache and one line on stderr says so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit

from .._paths import private_dir, user_dir

__all__ = ["jit", "jit_inline", "popcount", "lowest_digit", "digit_bit", "shuffle", "cache_key", "CACHE_DIR"]

_HERE = Path(__file__).resolve().parent
#: Cache directories of other source versions are deleted once this many newer ones exist and they
#: have not been used for a day (other installs on the machine may still be using recent ones).
_KEEP_VERSIONS = 5


def cache_key(folder: Path = _HERE) -> str:
    """A hash of every ``.py`` file of the kernel package (names and contents), 16 hex digits."""
    h = hashlib.sha256()
    for f in sorted(folder.glob("*.py")):
        h.update(f.name.encode())
        h.update(b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _prune(root: Path, keep: Path) -> None:
    """Delete cache directories of old source versions under ``root`` (best effort)."""
    try:
        others = sorted(
            (d for d in root.iterdir() if d.is_dir() and d != keep), key=lambda d: d.stat().st_mtime, reverse=True
        )
        day_ago = time.time() - 86400
        for d in others[_KEEP_VERSIONS - 1 :]:
            if d.stat().st_mtime < day_ago:
                shutil.rmtree(d, ignore_errors=True)
    except OSError:
        pass


def _choose_cache_dir() -> Path | None:
    key = cache_key()
    roots = []
    # numba.config sets its settings as module attributes at run time: mypy cannot see CACHE_DIR.
    if numba.config.CACHE_DIR:  # type: ignore[attr-defined]  # the user's NUMBA_CACHE_DIR
        roots.append(Path(numba.config.CACHE_DIR))  # type: ignore[attr-defined]
    mine = user_dir("cache", "numba")
    if mine is not None:
        roots.append(mine)
    for root in roots:
        target = root / key
        if private_dir(target, root):
            try:
                os.utime(target)  # marks it as in use for _prune
            except OSError:
                pass
            _prune(root, target)
            return target
    return None


#: Where compiled kernels are cached (None: no writable directory, no cache).
CACHE_DIR = _choose_cache_dir()
if CACHE_DIR is not None:
    numba.config.CACHE_DIR = str(CACHE_DIR)  # type: ignore[attr-defined]  # set at run time, as above
else:
    sys.stderr.write(
        "sudoku-lab: note: no writable cache directory (home and temporary directory are "
        "read-only), so kernels are compiled at every start; set NUMBA_CACHE_DIR to a writable "
        "directory to keep them\n"
    )

#: The one decorator for kernels: ``@jit`` on a plain function.
jit = njit(cache=CACHE_DIR is not None, nogil=True)
#: :data:`jit` for a helper that numba inlines into each caller before compiling it (``inline="always"``):
#: for the hot helpers of a search, where a call's reference counting of every array passed costs more
#: than the helper's work. Such a helper is compiled (and cached) only as part of its callers.
jit_inline = njit(cache=CACHE_DIR is not None, nogil=True, inline="always")


@jit
def popcount(x):
    """Number of set bits of a mask below 2**32."""
    # numba widens uint32 arithmetic to 64 bits, so every step is masked
    # explicitly rather than relying on 32-bit wrap-around.
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x55555555))
    x = (x & np.uint64(0x33333333)) + ((x >> np.uint64(2)) & np.uint64(0x33333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F)
    return np.int64(((x * np.uint64(0x01010101)) >> np.uint64(24)) & np.uint64(0xFF))


@jit
def lowest_digit(x):
    """Digit (1-based) of the lowest set bit of a non-zero mask."""
    d = 1
    x = np.uint32(x)
    while (x & np.uint32(1)) == 0:
        x >>= np.uint32(1)
        d += 1
    return d


@jit
def digit_bit(d):
    """Mask of digit ``d`` (1-based)."""
    return np.uint32(1) << np.uint32(d - 1)


@jit
def shuffle(a, k, rng):
    """Fisher-Yates shuffle of ``a[:k]`` in place: for i = k-1 down to 1, one ``rng.random()``, j = int(u*(i+1))."""
    for i in range(k - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t
