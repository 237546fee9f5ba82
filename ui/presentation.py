"""Presentation mode: the lab on a projector, and the keys that drive the whole lab.

**View > Presentation mode** (F11; Esc or F11 leaves it) turns the same
window, with the same worker and run, into a full-screen stage: the board and
*one* view side by side, every dock, toolbar, menu and status bar hidden, and
a caption in large words at the bottom (the solver, "iteration i, cost c (best
b)", and the latest event in words; after a Step phase, what the phase did). A
caption too long for the screen's width wraps (at most three lines, the rest
elided) and its tooltip holds it whole. Type is larger in proportion to the
screen's height, lines and curves are thicker, and the palette is
:data:`theme.PRESENTATION` (black on white, Okabe-Ito, cividis heatmaps;
givens, solver digits and conflicts told apart by weight and an underline as
well as by colour). Leaving it restores the exact layout (``saveState``), the
window geometry and the look of every widget it touched.

V / Shift+V cycle the view shown (outside the mode: the view brought to the
front of its dock). The other keys added here work in and out of the mode:
faster / slower, next / previous puzzle of the browser's list, next /
previous algorithm. Help > Keyboard shortcuts lists every key from the
window's actions themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPen
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QSizePolicy,
    QTabBar,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from sudoku_lab.solvers import registry

from .board_panel import describe_phase, describe_position
from .run_toolbar import make_action
from .widgets import theme
from .widgets.plot_size import plots_least

__all__ = ["Presentation", "PlotStyler", "Caption", "describe_event", "font_scale"]

#: Objects the mode looks for in the window (saved layouts and tests use these names).
CAPTION_BAR = "toolbar_presentation_caption"


def font_scale(screen_height: int) -> float:
    """How much larger type is in presentation mode: :data:`theme.PRESENTATION`'s scale at a 1080-pixel-high
    screen, in proportion to the screen's height elsewhere (within 0.75x .. 2x of it)."""
    ratio = min(2.0, max(0.75, screen_height / 1080))
    return theme.PRESENTATION["font_scale"] * ratio


def describe_event(event, iteration_name: str = "iteration") -> str:
    """A solver event (:class:`sudoku_lab.solvers.base.Event`) in words, for the caption."""
    at = f"{iteration_name.capitalize()} {event.iteration:,}: "
    detail = f" ({event.new})" if event.new not in (None, "") else ""
    if event.kind == "param":
        return f"{at}{event.name} changed from {_value(event.old)} to {_value(event.new)}"
    if event.kind == "restart":
        return f"{at}{event.name} restart{detail}"
    if event.kind == "run_end":
        return f"{at}the run ended, {event.name}{detail}"
    if event.kind == "info":
        return f"{at}{event.name}{': ' + str(event.new) if detail else ''}"
    return f"{at}{event.kind.replace('_', ' ')} {event.name}{detail}"


def _value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


# ---------------------------------------------------------------- plot look
@dataclass
class _Record:
    item: object
    original: object
    applied: object


