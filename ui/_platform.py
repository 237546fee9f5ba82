"""Can Qt open a window here? A check run before the first QApplication exists.

When Qt cannot load the platform plugin it picked, or cannot reach the display,
it does not raise: it prints a few lines about "xcb" and aborts the process
(SIGABRT, a core dump, exit status 134). Typical causes are a bare Debian or
Ubuntu without the X libraries Qt's wheels load (``libxcb-cursor0`` and
friends), and a ``DISPLAY`` left over from an ``ssh -X`` session that has
gone, and a library that is there but cannot be loaded (an empty or
truncated file, one built for another architecture: Qt aborts on those too,
or the process dies of SIGBUS). :func:`preflight` finds all of them
beforehand and returns one line naming what is missing or broken and which
package to install, so the lab can exit with status 2 instead.

The module imports no Qt at all: importing ``PySide6.QtGui`` already needs
some of the libraries checked here. It locates PySide6 with
:func:`importlib.util.find_spec`, asks ``ldd`` (the dynamic loader itself)
which shared libraries of the plugin and of the Qt libraries the lab uses
cannot be found, then loads those files in a child process with ``dlopen``
as Qt will (:func:`load_failure`: a library that is found but cannot be
loaded, or that crashes the loader, only shows there), and opens (then
closes) a connection to the X display with libxcb through :mod:`ctypes`,
exactly as Qt's xcb plugin will.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import shutil
import signal
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
    "LoadFailure",
    "load_failure",
    "unloadable_message",
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
        ``"missing"`` (shared libraries not found), ``"unloadable"`` (a
        library is found but cannot be loaded), ``"display"`` (no display to
        connect to) or ``"plugin"`` (no such plugin).
    message : str
        One line for the user, without the ``sudoku-lab: error:`` prefix.
    missing : tuple of str
        The sonames not found, for ``kind == "missing"``; the library that
        cannot be loaded, for ``kind == "unloadable"``.
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
        names.add(f.name[len("libq") : -len(".so")])
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
        proc = subprocess.run(
            [ldd, *map(str, files)], capture_output=True, text=True, env=env, timeout=30, errors="replace"
        )
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
        parts.append(
            ("plus the packages that provide " if packages else "install the packages that provide ")
            + ", ".join(unknown)
            + f" ({search})"
        )
    return ", ".join(parts)


def missing_message(platform: str, sonames: list[str], in_plugin: bool = True, apt: bool | None = None) -> str:
    """The one line for libraries Qt cannot find (without the ``sudoku-lab: error:`` prefix).

    ``in_plugin`` says whether the platform plugin itself fails to load
    (otherwise only the Qt libraries the lab imports do).
    """
    what = f"Qt cannot load its {platform} platform plugin" if in_plugin else "Qt's libraries cannot load"
    return f"{what}: missing {', '.join(sonames)}; {install_hint(sonames, apt)} ({_README_HINT})"


# Run in a child process: load each file in turn as Qt will (ctypes' dlopen resolves every symbol at
# once, RTLD_NOW), one line per file, flushed, so that a loader that crashes still shows how far it got.
_DLOPEN_CHILD = """
import ctypes, sys
for path in sys.argv[1:]:
    try:
        ctypes.CDLL(path)
    except OSError as e:
        print("fail", path, str(e).replace("\\n", " "), sep="\\t", flush=True)
        break
    print("ok", path, sep="\\t", flush=True)
