"""Errors (issue 27, A6): whatever a message quotes from a file, it shows no control character anywhere."""

from __future__ import annotations

import re

import pytest

from sudoku_lab import errors
from sudoku_lab.crash import internal_error_message
from sudoku_lab.errors import printable

HOSTILE = "saved by \x1b[31mred\x1b[0m\x07\x08\r\n\t\x7f\x9b\u2028\u202eevil"
SHOWN = "saved by \\x1b[31mred\\x1b[0m\\x07\\x08\\r\\n\\t\\x7f\\x9b\\u2028\\u202eevil"
#: Every character printable escapes (C0, DEL, C1, the line separators, the bidirectional controls).
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    "text, shown",
    [
        (HOSTILE, SHOWN),
        ("plain text, é, ß, 数独, \\x1b as text", "plain text, é, ß, 数独, \\x1b as text"),  # unchanged
        (
            "\x00\x1f\u061c\u200e\u200f\u2029\u202a\u2066\u2069",
            "\\x00\\x1f\\u061c\\u200e\\u200f\\u2029\\u202a\\u2066\\u2069",
        ),
    ],
)
def test_printable_escapes_the_control_characters_and_nothing_else(text, shown):
    assert printable(text) == shown
    assert printable(shown) == shown  # idempotent: what it gives holds nothing to escape
    assert printable("a\nb\tc", keep="\n") == "a\nb\\tc"


ERRORS = [
    errors.SudokuLabError(HOSTILE),
    errors.PuzzleError(HOSTILE, kind="bad_character"),
    errors.ParameterError(HOSTILE, name="w1"),
    errors.DataFileError(HOSTILE, path="x"),
    errors.PuzzleTypeError(HOSTILE),
    errors.ParameterTypeError(HOSTILE, name="w1"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_every_error_of_the_lab_shows_what_it_quotes_escaped(error):
    """str(error) is what the command line prints, the window's dialogs and status bar show and the crash report
    writes: escaped at the root, whoever builds the message. args keep what was given."""
    assert str(error) == SHOWN and not UNPRINTABLE.search(str(error))
    assert error.args[0] == HOSTILE


def test_an_internal_error_quoting_a_file_is_escaped_in_its_line_and_its_report(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    line = internal_error_message(KeyError(HOSTILE), "loading a file")
    assert not UNPRINTABLE.search(line) and "\\x1b[31mred" in line, repr(line)
    [report] = tmp_path.rglob("crash-*.txt")
    text = report.read_text(encoding="utf-8")
    assert "\\x1b[31mred" in text and not UNPRINTABLE.search(text.replace("\n", "")), repr(text)
