"""Submissions as the grader finds them: notebooks under a folder, read safely and identified.

A *student* is the first folder under the PATH given to the grader. A submission
is accepted only if it is a regular file that the submission folder itself
contains (`read_submission`): every path is looked at with `os.lstat` and opened
with `os.O_NOFOLLOW`, one folder at a time from the folder given, so a symlink
(to a solution, a classmate's notebook or `/dev/zero`), a FIFO, a device, a
folder named like a notebook or a hard link to a file outside the folder is
refused, as is a file over the size cap (`MAX_SIZE`, `--max-size`), which is
checked before a byte is read. Each refusal is a one-line `Refused` for that
notebook alone; links to folders are never followed.

A notebook is then read as plain JSON (nbformat takes seconds to import, longer
than running most worksheets) into `Notebook` and `Cell`: format 4 (any minor
version, as Jupyter, Colab and VS Code save it) or the old format 3, with a
UTF-8 byte-order mark stripped, and nbgrader metadata of the wrong type
ignored, never fatal. It is identified as a worksheet by its nbgrader check
cells, else by the functions and classes it defines (a notebook pasted into a
fresh file has no metadata), else by the number in its file name ("Copy of
02_bpe_basics.ipynb", "02_bpe_basics-Copy1.ipynb").

>>> identify(Path("Copy of 04_regex_tokenizer.ipynb"))
'04_regex_tokenizer'
>>> [c.source for c in parse_notebook({"nbformat": 3, "worksheets": [{"cells": [
...     {"cell_type": "code", "input": ["x = 1\\n", "y = 2"]}]}]}).cells]
['x = 1\\ny = 2']
"""

from __future__ import annotations

import ast
import codecs
import errno
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..worksheets import WORKSHEETS

MAX_SIZE = 20 * 2**20            # bytes a notebook may have (`--max-size`, in MB)


class Refused(ValueError):
    """A submission the grader will not read, with the one-line reason."""


@dataclass
class Found:
    """A notebook found under PATH: its path, its student, and the folder it must be in
    (`base`: the PATH it was found under, or the folder of a notebook named directly)."""
    path: Path
    student: str
    base: Path


