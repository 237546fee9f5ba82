"""Every command printed in the documentation runs as printed (issue 17: the README's
`grades --from kennett-levels-results --config reseda kennett_hard_103` named a puzzle those results do not hold).

The commands are the shell commands of the fenced code blocks (``bash``, ``sh``, ``shell``, ``console``, and
unlabelled blocks made only of ``sudoku-lab`` lines) of README.md and of every Markdown file under docs/ and
examples/, so a page moved into a docs site is still checked. They run as one sequence, file after file and in
order within each (a report reads the batch before it), in one scratch directory laid out like a checkout, in this
process, through the entry point of the installed ``sudoku-lab`` command. What differs from typing them is listed
here, and nothing else:

- :data:`BUDGETS`: options that set how much work a command does get small values (and ``--scheduler local:N`` at
  most two workers), and a command that runs with its default budget gets a small ``--until``; specifications
  (examples/specs/*.toml, and the files below) get small ``runs`` and ``until``; reproductions get small sizes
  (their declared integer options, full and quick forms).
  Puzzles, solvers, parameters, files and every other option stay as printed, so a renamed option, a missing
  puzzle or a missing results directory fails here.
- :data:`PREPARED`: files the text describes rather than ships (the ``sweep.toml`` of the README's mistakes).
- :data:`NOT_RUN`: commands that install software or start servers, each with why; ``sudoku-lab`` commands among
  them still have their arguments parsed.
- Commands that open the window run with no display: the window checks its puzzle and solver first and then says
  it has no display, which the test expects (the window itself is tested in tests/gui and tests/test_startup.py).
- The plugin's own README installs it with pip; here it is made visible the way tests/test_plugin_solver.py does
  (its entry points on PYTHONPATH) and the commands after it run in a child process.

In a ``console`` block the lines under a command are its output: an error shown there must be the one the command
gives, and other output must appear as printed (times aside, and with the small budgets) unless
:data:`ILLUSTRATIONS` says why not.

Besides, every ``sudoku-lab ...`` in the documentation's inline code and in the package's own messages (a
"try ..." or "use ...") may only use options its command has: `grades --from` suggested `--puzzle NAME`.
"""

from __future__ import annotations

import _thread
import argparse
import ast
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SHELL_BLOCKS = {"bash", "sh", "shell", "console", "shell-session"}

# ---------------------------------------------------------------------------------------------- what differs
#: Options that set how much work a command does, and their small values (an integer value only: `batch --puzzles`
#: names a puzzle set, `reproduce --puzzles` counts puzzles).
BUDGETS = {
    "--runs": 2,  # runs per configuration; for reproduce, runs or solved tries per cell
    "--sample": 1,  # puzzles drawn from each set
    "--puzzles": 1,  # reproduce: how many of the table's puzzles; bench reseda: how many fiendish puzzles
    "--solve-runs": 1,  # reproduce reseda-escargot: coupled runs until solved
    "--max-tries": 4,  # reproduce: tries before giving up on reaching --runs solved
    "--generations": 50,  # reproduce nbcoin-table2: generation budgets
    "--ga-generations": 50,
    "--repeat": 1,  # bench: timed passes
    "--seconds": 1,  # reproduce acs-famous, acs-large: time limit of a run
}
#: --until (and a specification's `until`): iterations and evaluations are capped, seconds become iterations so a
#: run's end does not depend on the machine's speed.
UNTIL_ITERATIONS = 300
UNTIL_EVALUATIONS = 30_000
#: --param NAME=VALUE of a solver's own budget.
BUDGET_PARAMS = {"generations": 50, "iterations": 300, "run_budget": 300, "budget": 3000}
#: `--scheduler local:N`: a local Dask cluster of at most this many workers (the test machine has 2 cores).
LOCAL_WORKERS = 2
#: Sizes of every reproduction, full and quick form alike (clamped to each option's declared range).
REPRODUCTION_SIZES = {
    "runs": 2,
    "puzzles": 1,
    "solve_runs": 1,
    "max_tries": 4,
    "generations": 50,
    "ga_generations": 50,
    "seconds": 1,
}
#: Commands that run solvers with a default budget when no --until is given (animate: one run, done twice).
DEFAULT_BUDGET_COMMANDS = ("solve", "grades", "compare", "batch", "animate")

