"""Files: a write never replaces what is not a regular file; results are read from regular files, in bounded memory;
JSON from a file is bounded in depth wherever it is read; what a file held reaches the terminal escaped.

Device files are private nodes made with mknod when the tests run as root, so a
regression replaces a node in a temporary directory and never the machine's own
/dev/null; a normal user gets the machine's devices, which it cannot replace.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from sudoku_lab import cli
from sudoku_lab.analysis import figures
from sudoku_lab.engine.experiments import RunResult, Task
from sudoku_lab.engine.results import JOURNAL, PROVENANCE, TABLE, ResultStore, load_results, task_row
from sudoku_lab.errors import DataFileError
from sudoku_lab.model import library

ROOT = os.geteuid() == 0


def _runs_dir(path: Path) -> Path:
    """A results directory of four runs (two solved), written without running a solver."""
    pz = library.puzzle("reseda_fig3_1_easy")
    with ResultStore(path, {"kind": "test", "runs": 4}) as store:
        for i in range(4):
            solved = i % 2 == 0
            t = Task(
                "reseda",
                {"restart": "none"},
                pz,
                i,
                "solved,50it",
                key=f"t{i}",
                config="reseda",
                puzzle_set="easy",
                run=i,
            )
            grid = np.array(pz.solution if solved else pz.grid, dtype=np.int8)
            store.add(
                task_row(
                    t,
                    RunResult(
                        t.key,
                        t.solver,
                        pz.name,
                        t.seed,
                        solved,
                        "solved" if solved else "running",
                        "solved" if solved else "max_iterations",
                        7,
                        700,
                        0.5 + i,
                        0 if solved else 5,
                        0 if solved else 3,
                        grid,
                        {"restarts": 0},
                        host="h",
                        finished=1.7e9,
                    ),
                )
            )
    return path


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    return _runs_dir(tmp_path_factory.mktemp("files") / "res")


@pytest.fixture(scope="module")
def report_text(results) -> bytes:
    from sudoku_lab.analysis.report import build_report

    return build_report(load_results(results)).format("text", None).encode()


def _device(tmp_path: Path, name: str) -> Path:
    """A character device like /dev/null or /dev/full: a private node as root, else the machine's own."""
    if not ROOT:
        return Path("/dev") / name
    node = tmp_path / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, {"null": 3, "zero": 5, "full": 7}[name]))
    except OSError as e:
        pytest.skip(f"cannot make a private device node here ({e}); as root the machine's own could be replaced")
    return node


