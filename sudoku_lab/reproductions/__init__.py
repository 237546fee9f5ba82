"""Paper reproductions: a registry of papers and of the experiments that re-run their tables.

Each paper has one module here (``reseda.py`` for Maire and Prissette's
RESEDA). It registers the paper (:class:`Paper`: key, full citation, where the
published numbers come from) and one :class:`Reproduction` per table or figure,
and ``sudoku-lab reproduce NAME`` finds them: adding a paper's reproductions
means adding ``sudoku_lab/reproductions/<paper>.py`` and nothing else. Code
outside the package registers the same way, through a plugin (see
:mod:`sudoku_lab.plugins`)::

    from sudoku_lab.reproductions import (COMPARISON_HEADER, Option, Paper, Report, register_paper,
                                          register_reproduction)

    register_paper(Paper("toy", "A. Author, A toy paper, 2024", "Table 1 of the paper"))

    @register_reproduction("toy-table1", paper="toy", title="Toy Table 1", solver="reseda",
                           options={"runs": Option(100, "runs per configuration", low=1, high=10_000, grows=True)},
                           quick={"runs": 20})
    def toy_table1(runner, runs):
        tasks = runner.repeat("reseda", runner.p(restart="none"), puzzle, "solved,100000it", runs)
        res = runner.run(tasks, "toy")
        k = sum(r.solved for r in res)
        rep = Report("Toy Table 1", ["paper", "ours", *COMPARISON_HEADER])
        rep.rows.append(["42/100", f"{k}/{len(res)}", *rep.rate_cells(42, 100, k, len(res))])
        return rep

A reproduction's run function receives a :class:`Runner` (the user's seed,
``--param`` values, where the runs go, the results directory and Ctrl-C) and,
as keywords, the options it declares (``runs``, ``puzzles``, ``solve_runs``,
``out`` or its own) with their defaults filled in (or its ``quick`` values,
under ``--quick`` and in ``reproduce all --quick``); it returns a
:class:`Report`. ``runner.run(tasks, label)`` runs a list of
:class:`~sudoku_lab.engine.experiments.Task` on the experiment engine and keeps each
finished run in the results directory, so the same command resumes;
``label`` names the list (a cell or row of the table), and ``runner.repeat``
/ ``runner.each`` build the usual lists (seeded runs of one configuration,
one run per puzzle). A reproduction without ``quick`` runs at its defaults in
``--quick`` too. Success counts are compared
with the paper's by :meth:`Report.rate_cells`: both exact 95 % intervals,
Newcombe's interval for the difference, Fisher's exact test and a verdict
word, "consistent", "ours higher" or "ours lower" (defined in
:mod:`sudoku_lab.analysis.stats`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .._checks import checked
from ..errors import ParameterError
from ..plugins import Registry
from ._core import COMPARISON_HEADER, COMPARISON_NOTE, Report, Runner, comparison_cells

__all__ = [
    "Paper",
    "Reproduction",
    "Option",
    "OPTION_NAMES",
    "COMMAND_FLAGS",
    "option_names",
    "register_paper",
    "register_reproduction",
    "papers",
    "get_paper",
    "reproductions",
    "get_reproduction",
    "resolve_options",
    "Report",
    "Runner",
    "COMPARISON_HEADER",
    "COMPARISON_NOTE",
    "comparison_cells",
]

#: The common options (``sudoku-lab reproduce`` flags ``--runs``, ``--puzzles``, ``--solve-runs``, ``--out``).
#: ``out`` is a figure path; every other option is an integer. A reproduction may declare its own integer
#: options too (a lower-case identifier, e.g. ``ga_generations``): the command line gets a flag for each
#: (see :func:`option_names`).
OPTION_NAMES = ("runs", "puzzles", "solve_runs", "out")

#: The ``reproduce`` command's own flags, which no reproduction may declare as an option.
COMMAND_FLAGS = (
    "seed",
    "jobs",
    "param",
    "markdown",
    "quiet",
    "experiment",
    "results",
    "scheduler",
    "quick",
    "full",
    "only",
    "out_dir",
)


@checked
def option_names() -> tuple[str, ...]:
    """The common options, then every other option some registered reproduction declares (sorted)."""
    own = {k for r in reproductions().values() for k in r.options} - set(OPTION_NAMES)
    return OPTION_NAMES + tuple(sorted(own))


@checked
@dataclass(frozen=True)
class Paper:
    """A paper whose numbers are reproduced.

    Attributes
    ----------
    key : str
        Short registry key (``"reseda"``); reproductions name it.
    citation : str
        Full citation (authors, title, venue, year, identifier).
    source : str
        Where the published numbers come from (tables and figures of the paper).
    """

    key: str
    citation: str
    source: str


@checked
@dataclass(frozen=True)
class Option:
    """An option a reproduction accepts, with its default and, for integers, its range.

    Attributes
    ----------
    default : int or None
        Value when the user gives none (``out`` has none: no figure).
    help : str
        What it means for this reproduction ("puzzles per Kennett level").
    low, high : int or None
        Inclusive bounds of an integer option (checked before any run).
    grows : bool
        The option is a size: a larger value only adds runs, leaving every run
        of the smaller one as it is (same key, seed, puzzle and budget), and a
        smaller value asks for a part of them. Then ``--results DIR`` of the
        smaller experiment grows (or is read in part) instead of being
        refused. A budget, or a size that renumbers the runs, is not one.
    """

    default: int | None = None
    help: str = ""
    low: int | None = None
    high: int | None = None
    grows: bool = False


@checked
@dataclass(frozen=True)
class Reproduction:
    """One experiment of a paper, as ``sudoku-lab reproduce NAME`` runs it.

    Attributes
    ----------
    name : str
        Registry name, ``<paper>-<table>`` (``"reseda-table1"``).
    paper : str
        Key of its :class:`Paper`.
    title : str
        One line for ``--help``.
    solver : str
        Registered solver it runs; ``--param NAME=VALUE`` is checked against its parameters.
    run : callable
        ``run(runner, **options) -> Report`` with the declared options as keywords.
    options : mapping of str to Option
        The options it accepts (the common :data:`OPTION_NAMES` or its own integer options); any other
        given on the command line is refused.
    quick : mapping of str to int
        Its reduced form (``sudoku-lab reproduce NAME --quick``, ``reproduce all --quick``): values of
        some of its integer options, e.g. ``{"runs": 20}``, each within the option's range. Options it
        leaves out keep their defaults; a reproduction without a quick form runs at its defaults.
    """

    name: str
    paper: str
    title: str
    solver: str
    run: Callable[..., Report]
    options: Mapping[str, Option] = field(default_factory=dict)
    quick: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self):
        for attr in ("name", "paper", "title", "solver"):
            if not isinstance(getattr(self, attr), str) or not getattr(self, attr):
                raise TypeError(f"reproduction {self.name!r}: {attr} must be a non-empty string")
        if not callable(self.run):
            raise TypeError(f"reproduction {self.name!r}: run must be callable")
        if self.name == "all":
            raise ValueError("a reproduction may not be named 'all' (`sudoku-lab reproduce all` runs every one)")
        bad = [
            k
            for k in self.options
            if not (isinstance(k, str) and k.isidentifier() and k == k.lower()) or k in COMMAND_FLAGS
        ]
        if bad:
            raise ValueError(
                f"reproduction {self.name!r}: option {bad[0]!r} must be a lower-case identifier that "
                f"is not one of the command's own flags ({', '.join(COMMAND_FLAGS)})"
            )
        for k, opt in self.options.items():
            if not isinstance(opt, Option):
                raise TypeError(f"reproduction {self.name!r}: option {k!r} must be an Option, got {opt!r}")
            if k == "out" and opt.grows:
                raise ValueError(f"reproduction {self.name!r}: option 'out' is a figure path, not a size (grows)")
        for k, value in dict(self.quick).items():
            opt = self.options.get(k)
            if opt is None or k == "out":
                raise ValueError(
                    f"reproduction {self.name!r}: quick value for {k!r}, which is not one of its "
                    f"integer options ({', '.join(o for o in self.options if o != 'out') or 'none'})"
                )
            problem = _out_of_range(opt, value)
            if problem:
                raise ValueError(f"reproduction {self.name!r}: quick value of {k!r} must be {problem}")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "quick", MappingProxyType(dict(self.quick)))


#: The built-in papers in the order every listing shows them (the README's): RESEDA, the three of the GA
#: comparison (hill climbing, NB-COIN), then AC3-tabu and cuckoo search, then the ant colony system; plugins'
#: papers follow in registration order. Without it the order was that in which modules happened to be
#: imported (a test importing one module first moved its paper ahead).
PAPER_ORDER = ("reseda", "jones", "waiyapara", "soto2013", "soto2014", "lloyd2019")


def _paper_rank(key: str) -> int:
    return PAPER_ORDER.index(key) if key in PAPER_ORDER else len(PAPER_ORDER)


_papers: Registry[Paper] = Registry("paper", package=__name__, key=lambda p: p.key, order=lambda p: _paper_rank(p.key))
_reproductions: Registry[Reproduction] = Registry(
    "reproduction", package=__name__, order=lambda r: _paper_rank(r.paper)
)
#: Where each name was registered from ("module.function"), for the message refusing a duplicate.
_origins: dict[tuple[str, str], str] = {}


def _register(registry: Registry, obj, name: str, origin: str):
    try:
        registry.register(obj)
    except ValueError:
        raise ValueError(
            f"a {registry.kind} named {name!r} is already registered (by "
            f"{_origins.get((registry.kind, name), 'another module')}); choose another name for "
            f"{origin}"
        ) from None
    _origins.setdefault((registry.kind, name), origin)
    return obj


@checked
def register_paper(paper: Paper) -> Paper:
    """Add a paper; a second paper with the same key is refused (ValueError)."""
    if not isinstance(paper, Paper):
        raise TypeError(f"register_paper needs a Paper, got {paper!r}")
    return _register(_papers, paper, paper.key, sys._getframe(1).f_globals.get("__name__", "?"))


@checked
def papers() -> Mapping[str, Paper]:
    """Every registered paper by key (built-in modules and plugins loaded)."""
    return _papers.mapping()


@checked
def get_paper(key: str) -> Paper:
    """The paper registered as ``key``; ParameterError naming the known ones otherwise."""
    return _papers.get(key, param="paper")


@checked
def register_reproduction(
    name: str | Reproduction | None = None,
    *,
    paper: str | None = None,
    title: str | None = None,
    solver: str | None = None,
    options: Mapping[str, Option] | None = None,
    run: Callable[..., Report] | None = None,
    quick: Mapping[str, int] | None = None,
):
    """Register a reproduction; a second one with the same name is refused (ValueError).

    Three forms::

        register_reproduction(Reproduction(...))                 # returns it
        register_reproduction("x-table1", paper=..., run=fn, ...)  # returns the Reproduction
        @register_reproduction("x-table1", paper=..., ...)         # decorator, returns fn unchanged
        def fn(runner, runs): ...
    """
    if isinstance(name, Reproduction):
        return _register(_reproductions, name, name.name, _origin(name.run))

    def make(fn: Callable[..., Report]) -> Reproduction:
        # A missing name, paper, title or solver (None) goes on to Reproduction's own argument checks, which
        # refuse it with their message.
        rep = Reproduction(name, paper, title, solver, fn, dict(options or {}), dict(quick or {}))  # type: ignore[arg-type]
        return _register(_reproductions, rep, rep.name, _origin(fn))

    if run is not None:
        return make(run)

    def decorator(fn):
        make(fn)
        return fn

    return decorator


@checked
def reproductions() -> Mapping[str, Reproduction]:
    """Every registered reproduction by name, in registration order (built-ins first, then plugins)."""
    return _reproductions.mapping()


@checked
def get_reproduction(name: str) -> Reproduction:
    """The reproduction registered as ``name``; ParameterError naming the known ones otherwise."""
    return _reproductions.get(name, param="experiment")


def _origin(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def _out_of_range(opt: Option, value) -> str:
    """What an integer option's value must be ("an integer from 1 to 200"), or "" if ``value`` is one."""
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (opt.low is None or value >= opt.low)
        and (opt.high is None or value <= opt.high)
    ):
        return ""
    bounds = (
        f"from {opt.low} to {opt.high:,}"
        if opt.low is not None and opt.high is not None
        else f">= {opt.low}"
        if opt.low is not None
        else f"<= {opt.high:,}"
        if opt.high is not None
        else ""
    )
    return f"an integer{' ' + bounds if bounds else ''}, got {value!r}"