#: Files the text describes rather than ships, written from the TOML example above the command that uses them:
#: name -> the mistake made in it for each command using the file, in order (none: the example as it is). The README
#: shows the errors those mistakes give.
PREPARED = {
    "sweep.toml": [("alpha = [0.5, 0.7, 0.9]", "alpha = [0.5, 1.7, 0.9]"), ("sample = 20 ", "sampel = 20 ")],
    "spec.toml": [],
}

#: Commands not run, by their first words, and why.
NOT_RUN = {
    "python3 -m venv": "makes a virtual environment; the tests run inside one",
    ".": "activates that environment",
    "python -m pip install": "installs the package; tests/test_library.py installs a built wheel and runs it",
    "python -m pytest": "the test suite itself",
    "sudo apt-get install": "installs Debian packages as root; tests/test_startup.py checks this list against the "
    "libraries Qt loads",
    "jupyter lab": "serves until stopped; tests/test_notebooks.py runs the example notebooks headless",
    "python -m sudoku_lab_notebook.execute": "rewrites a notebook's outputs; tests/test_notebooks.py runs every "
    "example notebook the same way, without --write",
    "python -m sudoku_lab_notebook.screenshot": "a dev tool: drives JupyterLab in Chromium, which CI does not install",
    "dask scheduler": "serves until stopped; tests/test_cluster.py and tests/test_batch.py start local clusters",
    "dask worker": "serves until stopped, on a scheduler at head:8786",
    "sudoku-lab batch spec.toml --scheduler tcp://head:8786": "needs a Dask cluster at head:8786 (parsed only)",
    "sudoku-lab reproduce all --full --scheduler tcp://head:8786": "needs a Dask cluster at head:8786 (parsed only)",
}
#: Installing the plugin: instead, its entry points are put on PYTHONPATH, as tests/test_plugin_solver.py does.
PLUGIN_INSTALL = "pip install -e examples/plugin"

#: Console output not compared with what the command prints here, and why.
ILLUSTRATIONS = {
    "sudoku-lab batch examples/specs/kennett_levels.toml": "a progress bar half way, drawn on a terminal only",
    "sudoku-lab report kennett-levels-results --config reseda --config hill_climb --config ac3_tabu": (
        "the report of the whole batch, which runs here with small budgets"
    ),
}

#: The window's answer when it has no display, after it has checked its puzzle and solver.
NO_DISPLAY = "sudoku-lab: error: no display to open the lab window on"


# ---------------------------------------------------------------------------------------------- extraction
@dataclass
class Command:
    """One command as printed: its file and line, its text (continuation lines joined), its printed output."""

    path: Path
    line: int
    text: str
    console: bool = False
    output: list = field(default_factory=list)
    toml: str | None = None  # the last TOML example above it in the same file

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    """README.md, then every Markdown file under docs/ (in the order of a docs site's navigation, mkdocs.yml, where
    it lists them) and under examples/: the order their commands run in, so a page may use what an earlier one made."""
    pages = sorted((ROOT / "docs").rglob("*.md"))
    nav = ROOT / "mkdocs.yml"
    if nav.exists():
        listed = [ROOT / "docs" / m for m in re.findall(r"([\w./-]+\.md)\b", nav.read_text(encoding="utf-8"))]
        pages = [p for p in listed if p in pages] + [p for p in pages if p not in listed]
    return [ROOT / "README.md", *dict.fromkeys(pages), *sorted((ROOT / "examples").rglob("*.md"))]


def _is_shell(lang: str, body: list[str]) -> bool:
    if lang in SHELL_BLOCKS:
        return True
    lines = [x for x in body if x.strip()]
    return lang == "" and bool(lines) and all(x.startswith(("sudoku-lab ", "$ ")) for x in lines)


def commands(path: Path) -> list[Command]:
    """The shell commands of ``path``'s fenced code blocks, in order."""
    out: list[Command] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    toml = None
    k = 0
    while k < len(lines):
        m = re.match(r"^\s*```\s*([\w-]*)", lines[k])
        if not m:
            k += 1
            continue
        lang, start = m.group(1), k + 1
        end = next(j for j in range(start, len(lines)) if lines[j].strip().startswith("```"))
        body = lines[start:end]
        if lang == "toml":
            toml = "\n".join(body) + "\n"
        elif _is_shell(lang, body):
            out.extend(
                _block_commands(path, start, body, lang == "console" or any(x.startswith("$ ") for x in body), toml)
            )
        k = end + 1
    return out