@dataclass
class PlotStyler:
    """Applies presentation mode's look to every pyqtgraph item and widget font under a view, and undoes it.

    Each change is recorded as (original, applied). Applying again (a view
    rebuilds its curves, re-sets a pen, re-fits its axis titles) restyles what
    the view changed since, taking its new value as the original; restoring
    puts back the originals of the values still as applied, and leaves alone
    what the view has changed itself since.
    """

    scale: float = 1.8
    line_scale: float = 2.5
    _records: dict = field(default_factory=dict)  # (id(item), what) -> _Record

    def apply(self, root: QWidget) -> None:
        """Style ``root``, its child widgets' fonts and the items of every plot in it."""
        seen = set()
        for w in [root, *root.findChildren(QWidget)]:
            if w is root or w.testAttribute(Qt.WidgetAttribute.WA_SetFont):
                seen.add(self._set(w, "font", self._scaled_font))
        views = [root] if isinstance(root, pg.GraphicsView) else []
        views += root.findChildren(pg.GraphicsView)
        for gv in views:
            items = gv.scene().items(Qt.SortOrder.AscendingOrder)  # the order they were added: declarations'
            for item in items:
                seen.update(self._style_item(item))
            seen.update(self._style_lines(items))
        seen.discard(None)
        for key in [k for k in self._records if k not in seen]:  # items gone from the view
            del self._records[key]
        # Larger type needs wider table columns and taller text: a view that lays itself out by its
        # fonts (columns fitted to their headers, a legend fitted to its labels) does it again now.
        for w in [root, *root.findChildren(QWidget)]:
            refit = getattr(w, "fonts_changed", None)
            if callable(refit):
                refit()
        for table in root.findChildren(QTableView):  # tables that do not fit themselves (no fonts_changed)
            if callable(getattr(table.parent(), "fonts_changed", None)):
                continue
            if table.model() is not None and table.model().rowCount() <= _FIT_ROWS:
                table.resizeColumnsToContents()

    def restore(self) -> None:
        """Put back every recorded value that is still as applied."""
        for (_, what), rec in reversed(list(self._records.items())):
            if isinstance(rec.item, QObject | QGraphicsItem) and not shiboken6.isValid(rec.item):
                continue
            getter, setter = _ACCESS[what]
            try:
                if _same(getter(rec.item), rec.applied):
                    setter(rec.item, rec.original)
            except RuntimeError:  # deleted meanwhile
                pass
        roots = {id(rec.item): rec.item for rec in self._records.values() if isinstance(rec.item, QWidget)}
        self._records.clear()
        for w in roots.values():  # the views laid out for their own fonts again
            if shiboken6.isValid(w):
                refit = getattr(w, "fonts_changed", None)
                if callable(refit):
                    refit()
                if isinstance(w, QTableView) and w.model() is not None and w.model().rowCount() <= _FIT_ROWS:
                    w.resizeColumnsToContents()

    def active(self) -> bool:
        return bool(self._records)

    # ---- what is styled, and how
    def _style_item(self, item) -> list:
        keys = []
        if isinstance(item, pg.AxisItem):
            keys.append(self._set(item, "tick_font", self._scaled_font))
            keys.append(self._set(item, "axis_pen", self._thick_black))
            keys.append(self._set(item, "text_pen", lambda p: QPen(QColor(theme.PRESENTATION["foreground"]))))
            titles = getattr(item.parentItem(), "axis_titles", None)
            if titles is not None:  # titles kept within their axes: they choose their size, scaled
                keys.append(self._set(titles, "titles_scale", lambda _old: self.scale))
            elif item.labelText:
                keys.append(self._set(item, "label_size", self._scaled_size))
        elif isinstance(item, pg.InfiniteLine) and not _is_threshold(item):  # event marks, the rewind cursor
            keys.append(self._set(item, "line_pen", self._marker_pen))
        elif isinstance(item, pg.LabelItem):
            keys.append(self._set(item, "label_item", self._scaled_size))
        elif isinstance(item, pg.TextItem):
            keys.append(self._set(item, "text_item", self._scaled_font))
        elif isinstance(item, pg.ColorBarItem):
            keys.append(self._set(item, "bar_cmap", lambda c: pg.colormap.get(theme.PRESENTATION["colormap"])))
        elif isinstance(item, pg.ImageItem) and item.getColorMap() is not None:
            keys.append(self._set(item, "image_cmap", lambda c: pg.colormap.get(theme.PRESENTATION["colormap"])))
        return keys

    def _set(self, item, what: str, make):
        getter, setter = _ACCESS[what]
        key = (id(item), what)
        current = getter(item)
        rec = self._records.get(key)
        if rec is not None and rec.item is item and _same(current, rec.applied):
            return key  # still as styled
        new = make(current)
        setter(item, new)
        self._records[key] = _Record(item, current, getter(item))
        return key

    def _scaled_font(self, font: QFont | None) -> QFont:
        f = QFont(font) if font is not None else QFont()
        if f.pixelSize() > 0 and f.pointSizeF() <= 0:
            f.setPixelSize(max(1, round(f.pixelSize() * self.scale)))
        else:
            f.setPointSizeF((f.pointSizeF() if f.pointSizeF() > 0 else QFont().pointSizeF()) * self.scale)
        return f

    def _scaled_size(self, size: str | None) -> str:
        pt = _points(size)
        return f"{pt * self.scale:.1f}pt"

    def _style_lines(self, items) -> list:
        """Curves and threshold lines of one plot: thicker, and one colour and style each
        (:func:`theme.presentation_styles`), the legend's samples with them."""
        lines = []
        for item in items:
            if isinstance(item, pg.PlotDataItem):
                lines.append((item, "data_pen"))
            elif isinstance(item, pg.PlotCurveItem) and not isinstance(item.parentItem(), pg.PlotDataItem):
                lines.append((item, "curve_pen"))
            elif isinstance(item, pg.InfiniteLine) and _is_threshold(item):
                lines.append((item, "line_pen"))
        lines.sort(key=lambda pair: pair[1] == "line_pen")  # curves choose first, their thresholds after
        own = []
        for item, what in lines:
            pen = self._original(item, what)
            own.append((pen.color().name(), _STYLE_NAMES.get(pen.style(), "solid")) if pen is not None else ("", ""))
        styles = theme.presentation_styles(own)
        keys = []
        for (item, what), (colour, style) in zip(lines, styles):
            keys.append(self._set(item, what, lambda pen, c=colour, st=style: self._thick_pen(pen, c, st)))
            if what == "line_pen" and getattr(item, "label", None) is not None:
                keys.append(self._set(item, "line_label", lambda _old, c=colour: QColor(c)))
        return keys

    def _original(self, item, what: str):
        """The pen ``item`` had before this styler changed it (its current one if unchanged or changed since)."""
        getter, _ = _ACCESS[what]
        current = getter(item)
        rec = self._records.get((id(item), what))
        if rec is not None and rec.item is item and _same(current, rec.applied):
            return rec.original
        return current

    def _thick_pen(self, pen: QPen | None, colour: str, style: str) -> QPen | None:
        if pen is None or pen.style() == Qt.PenStyle.NoPen:
            return pen
        p = QPen(pen)
        p.setWidthF(max(1.0, pen.widthF()) * self.line_scale)
        p.setCosmetic(True)
        c = QColor(colour)
        c.setAlpha(max(pen.color().alpha(), 170))  # faint marks vanish on a projector
        p.setColor(c)
        p.setStyle(_PEN_STYLES[style])
        return p

    def _marker_pen(self, pen: QPen) -> QPen:
        """Event marks stay in the background: a little thicker, their own colour and transparency."""
        p = QPen(pen)
        p.setWidthF(max(1.0, pen.widthF()) * 1.5)
        p.setCosmetic(True)
        return p

    def _thick_black(self, pen: QPen) -> QPen:
        p = QPen(pen)
        p.setColor(QColor(theme.PRESENTATION["foreground"]))
        p.setWidthF(max(1.0, pen.widthF()) * 2)
        p.setCosmetic(True)
        return p


