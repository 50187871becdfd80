"""The grader: full marks for the solutions, zero for the exercises, nothing for cheating,
and a clear line for a notebook that is broken, hangs or kills its kernel.

The grader runs as instructors run it, `python -m bpe_course grade ...`, in a
subprocess; each call grades several notebooks at once to keep the suite fast.
Attacks that try harder are in `test_grading_attacks.py`.
"""

import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from bpe_course.classroom.grading import bubblewrap
from bpe_course.classroom.grading.scoring import score_exercise
from bpe_course.classroom.grading.submissions import identify, read_notebook
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS, groups_for

SANDBOX = [] if bubblewrap.available()[0] else ["--no-sandbox"]     # the tests' own notebooks

ROOT = Path(__file__).resolve().parents[3]


def worksheet(folder: str, name: str):
    return nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)


def cell_index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def grade(paths, report: Path, *options) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-m", "bpe_course", "grade", *map(str, paths),
                           "--json", str(report), *SANDBOX, *options],
                          capture_output=True, text=True, timeout=600, cwd=report.parent)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text(encoding="utf-8")), done.stdout


def by_path(data: dict) -> dict:
    return {Path(n["path"]).parent.name + "/" + Path(n["path"]).name: n for n in data["notebooks"]}


def exercises_of(entry: dict) -> dict:
    return {e["id"]: e for e in entry["exercises"]}


# -- a cheating submission --------------------------------------------------------------------

CHEAT_CHECKERS = '''
# Cheat 1: make the checkers, the case runner and the cases say "passed"
import bpe_course.classroom.worksheets as cases
import bpe_course.classroom.checking.runner as runner
import bpe_course.classroom.checking.checks as real_checks
for name in ["check", "get_stats", "merge", "basic_tokenizer"]:
    setattr(real_checks, name, lambda *a, _n=name, **k:
            real_checks.Verdict(True, 99, f"✅ {_n}: passed all 99 cases."))
runner.run_group = lambda *a, **k: iter([])
runner.probe = lambda request, namespace: None
cases.CHECKERS.clear()
print("✅ merge: passed all 12 cases.\\n✅ basic_tokenizer: passed all 27 cases.")
'''

CHEAT_EQUAL = '''
# Cheat 2: an answer that claims to equal every expected answer
class Anything:
    def __eq__(self, other):
        return True

def merge(ids, pair, idx):
    return Anything()
'''

CHEAT_SOLUTIONS = '''
# Cheat 3: run the instructor's solutions, if they are lying around
import json, os
for candidate in ["../solutions/02_bpe_basics.ipynb", "../../solutions/02_bpe_basics.ipynb"]:
    if os.path.exists(candidate):
        with open(candidate, encoding="utf-8") as f:
            for cell in json.load(f)["cells"]:
                if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                    exec("".join(cell["source"]))
        break
'''

CHEAT_REPORT = '''
# Cheat 4: overwrite the grader's report with a perfect score
import os
try:
    with open(f"/proc/{os.getppid()}/cmdline", encoding="utf-8") as f:
        args = f.read().split("\\0")
    if "--json" in args:
        report = args[args.index("--json") + 1]
        with open(report, "w", encoding="utf-8") as f:
            f.write('{"notebooks": [], "score": 999, "max_score": 999}')
        open(report + ".cheat-was-here", "w").close()
except OSError:
    pass
'''


def cheating_worksheet():
    """Worksheet 02 with get_stats honestly solved and every cheat we could think of."""
    solved = worksheet("solutions", "02_bpe_basics")
    nb = worksheet("exercises", "02_bpe_basics")
    nb.cells[cell_index(nb, "get_stats_code")] = solved.cells[cell_index(solved, "get_stats_code")]
    nb.cells.insert(cell_index(nb, "imports") + 1, new_code_cell(CHEAT_CHECKERS))
    nb.cells.insert(cell_index(nb, "merge_code") + 1, new_code_cell(CHEAT_EQUAL))
    nb.cells.insert(cell_index(nb, "BasicTokenizer_code") + 1, new_code_cell(CHEAT_SOLUTIONS))
    nb.cells.append(new_code_cell(CHEAT_REPORT))
    for cell in nb.cells:                       # stored outputs and points, edited
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["points"] = 100
            cell.outputs = copy.deepcopy(solved.cells[cell_index(solved, meta["grade_id"])].outputs)
    return nb


