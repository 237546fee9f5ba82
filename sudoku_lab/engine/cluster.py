"""Running the same tasks on a Dask cluster (``--scheduler tcp://host:8786`` or ``--scheduler local:N``).

A task is the same picklable :class:`~sudoku_lab.engine.experiments.Task` the process
pool runs, and a worker runs it with the same
:func:`~sudoku_lab.engine.experiments.run_task`, so a run gives the same result on a
laptop and on a cluster. Results stream back as they finish and go into the
same resumable results directory.

What Dask does and this module does not: scheduling, moving tasks off a worker
that dies (Dask's scheduler re-runs a task whose worker died, up to its
``distributed.scheduler.allowed-failures``, 3 by default), and workers joining
or leaving. What this module adds: the kernels are warmed on every worker
before it runs a task (a :class:`~distributed.WorkerPlugin`, so a worker that
joins later is warmed too), the workers' sudoku-lab version and solvers are
checked against this one's before anything runs, at most a few tasks per
worker thread are queued at a time (a million-run batch is never submitted at
once), and a stop request (Ctrl-C) reaches the runs in flight through a Dask
:class:`~distributed.Event` they poll twice a second.

``local:N`` starts a :class:`~distributed.LocalCluster` of N single-threaded
worker processes on this machine and closes it at the end.

An address is checked before Dask's client is given it (:func:`probe_scheduler`):
within :data:`CONNECT_SECONDS` the peer must accept a connection, answer
Dask's handshake and say it is a scheduler, or the batch ends with one line
saying what answered instead (nothing, a closed port, an HTTP server, a Dask
worker). Dask's own client would wait for ever on a peer that accepts and says
nothing, and reads the first 8 bytes of any answer as the length of a message
to allocate: an HTTP server's ``HTTP/1.1`` is 3.5e18 bytes, which ended in
"out of memory". Connecting, preparing the workers and stopping all wait
on the batch's stop request (Ctrl-C, SIGTERM) too, so it ends the command
within about a second whatever the cluster is doing.
"""

from __future__ import annotations

import logging
import re
import socket
import struct
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from .._checks import checked
from ..errors import ParameterError, SudokuLabError
from ._chunks import ChunkSizer, finished_runs, next_chunk, remaining

if TYPE_CHECKING:
    import distributed

__all__ = [
    "parse_scheduler",
    "dask_tasks",
    "prepare_workers",
    "ClusterError",
    "Stopped",
    "local_cluster",
    "client_for",
    "probe_scheduler",
    "CONNECT_SECONDS",
]

_log = logging.getLogger(__name__)

#: Seconds a scheduler has to accept a connection, answer the handshake and say what it is (a scheduler
#: answers in milliseconds; this is for a loaded one across a slow network).
CONNECT_SECONDS = 10.0
#: Seconds the runs in flight have to end once told to stop (they poll twice a second) before they are
#: left to the scheduler to cancel.
STOP_SECONDS = 3.0
#: Seconds without a result after which the batch asks the scheduler what became of its tasks in flight. A
#: task the scheduler no longer knows, or holds in memory while its result has not reached the client, two
#: asks running, is submitted again (runs are seeded: the same rows) instead of being waited for forever.
QUIET_SECONDS = 30.0
#: How often one chunk is submitted again before the batch gives up on the cluster.
RESUBMITS = 3
#: The largest message the probe reads: a handshake is under 100 bytes and a scheduler's identity about
#: a kilobyte per worker. Read as a Dask message's length, the first 8 bytes of an HTTP reply are 3.5e18.
_MAX_MESSAGE = 64 * 2**20


class ClusterError(SudokuLabError):
    """The cluster cannot run the batch: unreachable, not a scheduler, a worker of another version, a task that
    kills workers."""


class Stopped(Exception):
    """A stop request (Ctrl-C, SIGTERM) came while connecting to the cluster or preparing its workers."""


_ADDRESS = re.compile(r"(tcp|tls|ucx|inproc|ws|wss)://\S+")
_HOSTPORT = re.compile(r"[A-Za-z0-9_.\-\[\]:]+:\d{1,5}")


