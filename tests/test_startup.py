"""Starting the lab window: the real app on Qt's xcb platform, and the one-line refusals.

Qt aborts the process (SIGABRT, a core dump) when its platform plugin cannot
load or cannot reach the display; ``sudoku_lab_ui._platform.preflight`` must say so in one
line first. These tests run the installed ``sudoku-lab`` command with
QT_QPA_PLATFORM removed (the widget tests in tests/gui run offscreen, which
never loads the xcb plugin), check the diagnosis on fabricated ``ldd`` output,
and prove on Debian that the README's package list covers every system library
PySide6's Qt loads.
"""

from __future__ import annotations

import ctypes
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sudoku_lab_ui import _platform

IN_CI = os.environ.get("CI") == "true"
QT_MARKER = "<!-- qt-runtime-packages -->"


def _need(ok: bool, reason: str) -> None:
    """Skip with ``reason`` unless CI=true, where .ci/run installs the tool and its absence is a failure."""
    if not ok:
        if IN_CI:
            pytest.fail(f"{reason} (CI=true, and .ci/run installs it)")
        pytest.skip(reason)


def _sudoku_lab() -> Path:
    exe = Path(sys.executable).parent / "sudoku-lab"
    _need(exe.is_file(), f"the installed sudoku-lab command is not next to {sys.executable}")
    return exe


def _app_env(tmp_path: Path, display: str) -> dict:
    """The environment of a user on an X desktop: no QT_QPA_PLATFORM, no Wayland, fresh settings."""
    env = dict(os.environ)
    for var in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XDG_SESSION_TYPE"):
        env.pop(var, None)
    env["DISPLAY"] = display
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # QSettings: no saved layout from a real user
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # crash reports, if any, stay in the test
    return env


def _unused_display() -> int:
    """An X display number nothing listens on (no socket file, no abstract socket, no lock)."""
    try:
        abstract = Path("/proc/net/unix").read_text()
    except OSError:
        abstract = ""
    for n in range(150, 400):
        if (
            not Path(f"/tmp/.X11-unix/X{n}").exists()
            and not Path(f"/tmp/.X{n}-lock").exists()
            and f"@/tmp/.X11-unix/X{n}\n" not in abstract
        ):
            return n
    pytest.skip("no unused X display number between 150 and 400")


def readme_qt_packages(readme: Path) -> list[str]:
    """The packages of the README's ``sudo apt-get install`` line under the qt-runtime-packages marker.

    Mirrors ``.ci/run``'s reading (the first such line within three lines after the marker).
    """
    lines = readme.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if QT_MARKER in line:
            for follow in lines[i + 1 : i + 4]:
                if "sudo apt-get install " in follow:
                    return follow.split("sudo apt-get install ", 1)[1].split()
    pytest.fail(f"README.md has no `sudo apt-get install` line after {QT_MARKER}")


# ---------------------------------------------------------------- which plugin Qt picks
@pytest.mark.parametrize(
    "env, expected",
    [
        ({"DISPLAY": ":0"}, ["xcb"]),
        ({}, ["xcb"]),  # Qt's compiled-in default; run_app refuses earlier without any display variable
        ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}, ["xcb"]),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, ["wayland", "xcb"]),
        ({"WAYLAND_DISPLAY": "wayland-0"}, ["wayland", "xcb"]),
        ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland"}, ["wayland", "xcb"]),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, ["offscreen"]),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, ["wayland", "xcb"]),
        ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, ["vnc"]),
    ],
)
def test_platform_choice_follows_qt6(env, expected):
    assert _platform.qt_platforms(env) == expected


