"""Results of many solver runs: one row per run, in a directory that survives any interruption.

A results directory holds three files:

``runs.parquet``
    The table: one row per finished run, columns :data:`SCHEMA`. pandas
    (``pd.read_parquet``), polars (``pl.read_parquet``) and DuckDB
    (``SELECT * FROM 'DIR/runs.parquet'``) read it directly.
``runs.jsonl``
    The journal: the same rows as JSON lines, each appended (one ``write``)
    the moment its run finishes. Parquet cannot be appended to row by row, so
    this is what makes a batch killed with SIGKILL lose only the runs in flight.
    The table is rewritten from it, atomically, whenever a command using the
    directory ends (normally, on Ctrl-C, or on an error), and when a killed
    batch is resumed.
``provenance.json``
    The sidecar: the experiment's specification, the package, Python, numpy,
    numba, scipy and pyarrow versions, the machine, and one entry per session
    that wrote to the directory.

Why Parquet and a journal rather than CSV: Parquet keeps the types (a seed is
an int64, a time a float64, ``solved`` a boolean), is compressed (a million
runs of 9x9 grids take tens of MB) and is read column by column, so a report
over a million runs reads only the columns it needs. The journal is plain
JSON lines, also read by the three libraries (``pd.read_json(path,
lines=True)``, ``pl.read_ndjson``, DuckDB's ``read_json``), for those who want
a batch's rows while it still runs.

Nothing is ever silently mixed: every row carries a fingerprint of its task
(solver, every parameter, puzzle, seed, stopping rule) and a key; reopening a
directory for another experiment, a row whose fingerprint differs from the
task of the same key, a directory written by a newer version, or a corrupt
line in the middle of the journal is a :class:`~sudoku_lab.errors.DataFileError`
naming the file, the line and what differs. A partial last line (a write cut
off by a crash) is dropped with a note: its run simply runs again.

An experiment may grow in its directory: more runs, more puzzles at the end
of a set, another set (each command says which of its keys are sizes,
:class:`Growth`) add runs and leave those there as they are; the sidecar then
holds the grown specification. Asking for fewer reads a part and deletes
nothing (:func:`experiment_change`).

The three files are read as regular files only (a symlink to one is fine): a
device, a FIFO or a dangling symlink in their place is a DataFileError saying
what it is, not a read that never ends. The journal is read line by line, a
line at most :data:`MAX_RECORD_BYTES`, so memory holds the rows, never the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TypeGuard

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .. import __version__
from .._checks import checked
from ..errors import DataFileError, PuzzleError
from ..files import (
    check_regular,
    decode,
    json_loads,
    open_binary,
    os_reason,
    read_lines,
    read_text,
    write_file,
    write_text,
)

if TYPE_CHECKING:  # names of annotations only: these modules import this one
    from .experiments import RunResult, Task

__all__ = [
    "SCHEMA",
    "COLUMNS",
    "FORMAT",
    "ResultStore",
    "Results",
    "load_results",
    "task_row",
    "fingerprint",
    "grid_text",
    "json_default",
    "provenance_writer",
    "machine",
    "results_dir",
    "check_results_dir",
    "closing",
    "results_from_rows",
    "TABLE",
    "JOURNAL",
    "PROVENANCE",
    "Growth",
    "Change",
    "experiment_change",
]

#: Version of the directory layout and row schema; a directory of a newer format is refused.
FORMAT = 1

TABLE = "runs.parquet"
JOURNAL = "runs.jsonl"
PROVENANCE = "provenance.json"

#: The columns of a results table: name, Arrow type name, meaning. ``SCHEMA`` is built from it.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("task", "string", "key of the run, unique in the directory"),
    ("config", "string", "configuration label: solver, then the parameters the experiment sets (solver:p=v,...)"),
    ("solver", "string", "registered solver name"),
    ("params", "string", "every parameter in force, defaults included, as a JSON object"),
    ("puzzle_set", "string", "the puzzle set the run belongs to (a collection, a level, a table's row)"),
    ("puzzle", "string", "the puzzle's name"),
    ("givens", "string", "the puzzle in line format (. for a blank, 1-9 then A-Z)"),
    ("box", "int8", "box size n (3 for a 9x9 grid)"),
    ("run", "int32", "index of the run for this configuration and puzzle, from 0"),
    ("seed", "int64", "the run's seed (replay it with `sudoku-lab solve --seed`)"),
    ("until", "string", "stopping rule of the run (solved, iterations, evaluations, seconds)"),
    ("solved", "bool", "the final grid is a solution"),
    ("status", "string", "solver status at the end: solved, failed (its own stopping rule) or running"),
    ("reason", "string", "why the run ended: solved, failed, max_iterations, max_evaluations, max_seconds"),
    ("iterations", "int64", "iterations done (the solver's own unit: EDA steps, moves, generations)"),
    ("evaluations", "int64", "candidate grids evaluated"),
    ("restarts", "int64", "restarts during the run (0 for solvers without restarts)"),
    ("cost", "int64", "final cost (0 iff solved)"),
    ("best_cost", "int64", "lowest cost seen"),
    ("seconds", "float64", "wall time of the run in its worker, kernels already compiled"),
    ("grid", "string", "the final grid in line format"),
    ("extra", "string", "solver-specific summary as a JSON object"),
    ("host", "string", "machine that ran it"),
    ("finished", "timestamp", "when it finished (UTC)"),
    ("fingerprint", "string", "hash of solver, parameters, puzzle, seed and stopping rule"),
)


_ARROW = {
    "string": pa.string(),
    "int8": pa.int8(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
    "float64": pa.float64(),
    "timestamp": pa.timestamp("ms", tz="UTC"),
}

#: The Arrow schema of a results table (each field's ``doc`` metadata says what it holds).
SCHEMA = pa.schema([pa.field(name, _ARROW[kind], nullable=True, metadata={"doc": doc}) for name, kind, doc in COLUMNS])


# ------------------------------------------------------------------ rows
@checked
def grid_text(grid: npt.ArrayLike) -> str:
    """A grid (int8 (C,), 0 blank) as one line of symbols: 1-9, then A-Z above 9, ``.`` for a blank."""
    return "".join(
        "." if v == 0 else str(int(v)) if v < 10 else chr(ord("A") + int(v) - 10) for v in np.asarray(grid).tolist()
    )


@checked
def fingerprint(solver: str, params: dict, givens: str, seed: int, until: str) -> str:
    """A short hash identifying a run's task: the same task always gives the same fingerprint."""
    blob = json.dumps(
        [solver, {k: params[k] for k in sorted(params)}, givens, int(seed), until],
        separators=(",", ":"),
        default=json_default,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@checked
def task_row(task: Task, result: RunResult, params: dict | None = None) -> dict:
    """The results row of a finished ``task`` (:class:`~Task`) and its ``result``.

    ``params`` is ``task.full_params()`` when the caller already has it.
    """
    params = task.full_params() if params is None else params
    givens = task.puzzle.to_line()
    finished = datetime.fromtimestamp(result.finished or time.time(), tz=UTC)
    return {
        "task": task.key,
        "config": task.config or task.label(),
        "solver": task.solver,
        "params": json.dumps(params, default=json_default),
        "puzzle_set": task.puzzle_set,
        "puzzle": task.puzzle.name or "",
        "givens": givens,
        "box": int(task.puzzle.n),
        "run": int(task.run),
        "seed": int(task.seed),
        "until": task.until,
        "solved": bool(result.solved),
        "status": result.status,
        "reason": result.reason,
        "iterations": int(result.iterations),
        "evaluations": int(result.evaluations),
        "restarts": int(result.restarts),
        "cost": int(result.cost),
        "best_cost": int(result.best_cost),
        "seconds": float(result.seconds),
        "grid": grid_text(result.grid),
        "extra": json.dumps(result.extra, default=json_default),
        "host": result.host,
        "finished": finished.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "fingerprint": fingerprint(task.solver, params, givens, task.seed, task.until),
    }


@checked
def json_default(o: Any):
    """``json.dumps(default=...)`` for numpy scalars and arrays (NaN becomes null)."""
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if math.isnan(o) else float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot store {type(o).__name__} in a results file")


# ------------------------------------------------------------ provenance
@checked
def provenance_writer() -> dict:
    """This process: the package and the libraries whose versions can change a result or a file."""
    import numba
    import scipy

    out = {
        "sudoku_lab": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "scipy": scipy.__version__,
    }
    try:
        import pyarrow

        out["pyarrow"] = pyarrow.__version__
    except ImportError:  # pragma: no cover - a declared dependency
        pass
    return out


@checked
def machine() -> dict:
    """This machine: host name, platform, architecture, CPU model and the CPUs this process may use."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpus": cpus,
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _version_tuple(text: str) -> tuple:
    parts = []
    for piece in str(text).split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


# ------------------------------------------------------------ the store
@checked
class ResultStore:
    """A results directory opened for writing: resume what it holds, append what finishes.

    Parameters
    ----------
    path : path
        The directory (created if missing). A path ending in ``.parquet`` or
        ``.jsonl`` names the directory holding it.
    spec : dict
        The experiment in canonical form (JSON-serialisable): a directory
        holding another experiment is refused, naming the keys that differ.
    kind : str
        What writes it (``batch``, ``grades``, ``compare``, ``reproduce``).
    note : callable, optional
        ``note(text)`` for what the user should know but that is not an error
        (a dropped partial line, resuming a directory of an older version).
    session : dict, optional
        Extra facts recorded for this session (the scheduler, the worker count).
    growth : Growth, optional
        What in ``spec`` may differ from the directory's experiment and leave
        it the same experiment, grown or read in part (more or fewer runs, a
        larger or smaller sample): see :func:`experiment_change`. Without it
        any difference is another experiment.

    Attributes
    ----------
    change : Change or None
        How this session's experiment differs from what the directory held
        (None for a new directory). When it grows, the provenance's ``spec``
        becomes the grown experiment and the session records what grew
        (``grew``); when it asks for less, the session records that
        (``read_part``) and nothing is deleted.

    Raises
    ------
    DataFileError
        The directory cannot be written, is in use by another process, holds
        another experiment, was written by a newer version, or its journal is
        corrupt before its last line.

    Notes
    -----
    The journal is locked (``flock``) while the store is open: a second
    process writing the same directory is refused at once instead of running
    every task again. The lock goes with the process, so a crash never leaves
    a stale one.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        spec: dict,
        *,
        kind: str = "batch",
        note: Callable[[str], None] | None = None,
        session: dict | None = None,
        growth: Growth | None = None,
    ):
        self.dir = results_dir(path)
        self.spec = spec
        self.kind = kind
        self.growth = growth
        self.change: Change | None = None
        self._note = note or (lambda text: None)
        self._fd: int | None = None  # the journal, open from here to close()
        self._keys: dict[str, str] = {}  # task key -> fingerprint
        self._solved: set[str] = set()
        self._rows: dict[str, dict] | None = None  # loaded on demand (get)
        self._added = 0
        self._session = {"started": _now(), "writer": provenance_writer(), **(session or {})}
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DataFileError(f"cannot create results directory {self.dir}: {os_reason(e)}", path=self.dir) from None
        if not os.access(self.dir, os.W_OK):
            raise DataFileError(f"cannot write results directory {self.dir}: permission denied", path=self.dir)
        self._provenance = self._check_provenance()
        self._fd = _open_journal(self.dir / JOURNAL)
        try:
            self._lock()
            self._recover_journal()
            self._write_provenance(open_session=True)
        except BaseException:
            self._release()
            raise

    # -------------------------------------------------------------- opening
    def _check_provenance(self) -> dict:
        prov, change = _opening(self.dir, self.kind, self.spec, self.growth, self._note)
        self.change = change
        if prov is None or change is None:  # both None (a new directory) or neither
            return {
                "format": FORMAT,
                "kind": self.kind,
                "spec": self.spec,
                "machine": machine(),
                "created": _now(),
                "sessions": [],
            }
        if change.grows:
            # The directory's experiment is the grown one from now on: its new rows belong to it.
            prov["spec"] = change.merged
            self._session["grew"] = list(change.grows)
            self._note(
                f"{self.dir} grows ({'; '.join(change.grows)}): the runs it holds are kept, only the new ones run"
            )
        if change.shrinks:
            self._session["read_part"] = list(change.shrinks)
            self._note(
                f"{self.dir} holds more than this asks for ({'; '.join(change.shrinks)}): the runs asked "
                "for are read, nothing is deleted"
            )
        return prov

    @property
    def _journal(self) -> int:
        """The open journal's descriptor; ValueError once the store is closed (as for I/O on a closed file)."""
        if self._fd is None:
            raise ValueError(f"the results store {self.dir} is closed")
        return self._fd

    def _lock(self) -> None:
        _flock(self._journal, self.dir)

    def _recover_journal(self) -> None:
        """Read the journal's keys; drop a partial last line; rebuild the table if it lags behind."""
        path = self.dir / JOURNAL
        with _fd_reader(self._journal) as fh:
            lines = _CompleteLines(fh, path)
            for lineno, row in _journal_rows(lines, path):
                key = row["task"]
                if key in self._keys:
                    raise DataFileError(f"{path} line {lineno}: task {key!r} is recorded twice", path=path, line=lineno)
                self._keys[key] = row["fingerprint"]
                if row["solved"]:
                    self._solved.add(key)
        if lines.partial:
            os.ftruncate(self._journal, lines.size)
            self._note(
                f"{path}: dropped a partial last record (a run cut off mid-write by a crash); that run runs again"
            )
        rows_in_table = _table_rows(self.dir / TABLE)
        if rows_in_table != len(self._keys):
            self._write_table()

    # -------------------------------------------------------------- writing
    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def check(self, key: str, fp: str) -> bool:
        """True if ``key`` is done; DataFileError if it was done for another task (a different fingerprint)."""
        have = self._keys.get(key)
        if have is None:
            return False
        if have != fp:
            raise DataFileError(
                f"{self.dir}: task {key!r} was run with other settings than it has now (another "
                "solver version's parameters, puzzle, seed or stopping rule); choose another output "
                "directory, or delete it to start again",
                path=self.dir,
            )
        return True

    def add(self, row: dict) -> None:
        """Append one finished run (one write; DataFileError naming the directory if the disk refuses it)."""
        key = row["task"]
        if key in self._keys:
            raise ValueError(f"task {key!r} is already in {self.dir}")
        data = (json.dumps(row, default=json_default) + "\n").encode("utf-8")
        try:
            os.lseek(self._journal, 0, os.SEEK_END)
            while data:
                data = data[os.write(self._journal, data) :]
        except OSError as e:
            raise DataFileError(
                f"cannot write {self.dir / JOURNAL}: {os_reason(e)}; the {len(self._keys)} runs "
                "before are kept there: run the same command again to resume",
                path=self.dir,
            ) from None
        self._keys[key] = row["fingerprint"]
        if row["solved"]:
            self._solved.add(key)
        if self._rows is not None:
            self._rows[key] = row
        self._added += 1

    def row(self, key: str) -> dict:
        """The results row recorded for ``key`` (the journal is read once, on the first call)."""
        if self._rows is None:
            path = self.dir / JOURNAL
            with _fd_reader(self._journal) as fh:
                self._rows = {row["task"]: row for _, row in _journal_rows(_CompleteLines(fh, path), path)}
        return self._rows[key]

    def solved(self, keys: Iterable[str] | None = None) -> int:
        """How many of the recorded runs (of those with ``keys``, when given) were solved."""
        if keys is None:
            return len(self._solved)
        return sum(k in self._solved for k in keys)

    def held(self, keys: Iterable[str]) -> tuple[int, int]:
        """``(done, solved)``: how many of ``keys`` are recorded, and how many of those were solved."""
        done = solved = 0
        for k in keys:
            if k in self._keys:
                done += 1
                solved += k in self._solved
        return done, solved

    # -------------------------------------------------------------- closing
    def _write_table(self) -> None:
        import pyarrow.parquet as pq

        table = _read_journal_table(self.dir / JOURNAL)
        write_file(
            self.dir / TABLE, lambda fh: pq.write_table(table, fh, compression="zstd"), "results table", binary=True
        )

    def _write_provenance(self, open_session: bool = False) -> None:
        prov = self._provenance
        prov["rows"] = len(self._keys)
        prov["updated"] = _now()
        sessions = prov.setdefault("sessions", [])
        if open_session:
            sessions.append(self._session)
        self._session["rows_added"] = self._added
        self._session["ended"] = None if open_session else _now()
        write_text(self.dir / PROVENANCE, json.dumps(prov, indent=1, default=json_default) + "\n", "results provenance")

    def close(self, quiet: bool = False) -> None:
        """Rewrite the table from the journal, record the session and release the lock.

        With ``quiet`` (an error is already on its way, such as a full disk
        while appending), a failure to rewrite the table is not raised: it
        would hide the first error, and the journal holds every run anyway
        (the table is rebuilt when the directory is next opened).
        """
        if self._fd is None:
            return
        try:
            self._write_table()
            self._write_provenance()
        except DataFileError:
            if not quiet:
                raise
        finally:
            self._release()

    def _release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(quiet=kind is not None)