def find_notebooks(paths: list[str]) -> list[Found]:
    """Every .ipynb named or found under a folder, in sorted order. Folders are searched
    without following links; whatever is named `*.ipynb` is listed (a link, a FIFO, a
    folder so named), so that `read_submission` can refuse it with its reason."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            for top, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
                for name in sorted(files + [d for d in dirs if d.endswith(".ipynb")]):
                    if name.endswith(".ipynb"):
                        nb = Path(top) / name
                        parts = nb.relative_to(path).parts
                        found.append(Found(nb, parts[0] if len(parts) > 1 else "", path))
        else:
            found.append(Found(path, path.parent.name, path.parent))
    return sorted(found, key=lambda f: (str(f.base), f.path.relative_to(f.base).parts))


_KINDS = ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_submission(found: Found, max_size: int = MAX_SIZE,
                    links: dict | None = None) -> bytes:
    """The bytes of a submission, or raise `Refused` with a one-line reason.

    The path is opened one folder at a time from `found.base` with `O_NOFOLLOW`, so no
    link anywhere below the folder given is followed; the file must be a regular file
    (checked with `lstat` before it is opened, and again on the open file), hold at most
    `max_size` bytes, and have no hard link outside the folder: `links` counts, by
    (device, inode), the names under the folder (see `count_links`).
    """
    try:
        relative = found.path.relative_to(found.base).parts
    except ValueError:
        raise Refused("not inside the folder it was found in") from None
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    folder = None
    try:
        folder = os.open(found.base, os.O_RDONLY | os.O_DIRECTORY)
        for part in relative[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        name = relative[-1] if relative else "."
        before = os.lstat(name, dir_fd=folder)
        if not stat.S_ISREG(before.st_mode):
            raise Refused(f"refused: {_kind(before.st_mode)}, not a regular file")
        if before.st_size > max_size:
            raise Refused(f"refused: {before.st_size / 2**20:.1f} MB, larger than the "
                          f"{max_size / 2**20:g} MB a notebook may have (--max-size)")
        if before.st_nlink > 1 and (links or {}).get((before.st_dev, before.st_ino), 0) < \
                before.st_nlink:
            raise Refused("refused: a hard link to a file outside the submission folder")
        fd = os.open(name, flags, dir_fd=folder)
    except Refused:
        raise
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Refused("refused: a symlink, not a regular file") from None
        if e.errno == errno.ENOTDIR:
            raise Refused("refused: a folder on its path is a symlink") from None
        raise Refused(f"could not read the file: {e.strerror or e}") from None
    finally:
        if folder is not None:
            os.close(folder)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(
                now.st_mode):
            raise Refused("refused: the file changed while it was being opened")
        chunks, size = [], 0
        while size <= max_size:
            chunk = os.read(fd, min(1 << 20, max_size + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_size:
            raise Refused(f"refused: larger than the {max_size / 2**20:g} MB a notebook may "
                          f"have (--max-size)")
        return b"".join(chunks)
    except OSError as e:
        raise Refused(f"could not read the file: {e.strerror or e}") from None
    finally:
        os.close(fd)


def count_links(found: list[Found]) -> dict:
    """(device, inode) -> how many of the notebooks found share it: a file whose every hard
    link is among them is no more than a copy inside the folder."""
    counts: dict = {}
    for f in found:
        try:
            info = os.lstat(f.path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            key = (info.st_dev, info.st_ino)
            counts[key] = counts.get(key, 0) + 1
    return counts


class Cell:
    """A notebook cell, as much as the grader needs of it."""

    def __init__(self, cell_type: str, source: str, metadata: dict):
        self.cell_type, self.source, self.metadata = cell_type, source, metadata


class Notebook:
    def __init__(self, cells: list[Cell], metadata: dict | None = None):
        self.cells = cells
        # The notebook's own metadata, as much as the grader reads: the course release the
        # worksheet came from (`authoring.exercises.release_metadata`).
        self.metadata = metadata or {}


# nbgrader's cell metadata the grader reads, and the type each must have to count.
NBGRADER = {"grade_id": str, "grade": bool, "solution": bool, "locked": bool}


def _nbgrader(metadata) -> dict:
    """The cell's nbgrader metadata the grader can use: a value of the wrong type (a list
    for a grade_id, say) is left out, never an error."""
    raw = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if not isinstance(raw, dict):
        return {}
    return {k: raw[k] for k, kind in NBGRADER.items() if type(raw.get(k)) is kind}


def _text(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return "".join(value)
    return None


def parse_notebook(data) -> Notebook:
    """The cells of a notebook in format 4, or in the old format 3 (cells in `worksheets`,
    a code cell's source in `input`)."""
    if not isinstance(data, dict) or data.get("nbformat") not in (3, 4):
        raise ValueError("not a notebook in format 4 (nbformat 4)")
    if data["nbformat"] == 3:
        sheets = data.get("worksheets")
        if not (isinstance(sheets, list) and all(isinstance(s, dict) and isinstance(
                s.get("cells", []), list) for s in sheets)):
            raise ValueError("not a notebook: its worksheets (nbformat 3) are malformed")
        raw = [c for s in sheets for c in s.get("cells", [])]
    else:
        raw = data.get("cells")
        if not isinstance(raw, list):
            raise ValueError("not a notebook in format 4 (nbformat 4)")
    cells = []
    for k, cell in enumerate(raw):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise ValueError(f"not a notebook: cell {k + 1} is malformed")
        key = "input" if data["nbformat"] == 3 and cell["cell_type"] == "code" else "source"
        source = _text(cell.get(key, ""))
        if source is None:
            raise ValueError(f"not a notebook: cell {k + 1} is malformed")
        metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        cells.append(Cell(cell["cell_type"], source, {"nbgrader": _nbgrader(metadata)}))
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    course = meta.get("bpe_course") if isinstance(meta.get("bpe_course"), dict) else {}
    release = course.get("release")
    return Notebook(cells, {"bpe_course": {"release": release}} if isinstance(release, str)
                    else {})


def parse_bytes(raw: bytes) -> Notebook:
    """A notebook from a file's bytes, or raise ValueError with a one-line reason."""
    if raw.startswith(codecs.BOM_UTF8):                # Jupyter reads these; so do we
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not a notebook: the file is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not a notebook: invalid JSON at line {e.lineno}, column {e.colno} "
                         f"({e.msg})") from None
    except (ValueError, RecursionError, MemoryError):
        raise ValueError("not a notebook: JSON the grader cannot read") from None
    return parse_notebook(data)


def read_notebook(path: Path, max_size: int = MAX_SIZE) -> Notebook:
    """The notebook at `path` (a regular file, not a link), or raise ValueError with a
    one-line reason."""
    return parse_bytes(read_submission(Found(Path(path), "", Path(path).parent), max_size))


def defined_names(nb) -> set[str]:
    """The functions and classes a notebook defines at top level. A cell Python cannot
    parse (a syntax error, or nesting too deep for the parser) defines nothing."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse("\n".join(line for line in cell.source.splitlines()
                                       if not line.lstrip().startswith(("%", "!"))))
        except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
            continue
        names |= {n.name for n in tree.body
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return names


def identify(path: Path, nb=None) -> str | None:
    """Which worksheet a notebook is: by its check cells' ids, else by the functions and
    classes it defines, else by the number in its name (02_..., "Copy of 02_...")."""
    if nb is not None:
        ids = {_nbgrader(getattr(c, "metadata", None)).get("grade_id") for c in nb.cells}
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