# ---------------------------------------------------------------- ldd diagnosis
LDD_TWO_FILES = textwrap.dedent("""\
    /x/PySide6/Qt/plugins/platforms/libqxcb.so:
    \tlinux-vdso.so.1 (0x00007ffd3a1f2000)
    \tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f1be3a00000)
    \tlibxcb-cursor.so.0 => not found
    \tlibxkbcommon-x11.so.0 => not found
    \tlibxcb-cursor.so.0 => not found
    \tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f1be1be3000)
    /x/PySide6/QtWidgets.abi3.so:
    \tlibQt6Widgets.so.6 => /x/PySide6/Qt/lib/libQt6Widgets.so.6 (0x00007f1be3000000)
    \tlibEGL.so.1 => not found
    """)


def test_parse_ldd_collects_not_found_sonames_per_file():
    got = _platform.parse_ldd(LDD_TWO_FILES)
    assert got == {
        "/x/PySide6/Qt/plugins/platforms/libqxcb.so": ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0"],
        "/x/PySide6/QtWidgets.abi3.so": ["libEGL.so.1"],
    }
    one = "\tlinux-vdso.so.1 (0x1)\n\tlibGL.so.1 => not found\n\tlibc.so.6 => /lib/libc.so.6 (0x2)\n"
    assert _platform.parse_ldd(one, ["/x/libqxcb.so"]) == {"/x/libqxcb.so": ["libGL.so.1"]}
    assert _platform.parse_ldd("\tlibc.so.6 => /lib/libc.so.6 (0x2)\n", ["/x/a.so"]) == {}


