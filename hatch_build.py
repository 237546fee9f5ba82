"""Build hook: install the lab's ``ui/`` folder as the package ``sudoku_lab_ui``.

A top-level ``ui`` package in site-packages would clash with any other
distribution doing the same, so the folder keeps its short name in the
checkout but is imported as ``sudoku_lab_ui``. The wheel gets the folder
under that name through ``force-include`` (pyproject.toml). An editable
install cannot be told that by hatchling (its ``sources`` rewrite refuses to
rename a prefix in dev mode), so this hook gives it a small import hook
instead: ``sudoku_lab_ui`` is found in the checkout's ``ui/``, and nothing
puts the checkout's root on ``sys.path``.
"""

from __future__ import annotations

import os
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FINDER = '''"""Editable install of sudoku-lab: import sudoku_lab_ui from the checkout's ui/ folder.

PYTEST_DONT_REWRITE: sudoku-lab declares a pytest plugin (entry point pytest11), so pytest marks every
top-level module of the distribution for assertion rewriting, these start-up modules included; already
imported by their .pth, they would each raise "Module already imported so cannot be rewritten" (an error
under filterwarnings = error). This marker, here and on hatchling's own _editable_impl module, says no.
"""
import importlib.abc
import importlib.util
import sys

for _name, _mod in list(sys.modules.items()):
    if _name.startswith("_editable_impl_sudoku_lab") and not _mod.__doc__:
        _mod.__doc__ = "PYTEST_DONT_REWRITE (editable install of sudoku-lab)"

_UI = {ui!r}


class SudokuLabUiFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "sudoku_lab_ui":
            return None
        return importlib.util.spec_from_file_location(name, _UI + "/__init__.py", submodule_search_locations=[_UI])


if not any(type(f).__name__ == "SudokuLabUiFinder" for f in sys.meta_path):
    sys.meta_path.append(SudokuLabUiFinder())
'''


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if version != "editable":
            return
        out = Path(self.directory) / "sudoku-lab-editable"
        out.mkdir(parents=True, exist_ok=True)
        finder = out / "_sudoku_lab_ui_finder.py"
        finder.write_text(FINDER.format(ui=os.path.join(self.root, "ui")), encoding="utf-8")
        pth = out / "_sudoku_lab_ui_finder.pth"
        pth.write_text("import _sudoku_lab_ui_finder\n", encoding="utf-8")
        build_data["force_include_editable"][str(finder)] = finder.name
        build_data["force_include_editable"][str(pth)] = pth.name
