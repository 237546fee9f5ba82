"""Run notebooks headless in a kernel of this Python: the tests' check, and how the examples' outputs are made.

``python -m sudoku_lab_notebook.execute examples/notebooks/*.ipynb --write`` runs each notebook from top
to bottom and saves it with its outputs (the static figures then read on GitHub); without ``--write``
it only reports. Needs nbclient, nbformat and ipykernel (the ``test`` extra); imported only when asked.

The kernel is this interpreter (``sys.executable``), declared in a temporary kernel specification, so
a fresh virtual environment runs its notebooks with its own packages whatever kernels Jupyter knows of.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sudoku_lab.files import write_text

__all__ = ["KERNEL_NAME", "this_python_kernel", "execute_notebook", "main"]

#: The name of the temporary kernel specification (this Python).
KERNEL_NAME = "sudoku-lab-this-python"


@contextlib.contextmanager
def this_python_kernel() -> Iterator[str]:
    """A kernel specification for ``sys.executable`` on Jupyter's path while the block runs; yields its name."""
    with tempfile.TemporaryDirectory(prefix="sudoku-lab-kernel-") as tmp:
        spec = Path(tmp) / "kernels" / KERNEL_NAME
        spec.mkdir(parents=True)
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec_text = json.dumps({"argv": argv, "display_name": "Sudoku Lab (this Python)", "language": "python"})
        write_text(spec / "kernel.json", spec_text, "kernel specification")
        saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "JUPYTER_PLATFORM_DIRS")}
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (tmp, saved["JUPYTER_PATH"]) if p)
        os.environ["JUPYTER_PLATFORM_DIRS"] = "1"  # jupyter_core's future default (else a DeprecationWarning)
        try:
            yield KERNEL_NAME
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def execute_notebook(path: str | os.PathLike[str], timeout: int = 900, write: bool = False) -> Any:
    """Run every cell of the notebook at ``path`` in a fresh kernel of this Python, in the notebook's folder.

    Parameters
    ----------
    path : str or PathLike
        The ``.ipynb`` file.
    timeout : int
        Seconds one cell may take.
    write : bool
        Save the notebook with its new outputs (widget state left out: it is the live lab's, and large).

    Returns
    -------
    nbformat.NotebookNode
        The executed notebook.

    Raises
    ------
    nbclient.exceptions.CellExecutionError
        A cell raised (the message names the cell and the error).
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    with this_python_kernel() as kernel:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name=kernel,
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=False,
            record_timing=False,  # saved notebooks change only when their outputs do
        )
        client.execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:  # timings of an earlier run
        cell.metadata.pop("execution", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    if write:
        text = nbformat.writes(nb)
        write_text(path, text if text.endswith("\n") else text + "\n", "notebook")
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sudoku_lab_notebook.execute", description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--write", action="store_true", help="save each notebook with its outputs")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        execute_notebook(path, timeout=args.timeout, write=args.write)
        print(f"{path}: ran{' and saved' if args.write else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
