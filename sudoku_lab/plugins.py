"""Named registries (solvers, reproductions, benchmarks) filled by built-in modules and plugins.

One mechanism for every extension point, so adding a solver, a paper's
reproduction or a benchmark means adding a module, never editing a list:

* built-ins are the public modules of a package (``sudoku_lab.solvers``,
  ``sudoku_lab.reproductions``, ``sudoku_lab.benchmarks``), imported the first
  time the registry is read;
* code outside the package registers through the same public functions, either
  by importing them in its own module, or, for an installed distribution,
  through the entry-point group ``sudoku_lab.plugins`` (headless) or
  ``sudoku_lab.ui_plugins`` (views and overlays of the lab)::

      [project.entry-points."sudoku_lab.plugins"]
      my_solver = "my_package.sudoku_plugin"

  The entry point names a module (imported) or a callable (called with no
  arguments); either registers what it brings. ``SUDOKU_LAB_PLUGINS`` (a
  comma-separated list of module names) does the same without packaging, for a
  quick experiment.

A plugin that fails to import is reported in one line on stderr and skipped:
a broken third-party module never stops the built-in solvers.

The lab window is a front end of its own (``sudoku_lab_ui``, the ``sudoku_lab.frontends`` entry point)
whose packages, PySide6 and pyqtgraph, are the ``gui`` extra rather than core dependencies, so that the
headless commands and the notebook lab install where Qt cannot. Whatever starts the window
(``sudoku-lab``, ``sudoku-lab gui``, ``sudoku-lab bench gui``) asks :func:`missing_window_packages`
(found, never imported: no Qt in the core) and, when some are missing, says
:func:`window_missing_message` in one line instead of a ``ModuleNotFoundError``.
"""

from __future__ import annotations

import contextlib
import importlib
import operator
import os
import pkgutil
import sys
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Generic, Iterator, Mapping, TypeVar

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

from ._checks import checked
from .errors import ParameterError

#: What plugins and the window call. :class:`Registry` is the mechanism behind every registry (the solvers',
#: the benchmarks', the window's views and overlays); a plugin registers through those registries' own
#: functions (``register``, ``register_benchmark``, ``register_view``), not through a Registry.
__all__ = [
    "load_plugins",
    "import_package_modules",
    "PLUGIN_GROUP",
    "UI_PLUGIN_GROUP",
    "PLUGIN_ENV",
    "WINDOW_PACKAGES",
    "missing_window_packages",
    "window_missing_message",
]

PLUGIN_GROUP = "sudoku_lab.plugins"
UI_PLUGIN_GROUP = "sudoku_lab.ui_plugins"
PLUGIN_ENV = "SUDOKU_LAB_PLUGINS"

T = TypeVar("T")

_loaded_groups: set[str] = set()
_loading: set[str] = set()
#: One line per plugin that failed to load (also printed once on stderr).
PLUGIN_ERRORS: list[str] = []


def _report(what: str, exc: BaseException) -> None:
    line = f"sudoku-lab: plugin {what} failed to load and is skipped: {type(exc).__name__}: {exc}"
    PLUGIN_ERRORS.append(line)
    print(line, file=sys.stderr)


@checked
def load_plugins(group: str = PLUGIN_GROUP) -> None:
    """Import every plugin of an entry-point group once (and, for the headless group, ``$SUDOKU_LAB_PLUGINS``)."""
    if group in _loaded_groups or group in _loading:
        return
    _loading.add(group)
    try:
        from importlib.metadata import entry_points

        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            try:
                obj = ep.load()
                if callable(obj) and not isinstance(obj, type):
                    obj()
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the built-ins
                _report(f"{ep.name!r} ({ep.value})", exc)
        if group == PLUGIN_GROUP:
            for name in filter(None, (s.strip() for s in os.environ.get(PLUGIN_ENV, "").split(","))):
                try:
                    importlib.import_module(name)
                except Exception as exc:  # noqa: BLE001
                    _report(f"{name!r} (from ${PLUGIN_ENV})", exc)
        _loaded_groups.add(group)
    finally:
        _loading.discard(group)


@checked
def import_package_modules(package: str) -> None:
    """Import every public module of ``package`` (the built-ins of a registry), in name order."""
    pkg = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package}.{info.name}")


