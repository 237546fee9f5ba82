"""A solver by human techniques, its path in words, and a HoDoKu-style difficulty grade.

:func:`rate` solves a puzzle the way a person does: at each step it looks for
the simplest technique that makes progress (places a digit or removes a
candidate), in the order of :data:`TECHNIQUES`, applies it, and starts again
from the simplest. When none applies it falls back to its last resort,
**trial and error (bifurcation)**: it takes the unsolved cell with the fewest
candidates and places the digit of the unique solution found by the exact
solver (:mod:`sudoku_lab.exact`), every other candidate of that cell leading
to a contradiction. Every step is recorded (:class:`Step`) with its technique,
its placements and eliminations and a sentence in words.

The techniques
--------------
full house, naked single, hidden single, locked candidates (pointing and
claiming), naked and hidden pairs, triples and quads, X-wing, swordfish,
XY-wing, simple colouring (colour trap and colour wrap), trial and error.
All of them are stated on units, so they run unchanged on 4 x 4, 16 x 16 and
25 x 25 grids (subsets stop at quads and fish at swordfish there too; the
larger grids fall back to trial and error more often, and the score limits of
the grades, calibrated by HoDoKu on 9 x 9, are only indicative there).

The technique a placement needed
--------------------------------
``Rating.cell_technique[c]`` is the hardest technique among the steps from the
one after the previous placement up to and including the step that placed
cell ``c``: the eliminations that had to happen before this placement became
the simplest step available. "Hardest" orders techniques by HoDoKu level,
then by HoDoKu base score (:attr:`Technique.rank`). Givens have no technique
(-1). A step that places several cells (never more than one here) would give
them all the same technique.

The grade (HoDoKu's rule)
-------------------------
Each technique has HoDoKu's default level and base score (HoDoKu 2.2,
``Options.DEFAULT_SOLVER_STEPS``); the score of a puzzle is the sum of the
base scores of all its steps (each single counts). The grade starts at the
level of the hardest technique used and is raised one level at a time while
the score exceeds that level's maximum score (``DEFAULT_DIFFICULTY_LEVELS``:
easy 800, medium 1000, hard 1600, unfair 1800, extreme unlimited), as
HoDoKu's ``SudokuSolver`` does (``while (score > level.getMaxScore())``).
Our last resort uses HoDoKu's BRUTE_FORCE entry (extreme, 10000). HoDoKu's
locked pair and locked triple are found here as naked pairs and triples and
scored as such; HoDoKu's other techniques (skyscraper, chains, ALS, ...) are
not implemented, so a puzzle that HoDoKu solves with them is graded extreme
here (trial and error) where HoDoKu may say hard or unfair.

Examples
--------
>>> from sudoku_lab.exact.human import rate
>>> r = rate("2.93..6...5.8..3.9.3.1.7.4...2.861..98.....67..357.8...2.7.4.8.6.8..3.5...5..84.2")
>>> r.grade, r.hardest.name
('easy', 'naked single')
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from .._checks import checked
from ..errors import PuzzleError
from ..model.geometry import PuzzleLike, cell_name, geometry, symbol

__all__ = [
    "Technique",
    "TECHNIQUES",
    "TECHNIQUE_RANK",
    "GRADES",
    "GRADE_MAX_SCORE",
    "Step",
    "Rating",
    "rate",
    "grade_for",
    "technique",
]


@checked
@dataclass(frozen=True)
class Technique:
    """One technique, with HoDoKu's default level and base score.

    Attributes
    ----------
    name : str
        Our name (``"hidden single"``).
    hodoku : str
        HoDoKu's ``SolutionType`` it is scored as (``"HIDDEN_SINGLE"``).
    level : int
        HoDoKu's level: 1 easy, 2 medium, 3 hard, 4 unfair, 5 extreme.
    score : int
        HoDoKu's base score, added once per step.
    """

    name: str
    hodoku: str
    level: int
    score: int

    @property
    def rank(self) -> tuple[int, int]:
        """The order of hardness: level, then base score."""
        return (self.level, self.score)

    @property
    def grade(self) -> str:
        """The grade name of this technique's level."""
        return GRADES[self.level - 1]


