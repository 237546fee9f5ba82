"""The papers behind the solvers, and where docs/algorithms.md describes each algorithm.

The algorithm descriptions ship with the sources as ``docs/algorithms.md`` (in the
repository and the sdist); :data:`SECTIONS` maps each section to its anchor
there, and :data:`CITATIONS` maps a short key to a paper:

>>> from sudoku_lab.citations import cite
>>> cite("maire2012").short
'Maire & Prissette 2012'
>>> cite("maire2012").anchor
'docs/algorithms.md#reseda'
>>> short, full, anchor = cite("soto2014")

Front ends show :func:`reference` (short citation and anchor); the full
citations are in the documentation's References section, and tests check
that both files agree. This module is plain data: it imports nothing beyond
the standard library.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping, NamedTuple

from ._checks import checked

__all__ = ["DOC", "Citation", "CITATIONS", "SECTIONS", "cite", "reference", "doc_file"]

#: The algorithm descriptions, relative to the repository root.
DOC = "docs/algorithms.md"

#: Every section of :data:`DOC` by short name, as ``path#anchor`` (GitHub's anchors for its headings).
SECTIONS: Mapping[str, str] = MappingProxyType(
    {
        "common-terms": f"{DOC}#common-terms",
        "ac3": f"{DOC}#ac3",
        "reseda": f"{DOC}#reseda",
        "grades": f"{DOC}#correctness-grades",
        "hill-climbing": f"{DOC}#hill-climbing",
        "nb-coin": f"{DOC}#nb-coin",
        "ga": f"{DOC}#genetic-algorithm",
        "ac3-tabu": f"{DOC}#ac3-tabu-search",
        "cuckoo": f"{DOC}#cuckoo-search",
        "acs": f"{DOC}#ant-colony-system",
        "exact": f"{DOC}#exact-solver",
        "references": f"{DOC}#references",
    }
)


@checked
class Citation(NamedTuple):
    """One paper: ``short`` for labels, ``full`` for a reference list, ``anchor`` for our description.

    Attributes
    ----------
    short : str
        Authors and year, e.g. ``"Maire & Prissette 2012"``.
    full : str
        Authors, year, title, venue, volume, pages and DOI where known.
    anchor : str
        The section of :data:`DOC` describing the algorithm, e.g. ``"docs/algorithms.md#reseda"``.
    """

    short: str
    full: str
    anchor: str


CITATIONS: Mapping[str, Citation] = MappingProxyType(
    {
        "maire2012": Citation(
            "Maire & Prissette 2012",
            "Sylvain Maire and Cyril Prissette. A restarted estimation of distribution algorithm for solving "
            "sudoku puzzles. Statistics and Computing, 2012. Author manuscript HAL inria-00591852, "
            "https://inria.hal.science/inria-00591852.",
            SECTIONS["reseda"],
        ),
        "jones2008": Citation(
            "Jones, Roach & Perkins 2008",
            "S. K. Jones, P. A. Roach and S. Perkins. Construction of heuristics for a search-based approach "
            "to solving Sudoku. In Research and Development in Intelligent Systems XXIV (SGAI 2007), "
            "Springer, London, 2008. doi:10.1007/978-1-84800-094-0_4.",
            SECTIONS["hill-climbing"],
        ),
        "waiyapara": Citation(
            "Waiyapara et al.",
            "Kiatsopon Waiyapara, Warin Wattanapornprom and Prabhas Chongstitvatana. Solving Sudoku puzzles "
            "with node based coincidence algorithm. Department of Computer Engineering, Chulalongkorn "
            "University, Bangkok.",
            SECTIONS["nb-coin"],
        ),
        "sato2010": Citation(
            "Sato & Inoue 2010",
            "Yuji Sato and Hazuki Inoue. Solving Sudoku with genetic operations that preserve building "
            "blocks. In Proceedings of the 2010 IEEE Conference on Computational Intelligence and Games "
            "(CIG 2010), IEEE, pp. 23-29, 2010.",
            SECTIONS["ga"],
        ),
        "soto2013": Citation(
            "Soto et al. 2013",
            "Ricardo Soto, Broderick Crawford, Cristian Galleguillos, Eric Monfroy and Fernando Paredes. "
            "A hybrid AC3-tabu search algorithm for solving Sudoku puzzles. Expert Systems with "
            "Applications 40(15), pp. 5817-5821, 2013.",
            SECTIONS["ac3-tabu"],
        ),
        "soto2014": Citation(
            "Soto et al. 2014",
            "Ricardo Soto, Broderick Crawford, Cristian Galleguillos, Eric Monfroy and Fernando Paredes. "
            "A prefiltered cuckoo search algorithm with geometric operators for solving Sudoku problems. "
            "The Scientific World Journal 2014, Article ID 465359, 12 pages. doi:10.1155/2014/465359.",
            SECTIONS["cuckoo"],
        ),
        "lloyd2019": Citation(
            "Lloyd & Amos 2019",
            "Huw Lloyd and Martyn Amos. Solving Sudoku with Ant Colony Optimization. IEEE Transactions on "
            "Games, 2019 (in press). doi:10.1109/TG.2019.2942773.",
            SECTIONS["acs"],
        ),
        "mackworth1977": Citation(
            "Mackworth 1977",
            "Alan K. Mackworth. Consistency in networks of relations. Artificial Intelligence 8(1), pp. 99-118, 1977.",
            SECTIONS["ac3"],
        ),
    }
)


@checked
def cite(key: str) -> Citation:
    """The citation of ``key``; KeyError naming the known keys otherwise."""
    try:
        return CITATIONS[key]
    except KeyError:
        raise KeyError(f"unknown citation {key!r}; known: {', '.join(CITATIONS)}") from None


@checked
def reference(key: str) -> str:
    """One line for a label or ``--help``: the short citation and where we describe the algorithm.

    >>> reference("maire2012")
    'Maire & Prissette 2012; docs/algorithms.md#reseda'
    """
    c = cite(key)
    return f"{c.short}; {c.anchor}"


@checked
def doc_file():
    """Where :data:`DOC` is on this machine (a ``pathlib.Path``): in the installed package (a wheel) or the checkout.

    None if neither has it.
    """
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for candidate in (here / "docs" / "algorithms.md", here.parent / DOC):
        if candidate.is_file():
            return candidate
    return None
