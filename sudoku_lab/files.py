"""Reading and writing the user's files with errors that say what went wrong, and where.

Every file a command reads or writes goes through here, so a missing file, a
directory, a file without read permission, binary data, a read-only directory
or a full disk is one :class:`~sudoku_lab.errors.DataFileError` naming the
path and the reason, never a traceback.

Writing (:func:`write_file`, :func:`write_text`) depends on what the path is:

- a regular file, or a name not yet taken: written to a temporary file next
  to it and renamed into place, so a full disk leaves the old file (or none),
  never half a figure;
- a symlink: followed, and the file it points to is written as above (the
  temporary file goes next to that file, so the link stays a link);
- ``-``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``: that open file,
  written directly;
- a device or a FIFO (``/dev/null``, a named pipe): written directly, never
  replaced by a regular file. A binary output (a PNG or PDF figure) is not
  written to a terminal.

Reading (:func:`read_text`, :func:`open_binary`) is bounded: a whole-file read
stops past its limit, whatever the file claims its size is, so ``/dev/zero``
is an error, not all of the memory. Results and other files that must be
seekable are read as regular files only (``streams=False``): a device, a FIFO
or a socket there is one line saying what it is.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ._checks import checked
from .errors import DataFileError

#: The public part: what the window and plugins write through. The other functions serve the core's readers
#: and writers (they keep no promise to outside code).
__all__ = ["os_reason", "write_file", "write_text", "check_figure_path"]

#: The default bound of :func:`read_text`.
MAX_TEXT_BYTES = 64 << 20


@checked
def os_reason(e: OSError) -> str:
    """The reason of an OSError in words ("permission denied", "no space left on device").

    Libraries that raise OSError without ``strerror`` (pyarrow: "error writing bytes to file. Detail:
    [errno 28] No space left on device") get the words of the errno their message names.
    """
    reason = e.strerror
    if not reason:
        m = re.search(r"\[errno (\d+)\]", str(e), re.IGNORECASE)
        reason = os.strerror(int(m.group(1))) if m else (str(e) or type(e).__name__)
    return reason[:1].lower() + reason[1:]


# ------------------------------------------------------------------ reading
def _kind_text(mode: int) -> str:
    for test, words in (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def _link_text(path: Path) -> str:
    """`` (a symlink to TARGET)`` when ``path`` is a symlink, else nothing."""
    try:
        return f" (a symlink to {os.readlink(path)})" if os.path.islink(path) else ""
    except OSError:
        return ""


def _stat_input(path: Path, what: str) -> os.stat_result:
    """The status of the file ``path`` names (symlinks followed); a DataFileError if it is missing or a directory."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise DataFileError(
                f"{what} {path} is a symlink to {os.readlink(path)}, which does not exist", path=path
            ) from None
        raise DataFileError(f"{what} {path} does not exist", path=path) from None
    except (OSError, ValueError) as e:
        reason = os_reason(e) if isinstance(e, OSError) else str(e)
        raise DataFileError(f"cannot read {what} {path}: {reason}", path=path) from None
    if stat.S_ISDIR(st.st_mode):
        raise DataFileError(f"{what} {path} is a directory, not a file", path=path)
    return st


def _not_regular(path: Path, mode: int, what: str) -> DataFileError:
    return DataFileError(f"{what} {path}{_link_text(path)} is {_kind_text(mode)}, not a regular file", path=path)


def check_regular(path, what: str = "file", *, missing_ok: bool = False) -> bool:
    """Whether the regular file ``path`` exists (a symlink to one counts); a DataFileError for anything else.

    Parameters
    ----------
    missing_ok : bool
        Return False for a missing file instead of raising.

    Raises
    ------
    DataFileError
        A directory, a device, a FIFO, a socket, a dangling symlink, or (unless
        ``missing_ok``) a missing file, in one line naming the path and what it is.
    """
    path = Path(path)
    if missing_ok and not os.path.lexists(path):
        return False
    st = _stat_input(path, what)
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode, what)
    return True


