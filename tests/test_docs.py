"""The algorithm descriptions ship (docs/algorithms.md), every pointer into them resolves, and nothing
user-visible points at files that do not ship (the design notes and the papers' text copies)."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from sudoku_lab import citations

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / citations.DOC

#: What users must never be pointed at: the design notes and the text copies of the papers live outside
#: the repository, so a reference to them in a label, a message or a docstring leads nowhere.
UNSHIPPED = re.compile(r"ALGORITHMS\.md|DESIGN\.md|paper_results\.md|seeds/|\b\d{3}_[0-9a-f]{16}\.txt")


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown`` (lower case, punctuation dropped, spaces to -)."""
    seen: dict[str, int] = {}
    out = set()
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        k = seen.get(slug, 0)
        seen[slug] = k + 1
        out.add(slug if k == 0 else f"{slug}-{k}")
    return out


def _references_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("\n## References\n") :]


def test_github_anchors_follow_githubs_rules():
    assert github_anchors("# A\n## AC3-tabu search\n## NB-COIN\n## Genetic algorithm (GA)\n## A\n```\n# no\n```") == {
        "a",
        "ac3-tabu-search",
        "nb-coin",
        "genetic-algorithm-ga",
        "a-1",
    }


def test_every_section_and_citation_points_at_a_heading():
    anchors = github_anchors(DOC.read_text(encoding="utf-8"))
    pointers = list(citations.SECTIONS.values()) + [c.anchor for c in citations.CITATIONS.values()]
    for pointer in pointers:
        path, _, anchor = pointer.partition("#")
        assert path == citations.DOC, pointer
        assert anchor in anchors, f"{pointer}: no such heading in {citations.DOC} (headings: {sorted(anchors)})"
    # The contents table of the page lists the same anchors.
    listed = set(re.findall(r"`docs/algorithms\.md#([\w-]+)`", DOC.read_text(encoding="utf-8")))
    assert listed == {p.partition("#")[2] for p in citations.SECTIONS.values()}


def test_the_references_section_and_the_citations_agree():
    refs = _references_section()
    dois = set()
    for key, c in citations.CITATIONS.items():
        assert f"**{c.short}**" in refs, f"{key}: {c.short!r} is not a reference of {citations.DOC}"
        for doi in re.findall(r"doi:(10\.\S+?)\.?(?:\s|$)", c.full):
            assert f"[{doi}](https://doi.org/{doi})" in refs, f"{key}: DOI {doi} missing from the References"
            dois.add(doi)
    assert dois == set(re.findall(r"DOI \[(10\.\S+?)\]", refs))
    # Every reference of the page has a key, so front ends can cite it.
    shorts = re.findall(r"^\d+\. \*\*(.+?)\*\*", refs, flags=re.M)
    assert sorted(shorts) == sorted(c.short for c in citations.CITATIONS.values())


def test_cite_names_the_known_keys():
    assert citations.cite("soto2013").short == "Soto et al. 2013"
    short, full, anchor = citations.cite("maire2012")
    assert "Statistics and Computing" in full and anchor.endswith("#reseda")
    assert citations.reference("soto2014") == "Soto et al. 2014; docs/algorithms.md#cuckoo-search"
    with pytest.raises(KeyError, match="unknown citation 'maire'; known: maire2012, "):
        citations.cite("maire")


def test_citations_import_nothing_heavy():
    code = (
        "import sys, sudoku_lab.citations\n"
        "heavy = [m for m in ('numpy', 'numba', 'PySide6', 'matplotlib') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def _shipped_text_files():
    for top in ("sudoku_lab", "ui", "resources", "examples"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".py", ".md", ".txt", ".csv") and "__pycache__" not in path.parts:
                yield path


def test_nothing_points_at_unshipped_files():
    bad = []
    for path in _shipped_text_files():
        rel = path.relative_to(ROOT).as_posix()
        for no, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if UNSHIPPED.search(line):
                bad.append(f"{rel}:{no}: {line.strip()}")
    assert not bad, "references to files that do not ship (point at docs/algorithms.md instead):\n" + "\n".join(bad)


@pytest.mark.slow
def test_the_sdist_ships_the_docs(tmp_path):
    built = subprocess.run(
        [sys.executable, "-c", f"from hatchling.build import build_sdist; print(build_sdist({str(tmp_path)!r}))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    with tarfile.open(tmp_path / built.stdout.strip().splitlines()[-1]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in (citations.DOC, "sudoku_lab/citations.py", "sudoku_lab/model/formats.py"):
        assert needed in names, f"{needed} is not in the sdist"
