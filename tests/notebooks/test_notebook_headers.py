"""Every notebook starts the same way and carries no trace of the machine it ran on."""

import re
from pathlib import Path

import nbformat
import pytest

from bpe_course.classroom.authoring.course import KERNELSPEC, REPO, badge, setup_source

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).glob("*.ipynb"))
MACHINE_PATH = re.compile(r"(/work/|/root/|/home/\w+/|/tmp/\w+|/Users/\w+|[A-Z]:\\\\Users)")
CHAPTERS = ["01_unicode_and_bytes", "02_naive_bpe", "03_encode_decode",
            "04_regex_pretokenization", "05_special_tokens_and_saving", "06_gpt4_compatibility",
            "07_fast_training", "09_tokenization_in_practice", "10_what_the_model_sees"]


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_badge_setup_cell_and_kernel(path):
    nb = nbformat.read(path, as_version=4)
    relpath = path.relative_to(ROOT).as_posix()
    first_md = next(c for c in nb.cells if c.cell_type == "markdown")
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_md.source.startswith("# ")
    assert badge(relpath) in first_md.source
    assert first_code.source == setup_source()
    assert nb.metadata["kernelspec"] == KERNELSPEC


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_no_machine_paths_and_one_repository(path):
    text = path.read_text(encoding="utf-8")
    assert not MACHINE_PATH.search(text), MACHINE_PATH.search(text).group()
    # Every link that opens or installs the course points at the one configured repository
    # (links to other projects are fine).
    for repo in re.findall(r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/", text):
        assert repo == REPO
    for repo in re.findall(r"git\+https://github\.com/([\w.-]+/[\w.-]+?)(?:@|\.git|\\?\")", text):
        assert repo == REPO


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.parent.name != "exercises"],
                         ids=ids([p for p in NOTEBOOKS if p.parent.name != "exercises"]))
def test_stored_notebooks_were_executed(path):
    nb = nbformat.read(path, as_version=4)
    unexecuted = [i for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" and c.source.strip() and c.execution_count is None]
    assert not unexecuted, f"cells {unexecuted} were never run: use `make notebooks`"


def test_every_chapter_exists():
    missing = [c for c in CHAPTERS if not (ROOT / "notebooks" / f"{c}.ipynb").exists()]
    assert not missing, f"missing chapters: {missing}"
