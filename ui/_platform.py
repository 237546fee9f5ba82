"""Can Qt open a window here? A check run before the first QApplication exists.

When Qt cannot load the platform plugin it picked, or cannot reach the display,
it does not raise: it prints a few lines about "xcb" and aborts the process
(SIGABRT, a core dump, exit status 134). Typical causes are a bare Debian or
Ubuntu without the X libraries Qt's wheels load (``libxcb-cursor0`` and
friends), and a ``DISPLAY`` left over from an ``ssh -X`` session that has
gone. :func:`preflight` finds both beforehand and returns one line naming
what is missing and what to install, so the lab can exit with status 2
instead.

The module imports no Qt at all: importing ``PySide6.QtGui`` already needs
some of the libraries checked here. It locates PySide6 with
:func:`importlib.util.find_spec`, asks ``ldd`` (the dynamic loader itself)
which shared libraries of the plugin and of the Qt libraries the lab uses
cannot be found, and opens (then closes) a connection to the X display with
libxcb through :mod:`ctypes`, exactly as Qt's xcb plugin will.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SONAME_PACKAGES",
    "Problem",
    "qt_platforms",
    "pyside_qt_dir",
    "plugin_file",
    "qt_libraries",
    "parse_ldd",
    "missing_libraries",
    "install_hint",
    "missing_message",
    "xcb_connect_error",
    "check_platform",
    "preflight",
]

#: Debian/Ubuntu package of each shared library that PySide6's Qt libraries and
#: platform plugins load from the system (the ``ldd`` closure of QtCore, QtGui,
#: QtWidgets, QtSvg and the xcb, wayland and offscreen plugins on Debian 12,
#: mapped with ``dpkg -S``; ``tests/test_startup.py`` re-checks it with dpkg).
#: Used only to word the advice when a library is missing.
SONAME_PACKAGES: dict[str, str] = {
    # X11 and the xcb platform plugin (libqxcb.so, libQt6XcbQpa.so.6)
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    # OpenGL/EGL dispatch (QtGui links them even when nothing draws with OpenGL)
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libOpenGL.so.0": "libopengl0",
    # fonts, D-Bus, GLib and what they pull in
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libpng16.so.16": "libpng16-16",
    "libbrotlicommon.so.1": "libbrotli1",
    "libbrotlidec.so.1": "libbrotli1",
    "libexpat.so.1": "libexpat1",
    "libbz2.so.1.0": "libbz2-1.0",  # FreeType on Debian 13
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libpcre2-8.so.0": "libpcre2-8-0",
    "libffi.so.8": "libffi8",
    "libbsd.so.0": "libbsd0",
    "libmd.so.0": "libmd0",
    "libdrm.so.2": "libdrm2",
    # the wayland platform plugin (libqwayland.so)
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    # the base system (present on every Debian; listed so a broken one still gets a name)
    "libc.so.6": "libc6",
    "libm.so.6": "libc6",
    "libdl.so.2": "libc6",
    "libpthread.so.0": "libc6",
    "libresolv.so.2": "libc6",
    "libstdc++.so.6": "libstdc++6",
    "libgcc_s.so.1": "libgcc-s1",
    "libatomic.so.1": "libatomic1",  # Debian 13
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
    "liblzma.so.5": "liblzma5",
    "liblz4.so.1": "liblz4-1",
    "libsystemd.so.0": "libsystemd0",
    "libcap.so.2": "libcap2",
    "libgcrypt.so.20": "libgcrypt20",
    "libgpg-error.so.0": "libgpg-error0",
}

#: Platform plugins whose file is not ``libq<name>.so``.
_PLUGIN_FILES = {"wayland-egl": "libqwayland.so", "wayland-brcm": "libqwayland.so"}

#: The Qt modules the lab imports (QtSvg through pyqtgraph). Their binding modules link
#: libQt6Widgets/libQt6Svg, which link libQt6Gui and libQt6Core, and ``ldd`` lists the
#: whole closure, so checking these two covers all four Qt libraries.
_QT_MODULES = ("QtWidgets", "QtSvg")

_README_HINT = "the README lists every library the lab needs"

# How long a display may take to answer. A stale `ssh -X` forward refuses at once; an
# unreachable remote host can hang in connect(), and Qt would hang there too.
_CONNECT_TIMEOUT = 10.0

# xcb_connection_has_error() codes (xcb.h), worded for a user.
_XCB_ERRORS = {
    1: "no X server answers, or it refused the connection",
    2: "the X server lacks a required extension",
    3: "out of memory",
    4: "request too long",
    5: "not a valid X display name",
    6: "the X server has no such screen",
    7: "file descriptor passing failed",
}


@dataclass(frozen=True)
class Problem:
    """Why Qt could not start on one platform plugin.

    Attributes
    ----------
    platform : str
        The platform plugin name (``xcb``, ``wayland``, ``offscreen``...).
    kind : str
        ``"missing"`` (shared libraries not found), ``"display"`` (no display
        to connect to) or ``"plugin"`` (no such plugin).
    message : str
        One line for the user, without the ``sudoku-lab: error:`` prefix.
    missing : tuple of str
        The sonames not found, for ``kind == "missing"``.
    """

    platform: str
    kind: str
    message: str
    missing: tuple[str, ...] = field(default=())


def qt_platforms(environ=None) -> list[str]:
    """The platform plugins Qt 6 will try, in order, when a QGuiApplication starts.

    ``QT_QPA_PLATFORM`` wins (a ``;``-separated list, each entry optionally
    followed by ``:options``). Otherwise Qt 6.5 and later (checked against
    PySide6 6.11 with ``QT_DEBUG_PLUGINS=1``) try ``wayland`` first when
    ``WAYLAND_DISPLAY`` is set or ``XDG_SESSION_TYPE`` is ``wayland``, then
    ``xcb``, its compiled-in default on Linux (which also covers
    XDG_SESSION_TYPE=x11).
    """
    env = os.environ if environ is None else environ
    requested = env.get("QT_QPA_PLATFORM", "")
    if requested:
        names = [part.split(":", 1)[0].strip() for part in requested.split(";")]
        return [n for n in names if n]
    order = []
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland":
        order.append("wayland")
    order.append("xcb")
    return order


def pyside_qt_dir() -> Path | None:
    """PySide6's ``Qt`` directory (``lib/`` and ``plugins/``), found without importing PySide6."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    qt = Path(next(iter(spec.submodule_search_locations))) / "Qt"
    return qt if qt.is_dir() else None