#: Tables with at most this many rows get their columns fitted to the larger type (a scan of every row).
_FIT_ROWS = 200
_PEN_STYLES = {
    "solid": Qt.PenStyle.SolidLine,
    "dashed": Qt.PenStyle.DashLine,
    "dotted": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
}
_STYLE_NAMES = {v: k for k, v in _PEN_STYLES.items()}


def _is_threshold(line) -> bool:
    """A horizontal line (a parameter's threshold on a curve's axis), not a vertical event mark or cursor."""
    return abs(float(line.angle) % 180) < 1e-6


def _points(size: str | None) -> float:
    m = re.match(r"\s*([\d.]+)\s*(pt|px)?", size or "")
    if not m:
        return QFont().pointSizeF()
    v = float(m.group(1))
    return v * 0.75 if m.group(2) == "px" else v


def _same(a, b) -> bool:
    try:
        return bool(a == b) if not isinstance(a, pg.ColorMap) else a is b
    except Exception:
        return a is b


def _data_pen(item):
    """A PlotDataItem's line pen as a QPen (None: no line)."""
    pen = item.opts["pen"]
    return None if pen is None else QPen(pg.mkPen(pen))


def _set_label_size(axis, size: str) -> None:
    axis.setLabel(axis.labelText, axis.labelUnits, axis.labelUnitPrefix, **{**axis.labelStyle, "font-size": size})


