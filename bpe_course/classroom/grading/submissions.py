"""Submissions as the grader finds them: notebooks under a folder, read and identified.

A *student* is the first folder under the PATH given to the grader. A notebook
is read as plain JSON (nbformat takes seconds to import, longer than running
most worksheets) into `Notebook` and `Cell`, and identified as a worksheet by
its nbgrader check cells, else by the functions and classes it defines (a
notebook pasted into a fresh file has no metadata), else by the number in its
file name ("Copy of 02_bpe_basics.ipynb", "02_bpe_basics-Copy1.ipynb").

>>> identify(Path("Copy of 04_regex_tokenizer.ipynb"))
'04_regex_tokenizer'
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from ..worksheets import WORKSHEETS


def find_notebooks(paths: list[str]) -> list[tuple[Path, str]]:
    """(notebook, student) for every .ipynb named or found under a folder, in sorted order."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            for nb in sorted(p for p in path.rglob("*.ipynb")
                             if ".ipynb_checkpoints" not in p.parts):
                parts = nb.relative_to(path).parts
                found.append((nb, parts[0] if len(parts) > 1 else ""))
        else:
            found.append((path, path.parent.name))
    return found


class Cell:
    """A notebook cell, as much as the grader needs of it."""

    def __init__(self, cell_type: str, source: str, metadata: dict):
        self.cell_type, self.source, self.metadata = cell_type, source, metadata


class Notebook:
    def __init__(self, cells: list[Cell]):
        self.cells = cells


def parse_notebook(data) -> Notebook:
    """The cells of a notebook in format 4 (read as plain JSON: nbformat takes seconds to
    import, longer than running most worksheets)."""
    if not isinstance(data, dict) or data.get("nbformat") != 4 or not isinstance(
            data.get("cells"), list):
        raise ValueError("not a notebook in format 4 (nbformat 4)")
    cells = []
    for k, cell in enumerate(data["cells"]):
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        metadata = cell.get("metadata", {}) if isinstance(cell, dict) else None
        nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else None
        if not (isinstance(source, str) and isinstance(nbgrader, dict)
                and isinstance(cell.get("cell_type"), str)):
            raise ValueError(f"not a notebook: cell {k + 1} is malformed")
        cells.append(Cell(cell["cell_type"], source, metadata))
    return Notebook(cells)


def read_notebook(path: Path) -> Notebook:
    """The notebook at `path`, or raise ValueError with a one-line reason."""
    try:
        if not path.is_file():
            raise ValueError("not a regular file" if path.exists() else "no such file")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError("not a notebook: the file is not UTF-8 text") from None
    except OSError as e:
        raise ValueError(f"could not read the file: {e.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not a notebook: invalid JSON at line {e.lineno}, column {e.colno} "
                         f"({e.msg})") from None
    except (ValueError, RecursionError):
        raise ValueError("not a notebook: JSON the grader cannot read") from None
    return parse_notebook(data)


def defined_names(nb) -> set[str]:
    """The functions and classes a notebook defines at top level."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse("\n".join(line for line in cell.source.splitlines()
                                       if not line.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        names |= {n.name for n in tree.body
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return names


def identify(path: Path, nb=None) -> str | None:
    """Which worksheet a notebook is: by its check cells' ids, else by the functions and
    classes it defines, else by the number in its name (02_..., "Copy of 02_...")."""
    if nb is not None:
        ids = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        for name, sheet in WORKSHEETS.items():
            if set(sheet.points) <= ids:
                return name
        names = defined_names(nb)
        found = {name: len({c.target for c in sheet.checkers} & names)
                 for name, sheet in WORKSHEETS.items()}
        best = max(found.values())
        if best and list(found.values()).count(best) == 1:
            return max(found, key=found.get)
    match = re.search(r"(?<!\d)(\d\d)(?!\d)", path.name)
    for name in WORKSHEETS:
        if match and name.startswith(match.group(1)):
            return name
    return None