class _FifoReader(threading.Thread):
    """Reads a FIFO to its end (a daemon: left waiting only if the FIFO was wrongly replaced)."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path, self.data = path, None
        self.start()

    def run(self):
        with open(self.path, "rb") as fh:
            self.data = fh.read()

    def result(self) -> bytes | None:
        self.join(timeout=60)
        return self.data


def _report(results, out, capsys) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = cli.main(["report", str(results), "--out", str(out)])
    return status, capsys.readouterr().err.splitlines()


def _is(path: Path, test) -> bool:
    return test(os.lstat(path).st_mode)


# ------------------------------------------------------------------ writing
def test_report_out_writes_through_devices_and_fifos_and_never_replaces_them(results, report_text, tmp_path, capsys):
    null, full = _device(tmp_path, "null"), _device(tmp_path, "full")
    assert _report(results, null, capsys) == (0, [f"sudoku-lab: wrote {null}"])
    assert _is(null, stat.S_ISCHR)
    assert _report(results, full, capsys) == (
        2,
        [f"sudoku-lab: error: cannot write report {full}: no space left on device"],
    )
    assert _is(full, stat.S_ISCHR)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = _FifoReader(fifo)
    assert _report(results, fifo, capsys) == (0, [f"sudoku-lab: wrote {fifo}"])
    assert reader.result() == report_text and _is(fifo, stat.S_ISFIFO)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (null, full, fifo) if p.parent == tmp_path
    )  # no temporary file left


def test_report_out_follows_symlinks(results, report_text, tmp_path, capsys):
    (tmp_path / "target.txt").write_text("old\n")
    os.chmod(tmp_path / "target.txt", 0o640)
    links = {"link.txt": "target.txt", "dangling.txt": "new.txt", "to-null": str(_device(tmp_path, "null"))}
    for name, target in links.items():
        os.symlink(target, tmp_path / name)
    for name, target in links.items():
        assert _report(results, tmp_path / name, capsys)[0] == 0, name
        assert os.readlink(tmp_path / name) == target  # still the same link
    assert (tmp_path / "target.txt").read_bytes() == report_text == (tmp_path / "new.txt").read_bytes()
    assert stat.S_IMODE(os.stat(tmp_path / "target.txt").st_mode) == 0o640  # the file replaced keeps its mode
    assert _is(Path(links["to-null"]), stat.S_ISCHR)


def test_report_out_to_standard_output_and_open_descriptors(results, report_text, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["report", str(results), "--out", "-"]) == 0
    assert capsys.readouterr().out.encode() == report_text and not Path("-").exists()
    r, w = os.pipe()
    try:
        assert _report(results, f"/dev/fd/{w}", capsys) == (0, [f"sudoku-lab: wrote /dev/fd/{w}"])
        os.close(w)
        with os.fdopen(r, "rb") as fh:
            assert fh.read() == report_text
    finally:
        for fd in (r, w):
            try:
                os.close(fd)
            except OSError:
                pass
    log = tmp_path / "log.txt"
    log.write_text("earlier output\n")
    with open(log, "ab") as fh:  # `>> log.txt`: appended to, not replaced, also through a symlink
        os.symlink(f"/proc/self/fd/{fh.fileno()}", tmp_path / "to-log")
        assert _report(results, f"/proc/self/fd/{fh.fileno()}", capsys)[0] == 0
        assert _report(results, tmp_path / "to-log", capsys)[0] == 0
    assert log.read_bytes() == b"earlier output\n" + report_text + report_text
    assert os.path.islink(tmp_path / "to-log")
    if not ROOT:  # as root a regression would replace the machine's /dev/stdout; /dev/fd/N above is the same path
        assert cli.main(["report", str(results), "--out", "/dev/stdout"]) == 0
        assert capsys.readouterr().out.encode() == report_text


def test_figures_follow_symlinks_go_through_fifos_and_refuse_a_terminal(results, tmp_path, capsys):
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 2))
    (tmp_path / "plot.png").write_bytes(b"old")
    os.symlink("plot.png", tmp_path / "link.png")
    assert figures.save(fig, tmp_path / "link.png", dpi=20) == tmp_path / "link.png"
    assert os.readlink(tmp_path / "link.png") == "plot.png"
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = _FifoReader(fifo)
    figures.save(fig, fifo)
    assert reader.result()[:5] == b"%PDF-" and _is(fifo, stat.S_ISFIFO)  # no suffix: PDF
    plt.close(fig)
    master, slave = os.openpty()
    try:
        capsys.readouterr()
        assert (
            cli.main(["report", str(results), "--out", str(tmp_path / "r.txt"), "--figure", f"ecdf=/dev/fd/{slave}"])
            == 2
        )
        assert capsys.readouterr().err.splitlines() == [
            f"sudoku-lab: error: will not write figure /dev/fd/{slave} to a terminal (it is binary data); redirect it "
            "to a file or a pipe, or give a file name"
        ]
        os.set_blocking(master, False)
        with pytest.raises(BlockingIOError):
            os.read(master, 100)  # nothing reached the terminal
    finally:
        os.close(master)
        os.close(slave)


def test_grades_out_must_be_a_file(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    capsys.readouterr()
    assert cli.main(["grades", "--runs", "1", "--out", str(fifo), "reseda_fig3_1_easy"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"sudoku-lab: error: --out {fifo}: the grades CSV and JSON and the results directory are written next to the "
        "figure, so --out must name a file, not standard output, a device or a FIFO"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"] and _is(fifo, stat.S_ISFIFO)


#: Calls that write or replace a file by name; only sudoku_lab/files.py makes them. _crash.py writes its own crash
#: report, under a fresh name in the per-user state folder, with as little machinery as possible.
_WRITES = re.compile(
    r"os\.replace\(|os\.rename\(|\.rename\(|\.write_text\(|\.write_bytes\(|shutil\.(copy|move)"
    r"|savefig\((?!(fh|buf)\b)|(?<!\w)write_table\((?!table, fh\b)|grab\(\)\.save\((?!buf\b)|NamedTemporaryFile"
    r"|mkstemp|open\([^)]*[\"'][wax]b?\+?[\"']|\.to_(csv|parquet|json)\((?!\))"
)
_OWN_WRITERS = {"sudoku_lab/files.py", "sudoku_lab/crash.py"}


def test_every_writer_goes_through_the_files_module(repo_root):
    found = []
    packages = ("sudoku_lab", "ui", "sudoku_lab_notebook")
    for path in sorted(p for package in packages for p in (repo_root / package).rglob("*.py")):
        rel = path.relative_to(repo_root).as_posix()
        if rel in _OWN_WRITERS:
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _WRITES.search(line.split("#", 1)[0]):
                found.append(f"{rel}:{no}: {line.strip()}")
    assert found == []


# ------------------------------------------------------------------ reading
def _copy_with(results: Path, tmp_path: Path, name: str, target) -> Path:
    """A copy of ``results`` whose file ``name`` is a symlink to ``target``."""
    import shutil

    d = tmp_path / f"res-{name}-{Path(target).name}"
    shutil.copytree(results, d)
    (d / name).unlink()
    os.symlink(target, d / name)
    return d


LIMITED = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
from sudoku_lab import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def _limited(*args) -> subprocess.CompletedProcess:
    """A command in a process limited to 4 GB of memory: an unbounded read fails there, not on the machine."""
    return subprocess.run(
        [sys.executable, "-c", LIMITED, *map(str, args)], capture_output=True, text=True, timeout=120
    )  # the old code waited on a FIFO for ever


def test_results_files_that_are_not_regular_files_are_one_line(results, tmp_path):
    """In real processes: the old code read /dev/zero until memory ran out, and waited on a FIFO for ever."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = _device(tmp_path, "zero")
    j_zero = _copy_with(results, tmp_path, JOURNAL, zero)
    j_fifo = _copy_with(results, tmp_path, JOURNAL, fifo)
    t_fifo = _copy_with(results, tmp_path, TABLE, fifo)
    p_fifo = _copy_with(results, tmp_path, PROVENANCE, fifo)
    new_runs = tmp_path / "g.runs"
    new_runs.mkdir()
    os.symlink(zero, new_runs / JOURNAL)
    link = f"(a symlink to {zero}) is a character device, not a regular file"
    fifo_link = f"(a symlink to {fifo}) is a FIFO (named pipe), not a regular file"
    for args, message in [
        (["report", j_zero], f"results journal {j_zero / JOURNAL} {link}"),
        (["grades", "--from", j_fifo, "--out", tmp_path / "g.pdf"], f"results journal {j_fifo / JOURNAL} {fifo_link}"),
        (
            ["grades", "--runs", "1", "--out", tmp_path / "g.pdf", "reseda_fig3_1_easy"],
            f"results journal {new_runs / JOURNAL} {link}",
        ),
        (["report", t_fifo], f"results table {t_fifo / TABLE} {fifo_link}"),
        (["report", p_fifo], f"results provenance {p_fifo / PROVENANCE} {fifo_link}"),
        (["report", fifo], f"results file {fifo} is a FIFO (named pipe), not a regular file"),
        (
            ["batch", zero, "--dry-run"],
            f"experiment specification {zero} holds more than 17 MB; at most that can be read in this format",
        ),
    ]:
        out = _limited(*args)
        assert (out.returncode, out.stderr.splitlines()) == (2, [f"sudoku-lab: error: {message}"]), args
    assert not (tmp_path / "g.pdf").exists()