#: The techniques in the order they are tried (HoDoKu's step order), with HoDoKu's level and base score.
TECHNIQUES: tuple[Technique, ...] = (
    Technique("full house", "FULL_HOUSE", 1, 4),
    Technique("naked single", "NAKED_SINGLE", 1, 4),
    Technique("hidden single", "HIDDEN_SINGLE", 1, 14),
    Technique("locked candidates (pointing)", "LOCKED_CANDIDATES_1", 2, 50),
    Technique("locked candidates (claiming)", "LOCKED_CANDIDATES_2", 2, 50),
    Technique("naked pair", "NAKED_PAIR", 2, 60),
    Technique("naked triple", "NAKED_TRIPLE", 2, 80),
    Technique("hidden pair", "HIDDEN_PAIR", 2, 70),
    Technique("hidden triple", "HIDDEN_TRIPLE", 2, 100),
    Technique("naked quad", "NAKED_QUADRUPLE", 3, 120),
    Technique("hidden quad", "HIDDEN_QUADRUPLE", 3, 150),
    Technique("X-wing", "X_WING", 3, 140),
    Technique("swordfish", "SWORDFISH", 3, 150),
    Technique("XY-wing", "XY_WING", 3, 160),
    Technique("simple colouring", "SIMPLE_COLORS", 3, 150),
    Technique("trial and error (bifurcation)", "BRUTE_FORCE", 5, 10000),
)
_BY_NAME = {t.name: i for i, t in enumerate(TECHNIQUES)}
#: Per technique of :data:`TECHNIQUES`, its dense rank (1-based) in the order of hardness (level, base score).
TECHNIQUE_RANK: tuple[int, ...] = tuple(sorted({t.rank for t in TECHNIQUES}).index(t.rank) + 1 for t in TECHNIQUES)

#: HoDoKu's grades, by level 1..5.
GRADES: tuple[str, ...] = ("easy", "medium", "hard", "unfair", "extreme")
#: HoDoKu's maximum score per grade (``DEFAULT_DIFFICULTY_LEVELS``); above it the grade goes up one.
GRADE_MAX_SCORE: dict[str, int] = {"easy": 800, "medium": 1000, "hard": 1600, "unfair": 1800, "extreme": 2**31 - 1}


@checked
def technique(name: str) -> int:
    """The index in :data:`TECHNIQUES` of the technique called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        from ..errors import ParameterError

        raise ParameterError(f"no technique named {name!r}; known: {', '.join(_BY_NAME)}", name="technique") from None


@checked
def grade_for(level: int, score: int) -> str:
    """HoDoKu's grade: the hardest level used, raised while ``score`` exceeds that level's maximum score."""
    g = max(1, min(5, int(level)))
    while g < 5 and score > GRADE_MAX_SCORE[GRADES[g - 1]]:
        g += 1
    return GRADES[g - 1]


@checked
@dataclass(frozen=True)
class Step:
    """One step of the path.

    Attributes
    ----------
    technique : int
        Index in :data:`TECHNIQUES`.
    placements : tuple of (int, int)
        ``(cell, digit)`` placed by this step (flat cell index, digit 1..N).
    eliminations : tuple of (int, int)
        ``(cell, digit)`` candidates this step removes (not counting the ones a
        placement removes from its peers, which every step does silently).
    text : str
        The step in words.
    """

    technique: int
    placements: tuple[tuple[int, int], ...]
    eliminations: tuple[tuple[int, int], ...]
    text: str

    @property
    def name(self) -> str:
        """The technique's name."""
        return TECHNIQUES[self.technique].name