@checked
@contextmanager
def closing(store: ResultStore | None):
    """``with closing(store):`` closes a store (or nothing, for None) as its ``with`` statement would."""
    if store is None:
        yield None
        return
    with store:
        yield store


def _value_text(value) -> str:
    text = json.dumps(value, sort_keys=True, default=json_default) if value is not None else "none"
    return text if len(text) <= 40 else text[:37] + "..."


@checked
@dataclass(frozen=True)
class Growth:
    """What may differ between an experiment and a results directory's and leave it the same experiment.

    Growing an experiment adds runs to its directory and never changes the
    runs already there; asking for less reads a part of it. Everything else
    (a solver parameter, the budget, the seed, the seeding) makes another
    experiment, refused.

    Attributes
    ----------
    counts : tuple of str
        Top-level integer keys of the canonical specification that are sizes:
        a larger value adds runs (``runs``; a reproduction's ``puzzles``).
    sets : str or None
        The top-level key holding puzzle sets: a list of tables, each with a
        ``label``, a count ``puzzles`` and a ``digest`` of them, in order.
        A set may get more puzzles (or fewer) when the directory's are the
        first ones of this experiment's; a set may be added (or left out).
    prefix_digest : callable, optional
        ``prefix_digest(label, n)``: the digest of the first ``n`` puzzles this
        experiment's set ``label`` has or would have (its larger sample), or
        None when it cannot have ``n``. Without it a set may not change.
    hint : callable, optional
        ``hint(label, n, digest)``: why the directory's ``n`` puzzles of
        ``label`` (with that digest) are not the first ones of this experiment's,
        when it can tell (a sample drawn by an earlier version), else None.
    """

    counts: tuple = ()
    sets: str | None = None
    prefix_digest: Callable[[str, int], str | None] | None = None
    hint: Callable[[str, int, str], str | None] | None = None


