"""The ``sudoku-lab`` entry point.

With no sub-command it opens the lab; anything else goes to
:mod:`sudoku_lab.cli` without importing Qt, so headless use stays headless.
"""

from __future__ import annotations

import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from sudoku_lab import cli

    if cli.wants_gui(argv):
        from ui.app import run_app

        return run_app(cli.gui_options(argv))
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
