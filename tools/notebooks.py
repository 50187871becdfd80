"""Maintain the course notebooks: headers in step, outputs re-executed.

    python tools/notebooks.py headers        # rewrite every Colab badge and setup cell
    python tools/notebooks.py run [NB ...]   # execute notebooks and save their outputs
    python tools/notebooks.py check          # exit 1 if a header is out of step
    python tools/notebooks.py tags [NB ...]  # turn nbval comment markers into cell tags
    python tools/notebooks.py size [NB ...]  # cells and words of prose of each chapter

The repository URL lives in bpe_course/classroom/authoring/course.py and nowhere else.
Every notebook in notebooks/ and solutions/ has, in its first markdown cell, a Colab badge
linking to itself, and a setup cell (the first code cell) that installs the
package in Colab and does nothing elsewhere. `make notebooks` runs `run`.

Test-only markers live in cell metadata, never in the code a learner reads.
Write `# NBVAL_IGNORE_OUTPUT` (or another nbval comment) as the first line of
a cell if you like; `tags` (and `run`, which calls it first) moves it into the
cell's tags, and a test fails while any such comment is left:

- `nbval-ignore-output`: volatile output (timings, progress bars), not compared;
- `raises-exception`: the error is the lesson. JupyterLab's "Run all", nbclient
  and nbval all go on past this cell (nbval also checks that it does raise);
- `nbval-skip`: nbval does not run the cell; `nbval-check-output`: compare
  even under `--nbval-lax`.

`run` also keeps live widget views out of the stored outputs: a widget cell is
stored with its static HTML, which GitHub, nbviewer and a not-yet-run
JupyterLab show; running the cell brings the live widget back.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe_course.classroom.authoring.course import KERNELSPEC, SETUP_MARK, badge, setup_source  # noqa: E402

FOLDERS = ("notebooks", "solutions", "exercises")

# nbval's comment markers and the cell tags that mean the same (nbval 0.11, plugin.py).
MARKER_TAGS = {
    "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
    "NBVAL_CHECK_OUTPUT": "nbval-check-output",
    "NBVAL_RAISES_EXCEPTION": "raises-exception",
    "NBVAL_SKIP": "nbval-skip",
}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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
    if nb.metadata.get("kernelspec") != KERNELSPEC:
        problems.append(f"kernelspec is not {KERNELSPEC} (what Jupyter would write on opening)")
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
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    if nbformat.writes(nb) != before:
        nbformat.write(nb, path)
        return True
    return False


def marker_comments(source: str) -> list[str]:
    """The nbval markers written as comment lines in a cell's source (`# NBVAL_SKIP`)."""
    found = []
    for line in source.splitlines():
        word = line.strip().lstrip("#").strip()
        if line.strip().startswith("#") and word in MARKER_TAGS:
            found.append(word)
    return found


def tag_markers(nb) -> bool:
    """Move nbval comment markers of every code cell into its tags; True if anything changed.

    Idempotent: a cell with no marker comment is left alone, and a tag is never added twice.
    """
    changed = False
    for cell in nb.cells:
        markers = marker_comments(cell.source) if cell.cell_type == "code" else []
        if not markers:
            continue
        tags = cell.metadata.setdefault("tags", [])
        tags.extend(MARKER_TAGS[m] for m in markers if MARKER_TAGS[m] not in tags)
        lines = [l for l in cell.source.split("\n")
                 if not (l.strip().startswith("#") and l.strip().lstrip("#").strip() in MARKER_TAGS)]
        cell.source = "\n".join(lines).strip("\n")
        changed = True
    return changed


def drop_widget_views(nb) -> None:
    """Store widget outputs as their static fallback (see the module docstring)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                del data[WIDGET_VIEW]


def run(paths: list[Path], timeout: int = 600) -> None:
    """Execute each notebook in its own folder with a fresh kernel, and save it.

    Cells tagged `raises-exception` may raise; any other error stops the run.
    """
    from nbclient import NotebookClient
    os.environ.setdefault("PYTHONHASHSEED", "0")
    for path in paths:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"running {shown}", flush=True)
        nb = nbformat.read(path, as_version=4)
        tag_markers(nb)
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        drop_widget_views(nb)
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
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__)
        return 0
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
    if command == "tags":
        paths = [Path(p).resolve() for p in argv[1:]] or all_notebooks()
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            if tag_markers(nb):
                nbformat.write(nb, path)
                print(f"tagged {path.relative_to(ROOT)}")
        return 0
    if command == "size":
        from bpe_course.classroom.authoring.course import MAX_CELLS, MAX_WORDS, chapter_size
        paths = [Path(p).resolve() for p in argv[1:]] or all_notebooks(("notebooks",))
        print(f"{'notebook':44} cells  words  deeper  quiz   (aim: <= {MAX_CELLS} cells, "
              f"<= {MAX_WORDS} words)")
        for path in paths:
            size = chapter_size(nbformat.read(path, as_version=4))
            print(f"{path.name:44} {size['cells']:5} {size['words']:6} {size['deeper']:7} "
                  f"{size['quiz']:5}")
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
