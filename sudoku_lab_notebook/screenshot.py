"""Dev tool: remake docs/screenshot-notebook.png with a real JupyterLab driven by headless Chromium.

Not a test and not a dependency: it needs ``pip install jupyterlab playwright`` and a Chromium
(``apt-get install chromium`` on Debian; ``--chromium PATH`` for another). It starts JupyterLab on a
free localhost port (no token) in a temporary folder, opens a notebook that displays the lab, runs it,
clicks Step three times, Step phase once, Run, then Pause, and screenshots the output::

    python -m sudoku_lab_notebook.screenshot docs/screenshot-notebook.png
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from sudoku_lab.files import write_file, write_text

CELL = """from sudoku_lab_notebook import Lab
lab = Lab(solver="reseda", puzzle="ai_escargot", seed=0)
lab"""

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # localhost: never through a proxy
    while time.monotonic() < end:
        try:
            with direct.open(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"JupyterLab did not answer at {url} within {seconds:.0f} s")


def _write_png(path: Path, png: bytes) -> None:
    write_file(path, lambda fh: fh.write(png), "screenshot", binary=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sudoku_lab_notebook.screenshot", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument("--run-seconds", type=float, default=1.0, help="how long Run goes before Pause")
    args = parser.parse_args(argv)
    import nbformat
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="sudoku-lab-shot-") as tmp:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        write_text(Path(tmp) / "lab.ipynb", nbformat.writes(nb), "notebook")
        port = _free_port()
        env = {**os.environ, "JUPYTER_PLATFORM_DIRS": "1"}
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                f"--port={port}",
                "--ip=127.0.0.1",
                "--IdentityProvider.token=",
                "--ServerApp.password=",
                f"--ServerApp.root_dir={tmp}",
                *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
            ],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_for(f"{base}/api", 120)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium, args=FLAGS)
                page = browser.new_page(viewport={"width": 1650, "height": 1250})
                page.goto(f"{base}/lab/tree/lab.ipynb")
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
                page.get_by_text("| Idle", exact=False).first.wait_for(timeout=120_000)  # the kernel is connected
                step = page.get_by_role("button", name="Step", exact=True)
                for attempt in range(3):  # a first Shift+Enter can still be lost while the page settles
                    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
                    page.keyboard.press("Shift+Enter")
                    try:
                        step.wait_for(timeout=120_000)
                        break
                    except Exception:
                        if attempt == 2:
                            _write_png(args.out.with_suffix(".failed.png"), page.screenshot())
                            raise
                for k in range(1, 4):  # each click once the kernel has drawn the one before
                    step.click()
                    page.get_by_text(f"EDA step {k} ", exact=False).first.wait_for(timeout=120_000)
                page.get_by_role("button", name="Run", exact=True).click()
                page.get_by_role("button", name="Pause", exact=True).wait_for(timeout=120_000)
                page.wait_for_timeout(args.run_seconds * 1000)
                page.get_by_role("button", name="Pause", exact=True).click()
                page.get_by_role("button", name="Run", exact=True).wait_for(timeout=120_000)
                page.get_by_role("button", name="Step phase", exact=True).click()
                page.get_by_text("phase 1/4 (sample)", exact=False).first.wait_for(timeout=120_000)
                page.wait_for_timeout(1000)
                _write_png(args.out, page.locator(".jp-OutputArea-output").first.screenshot())
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