@checked
@dataclass(frozen=True)
class Rating:
    """A puzzle solved by human techniques: its path, its grade and the technique each cell needed.

    Attributes
    ----------
    n : int
        Box size.
    steps : tuple of Step
        The path, in order.
    solution : ndarray of int8, shape (C,)
        The solution the path reaches (read-only).
    cell_technique : ndarray of int8, shape (C,)
        Per cell, the index in :data:`TECHNIQUES` of the hardest technique its placement needed
        (see the module's docstring); -1 for givens.
    score : int
        HoDoKu score: the sum of the base scores of all steps.
    grade : str
        One of :data:`GRADES`.
    """

    n: int
    steps: tuple[Step, ...]
    solution: np.ndarray
    cell_technique: np.ndarray
    score: int
    grade: str

    @property
    def hardest(self) -> Technique:
        """The hardest technique the path used."""
        return max((TECHNIQUES[s.technique] for s in self.steps), key=lambda t: t.rank, default=TECHNIQUES[0])

    @property
    def cell_level(self) -> np.ndarray:
        """Per cell, the HoDoKu level (1..5) of the technique it needed; 0 for givens. int8, shape (C,)."""
        levels = np.array([0] + [t.level for t in TECHNIQUES], dtype=np.int8)
        return levels[self.cell_technique.astype(np.int64) + 1]

    @property
    def cell_rank(self) -> np.ndarray:
        """Per cell, the dense rank (1, 2, ...) of its technique in the order of hardness; 0 for givens.

        Techniques of equal HoDoKu level and base score share a rank (full house and naked single are 1,
        hidden single 2, the locked candidates 3, ...; see :data:`TECHNIQUE_RANK`). int8, shape (C,).
        """
        ranks = np.array([0, *TECHNIQUE_RANK], dtype=np.int8)
        return ranks[self.cell_technique.astype(np.int64) + 1]

    def counts(self) -> dict[str, int]:
        """How many steps used each technique, in the order of :data:`TECHNIQUES` (used ones only)."""
        out: dict[str, int] = {}
        for t in sorted({s.technique for s in self.steps}):
            out[TECHNIQUES[t].name] = sum(1 for s in self.steps if s.technique == t)
        return out

    def to_dict(self) -> dict:
        """JSON-ready: grade, score, hardest technique, technique counts, per-cell techniques and the steps."""
        return {
            "grade": self.grade,
            "score": self.score,
            "hardest": self.hardest.name,
            "counts": self.counts(),
            "cell_technique": [TECHNIQUES[t].name if t >= 0 else None for t in self.cell_technique.tolist()],
            "steps": [
                {
                    "technique": s.name,
                    "placements": [list(p) for p in s.placements],
                    "eliminations": [list(e) for e in s.eliminations],
                    "text": s.text,
                }
                for s in self.steps
            ],
        }


# ----------------------------------------------------------------- the solver
def _bits(mask: int) -> list[int]:
    """Digits (1-based) of a candidate mask."""
    out = []
    d = 1
    while mask:
        if mask & 1:
            out.append(d)
        mask >>= 1
        d += 1
    return out


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


class _Board:
    """Values and candidate bitmasks (bit d-1 for digit d) of a grid being solved."""

    def __init__(self, grid: np.ndarray, n: int):
        geo = geometry(n)
        self.n, self.N, self.C = n, geo.N, geo.C
        self.units = [list(map(int, u)) for u in geo.units]
        self.cell_units = [tuple(map(int, cu)) for cu in geo.cell_units]
        self.peers = [frozenset(map(int, p)) for p in geo.peers]
        self.row = geo.row
        self.col = geo.col
        self.box = geo.box
        self.values = [int(v) for v in grid]
        full = geo.full_mask
        self.cand = [0 if v else full for v in self.values]
        for c, v in enumerate(self.values):
            if v:
                for p in self.peers[c]:
                    self.cand[p] &= ~(1 << (v - 1))

    def place(self, cell: int, d: int) -> None:
        self.values[cell] = d
        self.cand[cell] = 0
        bit = ~(1 << (d - 1))
        for p in self.peers[cell]:
            self.cand[p] &= bit

    def unit_name(self, u: int) -> str:
        kind, idx = divmod(u, self.N)
        return f"{('row', 'column', 'box')[kind]} {idx + 1}"

    def sees(self, a: int, b: int) -> bool:
        return b in self.peers[a]