@checked
def resolve_options(rep: Reproduction, given: Mapping[str, Any], quick: bool = False) -> dict:
    """The keyword options of ``rep.run``: the user's values (None = not given) over the declared defaults
    (over its :attr:`~Reproduction.quick` values first, with ``quick``).

    Raises
    ------
    ParameterTypeError
        An argument of the wrong kind (also a TypeError).
    ParameterError
        An option ``rep`` does not declare was given, or an integer is outside the declared range.
    """
    for key, value in given.items():
        if key not in option_names():
            raise ParameterError(
                f"unknown reproduction option {key!r}; options are {', '.join(option_names())}", name=key
            )
        if value is not None and key not in rep.options:
            takers = [r.name for r in reproductions().values() if key in r.options]
            what = f"{', '.join(takers)} only" if takers else "no registered experiment"
            hint = reproductions()[takers[0]].options[key].help if len(takers) == 1 else ""
            raise ParameterError(
                f"{_flag(key)} applies to {what}{f' ({hint})' if hint else ''}, not to {rep.name}", name=key
            )
    out: dict[str, Any] = {}
    for key, opt in rep.options.items():
        chosen: Any = given.get(key)  # the user's value (any kind), else the quick or the declared one
        if chosen is None and quick:
            chosen = rep.quick.get(key)
        chosen = opt.default if chosen is None else chosen
        if key == "out":
            out[key] = None if chosen is None else Path(chosen)
            continue
        problem = _out_of_range(opt, chosen) if chosen is not None else ""
        if problem:
            raise ParameterError(f"{_flag(key)} of {rep.name} must be {problem}", name=key)
        out[key] = chosen
    return out