@checked
@dataclass
class Change:
    """How an experiment differs from the one a results directory holds (see :func:`experiment_change`).

    Attributes
    ----------
    grows : list of str
        What it adds (``runs 3 -> 4``, ``puzzle set 'easy' 4 -> 6 puzzles``).
    shrinks : list of str
        What it asks less of than the directory holds (read, never deleted).
    differs : list of (str, str, str)
        ``(key, theirs, ours)`` of what makes it another experiment.
    merged : dict
        The directory's experiment once this one has run in it: every size at
        the larger of the two.
    """

    grows: list = field(default_factory=list)
    shrinks: list = field(default_factory=list)
    differs: list = field(default_factory=list)
    merged: dict = field(default_factory=dict)


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@checked
def experiment_change(theirs: dict, ours: dict, growth: Growth | None = None) -> Change:
    """How the experiment ``ours`` (canonical form) differs from ``theirs``, a results directory's.

    The same comparison serves ``batch``, ``compare`` and ``reproduce``: each
    says with ``growth`` which of its keys are sizes.
    """
    growth = growth or Growth()
    out = Change(merged=dict(theirs))
    for key in sorted(set(theirs) | set(ours)):
        a, b = theirs.get(key), ours.get(key)
        if a == b:
            continue
        if key in growth.counts and _is_count(a) and _is_count(b):
            (out.grows if b > a else out.shrinks).append(f"{key} {a:,} -> {b:,}")
            out.merged[key] = max(a, b)
        elif key == growth.sets and _set_tables(a) and _set_tables(b):
            out.merged[key] = _sets_change(key, a, b, growth, out)
        else:
            out.differs += _leaf_differences(key, a, b)
    return out