@contextmanager
def open_binary(path, what: str = "file", *, streams: bool = True) -> Iterator[BinaryIO]:
    """Open a file for reading in binary mode, with the same errors as :func:`read_text`.

    Parameters
    ----------
    streams : bool
        Accept a FIFO or a character device (read as a stream: the caller
        bounds what it reads). False: regular files only.

    Raises
    ------
    DataFileError
        Missing, a directory, unreadable, or (without ``streams``) not a regular file.
    """
    path = Path(path)
    st = _stat_input(path, what)
    regular = stat.S_ISREG(st.st_mode)
    if not regular and not (streams and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode))):
        raise _not_regular(path, st.st_mode, what)
    # O_NONBLOCK: if a FIFO took the file's place since the check, opening it must not wait for a writer.
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (getattr(os, "O_NONBLOCK", 0) if regular else 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise DataFileError(f"cannot read {what} {path}: {os_reason(e)}", path=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if regular and not stat.S_ISREG(mode):
            raise _not_regular(path, mode, what)
        if regular:
            os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_bytes(path, what: str = "file", max_bytes: int = MAX_TEXT_BYTES, *, streams: bool = True) -> bytes:
    """The bytes of a file, at most ``max_bytes`` of them (a longer file is an error, not a truncated read)."""
    path = Path(path)
    with open_binary(path, what, streams=streams) as fh:
        size = os.fstat(fh.fileno()).st_size
        if stat.S_ISREG(os.fstat(fh.fileno()).st_mode) and size > max_bytes:
            raise DataFileError(
                f"{what} {path} is {_size_text(size)}; at most {_size_text(max_bytes)} can be read in this format",
                path=path,
            )
        try:
            data = fh.read(max_bytes + 1)
        except OSError as e:
            raise DataFileError(f"cannot read {what} {path}: {os_reason(e)}", path=path) from None
    if len(data) > max_bytes:
        raise DataFileError(
            f"{what} {path} holds more than {_size_text(max_bytes)}; at most that can be read in this format", path=path
        )
    return data


def read_text(path, what: str = "file", max_bytes: int = MAX_TEXT_BYTES, *, streams: bool = True) -> str:
    """The whole text of a UTF-8 file (a BOM is dropped), read in bounded memory.

    Parameters
    ----------
    max_bytes : int
        The most that is read: a longer file, or a device that never ends
        (``/dev/zero``), is an error after at most this many bytes.
    streams : bool
        Accept a FIFO or a character device; False: regular files only.

    Raises
    ------
    DataFileError
        Missing, a directory, unreadable, longer than ``max_bytes``, not a
        regular file (without ``streams``), or not UTF-8 text (naming the line
        of the first bad byte).
    """
    path = Path(path)
    return decode(read_bytes(path, what, max_bytes, streams=streams), path, what)


def decode(data: bytes, path, what: str = "file", first_line: int = 1) -> str:
    """``data`` as UTF-8 text (BOM dropped), or a DataFileError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise DataFileError(
            f"{what} {path} is not a text file: line {line} holds a byte that is not UTF-8 (0x{data[e.start]:02x})",
            path=path,
            line=line,
        ) from None


def read_lines(fh: BinaryIO, path, what: str, max_line: int) -> Iterator[tuple[int, bytes]]:
    """Numbered lines of a binary file, each with its newline (only a last, partial, line lacks one).

    Memory is bounded by ``max_line``: a longer line is a DataFileError naming
    it, so a file of a billion bytes without a newline is refused after reading
    ``max_line`` of them.
    """
    no = 0
    while True:
        try:
            raw = fh.readline(max_line + 1)
        except OSError as e:
            raise DataFileError(f"cannot read {what} {path}: {os_reason(e)}", path=path) from None
        if not raw:
            return
        no += 1
        if len(raw) > max_line:
            raise DataFileError(
                f"{what} {path} line {no} is longer than {_size_text(max_line)}: not a {what}", path=path, line=no
            )
        yield no, raw


def _size_text(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"


# ------------------------------------------------------------------ writing
#: Names of the process's own open files: written through the descriptor, never opened by name.
_STANDARD = {"/dev/stdout": 1, "/dev/stderr": 2, "/dev/stdin": 0}
_FD_PATH = re.compile(r"/(?:dev/fd|proc/self/fd|proc/(\d+)/fd)/(\d+)")


def _fd_of(path) -> int | None:
    """The descriptor ``path`` names (``-`` and ``/dev/stdout``: 1, ``/dev/fd/N``: N), or None.

    Symlinks are followed hop by hop: a link to ``/dev/stdout`` is standard
    output too. Resolving the whole path instead would name the file standard
    output was redirected to, which a rename would then replace.
    """
    s = os.fspath(path)
    if s == "-":
        return 1
    for _ in range(40):
        s = "/" + os.path.normpath(s).lstrip("/") if s.startswith("/") else os.path.abspath(s)
        if s in _STANDARD:
            return _STANDARD[s]
        m = _FD_PATH.fullmatch(s)
        if m and (m.group(1) is None or int(m.group(1)) == os.getpid()):
            return int(m.group(2))
        try:
            link = os.readlink(s)
        except (OSError, ValueError):
            return None
        s = os.path.join(os.path.dirname(s), link)
    return None


def standard_fd(path) -> int | None:
    """The descriptor ``path`` names, if it names one of the process's open files: ``-`` and ``/dev/stdout`` 1,
    ``/dev/stderr`` 2, ``/dev/fd/N`` and ``/proc/self/fd/N`` N; else None."""
    return _fd_of(path)


class _Target:
    """What writing ``path`` writes: an open descriptor (``fd``), a device or FIFO (``stream``), or a ``file``."""

    def __init__(self, path, what: str):
        self.named = Path(path)
        self.fd = _fd_of(path)
        self.kind = "fd" if self.fd is not None else "file"
        self.path = self.named
        self.exists = False
        if self.fd is not None:
            return
        try:
            st = os.stat(self.named)
        except FileNotFoundError:
            st = None
        except (OSError, ValueError) as e:  # a symlink loop, a directory without search permission, a NUL byte
            reason = os_reason(e) if isinstance(e, OSError) else str(e)
            raise DataFileError(f"cannot write {what} {self.named}: {reason}", path=self.named) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise DataFileError(f"{what} {self.named} is a directory; give a file name", path=self.named)
        if st is not None and not stat.S_ISREG(st.st_mode):
            self.kind = "stream"
            return
        self.exists = st is not None
        # A symlink is followed: the temporary file and the rename go next to the file it points to.
        if os.path.islink(self.named) or (st is None and os.path.lexists(self.named)):
            self.path = Path(os.path.realpath(self.named))

    def terminal(self) -> bool:
        """True for standard output (or ``/dev/fd/N``) open on a terminal."""
        try:
            return self.kind == "fd" and self.fd is not None and os.isatty(self.fd)
        except OSError:
            return False


def output_kind(path, what: str = "output") -> str:
    """How :func:`write_file` writes ``path``: ``"file"`` (renamed into place), ``"stream"`` (a device or FIFO,
    written directly) or ``"fd"`` (standard output or another open descriptor)."""
    return _Target(path, what).kind


def _refuse_terminal(named: Path, what: str) -> None:
    raise DataFileError(
        f"will not write {what} {named} to a terminal (it is binary data); redirect it to a file or "
        "a pipe, or give a file name",
        path=named,
    )


def check_writable(path, what: str = "output", *, binary: bool = False) -> Path:
    """Make sure ``path`` can be written before any work starts; return it as a Path.

    For a file, creates missing parent directories and proves the directory
    writable by creating (and removing) a temporary file there: a read-only
    directory is reported now, not after an hour of runs. A device or a FIFO
    must be writable; ``-`` or ``/dev/stdout`` must be open. With ``binary``, a
    terminal is refused (a PNG or PDF is no use there).
    """
    target = _Target(path, what)
    named = target.named
    if target.kind == "fd":
        assert target.fd is not None  # kind "fd" always carries its descriptor
        try:
            os.fstat(target.fd)
        except OSError:
            raise DataFileError(
                f"cannot write {what} {named}: file descriptor {target.fd} is not open", path=named
            ) from None
    elif target.kind == "stream":
        if not os.access(target.path, os.W_OK):
            raise DataFileError(f"cannot write {what} {named}: permission denied", path=named)
    else:
        try:
            if target.path == named:
                target.path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=target.path.parent, prefix=f".{target.path.name}.", suffix=".probe"):
                pass
        except OSError as e:
            raise DataFileError(f"cannot write {what} {named}: {os_reason(e)}", path=named) from None
        if target.exists and not os.access(target.path, os.W_OK):
            raise DataFileError(f"cannot write {what} {named}: permission denied", path=named)
    if binary and target.terminal():
        _refuse_terminal(named, what)
    return named


@checked
def write_file(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], object], what: str = "output", *, binary: bool = False
) -> None:
    """Call ``write(fh)`` with a binary file that ends up as ``path``; see the module docstring for how.

    A regular file (or a new name, or a symlink's target) is written to a
    temporary file next to it and renamed into place: on any error the
    temporary file is removed and the old file is untouched, and the new file
    keeps the old one's permissions. A device, a FIFO or standard output is
    written directly; nothing that is not a regular file is ever replaced.

    Parameters
    ----------
    write : callable
        ``write(fh)`` writes everything to the binary file object ``fh``
        (which may not be seekable).
    binary : bool
        The data is binary (PNG, PDF, Parquet): refused for a terminal.

    Raises
    ------
    DataFileError
        An OSError while writing (read-only directory, full disk or device),
        or binary data for a terminal, naming ``path`` and the reason.
    """
    target = _Target(path, what)
    if binary and target.terminal():
        _refuse_terminal(target.named, what)
    try:
        if target.kind == "fd":
            assert target.fd is not None  # kind "fd" always carries its descriptor
            _write_fd(target.fd, write)
        elif target.kind == "stream":
            fd = os.open(target.path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
            with os.fdopen(fd, "wb") as fh:  # no O_CREAT, no O_TRUNC: a device or FIFO as it is
                if binary and fh.isatty():
                    _refuse_terminal(target.named, what)
                write(fh)
                fh.flush()
        else:
            _replace(target, write)
    except OSError as e:
        raise DataFileError(f"cannot write {what} {target.named}: {os_reason(e)}", path=target.named) from None


def _write_fd(fd: int, write: Callable[[BinaryIO], object]) -> None:
    stream = {1: sys.stdout, 2: sys.stderr}.get(fd)
    if stream is not None:
        stream.flush()  # what was printed before comes first
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text-only stream (a test's or an embedding's): written as text
            data = io.BytesIO()
            write(data)
            stream.write(data.getvalue().decode("utf-8", "replace"))
            stream.flush()
            return
        write(buffer)
        buffer.flush()
        return
    with os.fdopen(os.dup(fd), "wb") as fh:
        write(fh)
        fh.flush()


def _replace(target: _Target, write: Callable[[BinaryIO], object]) -> None:
    path = target.path
    if target.exists and not os.access(path, os.W_OK):
        raise PermissionError(13, "Permission denied", str(path))
    tmp = None
    try:
        # Not mkstemp: its mode 0600 would survive the rename; "x" creates with the umask's mode.
        candidate = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fh = open(candidate, "xb")
        tmp = candidate
        with fh:
            write(fh)
            fh.flush()
        if target.exists:
            try:
                os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
            except OSError:
                pass
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            try:
                tmp.unlink()
            except OSError:
                pass


@checked
def write_text(path: str | os.PathLike[str], text: str, what: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`write_file`."""
    write_file(path, lambda fh: fh.write(text.encode("utf-8")), what)


# ------------------------------------------------------------------ figures
#: Resolutions figures accept: beyond 1200 dpi a page-sized PNG takes gigabytes.
DPI_RANGE = (10, 1200)
_FIGURE_FORMATS = ("png", "svg", "pdf")


def figure_format(path) -> str:
    """The format a figure written to ``path`` takes: its suffix, or PDF for a device, FIFO or ``-``."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in _FIGURE_FORMATS else "pdf"


@checked
def check_figure_path(path: str | os.PathLike[str], dpi: int = 200) -> Path:
    """Check a figure's file name and resolution before any work: suffix, dpi, a writable directory.

    A file needs the suffix .png, .svg or .pdf; standard output, a device or
    a FIFO without one is written as PDF, and a PNG or PDF is not written to
    a terminal.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        A suffix other than .png, .svg, .pdf, or a dpi outside :data:`DPI_RANGE`.
    DataFileError
        The directory cannot be written, or binary data would go to a terminal.
    """
    from .errors import ParameterError

    path = Path(path)
    if path.suffix.lower().lstrip(".") not in _FIGURE_FORMATS and _Target(path, "figure").kind == "file":
        raise ParameterError(f"figures are written as .png, .svg or .pdf, not {path.name!r}", name="out")
    lo, hi = DPI_RANGE
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not lo <= dpi <= hi:
        raise ParameterError(f"dpi must be an integer from {lo} to {hi}, got {dpi!r}", name="dpi")
    return check_writable(path, "figure", binary=figure_format(path) != "svg")
