"""Checks shared by the contract and worker tests: what in a published payload another thread could change."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import numpy as np


def mutable_parts(obj, path: str = "payload", seen: set | None = None):
    """Yield ``(path, problem)`` for every part of ``obj`` that could be changed in place.

    Walks frozen dataclasses (Progress, Snapshot, Event), read-only mappings and tuples; an
    array must be read-only and refuse a write; a dict, list, set or bytearray anywhere is a
    problem (another thread holding the same payload would see the change).
    """
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.flags.writeable:
            yield path, "writeable array"
            return
        try:
            obj[...] = 0
        except ValueError:
            pass
        else:
            yield path, "array accepted a write"
    elif isinstance(obj, (dict, list, set, bytearray)):
        yield path, f"mutable {type(obj).__name__}"
    elif isinstance(obj, MappingProxyType):
        for k, v in obj.items():
            yield from mutable_parts(v, f"{path}[{k!r}]", seen)
    elif isinstance(obj, tuple):
        for i, v in enumerate(obj):
            yield from mutable_parts(v, f"{path}[{i}]", seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from mutable_parts(getattr(obj, f.name), f"{path}.{f.name}", seen)
