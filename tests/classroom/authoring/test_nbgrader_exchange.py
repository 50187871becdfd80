"""The worksheets' round trip through nbgrader's exchange, as on JupyterHub (docs/nbgrader.md).

Release, fetch, submit, collect, autograde, generate and fetch feedback, with a local
exchange folder standing in for JupyterHub's shared one, and nbgrader's points equal to
the course grader's. The instructor runs nbgrader's six commands; the students fetch,
submit and fetch feedback through their Assignments tab (nbgrader's assignment_list
extension, in this process), as on a hub. Marked slow: tens of seconds, most of it the
instructor's commands starting (each nbgrader process spends 2.5-3 s of CPU on imports).
Apart from test_nbgrader.py so that the two run side by side.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bpe_course.classroom.grading import bubblewrap
from bpe_course.classroom.worksheets import WORKSHEETS

pytest.importorskip("nbgrader", reason="nbgrader is in the dev extra: pip install -e '.[dev]'")

ROOT = Path(__file__).resolve().parents[3]
ASSIGNMENT = "worksheets"

# -- the round trip through an exchange, as on JupyterHub ----------------------------------------
# docs/nbgrader.md: release, fetch, submit, collect, autograde, feedback, with a local
# exchange folder standing in for JupyterHub's shared one. alice submits the solution; bob
# solves get_stats and merge and leaves the rest as released. nbgrader's points must be
# the course grader's: per exercise, all or nothing in nbgrader, and the grader gives full
# points to an answer right on every case (hidden ones too) and none to one not attempted.

ROUND_TRIP = "02_bpe_basics"


def run(cwd: Path, env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def fill(nb, solved, ids: list[str]):
    """`nb` with the cells `ids` (nbgrader grade_ids) taken from `solved`."""
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in solved.cells}
    for k, cell in enumerate(nb.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in ids:
            nb.cells[k] = by_id[grade_id]
    return nb


def assignments_tab(home: Path, action: str) -> None:
    """A student's click in their Jupyter's Assignments tab: nbgrader's assignment_list
    server extension runs the exchange in the student's own server process, with the
    config in their folder (here in this process, HOME being theirs)."""
    from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
    manager = AssignmentList()
    manager.root_dir = str(home)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.chdir(home)
        done = getattr(manager, action)("bpe-course", ASSIGNMENT)
    assert done["success"], done.get("value")


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    """The round trip: the instructor's course folder, the exchange, and each student's."""
    top = tmp_path_factory.mktemp("hub")
    course, exchange_root = top / "course", top / "exchange"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    exchange_root.mkdir()
    exchange_root.chmod(0o777)                # on a hub, every user writes into it
    shutil.copy(ROOT / "solutions" / f"{ROUND_TRIP}.ipynb", course / "source" / ASSIGNMENT)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        'c.CourseDirectory.course_id = "bpe-course"\n'
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.Exchange.root = {str(exchange_root)!r}\n"
        "c.Exchange.path_includes_course = True\n"
        f"c.Exchange.cache = {str(top / 'cache')!r}\n", encoding="utf-8")
    env = dict(os.environ, HOME=str(top / "home"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    # The instructor runs nbgrader's commands, as docs/nbgrader.md gives them.
    run(course, env, "nbgrader", "generate_assignment", ASSIGNMENT, "--force")
    run(course, env, "nbgrader", "release_assignment", ASSIGNMENT)
    solved = nbformat.read(ROOT / "solutions" / f"{ROUND_TRIP}.ipynb", as_version=4)
    work = {"alice": list(WORKSHEETS[ROUND_TRIP].points), "bob": ["get_stats", "merge"]}
    for student, exercises in work.items():
        home = top / student
        home.mkdir()
        # Each student works in their own Jupyter, through the Assignments tab (the same
        # exchange classes as `nbgrader fetch_assignment` and `nbgrader submit`, without a
        # second or two of imports per command). On a hub each student is a user of their
        # own, whose name nbgrader takes; here one user stands in for both, so each says
        # who they are. Each has a cache of their own (on a hub, in their home): nbgrader
        # finds a student's feedback through the submissions their cache records.
        (home / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            f"c.Exchange.root = {str(exchange_root)!r}\n"
            "c.Exchange.path_includes_course = True\n"
            f"c.CourseDirectory.student_id = {student!r}\n"
            f"c.Exchange.cache = {str(home / 'cache')!r}\n", encoding="utf-8")
        assignments_tab(home, "fetch_assignment")
        path = home / "bpe-course" / ASSIGNMENT / f"{ROUND_TRIP}.ipynb"
        nb = nbformat.read(path, as_version=4)
        nbformat.write(fill(nb, solved, [f"{e}_code" if e != "basic_tokenizer" else
                                         "BasicTokenizer_code" for e in exercises]), path)
        assignments_tab(home, "submit_assignment")
    run(course, env, "nbgrader", "collect", ASSIGNMENT)
    run(course, env, "nbgrader", "autograde", ASSIGNMENT)
    run(course, env, "nbgrader", "generate_feedback", ASSIGNMENT)
    run(course, env, "nbgrader", "release_feedback", ASSIGNMENT)
    for student in work:
        assignments_tab(top / student, "fetch_feedback")
    sandbox = [] if bubblewrap.available()[0] else ["--no-sandbox"]
    run(top, env, "bpe_course", "grade", str(course / "submitted"), "--json",
        str(top / "grades.json"), *sandbox)
    return top, json.loads((top / "grades.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_exchange_round_trip_gives_each_student_the_course_graders_points(exchange):
    from nbgrader.api import Gradebook
    top, report = exchange
    ours = {nb["student"]: nb for nb in report["notebooks"]}
    assert set(ours) == {"alice", "bob"}
    points = WORKSHEETS[ROUND_TRIP].points
    with Gradebook(f"sqlite:///{top / 'course' / 'gradebook.db'}") as gradebook:
        for student in ours:
            notebook = gradebook.find_submission_notebook(ROUND_TRIP, ASSIGNMENT, student)
            theirs = {g.name: g.score for g in notebook.grades if g.name in points}
            mine = {e["id"]: e["score"] for e in ours[student]["exercises"]}
            assert theirs == mine, student
            assert notebook.score == ours[student]["score"], student
    assert ours["alice"]["score"] == sum(points.values())
    assert ours["bob"]["score"] == points["get_stats"] + points["merge"]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_exchange_round_trip_hands_each_student_their_feedback(exchange):
    top, _ = exchange
    for student in ("alice", "bob"):
        feedback = list((top / student / "bpe-course" / ASSIGNMENT / "feedback").rglob(
            f"{ROUND_TRIP}.html"))
        assert len(feedback) == 1, student
        assert "Score" in feedback[0].read_text(encoding="utf-8")