class Registry(Generic[T]):
    """Objects by unique name, completed on first read by built-in modules and plugins.

    Parameters
    ----------
    kind : str
        What it holds, for messages ("algorithm", "reproduction", "benchmark").
    package : str, optional
        Package whose public modules are the built-ins.
    key : callable
        ``key(obj) -> str``: the registry name of an object.
    order : callable, optional
        ``order(obj)`` sort key for listings (registration order otherwise).
    group : str
        Entry-point group of plugins.
    origin : callable, optional
        ``origin(obj) -> str``: where an object comes from, for the duplicate-name message
        (default: its module and qualified name).
    """

    def __init__(
        self,
        kind: str,
        package: str | None = None,
        key: Callable[[T], str] = operator.attrgetter("name"),
        order: Callable[[T], SupportsRichComparison] | None = None,
        group: str = PLUGIN_GROUP,
        origin: Callable[[T], str] | None = None,
    ):
        self.kind = kind
        self.package = package
        self.key = key
        self.order = order
        self.group = group
        self.origin = origin or _origin
        self._items: dict[str, T] = {}
        self._builtins = "no" if package else "done"
        self._complete = False
        self._completing = False

    def register(self, obj: T, replace: bool = False) -> T:
        """Add ``obj`` under its name; a second object with the same name is refused.

        With ``replace``, an object of the same name is replaced on purpose, keeping
        its place in the registration order.

        Raises
        ------
        ValueError
            If another object already has that name and ``replace`` is False
            (registering the same object twice is harmless).
        """
        self._import_builtins()  # first, so that no plugin can take a built-in's name
        name = self.key(obj)
        if not isinstance(name, str) or not name:
            raise TypeError(f"a {self.kind} needs a non-empty registry name, got {name!r}")
        old = self._items.get(name)
        if old is not None and old is not obj and not replace:
            raise ValueError(
                f"a {self.kind} named {name!r} is already registered (by {self.origin(old)}); "
                f"choose another name for the one in {self.origin(obj)}"
            )
        self._items[name] = obj
        return obj

    def unregister(self, name: str) -> None:
        """Remove a name (tests and interactive sessions that define a solver twice)."""
        self._items.pop(name, None)

    @contextlib.contextmanager
    def isolated(self) -> Iterator[Registry[T]]:
        """Within the block, registrations and removals are kept; afterwards the registry is as before.

        The registry is completed first (built-ins and plugins), so they stay visible inside and are not
        imported again afterwards. :func:`sudoku_lab.testing.isolated_registry` is this for solvers.
        """
        self._complete_once()
        saved = dict(self._items)
        try:
            yield self
        finally:
            self._items.clear()
            self._items.update(saved)

    def _import_builtins(self) -> None:
        if self._builtins == "no" and self.package:  # "no" only with a package
            self._builtins = "importing"
            try:
                import_package_modules(self.package)
                self._builtins = "done"
            except BaseException:
                self._builtins = "no"
                raise

    def _complete_once(self) -> None:
        if self._complete or self._completing:
            return
        self._completing = True
        try:
            self._import_builtins()
            load_plugins(self.group)
            self._complete = True
        finally:
            self._completing = False

    def mapping(self) -> Mapping[str, T]:
        """Every registered object by name (built-ins and plugins loaded)."""
        self._complete_once()
        items = list(self._items.items())
        order = self.order
        if order is not None:
            items.sort(key=lambda kv: order(kv[1]))
        return MappingProxyType(dict(items))

    def get(self, name: str, param: str = "name") -> T:
        """The object registered as ``name``; ParameterError naming the known ones otherwise."""
        reg = self.mapping()
        if name not in reg:
            raise ParameterError(f"unknown {self.kind} {name!r}; choose from {', '.join(reg) or '(none)'}", name=param)
        return reg[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.mapping())

    def __contains__(self, name: object) -> bool:
        return name in self.mapping()


def _origin(obj) -> str:
    mod = getattr(obj, "__module__", None) or type(obj).__module__
    qual = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{mod}.{qual}"


# ------------------------------------------------------- the window's packages
#: What the lab window imports beyond the core: module -> its distribution, the ``gui`` extra of pyproject.toml
#: (tests/test_packaging.py keeps the two the same).
WINDOW_PACKAGES = {"PySide6": "PySide6-Essentials", "pyqtgraph": "pyqtgraph"}


@checked
def missing_window_packages() -> list[str]:
    """The distributions of :data:`WINDOW_PACKAGES` whose module cannot be found here (found, not imported)."""
    import importlib.util

    missing = []
    for module, dist in WINDOW_PACKAGES.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a broken package on the path: as good as none
            found = False
        if not found:
            missing.append(dist)
    return missing


def _install_command() -> str:
    """The pip command that adds the ``gui`` extra to this installation of sudoku-lab.

    From the checkout it was installed from (pip records it in ``direct_url.json``; ``-e`` for an editable
    install), with this interpreter, so the packages land where the command looks for them.
    """
    import json
    import os
    import shlex
    import sys
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    target, editable = "sudoku-lab[gui]", False
    try:
        direct = json.loads(metadata.distribution("sudoku-lab").read_text("direct_url.json") or "{}")
        url = urlparse(direct.get("url", ""))
        if url.scheme == "file" and "dir_info" in direct:
            target = unquote(url.path) + "[gui]"
            editable = bool(direct["dir_info"].get("editable"))
    except (metadata.PackageNotFoundError, ValueError, AttributeError, TypeError):
        pass
    # `python` where it is this interpreter (its virtual environment is the active one), else this one's path.
    active = os.environ.get("VIRTUAL_ENV")
    python = "python" if active and os.path.realpath(active) == os.path.realpath(sys.prefix) else sys.executable
    return f"{shlex.quote(python)} -m pip install {'-e ' if editable else ''}{shlex.quote(target)}"


@checked
def window_missing_message(missing: list[str]) -> str:
    """One line: the window's packages that are missing, and how to install them."""
    them = "it" if len(missing) == 1 else "them"
    return (
        f"the lab window needs {' and '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} not installed "
        f"here; install {them} with: {_install_command()} (the headless commands work without {them}: "
        "sudoku-lab --help)"
    )
