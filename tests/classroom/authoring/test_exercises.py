"""The exercise worksheets are generated from the solutions, up to date, and run end to end."""

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from bpe_course.classroom.authoring.course import badge
from bpe_course.classroom.authoring.exercises import (
    clear_solutions,
    cli_exercises,
    default_root,
    generate,
    problems,
)
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

ROOT = Path(__file__).resolve().parents[3]
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


def test_exercises_folder_is_up_to_date():
    assert generate(ROOT, check=True) == [], "run `python -m bpe_course exercises`"


def test_every_worksheet_has_a_solution_and_an_exercise():
    for name in WORKSHEETS:
        assert (ROOT / "solutions" / f"{name}.ipynb").exists()
        assert (ROOT / "exercises" / f"{name}.ipynb").exists()


@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_every_solution_region_is_marked_and_every_exercise_checked(name):
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    assert problems(nb, name) == []


@pytest.mark.parametrize("path", EXERCISES, ids=[p.name for p in EXERCISES])
def test_exercises_hide_the_answers_and_carry_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    text = path.read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    assert badge(f"exercises/{path.name}") in nb.cells[0].source
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert "# YOUR CODE HERE\n" in cell.source


def test_clear_solutions_is_nbgraders_rule():
    source = ("class A:\n    def f(self):\n        ### BEGIN SOLUTION\n        return 1\n"
              "        ### END SOLUTION\n\n    def g(self):\n        ### BEGIN SOLUTION\n"
              "        return 2\n        ### END SOLUTION")
    assert clear_solutions(source) == (
        "class A:\n    def f(self):\n        # YOUR CODE HERE\n        raise NotImplementedError()\n"
        "\n    def g(self):\n        # YOUR CODE HERE\n        raise NotImplementedError()")
    assert clear_solutions("### BEGIN SOLUTION\nword\n### END SOLUTION", "markdown") == \
        "YOUR ANSWER HERE"


# -- the generator refuses malformed solutions ---------------------------------------------------

def meta(**kw):
    return {"nbgrader": {"schema_version": 3, "grade": False, "locked": False,
                         "solution": False, **kw}}


def tiny(solution_source, solution_meta=True):
    """A one-exercise worksheet '01_utf8_warmups' with the given solution cell."""
    cells = [new_markdown_cell("# 01 · Test\n\n" + badge("solutions/01_utf8_warmups.ipynb")),
             new_code_cell(solution_source,
                           metadata=meta(solution=True, grade_id="a") if solution_meta else {})]
    for exercise, points in WORKSHEETS["01_utf8_warmups"].points.items():
        target = CHECKERS[exercise].target
        cells.append(new_code_cell(f"checks.{exercise}({target})",
                                   metadata=meta(grade=True, locked=True, grade_id=exercise,
                                                 points=points)))
    return new_notebook(cells=cells)


GOOD = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"


@pytest.mark.parametrize("nb, complaint", [
    (tiny("def f():\n    return 1"), "no ### BEGIN SOLUTION"),
    (tiny(GOOD, solution_meta=False), "not marked as an nbgrader solution cell"),
    (tiny("def f():\n    ### BEGIN SOLUTION\n    return 1"), "BEGIN SOLUTION without END"),
    (tiny("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION"), "inside another"),
])
def test_an_unmarked_or_broken_solution_region_is_refused(nb, complaint):
    assert any(complaint in p for p in problems(nb, "01_utf8_warmups")), problems(nb, "01_utf8_warmups")


def test_a_missing_or_changed_check_cell_is_refused():
    nb = tiny(GOOD)
    del nb.cells[-1]
    nb.cells[-1].source = "print('all good')"
    found = problems(nb, "01_utf8_warmups")
    assert any("'safe_decode' has no check cell" in p for p in found)
    assert any("check cell of 'encode_code_point' should be" in p for p in found)


def test_cli_reports_stale_exercises_and_malformed_solutions(tmp_path, capsys, copy_tree):
    copy_tree(ROOT / "solutions", tmp_path / "solutions", "*.md")
    assert cli_exercises(["--check", "--root", str(tmp_path)]) == 1       # nothing generated
    assert "is stale" in capsys.readouterr().out
    assert cli_exercises(["--root", str(tmp_path)]) == 0
    assert cli_exercises(["--check", "--root", str(tmp_path)]) == 0
    generated = sorted(p.name for p in (tmp_path / "exercises").glob("*.ipynb"))
    assert generated == sorted(p.name for p in EXERCISES)
    nbformat.write(tiny("def f():\n    return 1"), tmp_path / "solutions" / "01_utf8_warmups.ipynb")
    assert cli_exercises(["--check", "--root", str(tmp_path)]) == 2
    assert "no ### BEGIN SOLUTION" in capsys.readouterr().err


def test_the_default_root_is_the_repository_whatever_the_working_folder(tmp_path, monkeypatch):
    # From a source checkout, `python -m bpe_course exercises` finds the repository's
    # solutions/ beside the package, not whatever folder it was started from.
    monkeypatch.chdir(tmp_path)
    assert default_root() == ROOT


# -- an unsolved worksheet runs to the end ----------------------------------------------------

@pytest.fixture(scope="module")
def executed():
    """Every worksheet as released, run in a fresh kernel of its own, two at a time.

    A run is mostly a kernel starting and the client waiting on it (1.5 s of CPU per
    worksheet): two at a time, the twelve took 22.5 s instead of 27.8 s on a busy 2-core
    machine. Each kernel is still its own process, so no worksheet sees another's names."""
    import asyncio

    from nbclient import NotebookClient

    async def run_all():
        slots = asyncio.Semaphore(2)

        async def run(path):
            nb = nbformat.read(path, as_version=4)
            async with slots:
                await NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}}
                                     ).async_execute()
            return path.name, nb
        return dict(await asyncio.gather(*(run(path) for path in EXERCISES)))
    return asyncio.run(run_all())


@pytest.mark.parametrize("path", EXERCISES, ids=[p.name for p in EXERCISES])
def test_exercise_runs_end_to_end_with_not_attempted_verdicts(executed, path):
    nb = executed[path.name]
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    checks = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(checks) == len(WORKSHEETS[path.stem].points)
    for cell in checks:
        # only stderr; a busy kernel may deliver one message in several stream chunks
        assert cell.outputs and {o.get("name") for o in cell.outputs} == {"stderr"}
        assert "not attempted yet" in "".join(o.text for o in cell.outputs)
    assert not any("✅" in o.get("text", "") for o in outputs)
