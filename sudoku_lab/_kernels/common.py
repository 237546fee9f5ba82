"""Shared numba decorator and bit helpers for every kernel.

Kernels are plain functions on plain numpy arrays. They are compiled with one
decorator, :data:`jit`, so that the compile options are decided in one place:
``cache=True`` (compiled code is reused across processes), ``nogil=True`` (the
GUI thread keeps running while a worker thread is inside a kernel) and no
fastmath (results must be bit-for-bit reproducible across machines).

Numba's cache does not notice edits in *other* modules, so helpers that a
kernel calls live in the kernel's own module; only the tiny bit helpers below
are shared, and they are stable.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["jit", "popcount", "lowest_digit", "digit_bit"]

#: The one decorator for kernels: ``@jit`` on a plain function.
jit = njit(cache=True, nogil=True)


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
