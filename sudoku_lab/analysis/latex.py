"""Text for LaTeX: the one escaping every LaTeX writer of the lab uses (:func:`escape`), and comment lines.

The grade tables (:meth:`sudoku_lab.analysis.grades.GradeResult.to_latex`) and the report's tabulars
(:mod:`sudoku_lab.analysis.tables`, ``sudoku-lab report --format latex``) put names into LaTeX that come
from puzzle files, specifications and results (puzzle and set names, configuration labels, captions):
any of them may hold one of LaTeX's ten special characters (every bundled puzzle name holds ``_``) or
characters that pdfLaTeX does not know. Their fragments need no package, so :func:`escape` writes only
what plain LaTeX (the ``article`` class, its default OT1 font encoding) typesets:

- the ten special characters ``\\ & % $ # _ { } ~ ^`` as commands (``\\_``, ``\\textbackslash{}``, ...);
- ``< > |``, which OT1 fonts would print as other glyphs, as ``\\textless{}`` and the like; ``[`` and
  ``]`` braced (``{[}``), so a cell starting with one is never read as the optional argument of the
  ``\\\\`` ending the row before; ``--`` kept as two hyphens (not an en dash);
- accented Latin letters as accent commands (``é``: ``\\'{e}``), ``ß æ ø œ å ł`` and their capitals
  as LaTeX's own, typographic quotes and dashes, the ellipsis, a no-break space, and the Greek
  letters and the few mathematical signs a caption may hold (``ρ``, ``β``, ``≤``, ``×``) in math mode;
- tabs and line breaks as spaces (a blank line inside a table cell would end a paragraph there);
  other control and formatting characters are dropped; a ligature or a full-width letter is its
  plain form (``ﬁ``: ``fi``); any character left is written as its code point, ``{[}U+1F600{]}``,
  never as itself (which would stop pdfLaTeX).

The tests compile every writer's output with ``pdflatex -halt-on-error`` and read the PDF back
(``tests/test_latex.py``).

Examples
--------
>>> from sudoku_lab.analysis.latex import escape
>>> print(escape("reseda_fig4_1_hard: 100 % of cells, rho <= 0.6"))
reseda\\_fig4\\_1\\_hard: 100 \\% of cells, rho \\textless{}= 0.6
>>> print(escape("ρ ≥ β, Müller"))
\\ensuremath{\\rho} \\ensuremath{\\geq} \\ensuremath{\\beta}, M\\"{u}ller
"""

from __future__ import annotations

import unicodedata

from .._checks import checked

__all__ = ["escape", "comment"]

#: Characters LaTeX gives a meaning of its own, and what prints them.
_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # OT1 (plain LaTeX's text fonts) prints these three as other glyphs (an inverted !, an inverted ?, a dash).
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # Braced so that a table cell starting with "[" is not the optional argument of the row's "\\".
    "[": "{[}",
    "]": "{]}",
    "\t": " ",
    "\n": " ",
    "\r": " ",
}

#: Non-ASCII characters plain LaTeX has a command for (the accented letters go through :data:`_ACCENTS`).
_UNICODE = {
    "\u00a0": "~",  # no-break space
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "--",
    "\u2014": "---",
    "\u2018": "`",
    "\u2019": "'",
    "\u201c": "``",
    "\u201d": "''",
    "\u2026": r"\ldots{}",
    "\u2022": r"\textbullet{}",
    "\u00a7": r"\S{}",
    "\u00b6": r"\P{}",
    "\u00a9": r"\copyright{}",
    "\u2020": r"\dag{}",
    "\u2021": r"\ddag{}",
    "\u00a3": r"\pounds{}",
    "\u00df": r"\ss{}",
    "\u00e6": r"\ae{}",
    "\u00c6": r"\AE{}",
    "\u0153": r"\oe{}",
    "\u0152": r"\OE{}",
    "\u00f8": r"\o{}",
    "\u00d8": r"\O{}",
    "\u00e5": r"\aa{}",
    "\u00c5": r"\AA{}",
    "\u0142": r"\l{}",
    "\u0141": r"\L{}",
    "\u0131": r"\i{}",
    "\u00bf": r"?`",
    "\u00a1": r"!`",
    "\u00b0": r"\ensuremath{^\circ}",
    "\u00b1": r"\ensuremath{\pm}",
    "\u00d7": r"\ensuremath{\times}",
    "\u00f7": r"\ensuremath{\div}",
    "\u00b7": r"\ensuremath{\cdot}",
    "\u00b2": r"\ensuremath{^2}",
    "\u00b3": r"\ensuremath{^3}",
    "\u00b9": r"\ensuremath{^1}",
    "\u00b5": r"\ensuremath{\mu}",
    "\u00ac": r"\ensuremath{\neg}",
    "\u2212": r"\ensuremath{-}",
    "\u2264": r"\ensuremath{\leq}",
    "\u2265": r"\ensuremath{\geq}",
    "\u2260": r"\ensuremath{\neq}",
    "\u2248": r"\ensuremath{\approx}",
    "\u2261": r"\ensuremath{\equiv}",
    "\u221e": r"\ensuremath{\infty}",
    "\u221a": r"\ensuremath{\surd}",
    "\u2192": r"\ensuremath{\rightarrow}",
    "\u2190": r"\ensuremath{\leftarrow}",
    "\u2194": r"\ensuremath{\leftrightarrow}",
    "\u21d2": r"\ensuremath{\Rightarrow}",
    "\u2208": r"\ensuremath{\in}",
    "\u2211": r"\ensuremath{\sum}",
    "\u2202": r"\ensuremath{\partial}",
    "\u2206": r"\ensuremath{\Delta}",
}
_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi o pi rho varsigma sigma tau "
    "upsilon phi chi psi omega"
).split()
for _k, _name in enumerate(_GREEK):  # U+03B1 alpha .. U+03C9 omega (omicron is an o, final sigma a varsigma)
    _UNICODE[chr(0x3B1 + _k)] = "o" if _name == "o" else rf"\ensuremath{{\{_name}}}"