def _plugin_dirs(qt_dir: Path, environ) -> list[Path]:
    """Where Qt looks for platform plugins, in its order (overrides first, the wheel's own last)."""
    dirs = []
    if environ.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
        dirs.append(Path(environ["QT_QPA_PLATFORM_PLUGIN_PATH"]))
    for entry in environ.get("QT_PLUGIN_PATH", "").split(os.pathsep):
        if entry:
            dirs.append(Path(entry) / "platforms")
    dirs.append(qt_dir / "plugins" / "platforms")
    return dirs


def plugin_file(qt_dir: Path, name: str, environ=None) -> Path | None:
    """The shared object of platform plugin ``name``, or None if there is none."""
    env = os.environ if environ is None else environ
    fname = _PLUGIN_FILES.get(name, f"libq{name}.so")
    for d in _plugin_dirs(qt_dir, env):
        if (d / fname).is_file():
            return d / fname
    return None


def _available_plugins(qt_dir: Path) -> list[str]:
    names = set()
    for f in (qt_dir / "plugins" / "platforms").glob("libq*.so"):
        names.add(f.name[len("libq"):-len(".so")])
    if "wayland" in names:
        names.update(k for k, v in _PLUGIN_FILES.items() if v == "libqwayland.so")
    return sorted(names)


def qt_libraries(qt_dir: Path) -> list[Path]:
    """The PySide6 binding modules the lab imports (or their Qt libraries), that exist.

    ``ldd`` on these lists every library QtCore, QtGui, QtWidgets and QtSvg
    load; the platform plugin's own ``ldd`` covers its Qt library
    (``libQt6XcbQpa.so.6`` for xcb). Few files keep ``ldd`` fast (about 30 ms).
    """
    out = []
    for mod in _QT_MODULES:
        bindings = sorted(qt_dir.parent.glob(f"{mod}.*.so"))  # e.g. QtWidgets.abi3.so
        out.extend(bindings or [qt_dir / "lib" / f"lib{mod.replace('Qt', 'Qt6', 1)}.so.6"])
    return [p for p in out if p.is_file()]


_LDD_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")