#: How many of the differing values inside one key (a configuration's parameters) a refusal names.
_SHOWN_DIFFERENCES = 4


def _leaf_differences(key: str, a, b) -> list[tuple[str, str, str]]:
    """``(key, theirs, ours)`` texts of the values that differ inside ``a`` and ``b`` (nested dicts and lists of
    the same length followed to their leaves), so a refusal names ``configs[0].params.alpha 0.7`` rather than
    the first 40 characters of two configuration lists."""
    found: list[tuple[str, object, object]] = []

    def walk(path: str, x, y) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y), key=str):
                if x.get(k) != y.get(k):
                    walk(f"{path}.{k}", x.get(k), y.get(k))
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y)):
                if u != v:
                    walk(f"{path}[{i}]", u, v)
        elif (
            isinstance(x, list) and isinstance(y, list) and all(isinstance(e, dict) and "label" in e for e in x + y)
        ):  # configurations added or left out
            found.append((f"{path} labelled", [e["label"] for e in x], [e["label"] for e in y]))
        else:
            found.append((path, x, y))

    walk(key, a, b)
    shown = [(key, f"{path} {_value_text(x)}", f"{path} {_value_text(y)}") for path, x, y in found[:_SHOWN_DIFFERENCES]]
    if len(found) > _SHOWN_DIFFERENCES:
        more = f"and {len(found) - _SHOWN_DIFFERENCES} more differences in {key}"
        shown.append((key, more, more))
    return shown


