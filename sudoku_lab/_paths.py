"""Where the bundled resources are, from a checkout or from an installed wheel.

A checkout keeps them at the top of the repository (``resources/``); the wheel
ships the same tree as ``sudoku_lab/resources`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

__all__ = ["resources_dir", "resource_path"]


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