@checked
def parse_scheduler(text: str) -> tuple[str, object]:
    """``("local", N)`` for ``local:N``, ``("address", "tcp://host:port")`` for an address.

    A bare ``host:port`` means ``tcp://host:port``.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        For anything else, with the forms that are understood.
    """
    t = str(text).strip()
    if t.startswith("local:") or t == "local":
        count = t.partition(":")[2]
        if not count.isdigit() or not 1 <= int(count) <= 1024:
            raise ParameterError(
                f"--scheduler {text!r}: local:N needs a number of workers from 1 to 1024, e.g. local:2",
                name="scheduler",
            )
        return "local", int(count)
    if _HOSTPORT.fullmatch(t) and not _ADDRESS.fullmatch(t):
        t = "tcp://" + t
    if _ADDRESS.fullmatch(t):
        port = t.rpartition(":")[2]
        if t.startswith("tcp://") and not (port.isdigit() and 1 <= int(port) <= 65535):
            raise ParameterError(
                f"--scheduler {text!r}: the port must be a number from 1 to 65535, e.g. tcp://head:8786",
                name="scheduler",
            )
        return "address", t
    raise ParameterError(
        f"--scheduler {text!r}: give a Dask scheduler's address (tcp://host:8786) or local:N "
        "for a local cluster of N worker processes",
        name="scheduler",
    )


@checked
@contextmanager
def local_cluster(workers: int, should_stop: Callable[[], bool] | None = None):
    """A :class:`~distributed.LocalCluster` of ``workers`` single-threaded processes, and a client of it.

    Raises
    ------
    Stopped
        ``should_stop()`` became True while the workers were starting.
    """
    from distributed import Client, LocalCluster

    def start():
        # The scheduler serves HTTP whatever its dashboard address; None means port 8787, taken by any other
        # local cluster (then its fallback leaks a socket), so any free port.
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        )
        try:
            return cluster, Client(cluster)
        except BaseException:
            cluster.close()
            raise

    cluster, client = _stoppable(
        start, "starting the local Dask cluster", should_stop, discard=lambda made: (made[1].close(), made[0].close())
    )
    try:
        with client:
            yield client
    finally:
        cluster.close()


@contextmanager
@checked
def client_for(scheduler: str, timeout: float = CONNECT_SECONDS, should_stop: Callable[[], bool] | None = None):
    """A Dask client of ``scheduler`` (``tcp://host:port``, or ``local:N``: a local cluster started for it and
    closed with the client).

    A ``tcp://`` address is probed first (:func:`probe_scheduler`): the client is made only once a Dask
    scheduler has answered there.

    Parameters
    ----------
    scheduler : str
        As :func:`parse_scheduler` reads it.
    timeout : float
        Seconds for connecting, the handshake and the client's own connection, together.
    should_stop : callable, optional
        Polled every 50 ms; True ends the wait at once with :class:`Stopped`.

    Raises
    ------
    ClusterError
        Nothing answers, or what answers is not a Dask scheduler, or not within ``timeout``.
    Stopped
        ``should_stop()`` became True first.
    """
    kind, value = parse_scheduler(scheduler)
    if kind == "local":
        with local_cluster(int(value), should_stop) as client:
            yield client
        return
    from distributed import Client

    deadline = time.monotonic() + timeout
    if value.startswith("tcp://"):
        _stoppable(lambda: probe_scheduler(value, timeout), f"connecting to {value}", should_stop)

    def connect():
        try:
            return Client(value, timeout=max(1.0, deadline - time.monotonic()))
        except (OSError, TimeoutError) as e:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {value}: {e}; start one with `dask scheduler` "
                f"and workers with `dask worker {value}` (each with sudoku-lab installed)"
            ) from None
        except MemoryError:  # another protocol's bytes read as a message length (see probe_scheduler)
            raise ClusterError(
                f"{value} is not a Dask scheduler: it answered with a message too large to hold"
            ) from None
        except Exception as e:  # noqa: BLE001 - e.g. a worker's address (not probed: not tcp://) answers "identity"
            raise ClusterError(f"cannot use {value} as a Dask scheduler: {type(e).__name__}: {e}") from None

    client = _stoppable(
        connect,
        f"connecting to {value}",
        should_stop,
        timeout=deadline - time.monotonic() + 1.0,
        discard=lambda c: c.close(timeout=1),
    )
    try:
        yield client
    finally:
        client.close(timeout=2)