def _set_tables(value: object) -> TypeGuard[list]:
    return isinstance(value, list) and all(
        isinstance(e, dict) and isinstance(e.get("label"), str) and _is_count(e.get("puzzles")) for e in value
    )


def _puzzles(n: int) -> str:
    return f"{n:,} puzzle{'' if n == 1 else 's'}"


def _sets_change(key: str, theirs: list, ours: list, growth: Growth, out: Change) -> list:
    """The puzzle sets of the grown experiment; what grows, shrinks or differs goes into ``out``."""
    mine = {e["label"]: e for e in ours}
    merged = []
    for a in theirs:
        label, na = a["label"], a["puzzles"]
        b = mine.pop(label, None)
        if b is None:
            out.shrinks.append(f"puzzle set {label!r} left out")
            merged.append(a)
            continue
        nb = b["puzzles"]
        other = [k for k in sorted(set(a) | set(b)) if k not in ("puzzles", "digest") and a.get(k) != b.get(k)]
        if other:
            out.differs.append(
                (
                    key,
                    f"puzzle set {label!r} with " + ", ".join(f"{k} {_value_text(a.get(k))}" for k in other),
                    ", ".join(f"{k} {_value_text(b.get(k))}" for k in other),
                )
            )
            merged.append(a)
            continue
        if growth.prefix_digest is not None:
            head = growth.prefix_digest(label, na)
        else:
            head = b.get("digest") if na == nb else None
        if head != a.get("digest"):
            hint = growth.hint(label, na, a.get("digest")) if growth.hint is not None else None
            out.differs.append(
                (
                    key,
                    f"puzzle set {label!r} with {na:,} puzzles",
                    f"other puzzles in it (its {na:,} are not the first {na:,} this one gives"
                    + (f"; {hint})" if hint else ")"),
                )
            )
            merged.append(a)
            continue
        if nb > na:
            out.grows.append(f"puzzle set {label!r} {na:,} -> {nb:,} puzzles")
        elif nb < na:
            out.shrinks.append(f"puzzle set {label!r} {na:,} -> {nb:,} puzzles")
        merged.append(b if nb > na else a)
    for label, b in mine.items():
        out.grows.append(f"a new puzzle set {label!r} ({_puzzles(b['puzzles'])})")
        merged.append(b)
    return merged


def _check_same_experiment(directory: Path, prov: dict, kind: str, spec: dict, growth: Growth | None = None) -> Change:
    """The change from the sidecar ``prov``'s experiment to ``spec``; DataFileError naming what differs when
    it is another experiment."""
    theirs = prov.get("spec") if isinstance(prov.get("spec"), dict) else {}
    if prov.get("kind") == kind:
        change = experiment_change(theirs, spec, growth)
        if not change.differs:
            return change
        keys = list(dict.fromkeys(k for k, _, _ in change.differs))
        what = (
            f"differs in: {', '.join(keys)}): it holds "
            + ", ".join(a for _, a, _ in change.differs)
            + ", this asks for "
            + ", ".join(b for _, _, b in change.differs)
        )
    else:
        what = f"written by `{prov.get('kind')}`, not `{kind}`)"
    raise DataFileError(
        f"{directory} holds the results of a different experiment ({what}; choose another "
        "output directory, or delete it to start again",
        path=directory,
    )


def _opening(
    directory: Path, kind: str, spec: dict, growth: Growth | None, note: Callable[[str], None] | None = None
) -> tuple[dict | None, Change | None]:
    """What opening ``directory`` for the experiment ``spec`` finds: its sidecar (None: no results yet) and the
    change to it; DataFileError for what opening it refuses (runs without a sidecar, a newer writer, another
    experiment)."""
    path = directory / PROVENANCE
    journal, table = directory / JOURNAL, directory / TABLE
    if not path.exists():
        if (journal.exists() and journal.stat().st_size) or table.exists():
            raise DataFileError(
                f"{directory} holds runs but no {PROVENANCE}: it was not written by Sudoku Lab, "
                "or its sidecar was deleted; choose another output directory",
                path=path,
            )
        return None, None
    prov = _read_provenance(path)
    fmt = _format_of(prov, path)
    writer = (prov.get("sessions") or [{}])[-1].get("writer", {}).get("sudoku_lab", "?")
    if fmt > FORMAT:
        raise DataFileError(
            f"{path}: results format {fmt} was written by sudoku-lab {writer}, newer than this "
            f"{__version__} (format {FORMAT}); upgrade sudoku-lab to add runs to it",
            path=path,
        )
    if writer != "?" and _version_tuple(writer) > _version_tuple(__version__):
        raise DataFileError(
            f"{path}: written by sudoku-lab {writer}, newer than this {__version__}; upgrade "
            "sudoku-lab to add runs to it (its solvers may differ)",
            path=path,
        )
    if _holds_no_runs(journal, table):
        # A session that ended before its first run (a scheduler that was not there, Ctrl-C at once) left only a
        # sidecar: there is nothing to keep, so any experiment may start there rather than be refused as another.
        return None, None
    change = _check_same_experiment(directory, prov, kind, spec, growth)
    if note is not None and writer != "?" and writer != __version__:
        note(
            f"resuming {directory}, written by sudoku-lab {writer}, with {__version__}: provenance.json "
            "records which runs each version added"
        )
    return prov, change


def _holds_no_runs(journal: Path, table: Path) -> bool:
    """Whether a results directory with a sidecar holds no run: an empty (or no) journal and no table rows."""
    if check_regular(journal, "results journal", missing_ok=True) and journal.stat().st_size:
        return False
    rows = _table_rows(table)
    return rows == 0 or (rows == -1 and not table.exists())


