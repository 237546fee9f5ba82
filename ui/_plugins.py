"""What the lab's registries (views, board overlays) share on top of :class:`sudoku_lab._registry.Registry`."""

from __future__ import annotations

from typing import TypeVar

from sudoku_lab._registry import Registry

T = TypeVar("T")


def register(registry: Registry[T], obj: T, replace: bool) -> T:
    """Register ``obj``; with ``replace``, an object of the same name is replaced where it stood in the order.

    Raises
    ------
    ValueError
        The name is taken and ``replace`` is False.
    """
    if replace:
        name = registry.key(obj)
        current = list(registry.mapping().values())
        if any(registry.key(o) == name for o in current):
            for o in current:
                registry.unregister(registry.key(o))
            for o in current:
                registry.register(obj if registry.key(o) == name else o)
            return obj
    return registry.register(obj)
