"""Dask scheduling: scheduler addresses, refusing workers of another version, an unreachable scheduler."""

from __future__ import annotations

import pytest

from sudoku_lab import __version__
from sudoku_lab.engine.cluster import ClusterError, _check_workers, client_for, parse_scheduler
from sudoku_lab.errors import ParameterError


@pytest.mark.parametrize(
    "text,parsed",
    [
        ("local:4", ("local", 4)),
        ("tcp://head:8786", ("address", "tcp://head:8786")),
        ("head.cluster:8786", ("address", "tcp://head.cluster:8786")),
        ("tls://10.0.0.1:8786", ("address", "tls://10.0.0.1:8786")),
    ],
)
def test_scheduler_forms(text, parsed):
    assert parse_scheduler(text) == parsed


@pytest.mark.parametrize(
    "text,message",
    [
        ("local:0", "local:N needs a number of workers from 1 to 1024"),
        ("local", "local:N needs a number"),
        ("head", "give a Dask scheduler's address (tcp://host:8786) or local:N"),
        ("http://x:1", "give a Dask"),
        ("head:99999", "the port must be a number from 1 to 65535"),
        ("tcp://head:0", "the port must be a number"),
    ],
)
def test_bad_scheduler_forms_name_what_is_understood(text, message):
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_scheduler(text)


class _FakeClient:
    def __init__(self, facts):
        self.facts = facts

    def run(self, fn, *args):
        return self.facts


def test_workers_of_another_version_or_without_a_solver_are_refused_before_any_run():
    ok = {"version": __version__, "missing": []}
    _check_workers(_FakeClient({"tcp://a:1": ok, "tcp://b:2": ok}), ("reseda",))
    with pytest.raises(
        ClusterError,
        match=f"Dask worker tcp://b:2 runs sudoku-lab 0.0.9, this is {__version__}: "
        "install the same version on every worker",
    ):
        _check_workers(_FakeClient({"tcp://a:1": ok, "tcp://b:2": {"version": "0.0.9", "missing": []}}), ("reseda",))
    with pytest.raises(ClusterError, match="Dask worker tcp://a:1 has no solver toy: install the plugin"):
        _check_workers(_FakeClient({"tcp://a:1": {"version": __version__, "missing": ["toy"]}}), ("toy",))
    with pytest.raises(ClusterError, match="the Dask cluster has no workers"):
        _check_workers(_FakeClient({}), ("reseda",))


# ------------------------------------------------ what answers at a --scheduler address that is not a scheduler
def _listener(behaviour):
    """A TCP listener on 127.0.0.1 in a daemon thread that treats every connection by ``behaviour(conn)``;
    its address, and an Event set once it has accepted a connection."""
    import socket
    import threading

    srv = socket.create_server(("127.0.0.1", 0))
    accepted = threading.Event()
    held = []

    def serve():
        while True:
            conn, _ = srv.accept()
            held.append(conn)  # kept open: a peer that closes would end the wait for a wrong reason
            accepted.set()
            behaviour(conn)

    threading.Thread(target=serve, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}", accepted


def _http_server():
    import http.server
    import threading

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.server_address[1]}"


def _closed_port():
    import socket

    with socket.create_server(("127.0.0.1", 0)) as s:
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def _connect_in_thread(address, timeout=2):
    """What ``client_for(address)`` raised, from a thread joined for at most a minute (a hang guard only:
    the old client waited for ever on a peer that says nothing)."""
    import threading

    out = {}

    def connect():
        try:
            with client_for(address, timeout=timeout):
                out["result"] = "connected"
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            out["result"] = e

    t = threading.Thread(target=connect, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), f"client_for({address!r}) still waiting after a minute"
    return out["result"]


def _garbage(conn):
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def _huge_length(conn):
    import struct

    conn.sendall(struct.pack("<Q", 2**62) + b"\x01")


def _half_a_handshake(conn):
    import struct

    conn.sendall(struct.pack("<Q", 58) + b"\x01\x00")


