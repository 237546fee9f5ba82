"""Reading and writing the user's files with errors that say what went wrong, and where.

Every file a command reads or writes goes through here, so a missing file, a
directory, a file without read permission, binary data, a read-only directory
or a full disk is one :class:`~sudoku_lab.errors.DataFileError` naming the
path and the reason, never a traceback. Outputs are written to a temporary
file next to the target and renamed into place, so a full disk leaves the old
file (or none), never half a figure.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from .errors import DataFileError
from ._checks import checked

__all__ = ["os_reason", "read_text", "open_binary", "check_writable", "atomic_write", "atomic_write_text",
           "check_figure_path", "DPI_RANGE"]


def os_reason(e: OSError) -> str:
    """The reason of an OSError in words ("permission denied", "no space left on device").

    Libraries that raise OSError without ``strerror`` (pyarrow: "error writing bytes to file. Detail:
    [errno 28] No space left on device") get the words of the errno their message names.
    """
    reason = e.strerror
    if not reason:
        import re

        m = re.search(r"\[errno (\d+)\]", str(e), re.IGNORECASE)
        reason = os.strerror(int(m.group(1))) if m else (str(e) or type(e).__name__)
    return reason[:1].lower() + reason[1:]


def _check_readable_path(path: Path, what: str) -> None:
    if not path.exists():
        raise DataFileError(f"{what} {path} does not exist", path=path)
    if path.is_dir():
        raise DataFileError(f"{what} {path} is a directory, not a file", path=path)


def read_text(path, what: str = "file", max_bytes: int | None = None) -> str:
    """The whole text of a UTF-8 file (a BOM is dropped).

    Raises
    ------
    DataFileError
        Missing, a directory, unreadable, larger than ``max_bytes``, or not
        UTF-8 text (naming the line of the first bad byte).
    """
    path = Path(path)
    _check_readable_path(path, what)
    try:
        if max_bytes is not None:
            size = path.stat().st_size
            if size > max_bytes:
                raise DataFileError(f"{what} {path} is {_size_text(size)}; at most {_size_text(max_bytes)} can be "
                                    f"read in this format", path=path)
        data = path.read_bytes()
    except OSError as e:
        raise DataFileError(f"cannot read {what} {path}: {os_reason(e)}", path=path) from None
    return decode(data, path, what)


def decode(data: bytes, path, what: str = "file", first_line: int = 1) -> str:
    """``data`` as UTF-8 text (BOM dropped), or a DataFileError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise DataFileError(f"{what} {path} is not a text file: line {line} holds a byte that is not UTF-8 "
                            f"(0x{data[e.start]:02x})", path=path, line=line) from None


@contextmanager
def open_binary(path, what: str = "file") -> Iterator:
    """Open a file for reading in binary mode, with the same errors as :func:`read_text`."""
    path = Path(path)
    _check_readable_path(path, what)
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise DataFileError(f"cannot read {what} {path}: {os_reason(e)}", path=path) from None
    with fh:
        yield fh


def _size_text(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"


def check_writable(path, what: str = "output") -> Path:
    """Make sure ``path`` can be written before any work starts; return it as a Path.

    Creates missing parent directories, and proves the directory writable by
    creating (and removing) a temporary file there: a read-only directory is
    reported now, not after an hour of runs.
    """
    path = Path(path)
    if path.is_dir():
        raise DataFileError(f"{what} {path} is a directory; give a file name", path=path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as e:
        raise DataFileError(f"cannot write {what} {path}: {os_reason(e)}", path=path) from None
    if path.exists() and not os.access(path, os.W_OK):
        raise DataFileError(f"cannot write {what} {path}: permission denied", path=path)
    return path


def atomic_write(path, write: Callable[[Path], object], what: str = "output") -> None:
    """Call ``write(tmp)`` on a temporary file next to ``path``, then rename it to ``path``.

    On any error the temporary file is removed and ``path`` is untouched; an
    OSError (read-only directory, full disk) becomes a DataFileError.
    """
    path = Path(path)
    tmp = None
    try:
        # Not mkstemp: its mode 0600 would survive the rename; "x" creates with the umask's mode.
        candidate = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        with open(candidate, "x"):
            pass
        tmp = candidate
        write(tmp)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise DataFileError(f"cannot write {what} {path}: {os_reason(e)}", path=path) from None
    finally:
        if tmp is not None:
            try:
                tmp.unlink()
            except OSError:
                pass


def atomic_write_text(path, text: str, what: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_write`."""
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), what)


#: Resolutions figures accept: beyond 1200 dpi a page-sized PNG takes gigabytes.
DPI_RANGE = (10, 1200)


@checked
def check_figure_path(path: str | os.PathLike[str], dpi: int = 200) -> Path:
    """Check a figure's file name and resolution before any work: suffix, dpi, a writable directory.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        A suffix other than .png, .svg, .pdf, or a dpi outside :data:`DPI_RANGE`.
    DataFileError
        The directory cannot be written.
    """
    from .errors import ParameterError

    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"figures are written as .png, .svg or .pdf, not {path.name!r}", name="out")
    lo, hi = DPI_RANGE
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not lo <= dpi <= hi:
        raise ParameterError(f"dpi must be an integer from {lo} to {hi}, got {dpi!r}", name="dpi")
    return check_writable(path, "figure")
