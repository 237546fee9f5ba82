"""Kernels shared across modules stay safe with numba's on-disk cache.

numba keys a cached kernel on its own source file only: a kernel of
``_kernels/ac3.py`` that calls ``popcount`` from ``_kernels/common.py`` would
keep running the old, inlined ``popcount`` after ``common.py`` changed.
``_kernels/common.py`` therefore puts the cache in a directory named after a
hash of every kernel source. These tests edit the helper in a copy of the
installed package and run the caller in fresh processes against one cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sudoku_lab

# _find_hidden_single (AC3) masks out the digits of a unit's singleton cells, found with common.popcount: in a
# unit of two fixed cells (digits 1 and 2) there is no news, so the caller prints 1. With popcount returning 0
# the two fixed digits look like hidden singles, and it prints 0. (The exact search counts bits with an
# instruction of its own, so it no longer serves as the caller here.)
CALLER = r"""
import json, sys
import numpy as np
import sudoku_lab
from sudoku_lab._kernels import common
from sudoku_lab._kernels.ac3 import _find_hidden_single
domains = np.array([0b01, 0b10], dtype=np.uint32)
kind = _find_hidden_single(domains, np.array([[0, 1]], dtype=np.int32), 0b11)[0]
stats = _find_hidden_single.stats
json.dump({"result": int(kind == 0), "package": sudoku_lab.__file__, "cache_dir": str(common.CACHE_DIR),
           "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}, sys.stdout)
"""
#: Appended to the copy's common.py: popcount redefined, so ``from .common import popcount`` gets this one.
EDIT = '''

@jit
def popcount(x):
    """Edited by tests/test_kernel_cache.py: always 0."""
    return np.int64(0)
'''


def _copy_package(root: Path) -> Path:
    """A copy of the installed sudoku_lab package under ``root`` (no bytecode), importable with PYTHONPATH=root."""
    src = Path(sudoku_lab.__file__).resolve().parent
    shutil.copytree(src, root / "sudoku_lab", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root / "sudoku_lab"


def _run_caller(root: Path, tmp_path: Path) -> dict:
    env = dict(
        os.environ,
        PYTHONPATH=str(root),
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    res = subprocess.run(
        [sys.executable, "-c", CALLER], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout)
    assert Path(out["package"]).resolve().is_relative_to(root.resolve())  # the copy ran, not the installed package
    return out


def _index_files(tmp_path: Path) -> set[str]:
    return {str(p.relative_to(tmp_path)) for p in (tmp_path / "numba").rglob("*.nbi")}


@pytest.fixture
def package_copy(tmp_path):
    root = tmp_path / "site"
    return root, _copy_package(root)


def test_an_edited_helper_recompiles_its_callers_in_other_modules(tmp_path, package_copy):
    root, pkg = package_copy
    first = _run_caller(root, tmp_path)
    assert first["result"] == 1 and first["misses"] >= 1 and first["hits"] == 0  # compiled, cache was empty
    files = _index_files(tmp_path)
    assert files and all(Path(first["cache_dir"]).name in f for f in files)

    again = _run_caller(root, tmp_path)  # unchanged sources, a new process: served from the cache
    assert again["result"] == 1 and again["hits"] >= 1 and again["misses"] == 0
    assert _index_files(tmp_path) == files  # nothing new was written

    common = pkg / "_kernels" / "common.py"
    common.write_text(common.read_text() + EDIT)
    edited = _run_caller(root, tmp_path)
    assert edited["result"] == 0, "the cache served a caller compiled against the old helper"
    assert edited["misses"] >= 1 and edited["hits"] == 0
    assert edited["cache_dir"] != first["cache_dir"]


def test_without_the_source_hash_numba_would_serve_the_stale_caller(tmp_path, package_copy):
    """The control: with the cache key frozen, numba's own cache keeps the old popcount inlined in the caller.

    This is why common.py keys the cache directory on every kernel source; if a numba release starts
    tracking a kernel's dependencies itself, this test fails and the hash can go.
    """
    root, pkg = package_copy
    common = pkg / "_kernels" / "common.py"
    frozen = common.read_text().replace(
        "def cache_key(folder: Path = _HERE) -> str:",
        "def cache_key(folder: Path = _HERE) -> str:\n    return 'frozen'\n\n\n"
        "def _real_cache_key(folder: Path = _HERE) -> str:",
    )
    assert frozen != common.read_text()
    common.write_text(frozen)
    assert _run_caller(root, tmp_path)["result"] == 1
    common.write_text(frozen + EDIT)
    stale = _run_caller(root, tmp_path)
    assert stale["result"] == 1 and stale["hits"] >= 1