def _stoppable(
    fn: Callable,
    what: str,
    should_stop: Callable[[], bool] | None,
    timeout: float | None = None,
    discard: Callable | None = None,
):
    """``fn()``, run on a helper thread so that a stop request ends the wait at once (:class:`Stopped`).

    The blocking calls of Dask's client (and of a socket) do not return for a signal: the signal
    handler only sets the batch's stop flag, which nothing inside them reads. After ``timeout`` seconds
    the wait ends with a ClusterError. What ``fn`` makes after the wait was
    given up is handed to ``discard`` (a client to close).
    """
    stop = should_stop or (lambda: False)
    if stop():
        raise Stopped(what)
    deadline = None if timeout is None else time.monotonic() + timeout
    box: dict = {}
    done = threading.Event()
    lock = threading.Lock()

    def target():
        try:
            value = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = e
        else:
            with lock:
                box["value"] = value
                orphan = box.get("abandoned", False)
            if orphan and discard is not None:
                try:
                    discard(value)
                except Exception:  # noqa: BLE001 - best effort for a result nobody waits for
                    pass
        finally:
            done.set()

    threading.Thread(target=target, daemon=True, name=f"sudoku-lab: {what}").start()
    try:
        while not done.wait(0.05):
            if stop():
                raise Stopped(what)
            if deadline is not None and time.monotonic() > deadline:
                raise ClusterError(f"{what}: no answer within {timeout:g} s")
    except BaseException:  # a stop, the deadline or a second Ctrl-C: whatever fn makes later is discarded
        with lock:
            box["abandoned"] = True
            late = box.pop("value", None)
        if late is not None and discard is not None:
            threading.Thread(target=discard, args=(late,), daemon=True).start()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


# ------------------------------------------------------------ the probe
@checked
def probe_scheduler(address: str, timeout: float = CONNECT_SECONDS) -> dict:
    """Check that a Dask scheduler answers at a ``tcp://`` address, in bounded time and memory; its identity.

    Speaks Dask's protocol as its client does (both ends send a handshake
    message, then the client asks the server's ``identity``), with a socket
    of its own so that every read is bounded: in time by ``timeout`` (all of
    it together), in size by reading no message longer than 64 MiB. Nothing
    the peer sends is unpickled.

    Returns
    -------
    dict
        The scheduler's ``identity`` (``type``, ``id``, ``address``, ``workers``...).

    Raises
    ------
    ClusterError
        One line saying what is there instead: nothing (connection refused,
        no such host), a peer that says nothing within ``timeout`` (a web
        server, such as the scheduler's dashboard, waits for a request), a
        peer that does not speak Dask's protocol (what it sent is quoted), or
        a Dask worker or nanny (its scheduler is named).
    """
    from distributed.comm.addressing import parse_host_port

    deadline = time.monotonic() + timeout
    host, port = parse_host_port(address.removeprefix("tcp://"))
    hint = "start a scheduler there with `dask scheduler`, or check the address"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise ClusterError(f"nothing listens at {address} (connection refused); {hint}") from None
    except TimeoutError:
        raise ClusterError(
            f"{address} did not accept a connection within {timeout:g} s (a firewall, or no such machine up); {hint}"
        ) from None
    except OSError as e:
        from ..files import os_reason

        raise ClusterError(f"cannot reach {address}: {os_reason(e)}; {hint}") from None
    with sock:
        comm = _Comm(sock, address, deadline, timeout)
        comm.send({"compression": None, "python": tuple(sys.version_info)[:3], "pickle-protocol": 5})
        hello = comm.receive()
        if not (isinstance(hello, dict) and {"compression", "python", "pickle-protocol"} <= set(hello)):
            raise ClusterError(f"{address} is not a Dask scheduler: its first message is not Dask's handshake")
        comm.send({"op": "identity", "reply": True})
        ident = comm.receive()
        comm.send({"op": "close", "reply": False})
    kind = ident.get("type") if isinstance(ident, dict) else None
    if kind == "Scheduler":
        return ident
    if kind in ("Worker", "Nanny"):
        owner = ident.get("scheduler")
        raise ClusterError(
            f"{address} is a Dask {kind.lower()}, not a scheduler; give its scheduler's address"
            + (f" ({owner})" if isinstance(owner, str) else "")
        )
    raise ClusterError(f"{address} speaks Dask's protocol but is not a scheduler (it says it is {kind!r})")