# -- notebooks that break ------------------------------------------------------------------------

def with_cell(nb, after: str, source: str):
    nb.cells.insert(cell_index(nb, after) + 1, new_code_cell(source))
    return nb


SLOW_MERGE = '''
def merge(ids, pair, idx):                   # right, except that it never returns for []
    while not ids:
        pass
    out, i = [], 0
    while i < len(ids):
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory, copy_tree):
    """A course folder: the instructor's solutions beside a folder of submissions."""
    root = tmp_path_factory.mktemp("course")
    copy_tree(ROOT / "solutions", root / "solutions")
    subs = root / "submissions"
    (subs / "cheat").mkdir(parents=True)
    nbformat.write(cheating_worksheet(), subs / "cheat" / "02_bpe_basics.ipynb")
    (subs / "broken").mkdir()
    (subs / "broken" / "05_special_tokens.ipynb").write_text('{"cells": [', encoding="utf-8")
    nbformat.write(new_notebook(), subs / "broken" / "notes.ipynb")
    (subs / "hangs").mkdir()
    nbformat.write(with_cell(worksheet("solutions", "01_utf8_warmups"), "utf8_bytes_code",
                             "while True:\n    pass"), subs / "hangs" / "01_utf8_warmups.ipynb")
    nbformat.write(with_cell(worksheet("solutions", "02_bpe_basics"), "merge_code",
                             SLOW_MERGE), subs / "hangs" / "02_bpe_basics.ipynb")
    # The notebook that will not stop waits for the whole time limit: it sits in a folder
    # whose name sorts first (`find_notebooks` sorts by folder), so that its wait begins at
    # once and the other job grades the rest of `graded_slow` meanwhile.
    (root / "endless").mkdir()
    nbformat.write(with_cell(worksheet("solutions", "07_fast_training"), "imports",
                             "import time\nwhile True:\n    try:\n        time.sleep(1)\n"
                             "    except KeyboardInterrupt:\n        pass"),
                   root / "endless" / "07_fast_training.ipynb")
    (subs / "crashes").mkdir()
    nbformat.write(with_cell(worksheet("solutions", "04_regex_tokenizer"), "chunked_stats_code",
                             "import os\nos._exit(1)"), subs / "crashes" / "04_regex_tokenizer.ipynb")
    return root


@pytest.fixture(scope="module")
def graded(course):
    """Solutions, exercises, the cheat and the broken files, graded in one run."""
    report = course / "report.json"
    data, table = grade([ROOT / "solutions", ROOT / "exercises", course / "submissions" / "cheat",
                         course / "submissions" / "broken"], report, "--jobs", "2")
    return data, table, report


@pytest.fixture(scope="module")
def graded_slow(course):
    """Notebooks that hang or crash, graded with short time limits, in one run with a class
    of malformed notebooks (`malformed`): one grader's start-up for both, and the rest is
    graded while the notebook that will not stop waits for its time limit. The limit (15 s,
    its cells 9 s of it) is three times what the honest notebooks here took on this
    2-core machine under a load of 5 (4.5 s each)."""
    count = malformed(course / "malformed")
    data, table = grade([course / "endless", course / "submissions" / "hangs",
                         course / "submissions" / "crashes", course / "malformed"],
                        course / "slow.json", "--jobs", "2", "--cell-timeout", "3",
                        "--timeout", "15", "--case-timeout", "2")
    return data, table, count


# -- solutions and exercises ----------------------------------------------------------------------

@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_every_solution_gets_full_marks(graded, name):
    entry = by_path(graded[0])[f"solutions/{name}.ipynb"]
    assert entry["error"] is None
    assert entry["score"] == entry["max_score"] == sum(WORKSHEETS[name].points.values())
    for exercise in entry["exercises"]:
        assert exercise["message"].startswith(f"✅ {exercise['id']}: passed all"), exercise


@pytest.mark.parametrize("name", list(WORKSHEETS))
def test_every_exercise_worksheet_gets_zero_not_attempted(graded, name):
    entry = by_path(graded[0])[f"exercises/{name}.ipynb"]
    assert entry["error"] is None
    assert (entry["score"], entry["max_score"]) == (0, sum(WORKSHEETS[name].points.values()))
    for exercise in entry["exercises"]:
        assert exercise["message"] == f"⏳ {exercise['id']}: not attempted yet.", exercise


def test_the_grader_runs_hidden_cases_the_worksheet_does_not_show(graded):
    entry = exercises_of(by_path(graded[0])["solutions/02_bpe_basics.ipynb"])
    total = sum(len(g.cases) for g in groups_for(CHECKERS["merge"], graded[0]["seed"]))
    assert total >= 64                 # the check cell shows 12; a drawn repeat of one is dropped
    assert entry["merge"]["message"] == f"✅ merge: passed all {total} cases."


def test_hidden_cases_drawn_for_a_run_never_repeat_a_case_the_worksheet_shows():
    # Seed 377 draws merge([1, 2], (1, 2), 256) among merge's random cases: the very case the
    # worksheet shows, which an answer hard-coding the shown cases would pass by luck.
    merge = CHECKERS["merge"]
    drawn = groups_for(merge, 377)[len(merge.groups()):]
    shown = {c.code for g in merge.groups() if not g.hidden for c in g.cases}
    raw = [c.code for g in merge.hidden(random.Random("377:merge")) for c in g.cases]
    assert "merge([1, 2], (1, 2), 256)" in shown and "merge([1, 2], (1, 2), 256)" in raw
    assert all(c.code not in shown for g in drawn for c in g.cases)
    assert sum(len(g.cases) for g in drawn) == len(raw) - 1


@pytest.mark.parametrize("limit, size", [("DISK", 4096), ("MAX_FILES", 1)])
def test_a_notebook_that_fills_the_disk_is_stopped(tmp_path, monkeypatch, limit, size):
    from bpe_course.classroom.grading import watch
    monkeypatch.setattr(watch, limit, 40)           # 40 bytes or 40 files, for the test
    code = f"for i in range(10**6):\n    open(f'f{{i}}', 'wb').write(b'x' * {size})\n"
    process = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    try:
        errors = watch.watch(process, [tmp_path], 60, lambda: "cell 3")
    finally:
        process.kill()
        process.wait()
    assert errors == [f"stopped at cell 3: the notebook wrote more than {watch.DISK / 2**30:g} "
                      f"GiB or {watch.MAX_FILES:,} files"]
    assert watch.disk_used([tmp_path])[1] < 10**5          # stopped long before the end


def test_report_format_and_table(graded):
    from bpe_course.classroom.grading.speed import speed_check
    data, table, _ = graded
    assert set(data) == {"notebooks", "score", "max_score", "students", "seed", "sandbox",
                         "class_mistakes"}
    for entry in data["notebooks"]:
        assert set(entry) - {"speed"} == {"path", "student", "worksheet", "sha256", "score",
                                          "max_score", "error", "exercises"}
        for exercise in entry["exercises"]:
            assert set(exercise) == {"id", "score", "max_score", "message", "mistakes"}
            assert (exercise["mistakes"] == []) == exercise["message"].startswith("✅")
        # worksheet 07's speed requirement: a separate check, labelled (failing it halves
        # train_bpe's points: see test_grading_attacks)
        assert ("speed" in entry) == (entry["worksheet"] is not None
                                      and speed_check(entry["worksheet"]) is not None)
        if "speed" in entry:
            assert set(entry["speed"]) == {"exercise", "passed", "timed", "times_faster",
                                           "required", "message"}
            assert "train_bpe speed" in entry["speed"]["message"]
            assert "(speed check)" in table
    assert data["score"] == sum(n["score"] for n in data["notebooks"])
    assert "02_bpe_basics.ipynb" in table and "basic_tokenizer" in table and "total" in table


# -- cheating gains nothing ------------------------------------------------------------------------

def test_the_cheat_really_fools_its_own_check_cells_when_run_in_place(course):
    from nbclient import NotebookClient
    path = course / "submissions" / "cheat" / "02_bpe_basics.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    verdicts = "".join(o.get("text", "") for i in (cell_index(nb, "merge"),
                                                    cell_index(nb, "basic_tokenizer"))
                       for o in nb.cells[i].outputs)
    assert "✅ merge: passed all 99 cases." in verdicts
    assert "✅ basic_tokenizer: passed all 99 cases." in verdicts


def test_a_cheating_worksheet_gets_only_what_its_code_earns(graded):
    data, table, report = graded
    entry = by_path(data)["cheat/02_bpe_basics.ipynb"]
    scores = {e["id"]: e["score"] for e in entry["exercises"]}
    # Its cells exec code and set attributes by computed names at cell level, which could
    # define or change any answer: every exercise breaks the rule, its honest get_stats too.
    assert scores == {"get_stats": 0, "merge": 0, "encode_bytes": 0, "basic_tokenizer": 0}
    assert (entry["score"], entry["max_score"]) == (0, sum(WORKSHEETS["02_bpe_basics"].points.values()))
    assert entry["max_score"] != 400                            # points from the package
    exercises = exercises_of(entry)
    assert "setattr() with a computed name hides what the code calls" in \
        exercises["get_stats"]["message"].splitlines()[0]
    assert "expected a list" in exercises["merge"]["message"] or \
        re.search(r"\b0 of \d+ cases passed", exercises["merge"]["message"])
    assert exercises["basic_tokenizer"]["message"] == "⏳ basic_tokenizer: not attempted yet."


def test_a_cheating_worksheet_cannot_write_the_report(graded):
    data, table, report = graded
    if not SANDBOX:                    # in the sandbox it cannot even see the report's path
        assert not Path(str(report) + ".cheat-was-here").exists()
    assert data["score"] != 999 and len(data["notebooks"]) == 2 * len(WORKSHEETS) + 3


# -- broken, hanging and crashing notebooks ----------------------------------------------------------

def test_invalid_json_gets_a_clear_line_and_zero(graded):
    entry = by_path(graded[0])["broken/05_special_tokens.ipynb"]
    assert entry["error"].startswith("not a notebook: invalid JSON at line 1")
    assert (entry["score"], entry["max_score"]) == (0, 5)
    assert all(e["message"].startswith("not graded: not a notebook") for e in entry["exercises"])


def test_a_notebook_that_is_no_worksheet_is_named_as_such(graded):
    entry = by_path(graded[0])["broken/notes.ipynb"]
    assert entry["error"].startswith("not a course worksheet: it defines none of")
    assert entry["exercises"] == [] and entry["max_score"] == 0


@pytest.mark.slow
def test_a_cell_that_hangs_is_stopped_and_the_rest_is_graded(graded_slow):
    entry = by_path(graded_slow[0])["hangs/01_utf8_warmups.ipynb"]
    assert "ran longer than 3 s and was stopped" in entry["error"]
    assert entry["score"] == entry["max_score"] == sum(WORKSHEETS["01_utf8_warmups"].points.values())


@pytest.mark.slow
def test_a_function_that_hangs_on_a_hidden_case_loses_only_that_case(graded_slow):
    entry = exercises_of(by_path(graded_slow[0])["hangs/02_bpe_basics.ipynb"])
    assert 0 < entry["merge"]["score"] < 2
    total = sum(len(g.cases) for g in groups_for(CHECKERS["merge"], graded_slow[0]["seed"]))
    assert entry["merge"]["message"].startswith(f"❌ merge: {total - 1} of {total} cases passed; "
                                                "case 1 took too long.\n    merge([], (1, 2), 256)")
    assert "TimeoutError" in entry["merge"]["message"]
    assert entry["basic_tokenizer"]["score"] == 3


@pytest.mark.slow
def test_a_notebook_that_will_not_stop_gets_zero(graded_slow):
    entry = by_path(graded_slow[0])["endless/07_fast_training.ipynb"]
    assert entry["error"] == ("stopped at cell 4: the notebook's time limit of 15 s was "
                              "reached")
    assert entry["score"] == 0 and entry["max_score"] == sum(WORKSHEETS["07_fast_training"].points.values())


@pytest.mark.slow
def test_a_notebook_that_kills_its_kernel_gets_zero_and_the_others_are_graded(graded_slow):
    data, table, count = graded_slow
    entry = by_path(data)["crashes/04_regex_tokenizer.ipynb"]
    assert "the notebook's process ended during cell" in entry["error"]
    assert entry["score"] == 0 and entry["max_score"] == 4
    assert len(data["notebooks"]) == 4 + count and "crashes/04_regex_tokenizer.ipynb" in table


# -- a class of malformed notebooks -------------------------------------------------------------

def malformed(folder: Path) -> int:
    """A folder of notebooks that are broken every way we know; how many there are."""
    def cells(*sources, metadata=None):
        return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "code", "source": s, "metadata": metadata or {},
                           "outputs": [], "execution_count": None} for s in sources]}
    files = {
        "grade_id_list/02_bpe_basics.ipynb": cells("x = 1", metadata={"nbgrader": {"grade_id": []}}),
        "deep_cell/01_utf8_warmups.ipynb": cells("x = " + "-" * 200_000 + "1"),
        "metadata_list/04_regex_tokenizer.ipynb": cells("x = 1", metadata=[1, 2]),
        "nbgrader_text/05_special_tokens.ipynb": cells("x = 1", metadata={"nbgrader": "yes"}),
        "wrong_types/01_utf8_warmups.ipynb": cells("x = 1", metadata={"nbgrader": {
            "grade_id": 7, "grade": "yes", "points": "many", "solution": None}}),
        "source_int/02_bpe_basics.ipynb": {"nbformat": 4, "cells": [{"cell_type": "code",
                                                                     "source": 5}]},
        "cell_text/02_bpe_basics.ipynb": {"nbformat": 4, "cells": ["print(1)"]},
        "no_type/02_bpe_basics.ipynb": {"nbformat": 4, "cells": [{"source": "x"}]},
        "cells_dict/04_regex_tokenizer.ipynb": {"nbformat": 4, "cells": {"a": 1}},
        "format5/04_regex_tokenizer.ipynb": {"nbformat": 5, "cells": []},
        "v3_broken/04_regex_tokenizer.ipynb": {"nbformat": 3, "worksheets": "none"},
        "a_list/05_special_tokens.ipynb": [1, 2, 3],
    }
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(json.dumps(data), encoding="utf-8")
    raw = {"empty/01_utf8_warmups.ipynb": b"", "latin1/01_utf8_warmups.ipynb": b"\xe9t\xe9",
           "truncated/02_bpe_basics.ipynb": b'{"cells": [',
           "nested/02_bpe_basics.ipynb": b"[" * 100_000 + b"]" * 100_000,
           "huge_number/02_bpe_basics.ipynb": b'{"nbformat": 4, "cells": [], "x": 1' + b"0" * 5000 + b"}",
           "nul/02_bpe_basics.ipynb": b"\x00" * 100}
    for path, data in raw.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    odd = folder / "odd"
    odd.mkdir()
    os.mkfifo(odd / "02_bpe_basics.ipynb")
    (odd / "06_gpt4_tokenizer.ipynb").symlink_to("/dev/zero")
    (odd / "07_fast_training.ipynb").mkdir()
    (odd / "loop.ipynb").symlink_to("loop.ipynb")
    with open(odd / "09_tokenization_in_practice.ipynb", "wb") as f:
        f.truncate(25 * 2**20)
    with open(os.fsencode(odd) + b"/09_\xff.ipynb", "wb") as f:
        f.write(b"\xff\xfe")
    return len(files) + len(raw) + 6


def test_a_class_of_malformed_notebooks_gets_a_complete_report(graded_slow, course):
    # Every notebook that cannot be read, parsed, identified or run is that notebook's
    # one-line error; the others are graded and the report holds every one of them.
    data, table, count = graded_slow
    folder = str(course / "malformed") + os.sep
    rows = [n for n in data["notebooks"] if n["path"].startswith(folder)]
    assert len(rows) == count and len(table_lines(table, "malformed/")) == count, table
    for entry in rows:
        assert entry["error"] is None or "\n" not in entry["error"], entry
        assert entry["score"] == 0
    errors = {Path(n["path"]).parent.name + "/" + Path(n["path"]).name: n["error"]
              for n in rows}
    assert errors["odd/02_bpe_basics.ipynb"] == "refused: a FIFO, not a regular file"
    assert errors["odd/06_gpt4_tokenizer.ipynb"] == "refused: a symlink, not a regular file"
    assert errors["odd/loop.ipynb"] == "refused: a symlink, not a regular file"
    assert errors["odd/07_fast_training.ipynb"] == "refused: a folder, not a regular file"
    assert errors["odd/09_tokenization_in_practice.ipynb"].startswith("refused: 25.0 MB")
    assert errors["nested/02_bpe_basics.ipynb"] == "not a notebook: JSON the grader cannot read"
    assert errors["cell_text/02_bpe_basics.ipynb"] == "not a notebook: cell 1 is malformed"
    # Graded: no error, or one of its own cells' (a cell that failed or ran too long, or a
    # limit reached while it ran: on Python 3.12 compiling 200,000 unary minus signs takes
    # the kernel past the sandbox's 4 GiB).
    graded = {k for k, e in errors.items()
              if e is None or e.startswith(("cell ", "stopped at cell "))}
    assert {"grade_id_list/02_bpe_basics.ipynb", "deep_cell/01_utf8_warmups.ipynb",
            "metadata_list/04_regex_tokenizer.ipynb", "nbgrader_text/05_special_tokens.ipynb",
            "wrong_types/01_utf8_warmups.ipynb"} <= graded, errors


def table_lines(table: str, under: str = "") -> list[str]:
    return [line for line in table.splitlines()
            if ".ipynb" in line and not line.startswith(" ") and under in line]


# -- the parts, directly ---------------------------------------------------------------------------

def test_forged_or_garbled_answers_score_nothing_and_do_not_crash_the_grader():
    describe = {"kind": "function", "module": "__main__", "name": "merge", "course": False}
    result = score_exercise("merge", 2, {"describe": describe,
                                         "answers": [[{"tuple": 5}, {"a": 1, "b": 2}, "x"], 7]},
                            "", 1)
    assert result["score"] == 0 and "expected: []" in result["message"]
    assert score_exercise("merge", 2, None, "the kernel died", 1)["message"] == \
        "not graded: the kernel died"
    # large (800 kB of JSON, well within the answers' cap; no limit of the scoring's lies
    # between this and ten times as much, which took 11 s to read)
    deep = {"describe": describe, "answers": [[{"tuple": [[[[]]]] * 10**5}]]}
    assert score_exercise("merge", 2, deep, "", 1)["score"] == 0


def test_worksheets_are_identified_by_number_or_by_their_check_cells(tmp_path):
    nb = worksheet("solutions", "04_regex_tokenizer")
    assert identify(Path("04_regex_tokenizer-Copy1.ipynb")) == "04_regex_tokenizer"
    assert identify(Path("Copy of 04_regex_tokenizer.ipynb")) == "04_regex_tokenizer"
    assert identify(Path("alice.ipynb"), nb) == "04_regex_tokenizer"
    assert identify(Path("alice.ipynb"), new_notebook()) is None
    (tmp_path / "x.ipynb").write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_notebook(tmp_path / "x.ipynb")


# -- the worksheets' check cells --------------------------------------------------------------

def test_a_check_cell_imports_its_checker_itself():
    nb = worksheet("exercises", "02_bpe_basics")
    source = nb.cells[cell_index(nb, "merge")].source
    namespace = {"checks": None, "merge": lambda ids, pair, idx: []}       # rebound earlier
    exec(source.replace("checks.merge()", "verdict = checks.merge()"), namespace)
    assert not namespace["verdict"].passed


def test_a_checker_captures_what_the_learners_code_writes(capfd):
    import sys as _sys

    from bpe_course import checks

    def merge(ids, pair, idx):
        print("warning: slow", file=_sys.stderr)
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == tuple(pair):
                out.append(idx)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    assert checks.merge(merge).passed
    assert "warning" not in capfd.readouterr().err


def test_the_driver_limits_memory_file_size_and_processes():
    code = ("import resource\nfrom bpe_course.classroom.grading.learner_process import limit\n"
            "limit({'memory': 6 * 2**30, 'file_size': 2**30, 'processes': 300})\n"
            "print([resource.getrlimit(r)[0] for r in (resource.RLIMIT_AS, "
            "resource.RLIMIT_FSIZE, resource.RLIMIT_NPROC)])\n"
            "try:\n    open('big', 'wb').truncate(2**31)\nexcept OSError as e:\n"
            "    print(type(e).__name__)\n")
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=scratch, timeout=60)
    assert done.stdout.split("\n")[:2] == [str([6 * 2**30, 2**30, 300]), "OSError"], done


def test_the_process_limit_counts_the_sandbox_alone(monkeypatch):
    # In a sandbox the kernel counts a notebook's processes apart from every other one's: as
    # root each sandbox runs as users of its own, in a user namespace the count is the
    # namespace's. Only without either do they count with the grader's user's.
    from bpe_course.classroom.grading import bubblewrap, run_notebook
    monkeypatch.setattr(bubblewrap, "available", lambda: (True, "bubblewrap"))
    for root in (True, False):
        monkeypatch.setattr(bubblewrap, "as_root", lambda: root)
        assert run_notebook.process_limit() == run_notebook.PROCESSES + 8
    monkeypatch.setattr(run_notebook.os, "getuid", lambda: 4_000_000)      # a user with nothing
    assert run_notebook.process_limit(sandboxed=False) == run_notebook.PROCESSES  # --no-sandbox
    monkeypatch.setattr(bubblewrap, "available", lambda: (False, "no bwrap"))
    assert run_notebook.process_limit() == run_notebook.PROCESSES


def drive(exercises: list[str], lines: list[bytes], speed: dict | None = None):
    """What the grader keeps when the sandbox's driver, serving a job of `exercises`, reads
    `lines` from the learner's process (no sandbox: the driver's protocol alone)."""
    import threading

    from bpe_course.classroom.grading import inside_sandbox, run_notebook
    job = {"exercises": [{"id": e} for e in exercises], "speed": speed}
    learner_r, learner_w = os.pipe()
    to_driver_r, to_driver_w = os.pipe()
    grader_r, grader_w = os.pipe()
    drained = threading.Thread(target=lambda: os.read(learner_r, 1 << 24) and None)
    drained.start()
    reader = run_notebook.FrameReader(grader_r)
    reader.start()
    os.write(to_driver_w, b"\n".join(lines) + b"\n")
    os.close(to_driver_w)
    inside_sandbox.Driver(job, grader_w, inside_sandbox.Lines(to_driver_r), learner_w).serve()
    for fd in (grader_w, learner_w, to_driver_r):
        os.close(fd)
    reader.join()
    drained.join()
    os.close(learner_r)
    return run_notebook.read_frames(reader, job)


def test_the_driver_forwards_answers_of_the_jobs_exercises_only():
    # What the learner's process sends is data: answers for an exercise the job does not
    # hold, and lines that are not JSON, are dropped; the rest arrives as sent.
    entry = {"describe": {"kind": "function"}, "answers": []}
    answers, lines, rounds, problem = drive(
        ["merge", "basic_tokenizer"],
        [b"errors " + json.dumps(["cell 3 ran longer than 4 s"]).encode(),
         b"answers " + json.dumps({"id": "merge", "entry": dict(entry, answers=[[1]])}).encode(),
         b"answers " + json.dumps({"id": "get_stats", "entry": entry}).encode(),
         b"answers " + json.dumps({"id": "basic_tokenizer", "entry": entry}).encode(),
         b"answers {not json", b"done"])
    assert problem is None and lines == ["cell 3 ran longer than 4 s"]
    assert answers == {"merge": dict(entry, answers=[[1]]), "basic_tokenizer": entry}


def test_a_failure_of_the_driver_is_a_line_of_the_notebooks_error(monkeypatch):
    # Should the driver's own work fail (here: timing the speed check), the grader hears
    # why, the learner's process gets its empty answer instead of waiting, and the rest
    # of the notebook is graded.
    from bpe_course.classroom.grading import inside_sandbox

    def broken(self):
        raise RuntimeError("a bug in the driver")
    monkeypatch.setattr(inside_sandbox.Driver, "time_round", broken)
    entry = {"describe": {"kind": "function"}, "answers": []}
    answers, lines, rounds, problem = drive(
        ["train_bpe"], [b"speed", b"answers " + json.dumps(
            {"id": "train_bpe", "entry": entry}).encode(), b"done"])
    assert lines == ["the grader's driver failed: RuntimeError: a bug in the driver"]
    assert answers == {"train_bpe": entry} and rounds == []


def test_jobs_default_to_the_cores_left_idle(monkeypatch):
    from bpe_course.classroom.grading import command
    monkeypatch.setattr(command, "cores", lambda: 2)
    for idle, jobs in [(0.0, 1), (0.4, 1), (1.6, 2), (2.0, 2), (7.5, 2)]:
        monkeypatch.setattr(command, "_idle_cores", lambda sample, idle=idle: idle)
        assert command.free_cores() == jobs
    monkeypatch.setattr(command, "_idle_cores", lambda sample: None)    # no /proc/stat
    monkeypatch.setattr(command.os, "getloadavg", lambda: (1.2, 0, 0))
    assert command.free_cores() == 1


def test_each_sandbox_gets_users_no_process_runs_as():
    from bpe_course.classroom.grading import bubblewrap
    busy = {os.stat(f"/proc/{p}").st_uid for p in os.listdir("/proc") if p.isdigit()}
    drawn = [uid for _ in range(50) for uid in bubblewrap.sandbox_ids()]
    assert len(set(drawn)) == len(drawn) and not busy & set(drawn)
    assert all(bubblewrap.IDS[0] <= uid < bubblewrap.IDS[1] for uid in drawn)


def test_the_grader_stops_a_notebook_whose_processes_together_hold_too_much_memory(
        monkeypatch, tmp_path):
    # Each process's memory limit cannot see the sum: four processes of 64 MB each here,
    # against a limit of 160 MB for all of them together.
    from bpe_course.classroom.grading import run_notebook, watch
    monkeypatch.setattr(watch, "RESIDENT", 160 * 2**20)
    code = ("import os, time\nfor _ in range(2):\n    os.fork()\n"
            "block = bytearray(64 * 2**20)\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        errors = watch.watch(process, [tmp_path], 30, lambda: "cell 2")
    finally:
        run_notebook._kill(process)
    assert len(errors) == 1 and "held more than 0.15625 GiB of memory" in errors[0], errors


def test_usage_counts_a_process_and_everything_under_it():
    from bpe_course.classroom.grading import run_notebook, watch
    code = "import subprocess, time\nsubprocess.Popen(['sleep', '30'])\ntime.sleep(30)\n"
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        for _ in range(100):                        # until the child has started
            resident, threads = watch.sandbox_usage(process.pid)
            if threads >= 2:
                break
            time.sleep(0.05)
        assert threads >= 2 and resident > 0
    finally:
        run_notebook._kill(process)


def test_a_notebook_that_forks_without_end_stops_at_the_process_limit():
    # The kernel exempts root from RLIMIT_NPROC, so as root the child runs as a user of its
    # own (not `nobody`, whom the grader's sandboxes use: the kernel counts per user).
    prefix = []
    if os.getuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: the process limit cannot be seen")
        prefix = ["setpriv", "--reuid=64999", "--regid=64999", "--clear-groups"]
    code = ("import subprocess\nfrom bpe_course.classroom.grading import learner_process, run_notebook\n"
            "learner_process.limit({'processes': 30})\n"
            "started = []\ntry:\n    for _ in range(200):\n"
            "        started.append(subprocess.Popen(['sleep', '5']))\n"
            "except OSError:\n    pass\nprint(len(started))\n"
            "for p in started:\n    p.kill()\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as scratch:
        os.chmod(scratch, 0o777)
        probe = subprocess.run([*prefix, sys.executable, "-c", "import bpe_course.classroom"],
                               capture_output=True, text=True, cwd=scratch, timeout=120, env=env)
        if probe.returncode != 0:         # e.g. this Python's files are private to root
            pytest.skip(f"this Python cannot run the course as another user here: "
                        f"{probe.stderr.strip()[-200:]}")
        done = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True,
                              text=True, cwd=scratch, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert 0 < int(done.stdout) <= 30, done.stdout