def _flock(fd: int, directory: Path) -> None:
    """Lock a results directory's journal (open as ``fd``) for this process; DataFileError if another holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise DataFileError(
            f"{directory} is in use by another sudoku-lab process writing the same results; "
            "wait for it to finish, or choose another output",
            path=directory,
        ) from None
    except OSError:  # a file system without locks (some network mounts): go on without
        pass


def _check_not_in_use(directory: Path) -> None:
    """DataFileError if another process writes the directory now (its journal is locked), as opening it would say."""
    import stat

    try:  # O_NONBLOCK: a FIFO in the journal's place must not hang the check
        fd = os.open(directory / JOURNAL, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # no journal yet, or unreadable: opening the store says what is wrong
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # anything else: opening the store says what is wrong
            _flock(fd, directory)
    finally:
        os.close(fd)  # and with it the lock just taken


@checked
def check_results_dir(
    path: str | os.PathLike[str], spec: dict, *, kind: str = "batch", growth: Growth | None = None
) -> Change | None:
    """How the experiment ``spec`` changes the results ``path`` holds (None: none yet), without opening it.

    For a command that will open several stores one after the other and must
    refuse a wrong one before its first run, and for ``batch --dry-run``.
    ``growth`` as for :class:`ResultStore`.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    DataFileError
        What :class:`ResultStore` would refuse: a file where the directory
        should be, runs without a sidecar, an unreadable sidecar, one written
        by a newer version, a directory of another experiment, or one another
        process is writing.
    """
    d = results_dir(path)
    prov, change = _opening(d, kind, spec, growth)
    _check_not_in_use(d)  # also a directory another process has only just opened, before its first run
    return change


@checked
def results_dir(path: str | os.PathLike[str]) -> Path:
    """The results directory a path names (the directory itself, or its runs.parquet / runs.jsonl)."""
    path = Path(os.path.expanduser(str(path)))
    if path.name in (TABLE, JOURNAL, PROVENANCE):
        return path.parent
    if path.exists() and not path.is_dir():
        raise DataFileError(f"{path} is a file; results go to a directory (give a directory name)", path=path)
    return path


#: The longest journal line read: a run's record is a few kB (a 25x25 grid twice, its parameters and summary).
MAX_RECORD_BYTES = 8 << 20
#: Journal bytes given to the Arrow reader at a time (whole lines; at least one record).
_BLOCK_BYTES = 16 << 20


def _open_journal(path: Path) -> int:
    """The journal opened for reading and appending (created if missing): a regular file, or one line saying why not."""
    check_regular(path, "results journal", missing_ok=True)
    try:
        # O_NONBLOCK: a FIFO put in its place since the check must not hang the open.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0), 0o666)
    except OSError as e:
        raise DataFileError(f"cannot write {path}: {os_reason(e)}", path=path) from None
    try:
        if not _is_regular_fd(fd):
            check_regular(path, "results journal")  # names what took its place
            raise DataFileError(f"results journal {path} is not a regular file", path=path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_regular_fd(fd: int) -> bool:
    import stat

    return stat.S_ISREG(os.fstat(fd).st_mode)


@contextmanager
def _fd_reader(fd: int):
    """A buffered reader of the whole journal ``fd`` (from its start), leaving ``fd`` open."""
    os.lseek(fd, 0, os.SEEK_SET)
    with os.fdopen(os.dup(fd), "rb") as fh:  # a dup shares the offset; add() seeks to the end before writing
        yield fh


class _CompleteLines:
    """The complete lines of a journal, numbered, in bounded memory; a partial last line is set aside.

    After iterating, ``size`` is the length of the complete lines (where a
    partial last line starts) and ``partial`` tells whether there was one.
    """

    def __init__(self, fh, path: Path):
        self.fh, self.path = fh, path
        self.size = 0
        self.partial = False

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        for no, line in read_lines(self.fh, self.path, "results journal", MAX_RECORD_BYTES):
            if not line.endswith(b"\n"):
                self.partial = True
                return
            self.size += len(line)
            yield no, line


_REQUIRED = {name for name, _, _ in COLUMNS}


def _journal_rows(lines: Iterable[tuple[int, bytes]], path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, row) of numbered complete journal lines; DataFileError naming the first bad one."""
    for lineno, raw in lines:
        line = decode(raw, path, "results journal", first_line=lineno)
        if not line.strip():
            continue
        try:
            row = json_loads(line)
            if not isinstance(row, dict):
                raise TypeError("not an object")
            missing = _REQUIRED - set(row)
            if missing:
                raise KeyError(", ".join(sorted(missing)))
        except (json.JSONDecodeError, TypeError, KeyError) as e:
            what = f"missing {e.args[0]}" if isinstance(e, KeyError) else str(e)
            raise DataFileError(
                f"{path} line {lineno}: corrupt run record ({what}); fix or delete that line, "
                "and run the same command again",
                path=path,
                line=lineno,
            ) from None
        yield lineno, row


def _read_journal_table(path: Path, check: bool = False):
    """The complete lines of the journal ``path`` (none if it is missing) as an Arrow table of :data:`SCHEMA`.

    Read in blocks, so memory holds the table and one block, never the file.
    ``check`` validates every record first (naming a corrupt line the Arrow
    reader would take for nulls).
    """
    if not check_regular(path, "results journal", missing_ok=True):
        return SCHEMA.empty_table()
    with open_binary(path, "results journal", streams=False) as fh:
        return _journal_table(_CompleteLines(fh, path), path, check)


