"""Sudoku Lab: the headless core.

Puzzle model, exact solver, AC3, puzzle generator, bundled collections, the
metaheuristic solvers and their stepping loop, experiments, grades, figures and
benchmarks. Nothing in this package imports Qt (``ui`` builds on it).
"""

import sys
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("sudoku-lab")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

from .errors import DataFileError, ParameterError, PuzzleError, SudokuLabError  # noqa: E402

__all__ = [
    "__version__",
    "SudokuLabError",
    "PuzzleError",
    "ParameterError",
    "DataFileError",
    "Puzzle",
    "is_valid_solution",
]

#: Names served from submodules on first access (PEP 562), so ``import sudoku_lab`` stays light
#: (``sudoku-lab --version`` loads no numpy) while ``from sudoku_lab import Puzzle`` works.
_LAZY = {"Puzzle": "model.puzzle", "is_valid_solution": "model.puzzle"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


# ------------------------------------------------------------ moved modules
#: Module paths of the flat layout (release 0.x) -> where each lives now, in the layer packages. Importing an
#: old path still works, for one release, and says where the module went (a DeprecationWarning).
MOVED_MODULES = {
    "puzzle": "model.puzzle",
    "formats": "model.formats",
    "geometry": "model.geometry",
    "collection_io": "model.collections",
    "library": "model.library",
    "scoring": "model.scoring",
    "ac3": "exact.ac3",
    "generate": "exact.generate",
    "loop": "stepping.loop",
    "warmup": "stepping.warmup",
    "markers": "stepping.markers",
    "spec": "engine.spec",
    "experiments": "engine.experiments",
    "cluster": "engine.cluster",
    "results": "engine.results",
    "batch": "engine.batch",
    "compare": "engine.compare",
    "stats": "analysis.stats",
    "report": "analysis.report",
    "grades": "analysis.grades",
    "figures": "analysis.figures",
    "reproduce": "reproductions.runner",
}


class _MovedModules:
    """Import hook serving ``sudoku_lab.<old name>`` as the module at its new path (the same module object)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != __name__ or old not in MOVED_MODULES:
            return None
        from importlib.util import spec_from_loader

        return spec_from_loader(fullname, _MovedModules)

    @staticmethod
    def create_module(spec):
        import warnings
        from importlib import import_module

        new = f"{__name__}.{MOVED_MODULES[spec.name.partition('.')[2]]}"
        warnings.warn(
            f"{spec.name} has moved to {new}; the old name works until the next release", DeprecationWarning, 2
        )
        module = import_module(new)
        spec.loader_state = module.__spec__  # the import system sets __spec__ to this spec: put it back below
        return module

    @staticmethod
    def exec_module(module):
        # Already executed under its new name; keep its own spec (relative imports inside it read it).
        module.__spec__ = module.__spec__.loader_state


if not any(finder is _MovedModules for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules)