class _Comm:
    """Dask's TCP framing over a plain socket, every read bounded in time and size (see :func:`probe_scheduler`).

    A message on the wire: its length (8 bytes, little-endian), then the frames packed by
    :func:`distributed.protocol.utils.pack_frames` (their count, their lengths, their bytes).
    """

    def __init__(self, sock: socket.socket, address: str, deadline: float, timeout: float):
        self.sock, self.address, self.deadline, self.timeout = sock, address, deadline, timeout
        self.seen = b""  # the first bytes the peer sent, to quote when they are not Dask's

    def send(self, msg) -> None:
        from distributed.protocol import dumps
        from distributed.protocol.utils import pack_frames

        body = pack_frames(dumps(msg))
        try:
            self.sock.settimeout(max(0.001, self.deadline - time.monotonic()))
            self.sock.sendall(struct.pack("<Q", len(body)) + body)
        except OSError:
            pass  # a peer that closed or stalls is reported by the next read, which says what it sent

    def receive(self):
        from distributed.protocol import loads
        from distributed.protocol.utils import unpack_frames

        (size,) = struct.unpack("<Q", self._read(8))
        if size > _MAX_MESSAGE:
            self._more()
            raise self._not_dask(
                f"{self._quote()}, whose first 8 bytes read as a Dask message's length are {size:.2g} bytes"
            )
        try:
            frames, missing = unpack_frames(self._read(size), partial=True)
            for n in missing:
                if n > _MAX_MESSAGE:
                    raise ValueError(n)
                frames.append(self._read(n))
            return loads(frames, deserialize=False)  # never unpickle what an unknown peer sends
        except ClusterError:
            raise
        except Exception:  # noqa: BLE001 - any undecodable answer means the same
            raise self._not_dask(f"{self._quote()}, which is not a Dask message") from None

    def _read(self, n: int) -> bytes:
        parts, got = [], 0
        while got < n:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self._silent()
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(min(n - got, 1 << 20))
            except TimeoutError:
                raise self._silent() from None
            except OSError:  # reset: closed before or while reading our handshake; the same for the user
                data = b""
            if not data:
                if not self.seen:
                    raise ClusterError(
                        f"{self.address} closed the connection without answering: it is not a Dask scheduler"
                    )
                raise self._not_dask(f"{self._quote()} and closed the connection")
            if len(self.seen) < 64:
                self.seen += data[: 64 - len(self.seen)]
            parts.append(data)
            got += len(data)
        return b"".join(parts)

    def _more(self) -> None:
        """Read what else the peer has sent by now (up to 64 bytes, 0.2 s at most), to quote it."""
        try:
            self.sock.settimeout(0.2)
            while len(self.seen) < 64 and b"\n" not in self.seen:
                data = self.sock.recv(64 - len(self.seen))
                if not data:
                    break
                self.seen += data
        except OSError:
            pass

    def _silent(self) -> ClusterError:
        if self.seen:
            return self._not_dask(f"{self._quote()} and then nothing for {self.timeout:g} s")
        return ClusterError(
            f"{self.address} accepted the connection but said nothing in {self.timeout:g} s; a Dask "
            "scheduler answers at once: is this the scheduler's port (8786 by default), not its "
            "dashboard's (8787) or another server's?"
        )

    def _not_dask(self, what: str) -> ClusterError:
        return ClusterError(f"{self.address} is not a Dask scheduler: it sent {what}")

    def _quote(self) -> str:
        text = self.seen.split(b"\n")[0].strip()
        if text and all(32 <= b < 127 for b in text):
            return repr(text.decode("ascii")[:40])
        return f"bytes {self.seen[:16].hex(' ')}" + (" ..." if len(self.seen) > 16 else "")