def _cells(cells, N: int) -> str:
    return ", ".join(cell_name(c, N) for c in cells)


def _elim_text(elims, N: int) -> str:
    by_digit: dict[int, list[int]] = {}
    for c, d in elims:
        by_digit.setdefault(d, []).append(c)
    return "; ".join(f"{symbol(d)} from {_cells(sorted(cs), N)}" for d, cs in sorted(by_digit.items()))


def _digits(ds) -> str:
    return "{" + ",".join(symbol(d) for d in ds) + "}"


def _step(name: str, placements, elims, text: str) -> Step:
    return Step(_BY_NAME[name], tuple(placements), tuple(sorted(elims)), text)


def _full_house(b: _Board) -> Step | None:
    for u, cells in enumerate(b.units):
        empty = [c for c in cells if b.values[c] == 0]
        if len(empty) == 1:
            c = empty[0]
            if b.cand[c]:
                d = _bits(b.cand[c])[0]
                return _step(
                    "full house",
                    [(c, d)],
                    (),
                    f"full house: {cell_name(c, b.N)} is the last empty cell of {b.unit_name(u)}, so it is {symbol(d)}",
                )
    return None


def _naked_single(b: _Board) -> Step | None:
    for c in range(b.C):
        m = b.cand[c]
        if b.values[c] == 0 and m and m & (m - 1) == 0:
            d = m.bit_length()
            return _step("naked single", [(c, d)], (), f"naked single: {cell_name(c, b.N)} can only be {symbol(d)}")
    return None


def _hidden_single(b: _Board) -> Step | None:
    N = b.N
    order = list(range(2 * N, 3 * N)) + list(range(2 * N))  # boxes first, as people scan
    for u in order:
        cells = b.units[u]
        seen_once = 0
        seen_twice = 0
        for c in cells:
            m = b.cand[c]
            seen_twice |= seen_once & m
            seen_once |= m
        only = seen_once & ~seen_twice
        if only:
            d = (only & -only).bit_length()
            bit = 1 << (d - 1)
            c = next(c for c in cells if b.cand[c] & bit)
            return _step(
                "hidden single",
                [(c, d)],
                (),
                f"hidden single: {symbol(d)} can go only in {cell_name(c, N)} in {b.unit_name(u)}",
            )
    return None


def _locked(b: _Board) -> Step | None:
    N = b.N
    # pointing: in a box, the digit's cells lie in one row (column): remove it from the rest of that line
    for bx in range(N):
        cells = b.units[2 * N + bx]
        for d in range(1, N + 1):
            bit = 1 << (d - 1)
            where = [c for c in cells if b.cand[c] & bit]
            if len(where) < 2:
                continue
            for kind, lines in ((0, b.row), (1, b.col)):
                ls = {int(lines[c]) for c in where}
                if len(ls) == 1:
                    u = kind * N + ls.pop()
                    elims = [(c, d) for c in b.units[u] if b.box[c] != bx and b.cand[c] & bit]
                    if elims:
                        return _step(
                            "locked candidates (pointing)",
                            (),
                            elims,
                            f"locked candidates (pointing): in box {bx + 1}, {symbol(d)} lies only in "
                            f"{b.unit_name(u)}, so it is removed from {_cells(sorted(c for c, _ in elims), N)}",
                        )
    # claiming: in a row (column), the digit's cells lie in one box: remove it from the rest of that box
    for u in range(2 * N):
        cells = b.units[u]
        for d in range(1, N + 1):
            bit = 1 << (d - 1)
            where = [c for c in cells if b.cand[c] & bit]
            if len(where) < 2:
                continue
            bs = {int(b.box[c]) for c in where}
            if len(bs) == 1:
                bx = bs.pop()
                line = set(cells)
                elims = [(c, d) for c in b.units[2 * N + bx] if c not in line and b.cand[c] & bit]
                if elims:
                    return _step(
                        "locked candidates (claiming)",
                        (),
                        elims,
                        f"locked candidates (claiming): in {b.unit_name(u)}, {symbol(d)} lies only in box "
                        f"{bx + 1}, so it is removed from {_cells(sorted(c for c, _ in elims), N)}",
                    )
    return None