def _block_commands(path, first_line, body, console, toml) -> list[Command]:
    cmds: list[Command] = []
    pending = None
    for no, raw in enumerate(body, first_line + 1):
        if pending is not None:  # a continuation line
            pending.text += " " + raw.strip().removesuffix("\\").strip()
            if not raw.rstrip().endswith("\\"):
                pending = None
            continue
        if console and not raw.startswith("$ "):
            if cmds and raw.strip():
                cmds[-1].output.append(raw)
            continue
        text = raw.removeprefix("$ ").strip()
        if not text or text.startswith("#"):
            continue
        cmd = Command(path, no, text.removesuffix("\\").strip(), console=console, toml=toml)
        cmds.append(cmd)
        if text.endswith("\\"):
            pending = cmd
    return cmds


def words(text: str) -> list[list[str]]:
    """The argument lists of a command line: comments dropped, split at ``&&``."""
    parts, current = [], []
    for w in shlex.split(text, comments=True):
        if w == "&&":
            parts.append(current)
            current = []
        else:
            current.append(w)
    return [p for p in [*parts, current] if p]


def not_run_reason(argv: list[str]) -> str | None:
    text = " ".join(argv)
    for prefix, why in NOT_RUN.items():
        if text == prefix or text.startswith(prefix + " "):
            return why
    return None


# ---------------------------------------------------------------------------------------------- substitutions
def shrink_until(text: str) -> str:
    """A stopping rule with small budgets: iterations and evaluations capped, seconds turned into iterations."""
    terms = []
    for t in text.split(","):
        t = t.strip()
        if t == "solved":
            terms.append(t)
        elif m := re.fullmatch(r"(\d+)(?:it)?", t):
            terms.append(f"{min(int(m.group(1)), UNTIL_ITERATIONS)}it")
        elif m := re.fullmatch(r"([\d.e+]+)evals", t):
            terms.append(f"{min(int(float(m.group(1))), UNTIL_EVALUATIONS)}evals")
        else:  # a duration
            terms.append(f"{UNTIL_ITERATIONS}it")
    return ",".join(dict.fromkeys(terms))


