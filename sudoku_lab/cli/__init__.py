"""``sudoku-lab``: the command line, the only place argparse is used (one module per sub-command).

``sudoku-lab`` with no sub-command (or ``gui``) opens the lab window, which is
a front end registered under the entry-point group ``sudoku_lab.frontends``
(the ``sudoku_lab_ui`` package of this distribution): the command line finds
it by name and never imports Qt itself, so headless use stays headless.
Every user error becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from .. import __version__
from .._checks import checked
from ..errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, SudokuLabError
from ._console import algo_in_argv, printable_output

__all__ = ["main", "build_parser", "wants_gui", "gui_options", "FRONTEND_GROUP"]

#: The sub-commands that need none of the experiment modules, in the order ``--help`` lists them; each is the
#: module of that name in this package, with ``add_cli(sub, algo)`` declaring it.
_CORE = ("gui", "check", "solve", "rate", "algorithms", "library", "generate", "bench")
#: The experiment commands (their modules import scipy, pyarrow, matplotlib or Dask only inside the functions
#: that use them, so building the parser stays cheap even when these are added).
_EXPERIMENTS = ("batch", "grades", "reproduce", "compare", "report", "animate")

#: Entry-point group of the front ends ``sudoku-lab`` opens with no sub-command (``gui``: the lab window).
FRONTEND_GROUP = "sudoku_lab.frontends"


class _Formatter(argparse.HelpFormatter):
    """Help text wrapped at spaces only: names such as ``reseda-table1`` or ``partial+full`` stay whole."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line, like every other error, and wraps help at spaces."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fail(msg: str) -> int:
    print(f"sudoku-lab: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


# ------------------------------------------------------------------ parser
@checked
def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    algo = algo_in_argv(argv)
    p = _Parser(
        prog="sudoku-lab",
        description="Sudoku Lab: study how stochastic search solves Sudoku. With no command, opens the lab window.",
    )
    p.add_argument("--version", action="version", version=f"sudoku-lab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    commands: tuple[str, ...] = _CORE
    if _command_in_argv(argv) not in _CORE:  # a core command needs none of the experiment modules
        commands += _EXPERIMENTS
    for command in commands:
        import_module(f"{__name__}.{command}").add_cli(sub, algo)
    return p


def _command_in_argv(argv: Sequence[str] | None) -> str | None:
    """The sub-command a command line names (its first word that is not an option), if any."""
    return next((a for a in argv or () if not a.startswith("-")), None)


# ------------------------------------------------------------------- entry
@checked
def wants_gui(argv: Sequence[str]) -> bool:
    """True when the arguments ask for the window: none at all, or ``gui``."""
    return len(argv) == 0 or argv[0] == "gui"


@checked
def gui_options(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``gui`` options (defaults when the argument list is empty)."""
    args = build_parser(argv).parse_args(argv if argv else ["gui"])  # argv: `gui --algo X --help` shows X's
    return args


@checked
def main(argv: Sequence[str] | None = None, window: bool = True) -> int:
    """Run one command or open the lab window; exit status 0, 1 (not solved), 2 (bad input), 70 (a bug), 128+signal.

    ``window=False`` (``python -m sudoku_lab``) keeps to the headless commands: no
    arguments print the help, and ``gui`` is refused. Whatever a file held, what
    is printed carries no control character to the terminal
    (:func:`~sudoku_lab.cli._console.printable_output`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    with printable_output():
        return _main(argv, window)


def _main(argv: list[str], window: bool) -> int:
    if window and wants_gui(argv):
        return open_window(argv)
    if argv == ["--version"]:  # answered before the parser imports the solvers (and numba)
        print(f"sudoku-lab {__version__}")
        return 0
    try:
        parser = build_parser(argv)
        if not argv:
            parser.print_help()
            print("\nRun `sudoku-lab` (the installed command) with no arguments to open the lab window.")
            return 0
        args = parser.parse_args(argv)
        if args.command == "gui":
            return _fail("the lab window is opened by the `sudoku-lab` command, not `python -m sudoku_lab`")
        from ..stepping.warmup import quiet_compiling

        was = quiet_compiling(bool(getattr(args, "quiet", False)))  # --quiet: no progress at all, compiling included
        try:
            return args.func(args)
        finally:
            quiet_compiling(was)
    except SudokuLabError as e:
        return _fail(str(e))
    except OSError as e:  # a file operation no command anticipated: still one line, naming the file
        if isinstance(e, BrokenPipeError):
            return _quiet_broken_pipe()
        from ..files import os_reason

        where = f" {e.filename}" if e.filename else ""
        return _fail(f"cannot use{where}: {os_reason(e)}")
    except KeyboardInterrupt:
        print("sudoku-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        return _fail("out of memory; try fewer runs or puzzles at a time")
    except Exception as e:  # a bug: one line and a report, never a traceback
        from ..crash import internal_error_message

        print(f"sudoku-lab: {internal_error_message(e, 'sudoku-lab ' + ' '.join(argv))}", file=sys.stderr)
        return EXIT_INTERNAL


def open_window(argv: Sequence[str]) -> int:
    """Open the front end registered as ``gui`` with the parsed ``sudoku-lab gui`` options; its exit status."""
    from importlib.metadata import entry_points

    try:
        options = gui_options(argv)
        from .gui import missing_window_packages, window_missing_message

        missing = missing_window_packages()  # the gui extra not installed: say how, before anything imports Qt
        if missing:
            return _fail(window_missing_message(missing))
        found = entry_points(group=FRONTEND_GROUP, name="gui")
        if not found:
            return _fail(
                "the lab window is not installed here (no front end in the entry-point group "
                f"{FRONTEND_GROUP!r}); reinstall sudoku-lab, or use the headless commands: sudoku-lab --help"
            )
        run = next(iter(found)).load()
        return int(run(options))
    except KeyboardInterrupt:  # Ctrl-C in the terminal while the lab starts or runs
        print("sudoku-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug while starting: one line and a report, as for every command
        from ..crash import internal_error_message

        print(f"sudoku-lab: {internal_error_message(e, 'starting the lab window')}", file=sys.stderr)
        return EXIT_INTERNAL


def _quiet_broken_pipe() -> int:
    """``sudoku-lab ... | head``: stop quietly (and keep Python from complaining while it exits)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 0