def test_missing_message_names_sonames_and_debian_packages():
    msg = _platform.missing_message("xcb", ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0"], apt=True)
    assert msg == (
        "Qt cannot load its xcb platform plugin: missing libxcb-cursor.so.0, libxkbcommon-x11.so.0; "
        "install them with: sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0 "
        "(the README lists every library the lab needs)"
    )
    # two sonames of one package name it once
    assert "sudo apt-get install libglib2.0-0 (" in _platform.missing_message(
        "xcb", ["libglib-2.0.so.0", "libgthread-2.0.so.0"], apt=True
    )
    # a soname the table does not know is still named, with a way to find its package
    odd = _platform.missing_message("xcb", ["libGL.so.1", "libweird.so.3"], apt=True)
    assert "sudo apt-get install libgl1, plus the packages that provide libweird.so.3 " in odd
    assert "apt-file search libweird.so.3" in odd
    # without apt-get the Debian names are given as a hint, not as a command
    other = _platform.missing_message("xcb", ["libEGL.so.1"], in_plugin=False, apt=False)
    assert other.startswith("Qt's libraries cannot load: missing libEGL.so.1; ")
    assert "apt-get" not in other and "Debian/Ubuntu names: libegl1" in other
    assert "\n" not in msg + odd + other


@pytest.fixture
def fake_ldd(tmp_path, monkeypatch):
    """Put an ``ldd`` on PATH that prints ``text`` as if for the files it is given."""
    bindir = tmp_path / "bin"
    bindir.mkdir()

    def install(text: str) -> None:
        script = bindir / "ldd"
        script.write_text("#!/bin/sh\ncat <<'EOF'\n" + text + "EOF\n")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")

    return install


def _real_qt_dir() -> Path:
    qt = _platform.pyside_qt_dir()
    assert qt is not None, "PySide6 is a dependency of the lab and must be importable"
    return qt


def test_preflight_reports_fabricated_missing_xcb_libraries(fake_ldd):
    qt = _real_qt_dir()
    plugin = qt / "plugins" / "platforms" / "libqxcb.so"
    fake_ldd(
        f"{plugin}:\n\tlibxcb-cursor.so.0 => not found\n\tlibxcb-icccm.so.4 => not found\n"
        f"{_platform.qt_libraries(qt)[0]}:\n\tlibxkbcommon-x11.so.0 => not found\n"
    )
    msg = _platform.preflight({"DISPLAY": ":0"}, apt=True)
    assert msg == (
        "Qt cannot load its xcb platform plugin: missing libxcb-cursor.so.0, libxcb-icccm.so.4, "
        "libxkbcommon-x11.so.0; install them with: sudo apt-get install libxcb-cursor0 libxcb-icccm4 "
        "libxkbcommon-x11-0 (the README lists every library the lab needs)"
    )
    # Qt falls back from wayland to xcb; when both fail, the fix to report is the missing libraries
    assert (
        _platform.preflight(
            {"DISPLAY": ":0", "WAYLAND_DISPLAY": "nowhere-1", "XDG_RUNTIME_DIR": "/nonexistent"}, apt=True
        )
        == msg
    )


def test_preflight_without_ldd_skips_the_library_check(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no ldd: a system without glibc
    assert _platform.missing_libraries([Path(sys.executable)]) is None
    assert _platform.preflight({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_unknown_platform_and_missing_display_are_named():
    msg = _platform.preflight({"QT_QPA_PLATFORM": "nosuchplatform"})
    assert (
        msg.startswith("Qt has no platform plugin 'nosuchplatform' (QT_QPA_PLATFORM='nosuchplatform'; available: ")
        and "xcb" in msg
        and "offscreen" in msg
    )
    assert (
        _platform.preflight({"QT_QPA_PLATFORM": "xcb"}) == "no X display to open the lab window on (DISPLAY is not set)"
    )


def test_unreachable_display_is_named_by_the_check():
    n = _unused_display()
    why = _platform.xcb_connect_error(f":{n}")
    assert why == (
        f"cannot connect to the X display ':{n}' (DISPLAY is set but no X server answers: a stale `ssh -X` session?)"
    )
    assert "not a valid X display name" in _platform.xcb_connect_error("no display here")


def test_a_display_that_never_answers_times_out():
    """A 'server' that accepts the connection and never replies (a hung remote display) must not hang the lab."""
    import socket

    server = socket.socket()
    try:
        for port in range(6150, 6400):  # X display N listens on TCP port 6000 + N
            try:
                server.bind(("127.0.0.1", port))
                break
            except OSError:
                continue
        else:
            pytest.skip("no free TCP port between 6150 and 6400")
        server.listen(1)
        display = f"127.0.0.1:{port - 6000}"
        assert (
            _platform.xcb_connect_error(display, timeout=0.5)
            == f"the X display '{display}' does not answer (no reply within 0.5 s)"
        )
    finally:
        server.close()  # the checking thread then sees the connection end and finishes


# ---------------------------------------------------------------- the real installation
def test_real_pyside6_misses_no_library():
    """What proves the README's list on CI: ldd finds every library of the xcb plugin and the lab's Qt."""
    _need(shutil.which("ldd") is not None, "ldd is not available (not a glibc system)")
    qt = _real_qt_dir()
    files = [_platform.plugin_file(qt, "xcb", {}), *_platform.qt_libraries(qt)]
    assert None not in files and len(files) >= 3
    assert _platform.missing_libraries(files) == {}
    assert _platform.preflight({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_unreachable_display_exits_2_with_one_line(tmp_path):
    n = _unused_display()
    proc = subprocess.run(
        [str(_sudoku_lab())], env=_app_env(tmp_path, f":{n}"), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, f"status {proc.returncode} (-6 or 134 is Qt's abort); stderr:\n{proc.stderr}"
    lines = proc.stderr.splitlines()
    assert lines == [
        f"sudoku-lab: error: cannot connect to the X display ':{n}' (DISPLAY is set but no X "
        "server answers: a stale `ssh -X` session?); the headless commands work anywhere: see "
        "sudoku-lab --help"
    ], proc.stderr
    assert proc.stdout == ""


# ---------------------------------------------------------------- the real app under Xvfb
class _Xvfb:
    """An Xvfb server on a display number it picks itself (-displayfd), stopped on exit."""

    def __init__(self, size: str = "1920x1200x24"):
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", size, "-nolisten", "tcp"],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        number = b""
        deadline = time.monotonic() + 120
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read_fd], [], [], 1.0)
            if ready:
                chunk = os.read(read_fd, 16)
                if not chunk:
                    break
                number += chunk
        os.close(read_fd)
        if not number.strip().isdigit():
            self.close()
            pytest.fail("Xvfb did not report its display number within 120 s")
        self.display = f":{int(number)}"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _xdotool(display: str, *args: str, timeout: float = 30) -> str:
    proc = subprocess.run(
        ["xdotool", *args], env={**os.environ, "DISPLAY": display}, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, f"xdotool {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def _window_colours(display: str, window: int, width: int, height: int, step: int = 6) -> int:
    """Distinct colours in a grid of the window's pixels (XGetImage through libX11, which Qt needs anyway)."""
    x11 = ctypes.CDLL("libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XGetImage.restype = ctypes.c_void_p
    x11.XGetImage.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_uint,
        ctypes.c_ulong,
        ctypes.c_int,
    ]
    x11.XGetPixel.restype = ctypes.c_ulong
    x11.XGetPixel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    x11.XDestroyImage.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = x11.XOpenDisplay(display.encode())
    assert dpy, f"cannot open {display} to read the window's pixels"
    try:
        all_planes, z_pixmap = 0xFFFFFFFF, 2
        image = x11.XGetImage(dpy, window, 0, 0, width, height, all_planes, z_pixmap)
        assert image, "XGetImage failed"
        try:
            return len({x11.XGetPixel(image, x, y) for y in range(0, height, step) for x in range(0, width, step)})
        finally:
            x11.XDestroyImage(image)
    finally:
        x11.XCloseDisplay(dpy)


@pytest.mark.gui
def test_real_app_opens_and_closes_on_xcb_under_xvfb(tmp_path):
    """The installed command, Qt's real xcb plugin, closed with Ctrl+Q like a user."""
    _need(shutil.which("Xvfb") is not None, "Xvfb is not installed (Debian: xvfb)")
    _need(shutil.which("xdotool") is not None, "xdotool is not installed")
    exe = _sudoku_lab()
    xvfb = _Xvfb()
    app = None
    err = open(tmp_path / "stderr", "w+")  # a file, not a pipe: nobody reads it while the app runs
    try:
        env = _app_env(tmp_path, xvfb.display)
        app = subprocess.Popen([str(exe)], env=env, stdout=subprocess.DEVNULL, stderr=err)
        # --sync waits until the window is mapped; the first start may compile numba kernels first
        found = subprocess.run(
            ["xdotool", "search", "--sync", "--onlyvisible", "--name", "Sudoku Lab"],
            env={**os.environ, "DISPLAY": xvfb.display},
            capture_output=True,
            text=True,
            timeout=300,
        )
        err.seek(0)
        assert found.returncode == 0 and found.stdout.split(), (
            f"no Sudoku Lab window (app status {app.poll()}); its stderr:\n{err.read()}"
        )
        window = int(found.stdout.split()[0])
        geometry = dict(
            line.split("=", 1) for line in _xdotool(xvfb.display, "getwindowgeometry", "--shell", str(window)).split()
        )
        width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
        assert width >= 400 and height >= 300, geometry
        colours, deadline = 0, time.monotonic() + 300  # a guard: the loop ends as soon as the window is drawn
        while colours < 16 and time.monotonic() < deadline:  # drawn: board, docks, heatmap
            time.sleep(0.5)
            colours = _window_colours(xvfb.display, window, width, height)
        assert colours >= 16, f"the window stays blank ({colours} colours)"
        if shutil.which("import"):  # a screenshot to look at when this fails (ImageMagick, optional)
            subprocess.run(
                ["import", "-display", xvfb.display, "-window", str(window), str(tmp_path / "window.png")],
                capture_output=True,
                timeout=60,
            )
        _xdotool(xvfb.display, "windowfocus", "--sync", str(window), "key", "--clearmodifiers", "ctrl+q")
        status = app.wait(300)
        err.seek(0)
        stderr = err.read()
        assert status == 0, f"exit status {status}; stderr:\n{stderr}"
        assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    finally:
        if app is not None and app.poll() is None:
            app.send_signal(signal.SIGKILL)
            app.wait()
        err.close()
        xvfb.close()


# ---------------------------------------------------------------- libraries that are there but do not load
def _system_copy(soname: str) -> Path:
    """The system's own file for ``soname`` (as the loader resolves it for the xcb plugin)."""
    qt = _real_qt_dir()
    for f in (_platform.plugin_file(qt, "xcb", {}), *_platform.qt_libraries(qt)):
        path = _ldd_paths(f).get(soname)
        if path:
            return Path(path)
    pytest.fail(f"no Qt file of the lab loads {soname}")


def _broken_copy(tmp_path: Path, soname: str, how: str) -> Path:
    """A folder holding an unloadable ``soname``: empty, truncated, or built for another architecture."""
    folder = tmp_path / f"broken-{how}"
    folder.mkdir()
    data = bytearray(_system_copy(soname).read_bytes())
    if how == "empty":
        data = bytearray()
    elif how == "truncated":  # the ELF header and program headers stay, the segments they map are gone
        data = data[:4000]
    elif how == "big-endian":  # as a big-endian machine's library (s390x, ppc64) would read here
        data[5] = 2  # e_ident[EI_DATA] = ELFDATA2MSB
    elif how == "aarch64":
        data[18:20] = (183).to_bytes(2, "little")  # e_machine = EM_AARCH64
    (folder / soname).write_bytes(bytes(data))
    return folder


def _hint_package(line: str) -> str:
    m = re.search(r"the system's own copy is in the package (\S+)\)", line)
    assert m, f"no package named in: {line}"
    return m.group(1)


@pytest.fixture(scope="module")
def xvfb_display():
    _need(shutil.which("Xvfb") is not None, "Xvfb is not installed (Debian: xvfb)")
    server = _Xvfb("1366x768x24")
    yield server.display
    server.close()


# Qt's own hint names libxcb-cursor0 whatever fails; the line must name the library that fails and its package.
@pytest.mark.gui  # the installed lab on an X display: a broken load check opens the window
@pytest.mark.parametrize(
    "soname, how, reason",
    [
        ("libxcb-cursor.so.0", "empty", "file too short: an empty or truncated file"),
        (
            "libxkbcommon-x11.so.0",
            "truncated",
            "the dynamic loader crashes on it with SIGBUS: a truncated or damaged file",
        ),
        ("libxcb-icccm.so.4", "big-endian", "ELF file data encoding not little-endian: built for another architecture"),
    ],
)
def test_an_unloadable_xcb_library_exits_2_with_one_line(tmp_path, xvfb_display, soname, how, reason):
    """The installed command, a real X display, a broken copy of a library first on LD_LIBRARY_PATH.

    Without the load check ldd finds every library (or itself fails, printing nothing), and Qt aborts
    (SIGABRT) or the process dies of SIGBUS.
    """
    _need(shutil.which("ldd") is not None, "ldd is not available (not a glibc system)")
    folder = _broken_copy(tmp_path, soname, how)
    env = {**_app_env(tmp_path, xvfb_display), "LD_LIBRARY_PATH": str(folder)}
    try:
        proc = subprocess.run([str(_sudoku_lab())], env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the lab window opened with a broken library instead of refusing to start")
    assert proc.returncode == 2, f"status {proc.returncode} (-6 is Qt's abort, -7 SIGBUS); stderr:\n{proc.stderr}"
    lines = proc.stderr.splitlines()
    package = _platform.SONAME_PACKAGES[soname]
    assert lines == [
        f"sudoku-lab: error: Qt cannot load its xcb platform plugin: {folder / soname} cannot be loaded "
        f"({reason}); it comes first through LD_LIBRARY_PATH ({folder}): remove it from there, or that "
        f"folder from LD_LIBRARY_PATH (the system's own copy is in the package {package}) (the README "
        "lists every library the lab needs)"
    ], proc.stderr
    assert proc.stdout == ""
    if Path("/etc/debian_version").exists() and shutil.which("dpkg"):  # the table's package is dpkg's
        owner = _dpkg_owners([str(_system_copy(soname))])[str(_system_copy(soname))]
        assert _hint_package(lines[0]) == owner or owner.startswith(package + "t64"), (package, owner)


def test_a_library_of_another_architecture_that_the_loader_skips_is_no_problem(tmp_path, monkeypatch):
    """glibc skips a file of another machine on its search path and loads the system's copy: Qt starts,
    so the check must not refuse it (a check of file headers instead of loading would)."""
    _need(shutil.which("ldd") is not None, "ldd is not available (not a glibc system)")
    folder = _broken_copy(tmp_path, "libxcb-cursor.so.0", "aarch64")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(folder))
    qt = _real_qt_dir()
    assert _platform.load_failure([*_platform.qt_libraries(qt), _platform.plugin_file(qt, "xcb", {})]) is None


def test_unloadable_libraries_of_qt_itself_and_of_the_system(tmp_path, monkeypatch):
    """A broken library of QtGui is Qt's libraries' problem; a broken system copy is reinstalled with apt."""
    _need(shutil.which("ldd") is not None, "ldd is not available (not a glibc system)")
    folder = _broken_copy(tmp_path, "libfontconfig.so.1", "empty")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(folder))
    msg = _platform.preflight({"QT_QPA_PLATFORM": "offscreen"}, apt=True)
    assert msg == (
        f"Qt's libraries cannot load: {folder}/libfontconfig.so.1 cannot be loaded (file too short: an "
        f"empty or truncated file); it comes first through LD_LIBRARY_PATH ({folder}): remove it from "
        "there, or that folder from LD_LIBRARY_PATH (the system's own copy is in the package "
        "libfontconfig1) (the README lists every library the lab needs)"
    )
    system = _platform.LoadFailure("/x/libqxcb.so", "/usr/lib/x86_64-linux-gnu/libxcb-randr.so.0", "invalid ELF header")
    assert _platform.unloadable_message("xcb", system, apt=True, environ={}) == (
        "Qt cannot load its xcb platform plugin: /usr/lib/x86_64-linux-gnu/libxcb-randr.so.0 cannot be loaded "
        "(invalid ELF header: not a shared library: an empty, truncated or overwritten file); reinstall it with: "
        "sudo apt-get install --reinstall libxcb-randr0 (the README lists every library the lab needs)"
    )
    gone = _platform.LoadFailure("/x/libqxcb.so", "libxcb-cursor.so.0", _platform._NOT_FOUND)
    assert _platform.unloadable_message("xcb", gone, apt=True) == _platform.missing_message(
        "xcb", ["libxcb-cursor.so.0"], apt=True
    )


# ---------------------------------------------------------------- the README's package list (Debian)
def _elf_needed(path: Path) -> list[str]:
    """DT_NEEDED entries of a 64-bit little-endian ELF file (its dynamic section, read directly)."""
    import struct

    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, f"{path} is not a 64-bit LE ELF file"
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    needed = []
    for _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if sh_type != 6:  # SHT_DYNAMIC
            continue
        str_off = sections[link][4]
        for pos in range(offset, offset + size, entsize or 16):
            tag, val = struct.unpack_from("<qQ", data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                end = data.index(b"\0", str_off + val)
                needed.append(data[str_off + val : end].decode())
    return needed


def _ldd_paths(path: Path) -> dict[str, str]:
    """soname -> resolved path, as the dynamic loader resolves them for ``path``."""
    out = subprocess.run(
        ["ldd", str(path)], capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}, timeout=60
    ).stdout
    return {m.group(1): m.group(2) for m in re.finditer(r"^\s*(\S+) => (/\S+)", out, re.M)}


def _dpkg_owners(paths: list[str]) -> dict[str, str]:
    """path -> Debian package for each path (tried as given, resolved, and across the /usr merge)."""
    candidates = {}
    for p in paths:
        real = os.path.realpath(p)
        forms = [p, real]
        for f in (p, real):
            forms.append(f[4:] if f.startswith("/usr/") else "/usr" + f)
        candidates[p] = list(dict.fromkeys(forms))
    query = sorted({f for forms in candidates.values() for f in forms})
    out = subprocess.run(["dpkg", "-S", *query], capture_output=True, text=True, timeout=120).stdout
    owner = {}
    for line in out.splitlines():
        if line.startswith("diversion ") or ": " not in line:
            continue
        pkgs, path = line.split(": ", 1)
        owner[path.strip()] = pkgs.split(",")[0].strip().split(":")[0]
    return {p: next((owner[f] for f in forms if f in owner), "") for p, forms in candidates.items()}


def _base_system_packages() -> set[str]:
    """Packages every Debian has: Essential or Priority required ones and everything they depend on.

    Debian 12 gives libc6, libstdc++6 and zlib1g Priority "optional"; they are
    on every system because dpkg and apt (Essential, required) depend on them.
    """
    fmt = "${Package}\t${Essential}\t${Priority}\t${Pre-Depends}, ${Depends}\t${Provides}\t${db:Status-Abbrev}\n"
    out = subprocess.run(["dpkg-query", "-W", f"-f={fmt}"], capture_output=True, text=True, timeout=120).stdout
    deps, provides, roots = {}, {}, []
    for line in out.splitlines():
        name, essential, priority, depends, provided, status = line.split("\t")
        if not status.startswith("ii"):
            continue
        deps[name] = depends
        for p in provided.split(","):
            p = re.sub(r"\(.*?\)", "", p).strip().split(":")[0]
            if p:
                provides.setdefault(p, []).append(name)
        if essential == "yes" or priority == "required":
            roots.append(name)
    seen, todo = set(roots), list(roots)
    while todo:
        for clause in deps[todo.pop()].split(","):
            for alt in clause.split("|"):
                dep = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip().split(":")[0]
                for pkg in [dep] if dep in deps else provides.get(dep, []):
                    if pkg not in seen:
                        seen.add(pkg)
                        todo.append(pkg)
    return seen


def _lab_elf_files(qt: Path) -> list[Path]:
    """PySide6's ELF files the lab loads on xcb (measured from /proc/PID/maps of the running lab)."""
    pyside, shiboken = qt.parent, qt.parent.parent / "shiboken6"
    files = [
        p
        for mod in ("QtCore", "QtGui", "QtWidgets", "QtSvg", "QtOpenGL", "QtOpenGLWidgets", "QtTest")
        for p in pyside.glob(f"{mod}.*.so")
    ]
    files += list(pyside.glob("libpyside6.*.so*")) + list(shiboken.glob("libshiboken6.*.so*"))
    files += [
        qt / "lib" / f"libQt6{m}.so.6"
        for m in ("Core", "Gui", "Widgets", "Svg", "DBus", "OpenGL", "OpenGLWidgets", "Test", "XcbQpa")
    ]
    files += [
        qt / "plugins" / "platforms" / "libqxcb.so",
        qt / "plugins" / "platforminputcontexts" / "libcomposeplatforminputcontextplugin.so",
    ]
    return files


def _system_needs(qt: Path) -> dict[str, tuple[str, str]]:
    """soname -> (resolved path, the PySide6 file needing it) for every direct need outside the wheel."""
    wheel_dirs = (str(qt.parent), str(qt.parent.parent / "shiboken6"))
    needs = {}
    for f in _lab_elf_files(qt):
        assert f.is_file(), f"{f} is gone: update _lab_elf_files for this PySide6"
        resolved = _ldd_paths(f)
        for soname in _elf_needed(f):
            path = resolved.get(soname)
            if soname.startswith("ld-linux") or (path and path.startswith(wheel_dirs)):
                continue
            assert path, f"{f.name} needs {soname}, which the loader does not find"
            needs.setdefault(soname, (path, f.name))
    return needs


@pytest.fixture(scope="module")
def debian():
    if not Path("/etc/debian_version").exists():
        pytest.skip("not Debian or Ubuntu: the README's apt-get line is for them")
    _need(shutil.which("dpkg") is not None and shutil.which("dpkg-query") is not None, "dpkg is not available")
    _need(shutil.which("ldd") is not None, "ldd is not available")
    return _real_qt_dir()


def test_readme_lists_exactly_the_packages_pyside6_needs(debian, repo_root):
    """Each system library PySide6's Qt needs directly comes from a README package or the base system;
    each README package provides one of them (transitive dependencies come with apt)."""
    listed = readme_qt_packages(repo_root / "README.md")
    needs = _system_needs(debian)
    owners = _dpkg_owners([path for path, _ in needs.values()])
    base = _base_system_packages()
    unowned = [s for s, (path, _) in needs.items() if not owners[path]]
    assert not unowned, f"no Debian package owns {unowned}"
    by_package = {}
    for soname, (path, user) in sorted(needs.items()):
        owner = owners[path]
        if owner.endswith("t64") and owner[:-3] in listed:  # Debian 13 / Ubuntu 24.04 time_t renames: apt
            owner = owner[:-3]  # installs libglib2.0-0t64 for libglib2.0-0
        by_package.setdefault(owner, []).append(f"{soname} ({user})")
    not_listed = {p: s for p, s in by_package.items() if p not in listed and p not in base}
    assert not not_listed, f"add to the README's apt-get line: {not_listed}"
    unneeded = [p for p in listed if p not in by_package]
    assert not unneeded, f"the README lists packages no PySide6 file the lab loads needs: {unneeded}"
    assert len(listed) == len(set(listed)), listed


def test_soname_table_agrees_with_dpkg(debian):
    """The package names in the one-line advice are the ones dpkg knows, for every library Qt loads."""
    qt = debian
    closure = {}
    for f in [*_lab_elf_files(qt), qt / "plugins" / "platforms" / "libqoffscreen.so"]:
        closure.update(_ldd_paths(f))
    wheel = str(qt.parent.parent)
    system = {s: p for s, p in closure.items() if not p.startswith(wheel) and not s.startswith("ld-linux")}
    owners = _dpkg_owners(list(system.values()))
    table = _platform.SONAME_PACKAGES
    unknown = sorted(s for s in system if s not in table)
    assert not unknown, f"add these to sudoku_lab_ui._platform.SONAME_PACKAGES: {unknown}"
    wrong = {
        s: (table[s], owners[p])
        for s, p in system.items()
        if owners[p] and table[s] != owners[p] and not owners[p].startswith(table[s] + "t64")
    }  # Ubuntu 24.04's time_t renames, apt maps them
    assert not wrong, f"soname: (table, dpkg) {wrong}"


def test_ci_installs_exactly_the_readme_list(repo_root, tmp_path):
    """.ci/run reads the package list from the README itself; both readings agree."""
    # Only the tools the listing needs are on PATH: should .ci/run ever ignore the option, it
    # fails at once instead of installing packages and running the whole suite from inside it.
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("awk", "dirname"):
        (tools / tool).symlink_to(shutil.which(tool))
    proc = subprocess.run(
        [shutil.which("bash"), str(repo_root / ".ci" / "run"), "--print-qt-packages"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": str(tools), "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == readme_qt_packages(repo_root / "README.md")