"""

# The dynamic loader's reasons, worded for a user (glibc's strings, matched as substrings).
_LOADER_REASONS = (
    ("file too short", "an empty or truncated file"),
    ("invalid ELF header", "not a shared library: an empty, truncated or overwritten file"),
    ("ELF file data encoding", "built for another architecture"),
    ("wrong ELF class", "built for another architecture"),
    ("ELF file OS ABI", "built for another system"),
    ("ELF load command", "a truncated or damaged file"),
    ("failed to map segment", "a truncated or damaged file"),
    ("cannot read file data", "unreadable: a damaged file or disk"),
)
_NOT_FOUND = "cannot open shared object file: No such file or directory"
# LD_DEBUG=libs lines that name the library the loader works on: the last one before a crash is the culprit.
_LD_DEBUG_FILE = re.compile(r"(?:trying file=|calling init: )(\S+)\s*$")


@dataclass(frozen=True)
class LoadFailure:
    """A file Qt needs that the dynamic loader cannot load, as :func:`load_failure` found it.

    Attributes
    ----------
    file : str
        The file that was being loaded (the platform plugin or a Qt library the lab imports).
    library : str
        The library the loader failed on: a path, or a soname when it was not found.
    reason : str
        The loader's own reason (``"file too short"``), or what happened when the loader crashed.
    """

    file: str
    library: str
    reason: str

    @property
    def not_found(self) -> bool:
        """True when the library is simply missing (the loader found no file of that name)."""
        return self.reason == _NOT_FOUND


def load_failure(files: list[Path], timeout: float = 30.0) -> LoadFailure | None:
    """Load ``files`` in order in a child process with ``dlopen``; the first failure, or None if all load.

    ``ldd`` only reports libraries that are not found; a library that is
    found but cannot be loaded (empty, truncated, another architecture)
    makes Qt abort, and a truncated one can crash the loader itself (SIGBUS),
    so only loading them tells. The child runs this interpreter with this
    process's environment (``LD_LIBRARY_PATH`` included), as Qt's loading
    will. When the child crashes it is run once more with ``LD_DEBUG=libs``
    to name the library the loader was working on. None also when the
    check cannot be made (no interpreter to run, no answer in ``timeout``).
    """
    if not files or not sys.executable:
        return None
    cmd = [sys.executable, "-I", "-S", "-c", _DLOPEN_CHILD, *map(str, files)]
    env = {**os.environ, "LC_ALL": "C"}
    env.pop("LD_DEBUG", None)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
    except (OSError, subprocess.SubprocessError):
        return None
    loaded = set()
    for line in proc.stdout.splitlines():
        parts = line.split("\t")
        if parts[0] == "ok" and len(parts) == 2:
            loaded.add(parts[1])
        elif parts[0] == "fail" and len(parts) == 3:
            library, _, reason = parts[2].partition(": ")
            return LoadFailure(parts[1], library, reason or parts[2])
    if proc.returncode >= 0:  # all loaded (or the interpreter itself could not start: nothing to tell)
        return None
    file = next((str(f) for f in files if str(f) not in loaded), str(files[-1]))
    try:
        sig = signal.Signals(-proc.returncode).name
    except ValueError:
        sig = f"signal {-proc.returncode}"
    library = file
    try:
        debug = subprocess.run(
            cmd, capture_output=True, text=True, env={**env, "LD_DEBUG": "libs"}, timeout=timeout, errors="replace"
        )
        named = [m.group(1) for m in map(_LD_DEBUG_FILE.search, debug.stderr.splitlines()) if m]
        if debug.returncode < 0 and named:
            library = named[-1]
    except (OSError, subprocess.SubprocessError):
        pass
    return LoadFailure(file, library, f"the dynamic loader crashes on it with {sig}")


def _in_ld_library_path(path: str, environ) -> str | None:
    """The ``LD_LIBRARY_PATH`` entry holding ``path``, if the loader found it through that variable."""
    folder = os.path.realpath(os.path.dirname(path))
    for entry in environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        if entry and os.path.realpath(entry) == folder:
            return entry
    return None


def unloadable_message(
    platform: str, failure: LoadFailure, in_plugin: bool = True, apt: bool | None = None, environ=None
) -> str:
    """The one line for a library that is found but cannot be loaded (without the ``sudoku-lab: error:`` prefix).

    Names the file, the loader's reason in words, and the fix: the Debian
    package to reinstall (from :data:`SONAME_PACKAGES`), or, for a file the
    loader found through ``LD_LIBRARY_PATH``, that folder.
    """
    env = os.environ if environ is None else environ  # the loader's environment: this process's
    name = os.path.basename(failure.library)
    if failure.not_found:
        return missing_message(platform, [name], in_plugin, apt)
    if apt is None:
        apt = shutil.which("apt-get") is not None
    what = f"Qt cannot load its {platform} platform plugin" if in_plugin else "Qt's libraries cannot load"
    gloss = next((g for key, g in _LOADER_REASONS if key in failure.reason), "")
    if "crashes" in failure.reason:
        gloss = "a truncated or damaged file"
    why = f"{failure.reason}: {gloss}" if gloss else failure.reason
    package = SONAME_PACKAGES.get(name)
    entry = _in_ld_library_path(failure.library, env) if "/" in failure.library else None
    if entry is not None:
        fix = (
            f"it comes first through LD_LIBRARY_PATH ({entry}): remove it from there, or that folder from "
            "LD_LIBRARY_PATH" + (f" (the system's own copy is in the package {package})" if package else "")
        )
    elif package and apt:
        fix = f"reinstall it with: sudo apt-get install --reinstall {package}"
    elif package:
        fix = f"reinstall the system package that provides it (Debian/Ubuntu name: {package})"
    else:
        fix = "reinstall the package that provides it" + (f" (dpkg -S {failure.library})" if apt else "")
    return f"{what}: {failure.library} cannot be loaded ({why}); {fix} ({_README_HINT})"


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
    worker = threading.Thread(
        target=lambda: result.append(_xcb_connect(display)), daemon=True, name="sudoku-lab display check"
    )
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
            why = (
                "the X server there refused the connection (no permission: check XAUTHORITY, "
                "or run `xhost +si:localuser:$USER` on that display)"
            )
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


def check_platform(
    name: str, qt_dir: Path, environ=None, apt: bool | None = None, connect_timeout: float = _CONNECT_TIMEOUT
) -> Problem | None:
    """Whether Qt can start on platform plugin ``name``; a :class:`Problem` if it cannot.

    Checks, in Qt's own order: the plugin exists, the shared libraries of the
    plugin and of the Qt libraries the lab loads are all found
    (:func:`missing_libraries`) and load (:func:`load_failure`), and (xcb,
    wayland) the display answers.
    """
    env = os.environ if environ is None else environ
    plugin = plugin_file(qt_dir, name, env)
    if plugin is None:
        return Problem(
            name,
            "plugin",
            f"Qt has no platform plugin {name!r} (QT_QPA_PLATFORM="
            f"{env.get('QT_QPA_PLATFORM', '')!r}; available: {', '.join(_available_plugins(qt_dir))})",
        )
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
        return Problem(name, "missing", missing_message(name, sonames, str(plugin) in missing, apt), tuple(sonames))
    # The Qt libraries first: a library both need is then reported as the Qt libraries' problem.
    failure = load_failure([*files[1:], plugin])
    if failure is not None:
        return Problem(
            name,
            "missing" if failure.not_found else "unloadable",
            unloadable_message(name, failure, failure.file == str(plugin), apt),
            (os.path.basename(failure.library),),
        )
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
    missing or unloadable library (installing those packages is the fix),
    else the first problem. Off Linux, or without PySide6 where expected, there is
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
    first_missing = next((p for p in problems if p.kind in ("missing", "unloadable")), None)
    return (first_missing or problems[0]).message