def shrink(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` with :data:`BUDGETS` applied, and what changed ("--runs 100 -> 2"; none: it runs as printed)."""
    out = list(argv)
    for k, w in enumerate(out[:-1]):
        value = out[k + 1]
        if w in BUDGETS and value.isdigit() and int(value) > BUDGETS[w]:
            out[k + 1] = str(BUDGETS[w])
        elif w == "--until":
            out[k + 1] = shrink_until(value)
        elif w == "--param" and value.partition("=")[0] in BUDGET_PARAMS:
            name, _, v = value.partition("=")
            if v.isdigit() and int(v) > BUDGET_PARAMS[name]:
                out[k + 1] = f"{name}={BUDGET_PARAMS[name]}"
        elif w == "--scheduler" and (m := re.fullmatch(r"local:(\d+)", value)) and int(m.group(1)) > LOCAL_WORKERS:
            out[k + 1] = f"local:{LOCAL_WORKERS}"
    changed = [f"{out[k - 1]} {a} -> {b}" for k, (a, b) in enumerate(zip(argv, out)) if a != b]
    cmd = out[0] if out else ""
    if (
        cmd in DEFAULT_BUDGET_COMMANDS
        and "--until" not in out
        and "--from" not in out
        and not (cmd in ("solve", "batch") and "--algo" not in out)
    ):  # a run with the default budget
        out += ["--until", f"solved,{UNTIL_ITERATIONS}it"]
        changed.append(f"--until solved,{UNTIL_ITERATIONS}it added")
    return out, changed


def shrink_spec(text: str) -> str:
    """A specification with small `runs` and `until` (line by line, so every other line keeps its number)."""

    def one(m):
        key, value = m.group(2), m.group(3)
        if key == "runs":
            return f"{m.group(1)}runs = {min(int(value), BUDGETS['--runs'])}{m.group(4)}"
        return f'{m.group(1)}until = "{shrink_until(value)}"{m.group(4)}'

    text = re.sub(r"(?m)^(\s*)(runs) = (\d+)(.*)$", one, text)
    return re.sub(r'(?m)^(\s*)(until) = "([^"]*)"(.*)$', one, text)


def tiny_reproductions(monkeypatch) -> None:
    """Every registered reproduction with :data:`REPRODUCTION_SIZES` as its defaults and its quick form."""
    from sudoku_lab import reproductions as reg

    def clamp(opt, v):
        return max(opt.low if opt.low is not None else v, min(opt.high if opt.high is not None else v, v))

    for name, rep in list(reg.reproductions().items()):
        sizes = {
            k: clamp(o, REPRODUCTION_SIZES[k])
            for k, o in rep.options.items()
            if k in REPRODUCTION_SIZES and isinstance(o.default, int)
        }
        options = {k: replace(o, default=sizes.get(k, o.default)) for k, o in rep.options.items()}
        monkeypatch.setitem(reg._reproductions._items, name, replace(rep, options=options, quick=sizes))


def scratch_checkout(tmp_path: Path) -> Path:
    """A directory laid out like a checkout: examples/ (specifications shrunk) and an empty docs/."""
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for spec in (root / "examples").rglob("*.toml"):
        if spec.name != "pyproject.toml":
            spec.write_text(shrink_spec(spec.read_text(encoding="utf-8")), encoding="utf-8")
    (root / "docs").mkdir()
    return root


def prepare_files(argv: list[str], cmd: Command, uses: dict) -> None:
    for name, mistakes in PREPARED.items():
        if name not in argv:
            continue
        assert cmd.toml, f"{cmd.where()}: {name} is made from the TOML example above the command, and there is none"
        k = uses[name] = uses.get(name, -1) + 1
        text = cmd.toml
        if mistakes:
            assert k < len(mistakes), f"{cmd.where()}: PREPARED[{name!r}] names no mistake for this command"
            old, new = mistakes[k]
            assert old in text, f"{cmd.where()}: the TOML example above it no longer holds {old!r}"
            text = text.replace(old, new)
        Path(name).write_text(shrink_spec(text), encoding="utf-8")


# ---------------------------------------------------------------------------------------------- running
def _mask(line: str) -> str:
    """Times are the machine's: masked on both sides."""
    return re.sub(r"\d+(\.\d+)? (s|ms)\b", "<time>", line.strip())


class HangGuard:
    """Ctrl-C for a command that has not ended after ``seconds`` (twice: a graceful stop, then at once).

    A guard only: every command here ends in seconds, so it never decides an outcome, it turns a hang into a
    failure that names the command instead of a suite that never ends.
    """

    def __init__(self, seconds: float):
        self.seconds, self.fired = seconds, 0

    def _fire(self):
        self.fired += 1
        _thread.interrupt_main()
        if self.fired < 2:
            self._arm(60)

    def _arm(self, seconds):
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def __enter__(self):
        self._arm(self.seconds)
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        return False


def _plugin_env(tmp_path: Path) -> dict:
    """The environment of tests/test_plugin_solver.py: toy_descent installed as far as importlib.metadata can tell."""
    site = tmp_path / "plugin-site"
    info = site / "toy_descent-0.1.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: toy-descent\nVersion: 0.1\n")
    info.joinpath("entry_points.txt").write_text(
        "[sudoku_lab.plugins]\ntoy_descent = toy_descent\n\n[sudoku_lab.ui_plugins]\ntoy_descent = toy_descent.ui\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SUDOKU_LAB_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT / "examples" / "plugin")])
    return env


def _no_display(env: dict) -> dict:
    return {k: v for k, v in env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}


def run_in_process(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    from sudoku_lab.cli import main, wants_gui

    with monkeypatch.context() as m:
        if wants_gui(argv):
            for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
                m.delenv(var, raising=False)
        m.setattr(sys, "argv", ["sudoku-lab", *argv])
        with HangGuard(600):
            try:
                status = main(argv)
            except SystemExit as e:  # argparse's usage errors and --help: what the process would exit with
                status = e.code if isinstance(e.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def run_in_child(argv: list[str], env: dict) -> tuple[int, str, str]:
    from sudoku_lab.cli import wants_gui

    code = "import sys; from sudoku_lab.cli import main; sys.exit(main(sys.argv[1:]))"
    res = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        timeout=900,
        env=_no_display(env) if wants_gui(argv) else env,
    )
    return res.returncode, res.stdout, res.stderr


def check_command(cmd: Command, argv: list[str], changed: list[str], status: int, out: str, err: str) -> str | None:
    """What is wrong with one command's outcome, or None."""
    from sudoku_lab.cli import wants_gui

    said = f"{cmd.where()}: `{cmd.text}`" + (f" (budgets: {', '.join(changed)})" if changed else "")
    tail = (err.strip().splitlines() or [""])[-1]
    if wants_gui(argv[1:]):
        if status != 2 or not err.startswith(NO_DISPLAY):
            return f"{said}: the window refused its arguments (status {status}): {tail}"
        return None
    errors = [x.strip() for x in cmd.output if x.startswith("sudoku-lab: error:")]
    if errors:
        if status != 2 or errors != [x.strip() for x in err.strip().splitlines()]:
            return f"{said}: the documentation shows {errors}, the command gives status {status}: {err.strip()!r}"
        return None
    # A metaheuristic run cut short by the test's budget may end unsolved (status 1); anything else is a failure.
    allowed = {0, 1} if argv[1] == "solve" and changed else {0}
    if status not in allowed:
        return f"{said}: exit status {status}: {tail}"
    shown = [x for x in cmd.output if x.strip() and x.strip() != "..."]
    if shown and cmd.text not in ILLUSTRATIONS:  # the small budgets leave what is shown as it is
        got = {_mask(x) for x in (out + "\n" + err).splitlines()}
        missing = [x for x in shown if _mask(x) not in got]
        if missing:
            return f"{said}: the documentation shows {missing!r}, the command printed:\n{out}{err}"
    return None


def run_file(path: Path, tmp_path: Path, monkeypatch, capsys, uses: dict) -> list[str]:
    """Run ``path``'s commands in order in the current directory; the problems found (none: all ran as documented)."""
    problems, child_env = [], None
    from sudoku_lab.cli import build_parser

    for cmd in commands(path):
        for argv in words(cmd.text):
            text = " ".join(argv)
            if text == PLUGIN_INSTALL:
                child_env = _plugin_env(tmp_path)
                continue
            if not_run_reason(argv):
                if argv[0] == "sudoku-lab":  # still parsed: a renamed option fails here too
                    try:
                        build_parser(argv[1:]).parse_args(argv[1:])
                    except SystemExit:
                        problems.append(f"{cmd.where()}: `{cmd.text}`: {capsys.readouterr().err.strip()}")
                continue
            assert argv[0] == "sudoku-lab", (
                f"{cmd.where()}: `{cmd.text}` is neither a sudoku-lab command nor in "
                "NOT_RUN (add it there, with why it is not run)"
            )
            shrunk, changed = shrink(argv[1:])
            prepare_files(shrunk, cmd, uses)
            if child_env is not None:
                status, out, err = run_in_child(shrunk, child_env)
            else:
                status, out, err = run_in_process(shrunk, capsys, monkeypatch)
            problem = check_command(cmd, ["sudoku-lab", *shrunk], changed, status, out, err)
            if problem:
                problems.append(problem)
    return problems


# ---------------------------------------------------------------------------------------------- the tests
@pytest.mark.slow
def test_every_command_of_the_documentation_runs_as_printed(tmp_path, monkeypatch, capsys, warm_kernels):
    """Every file's commands, in order, in one scratch checkout (a page may report on a batch another page ran)."""
    monkeypatch.chdir(scratch_checkout(tmp_path))
    tiny_reproductions(monkeypatch)
    uses: dict = {}
    problems = [p for path in doc_files() for p in run_file(path, tmp_path, monkeypatch, capsys, uses)]
    assert not problems, "\n".join(problems)


def test_the_commands_are_found_and_every_exception_is_still_needed():
    """The extraction finds the commands (a console prompt, continuation lines, `&&` chains, unlabelled blocks), and
    each entry of NOT_RUN, PREPARED and ILLUSTRATIONS matches a printed command (so none outlives its command)."""
    every = [(c, argv) for p in doc_files() for c in commands(p) for argv in words(c.text)]
    texts = [" ".join(argv) for _, argv in every]
    assert "sudoku-lab check reseda_fig4_1_hard" in texts  # a console block
    assert any(
        t.startswith("sudoku-lab compare kennett/hard --sample 3") and t.endswith("--format markdown") for t in texts
    )  # continued on the next line
    assert "sudoku-lab" in texts and "python3 -m venv .venv" in texts  # split at &&
    assert any(c.path.parent.name == "reproduction" for c, _ in every)  # unlabelled blocks of docs/
    assert not any(t.startswith(("sudoku_lab/", "ui/")) for t in texts)  # not the README's tree of files
    check = next(c for c, _ in every if c.text.startswith('sudoku-lab check "8.867'))
    assert check.output == ["sudoku-lab: error: givens clash: r1c1 and r1c3 both hold 8 in row 1 (1 more clash)"]
    for prefix in NOT_RUN:
        assert any(t == prefix or t.startswith(prefix + " ") for t in texts), f"NOT_RUN[{prefix!r}] matches nothing"
    for name in PREPARED:
        assert any(name in argv for _, argv in every), f"PREPARED[{name!r}] is used by no command"
    for text in ILLUSTRATIONS:
        assert any(c.text == text and c.output for c, _ in every), f"ILLUSTRATIONS[{text!r}] shows no output"
    assert PLUGIN_INSTALL in texts


def test_budgets_change_only_budgets():
    assert shrink_until("solved,100000it") == "solved,300it" and shrink_until("solved,50it") == "solved,50it"
    assert shrink_until("solved,3s") == "solved,300it" and shrink_until("solved,1e7evals,2m") == (
        "solved,30000evals,300it"
    )
    argv, changed = shrink(["grades", "--runs", "100", "--out", "fig.pdf", "--algo", "ga", "reseda_fig4_1_hard"])
    assert argv == [
        "grades",
        "--runs",
        "2",
        "--out",
        "fig.pdf",
        "--algo",
        "ga",
        "reseda_fig4_1_hard",
        "--until",
        "solved,300it",
    ] and changed == ["--runs 100 -> 2", "--until solved,300it added"]
    assert shrink(["batch", "--puzzles", "kennett/hard", "--algo", "reseda", "--until", "solved,5it"])[1] == []
    assert shrink(["grades", "--from", "r", "--config", "reseda", "kennett_hard_067"]) == (
        ["grades", "--from", "r", "--config", "reseda", "kennett_hard_067"],
        [],
    )
    assert shrink(["reproduce", "nbcoin-table2", "--param", "generations=1000", "--param", "k=0.1"])[0][3:] == [
        "generations=50",
        "--param",
        "k=0.1",
    ]
    spec = 'runs = 10   # per puzzle\nuntil = "solved,10s"\n[[solvers]]\nname = "x"\nuntil = "solved,5s"\nsample = 20\n'
    assert shrink_spec(spec) == (
        'runs = 2   # per puzzle\nuntil = "solved,300it"\n[[solvers]]\nname = "x"\n'
        'until = "solved,300it"\nsample = 20\n'
    )


def test_an_outcome_other_than_the_documented_one_is_reported():
    here = ROOT / "README.md"
    error = Command(here, 1, 'sudoku-lab check "8.8"', console=True, output=["sudoku-lab: error: givens clash: x"])
    argv = ["sudoku-lab", "check", "8.8"]
    assert check_command(error, argv, [], 2, "", "sudoku-lab: error: givens clash: x\n") is None
    assert "the documentation shows" in check_command(error, argv, [], 2, "", "sudoku-lab: error: other\n")
    assert "the documentation shows" in check_command(error, argv, [], 0, "fine\n", "")
    shown = Command(here, 1, "sudoku-lab solve x", console=True, output=["# x: solved after 5 steps, 0.083 s", "..."])
    argv = ["sudoku-lab", "solve", "x"]
    assert check_command(shown, argv, [], 0, "grid\n", "# x: solved after 5 steps, 1.5 s\n") is None
    assert "the documentation shows" in check_command(shown, argv, [], 0, "grid\n", "# x: solved after 6 steps\n")
    assert "exit status 1" in check_command(shown, argv, [], 1, "", "")
    assert check_command(shown, argv, ["--until solved,300it"], 1, "", "# x: solved after 5 steps, 2 s\n") is None
    window = Command(here, 1, "sudoku-lab gui nosuch")
    assert "the window refused" in check_command(
        window, ["sudoku-lab", "gui", "nosuch"], [], 2, "", "sudoku-lab: error: no bundled puzzle named 'nosuch'\n"
    )
    assert check_command(window, ["sudoku-lab"], [], 2, "", NO_DISPLAY + " (DISPLAY is not set)\n") is None


# ---------------------------------------------------------------------------------------------- options named
def _subparsers(parser) -> dict:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices
    return {}


@functools.cache
def _parser(algo: str | None):
    """The whole command-line parser, with the options of solver ``algo`` (built once per solver)."""
    from sudoku_lab.cli import build_parser

    return build_parser(["solve", "--algo", algo] if algo else None)


def _command_parser(words_: list[str]):
    """The parser of ``sudoku-lab WORDS...`` (nested sub-commands followed; --algo NAME's own options included)."""
    from sudoku_lab.solvers import registry

    algo = words_[words_.index("--algo") + 1] if "--algo" in words_[:-1] else None
    parser = _parser(algo if algo in registry() else None)
    for w in words_:
        sub = _subparsers(parser)
        if w not in sub:
            break
        parser = sub[w]
    return parser


FLAG = re.compile(r"(?<![\w-])--[a-zA-Z][\w-]*")
INLINE_COMMAND = re.compile(r"`(?:\$ )?sudoku-lab ([a-z][^`]*)`")


def wrong_flags(text: str) -> list[str]:
    """The options of `` `sudoku-lab CMD ...` `` commands in ``text`` that CMD does not have."""
    bad = []
    for m in INLINE_COMMAND.finditer(text):
        top = _subparsers(_parser(None))
        ws = m.group(1).split()
        if ws[0] not in top:
            bad.append(f"`sudoku-lab {m.group(1)}`: no command {ws[0]!r}")
            continue
        parser = _command_parser(ws)
        known = {o for a in parser._actions for o in a.option_strings}
        bad += [f"`sudoku-lab {m.group(1)}`: {f}" for f in FLAG.findall(m.group(1)) if f not in known]
    return bad


def test_inline_commands_of_the_documentation_use_options_their_command_has():
    bad = [f"{p.relative_to(ROOT)}: {b}" for p in doc_files() for b in wrong_flags(p.read_text(encoding="utf-8"))]
    assert not bad, "\n".join(bad)


def _string_constants(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


#: Options named in the package's strings that are not sudoku-lab's: whose they are.
OTHER_PROGRAMS = {
    "--solve": "qqwing",
    "--one-line": "qqwing",
    "--stats": "qqwing",
    "--csv": "qqwing",
    "--nosolution": "qqwing",
    "--long-steps": "python -m sudoku_lab_ui.screenshots",
    "--timeout": "python -m sudoku_lab_ui.bench_gui",
    "--reinstall": "apt-get",
}


def test_messages_suggest_only_options_that_exist():
    """`grades --from` told users to "choose one with --puzzle NAME": no command has that option. Every option named
    in a string of the package (messages, help, docstrings) is an option of some sudoku-lab command, and every
    `sudoku-lab CMD ...` spelled out in one uses options CMD has."""
    from sudoku_lab.solvers import registry

    def options(parser):
        found = set()
        for a in parser._actions:
            found.update(a.option_strings)
            for sub in (_subparsers(parser) if isinstance(a, argparse._SubParsersAction) else {}).values():
                found |= options(sub)
        return found

    known = set().union(*(options(_parser(a)) for a in registry()), options(_parser(None)))
    bad, used = [], set()
    for top in ("sudoku_lab", "ui"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for line, text in _string_constants(path):
                where = f"{path.relative_to(ROOT)}:{line}"
                for f in FLAG.findall(text):
                    if f in OTHER_PROGRAMS:
                        used.add(f)
                    elif f not in known:
                        bad.append(f"{where}: {f} is no option of any sudoku-lab command")
                bad += [f"{where}: {b}" for b in wrong_flags(text)]
    assert not bad, "\n".join(bad)
    assert used == set(OTHER_PROGRAMS), f"OTHER_PROGRAMS lists options no string names: {set(OTHER_PROGRAMS) - used}"


def test_every_documented_command_parses(capsys):
    """Every ``sudoku-lab`` command of the documentation's code blocks parses with today's command line (a renamed
    command or option fails here in seconds; the slow test above also runs them). Commands after the plugin's
    installation need the plugin and are left to that test."""
    from sudoku_lab.cli import build_parser

    bad = []
    for path in doc_files():
        plugin = False
        for cmd in commands(path):
            for argv in words(cmd.text):
                plugin = plugin or " ".join(argv) == PLUGIN_INSTALL
                if plugin or argv[0] != "sudoku-lab":
                    continue
                try:
                    build_parser(argv[1:]).parse_args(argv[1:])
                except SystemExit as e:
                    if e.code:
                        bad.append(f"{cmd.where()}: `{cmd.text}`: {capsys.readouterr().err.strip()}")
    assert not bad, "\n".join(bad)
