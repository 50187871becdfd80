"""One path through the course: a chapter uses only what it or an earlier chapter teaches.

The chapter map (`bpe_course.classroom.authoring.course.CHAPTERS`) says which chapter
introduces each module, name and method of the package. Every code cell of every chapter
(notebooks/) and worksheet (solutions/, exercises/) is read with `ast`: what it imports
from `bpe_course`, and the methods of the map it calls, must come from its own chapter or
an earlier one. A worksheet is held to the chapter of its number.
"""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from bpe_course.classroom.authoring.course import (
    CHAPTERS,
    MAX_CELLS,
    MAX_WORDS,
    chapter_size,
    introduced_in,
)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).glob("*.ipynb"))
METHODS = {name for *_, names in CHAPTERS for name in names if name.startswith(".")}
# `json.load(f)` is not a tokenizer's `.load`: calls on these modules are not the course's.
NOT_THE_COURSE = {"json", "pickle", "np", "numpy", "re", "regex", "plt", "tiktoken", "os",
                  "sys", "pathlib", "Path", "spm", "sentencepiece", "tokenizers", "str",
                  "bytes", "unicodedata", "codecs"}


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


def code_of(path: Path) -> list[str]:
    """The code cells, with IPython's `%magic` and `!shell` lines made `pass`."""
    nb = nbformat.read(path, as_version=4)
    return ["\n".join(re.sub(r"^(\s*)[%!].*", r"\1pass", line)
                      for line in cell.source.splitlines())
            for cell in nb.cells if cell.cell_type == "code"]


def uses(source: str) -> set[str]:
    """What a cell uses of the package: qualified names ("bpe_course.x.y") and methods
    of the map (".name")."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpe_course"):
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("bpe_course"))
        elif isinstance(node, ast.Attribute) and f".{node.attr}" in METHODS:
            if not (isinstance(node.value, ast.Name) and node.value.id in NOT_THE_COURSE):
                found.add(f".{node.attr}")
        elif isinstance(node, ast.Attribute):
            dotted = ast.unparse(node)
            if dotted.startswith("bpe_course."):
                found.add(dotted)
    return found


def chapter_of(path: Path) -> str:
    return re.match(r"\d\d", path.name).group()


def test_the_map_lists_each_chapter_once_in_order():
    numbers = [number for number, *_ in CHAPTERS]
    assert numbers == [f"{k:02d}" for k in range(1, len(CHAPTERS) + 1)]
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert chapters == [f"{number}_{slug}" for number, slug, *_ in CHAPTERS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_chapter_uses_nothing_a_later_chapter_teaches(path):
    mine = chapter_of(path)
    later, unknown = [], []
    for number, source in enumerate(code_of(path), 1):
        for name in sorted(uses(source)):
            chapter = introduced_in(name)
            if chapter is None:
                unknown.append(f"{name} (code cell {number})")
            elif chapter > mine:
                later.append(f"{name}, taught in chapter {chapter} (code cell {number})")
    assert not unknown, f"not in the chapter map (course.CHAPTERS): {unknown}"
    assert not later, f"{path.name} uses what a later chapter teaches: {later}"


def test_the_test_sees_a_forward_reference():
    cell = "from bpe_course import train_bpe\nfrom bpe_course.openai import gpt2_files\n" \
           "tok.from_vocab_merges(v, m)\njson.load(f)\nbpe_course.sentencepiece.read_model"
    used = uses(cell)
    assert used == {"bpe_course.train_bpe", "bpe_course.openai.gpt2_files",
                    ".from_vocab_merges", "bpe_course.sentencepiece",
                    "bpe_course.sentencepiece.read_model"}
    assert [introduced_in(n) for n in sorted(used)] == ["08", "08", "11", "11", "07"]
    assert introduced_in("bpe_course.nowhere") is None


LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", LECTURES, ids=ids(LECTURES))
def test_a_chapter_fits_one_sitting_or_says_why(path):
    # At most MAX_CELLS cells and MAX_WORDS words of prose on the chapter's path (asides
    # folded in <details> and the quiz apart), unless its metadata says why it is longer.
    nb = nbformat.read(path, as_version=4)
    size = chapter_size(nb)
    why = nb.metadata.get("bpe_course", {}).get("longer_because")
    assert why or (size["cells"] <= MAX_CELLS and size["words"] <= MAX_WORDS), (
        f"{path.name}: {size['cells']} cells, {size['words']} words of prose "
        f"(aim: {MAX_CELLS}, {MAX_WORDS}); cut it, fold an aside, or say why in the "
        f"notebook's metadata (bpe_course.longer_because)")