_SIZE_NAMES = {2: "pair", 3: "triple", 4: "quad"}


def _naked_subset(b: _Board, k: int) -> Step | None:
    name = f"naked {_SIZE_NAMES[k]}"
    for u, cells in enumerate(b.units):
        empty = [c for c in cells if b.values[c] == 0]
        if len(empty) <= k:
            continue
        small = [c for c in empty if 2 <= _popcount(b.cand[c]) <= k]
        for combo in combinations(small, k):
            m = 0
            for c in combo:
                m |= b.cand[c]
            if _popcount(m) != k:
                continue
            elims = [(c, d) for c in empty if c not in combo for d in _bits(b.cand[c] & m)]
            if elims:
                return _step(
                    name,
                    (),
                    elims,
                    f"{name}: {_cells(combo, b.N)} hold only {_digits(_bits(m))} in {b.unit_name(u)}, "
                    f"so these digits are removed from the unit's other cells: {_elim_text(elims, b.N)}",
                )
    return None


def _hidden_subset(b: _Board, k: int) -> Step | None:
    name = f"hidden {_SIZE_NAMES[k]}"
    N = b.N
    for u, cells in enumerate(b.units):
        empty = [c for c in cells if b.values[c] == 0]
        if len(empty) <= k:
            continue
        pos: dict[int, int] = {}
        for i, c in enumerate(cells):
            for d in _bits(b.cand[c]):
                pos[d] = pos.get(d, 0) | (1 << i)
        digits = [d for d, p in pos.items() if 2 <= _popcount(p) <= k]
        for combo in combinations(sorted(digits), k):
            p = 0
            for d in combo:
                p |= pos[d]
            if _popcount(p) != k:
                continue
            keep = 0
            for d in combo:
                keep |= 1 << (d - 1)
            where = [cells[i] for i in range(N) if p >> i & 1]
            elims = [(c, d) for c in where for d in _bits(b.cand[c] & ~keep)]
            if elims:
                return _step(
                    name,
                    (),
                    elims,
                    f"{name}: in {b.unit_name(u)}, {_digits(combo)} go only in {_cells(where, N)}, so their "
                    f"other candidates are removed: {_elim_text(elims, N)}",
                )
    return None


def _fish(b: _Board, size: int) -> Step | None:
    name = {2: "X-wing", 3: "swordfish"}[size]
    N = b.N
    for d in range(1, N + 1):
        bit = 1 << (d - 1)
        for kind in (0, 1):  # base rows, cover columns; then base columns, cover rows
            lines: list[tuple[int, int]] = []  # (line index, mask of positions across)
            for i in range(N):
                m = 0
                for j, c in enumerate(b.units[kind * N + i]):
                    if b.cand[c] & bit:
                        m |= 1 << j
                if 2 <= _popcount(m) <= size:
                    lines.append((i, m))
            for combo in combinations(lines, size):
                cover = 0
                for _, m in combo:
                    cover |= m
                if _popcount(cover) != size:
                    continue
                base = {i for i, _ in combo}
                covers = [j for j in range(N) if cover >> j & 1]
                other = 1 - kind
                elims = [
                    (c, d)
                    for j in covers
                    for c in b.units[other * N + j]
                    if b.cand[c] & bit and int((b.row if kind == 0 else b.col)[c]) not in base
                ]
                if elims:
                    bn, cn = ("rows", "columns") if kind == 0 else ("columns", "rows")
                    return _step(
                        name,
                        (),
                        elims,
                        f"{name}: {symbol(d)} in {bn} {', '.join(str(i + 1) for i in sorted(base))} lies only in "
                        f"{cn} {', '.join(str(j + 1) for j in covers)}, so it is removed from the rest of those "
                        f"{cn}: {_cells(sorted(c for c, _ in elims), N)}",
                    )
    return None


