"""A shared, read-only install: the lab starts for an account whose home and install are not writable.

A virtual environment owned by root, used by another account whose home does
not exist (a class machine, a container run as non-root, an HPC account):
numba cannot cache next to the sources nor in ``~/.cache``. The lab falls back
to a private directory under the temporary directory, or to no cache at all
with one line saying so; ``--help`` and ``--version`` never compile or load a
kernel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"
#: The least privileged account every Debian system has.
OTHER = ("nobody", "nogroup")


def _other_account_reason() -> str | None:
    """Why the tests cannot run a command as another account here, or None if they can."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root to run commands as another account (.ci/run runs as root)"
    if shutil.which("setpriv") is None:
        return "needs setpriv (util-linux) to run commands as another account"
    probe = _as_other([sys.executable, "-c", "import sudoku_lab"], {})
    if probe.returncode != 0:
        return (
            f"the account {OTHER[0]!r} cannot run this interpreter ({probe.stderr.strip()[-200:]}); make its "
            "directories traversable (chmod o+x), as .ci/run does"
        )
    return None


def _as_other(cmd, env, cwd="/"):
    """Run ``cmd`` as nobody with a home that does not exist and only ``env`` besides PATH."""
    full = ["setpriv", f"--reuid={OTHER[0]}", f"--regid={OTHER[1]}", "--clear-groups", *cmd]
    base = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    return subprocess.run(full, env={**base, **env}, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def other_account():
    reason = _other_account_reason()
    if reason:
        if IN_CI:
            pytest.fail(f"CI must run the shared-install test: {reason}")
        pytest.skip(reason)


def _sudoku_lab():
    return str(os.path.join(os.path.dirname(sys.executable), "sudoku-lab"))


@pytest.fixture
def shared_tmp():
    """A temporary directory the other account can use (pytest's own is private to root)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="sudoku-lab-test-", dir="/tmp"))
    os.chmod(path, 0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_help_version_and_a_run_work_as_another_account(other_account, shared_tmp):
    tmp = shared_tmp
    env = {"TMPDIR": str(tmp)}
    for args in (["--version"], ["--help"], ["solve", "--help"]):
        out = _as_other([_sudoku_lab(), *args], env)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stderr == ""
        assert "Traceback" not in out.stdout
    out = _as_other(
        [
            _sudoku_lab(),
            "solve",
            "--algo",
            "reseda",
            "--until",
            "3",
            "--quiet",
            "--format",
            "line",
            "reseda_fig3_1_easy",
        ],
        env,
    )
    assert out.returncode == 1, out.stderr[-2000:]  # 3 steps do not solve it: exit 1 with the best grid
    [verdict] = _past_compiling(out.stderr)  # the fallback to the temporary directory is silent
    assert verdict.startswith("# reseda_fig3_1_easy: reseda seed 0: not solved (max_iterations)")
    assert len(out.stdout.strip()) == 81  # the best grid
    # the kernels were cached in a private directory of that account's own
    cache = tmp / f"sudoku-lab-{_uid('nobody')}" / "cache" / "numba"
    keys = list(cache.iterdir())
    assert len(keys) == 1 and any(f.suffix == ".nbi" for f in keys[0].rglob("*"))
    assert (os.stat(tmp / f"sudoku-lab-{_uid('nobody')}").st_mode & 0o777) == 0o700


_COMPILE_LINE = re.compile(r"compiling kernels, once \(\d+ of \d+\): .+|compiled \d+ kernels? in [\d.]+ s, once: .+")


def _past_compiling(stderr: str) -> list[str]:
    """The lines of ``stderr`` after the notice of a cold cache compiling (each of its lines has that form)."""
    lines = stderr.splitlines()
    while lines and _COMPILE_LINE.fullmatch(lines[0]):
        lines.pop(0)
    return lines


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


NO_CACHE = r"""
import sys
import sudoku_lab._paths as paths
paths.user_dir = lambda *a, **k: None   # nothing writable anywhere
from sudoku_lab import cli
sys.exit(cli.main(["solve", "--algo", "reseda", "--until", "2", "--quiet", "--format", "line", "reseda_fig3_1_easy"]))
"""


def test_without_any_writable_directory_kernels_compile_uncached_with_one_note():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([sys.executable, "-c", NO_CACHE], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 1, out.stderr[-2000:]
    note, *rest = out.stderr.splitlines()
    [verdict] = _past_compiling("\n".join(rest))
    assert note == (
        "sudoku-lab: note: no writable cache directory (home and temporary directory are read-only), so "
        "kernels are compiled at every start; set NUMBA_CACHE_DIR to a writable directory to keep them"
    )
    assert verdict.startswith("# reseda_fig3_1_easy: reseda seed 0: not solved")


NOTHING_COMPILED = r"""
import sys
from sudoku_lab import cli
try:
    cli.main(sys.argv[1:])
except SystemExit:
    pass
print("numba imported:", "numba" in sys.modules)
compiled = []
for name, mod in list(sys.modules.items()):
    if name.startswith("sudoku_lab._kernels."):
        compiled += [f"{name}.{k}" for k, v in vars(mod).items() if getattr(v, "signatures", None)]
print("compiled or loaded:", compiled)
"""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["solve", "--help"], ["grades", "--help"]])
def test_help_and_version_neither_compile_nor_load_kernels(args):
    out = subprocess.run([sys.executable, "-c", NOTHING_COMPILED, *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[-1] == "compiled or loaded: []"
    if args == ["--version"]:
        assert lines[-2] == "numba imported: False"


def test_an_edited_kernel_source_gets_a_new_cache_directory(tmp_path):
    """The cache is keyed on every kernel source: editing a helper in one module invalidates all callers."""
    from sudoku_lab._kernels import common

    src = tmp_path / "k"
    src.mkdir()
    for f in common._HERE.glob("*.py"):
        (src / f.name).write_bytes(f.read_bytes())
    assert common.cache_key(src) == common.cache_key()
    helper = src / "common.py"
    helper.write_text(helper.read_text() + "\n# an edited helper\n")
    assert common.cache_key(src) != common.cache_key()
    assert common.CACHE_DIR is not None and common.CACHE_DIR.name == common.cache_key()


def test_figures_as_another_account_need_no_writable_home(other_account, shared_tmp):
    """matplotlib, too, must not complain about a read-only home (it printed two lines of warnings)."""
    out = shared_tmp / "g.png"
    res = _as_other(
        [
            _sudoku_lab(),
            "grades",
            "--runs",
            "2",
            "--restart",
            "none",
            "--quiet",
            "--out",
            str(out),
            "reseda_fig3_1_easy",
        ],
        {"TMPDIR": str(shared_tmp)},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert _past_compiling(res.stderr) == []
    assert out.stat().st_size > 1000


def test_a_file_without_read_permission_is_one_line(other_account, tmp_path):
    """PermissionError escaped as a traceback. (Root reads anything, so another account tries.)"""
    secret = Path("/tmp") / f"sudoku-lab-secret-{os.getpid()}.txt"
    secret.write_text(library_line())
    os.chmod(secret, 0o600)
    try:
        res = _as_other([_sudoku_lab(), "check", str(secret)], {})
    finally:
        secret.unlink()
    assert res.returncode == 2
    assert res.stderr.strip() == f"sudoku-lab: error: cannot read puzzle file {secret}: permission denied"


def test_an_output_in_a_read_only_directory_is_refused_before_any_run(other_account, shared_tmp):
    closed = Path("/tmp") / f"sudoku-lab-closed-{os.getpid()}"
    closed.mkdir()
    os.chmod(closed, 0o755)  # root's: others may enter but not write
    try:
        res = _as_other(
            [_sudoku_lab(), "grades", "--runs", "50", "--quiet", "--out", str(closed / "g.pdf"), "reseda_fig3_1_easy"],
            {"TMPDIR": str(shared_tmp)},
        )
        assert res.returncode == 2
        assert res.stderr.strip() == f"sudoku-lab: error: cannot write figure {closed / 'g.pdf'}: permission denied"
        assert list(closed.iterdir()) == []
    finally:
        shutil.rmtree(closed)


def library_line() -> str:
    from sudoku_lab.model import library

    return library.puzzle("reseda_fig3_1_easy").to_line() + "\n"
