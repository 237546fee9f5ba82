"""The docs site builds with warnings as errors, offline, and the README's links lead somewhere.

``mkdocs build --strict`` (mkdocs.yml) fails on a broken link, image or anchor, a page left out of the
navigation, a README section the home page includes that has gone, or a docstring the Python API page
(mkdocstrings, numpy style) cannot read. The build runs with every proxy pointing nowhere, so a theme or
plugin that reached for the network would fail here rather than on a machine without one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_the_site_builds_strictly_and_offline(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs tools are in the test extras: pip install -e '.[test]'")
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        http_proxy="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
        NO_PROXY="",
        no_proxy="",
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-5000:]
    warnings = [x for x in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", x)]
    assert not warnings, "\n".join(warnings)
    site = tmp_path / "site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "qt-runtime-packages" in home and "libxcb-cursor0" in home, "the home page includes the README's set-up"
    api = (site / "api.html").read_text(encoding="utf-8")
    for module in ("sudoku_lab.model.puzzle", "sudoku_lab.solvers", "sudoku_lab.engine.experiments"):
        assert f'id="{module}"' in api, f"the Python API page has no reference of {module}"


def _readme_links() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_the_readme_links_lead_to_files_of_the_checkout():
    links = [x for x in _readme_links() if not re.match(r"[a-z]+:", x)]
    assert links
    missing = [x for x in links if not (ROOT / x.partition("#")[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
    # It points at a current screenshot and at every top-level page of the site.
    assert any(re.fullmatch(r"docs/screenshot-[\w-]+\.png", x) for x in links)
    for page in ("lab", "cli", "api", "experiments", "benchmarks", "developers", "algorithms"):
        assert f"docs/{page}.md" in links, f"README.md does not link docs/{page}.md"


def test_the_readme_stays_a_short_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160, f"README.md has {len(lines)} lines: move sections to a page of docs/"
    # The two set-up commands, near the top.
    setup = [k for k, x in enumerate(lines) if x.startswith("python3 -m venv .venv && ")]
    assert len(setup) == 2 and setup[-1] < 40, setup
    assert lines[setup[0]].endswith('python -m pip install ".[gui]" && sudoku-lab')
    assert lines[setup[1]].endswith('python -m pip install -e ".[test]" && python -m pytest')
