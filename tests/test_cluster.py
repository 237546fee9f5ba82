"""Dask scheduling: scheduler addresses, refusing workers of another version, an unreachable scheduler."""

from __future__ import annotations

import pytest

from sudoku_lab import __version__
from sudoku_lab.cluster import ClusterError, _check_workers, client_for, parse_scheduler
from sudoku_lab.errors import ParameterError


@pytest.mark.parametrize("text,parsed", [
    ("local:4", ("local", 4)), ("tcp://head:8786", ("address", "tcp://head:8786")),
    ("head.cluster:8786", ("address", "tcp://head.cluster:8786")), ("tls://10.0.0.1:8786", ("address", "tls://10.0.0.1:8786")),
])
def test_scheduler_forms(text, parsed):
    assert parse_scheduler(text) == parsed


@pytest.mark.parametrize("text,message", [
    ("local:0", "local:N needs a number of workers from 1 to 1024"), ("local", "local:N needs a number"),
    ("head", "give a Dask scheduler's address (tcp://host:8786) or local:N"), ("http://x:1", "give a Dask"),
])
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
    with pytest.raises(ClusterError, match=f"Dask worker tcp://b:2 runs sudoku-lab 0.0.9, this is {__version__}: "
                                           "install the same version on every worker"):
        _check_workers(_FakeClient({"tcp://a:1": ok, "tcp://b:2": {"version": "0.0.9", "missing": []}}), ("reseda",))
    with pytest.raises(ClusterError, match="Dask worker tcp://a:1 has no solver toy: install the plugin"):
        _check_workers(_FakeClient({"tcp://a:1": {"version": __version__, "missing": ["toy"]}}), ("toy",))
    with pytest.raises(ClusterError, match="the Dask cluster has no workers"):
        _check_workers(_FakeClient({}), ("reseda",))


def test_an_unreachable_scheduler_is_one_clear_error():
    with pytest.raises(ClusterError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:9: .*start one with "
                                           r"`dask scheduler`"):
        with client_for("tcp://127.0.0.1:9", timeout=2):
            pass
