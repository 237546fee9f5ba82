"""The ``sudoku-lab`` entry point.

With no sub-command it opens the lab; anything else goes to
:mod:`sudoku_lab.cli` without importing Qt, so headless use stays headless.
"""

from __future__ import annotations

import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from sudoku_lab import cli

    if not cli.wants_gui(argv):
        return cli.main(argv)
    try:
        from sudoku_lab_ui.app import run_app

        return run_app(cli.gui_options(argv))
    except KeyboardInterrupt:  # Ctrl-C in the terminal while the lab starts or runs
        print("sudoku-lab: interrupted", file=sys.stderr)
        return cli.EXIT_INTERRUPTED
    except Exception as e:  # a bug while starting: one line and a report, as for every command
        from sudoku_lab._crash import internal_error_message

        print(f"sudoku-lab: {internal_error_message(e, 'starting the lab window')}", file=sys.stderr)
        return cli.EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