def test_a_dangling_or_device_results_path_is_one_line(results, tmp_path):
    d = _copy_with(results, tmp_path, JOURNAL, tmp_path / "gone.jsonl")
    with pytest.raises(
        DataFileError,
        match=re.escape(
            f"results journal {d / JOURNAL} is a symlink to {tmp_path / 'gone.jsonl'}, which does not exist"
        ),
    ):
        load_results(d)
    null = _device(tmp_path, "null")
    with pytest.raises(
        DataFileError, match=re.escape(f"results file {null} is a character device, not a regular file")
    ):
        load_results(null)
    os.symlink(results / TABLE, tmp_path / "table-link.parquet")  # a symlink to a regular file is fine
    assert len(load_results(tmp_path / "table-link.parquet")) == 4


def _journal_only(results: Path, tmp_path: Path) -> Path:
    import shutil

    d = tmp_path / "res"
    shutil.copytree(results, d)
    (d / TABLE).unlink()  # read from the journal
    return d


def test_a_journal_line_is_read_with_a_bound(results, tmp_path):
    d = _journal_only(results, tmp_path)
    lines = (d / JOURNAL).read_bytes().splitlines(keepends=True)
    (d / JOURNAL).write_bytes(b"".join(lines[:2]) + b"x" * (9 << 20) + b"\n" + lines[3])
    message = f"results journal {d / JOURNAL} line 3 is longer than 8 MB: not a results journal"
    with pytest.raises(DataFileError, match=re.escape(message)):
        load_results(d)
    with pytest.raises(DataFileError, match=re.escape(message)):
        ResultStore(d, {"kind": "test", "runs": 4})


