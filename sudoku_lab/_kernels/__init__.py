"""The numba kernels, one module per algorithm; :func:`lazy` imports one when it is first used.

Importing a kernel module imports numba (about a second of CPU) and, on a cold cache, starts its compile. A
solver's module is imported for every ``--help`` and every listing of the algorithms, so it holds its kernel
through :func:`lazy` and reads what it needs at class creation (counters, parameter slots, codes, its
``State`` tuple) from the kernel's pure-Python layout module, ``<name>_layout``.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["lazy", "deferred"]

#: Held while a deferred module runs its code: a thread reading one of its names meanwhile waits for the end
#: (``importlib.util.LazyLoader`` shows it the half-run module on Python 3.11).
_LOADING = threading.RLock()
#: The deferred modules whose code is running (their own reads, and the import machinery's, go straight through).
_RUNNING: set[int] = set()


#: What a module holds before its code runs (from its spec): reading these runs nothing.
_SPEC_ATTRS = frozenset(
    ("__class__", "__name__", "__spec__", "__loader__", "__file__", "__cached__", "__package__", "__path__")
)


class _Deferred(ModuleType):
    """A module whose code runs at the first read or write of one of its attributes, then a plain module."""

    def __getattribute__(self, attr: str):
        if attr in _SPEC_ATTRS:  # set before it runs; isinstance() and the import system read them
            return ModuleType.__getattribute__(self, attr)
        with _LOADING:
            if object.__getattribute__(self, "__class__") is _Deferred and id(self) not in _RUNNING:
                _run(self)
        return ModuleType.__getattribute__(self, attr)

    def __setattr__(self, attr: str, value) -> None:
        self.__dict__  # noqa: B018  (runs the module first)
        ModuleType.__setattr__(self, attr, value)

    def __delattr__(self, attr: str) -> None:
        self.__dict__  # noqa: B018
        ModuleType.__delattr__(self, attr)


def _run(module: ModuleType) -> None:
    # Called with _LOADING held. On an error the module is dropped from sys.modules, so the next ``import``
    # of it raises the same error again instead of handing out half a module.
    spec = ModuleType.__getattribute__(module, "__spec__")
    _RUNNING.add(id(module))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        if sys.modules.get(spec.name) is module:
            del sys.modules[spec.name]
        raise
    else:
        object.__setattr__(module, "__class__", ModuleType)
    finally:
        _RUNNING.discard(id(module))


def lazy(name: str) -> ModuleType:
    """The module ``name`` (``"sudoku_lab._kernels.ga"``), whose code runs when one of its names is first read.

    A module imported before is returned as it is. A deferred one is in ``sys.modules`` at once, so an
    ordinary ``import`` of it elsewhere returns the same object (and runs it, as that reads its attributes).
    """
    if name in sys.modules:
        return sys.modules[name]
    with _LOADING:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    return module


def deferred(module: ModuleType) -> bool:
    """Whether ``module`` is a :func:`lazy` one whose code has not run yet (reading this runs nothing)."""
    return object.__getattribute__(module, "__class__") is _Deferred