@pytest.mark.parametrize(
    "peer,message",
    [
        (
            lambda: _listener(lambda conn: None)[0],
            r"{a} accepted the connection but said nothing in 2 s; a Dask scheduler answers at once: is this the "
            r"scheduler's port \(8786 by default\), not its dashboard's \(8787\) or another server's\?",
        ),
        (_http_server, r"{a} accepted the connection but said nothing in 2 s"),
        (
            lambda: _listener(_garbage)[0],
            r"{a} is not a Dask scheduler: it sent 'HTTP/1.1 400 Bad Request', whose first 8 bytes read as a Dask "
            r"message's length are 3.5e\+18 bytes",
        ),
        (
            lambda: _listener(_huge_length)[0],
            r"{a} is not a Dask scheduler: it sent bytes 00 00 00 00 00 00 00 40 01, whose first 8 bytes read "
            r"as a Dask "
            r"message's length are 4.6e\+18 bytes",
        ),
        (
            lambda: _listener(_half_a_handshake)[0],
            r"{a} is not a Dask scheduler: it sent bytes 3a 00 00 00 00 00 00 00 01 00 and then nothing for 2 s",
        ),
        (lambda: _listener(lambda conn: conn.close())[0], r"{a} closed the connection without answering"),
        (_closed_port, r"nothing listens at {a} \(connection refused\); start a scheduler there with `dask scheduler`"),
    ],
    ids=["silent", "http-server", "http-reply", "huge-length", "half-handshake", "closes", "closed-port"],
)
def test_a_peer_that_is_not_a_scheduler_is_one_line_in_bounded_time(peer, message):
    """Before: a silent peer or a web server hung for ever, an HTTP reply was read as a 3.5e18-byte message
    ("out of memory"), a closed port was retried until the timeout."""
    import re

    address = peer()
    err = _connect_in_thread(address)
    assert isinstance(err, ClusterError), err
    assert re.fullmatch(message.format(a=re.escape(address)) + ".*", str(err)), str(err)
    assert "\n" not in str(err)


def test_a_real_scheduler_passes_and_its_worker_is_told_apart():
    """The contrast: a Dask scheduler (in-process, threads) is connected to; its worker's address is refused,
    naming the scheduler (before: Dask's client raised a raw TypeError from the worker's ``identity``)."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        scheduler = cluster.scheduler_address
        assert _connect_in_thread(scheduler) == "connected"
        worker = next(iter(cluster.scheduler_info["workers"]))
        err = _connect_in_thread(worker)
        assert isinstance(err, ClusterError), err
        assert str(err) == (f"{worker} is a Dask worker, not a scheduler; give its scheduler's address ({scheduler})")


def test_a_stop_request_ends_the_wait_for_a_silent_peer_at_once():
    """Connecting is polled for the stop request (Ctrl-C, SIGTERM): it ends with Stopped, not after the timeout."""
    import threading

    from sudoku_lab.engine.cluster import Stopped

    address, accepted = _listener(lambda conn: None)
    out = {}

    def connect():
        try:
            with client_for(address, timeout=3600, should_stop=accepted.is_set):
                out["result"] = "connected"
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            out["result"] = e

    t = threading.Thread(target=connect, daemon=True)
    t.start()
    t.join(60)  # a hang guard; the timeout asked for is an hour
    assert not t.is_alive() and isinstance(out["result"], Stopped)


@pytest.mark.parametrize("sig,status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_ends_a_batch_waiting_on_a_silent_peer(tmp_path, sig, status):
    """``sudoku-lab batch --scheduler`` at a listener that accepts and says nothing: SIGTERM or the first Ctrl-C
    ends it with 128 + the signal and the usual lines (before: it waited for ever, whatever the signal)."""
    import signal
    import subprocess
    import sys

    address, accepted = _listener(lambda conn: None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sudoku_lab",
            "batch",
            "--algo",
            "reseda",
            "--puzzles",
            "reseda_fig3_1_easy",
            "--until",
            "solved,100it",
            "--out",
            str(tmp_path / "r"),
            "--quiet",
            "--scheduler",
            address,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert accepted.wait(120), "the batch never connected"
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=60)  # a hang guard, not a measure of speed
    finally:
        proc.kill()
    assert proc.returncode == status, err
    assert err.splitlines() == [
        "",
        "stopping: the finished runs are kept (Ctrl-C again to quit at once)",
        "interrupted after 0 of 1 runs; run the same command to resume",
    ]


def test_the_batch_command_says_in_one_line_what_answered(tmp_path, capsys):
    from sudoku_lab.cli import main

    address, _ = _listener(_garbage)
    assert (
        main(
            [
                "batch",
                "--algo",
                "reseda",
                "--puzzles",
                "reseda_fig3_1_easy",
                "--out",
                str(tmp_path / "r"),
                "--quiet",
                "--scheduler",
                address,
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"sudoku-lab: error: {address} is not a Dask scheduler: it sent 'HTTP/1.1 400 "
        "Bad Request', whose first 8 bytes read as a Dask message's length are 3.5e+18 "
        "bytes\n"
    )


def test_what_the_dask_workers_compile_is_said_by_the_client(capsys):
    """The workers' warm-up sends each compile to the client, which says it once (before: a minute of silence
    while every worker compiled). An in-process cluster shares this process's solver registry."""
    import logging

    from distributed import Client, LocalCluster
    from test_warmup import _lazy_solver  # tests/test_warmup.py

    from sudoku_lab.engine.cluster import prepare_workers
    from sudoku_lab.solvers import register, unregister

    register(_lazy_solver("tmp-lazy-dask"))
    try:
        with (
            LocalCluster(
                n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0", silence_logs=logging.ERROR
            ) as cluster,
            Client(cluster) as client,
        ):
            capsys.readouterr()
            prepare_workers(client, ("tmp-lazy-dask",))
            lines = capsys.readouterr().err.splitlines()
    finally:
        unregister("tmp-lazy-dask")
    assert [line for line in lines if line.startswith("compiling")] == [
        "compiling kernels (1 of 1): tmp-lazy-dask: test_warmup._lazy_solver.<locals>.bump (not cached)"
    ]
    assert lines[-1].startswith("compiled 1 kernel in ")


