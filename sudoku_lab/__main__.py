"""``python -m sudoku_lab``: the headless commands (the window opens with the ``sudoku-lab`` command)."""

import sys

from .cli import main

sys.exit(main(window=False))
