"""The worksheets work in nbgrader itself, proved with the real tool (nbgrader 0.9.6).

A course folder in tmp_path gets the solutions as the source of an assignment;
`nbgrader generate_assignment` must release exactly the cells our generator
writes (bar the Colab badge, which points at exercises/ in ours), and
`nbgrader autograde` must give every solution full marks and two of the generated
exercises zero (the course's own tests grade every blank worksheet). Runs offline, in about half a minute.

The round trip on JupyterHub (docs/nbgrader.md) is test_nbgrader_exchange.py.

What nbgrader trusts is pinned here too, as the README states it: a check cell runs in
the learner's own kernel, so a blank worksheet whose earlier cell replaces the
checkers gets full marks from `nbgrader autograde` (our grader gives it zero:
`test_grading_attacks.py`, yara).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bpe_course.classroom.authoring.course import badge
from bpe_course.classroom.worksheets import WORKSHEETS

pytest.importorskip("nbgrader", reason="nbgrader is in the dev extra: pip install -e '.[dev]'")

ROOT = Path(__file__).resolve().parents[3]
ASSIGNMENT = "worksheets"
BLANK = "0[27]_*.ipynb"      # bob hands in two worksheets as released, one short, one long


def nbgrader(course: Path, *args: str) -> None:
    env = dict(os.environ)
    # nbgrader runs the `alembic` command that sits beside this Python.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=840)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def sources(nb, folder: str, name: str) -> list[tuple[str, str]]:
    """(type, source) of every cell, with the Colab badge made neutral."""
    out = []
    for cell in nb.cells:
        text = cell.source.replace(badge(f"{folder}/{name}.ipynb"), "BADGE")
        out.append((cell.cell_type, text))
    return out


@pytest.fixture(scope="module")
def course(tmp_path_factory, copy_tree):
    course = tmp_path_factory.mktemp("nbgrader_course")
    (course / "nbgrader_config.py").write_text(
        'c = get_config()\nc.CourseDirectory.course_id = "bpe-course"\n', encoding="utf-8")
    copy_tree(ROOT / "solutions", course / "source" / ASSIGNMENT, "*.md")
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    for student, folder, names in [("alice", "solutions", "*.ipynb"),
                                   ("bob", "exercises", BLANK)]:
        nbgrader(course, "db", "student", "add", student)
        (course / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
        for path in (ROOT / folder).glob(names):
            shutil.copy(path, course / "submitted" / student / ASSIGNMENT)
    nbgrader(course, "db", "student", "add", "yara")
    nb = nbformat.read(ROOT / "exercises" / "02_bpe_basics.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells)
              if c.metadata.get("nbgrader", {}).get("grade_id") == "imports")
    patch = (Path(__file__).resolve().parents[1] / "grading" / "grading_cases" / "patch_checks.cell")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(patch.read_text(encoding="utf-8")))
    (course / "submitted" / "yara" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(nb, course / "submitted" / "yara" / ASSIGNMENT / "02_bpe_basics.ipynb")
    nbgrader(course, "autograde", ASSIGNMENT)
    return course


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_nbgrader_releases_the_same_cells_as_our_generator(course, name):
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{name}.ipynb", as_version=4)
    ours = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
    assert sources(released, "solutions", name) == sources(ours, "exercises", name)


@pytest.mark.timeout(900)
def test_nbgrader_autograde_gives_solutions_full_marks_and_exercises_zero(course):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        alice = gradebook.find_submission(ASSIGNMENT, "alice")
        bob = gradebook.find_submission(ASSIGNMENT, "bob")
        total = sum(sum(sheet.points.values()) for sheet in WORKSHEETS.values())
        assert alice.max_score == total
        assert alice.score == total
        assert bob.score == 0
        for notebook in alice.notebooks:
            assert notebook.score == sum(WORKSHEETS[notebook.name].points.values()), notebook.name


@pytest.mark.timeout(900)
def test_under_nbgrader_a_cell_that_replaces_the_checkers_passes_every_check(course):
    # What the README says nbgrader trusts: the learner's kernel, where the check cells run.
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        yara = gradebook.find_submission_notebook("02_bpe_basics", ASSIGNMENT, "yara")
        assert yara.score == sum(WORKSHEETS["02_bpe_basics"].points.values())