def _worker_facts(solvers: tuple) -> dict:
    """On a worker: its sudoku-lab version and which of ``solvers`` it lacks."""
    from .. import __version__
    from ..solvers import registry

    return {"version": __version__, "missing": [s for s in solvers if s not in registry()]}


def _check_workers(client, solvers: tuple, should_stop: Callable[[], bool] | None = None) -> None:
    from .. import __version__

    facts = _stoppable(
        lambda: client.run(_worker_facts, solvers), "asking the Dask workers their versions", should_stop
    )
    if not facts:
        raise ClusterError("the Dask cluster has no workers; start some with `dask worker ADDRESS`")
    for worker, f in facts.items():
        if f["version"] != __version__:
            raise ClusterError(
                f"Dask worker {worker} runs sudoku-lab {f['version']}, this is {__version__}: "
                "install the same version on every worker"
            )
        if f["missing"]:
            raise ClusterError(
                f"Dask worker {worker} has no solver {', '.join(f['missing'])}: install the plugin "
                "that provides it on every worker"
            )


def _warm_plugin(solvers: tuple, token: str):
    from distributed import WorkerPlugin

    class WarmUp(WorkerPlugin):
        """Load (or compile) the batch's kernels on each worker before it runs a task.

        On a thread, not the worker's event loop: compiling takes a minute, and meanwhile the worker
        keeps answering the scheduler and sends what it compiles as Dask events (``token``, its
        address, a count, then :func:`~sudoku_lab.stepping.warmup.warm_up`'s ``on_compile`` arguments) for the
        client to say. The worker takes no task before ``setup`` ends either way.
        """

        name = "sudoku-lab-warm-up"

        def __init__(self, names, token):
            self.names, self.token = names, token

        async def setup(self, worker):
            import asyncio

            from ..stepping.warmup import warm_up

            sent = []

            def said(*what):
                worker.log_event(_COMPILING_TOPIC, [self.token, worker.address, len(sent), *what])
                sent.append(what)

            await asyncio.get_running_loop().run_in_executor(None, lambda: warm_up(self.names, on_compile=said))
            if sent:  # events leave in batches every few ms: let them reach the scheduler before this answer
                await asyncio.sleep(_EVENTS_SECONDS)

    return WarmUp(solvers, token)


#: The Dask event topic on which workers say what they compile while warming up.
_COMPILING_TOPIC = "sudoku-lab-compiling"
#: Seconds a worker that compiled waits before it answers that its warm-up is over, for its last events to
#: reach the scheduler first (they are sent in batches every few milliseconds).
_EVENTS_SECONDS = 0.2


def _run_on_worker(run_chunk: Callable, tasks: list, stop_name: str):
    """``run_chunk(tasks, should_stop)`` on a Dask worker, stopping early once the client sets the batch's stop
    event."""
    checked_at = time.monotonic()
    stop = False
    event: distributed.Event | None = None  # made on the first check

    def should_stop() -> bool:
        nonlocal checked_at, stop, event
        now = time.monotonic()
        if not stop and now - checked_at >= 0.5:
            checked_at = now
            from distributed import Event

            if event is None:
                event = Event(stop_name)
            stop = event.is_set()
        return stop

    return run_chunk(tasks, should_stop)


@checked
def prepare_workers(client: distributed.Client, solvers: tuple, should_stop: Callable[[], bool] | None = None) -> None:
    """Check every worker's sudoku-lab and solvers, and warm the kernels of ``solvers`` on each (and on any
    worker that joins later).

    Raises
    ------
    ClusterError
        A worker of another version, or without one of the solvers.
    Stopped
        ``should_stop()`` became True first (compiling on the workers can take a minute).
    """
    from ..stepping.warmup import CompileNotice

    _check_workers(client, solvers, should_stop)
    notice = CompileNotice()
    token = uuid.uuid4().hex
    seen: set = set()
    lock = threading.Lock()

    def said(event) -> None:
        # As they come (the client's thread), then once more from the scheduler's log at the end (this
        # thread), for those still on their way when the warm-up ended; each is said once.
        msg = event[1]
        if not (isinstance(msg, (list, tuple)) and len(msg) == 7 and msg[0] == token):
            return  # another batch's, kept in the scheduler's log
        with lock:
            if tuple(msg[1:3]) in seen:
                return
            seen.add(tuple(msg[1:3]))
        notice(*msg[3:])

    client.subscribe_topic(_COMPILING_TOPIC, said)
    finished = False
    try:
        _stoppable(
            lambda: client.register_plugin(_warm_plugin(solvers, token)),
            "warming the kernels on the Dask workers",
            should_stop,
        )
        finished = True
        for event in _stoppable(
            lambda: client.get_events(_COMPILING_TOPIC),
            "reading the Dask workers' events",
            should_stop,
            timeout=CONNECT_SECONDS,
        ):
            said(event)
    finally:
        client.unsubscribe_topic(_COMPILING_TOPIC)
        notice.close(finished)