def _set_widget_font(w, font) -> None:
    w.setFont(font)


_ACCESS = {
    "font": (lambda w: QFont(w.font()), _set_widget_font),
    "tick_font": (lambda a: a.style.get("tickFont"), lambda a, f: a.setTickFont(f)),
    "axis_pen": (lambda a: QPen(a.pen()), lambda a, p: a.setPen(p)),
    "text_pen": (lambda a: QPen(a.textPen()), lambda a, p: a.setTextPen(p)),
    "label_size": (lambda a: a.labelStyle.get("font-size"), _set_label_size),
    "titles_scale": (lambda t: t.scale, lambda t, v: t.set_scale(v)),
    "curve_pen": (lambda c: QPen(c.opts["pen"]), lambda c, p: c.setPen(p)),
    "data_pen": (
        lambda d: QPen(pg.mkPen(d.opts["pen"])) if d.opts["pen"] is not None else None,
        lambda d, p: d.setPen(p),
    ),
    "line_label": (lambda line: QColor(line.label.color), lambda line, c: line.label.setColor(c)),
    "line_pen": (lambda line: QPen(line.pen), lambda line, p: line.setPen(p)),
    "label_item": (lambda lab: lab.opts.get("size"), lambda lab, s: lab.setText(lab.text, size=s)),
    "text_item": (lambda t: QFont(t.textItem.font()), lambda t, f: t.setFont(f)),
    "bar_cmap": (lambda b: b.colorMap(), lambda b, c: b.setColorMap(c)),
    "image_cmap": (lambda i: i.getColorMap(), lambda i, c: i.setColorMap(c)),
}


# ---------------------------------------------------------------- caption
class _WrappedLabel(QLabel):
    """A label whose text is broken into lines at word boundaries to fit its width, at most ``MAX_LINES``
    (the last elided past them), asking for the height of those lines. The lines are made here, not by
    QLabel's word wrap, whose height-for-width a toolbar's layout does not follow. The full text is
    always its tooltip."""

    MAX_LINES = 3

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self._full = ""

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._full = text
        self.setToolTip(text)
        self._fit()

    def full_text(self) -> str:
        """The whole text (the one shown is broken into lines, and elided past :attr:`MAX_LINES`)."""
        return self._full

    def lines(self) -> list[str]:
        """The lines shown."""
        return super().text().split("\n")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit()

    def setFont(self, font) -> None:  # noqa: N802 (Qt's name)
        super().setFont(font)
        self._fit()

    def _fit(self) -> None:
        fm = self.fontMetrics()
        width = self.contentsRect().width()
        lines: list[str] = []
        if width < 10 * fm.averageCharWidth():  # not laid out yet: one line until it has its width
            lines = [self._full]
        else:
            for word in self._full.split(" "):
                if lines and fm.horizontalAdvance(lines[-1] + " " + word) <= width:
                    lines[-1] += " " + word
                else:
                    lines.append(word)
            if len(lines) > self.MAX_LINES:
                rest = " ".join(lines[self.MAX_LINES - 1 :])
                lines = lines[: self.MAX_LINES - 1] + [fm.elidedText(rest, Qt.TextElideMode.ElideRight, width)]
        super().setText("\n".join(lines))
        self.setMinimumHeight(fm.lineSpacing() * max(1, len(lines)) + 2)


