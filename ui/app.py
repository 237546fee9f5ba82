"""Start the lab: QApplication, main window, first puzzle.

Before any Qt GUI module is imported, :func:`run_app` makes sure Qt can open a
window here (:func:`sudoku_lab_ui._platform.preflight`): Qt itself aborts the process when
its platform plugin cannot load or reach the display. Once the window is up,
:func:`install_exception_hook` turns exceptions escaping Qt slots or other
threads into a one-line message instead of a traceback.
"""

from __future__ import annotations

import os
import sys
import threading

from sudoku_lab.crash import internal_error_message
from sudoku_lab.errors import EXIT_INTERNAL, EXIT_USAGE, SudokuLabError
from sudoku_lab.model import library

__all__ = ["run_app", "create_window", "install_exception_hook", "SEED_MAX"]

#: The largest seed the window's Seed box holds (a Qt spin box is a 32-bit int).
SEED_MAX = 2**31 - 1


def create_window(
    puzzle=None,
    algo: str | None = None,
    settings=None,
    session=None,
    session_path: str = "",
    seed: int | None = None,
    params: dict | None = None,
):
    """Build the main window on ``puzzle`` (default: the bundled default) with ``algo`` selected.

    ``seed`` (default :data:`~sudoku_lab.solvers.DEFAULT_SEED`) and ``params`` (checked values of ``algo``'s
    parameters, as :func:`sudoku_lab.cli._console.solver_params` gives them) make the first run the one
    ``sudoku-lab solve`` makes with the same options. With ``session`` (a
    :class:`~sudoku_lab.stepping.session.Session`, read from ``session_path``), the window opens that
    session instead: its puzzle, algorithm, parameters, seed, layout and run, paused.
    A QApplication must exist. Returns the window, not yet shown.
    """
    from .main_window import MainWindow

    win = MainWindow(settings=settings)
    if session is not None:
        win.start(session.puzzle, session=session, session_path=session_path)
        return win
    if algo:
        win.controller.set_solver(algo)
    if seed is not None or params:
        win.set_first_run(seed, params or {})
    win.start(puzzle if puzzle is not None else library.puzzle(library.DEFAULT_PUZZLE))
    return win


def _error_relay(window):
    """A QObject of the GUI thread that shows internal-error lines in ``window``.

    Built at call time: this module must not import Qt before :func:`run_app`'s
    preflight has run. Its ``raised`` signal may be emitted from any thread;
    the slot runs in the GUI thread (Qt queues across threads).
    """
    from PySide6.QtCore import QObject, Qt, Signal, Slot
    from PySide6.QtWidgets import QMessageBox

    class ErrorRelay(QObject):
        raised = Signal(str)

        def __init__(self, parent):
            super().__init__(parent)
            self.box = None
            self.raised.connect(self.show_line)

        @Slot(str)
        def show_line(self, line: str) -> None:
            # One non-modal box, reused: a slot failing on every repaint must not bury the
            # window under boxes; it shows the newest line.
            if self.box is None:
                self.box = QMessageBox(QMessageBox.Warning, "Sudoku Lab", line, QMessageBox.Ok, window)
                self.box.setObjectName("internal_error_box")
                self.box.setWindowModality(Qt.NonModal)
            self.box.setText(line)
            self.box.show()
            window.statusBar().showMessage(line, 15000)

    return ErrorRelay(window)