@checked
def dask_tasks(
    client: distributed.Client,
    tasks: Iterable,
    run_chunk: Callable,
    sizer: ChunkSizer,
    should_stop: Callable[[], bool] | None = None,
    per_thread: int = 2,
) -> Iterator[tuple[int, object]]:
    """Run tasks on a Dask cluster, yielding ``(index, result)`` as each finishes (the contract of
    :func:`~sudoku_lab.engine.experiments.run_tasks`).

    Parameters
    ----------
    client : distributed.Client
        Connected (:func:`client_for`), its workers checked and warmed (:func:`prepare_workers`); left open.
    tasks : iterable of Task
        Consumed lazily: ``per_thread`` chunks per worker thread are queued at a time.
    run_chunk : callable
        ``run_chunk(tasks, should_stop) -> results`` (:func:`sudoku_lab.engine.experiments.run_chunk`), run on a
        worker.
    sizer : ChunkSizer
        How many runs go as one Dask task. Scheduling a task costs a few milliseconds of the
        scheduler's and the client's time, so runs of a few milliseconds go several at a time (the
        engine's sizer aims at about 0.2 s of work and remembers earlier batches' run times).
    should_stop : callable, optional
        Polled at least every 50 ms; True stops promptly: the runs in
        flight are told to stop (they end within half a second and are not
        yielded), every run that had finished is yielded first.

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ClusterError
        A task killed its workers more often than Dask allows (``KilledWorker``).
    """
    from distributed import Event, as_completed

    stop = should_stop or (lambda: False)
    src = iter(tasks)
    queue = enumerate(src)
    batch = uuid.uuid4().hex[:12]
    stop_name = f"sudoku-lab-stop-{batch}"
    threads = max(1, sum(client.nthreads().values()))
    event = Event(stop_name, client=client)
    index: dict = {}  # key -> the indices of the chunk's tasks
    live: dict = {}  # key -> its future, until its results are taken
    # Results are gathered inside the client's event loop (with_results=True): gathering one from a
    # worker that dies meanwhile is then Dask's own retry, not a call from this thread racing it.
    ac = as_completed(with_results=True, raise_errors=False)
    counter = 0

    chunks: dict = {}  # key -> the chunk it runs, to submit again
    tries: dict = {}  # key -> how often its chunk was submitted before
    suspects: set = set()  # keys the last quiet check found stranded
    news = time.monotonic()  # when the last result came (or the last quiet check ran)

    def submit(chunk, tried: int = 0) -> None:
        nonlocal counter
        key = f"sudoku-lab-{batch}-{counter}"
        counter += 1
        fut = client.submit(_run_on_worker, run_chunk, [t for _, t in chunk], stop_name, key=key, pure=False)
        index[key] = [i for i, _ in chunk]
        live[key] = fut
        chunks[key] = chunk
        tries[key] = tried
        ac.add(fut)

    def resubmit_stranded() -> None:
        # A result Dask lost track of (seen once, with a worker killed mid-batch: the batch waited until CI's
        # limit): a key stranded at two quiet checks in a row is cancelled and its chunk submitted again.
        nonlocal suspects
        stranded = _stranded(client, list(live))
        for key in stranded.keys() & suspects:
            if tries[key] >= RESUBMITS:
                raise ClusterError(
                    f"the Dask scheduler lost the result of one chunk of runs {tries[key] + 1} times; the finished "
                    "runs are kept, and running the batch again runs only the missing ones"
                )
            _log.warning(
                "Dask lost track of %s (%s at two checks %g s apart): submitted again",
                key,
                stranded[key],
                QUIET_SECONDS,
            )
            old = live.pop(key)
            index.pop(key)
            _quick(lambda f=old: client.cancel([f], force=True))
            submit(chunks.pop(key), tries.pop(key) + 1)
        suspects = stranded.keys() - suspects

    exhausted = False
    try:
        while True:
            while not exhausted and len(live) < per_thread * threads and not stop():
                chunk = next_chunk(queue, sizer.size(remaining(src), threads))
                if not chunk:
                    exhausted = True
                    break
                submit(chunk)
            if not live:
                break
            if stop():
                # The runs in flight end within half a second, as "cancelled"; those that do not end in
                # STOP_SECONDS (a worker or the scheduler gone quiet) are left to the finally below.
                _quick(event.set)
                until = time.monotonic() + STOP_SECONDS
                while live and time.monotonic() < until:
                    _wait_ready(ac)
                    for fut, res in ac.next_batch(block=False):
                        if live.pop(fut.key, None) is not fut:
                            continue
                        if fut.status == "finished":
                            yield from finished_runs(index.pop(fut.key), res)
                break
            if not ac.has_ready():
                _wait_ready(ac)
                if time.monotonic() - news >= QUIET_SECONDS:
                    news = time.monotonic()
                    resubmit_stranded()
                continue
            news = time.monotonic()
            for fut, res in ac.next_batch(block=False):
                if fut.key not in live or live[fut.key] is not fut:
                    continue  # a result given up on and submitted again, arriving after all
                live.pop(fut.key)
                chunks.pop(fut.key)
                tries.pop(fut.key)
                suspects.discard(fut.key)
                results = _result(fut, res)
                sizer.add(results)
                yield from finished_runs(index.pop(fut.key), results)
    finally:
        if live:
            _quick(event.set)
            _quick(lambda: client.cancel(list(live.values()), force=True))