def _journal_table(lines: Iterable[tuple[int, bytes]], path: Path, check: bool = False):
    """Numbered complete journal lines as an Arrow table of :data:`SCHEMA`, parsed a block at a time."""
    import io

    import pyarrow.json as pj

    opts = pj.ParseOptions(explicit_schema=SCHEMA, unexpected_field_behavior="ignore")
    tables = []
    block: list[tuple[int, bytes]] = []
    size = 0

    def parse() -> None:
        data = b"".join(line for _, line in block)
        if not data.strip():
            return
        try:
            table = pj.read_json(
                io.BytesIO(data),
                parse_options=opts,
                read_options=pj.ReadOptions(block_size=max(_BLOCK_BYTES, len(data))),
            )
        except (pa.ArrowInvalid, OSError):
            # Name the bad line (the Arrow reader only says which block).
            for _ in _journal_rows(block, path):
                pass
            raise DataFileError(f"{path}: cannot be read as a results journal", path=path) from None
        tables.append(table.select(SCHEMA.names).cast(SCHEMA))

    for no, line in lines:
        if check:
            for _ in _journal_rows([(no, line)], path):
                pass
        block.append((no, line))
        size += len(line)
        if size >= _BLOCK_BYTES:
            parse()
            block, size = [], 0
    parse()
    return pa.concat_tables(tables) if tables else SCHEMA.empty_table()


def _table_rows(path: Path) -> int:
    """Rows of a Parquet table, or -1 if it is missing or unreadable; DataFileError if it is not a regular file."""
    if not check_regular(path, "results table", missing_ok=True):
        return -1
    try:
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    except Exception:  # noqa: BLE001 - a torn or foreign file is simply rebuilt from the journal
        return -1


def _format_of(prov: dict, path: Path) -> int:
    """The sidecar's ``format``, a positive integer; DataFileError naming what it holds instead.

    A value that is not one (the text ``"1"``, ``1.0``, ``true``, nothing) is a malformed file, said as such:
    only a real integer above :data:`FORMAT` is a newer writer's directory, which its callers refuse.
    """
    if "format" not in prov:
        raise DataFileError(f"{path}: malformed results sidecar: it has no format (an integer)", path=path)
    fmt = prov["format"]
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        raise DataFileError(
            f"{path}: malformed results sidecar: format must be an integer, got {_json_kind(fmt)}", path=path
        )
    if fmt < 1:
        raise DataFileError(f"{path}: malformed results sidecar: format must be 1 or more, got {fmt}", path=path)
    return fmt


def _json_kind(value: object) -> str:
    """A JSON value in words, as a file's reader wrote it: ``the text '1'``, ``the number 1.5``, ``null``."""
    if isinstance(value, str):
        return f"the text {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"the number {value!r}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _read_provenance(path: Path) -> dict:
    text = read_text(path, "results provenance", max_bytes=64 << 20, streams=False)
    try:
        prov = json_loads(text)
        if not isinstance(prov, dict) or "spec" not in prov:
            raise ValueError("no spec")
    except (json.JSONDecodeError, ValueError) as e:
        raise DataFileError(f"{path}: not a Sudoku Lab results sidecar ({e})", path=path) from None
    return prov


# ------------------------------------------------------------ reading
@checked
@dataclass
class Results:
    """A results table read for analysis.

    Attributes
    ----------
    table : pyarrow.Table
        The rows, columns :data:`SCHEMA`.
    provenance : dict
        The sidecar (``{}`` for a legacy file).
    path : Path
        What was read.
    notes : list of str
        What the reader should know (runs not yet in the table, a legacy file).
    """

    table: Any
    provenance: dict = field(default_factory=dict)
    path: str | os.PathLike[str] | None = None
    notes: list = field(default_factory=list)

    def __len__(self) -> int:
        return self.table.num_rows

    def rows(self) -> list[dict]:
        """The rows as dicts (for small tables)."""
        return self.table.to_pylist()

    def column(self, name: str) -> np.ndarray:
        return self.table.column(name).to_numpy(zero_copy_only=False)


@checked
def results_from_rows(rows: list[dict], provenance: dict | None = None) -> Results:
    """Results of rows made by :func:`task_row` (kept in memory, not in a directory)."""
    lines = ((i, (json.dumps(r, default=json_default) + "\n").encode()) for i, r in enumerate(rows, 1))
    return Results(_journal_table(lines, Path("<memory>")), dict(provenance or {}), None, [])


