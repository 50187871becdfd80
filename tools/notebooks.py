"""Maintain the course notebooks: headers in step, outputs re-executed.

    python tools/notebooks.py headers        # rewrite every Colab badge and setup cell
    python tools/notebooks.py run [NB ...]   # execute notebooks and save their outputs
    python tools/notebooks.py check          # exit 1 if a header is out of step

The repository URL lives in bpe_course/course.py and nowhere else. Every notebook in
notebooks/ and solutions/ has, in its first markdown cell, a Colab badge
linking to itself, and a setup cell (the first code cell) that installs the
package in Colab and does nothing elsewhere. `make notebooks` runs `run`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe_course.classroom.course import SETUP_MARK, badge, setup_source  # noqa: E402

FOLDERS = ("notebooks", "solutions", "exercises")


def all_notebooks(folders=FOLDERS) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).glob("*.ipynb"))


def expected_header_problems(nb, relpath: str) -> list[str]:
    """What is wrong with a notebook's badge, setup cell and kernel (empty list: fine)."""
    problems = []
    md = [c for c in nb.cells if c.cell_type == "markdown"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    if not md or badge(relpath) not in md[0].source:
        problems.append("first markdown cell lacks the Colab badge for this notebook")
    if not code or code[0].source != setup_source():
        problems.append("first code cell is not the standard setup cell")
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append("kernel is not python3")
    return problems


def fix_headers(path: Path) -> bool:
    """Rewrite the badge and setup cell of one notebook; return True if it changed."""
    nb = nbformat.read(path, as_version=4)
    relpath = path.relative_to(ROOT).as_posix()
    before = nbformat.writes(nb)
    md = next(c for c in nb.cells if c.cell_type == "markdown")
    lines = [l for l in md.source.split("\n") if "colab-badge.svg" not in l]
    lines.insert(1, "\n" + badge(relpath) if lines and lines[0].startswith("#") else badge(relpath))
    md.source = "\n".join(lines).replace("\n\n\n", "\n\n")
    code = [c for c in nb.cells if c.cell_type == "code"]
    if code and code[0].source.startswith(SETUP_MARK.split(";")[0]):
        code[0].source = setup_source()
    else:
        cell = nbformat.v4.new_code_cell(setup_source())
        nb.cells.insert(nb.cells.index(md) + 1, cell)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    if nbformat.writes(nb) != before:
        nbformat.write(nb, path)
        return True
    return False


def run(paths: list[Path], timeout: int = 600) -> None:
    """Execute each notebook in its own folder with a fresh kernel, and save it."""
    from nbclient import NotebookClient
    os.environ.setdefault("PYTHONHASHSEED", "0")
    for path in paths:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"running {shown}", flush=True)
        nb = nbformat.read(path, as_version=4)
        # A cell whose error is the lesson (# NBVAL_RAISES_EXCEPTION) must not stop the run;
        # nbclient needs a tag for that, which we drop again (nbval warns about both at once).
        raising = [c for c in nb.cells if c.cell_type == "code"
                   and c.source.startswith("# NBVAL_RAISES_EXCEPTION")
                   and "raises-exception" not in c.metadata.get("tags", [])]
        for cell in raising:
            cell.metadata.setdefault("tags", []).append("raises-exception")
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        for cell in raising:
            cell.metadata["tags"].remove("raises-exception")
            if not cell.metadata["tags"]:
                del cell.metadata["tags"]
        # the kernel records its exact Python version; keep the file the same on every Python
        nb.metadata.get("language_info", {}).pop("version", None)
        for cell in nb.cells:                      # keep diffs small and stable
            cell.metadata.pop("execution", None)
            if cell.cell_type == "code":
                cell.outputs = stable_outputs(cell.outputs)
        nbformat.write(nb, path)


def stable_outputs(outputs: list) -> list:
    """The same outputs, written the same way whichever Python and library versions ran them.

    Consecutive pieces of one stream (how the kernel cut them depends on timing) are joined,
    and PNG images lose their text chunks (matplotlib writes its version number there).
    """
    merged: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged
                and merged[-1].get("output_type") == "stream" and merged[-1].name == out.name):
            merged[-1].text += out.text
            continue
        data = out.get("data", {})
        if "image/png" in data:
            data["image/png"] = _png_without_text(data["image/png"])
        merged.append(out)
    return merged


def _png_without_text(b64: str) -> str:
    import base64
    raw = base64.b64decode(b64)
    kept, pos = [raw[:8]], 8                       # the signature, then chunks
    while pos < len(raw):
        length = int.from_bytes(raw[pos:pos + 4], "big")
        if raw[pos + 4:pos + 8] not in (b"tEXt", b"iTXt", b"zTXt"):
            kept.append(raw[pos:pos + 12 + length])
        pos += 12 + length
    return base64.b64encode(b"".join(kept)).decode("ascii") + ("\n" if b64.endswith("\n") else "")


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "headers":
        for path in all_notebooks(("notebooks", "solutions")):
            if fix_headers(path):
                print(f"updated {path.relative_to(ROOT)}")
        return 0
    if command == "run":
        paths = [Path(p).resolve() for p in argv[1:]] or all_notebooks(("notebooks", "solutions"))
        run(paths)
        return 0
    if command == "check":
        bad = 0
        for path in all_notebooks():
            for problem in expected_header_problems(nbformat.read(path, as_version=4),
                                                    path.relative_to(ROOT).as_posix()):
                print(f"{path.relative_to(ROOT)}: {problem}")
                bad += 1
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