def _task_states(keys: list, dask_scheduler=None) -> dict:
    """On the scheduler (``run_on_scheduler`` passes it by name): the state of each of ``keys`` it knows."""
    assert dask_scheduler is not None
    return {k: dask_scheduler.tasks[k].state for k in keys if k in dask_scheduler.tasks}


def _stranded(client, keys: list) -> dict:
    """The ``keys`` a result will not come for by itself, with their states: unknown to the scheduler, or held
    in its memory (a finished task whose result has not reached the client). A scheduler that does not answer in
    :data:`CONNECT_SECONDS`, or refuses to run code, strands none (the batch waits on as before)."""
    try:
        states = _stoppable(
            lambda: client.run_on_scheduler(_task_states, keys),
            "asking the Dask scheduler about the batch's tasks",
            None,
            timeout=CONNECT_SECONDS,
        )
    except Exception:  # noqa: BLE001 - a check on the side; the results still come the usual way
        return {}
    found = {k: states.get(k, "forgotten") for k in keys}
    return {k: state for k, state in found.items() if state in ("forgotten", "released", "memory")}


def _wait_ready(ac) -> None:
    """Block until a result comes (as_completed notifies its thread condition), or 50 ms: the caller then
    looks at its stop request. Polling instead costs the CPU the workers share on a small machine."""
    with ac.thread_condition:
        if not ac.has_ready():
            ac.thread_condition.wait(timeout=0.05)


def _quick(call: Callable) -> None:
    """A request to the scheduler on the way out, given up after a second: one gone quiet must not hold up
    a stop (the scheduler cancels the tasks of a client that leaves anyway)."""
    try:
        _stoppable(call, "telling the Dask scheduler to stop", None, timeout=1.0)
    except Exception:  # noqa: BLE001 - best effort, see above
        pass


def _result(fut, res):
    """A finished task's result; a task that killed its workers is a ClusterError, any other error re-raised."""
    from distributed.scheduler import KilledWorker

    if fut.status == "finished":
        return res
    if isinstance(res, KilledWorker):
        raise ClusterError(f"a run killed the Dask workers that ran it ({res}); the finished runs are kept")
    raise res