# Capitals: LaTeX draws those that differ from a Latin letter; the others are that letter (U+03A2 is unassigned).
_LATIN_CAPITALS = dict(zip("alpha beta epsilon zeta eta iota kappa mu nu o rho tau chi".split(), "ABEZHIKMNOPTX"))
for _k, _name in enumerate(_GREEK):
    if _name != "varsigma":
        _UNICODE[chr(0x391 + _k)] = _LATIN_CAPITALS.get(_name) or rf"\ensuremath{{\{_name.capitalize()}}}"
_UNICODE["\u03d5"] = r"\ensuremath{\phi}"
_UNICODE["\u03b5"] = r"\ensuremath{\varepsilon}"

#: Combining accents (after Unicode decomposition, NFD) and the accent commands of plain LaTeX.
_ACCENTS = {
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0304": "=",
    "\u0306": "u",
    "\u0307": ".",
    "\u0308": '"',
    "\u030a": "r",
    "\u030b": "H",
    "\u030c": "v",
    "\u0323": "d",
    "\u0327": "c",
    "\u0331": "b",
}


def _letter(ch: str) -> str | None:
    """An accented letter as accent commands (``é``: ``\\'{e}``, ``ṏ``: two of them), or None."""
    parts = unicodedata.normalize("NFD", ch)
    base, marks = parts[0], parts[1:]
    if len(parts) < 2 or not ("a" <= base.lower() <= "z") or any(m not in _ACCENTS for m in marks):
        return None
    out = r"\i{}" if base == "i" else (r"\j{}" if base == "j" else base)  # no dot under the accent
    for m in marks:
        cmd = _ACCENTS[m]
        out = f"\\{cmd}{{{out}}}"
    return out


def _one(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if " " <= ch <= "~":
        return ch
    if ch in _UNICODE:
        return _UNICODE[ch]
    accented = _letter(ch)
    if accented is not None:
        return accented
    compatible = unicodedata.normalize("NFKD", ch)  # a ligature, a full-width or a styled letter: its plain form
    if compatible != ch and all(" " <= c <= "~" for c in compatible):
        return "".join(_one(c) for c in compatible)
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
        return " " if unicodedata.category(ch) in ("Zl", "Zp") else ""
    if unicodedata.category(ch) == "Zs":
        return " "
    return "{[}U+" + f"{ord(ch):04X}" + "{]}"


@checked
def escape(text: str) -> str:
    """``text`` as LaTeX that typesets it, in plain LaTeX with no package (see the module notes).

    >>> escape("a_b & {c}"), escape("x--y"), escape("[0.5, 0.9]")
    ('a\\\\_b \\\\& \\\\{c\\\\}', 'x-{}-y', '{[}0.5, 0.9{]}')
    """
    text = unicodedata.normalize("NFC", text)
    out = []
    for k, ch in enumerate(text):
        out.append(_one(ch))
        if ch == "-" and text[k + 1 : k + 2] == "-":
            out.append("{}")  # "--" would be an en dash
    return "".join(out)


@checked
def comment(text: str) -> str:
    """``text`` as one LaTeX comment line (``% ...``): a line break in it would end the comment early."""
    return "% " + " ".join(text.splitlines())