def test_a_local_cluster_does_not_need_the_dashboard_port():
    """Port 8787 taken (another local cluster, a dashboard): Dask's fallback to another port leaked a socket
    (a ResourceWarning, an error under the test suite's warning filter). The local cluster takes any free port."""
    import gc
    import socket
    import warnings

    from sudoku_lab.engine.cluster import local_cluster

    taken = socket.socket()
    try:
        taken.bind(("0.0.0.0", 8787))
        taken.listen()
    except OSError:
        pass  # already taken by something else: the same situation
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with local_cluster(1) as client:
                assert len(client.scheduler_info()["workers"]) == 1
            gc.collect()
    finally:
        taken.close()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


class _Run:
    """What run_chunk gives for a run, as far as dask_tasks reads it."""

    def __init__(self, value):
        self.value, self.reason, self.seconds = value, "solved", 0.01


def _square_chunk(tasks, should_stop):
    return [_Run(t * t) for t in tasks]


@pytest.mark.timeout(120)
def test_a_result_dask_loses_track_of_is_run_again(monkeypatch):
    """A task whose result never reaches the client (seen once in CI, a worker killed mid-batch: the batch waited
    until CI's 90-minute limit) is found at two quiet checks in a row and run again; the batch ends with each
    task's result once."""
    import logging

    import distributed
    from distributed import Client, LocalCluster

    from sudoku_lab.engine import cluster
    from sudoku_lab.engine._chunks import ChunkSizer

    forgotten = []

    class Forgetful(distributed.as_completed):
        def add(self, future):
            if not forgotten:  # the first future is never tracked: its result never comes
                forgotten.append(future.key)
                return
            super().add(future)

    monkeypatch.setattr(distributed, "as_completed", Forgetful)
    monkeypatch.setattr(cluster, "QUIET_SECONDS", 0.2)
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0", silence_logs=logging.ERROR
        ) as lc,
        Client(lc) as client,
    ):
        got = list(cluster.dask_tasks(client, range(6), _square_chunk, ChunkSizer(target=0.0)))
    assert len(forgotten) == 1
    assert sorted((i, r.value) for i, r in got) == [(i, i * i) for i in range(6)]


@pytest.mark.timeout(120)
def test_a_chunk_lost_again_and_again_ends_the_batch_with_a_clear_error(monkeypatch):
    import logging

    import distributed
    from distributed import Client, LocalCluster

    from sudoku_lab.engine import cluster
    from sudoku_lab.engine._chunks import ChunkSizer

    class Forgetful(distributed.as_completed):
        def add(self, future):
            pass  # no result ever comes

    monkeypatch.setattr(distributed, "as_completed", Forgetful)
    monkeypatch.setattr(cluster, "QUIET_SECONDS", 0.1)
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0", silence_logs=logging.ERROR
        ) as lc,
        Client(lc) as client,
    ):
        with pytest.raises(ClusterError, match="lost the result of one chunk of runs 4 times"):
            list(cluster.dask_tasks(client, range(1), _square_chunk, ChunkSizer(target=0.0)))