def parse_ldd(text: str, files: list[str | Path] | None = None) -> dict[str, list[str]]:
    """The sonames ``ldd`` reports as "not found", per file it was run on.

    Parameters
    ----------
    text : str
        ``ldd``'s standard output. With several files each section starts
        with a ``path:`` line; with one file there is no header.
    files : list of str or Path, optional
        The files ``ldd`` was given, in order; with a single file this names
        its section.

    Returns
    -------
    dict of str to list of str
        File path -> missing sonames, in ``ldd``'s order without repeats;
        files with nothing missing are left out.
    """
    current = str(files[0]) if files and len(files) == 1 else ""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            current = line[:-1]
            continue
        m = _LDD_NOT_FOUND.match(line)
        if m:
            missing = out.setdefault(current, [])
            if m.group(1) not in missing:
                missing.append(m.group(1))
    return out


def missing_libraries(files: list[Path]) -> dict[str, list[str]] | None:
    """Run ``ldd`` on ``files``; return :func:`parse_ldd`'s answer, or None if ``ldd`` is unavailable.

    ``ldd`` resolves with the dynamic loader Qt's ``dlopen`` uses, honouring
    RPATH/RUNPATH (``$ORIGIN`` in the wheel) and ``LD_LIBRARY_PATH``, so it
    answers for exactly this environment. It is absent on systems without
    glibc (musl, macOS); there is nothing to check then.
    """
    ldd = shutil.which("ldd")
    if ldd is None or not files:
        return None
    # This process's environment (LD_LIBRARY_PATH included) is the one Qt's dlopen will see.
    env = {**os.environ, "LC_ALL": "C"}  # "not found" is translated in some locales
    try:
        proc = subprocess.run([ldd, *map(str, files)], capture_output=True, text=True, env=env,
                              timeout=30, errors="replace")
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_ldd(proc.stdout, files)


def install_hint(sonames: list[str], apt: bool | None = None) -> str:
    """What to install for ``sonames``: an ``apt-get`` line for the known ones, a search for the rest.

    ``apt`` says whether to word it for Debian/Ubuntu (default: whether
    ``apt-get`` is on PATH).
    """
    if apt is None:
        apt = shutil.which("apt-get") is not None
    packages = list(dict.fromkeys(SONAME_PACKAGES[s] for s in sonames if s in SONAME_PACKAGES))
    unknown = [s for s in sonames if s not in SONAME_PACKAGES]
    if not apt:
        named = f" (Debian/Ubuntu names: {' '.join(packages)})" if packages else ""
        return f"install the system packages that provide them{named}"
    parts = []
    if packages:
        them = "them" if len(sonames) > 1 else "it"
        parts.append(f"install {them} with: sudo apt-get install " + " ".join(packages))
    if unknown:
        search = ", ".join(f"apt-file search {s}" for s in unknown)
        parts.append(("plus the packages that provide " if packages else "install the packages that provide ")
                     + ", ".join(unknown) + f" ({search})")
    return ", ".join(parts)


def missing_message(platform: str, sonames: list[str], in_plugin: bool = True, apt: bool | None = None) -> str:
    """The one line for libraries Qt cannot find (without the ``sudoku-lab: error:`` prefix).

    ``in_plugin`` says whether the platform plugin itself fails to load
    (otherwise only the Qt libraries the lab imports do).
    """
    what = f"Qt cannot load its {platform} platform plugin" if in_plugin else "Qt's libraries cannot load"
    return (f"{what}: missing {', '.join(sonames)}; {install_hint(sonames, apt)} "
            f"({_README_HINT})")