def test_the_journal_is_read_in_blocks_that_join_up(results, tmp_path, monkeypatch):
    from sudoku_lab.engine import results as results_module

    d = _journal_only(results, tmp_path)
    rows = load_results(d).rows()
    assert [r["task"] for r in rows] == ["t0", "t1", "t2", "t3"]
    monkeypatch.setattr(results_module, "_BLOCK_BYTES", 1)  # one block per line
    assert load_results(d).rows() == rows
    lines = (d / JOURNAL).read_bytes().splitlines(keepends=True)
    (d / JOURNAL).write_bytes(b"".join(lines[:3]) + b'{"task": "t3"}\n')
    with pytest.raises(DataFileError, match=re.escape(f"{d / JOURNAL} line 4: corrupt run record (missing ")):
        load_results(d)


# ------------------------------------------------------------ JSON nested too deeply (issue 27, A4)
DEEP = "[" * 200_000 + "]" * 200_000


def _deep_input(case: str, results: Path, tmp_path: Path) -> tuple[list, str]:
    """The command reading a file nested 200,000 deep, and the words of its one line."""
    import shutil

    if case == "grades":  # rate --grades: exit 70 with a RecursionError before
        f = tmp_path / "deep.grades.json"
        f.write_text('{"kind": "correctness_grades", "puzzle": ' + DEEP + "}")
        return ["rate", "--grades", f], f"{f}: not a grades file written by Sudoku Lab (nested more than 100 deep"
    if case == "spec":
        f = tmp_path / "deep.toml"
        f.write_text("x = " + DEEP + "\n")
        return ["batch", f], f"{f}: not valid TOML: arrays or tables nested too deeply"
    d = tmp_path / "res"
    shutil.copytree(results, d)
    if case == "provenance":
        (d / PROVENANCE).write_text('{"spec": ' + DEEP + "}")
        return ["report", d], f"{d / PROVENANCE}: not a Sudoku Lab results sidecar (nested more than 100 deep"
    with open(d / JOURNAL, "a") as fh:  # a journal holding more rows than the table: each row is checked
        fh.write('{"task": ' + DEEP + "}\n")
    return ["report", d], f"{d / JOURNAL} line 5: corrupt run record (nested more than 100 deep: line 1 column 109"


@pytest.mark.parametrize("case", ["grades", "spec", "provenance", "journal"])
def test_json_nested_200000_deep_is_one_line_wherever_a_file_is_read(case, results, tmp_path, cli):
    args, words = _deep_input(case, results, tmp_path)
    run = cli(*args)
    assert run.returncode == 2, run.stderr
    [line] = run.stderr.strip().splitlines()
    assert line.startswith("sudoku-lab: error: ") and words in line, line


#: What the generated keys end with: brackets, a backslash and a quote (escaped in the JSON text).
KEY_TAILS = ["[", "\\", '"', ""]


def _nested_json(depth: int, width: int, rng) -> str:
    """Random JSON whose strings hold brackets, quotes and backslashes, nested exactly ``depth`` deep."""
    import json

    def value(d):
        if d == 0:
            return rng.choice(["[", "]{", '"', "\\", '\\"[', "\u00e9}", "", 1, 2.5, None, True])
        items = [value(d - 1)] + [value(int(rng.integers(0, d))) for _ in range(int(rng.integers(0, width)))]
        if rng.random() < 0.5:
            return items
        return {f"k{i}" + str(rng.choice(KEY_TAILS)): v for i, v in enumerate(items)}

    return json.dumps(value(depth), ensure_ascii=bool(rng.random() < 0.5))


