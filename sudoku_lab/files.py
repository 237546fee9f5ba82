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

JSON read from a user's file goes through :func:`json_loads`: nesting deeper
than :data:`MAX_JSON_DEPTH` is refused before the parser sees it, so a file of
``[[[[...`` is one error line, never a ``RecursionError`` (in any thread) or a
crash in a C parser.

A zip archive from a user's file (a session, the ``.npz`` inside it) is read
through :class:`ZipMembers`, in bounded memory: its directory is checked before
anything is inflated (only the members its format names, each once, stored or
deflated, each declaring at most a per-member limit and all of them together at
most what is left of the file's :class:`Inflation` budget), and each member is
then read in chunks into a buffer of its declared size, so a member whose
declared size lies costs at most that size, never what its data would inflate
to. An ``.npy`` member is read by :meth:`ZipMembers.read_array`: its magic and
header are checked before its array is allocated, and pickle is never used.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import secrets
import stat
import struct
import sys
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Collection, Iterator

if TYPE_CHECKING:
    import numpy as np

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
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                # A read of n bytes allocates n first: ask for what the file holds (and one byte more, so a file
                # that grew since is read on up to the limit), not for the limit.
                data = fh.read(size + 1)
                if len(data) > size:
                    data += fh.read(max_bytes + 1 - len(data))
            else:
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


# ------------------------------------------------------------------ JSON
#: How deep JSON read from a file may nest (arrays and objects inside each other). The lab's own files nest
#: less than 20 deep (a session's recorded history is the deepest); 100 leaves room for hand-written ones.
MAX_JSON_DEPTH = 100

#: The JSON tokens that matter for nesting: a string (its closing quote optional: an unterminated one runs to
#: the end, as the parser reads it) or a bracket (to say where a text nests too deeply).
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)
#: Bytes of JSON text looked at at once when measuring its depth (bounds the scan's memory).
_DEPTH_BLOCK = 1 << 22


def _json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, brackets inside strings not counted.

    No recursion and no per-character Python: the escapes are removed, then the
    quotes and brackets are found with numpy a block at a time; a bracket is
    inside a string when an odd number of quotes precede it.
    """
    import numpy as np

    if "\\" in text:
        # Escaped backslashes first, then escaped quotes: what is left of the strings' escapes holds no quote, so
        # the quotes left open and close the strings (up to the first error, where the parser stops as well).
        text = text.replace("\\\\", "").replace('\\"', "")
    data = text.encode("utf-8", "surrogatepass")  # a bracket or a quote is one byte, never part of another
    deepest = depth = inside = 0
    for start in range(0, len(data), _DEPTH_BLOCK):
        block = np.frombuffer(data, np.uint8, count=min(_DEPTH_BLOCK, len(data) - start), offset=start)
        quotes = np.flatnonzero(block == 0x22)
        at = np.flatnonzero((block == 0x5B) | (block == 0x5D) | (block == 0x7B) | (block == 0x7D))
        kinds = block[at[(np.searchsorted(quotes, at) + inside) % 2 == 0]]
        if kinds.size:
            run = depth + np.cumsum(np.where((kinds == 0x5B) | (kinds == 0x7B), 1, -1))
            deepest = max(deepest, int(run.max()))
            depth = int(run[-1])
        inside = (inside + quotes.size) % 2
    return deepest


def json_depth_error(text: str, max_depth: int = MAX_JSON_DEPTH) -> json.JSONDecodeError | None:
    """A ``json.JSONDecodeError`` at the first bracket of ``text`` nested deeper than ``max_depth``, or None.

    The check never recurses (:func:`_json_depth`), so it costs a pass over the
    text whatever its nesting (about 0.1 s for 30 MB); only a text that fails it
    is scanned a second time, to say where.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return None
    if _json_depth(text) <= max_depth:
        return None
    depth = 0
    for m in _JSON_TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > max_depth:
                return json.JSONDecodeError(f"nested more than {max_depth} deep", text, m.start())
        elif c in "]}":
            depth -= 1
    return None  # the fast count differs only on text the parser refuses before it nests that deep


def json_loads(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for text from a user's file: nesting is bounded, and deeper is a decode error.

    Parameters
    ----------
    text : str
        The JSON text (already read within a size limit: :func:`read_text`).
    max_depth : int
        The deepest nesting of arrays and objects accepted.

    Returns
    -------
    object
        What ``json.loads`` returns.

    Raises
    ------
    json.JSONDecodeError
        Not JSON, or nested deeper than ``max_depth`` ("nested more than 100
        deep: line 1 column 101 (char 100)"), checked before parsing: never a
        ``RecursionError``, in the main thread or any other. The callers' own
        ``except json.JSONDecodeError`` turns it into their one line.
    """
    err = json_depth_error(text, max_depth)
    if err is not None:
        raise err
    try:
        return json.loads(text)
    except RecursionError:  # only on a caller's own nearly exhausted stack: still a decode error, not a crash
        raise json.JSONDecodeError("nested too deeply for the stack left", text, 0) from None


# ------------------------------------------------------------------ archives
#: Zip compression methods read: the two the lab (and numpy's ``savez``) writes. Others are refused before
#: inflating (bzip2 and LZMA decompress without the output bound deflate gets).
_ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
#: Bytes a member is read in at a time: the most a read holds beyond the member's own buffer.
_CHUNK = 1 << 20
#: The longest ``.npy`` header read (numpy's own default bound; the lab's headers take about 120 bytes).
MAX_NPY_HEADER = 10_000
#: The most dimensions an array read may have (numpy's own limit is 64; the lab's arrays have at most 3).
_MAX_DIMENSIONS = 32
#: Bytes of a zip directory entry allowed per member beyond the fixed 46 (the name, its extra fields):
#: a directory listing more is refused before it is parsed.
_DIRECTORY_ENTRY = 1024


class Inflation:
    """What the archives of one file may still inflate to, in bytes: one budget for a file and the archives
    inside it, so "in total" counts every member read from it.

    Parameters
    ----------
    limit : int
        The most the file's members may inflate to together.
    """

    def __init__(self, limit: int):
        self.limit = int(limit)
        self.used = 0

    @property
    def left(self) -> int:
        """Bytes still allowed."""
        return self.limit - self.used


class _Buffer(io.RawIOBase):
    """A read-only, seekable file over a bytes-like object, without copying it (``io.BytesIO`` copies a
    bytearray): an archive inside an archive is read from its member's buffer as it is."""

    def __init__(self, data: bytes | bytearray | memoryview):
        super().__init__()
        self._view = memoryview(data).cast("B")
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: len(self._view)}[whence]
        if base + offset < 0:
            raise OSError(22, "Invalid argument")
        self._pos = base + offset
        return self._pos

    def readinto(self, b) -> int:
        n = max(0, min(len(b), len(self._view) - self._pos))
        b[:n] = self._view[self._pos : self._pos + n]
        self._pos += n
        return n


def _zip_directory(fp: BinaryIO) -> tuple[int, int] | None:
    """(entries, bytes) the zip directory of ``fp`` declares, read from its end record as ``zipfile`` reads it
    (its own reader, so both agree on which record counts), or None when there is none."""
    end = getattr(zipfile, "_EndRecData", None)
    if end is None:  # a Python without it: ZipFile's own checks remain, the directory is parsed unbounded
        return None
    try:
        rec = end(fp)
    except (OSError, ValueError, EOFError, struct.error, zipfile.BadZipFile):
        return None
    # zipfile._ECD_ENTRIES_TOTAL and zipfile._ECD_SIZE: the record's total entries and directory size.
    return (int(rec[4]), int(rec[5])) if rec else None


def _npy_header(header: bytes) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, Fortran order, dtype) of an ``.npy`` header of format 1.0 or 2.0, as numpy reads it, but without
    numpy's fallback for Python 2 headers (a tokenizer that raises its own errors, and a warning)."""
    import ast

    from numpy.lib import format as npy

    d = ast.literal_eval(header.decode("latin1"))
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise ValueError(f"not a dictionary of descr, fortran_order and shape: {header[:60]!r}")
    shape, fortran = d["shape"], d["fortran_order"]
    if not isinstance(shape, tuple) or not all(type(n) is int for n in shape):
        raise ValueError(f"shape {shape!r} is not a tuple of integers")
    if not isinstance(fortran, bool):
        raise ValueError(f"fortran_order {fortran!r} is not a bool")
    return shape, fortran, npy.descr_to_dtype(d["descr"])


class ZipMembers:
    """The members of a zip archive from a user's file, read in bounded memory.

    Opening checks the archive's directory before anything is inflated: at most
    ``max_members`` entries; only ``allowed`` names, each once; every name in
    ``required``; members stored or deflated and not encrypted; each declaring at
    most ``max_member`` bytes, and together at most what ``budget`` has left.
    Each refusal is one :class:`~sudoku_lab.errors.DataFileError` naming the
    file, the member and the limit.

    Parameters
    ----------
    source : binary file or bytes-like
        The archive: an open seekable file, or the bytes of a member of another
        archive (read without a copy).
    name : str
        What the messages call the archive ("session file x.sudoku-session",
        "session file x.sudoku-session: arrays.npz").
    kind : str
        The format, for messages ("a session file", "an .npz archive").
    allowed : collection of str
        The member names the format has; any other is refused at once.
    unexpected : str
        Why another member is refused, completing "holds member 'x', which ...".
    required : collection of str
        Names that must be there.
    max_member : int
        The most one member may inflate to.
    budget : Inflation
        Shared by every archive of one file: what their members may still
        inflate to together. Reading a member takes its declared size from it.
    max_members : int, optional
        The most entries the directory may list, checked before it is parsed
        (a directory of millions of entries costs gigabytes once parsed);
        default ``len(allowed) + 16``, so that a few members too many are each
        named in their own refusal.
    path : path, optional
        The file, for the errors' ``path``.
    """

    def __init__(
        self,
        source: BinaryIO | bytes | bytearray | memoryview,
        name: str,
        kind: str,
        *,
        allowed: Collection[str],
        unexpected: str,
        required: Collection[str] = (),
        max_member: int,
        budget: Inflation,
        max_members: int | None = None,
        path=None,
    ):
        self.name, self.kind, self.path = name, kind, path
        self.max_member, self.budget = int(max_member), budget
        fp: BinaryIO = _Buffer(source) if isinstance(source, (bytes, bytearray, memoryview)) else source  # type: ignore[assignment]
        most = len(allowed) + 16 if max_members is None else int(max_members)
        directory = _zip_directory(fp)
        if directory is not None:
            entries, size = directory
            if entries > most or size > most * (46 + _DIRECTORY_ENTRY):
                raise self._bad(
                    f"its zip directory lists {entries:,} members in {_size_text(size)}; at most {most:,} are read "
                    "from it"
                )
        try:
            fp.seek(0)
            head = fp.read(4)
            self._zf = zipfile.ZipFile(fp)
        except zipfile.BadZipFile:
            if head == b"PK\x03\x04":
                raise self._bad("truncated (its zip directory is missing)") from None
            raise self._bad(f"not {kind} (not a zip archive)") from None
        except (OSError, ValueError, EOFError, NotImplementedError, struct.error) as e:
            raise self._bad(f"not {kind} ({e or type(e).__name__})") from None
        try:
            self._infos = self._checked(allowed, unexpected, required)
        except BaseException:
            self._zf.close()
            raise

    def _bad(self, problem: str):
        from .errors import DataFileError

        return DataFileError(f"{self.name}: {problem}".replace("\n", " "), path=self.path)

    def _checked(self, allowed: Collection[str], unexpected: str, required: Collection[str]) -> dict:
        infos: dict[str, zipfile.ZipInfo] = {}
        for info in self._zf.infolist():
            if info.filename in infos:
                raise self._bad(f"holds two members named {info.filename!r}; {self.kind} holds each once")
            infos[info.filename] = info
        if required and not any(r in infos for r in required):
            raise self._bad(f"not {self.kind} (a zip archive without {' and '.join(required)})")
        allowed = set(allowed)
        for m in infos:
            if m not in allowed:
                raise self._bad(f"holds member {m!r}, which {unexpected}; nothing in it was read")
        for r in required:
            if r not in infos:
                raise self._bad(f"incomplete: the archive has no {r}")
        total = 0
        for m, info in infos.items():
            if info.flag_bits & 0x1:
                raise self._bad(f"member {m!r} is encrypted, which {self.kind} never is")
            if info.compress_type not in _ZIP_METHODS:
                raise self._bad(
                    f"member {m!r} is compressed with zip method {info.compress_type}; "
                    "only stored and deflated members are read"
                )
            if info.file_size > self.max_member:
                raise self._bad(
                    f"member {m!r} would inflate to {_size_text(info.file_size)}, more than the "
                    f"{_size_text(self.max_member)} read per member; nothing was inflated"
                )
            total += info.file_size
        if total > self.budget.left:
            left = "" if self.budget.used == 0 else f", {_size_text(self.budget.left)} of which are left"
            raise self._bad(
                f"its members would inflate to {_size_text(total)} in all, more than the "
                f"{_size_text(self.budget.limit)} read from one file{left}; nothing was inflated"
            )
        return infos

    # ------------------------------------------------------------ reading
    @property
    def names(self) -> tuple[str, ...]:
        """The members, in the archive's order."""
        return tuple(self._infos)

    def size(self, member: str) -> int:
        """The size ``member`` declares (what reading it may inflate to at most)."""
        return self._infos[member].file_size

    @contextmanager
    def _open(self, member: str) -> Iterator[BinaryIO]:
        info = self._infos[member]
        if info.file_size > self.budget.left:
            raise self._bad(
                f"member {member!r} would inflate to {_size_text(info.file_size)}, more than the "
                f"{_size_text(self.budget.left)} left of the {_size_text(self.budget.limit)} read from one file"
            )
        self.budget.used += info.file_size
        from .errors import SudokuLabError

        try:
            with self._zf.open(info) as fh:
                yield fh  # type: ignore[misc]  # a ZipExtFile is a binary file
        except SudokuLabError:
            raise  # a refusal of the reader's own, already one line
        except (
            zipfile.BadZipFile,
            zlib.error,
            struct.error,
            OSError,
            EOFError,
            ValueError,
            NotImplementedError,
            RuntimeError,
        ) as e:
            raise self._bad(f"member {member!r} is corrupt or truncated ({e or type(e).__name__})") from None

    def _fill(self, fh: BinaryIO, view: memoryview, member: str) -> None:
        """Fill ``view`` from ``fh`` a chunk at a time; the member must end exactly there."""
        pos, n = 0, len(view)
        while pos < n:
            got = fh.readinto(view[pos : pos + _CHUNK])  # type: ignore[attr-defined]
            if not got:
                raise self._bad(f"member {member!r} is truncated (it ends after {pos:,} of its {n:,} bytes)")
            pos += got
        if fh.read(1):  # zipfile stops at the declared size; this guards that promise
            raise self._bad(f"member {member!r} holds more than the {n:,} bytes it declares")

    def read(self, member: str) -> bytearray:
        """The inflated bytes of ``member``: at most its declared size, read in chunks.

        Raises
        ------
        DataFileError
            Corrupt (a CRC error, bad deflate data), truncated, longer than it
            declares, or past what the budget has left.
        """
        with self._open(member) as fh:  # the budget is checked before the buffer is allocated
            buf = bytearray(self._infos[member].file_size)
            self._fill(fh, memoryview(buf), member)
        return buf

    def read_array(self, member: str, kinds: str = "biuf") -> np.ndarray:
        """The array an ``.npy`` member holds, read without pickle and allocated only once its header is checked.

        The magic string and the header (version 1.0 or 2.0, at most
        :data:`MAX_NPY_HEADER` bytes) are read first; the array must be of a
        plain dtype of one of ``kinds`` (numpy kind letters: bool, integers,
        floats by default), not structured or of objects, and its shape times
        its item size must be exactly the data the member holds, so nothing is
        allocated beyond what the member's checked size allows.

        Raises
        ------
        DataFileError
            No ``.npy`` magic, a malformed or oversized header, another dtype, a
            shape that does not match the data, or the errors of :meth:`read`.
        """
        import numpy as np
        from numpy.lib import format as npy

        size = self._infos[member].file_size
        with self._open(member) as fh:
            magic = fh.read(8)
            if len(magic) < 8 or magic[:6] != npy.MAGIC_PREFIX:
                raise self._bad(f"member {member!r} is not an .npy array (it lacks the .npy magic string)")
            version = (magic[6], magic[7])
            if version not in ((1, 0), (2, 0)):
                raise self._bad(f"member {member!r} is an .npy array of format version {version}, not 1.0 or 2.0")
            length_field = fh.read(2 if version == (1, 0) else 4)
            if len(length_field) < (2 if version == (1, 0) else 4):
                raise self._bad(f"member {member!r} is truncated in its .npy header")
            length = struct.unpack("<H" if version == (1, 0) else "<I", length_field)[0]
            if length > MAX_NPY_HEADER:
                raise self._bad(
                    f"member {member!r} declares an .npy header of {length:,} bytes; "
                    f"at most {MAX_NPY_HEADER:,} are read"
                )
            try:
                shape, fortran, dtype = _npy_header(fh.read(length))
            except Exception as e:  # noqa: BLE001 - whatever a crafted header breaks, it is one line about it
                words = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
                raise self._bad(f"member {member!r} has a malformed .npy header ({words})") from None
            if dtype.hasobject:
                raise self._bad(f"member {member!r} holds an object array, which is never loaded (it needs pickle)")
            if dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None or not dtype.itemsize:
                raise self._bad(f"member {member!r} holds an array of dtype {dtype}, which is not read here")
            if any(d < 0 for d in shape):
                raise self._bad(f"member {member!r} has the shape {shape}, with a negative length")
            if len(shape) > _MAX_DIMENSIONS:
                raise self._bad(f"member {member!r} has {len(shape)} dimensions; at most {_MAX_DIMENSIONS} are read")
            nbytes = math.prod(shape) * dtype.itemsize
            data = size - 8 - len(length_field) - length
            if nbytes != data:
                raise self._bad(
                    f"member {member!r}: its header says {dtype}{list(shape)}, {nbytes:,} bytes, but it holds "
                    f"{max(data, 0):,} bytes of data"
                )
            flat = np.empty(math.prod(shape), dtype=dtype)
            if nbytes:
                self._fill(fh, flat.view(np.uint8).data, member)  # the array's own bytes: no copy
        return flat.reshape(shape[::-1]).T if fortran and len(shape) > 1 else flat.reshape(shape)

    # ------------------------------------------------------------ closing
    def close(self) -> None:
        self._zf.close()

    def __enter__(self) -> ZipMembers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
