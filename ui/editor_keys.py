"""The run's keys keep working after typing in a box: number boxes and text fields hand them back to the board.

A spin box (the seed, Step N, a parameter) or a line edit (the puzzle filter) that has the keyboard focus
takes every key a text field uses, Space included, so the window's Space (Run/Pause) did nothing after
typing a seed. The rules, for the editors of one window:

- **Enter** in a number box or a text field commits what was typed (as leaving the box does) and gives the
  focus back to the board, so Space, Right... drive the run again.
- **Esc** there puts back the number the box had when it got the focus and gives the focus back to the
  board; it does not stop the run (a second Esc does).
- **Space** in a number box, where it cannot be typed, commits the number, gives the focus back to the board
  and runs or pauses. In a text field Space is typed as a space.
- Any run action (its key or its button) taken while an editor has the focus commits the editor first and
  leaves the focus on the board.

The editors are found when they get the focus (the parameter form rebuilds its boxes for every solver), so
there is no application-wide event filter to pay for on every event.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QWidget

__all__ = ["EditorKeys"]

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _editor(widget: QWidget | None) -> QWidget | None:
    """The number box or text field ``widget`` is (or edits for), else None."""
    w = widget
    while w is not None:
        if isinstance(w, QAbstractSpinBox):
            return w
        if isinstance(w, QLineEdit):
            parent = w.parentWidget()
            return parent if isinstance(parent, QAbstractSpinBox) else w  # a spin box's own line edit
        w = w.parentWidget() if w is widget else None
    return None


class EditorKeys(QObject):
    """The rules of the module docstring for the editors inside ``window``; ``board`` takes the focus back.

    Parameters
    ----------
    window : QWidget
        The lab window: only its editors are concerned.
    board : QWidget
        What gets the keyboard focus back.
    run : callable
        ``run()``: Run or Pause (Space in a number box).
    """

    def __init__(self, window: QWidget, board: QWidget, run):
        super().__init__(window)
        self.window = window
        self.board = board
        self._run = run
        self._filtered: set[int] = set()
        self._entry_value: tuple | None = None  # (number box, its value when it got the focus)
        app = QApplication.instance()
        app.focusChanged.connect(self._on_focus)
        window.destroyed.connect(lambda *_: self._disconnect(app))

    def _disconnect(self, app) -> None:
        try:
            app.focusChanged.disconnect(self._on_focus)
        except (RuntimeError, TypeError):  # already gone with the application
            pass

    def _on_focus(self, old, new) -> None:
        editor = _editor(new)
        if self._entry_value is not None and self._entry_value[0] is not editor:
            self._entry_value = None  # that box was left: its next focus takes its value afresh
        if editor is None or not self.window.isAncestorOf(editor):
            return
        if isinstance(editor, QAbstractSpinBox) and hasattr(editor, "value") and self._entry_value is None:
            self._entry_value = (editor, editor.value())
        if id(editor) in self._filtered:
            return
        key = id(editor)
        self._filtered.add(key)
        editor.installEventFilter(self)
        editor.destroyed.connect(lambda *_: self._filtered.discard(key))

    def leave_editor(self) -> bool:
        """Commit the editor that has the focus (if it is one of the window's) and focus the board; True if it was."""
        editor = _editor(QApplication.focusWidget())
        if editor is None or not self.window.isAncestorOf(editor):
            return False
        self._entry_value = None  # left: the next focus-in takes its value afresh
        if isinstance(editor, QAbstractSpinBox):
            editor.interpretText()  # what leaving the box does, now: a typed seed applies before the action
        self.board.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return True

    def _revert(self, editor: QWidget) -> None:
        """A number box gets back the value it had when it got the focus (a box that applies as it is typed has
        applied the typing already: the value is set back); a text field applies as it is typed and keeps its text."""
        if isinstance(editor, QAbstractSpinBox) and hasattr(editor, "textFromValue"):
            entry = self._entry_value
            if entry is not None and entry[0] is editor and entry[1] != editor.value():
                editor.setValue(entry[1])
            line = editor.lineEdit()
            line.setText(editor.prefix() + editor.textFromValue(editor.value()) + editor.suffix())

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        key, mods = event.key(), event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        number = isinstance(obj, QAbstractSpinBox)
        if kind == QEvent.Type.ShortcutOverride:
            if (key == Qt.Key.Key_Escape or (number and key == Qt.Key.Key_Space)) and not mods:
                event.accept()  # the editor's own key (handled below as a key press), not the window's shortcut
                return True
            return False
        if key in _ENTER and not mods:
            QTimer.singleShot(0, self, self.leave_editor)  # after the box has taken the Enter (committed the value)
            return False
        if key == Qt.Key.Key_Escape and not mods:
            self._revert(obj)
            self._entry_value = None
            self.board.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return True
        if number and key == Qt.Key.Key_Space and not mods:
            self.leave_editor()
            self._run()
            return True
        return False