def test_the_depth_check_counts_nesting_as_the_parser_does():
    """json_loads refuses exactly what nests deeper than its limit, whatever the strings hold (brackets, quotes,
    escaped quotes and backslashes), in blocks that split the text anywhere."""
    import json

    from sudoku_lab import files

    rng = np.random.default_rng(27)
    for _ in range(300):
        depth = int(rng.integers(0, 12))
        text = _nested_json(depth, 3, rng)
        assert files._json_depth(text) == depth, text
        limit = int(rng.integers(0, 12))
        if depth <= limit:
            assert files.json_loads(text, limit) == json.loads(text)
        else:
            with pytest.raises(json.JSONDecodeError, match=f"nested more than {limit} deep"):
                files.json_loads(text, limit)
    text = "".join(_nested_json(8, 4, rng) for _ in range(200))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(files, "_DEPTH_BLOCK", 7)  # blocks end inside strings, between a backslash and its quote
        assert files._json_depth(text) == 8


def test_json_nested_deeply_is_a_decode_error_in_a_worker_thread():
    import json

    from sudoku_lab.files import json_loads

    caught = []
    t = threading.Thread(target=lambda: caught.append(_raised(json_loads, DEEP)))
    t.start()
    t.join()
    [e] = caught
    assert isinstance(e, json.JSONDecodeError) and str(e) == "nested more than 100 deep: line 1 column 101 (char 100)"


def _raised(f, *args):
    try:
        f(*args)
    except BaseException as e:  # noqa: BLE001 - what it raises is the result
        return e
    return None


# ------------------------------------------------------------ what a file held, on the terminal (issue 27, A6)
#: Escape sequences that would turn the terminal red, clear it, set its title, or reverse the line.
HOSTILE = "\x1b[31mred\x1b[0m\x1b[2J\x1b]0;owned\x07\ttab\u202eevil"
SHOWN = "\\x1b[31mred\\x1b[0m\\x1b[2J\\x1b]0;owned\\x07\\ttab\\u202eevil"


def _hostile_input(case: str, results: Path, tmp_path: Path) -> tuple[list, str]:
    import json
    import shutil
    import zipfile

    if case == "saved_by":  # a future version's session, refused by version: its saved_by is quoted
        from sudoku_lab.solvers import create
        from sudoku_lab.stepping import session as S

        s = create("hill_climb")
        s.reset(library.puzzle("reseda_fig3_1_easy"), seed=1)
        good = tmp_path / "good.sudoku-session"
        S.save_session(good, S.session_from_solver(s))
        with zipfile.ZipFile(good) as zf:
            doc, npz = json.loads(zf.read(S.JSON_MEMBER)), zf.read(S.ARRAYS_MEMBER)
        path = tmp_path / "future.sudoku-session"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr(S.JSON_MEMBER, json.dumps({**doc, "version": 99, "saved_by": f"sudoku-lab 9 {HOSTILE}"}))
            zf.writestr(S.ARRAYS_MEMBER, npz)
        return ["gui", "--session", path], f"written by sudoku-lab 9 {SHOWN} in session format version 99"
    if case == "puzzle_name":  # a puzzle's name from a CSV file, quoted by the error about the puzzle
        f = tmp_path / "named.csv"
        f.write_text(f"puzzle,name\n{'.' * 81},{HOSTILE}\n", encoding="utf-8")
        return ["check", f], f"sudoku-lab: error: {SHOWN}: the puzzle has several solutions"
    d = tmp_path / "res"  # a results column: the configuration's label in the report's table
    shutil.copytree(results, d)
    (d / TABLE).unlink()
    text = (d / JOURNAL).read_text()
    (d / JOURNAL).write_text(text.replace('"config": "reseda"', f'"config": {json.dumps(HOSTILE)}'))
    return ["report", d], SHOWN


@pytest.mark.parametrize("case", ["saved_by", "puzzle_name", "results_column"])
def test_what_a_file_held_reaches_the_terminal_escaped(case, results, tmp_path, cli, monkeypatch):
    """Through the real command line: an error quoting a file (stderr), or a table of its data on a terminal."""
    args, words = _hostile_input(case, results, tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # capsys' stdout, standing for a terminal
    run = cli(*args)
    shown = run.stdout + run.stderr
    assert words in shown, shown
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", shown), repr(shown)


def test_data_written_to_a_pipe_is_left_as_the_file_held_it(results, tmp_path, cli):
    """Only what reaches a terminal is escaped: a report piped to a file keeps the results' own text."""
    args, _ = _hostile_input("results_column", results, tmp_path)
    run = cli(*args)
    assert run.returncode == 0 and HOSTILE in run.stdout, run.stdout