class Caption(QWidget):
    """The caption in large words: the solver and where the run is, the latest event, and the keys to leave."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("presentation_caption")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        p = theme.PRESENTATION
        self.setStyleSheet(
            f"#presentation_caption {{ background: {p['caption_bg']}; }}"
            f" QLabel {{ color: {p['caption_fg']}; background: transparent; }}"
            f" QLabel#caption_event {{ color: {p['caption_event']}; }}"
        )
        lay = QHBoxLayout(self)
        lay.setContentsMargins(24, 8, 24, 8)
        text = QVBoxLayout()
        self.main = _WrappedLabel()
        self.main.setObjectName("caption_main")
        self.event = _WrappedLabel()
        self.event.setObjectName("caption_event")
        self.hint = QLabel("Esc: leave\nV: next view\nF1: keys")
        self.hint.setObjectName("caption_hint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom)
        text.addWidget(self.main)
        text.addWidget(self.event)
        lay.addLayout(text, 1)
        lay.addWidget(self.hint)
        self.set_scale(1.0)

    def set_scale(self, scale: float) -> None:
        self.main.setFont(theme.ui_font(15 * scale, bold=True))
        self.event.setFont(theme.ui_font(12 * scale))
        self.hint.setFont(theme.ui_font(8 * scale))

    def show_progress(self, prog, state: str) -> None:
        """The caption of the latest progress (None: only the solver) while the worker is in ``state``."""
        if prog is None:
            self.main.setText(state)
            self.event.setText("")
            return
        s = prog.snapshot
        cls = registry()[s.solver]
        step = getattr(prog, "phase", None)
        # Numbered as everywhere in the window: mid-iteration, the iteration under way (board_panel's docstring).
        where = f"{describe_position(cls, s, step)}, cost {s.cost} (best {s.best_cost})"
        words = {"running": "running", "idle": "paused", "stopped": "stopped", "finished": "finished"}
        status = "solved" if s.solved else words.get(state, state)
        if step is not None:  # a phase step: what it did, in large words; where the run is below
            self.main.setText(f"{cls.title}: {describe_phase(cls, step)}")
            self.event.setText(f"{where}  ·  {status}")
            return
        self.main.setText(f"{cls.title}: {where}  ·  {status}")
        self.event.setText(describe_event(s.events[-1]) if s.events else "No event yet")


# ---------------------------------------------------------------- the mode
@dataclass
class _Saved:
    state: QByteArray
    geometry: QByteArray
    window_state: Qt.WindowState
    menu_bar: bool
    status_bar: bool
    hidden_board_widgets: list


class Presentation(QObject):
    """Presentation mode of a lab :class:`~sudoku_lab_ui.main_window.MainWindow`, and the lab's extra keys.

    Attributes
    ----------
    active : bool
        True while the mode is on.
    view_key : str or None
        The view shown beside the board (kept when the mode is left, for the next time).
    """

    #: Least seconds between two restylings of the shown view while a run goes (its new items).
    RESTYLE_GAP = 0.5

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = w = window
        self.active = False
        self.view_key: str | None = None
        self._saved: _Saved | None = None
        self._hidden_bars: list[QTabBar] = []  # tab bars hidden in the mode, shown again when it is left
        self._fit_tries = 0
        self._styler = PlotStyler()
        self._last_style = 0.0
        self.caption = Caption()
        self.caption_bar = QToolBar("Presentation caption", w)
        self.caption_bar.setObjectName(CAPTION_BAR)
        self.caption_bar.setMovable(False)
        self.caption_bar.setFloatable(False)
        self.caption_bar.addWidget(self.caption)
        self.caption_bar.hide()
        self.act_present = make_action(
            w,
            "Presentation mode",
            "F11",
            self.toggle,
            "Presentation mode on or off: the board and one view full screen, large type (Esc also leaves it)",
        )
        self.act_present.setCheckable(True)
        self.act_next_view = make_action(w, "Next view", "V", lambda: self.cycle_view(1), "Show the next view")
        self.act_prev_view = make_action(
            w, "Previous view", "Shift+V", lambda: self.cycle_view(-1), "Show the previous view"
        )
        self.act_faster = make_action(w, "Faster", "+", lambda: self.change_speed(1), "Run faster (the Speed box)")
        self.act_slower = make_action(w, "Slower", "-", lambda: self.change_speed(-1), "Run slower (the Speed box)")
        self.act_next_puzzle = make_action(
            w, "Next puzzle", "PgDown", lambda: self.step_puzzle(1), "Load the next puzzle of the browser's list"
        )
        self.act_prev_puzzle = make_action(
            w, "Previous puzzle", "PgUp", lambda: self.step_puzzle(-1), "Load the previous puzzle of the browser's list"
        )
        self.act_next_algo = make_action(
            w, "Next algorithm", "Ctrl+PgDown", lambda: self.step_algorithm(1), "Choose the next algorithm"
        )
        self.act_prev_algo = make_action(
            w, "Previous algorithm", "Ctrl+PgUp", lambda: self.step_algorithm(-1), "Choose the previous algorithm"
        )
        self._add_to_menus()
        c = w.controller
        c.progress.connect(self._on_progress)
        c.stateChanged.connect(lambda _state: self._update_caption())
        c.solverChanged.connect(self._on_solver)
        w.installEventFilter(self)

    def actions(self) -> list[QAction]:
        return [
            self.act_present,
            self.act_next_view,
            self.act_prev_view,
            self.act_faster,
            self.act_slower,
            self.act_next_puzzle,
            self.act_prev_puzzle,
            self.act_next_algo,
            self.act_prev_algo,
        ]

    def _add_to_menus(self) -> None:
        menus = {a.text().replace("&", ""): a.menu() for a in self.window.menuBar().actions() if a.menu()}
        view, run = menus.get("View"), menus.get("Run")
        if isinstance(view, QMenu):
            view.addSeparator()
            for a in (self.act_present, self.act_next_view, self.act_prev_view):
                view.addAction(a)
        if isinstance(run, QMenu):
            run.addSeparator()
            for a in self.actions()[3:]:
                run.addAction(a)

    # ---- the mode
    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        """Go full screen with the board, the chosen view and the caption, in large type."""
        w = self.window
        if self.active:
            return
        bp = w.board_panel
        self._saved = _Saved(
            state=w.saveState(),
            geometry=w.saveGeometry(),
            window_state=w.windowState(),
            menu_bar=w.menuBar().isVisibleTo(w),
            status_bar=w.statusBar().isVisibleTo(w),
            hidden_board_widgets=[x for x in _board_extras(bp) if x.isVisibleTo(bp)],
        )
        self.active = True
        screen = w.screen().geometry()
        scale = font_scale(screen.height())
        self._styler = PlotStyler(scale=scale, line_scale=theme.PRESENTATION["line_scale"])
        for tb in w.findChildren(QToolBar):
            if tb is not self.caption_bar:
                tb.hide()
        w.menuBar().hide()
        w.statusBar().hide()
        for x in self._saved.hidden_board_widgets:
            x.hide()
        w.board.set_presentation(True)
        bp.phase_line = False  # the caption says it, in large words
        bp.phase_caption.hide()
        self.caption.set_scale(scale)
        w.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.caption_bar)
        self.caption_bar.show()
        # The stop key becomes the way out: Esc must never stop a run by accident in front of a class.
        self.act_present.setShortcuts([QKeySequence("F11"), QKeySequence("Esc")])
        w.act_stop.setShortcut(QKeySequence())
        self.act_present.setChecked(True)
        self._show_view(self._choose_view(self.view_key))
        w.showFullScreen()
        w.setGeometry(w.screen().geometry())  # without a window manager (a bare X server) full screen is not granted
        self._update_caption()
        QTimer.singleShot(0, self, self._fit)
        QTimer.singleShot(100, self, self._fit)  # once the window manager has made it full screen

    def leave(self) -> None:
        """Back to the lab: the layout, geometry, look and keys as they were."""
        w = self.window
        if not self.active:
            return
        saved, self._saved = self._saved, None
        self.active = False
        self._styler.restore()
        self.caption.set_scale(1.0)
        w.board.set_presentation(False)
        w.board_panel.phase_line = True
        if w._last_progress is not None:  # the phase's line under the board again, if a phase is shown
            w.board_panel.show_snapshot(w._last_progress.snapshot, w._last_progress.phase)
        dock = w.view_docks.get(self.view_key)
        if dock is not None:
            dock.setTitleBarWidget(None)
        w.removeToolBar(self.caption_bar)
        self.caption_bar.hide()
        w.act_stop.setShortcut(QKeySequence("Esc"))
        self.act_present.setShortcuts([QKeySequence("F11")])
        self.act_present.setChecked(False)
        w.menuBar().setVisible(saved.menu_bar)
        w.statusBar().setVisible(saved.status_bar)
        w.restoreState(saved.state)  # the lab's docks first: the window's least size is theirs again
        for x in saved.hidden_board_widgets:
            x.show()
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        w.setWindowState(saved.window_state)
        if not saved.window_state & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized):
            w.restoreGeometry(saved.geometry)
        w.restoreState(saved.state)  # the docks' sizes in the window's own size
        # The tab bars hidden in the mode stay hidden: the restored layout shows the ones its tab groups use
        # (showing the old ones again put stale copies on top of them).
        self._hidden_bars = []
        cls = registry()[w.controller.solver_name]
        w.view_host.on_solver(cls)  # another algorithm chosen meanwhile: only its views
        w.board_panel.set_solver(cls)  # its layer toggles
        # on_solver forgets what the views showed: draw the frame on show again at once (a rewound moment
        # mid-iteration included), not at the next step.
        prog = w._last_progress
        if prog is not None and prog.snapshot.solver == cls.name:
            w.view_host.on_progress(prog, True)
        w.view_host.redraw_stale()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Close and self.active:
            self.leave()  # the layout saved on closing is the lab's, not the stage's
        return False

    # ---- views
    def view_keys(self) -> list[str]:
        """The views that apply to the current solver, in the view host's order."""
        cls = registry()[self.window.controller.solver_name]
        return [k for k, spec in self.window.view_host.specs.items() if spec.applies(cls)]

    def _choose_view(self, key: str | None) -> str | None:
        keys = self.view_keys()
        if key in keys:
            return key
        host = self.window.view_host
        own = [k for k in keys if not host.specs[k].for_every_solver]  # the solver's model or its own view
        return own[0] if own else (keys[0] if keys else None)

    def cycle_view(self, delta: int) -> None:
        """The next (``delta`` 1) or previous (-1) view: beside the board in the mode, in front of its tabs outside."""
        keys = self.view_keys()
        if not keys:
            return
        if self.active:
            current = self.view_key if self.view_key in keys else keys[0]
            self._show_view(keys[(keys.index(current) + delta) % len(keys)])
            return
        host = self.window.view_host
        shown = [k for k in keys if host.views[k].isVisible()]
        current = self.view_key if self.view_key in shown else (shown[0] if shown else keys[0])
        self.view_key = keys[(keys.index(current) + delta) % len(keys)]
        dock = host.docks[self.view_key]
        if dock.isHidden():
            dock.show()
        dock.raise_()

    def _show_view(self, key: str | None) -> None:
        """Show view ``key`` alone beside the board (the mode's layout)."""
        w = self.window
        old = w.view_docks.get(self.view_key)
        if old is not None:
            old.setTitleBarWidget(None)
        self._styler.restore()
        self.view_key = key
        for d in w.findChildren(QDockWidget):
            if d is not w.view_docks.get(key):
                d.hide()
        if key is None:
            return
        dock = w.view_docks[key]
        if w.dockWidgetArea(dock) != Qt.DockWidgetArea.RightDockWidgetArea or dock.isFloating():
            dock.setFloating(False)
            w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        w.removeDockWidget(dock)  # out of any tab group: alone on the right
        w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.setTitleBarWidget(QWidget())  # no title bar: the caption says what it is
        dock.show()
        dock.raise_()
        # The tab bars of the hidden docks' groups: Qt leaves some on show, over the board or the caption.
        for bar in w.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not bar.isHidden():
                bar.hide()
                self._hidden_bars.append(bar)
        self._styler.apply(w.views[key])
        QTimer.singleShot(0, self, self._fit)
        QTimer.singleShot(0, w.view_host, w.view_host.redraw_stale)

    def fitting(self) -> bool:
        """True while the stage is still being fitted to the view's least size at the larger type."""
        return self._fit_tries > 0

    def shown_view(self) -> str | None:
        """The key of the view beside the board in the mode (None outside it)."""
        return self.view_key if self.active else None

    def _fit(self) -> None:
        """The board as large as the height allows, the view the rest of the width."""
        w = self.window
        if not self.active or self.view_key is None:
            return
        dock = w.view_docks[self.view_key]
        self._styler.apply(w.views[self.view_key])  # first: the least width below is the larger type's
        board_h = w.board_panel.height()
        width = max(w.width() * 2 // 5, w.width() - board_h - 24)
        scroll = dock.widget()
        if hasattr(scroll, "least_size"):  # never narrower than the view's plots and text at the larger type
            plots_least(w.views[self.view_key])
            width = min(w.width() * 2 // 3, max(width, scroll.least_size(1).width() + 8))
        w.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
        self._styler.apply(w.views[self.view_key])
        # The plots' least size at the larger type is known only once their layouts have run: fit again
        # (a few times at most) while the view is still wider than its place.
        if hasattr(scroll, "least_size"):
            plots_least(w.views[self.view_key])
        narrow = hasattr(scroll, "least_size") and scroll.least_size(1).width() > scroll.maximumViewportSize().width()
        if narrow and self._fit_tries < 5:
            self._fit_tries += 1
            QTimer.singleShot(50, self, self._fit)
        else:
            self._fit_tries = 0

    # ---- progress
    def _on_progress(self, prog) -> None:
        if not self.active:
            return
        self._update_caption(prog)
        import time

        now = time.perf_counter()
        final = self.window.controller.state != "running"
        if self.view_key is not None and (final or now - self._last_style > self.RESTYLE_GAP):
            self._last_style = now
            # after the view host has drawn the frame (it may build new curves or marks)
            QTimer.singleShot(0, self, lambda: self.active and self._styler.apply(self.window.views[self.view_key]))

    def _update_caption(self, prog=None) -> None:
        if not self.active:
            return
        c = self.window.controller
        prog = prog if prog is not None else c.latest
        if prog is None:
            self.caption.show_progress(None, f"{registry()[c.solver_name].title}: {c.state}")
        else:
            self.caption.show_progress(prog, c.state)

    def _on_solver(self, name: str) -> None:
        if self.active:  # once the window has shown the new solver's docks: back to the stage, the view re-chosen
            QTimer.singleShot(0, self, self._restage)

    def _restage(self) -> None:
        if self.active:
            self._show_view(self._choose_view(self.view_key))
            self._update_caption()

    # ---- the lab from the keyboard
    def change_speed(self, delta: int) -> None:
        box = self.window.speed_box
        box.setCurrentIndex(min(box.count() - 1, max(0, box.currentIndex() + delta)))
        self.window.statusBar().showMessage(f"Speed: {box.currentText()}", 3000)

    def step_puzzle(self, delta: int) -> None:
        """Load the next (previous) puzzle of the browser's list, in its current order, wrapping round."""
        panel = self.window.puzzle_panel
        proxy, table = panel.proxy, panel.table
        rows = proxy.rowCount()
        if rows == 0:
            return
        current = table.currentIndex().row() if table.currentIndex().isValid() else -1
        if current < 0:
            name = self.window.controller.puzzle.name if self.window.controller.puzzle is not None else None
            current = next((r for r in range(rows) if proxy.index(r, 0).data() == name), -1)
        row = (current + delta) % rows if current >= 0 else (0 if delta > 0 else rows - 1)
        table.selectRow(row)
        index = proxy.index(row, 0)
        table.setCurrentIndex(index)
        table.scrollTo(index)
        panel._load_row(index)

    def step_algorithm(self, delta: int) -> None:
        box = self.window.solver_box
        if box.count():
            box.setCurrentIndex((box.currentIndex() + delta) % box.count())


def _board_extras(board_panel: QWidget) -> list[QWidget]:
    """The board panel's widgets other than the board (its toggles): hidden in the mode."""
    return [
        x
        for x in board_panel.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if x is not board_panel.board
    ]
