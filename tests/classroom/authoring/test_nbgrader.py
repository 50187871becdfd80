"""The worksheets work in nbgrader itself, proved with the real tool (nbgrader 0.9.6).

A course folder in tmp_path gets the solutions as the source of an assignment;
`nbgrader generate_assignment` must release exactly the cells our generator
writes (bar the Colab badge, which points at exercises/ in ours), and record for every
check cell the points the worksheet's record gives. `nbgrader autograde` must give
alice's solutions full marks and bob's blank worksheet zero. Runs offline, in about
twenty seconds.

What nbgrader gives a check cell follows from its outputs alone (`determine_grade`:
zero for an error or anything on stderr, full points otherwise), so every worksheet's
marks are proved without running it here: nbgrader's own rule, applied to the stored
outputs of each solution (which nbval reproduces in a fresh kernel), gives full marks,
and test_exercises.py shows every blank worksheet's check cells writing "not attempted
yet" to stderr, which the rule makes zero. Autograde runs on two solutions and one blank
worksheet, to prove that rule with the real tool, end to end.

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
# What each student hands in: alice two solutions (one with functions to write, one with a
# class too), bob a worksheet as released. Every other worksheet's marks follow from
# nbgrader's rule on its outputs (see above); autograde runs each notebook in a kernel
# of its own, about four seconds apiece, so all twelve solutions cost most of a minute.
HANDED_IN = {"alice": ("solutions", ["01_utf8_warmups", "02_bpe_basics"]),
             "bob": ("exercises", ["07_fast_training"])}


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
    # No `nbgrader db student add`: autograde adds each student it finds in submitted/
    # (Autograde.create_student is on by default), and each command is a second or two of
    # imports alone.
    for student, (folder, names) in HANDED_IN.items():
        (course / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
        for name in names:
            shutil.copy(ROOT / folder / f"{name}.ipynb", course / "submitted" / student / ASSIGNMENT)
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
@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_nbgrader_records_the_points_of_every_check_cell(course, name):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_notebook(name, ASSIGNMENT)
        assert {c.name: c.max_score for c in notebook.grade_cells} == WORKSHEETS[name].points


@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_by_nbgraders_rule_every_solution_gets_full_marks(name):
    # nbgrader's own rule on the stored outputs of the solution's check cells (nbval
    # proves that a fresh kernel writes the same): full points where no error and nothing
    # on stderr. A check that failed, warned, or printed its verdict to stderr scores zero.
    from nbgrader.utils import determine_grade, is_grade
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    grades = {c.metadata.nbgrader["grade_id"]: determine_grade(c) for c in nb.cells if is_grade(c)}
    assert grades == {exercise: (points, points)
                      for exercise, points in WORKSHEETS[name].points.items()}


@pytest.mark.timeout(900)
def test_nbgrader_autograde_gives_solutions_full_marks_and_exercises_zero(course):
    from nbgrader.api import Gradebook
    total = sum(sum(sheet.points.values()) for sheet in WORKSHEETS.values())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, (folder, names) in HANDED_IN.items():
            submission = gradebook.find_submission(ASSIGNMENT, student)
            assert submission.max_score == total
            scores = {nb.name: nb.score for nb in submission.notebooks if nb.name in names}
            full = {name: sum(WORKSHEETS[name].points.values()) for name in names}
            assert scores == (full if folder == "solutions" else dict.fromkeys(names, 0)), student
            assert submission.score == sum(scores.values()), student


@pytest.mark.timeout(900)
def test_under_nbgrader_a_cell_that_replaces_the_checkers_passes_every_check(course):
    # What the README says nbgrader trusts: the learner's kernel, where the check cells run.
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        yara = gradebook.find_submission_notebook("02_bpe_basics", ASSIGNMENT, "yara")
        assert yara.score == sum(WORKSHEETS["02_bpe_basics"].points.values())
