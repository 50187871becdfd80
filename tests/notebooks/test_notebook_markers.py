"""Test-only markers live in cell tags, where learners do not read them.

`python tools/notebooks.py tags` moves nbval comment markers (`# NBVAL_IGNORE_OUTPUT`)
into cell tags; a cell whose error is the lesson must carry `raises-exception`, or
JupyterLab's "Run all" stops there for the learner.
"""

import importlib.util
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).glob("*.ipynb"))
IDS = [p.relative_to(ROOT).as_posix() for p in NOTEBOOKS]

spec = importlib.util.spec_from_file_location("notebooks_tool", ROOT / "tools" / "notebooks.py")
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_code_cell_shows_an_nbval_comment(path):
    nb = nbformat.read(path, as_version=4)
    marked = [n for n, c in enumerate(nb.cells)
              if c.cell_type == "code" and "NBVAL_" in c.source]
    assert marked == [], f"cells {marked}: run `python tools/notebooks.py tags`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_stored_error_is_tagged_as_the_lesson(path):
    nb = nbformat.read(path, as_version=4)
    untagged = [n for n, c in enumerate(nb.cells) if c.cell_type == "code"
                and any(o.output_type == "error" for o in c.outputs)
                and "raises-exception" not in c.metadata.get("tags", [])]
    assert untagged == []


def test_tags_turns_comments_into_tags_once():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nimport time\ntime.time()"),
        nbformat.v4.new_code_cell("#NBVAL_RAISES_EXCEPTION\n1 / 0"),
        nbformat.v4.new_code_cell("# NBVAL_SKIP\n# NBVAL_IGNORE_OUTPUT\nx = 1"),
        nbformat.v4.new_code_cell("print('# NBVAL_SKIP is only text here')"),
        nbformat.v4.new_markdown_cell("# NBVAL_SKIP"),
    ])
    nb.cells[0].metadata["tags"] = ["keep-me"]
    assert tool.tag_markers(nb) is True
    assert [c.source for c in nb.cells[:4]] == [
        "import time\ntime.time()", "1 / 0", "x = 1", "print('# NBVAL_SKIP is only text here')"]
    assert nb.cells[0].metadata.tags == ["keep-me", "nbval-ignore-output"]
    assert nb.cells[1].metadata.tags == ["raises-exception"]
    assert nb.cells[2].metadata.tags == ["nbval-skip", "nbval-ignore-output"]
    assert "tags" not in nb.cells[3].metadata and nb.cells[4].source == "# NBVAL_SKIP"
    before = nbformat.writes(nb)
    assert tool.tag_markers(nb) is False
    assert nbformat.writes(nb) == before


def test_the_tags_are_the_ones_the_installed_nbval_knows():
    from nbval.plugin import metadata_tags
    assert set(tool.MARKER_TAGS.values()) <= set(metadata_tags)
    assert metadata_tags["raises-exception"] == "check_exception"


def test_stored_widget_outputs_keep_only_their_static_view():
    output = nbformat.v4.new_output("display_data", data={
        tool.WIDGET_VIEW: {"model_id": "abc", "version_major": 2, "version_minor": 0},
        "text/html": "<b>static</b>", "text/plain": "static"})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("w", outputs=[output])])
    nb.metadata["widgets"] = {"state": {}}
    tool.drop_widget_views(nb)
    assert set(nb.cells[0].outputs[0].data) == {"text/html", "text/plain"}
    assert "widgets" not in nb.metadata