def _xcb_connect(display: str) -> int | None:
    """Connect to ``display`` with libxcb and disconnect; return xcb's error code (0: fine), None if no libxcb."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    xcb.xcb_connection_has_error.restype = ctypes.c_int
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.restype = None
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    screen = ctypes.c_int(0)
    conn = xcb.xcb_connect(display.encode(), ctypes.byref(screen))
    if not conn:
        return 3
    try:
        return int(xcb.xcb_connection_has_error(conn))
    finally:
        xcb.xcb_disconnect(conn)  # an errored connection must be freed too


def xcb_connect_error(display: str, timeout: float = _CONNECT_TIMEOUT) -> str | None:
    """Why Qt's xcb plugin would fail to connect to X ``display``, or None if it connects.

    Returns None also when libxcb cannot be loaded (the library check reports
    that). The connection is opened and closed at once, which an X server
    sees as a client that came and went.
    """
    result: list[int | None] = []
    worker = threading.Thread(target=lambda: result.append(_xcb_connect(display)), daemon=True,
                              name="sudoku-lab display check")
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return f"the X display {display!r} does not answer (no reply within {timeout:g} s)"
    code = result[0] if result else None
    if not code:
        return None
    why = _XCB_ERRORS.get(code, f"xcb error {code}")
    if code == 1:
        sock = _local_x_socket(display)
        if sock is not None and sock.exists():
            why = ("the X server there refused the connection (no permission: check XAUTHORITY, "
                   "or run `xhost +si:localuser:$USER` on that display)")
        else:
            why = "DISPLAY is set but no X server answers: a stale `ssh -X` session?"
    return f"cannot connect to the X display {display!r} ({why})"


def _local_x_socket(display: str) -> Path | None:
    """The Unix socket of a local display such as ``:1`` or ``unix:1.0``, else None."""
    m = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    return Path(f"/tmp/.X11-unix/X{m.group(1)}") if m else None


def _wayland_socket_problem(environ) -> str | None:
    if environ.get("WAYLAND_SOCKET"):
        return None  # an inherited, already connected file descriptor
    name = environ.get("WAYLAND_DISPLAY") or "wayland-0"
    if os.path.isabs(name):
        path = Path(name)
    elif environ.get("XDG_RUNTIME_DIR"):
        path = Path(environ["XDG_RUNTIME_DIR"]) / name
    else:
        return f"no Wayland compositor to connect to (XDG_RUNTIME_DIR is not set, WAYLAND_DISPLAY={name!r})"
    try:
        if stat.S_ISSOCK(path.stat().st_mode):
            return None
    except OSError:
        pass
    return f"no Wayland compositor at {str(path)!r} (WAYLAND_DISPLAY={name!r})"


def check_platform(name: str, qt_dir: Path, environ=None, apt: bool | None = None,
                   connect_timeout: float = _CONNECT_TIMEOUT) -> Problem | None:
    """Whether Qt can start on platform plugin ``name``; a :class:`Problem` if it cannot.

    Checks, in Qt's own order: the plugin exists, the shared libraries of the
    plugin and of the Qt libraries the lab loads are all found, and (xcb,
    wayland) the display answers.
    """
    env = os.environ if environ is None else environ
    plugin = plugin_file(qt_dir, name, env)
    if plugin is None:
        return Problem(name, "plugin", f"Qt has no platform plugin {name!r} (QT_QPA_PLATFORM="
                       f"{env.get('QT_QPA_PLATFORM', '')!r}; available: {', '.join(_available_plugins(qt_dir))})")
    base = name.split("-", 1)[0]
    if base == "wayland":
        why = _wayland_socket_problem(env)
        if why:
            return Problem(name, "display", why)
    elif base == "xcb" and not env.get("DISPLAY"):
        return Problem(name, "display", "no X display to open the lab window on (DISPLAY is not set)")
    files = [plugin, *qt_libraries(qt_dir)]
    missing = missing_libraries(files)
    if missing:
        sonames = list(dict.fromkeys(s for f in files for s in missing.get(str(f), [])))
        sonames += [s for lst in missing.values() for s in lst if s not in sonames]
        return Problem(name, "missing", missing_message(name, sonames, str(plugin) in missing, apt),
                       tuple(sonames))
    if base == "xcb":
        why = xcb_connect_error(env["DISPLAY"], connect_timeout)
        if why:
            return Problem(name, "display", why + "; the headless commands work anywhere: see sudoku-lab --help")
    return None


def preflight(environ=None, apt: bool | None = None) -> str | None:
    """Why Qt would abort when the lab's QApplication starts, as one line; None if it can start.

    Follows Qt's choice of platform plugins (:func:`qt_platforms`): Qt takes
    the first that loads and connects, so the lab can start if any of them
    passes :func:`check_platform`. Otherwise the line reports the first
    missing-libraries problem (installing those packages is the fix), else the
    first problem. Off Linux, or without PySide6 where expected, there is
    nothing to check.
    """
    if not sys.platform.startswith("linux"):
        return None
    env = os.environ if environ is None else environ
    qt_dir = pyside_qt_dir()
    if qt_dir is None:
        return None
    problems = []
    for name in qt_platforms(env):
        problem = check_platform(name, qt_dir, env, apt)
        if problem is None:
            return None
        problems.append(problem)
    if not problems:
        return None
    first_missing = next((p for p in problems if p.kind == "missing"), None)
    return (first_missing or problems[0]).message