def _xy_wing(b: _Board) -> Step | None:
    N = b.N
    bivalue = [c for c in range(b.C) if b.values[c] == 0 and _popcount(b.cand[c]) == 2]
    for pivot in bivalue:
        pm = b.cand[pivot]
        wings = [c for c in bivalue if c != pivot and b.sees(pivot, c) and _popcount(b.cand[c] & pm) == 1]
        for a, c2 in combinations(wings, 2):
            ma, mc = b.cand[a], b.cand[c2]
            if ma & pm == mc & pm:
                continue
            z = (ma & ~pm) & (mc & ~pm)
            if not z or ma & mc != z:
                continue
            zd = z.bit_length()
            elims = [
                (c, zd)
                for c in range(b.C)
                if c not in (pivot, a, c2) and b.cand[c] & z and b.sees(c, a) and b.sees(c, c2)
            ]
            if elims:
                return _step(
                    "XY-wing",
                    (),
                    elims,
                    f"XY-wing: pivot {cell_name(pivot, N)} {_digits(_bits(pm))} with pincers {cell_name(a, N)} "
                    f"{_digits(_bits(ma))} and {cell_name(c2, N)} {_digits(_bits(mc))}: one pincer is "
                    f"{symbol(zd)}, so {symbol(zd)} is removed from {_cells(sorted(c for c, _ in elims), N)}",
                )
    return None


def _colouring(b: _Board) -> Step | None:
    N = b.N
    for d in range(1, N + 1):
        bit = 1 << (d - 1)
        links: dict[int, list[int]] = {}
        for cells in b.units:
            where = [c for c in cells if b.cand[c] & bit]
            if len(where) == 2:
                x, y = where
                links.setdefault(x, []).append(y)
                links.setdefault(y, []).append(x)
        colour: dict[int, int] = {}
        for start in sorted(links):
            if start in colour:
                continue
            comp = {start: 0}
            stack = [start]
            while stack:
                x = stack.pop()
                for y in links[x]:
                    if y not in comp:
                        comp[y] = 1 - comp[x]
                        stack.append(y)
            colour.update(comp)
            if len(comp) < 3:
                continue  # a single strong link: whatever it removes, the simpler techniques found first
            groups = [sorted(c for c, k in comp.items() if k == 0), sorted(c for c, k in comp.items() if k == 1)]
            # colour wrap: two cells of one colour see each other, so that colour is false everywhere
            for k in (0, 1):
                g = groups[k]
                if any(b.sees(x, y) for x, y in combinations(g, 2)):
                    elims = [(c, d) for c in g]
                    return _step(
                        "simple colouring",
                        (),
                        elims,
                        f"simple colouring (colour wrap) on {symbol(d)}: the chain of strong links "
                        f"{_cells(sorted(comp), N)} has two cells of one colour in one unit, so that colour is "
                        f"false: {symbol(d)} is removed from {_cells(g, N)}",
                    )
            # colour trap: a cell outside the chain that sees both colours
            elims = [
                (c, d)
                for c in range(b.C)
                if c not in comp
                and b.cand[c] & bit
                and any(b.sees(c, x) for x in groups[0])
                and any(b.sees(c, y) for y in groups[1])
            ]
            if elims:
                return _step(
                    "simple colouring",
                    (),
                    elims,
                    f"simple colouring (colour trap) on {symbol(d)}: the chain of strong links "
                    f"{_cells(sorted(comp), N)} puts {symbol(d)} in one of its two colours, so it is removed from "
                    f"cells that see both: {_cells(sorted(c for c, _ in elims), N)}",
                )
    return None


