"""The public kernel decorator: what the built-in kernels are compiled with, for plugins too.

::

    from sudoku_lab.kernels import kernel

    @kernel
    def my_steps(grid, rng, n, out):
        ...

:func:`kernel` is numba's ``njit`` with the package's options, decided in one
place (:mod:`sudoku_lab._kernels.common`): ``cache=True``, ``nogil=True`` (the
lab's GUI thread runs on while a worker is inside a kernel) and no fastmath
(runs are bit-for-bit reproducible across machines). Compiled code is cached
on disk in the package's cache directory (:data:`CACHE_DIR`: under
``$NUMBA_CACHE_DIR`` or the user's cache, in a folder named after a hash of
the package's kernel sources), which works where numba's own
``__pycache__`` cache refuses to (a read-only shared install), and is said
as "compiled once" by the lab and the commands (a plugin's
``njit(cache=False)`` is compiled at every start, and they say that).

numba keys each cached kernel on its own source file (its modification time
and size): a plugin's kernel recompiles when its file changes. A kernel that
calls a ``@kernel`` helper in *another* file of the plugin is not recompiled
when only the helper changes (numba does not follow the call); keep a kernel
and its helpers in one module, or clear the cache
(``rm -r "$(python -c 'from sudoku_lab.kernels import CACHE_DIR; print(CACHE_DIR)')"``)
after editing a shared helper. The built-in kernels do not have this problem:
their cache folder changes with any kernel source of the package.
"""

from __future__ import annotations

from typing import Any, Callable

from ._checks import checked
from ._kernels.common import CACHE_DIR, jit as _jit

__all__ = ["kernel", "CACHE_DIR"]


@checked
def kernel(func: Callable[..., Any]) -> Callable[..., Any]:
    """Compile ``func`` as a numba kernel with the package's options and on-disk cache (use as ``@kernel``).

    Returns the numba dispatcher: call it with numpy arrays and scalars, a ``np.random.Generator`` for
    randomness (numba draws from it as numpy does).

    Raises
    ------
    ParameterTypeError
        ``func`` is not callable.
    """
    return _jit(func)