def install_exception_hook(window):
    """Show exceptions that escape Qt slots or threads as one line in ``window``, not as a traceback.

    PySide6 hands an exception raised in a slot to :data:`sys.excepthook` and
    carries on; a Python thread's goes to :data:`threading.excepthook`. Both
    become :func:`sudoku_lab.crash.internal_error_message`'s line (the full
    report goes to a file), printed on stderr and shown in a non-modal message
    box (object name ``internal_error_box``) and the status bar, always from
    the GUI thread.

    Parameters
    ----------
    window : sudoku_lab_ui.main_window.MainWindow
        The window that shows the message.

    Returns
    -------
    callable
        The handler ``handler(exc_type, exc, tb) -> str`` (the line it showed),
        installed as :data:`sys.excepthook`; :data:`threading.excepthook`
        calls it too.
    """
    relay = _error_relay(window)
    busy = threading.local()

    def handler(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):  # Ctrl-C in the terminal: quit, no report
            window.close()
            return ""
        if exc is None:
            exc = exc_type()
        if exc.__traceback__ is None and tb is not None:
            exc = exc.with_traceback(tb)
        if getattr(busy, "active", False):  # showing the message raised: stderr only, no loop
            print(f"sudoku-lab: error: {internal_error_message(exc, 'while reporting an error')}", file=sys.stderr)
            return ""
        busy.active = True
        try:
            line = internal_error_message(exc, "an exception escaped a Qt slot or a thread of the lab window")
            print(f"sudoku-lab: error: {line}", file=sys.stderr)
            try:
                relay.raised.emit(line)
            except RuntimeError:  # the window is already gone (shutting down): stderr is all there is
                pass
            return line
        finally:
            busy.active = False

    def thread_handler(args):
        if args.exc_type is SystemExit:
            return
        handler(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = handler
    threading.excepthook = thread_handler
    return handler


def _params_from_options(algo: str, options) -> dict:
    """The parameters of ``algo`` given as ``sudoku-lab gui`` options (``param_<name>`` attributes), checked.

    The same rules as ``sudoku-lab solve``: an option ``algo`` does not declare is refused (naming the
    algorithm it belongs to), then each value and the rules between parameters are checked.

    Raises
    ------
    ParameterError
        One line naming the option.
    """
    from sudoku_lab.errors import ParameterError
    from sudoku_lab.solvers import get_solver_class, registry

    cls = get_solver_class(algo)
    declared = {p.name for p in cls.params}
    out = {}
    for key, value in vars(options).items():
        if not key.startswith("param_") or value is None:
            continue
        name = key[len("param_") :]
        if name not in declared:
            owners = [c.name for c in registry().values() if name in {p.name for p in c.params}]
            raise ParameterError(
                f"--{name.replace('_', '-')} is not a parameter of {algo} (it belongs to {', '.join(owners)}); "
                f"choose that algorithm with --algo {owners[0]}",
                name=name,
            )
        out[name] = value
    checked = cls.full_params(out)
    return {name: checked[name] for name in out}


def run_app(options=None) -> int:
    """Open the lab; ``options`` are the parsed ``sudoku-lab gui`` arguments (puzzle, algo, seed, the
    algorithm's parameter options, session).

    A puzzle that cannot be read, an unknown algorithm, a bad seed or parameter (one of another
    algorithm's included), or a session file that cannot be read (``--session``) is refused in one line;
    a puzzle whose givens clash or that has no solution opens in the window's editor, the cells concerned
    outlined.

    Returns the exit status: 0 after the window closes, 2 (with one line on
    stderr) when the lab cannot start here, 70 (one line and a crash report)
    for a bug before the window exists.
    """
    from sudoku_lab.model.resolve import resolve_puzzle
    from sudoku_lab.solvers import get_solver_class, registry
    from sudoku_lab.stepping.session import load_session

    puzzle = session = None
    algo = getattr(options, "algo", None)
    seed = getattr(options, "seed", None)
    session_path = getattr(options, "session", None)
    given_params = options is not None and any(
        k.startswith("param_") and v is not None for k, v in vars(options).items()
    )
    params: dict = {}
    try:
        if session_path and (getattr(options, "puzzle", None) or algo or seed is not None or given_params):
            print(
                "sudoku-lab: error: gui --session opens the session's own puzzle, algorithm, parameters and "
                "seed; give a puzzle with --algo, --seed and parameters, or --session, not both",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if seed is not None and seed > SEED_MAX:
            print(f"sudoku-lab: error: --seed {seed}: the window's seeds go up to {SEED_MAX:,}", file=sys.stderr)
            return EXIT_USAGE
        if session_path:
            session = load_session(session_path)
        if algo:
            get_solver_class(algo)
        if given_params:  # as `solve` checks them: another algorithm's option is refused, values and rules checked
            params = _params_from_options(algo or next(iter(registry())), options)
        if getattr(options, "puzzle", None):
            # Clashing givens are read too: the window refuses them as it refuses a puzzle with no solution
            # (checked off the GUI thread), opening it in the editor with the cells concerned outlined.
            puzzle = resolve_puzzle(options.puzzle, allow_clashes=True)
    except SudokuLabError as e:
        print(f"sudoku-lab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM")
    ):
        print(
            "sudoku-lab: error: no display to open the lab window on (DISPLAY is not set); the headless "
            "commands work anywhere: see sudoku-lab --help",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from ._platform import preflight

    problem = preflight()
    if problem:  # Qt would abort (SIGABRT, a core dump) instead of saying this
        print(f"sudoku-lab: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Sudoku Lab")
    app.setOrganizationName("Sudoku Lab")
    try:
        settings = QSettings()
        win = create_window(
            puzzle, algo, settings=settings, session=session, session_path=session_path or "", seed=seed, params=params
        )
        win.restore_layout()  # a session's own layout comes after, once its puzzle is checked
    except Exception as e:  # a bug before the window exists: nothing can show a box yet
        print(f"sudoku-lab: error: {internal_error_message(e, 'opening the lab window')}", file=sys.stderr)
        return EXIT_INTERNAL
    install_exception_hook(win)
    win.show()
    return app.exec()