def _bifurcation(b: _Board, solution: np.ndarray) -> Step:
    empty = [c for c in range(b.C) if b.values[c] == 0]
    cell = min(empty, key=lambda c: (_popcount(b.cand[c]), c))
    d = int(solution[cell])
    others = [x for x in _bits(b.cand[cell]) if x != d]
    if others:
        why = (
            f"{cell_name(cell, b.N)} can be {_digits(_bits(b.cand[cell]))}; the exact solver finds no solution with "
            f"{' or '.join(symbol(x) for x in others)} there, so it is {symbol(d)}"
        )
    else:
        why = f"{cell_name(cell, b.N)} is {symbol(d)}"
    return _step("trial and error (bifurcation)", [(cell, d)], (), f"trial and error (bifurcation): {why}")


def _next_step(b: _Board, solution: np.ndarray) -> Step:
    for find in (
        _full_house,
        _naked_single,
        _hidden_single,
        _locked,
        lambda x: _naked_subset(x, 2),
        lambda x: _naked_subset(x, 3),
        lambda x: _hidden_subset(x, 2),
        lambda x: _hidden_subset(x, 3),
        lambda x: _naked_subset(x, 4),
        lambda x: _hidden_subset(x, 4),
        lambda x: _fish(x, 2),
        lambda x: _fish(x, 3),
        _xy_wing,
        _colouring,
    ):
        step = find(b)
        if step is not None:
            return step
    return _bifurcation(b, solution)


@checked
def rate(puzzle: PuzzleLike | str | npt.ArrayLike) -> Rating:
    """Solve ``puzzle`` by human techniques; its path, grade and the technique each cell needed.

    Parameters
    ----------
    puzzle : Puzzle, puzzle text, or array_like of int, shape (C,) or (N, N)

    Returns
    -------
    Rating

    Raises
    ------
    PuzzleError
        Clashing givens, no solution, or several solutions (the messages of
        :meth:`sudoku_lab.model.puzzle.Puzzle.check`).
    """
    from ..model.puzzle import Puzzle

    if isinstance(puzzle, str):
        p = Puzzle.parse(puzzle)
    elif isinstance(puzzle, Puzzle):
        p = puzzle
    else:
        from ..model.geometry import as_grid

        grid, n = as_grid(puzzle)
        p = Puzzle.from_array(grid, n=n)
    solution = p.check(unique=True)
    b = _Board(p.grid, p.n)
    steps: list[Step] = []
    cell_technique = np.full(p.C, -1, dtype=np.int8)
    since: int | None = None  # hardest technique since the previous placement
    score = 0
    level = 1
    for _ in range(100 * p.C):  # every step removes a candidate or places a digit: C * N steps at most
        if all(b.values):
            break
        step = _next_step(b, solution)
        steps.append(step)
        t = TECHNIQUES[step.technique]
        score += t.score
        level = max(level, t.level)
        if since is None or t.rank > TECHNIQUES[since].rank:
            since = step.technique
        for c, d in step.eliminations:
            b.cand[c] &= ~(1 << (d - 1))
        for c, d in step.placements:
            b.place(c, d)
            cell_technique[c] = since
        if step.placements:
            since = None
    else:  # pragma: no cover - every step makes progress
        raise PuzzleError("the human-technique solver made no progress", kind="no_solution")
    sol = np.array(b.values, dtype=np.int8)
    if not np.array_equal(sol, solution):  # pragma: no cover - a technique that is wrong is a bug
        raise AssertionError("the human-technique path does not reach the exact solver's solution")
    sol.setflags(write=False)
    cell_technique.setflags(write=False)
    return Rating(p.n, tuple(steps), sol, cell_technique, score, grade_for(level, score))
