"""The puzzle model: parsing, formatting, round-trips, validation errors and their messages."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sudoku_lab.errors import PuzzleError
from sudoku_lab.model import library
from sudoku_lab.model.collections import format_collection, load_puzzles, parse_collection
from sudoku_lab.model.geometry import SYMBOLS, geometry
from sudoku_lab.model.puzzle import FORMATS, Puzzle

EASY = "..867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329.."


def _pattern_solution(n: int, rng) -> np.ndarray:
    """A valid solved grid of box size n from the classic pattern, digits shuffled."""
    N = n * n
    r, c = np.divmod(np.arange(N * N), N)
    base = (n * (r % n) + r // n + c) % N
    perm = rng.permutation(N) + 1
    return perm[base].astype(np.int8)


@st.composite
def puzzles(draw, sizes=(2, 3, 4, 5)):
    """Clash-free puzzles of any box size: a solved grid with a random subset of cells blanked."""
    n = draw(st.sampled_from(sizes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sol = _pattern_solution(n, rng)
    keep = rng.random(sol.size) < draw(st.floats(0.0, 1.0))
    name = draw(
        st.one_of(
            st.none(), st.text(alphabet="abcdefghij_0123456789 -", min_size=1, max_size=20).map(str.strip).filter(bool)
        )
    )
    return Puzzle(np.where(keep, sol, 0), n=n, name=name)


# ------------------------------------------------------------- round trips
@pytest.mark.parametrize("fmt", FORMATS)
@given(p=puzzles())
@settings(max_examples=60)
def test_every_format_round_trips(fmt, p):
    text = p.format(fmt)
    q = Puzzle.parse(text)
    assert q == p and q.n == p.n
    if fmt in ("kennett", "sdk"):  # the formats that carry a name
        assert q.name == p.name


@pytest.mark.parametrize("fmt", ["csv", "line", "kennett", "grid", "numbers", "sdk"])
@given(ps=st.lists(puzzles(sizes=(2, 3)), min_size=1, max_size=5))
@settings(max_examples=30)
def test_collections_round_trip(fmt, ps):
    text = format_collection(ps, fmt)
    back = parse_collection(text)
    assert back == ps
    if fmt == "csv":  # the collection format that keeps names
        assert [q.name for q in back] == [p.name for p in ps]


def test_sdk_metadata_round_trips():
    p = Puzzle.parse(EASY).replace(
        name="A random puzzle", metadata={"author": "Ruud", "level": "Easy", "url": "http://x/"}
    )
    text = p.to_sdk()
    assert text.splitlines()[:4] == ["#DA random puzzle", "#ARuud", "#LEasy", "#Uhttp://x/"]
    q = Puzzle.parse(text)
    assert (
        q == p
        and q.name == "A random puzzle"
        and dict(q.metadata) == {"author": "Ruud", "level": "Easy", "url": "http://x/"}
    )


def test_reads_the_common_ways_of_writing_a_puzzle():
    p = Puzzle.parse(EASY)
    zeros = EASY.replace(".", "0")
    simple_sudoku = "\n".join(
        ["*-----------*"]
        + [f"|{r[:3]}|{r[3:6]}|{r[6:]}|" if True else "" for r in [EASY[i : i + 9] for i in range(0, 81, 9)]]
        + ["*-----------*"]
    )
    spaced = "\n".join(" ".join(EASY[i : i + 9]) for i in range(0, 81, 9))
    grouped = "\n".join(" ".join([EASY[i : i + 3], EASY[i + 3 : i + 6], EASY[i + 6 : i + 9]]) for i in range(0, 81, 9))
    for text in (
        zeros,
        simple_sudoku,
        spaced,
        grouped,
        EASY.lower(),
        "  " + EASY + "\n\n",
        p.to_grid(),
        p.to_numbers(),
        f"% a Kennett board\n{p.to_grid(separators=False)}",
    ):
        assert Puzzle.parse(text) == p, text


def test_sixteen_and_twenty_five():
    for name, n in (("benchmarks/lewis_16x16_40:1", 4), ("benchmarks/lewis_25x25_45:1", 5)):
        p = library.puzzle(name)
        assert p.n == n and p.C == n**4
        line = p.to_line()
        assert set(line) <= set(SYMBOLS[: n * n]) | {"."}
        nums = p.to_numbers()
        assert max(int(t) for t in nums.split()) == n * n or p.N not in p.grid
        assert Puzzle.parse(nums) == p
        assert Puzzle.parse(line.lower()) == p


def test_a_16x16_written_as_16_lines_is_one_puzzle():
    p = library.puzzle("benchmarks/lewis_16x16_40:1")
    text = p.to_grid(separators=False)
    assert [q.n for q in parse_collection(text)] == [4]


# ------------------------------------------------------------ validation
BAD = [
    # (input, kind, message fragment, attributes)
    ("", "empty", "no puzzle found: the input is empty", {}),
    (EASY[:-1], "cell_count", "found 80 cells; a 9x9 puzzle has 81", {"found": 80}),
    (EASY + "1", "cell_count", "found 82 cells; a 9x9 puzzle has 81", {"found": 82}),
    (
        "\n".join(EASY[i : i + 9] for i in range(0, 81, 9)).replace("..867.4.2", "..867.4.", 1),
        "cell_count",
        "found 80 cells; a 9x9 puzzle has 81 (line 1 has 8 cells, not 9)",
        {},
    ),
    ("53--7----" + EASY[9:], "cell_count", "'-' is read as a separator", {}),
    (
        EASY[:10] + "*" + EASY[11:],
        "bad_character",
        "line 1, column 11: unexpected character '*'",
        {"line": 1, "column": 11},
    ),
    (
        "# title\n" + EASY[:40] + "\n" + EASY[40:44] + "?" + EASY[45:],
        "bad_character",
        "line 3, column 5: unexpected character '?'",
        {"line": 3, "column": 5},
    ),
    (EASY[:10] + "A" + EASY[11:], "bad_symbol", "line 1, column 11: 'A' is not a digit of a 9x9 puzzle", {}),
    (
        " ".join([str(d) for d in range(1, 10)] + ["0"] * 71 + ["17"]),
        "bad_symbol",
        "line 1, column 161: 17 is out of range for a 9x9 puzzle",
        {"line": 1, "column": 161},
    ),
    ("8" + EASY[1:], "clash", "givens clash: r1c1 and r1c3 both hold 8 in row 1 (1 more clash)", {}),
]


@pytest.mark.parametrize("text,kind,fragment,attrs", BAD, ids=[b[1] + str(i) for i, b in enumerate(BAD)])
def test_every_parse_error_says_what_and_where(text, kind, fragment, attrs):
    with pytest.raises(PuzzleError) as info:
        Puzzle.parse(text)
    e = info.value
    assert e.kind == kind
    assert fragment in str(e)
    assert "\n" not in str(e)  # one line, for the CLI and the status bar
    for k, v in attrs.items():
        if k == "cells":
            continue
        assert getattr(e, k) == v


def test_clash_error_names_both_cells_and_the_digit():
    bad = "8" + EASY[1:]  # row 1 and column 1 already hold an 8 (r1c3, r5c1)
    with pytest.raises(PuzzleError) as info:
        Puzzle.parse(bad)
    e = info.value
    a, b = e.cells
    assert (a, b) == (0, 2) and e.digit == 8 and bad[a] == bad[b] == "8"
    assert Puzzle.parse(bad, allow_clashes=True).clashes() == [(0, 2, 8), (0, 36, 8)]
    geo = geometry(3)
    assert set(geo.cell_units[a]) & set(geo.cell_units[b])


def test_no_solution_and_several_solutions():
    # No clash, but r1c9 sees 1..8 in its row and 9 in its column: no candidate.
    g = np.zeros(81, np.int8)
    g[:8] = np.arange(1, 9)
    g[9 * 4 + 8] = 9
    p = Puzzle(g)
    with pytest.raises(PuzzleError) as info:
        p.check()
    assert info.value.kind == "no_solution"
    assert "r1c9" in str(info.value) and info.value.cells == (8,)
    # Several: the empty grid, and a solution with a deadly rectangle removed.
    with pytest.raises(PuzzleError) as info:
        Puzzle(np.zeros(16, np.int8)).check()
    assert info.value.kind == "several_solutions" and "can be" in str(info.value)
    sol = library.puzzle("reseda_fig3_1_easy").check().copy()
    r1, r2, c1, c2 = _deadly_rectangle(sol)
    holes = sol.copy()
    holes[[r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2]] = 0
    with pytest.raises(PuzzleError) as info:
        Puzzle(holes).check()
    e = info.value
    assert e.kind == "several_solutions" and set(e.cells) == {r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2}


def _deadly_rectangle(sol):
    """Rows r1, r2 in one band and columns c1, c2 in two boxes with digits a b / b a."""
    g = sol.reshape(9, 9)
    for r1 in range(9):
        for r2 in range(r1 + 1, (r1 // 3 + 1) * 3):
            for c1 in range(9):
                for c2 in range(c1 + 1, 9):
                    if c1 // 3 == c2 // 3:
                        continue
                    if g[r1, c1] == g[r2, c2] and g[r1, c2] == g[r2, c1]:
                        return r1, r2, c1, c2
    raise AssertionError("no deadly rectangle in this grid")


def test_bad_arrays_are_refused_clearly():
    with pytest.raises(PuzzleError, match="found 80 cells"):
        Puzzle(np.zeros(80, np.int8))
    with pytest.raises(PuzzleError, match="r1c2 holds 10"):
        Puzzle(np.array([0, 10] + [0] * 79))
    with pytest.raises(PuzzleError, match="must hold integers"):
        Puzzle(np.zeros(81) + 0.5)
    with pytest.raises(PuzzleError, match="box size"):
        Puzzle(np.zeros(81, np.int8), n=7)


# --------------------------------------------------------------- accessors
def test_accessors():
    p = Puzzle.parse(EASY)
    assert p.n == 3 and p.N == 9 and p.C == 81 and p.n_givens == 35
    assert p[0, 2] == 8 and p.grid[2] == 8
    assert not p.grid.flags.writeable and not p.givens.flags.writeable
    assert len(p.given_cells) + len(p.free_cells) == 81
    assert p.units().shape == (27, 9)
    assert sorted(p.peers(0).tolist()) == sorted(set(range(9)) - {0} | {9 * k for k in range(1, 9)} | {10, 11, 19, 20})
    assert p.candidate_digits(0) == [1, 5, 9]  # row 1 uses 2 4 6 7 8, column 1 3 4 7 8, box 1 2 3 4 7 8
    dom = p.candidates()
    assert dom[2] == 1 << 7  # a given's domain is its digit
    assert pickle.loads(pickle.dumps(p)) == p and not pickle.loads(pickle.dumps(p)).grid.flags.writeable
    assert p.with_cell(0, 1)[0, 0] == 1 and p[0, 0] == 0  # immutable
    with pytest.raises(ValueError):
        p.grid[0] = 1


def test_load_puzzles_names_from_the_file(tmp_path):
    f = tmp_path / "mine.sdk"
    f.write_text("#ARuud\n" + "\n".join(EASY[i : i + 9] for i in range(0, 81, 9)) + "\n")
    [p] = load_puzzles(f)
    assert p.name == "mine" and p.metadata["author"] == "Ruud"
    many = tmp_path / "set.txt"
    many.write_text("# two puzzles\n" + EASY + "\n" + EASY.replace("..8", "1.8", 1) + "\n")
    ps = load_puzzles(many)
    assert [q.name for q in ps] == ["set:1", "set:2"]
    bad = tmp_path / "bad.txt"
    bad.write_text(EASY + "\n" + EASY[:-1] + "\n")
    with pytest.raises(PuzzleError, match=r"bad.txt: line 2: found 80 cells; a 9x9 puzzle has 81"):
        load_puzzles(bad)
    binary = tmp_path / "x.txt"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(PuzzleError, match="not a text file"):
        load_puzzles(binary)


# ----------------------------------------------------------- issue 7: bad input of every kind
def test_a_superscript_digit_is_a_bad_character_not_a_crash():
    """'²'.isdigit() is True in Python, and int('²') then raised ValueError."""
    numbers = " ".join(EASY.replace(".", "0"))
    bad = numbers[:20] + "²" + numbers[21:]
    with pytest.raises(PuzzleError) as info:
        Puzzle.parse(bad)
    assert info.value.kind == "bad_character" and (info.value.line, info.value.column) == (1, 21)
    assert "unexpected character '²'" in str(info.value)


def test_bytes_are_read_as_utf8_and_other_types_are_refused():
    assert Puzzle.parse(EASY.encode()) == Puzzle.parse(EASY)
    with pytest.raises(PuzzleError, match=r"line 1: byte 0xff is not UTF-8"):
        Puzzle.parse(b"\xff" + EASY.encode()[1:])
    from sudoku_lab.errors import PuzzleTypeError

    for thing in (42, None, ["1", "2"]):
        with pytest.raises(PuzzleTypeError, match="a puzzle is read from text") as info:
            Puzzle.parse(thing)
        assert isinstance(info.value, TypeError) and isinstance(info.value, PuzzleError)


def test_a_bool_array_is_not_taken_as_digits():
    with pytest.raises(PuzzleError, match="must hold integers, got dtype bool"):
        Puzzle(np.ones(81, bool))


def test_huge_texts_are_refused_before_they_fill_memory():
    with pytest.raises(PuzzleError, match="the text has 2,000,000 characters"):
        Puzzle.parse("1" * 2_000_000)
    with pytest.raises(PuzzleError, match="found more than 625 cells by line 7"):
        Puzzle.parse("\n".join(["1" * 100] * 20))


def test_a_huge_line_in_a_file_is_refused_with_its_number(tmp_path):
    from sudoku_lab.model.collections import MAX_LINE_BYTES

    f = tmp_path / "big.txt"
    with f.open("w") as fh:
        fh.write(EASY + "\n")
        fh.write("1" * (MAX_LINE_BYTES + 10) + "\n")
    with pytest.raises(PuzzleError, match=r"big.txt: line 2 is longer than 1 MB: not a puzzle collection"):
        load_puzzles(f)


def test_unreadable_inputs_are_data_file_errors(tmp_path):
    from sudoku_lab.errors import DataFileError

    with pytest.raises(DataFileError, match="is a directory, not a file"):
        load_puzzles(tmp_path)
    with pytest.raises(DataFileError, match="does not exist"):
        load_puzzles(tmp_path / "nope.txt")


@given(ps=st.lists(puzzles(sizes=(2, 3, 4)), min_size=2, max_size=40), fmt=st.sampled_from(["csv", "line"]))
@settings(max_examples=40)
def test_the_batch_fast_path_reads_what_the_one_by_one_parser_reads(ps, fmt):
    """Line and CSV collections are decoded in numpy batches; every puzzle must equal Puzzle.parse of its line."""
    import sudoku_lab.model.collections as cio

    text = format_collection(ps, fmt)
    fast = parse_collection(text)
    old = cio._BATCH
    try:
        cio._BATCH = 1  # batches of one: still the fast path, row by row
        one = parse_collection(text)
    finally:
        cio._BATCH = old
    assert fast == ps == one
    for p, q in zip(ps, fast):
        assert q.n == p.n and not q.grid.flags.writeable
        if fmt == "csv":
            assert q.name == p.name


def test_streaming_reads_a_large_file_lazily(tmp_path):
    """A 200,000-line file: the first puzzle comes at once, the whole file in bounded memory with progress."""
    from sudoku_lab.model.collections import iter_puzzles

    pz = library.collection("kennett/fiendish")
    f = tmp_path / "many.txt"
    f.write_text("".join(p.to_line() + "\n" for p in (pz * 1000)))
    it = iter_puzzles(f)
    first = next(it)
    assert first == pz[0] and first.name == "many:1"
    seen = []
    count = 0
    for k, p in enumerate(iter_puzzles(f, progress=lambda done, total: seen.append((done, total))), 1):
        count += 1
        if k == 150_001:
            assert p == pz[0] and p.name == "many:150001"
    assert count == 200_000
    size = f.stat().st_size
    assert seen[-1] == (size, size) and all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))


def test_a_bad_line_deep_in_a_large_file_is_named(tmp_path):
    pz = library.collection("kennett/easy")
    lines = [p.to_line() for p in pz * 30]
    lines[4567] = lines[4567][:40] + "?" + lines[4567][41:]
    f = tmp_path / "set.csv"
    f.write_text("name,puzzle\n" + "".join(f"p{k},{ln}\n" for k, ln in enumerate(lines)))
    with pytest.raises(PuzzleError, match=r"set.csv: line 4569, column 41: unexpected character '\?'"):
        load_puzzles(f)


def test_a_csv_header_without_a_puzzle_column_names_the_column(tmp_path):
    line = library.puzzle("reseda_fig3_1_easy").to_line()
    f = tmp_path / "set.csv"
    f.write_text(f"# my puzzles\nname,grid\neasy,{line}\n")
    with pytest.raises(PuzzleError) as info:
        load_puzzles(f)
    assert str(info.value) == (
        f"{f}: line 2: a CSV header (name, grid) without a 'puzzle' column: name the column "
        "that holds the puzzles 'puzzle'"
    )
    assert (info.value.kind, info.value.line) == ("csv_header", 2)
    f.write_text(f"name,puzzle\neasy,{line}\n")
    assert load_puzzles(f)[0].name == "easy"
    # Rows of puzzle symbols with commas are still a grid, not a header.
    assert parse_collection("12,34\n34,12\n21,43\n43,21\n")[0].to_line() == "1234341221434321"


def test_the_fast_path_still_refuses_clashing_givens_by_line():
    lines = [p.to_line() for p in library.collection("kennett/easy")[:10]]
    assert lines[2][:2] == ".7"
    lines[2] = "77" + lines[2][2:]  # r1c1 = r1c2 = 7
    text = "\n".join(lines) + "\n"
    with pytest.raises(PuzzleError, match=r"^line 3: givens clash: r1c1 and r1c2 both hold 7 in row 1") as info:
        parse_collection(text)
    assert info.value.kind == "clash"
    assert len(parse_collection(text, allow_clashes=True)) == 10