@checked
def load_results(path: str | os.PathLike[str]) -> Results:
    """Read the runs of a results directory, its ``runs.parquet``, its ``runs.jsonl``, or a legacy file.

    A directory whose journal holds more runs than its table (a batch killed
    before it could rewrite the table) is read from the journal, with a note.
    Legacy files are the JSON-lines results of ``grades`` and ``compare`` from
    version 0.1.0 (a header line, then one run per line).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    DataFileError
        Missing, unreadable or not a results file, naming the line of a corrupt record.
    """
    p = Path(os.path.expanduser(str(path)))
    if not p.exists() and not p.is_symlink():
        raise DataFileError(f"results {p} do not exist", path=p)
    if not p.is_dir():
        check_regular(p, "results file")  # a device, a FIFO or a dangling symlink: one line saying so
    if p.is_file() and p.name not in (TABLE, JOURNAL, PROVENANCE):
        if p.suffix == ".parquet":
            return Results(_read_parquet(p), {}, p)
        return _load_legacy(p)
    d = p if p.is_dir() else p.parent
    prov_path, table_path, journal_path = d / PROVENANCE, d / TABLE, d / JOURNAL
    if not prov_path.exists() and not table_path.exists():
        raise DataFileError(f"{d} is not a results directory (no {TABLE} or {PROVENANCE})", path=d)
    prov = _read_provenance(prov_path) if prov_path.exists() else {}
    if prov and _format_of(prov, prov_path) > FORMAT:
        raise DataFileError(
            f"{prov_path}: results format {prov['format']} is newer than this sudoku-lab "
            f"{__version__} reads (format {FORMAT}); upgrade sudoku-lab",
            path=prov_path,
        )
    notes = []
    n_table = _table_rows(table_path)
    journal_rows = None
    if check_regular(journal_path, "results journal", missing_ok=True):
        with open_binary(journal_path, "results journal", streams=False) as fh:
            lines = _CompleteLines(fh, journal_path)
            journal_rows = sum(1 for _, line in lines if line.strip())
        if lines.partial:
            notes.append(f"{journal_path}: its last record is partial (a run cut off mid-write); it is left out")
    if journal_rows is not None and journal_rows != n_table:
        # check: a corrupt line is named, not hidden in an Arrow error
        table = _read_journal_table(journal_path, check=True)
        if n_table >= 0:
            notes.append(
                f"{d}: {table.num_rows - n_table} runs are in {JOURNAL} but not yet in {TABLE} (the batch "
                "was stopped before it could rewrite the table; running the same command again updates it)"
            )
        return Results(table, prov, d, notes)
    if n_table < 0:
        raise DataFileError(f"{table_path} cannot be read as a Parquet table", path=table_path)
    return Results(_read_parquet(table_path), prov, d, notes)


def _read_parquet(path: Path):
    import pyarrow.parquet as pq

    check_regular(path, "results table")
    try:
        table = pq.read_table(path)
    except Exception as e:  # noqa: BLE001 - pyarrow raises several kinds for a foreign or torn file
        raise DataFileError(f"{path} cannot be read as a Parquet table ({type(e).__name__})", path=path) from None
    missing = [n for n in SCHEMA.names if n not in table.column_names]
    if missing:
        raise DataFileError(f"{path} is not a Sudoku Lab results table (no column {', '.join(missing)})", path=path)
    return table.select(SCHEMA.names).cast(SCHEMA)


def _load_legacy(path: Path) -> Results:
    """A 0.1.0 results file of ``grades`` or ``compare``: a JSON header line, then one run per line."""
    with open_binary(path, "results file", streams=False) as fh:
        return _read_legacy(read_lines(fh, path, "results file", MAX_RECORD_BYTES), path)


def _read_legacy(lines: Iterator[tuple[int, bytes]], path: Path) -> Results:
    from ..model.puzzle import Puzzle

    _, first = next(lines, (1, b""))
    try:
        head = json_loads(decode(first, path, "results file"))["header"]
        if not isinstance(head, dict) or head.get("kind") not in ("grades", "compare"):
            raise KeyError("kind")
    except (json.JSONDecodeError, KeyError, TypeError):
        raise DataFileError(f"{path} line 1: not a Sudoku Lab results file (no header)", path=path, line=1) from None
    if head["kind"] == "grades":
        puzzles = [head["puzzle"]]
        solvers = {head["solver"]: head.get("params", {})}
    else:
        puzzles = list(head["puzzles"])
        solvers = {}
        for solver, params in head["configs"]:
            solvers.setdefault(solver, params)
    rows = []
    for i, raw in lines:
        line = decode(raw, path, "results file", first_line=i)
        if not line.strip():
            continue
        try:
            d = json_loads(line)
            if head["kind"] == "grades":
                givens, config, run = puzzles[0], d["solver"], int(d["seed"]) - int(head.get("seed0", 0))
            else:
                label, pi, _ = d["key"].rsplit("|", 2)
                givens, config, run = puzzles[int(pi)], label, int(d["seed"]) - int(head.get("seed0", 0))
            pz = Puzzle.parse(givens)
        except (json.JSONDecodeError, KeyError, ValueError, TypeError, PuzzleError) as e:
            if not raw.endswith(b"\n"):  # a partial last line (a run cut off mid-write)
                break
            raise DataFileError(f"{path} line {i}: corrupt run record ({e})", path=path, line=i) from None
        params = solvers.get(d["solver"], {})
        rows.append(
            {
                "task": d["key"],
                "config": config,
                "solver": d["solver"],
                "params": json.dumps(params),
                "puzzle_set": "",
                "puzzle": d.get("puzzle") or "",
                "givens": pz.to_line(),
                "box": pz.n,
                "run": run,
                "seed": int(d["seed"]),
                "until": head.get("until", ""),
                "solved": bool(d["solved"]),
                "status": d["status"],
                "reason": d["reason"],
                "iterations": int(d["iterations"]),
                "evaluations": int(d["evaluations"]),
                "restarts": int(d.get("extra", {}).get("restarts", 0) or 0),
                "cost": int(d["cost"]),
                "best_cost": int(d["best_cost"]),
                "seconds": float(d["seconds"]),
                "grid": grid_text(Puzzle.parse(d["grid"], n=pz.n, allow_clashes=True).grid),
                "extra": json.dumps(d.get("extra", {})),
                "host": "",
                "finished": None,
                "fingerprint": fingerprint(d["solver"], params, pz.to_line(), int(d["seed"]), head.get("until", "")),
            }
        )
    table = pa.Table.from_pylist(rows, schema=SCHEMA) if rows else SCHEMA.empty_table()
    return Results(
        table,
        {"kind": head["kind"], "legacy_header": head},
        path,
        [f"{path}: a results file of sudoku-lab 0.1.0 `{head['kind']}` (read as a table)"],
    )
