"""The grader against a class that tries hard: attacks score zero, honest shapes score in
full, and the report survives sabotage.

One class folder is built from the worksheets and the cells in `grading_cases/`
(one student per attack), and graded once, as an instructor would, from a folder where
someone planted `tiktoken.py` and `regex.py`. Other tests sabotage the run itself: a
FIFO at the report's path, killing the grader halfway (then `--resume`), no bubblewrap.

Attack class (issue 11)                          -> where it is checked
- wrappers around the course's code, kept refs    -> bob (merge), carol (check references)
- `__new__` returning the course's class          -> bob (BasicTokenizer)
- `super()` to the course's save/load             -> dave (save_load)
- subclass / delegation to the course's class     -> carol (RegexTokenizer)
- reading solutions/ and classmates via /proc     -> dave (02)
- patching json.dump                              -> erin (02)
- threads / detached processes after exit         -> mallory (01), test_the_report_...
- module planted in the grader's folder           -> the class run's working folder
- killing the grader from a notebook              -> mallory (04)
- forged answer data                              -> erin (01)
- FIFO at the report path                         -> test_a_fifo_or_symlink_...
- killing the grader (from outside) and resuming  -> test_killing_the_grader_...
- hard-coding the visible cases                   -> frank
- mutating the input                              -> grace
- eating memory                                   -> grace (its other cells still count)
- FIFOs where the grader reads answers back       -> heidi
- undoing the lock, reloading or exec'ing the course -> ivan
- writing outside the scratch folder              -> mallory (02), test_nothing_was_written_...
- filling memory through files (tmpfs), huge files -> judy (01); filling the disk: test_grading
- a helper of one exercise carried over to another -> niaj (07, count_pretokens)
- replacing the clock of the speed case             -> niaj (07, train_bpe)
- filling the disk through the course's private copy -> oscar (01)
- more processes than allowed (as root: none)     -> peggy (01); memory: test_grading
- the grader's environment read through /proc      -> trudy (01)
Honest shapes: alice ("Copy of", a -Copy1 blank, a renamed file, a pasted notebook
without metadata, a slow scratch cell).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from bpe_course.classroom.grading import bubblewrap
from bpe_course.classroom.worksheets import WORKSHEETS

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "grading_cases"

pytestmark = pytest.mark.skipif(not bubblewrap.available()[0],
                                reason=f"no sandbox here: {bubblewrap.available()[1]}")


SECRET = "s3cret-token-4711"          # in the grader's environment: no notebook may read it


def worksheet(folder: str, name: str):
    return nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)


def index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def cell(name: str, **fill) -> str:
    source = (CASES / f"{name}.cell").read_text(encoding="utf-8")
    for key, value in fill.items():
        source = source.replace(f"__{key}__", str(value))
    return source


def insert(nb, after: str | None, source: str):
    """Put a code cell after the cell with grade_id `after` (None: at the end)."""
    at = len(nb.cells) if after is None else index(nb, after) + 1
    nb.cells.insert(at, new_code_cell(source))
    return nb


def fill_course_copy(nb):
    """The package-copy attack, in ten cells so that no one cell reaches its time limit,
    even on a loaded machine (a cell of 25,000 files took over 4 s under load)."""
    for start in range(0, 101_000, 10_100):
        insert(nb, None, cell("package_copy_files", START=start, STOP=start + 10_100))
    return nb


def solved(nb, name: str, *grade_ids: str):
    """Copy the solution cells `grade_ids` of worksheet `name` into `nb`."""
    solution = worksheet("solutions", name)
    for grade_id in grade_ids:
        nb.cells[index(nb, grade_id)] = solution.cells[index(solution, grade_id)]
    return nb


def strip_metadata(nb):
    for c in nb.cells:
        c.metadata.pop("nbgrader", None)
    return nb


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_grader(args, cwd: Path, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_course", "grade", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=env or os.environ.copy())


def table_scores(stdout: str) -> dict:
    """{path: (score, max)} from the printed table."""
    found = {}
    for line in stdout.splitlines():
        parts = line.rsplit(None, 3)
        if len(parts) == 4 and parts[0].endswith(".ipynb") and parts[2] == "/":
            found[parts[0]] = (float(parts[1]), float(parts[3]))
    return found


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """The class folder, the grader's working folder (with planted modules) and the run."""
    base = tmp_path_factory.mktemp("attacks")
    root, cwd = base / "class", base / "instructor"
    cwd.mkdir()
    for name in ("tiktoken", "regex"):
        (cwd / f"{name}.py").write_text(f"open({str(cwd / (name + '.imported'))!r}, 'w')\n"
                                        f"raise SystemExit('planted {name} was imported')\n")
    report = cwd / "grades.json"
    ex02 = lambda: solved(worksheet("exercises", "02_bpe_basics"), "02_bpe_basics",  # noqa: E731
                          "get_stats_code")
    books = {
        "alice/Copy of 02_bpe_basics.ipynb": worksheet("solutions", "02_bpe_basics"),
        "alice/02_bpe_basics-Copy1.ipynb": worksheet("exercises", "02_bpe_basics"),
        "alice/homework.ipynb": worksheet("solutions", "01_utf8_warmups"),
        "alice/notes.ipynb": strip_metadata(worksheet("solutions", "04_regex_tokenizer")),
        "alice/05_special_tokens.ipynb": insert(worksheet("solutions", "05_special_tokens"),
                                                "imports", cell("slow_cell")),
        "bob/02_bpe_basics.ipynb": insert(insert(ex02(), "merge_code", cell("wrapper_merge")),
                                          "BasicTokenizer_code", cell("new_returns_course")),
        "carol/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"),
                                              None, cell("references_utf8")),
        "carol/04_regex_tokenizer.ipynb": insert(worksheet("solutions", "04_regex_tokenizer"),
                                                 None, cell("delegate_regex")),
        "dave/05_special_tokens.ipynb": insert(worksheet("solutions", "05_special_tokens"),
                                               None, cell("super_save_load")),
        "dave/02_bpe_basics.ipynb": insert(ex02(), "merge_code", cell("read_solutions")),
        "erin/02_bpe_basics.ipynb": insert(ex02(), "imports", cell("patch_json")),
        "erin/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"),
                                             "imports", cell("forge_answers")),
        "frank/02_bpe_basics.ipynb": insert(ex02(), "merge_code", cell("hardcoded_merge")),
        "grace/02_bpe_basics.ipynb": insert(insert(worksheet("solutions", "02_bpe_basics"),
                                                   "merge_code", cell("mutating_merge")),
                                            "imports", cell("eat_memory")),
        "ivan/02_bpe_basics.ipynb": insert(ex02(), "merge_code", cell("unlock")),
        "heidi/01_utf8_warmups.ipynb": insert(worksheet("exercises", "01_utf8_warmups"),
                                              "imports", cell("fifo_in_scratch")),
        "mallory/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"),
                                                "imports", cell("outlive", REPORT=report)),
        "mallory/02_bpe_basics.ipynb": insert(worksheet("solutions", "02_bpe_basics"),
                                              "imports", cell("write_outside", CLASS=root,
                                                              CWD=cwd)),
        "judy/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"),
                                             None, cell("fill_memory")),
        "mallory/04_regex_tokenizer.ipynb": insert(worksheet("solutions", "04_regex_tokenizer"),
                                                   "imports", cell("kill_grader")),
        "niaj/07_fast_training.ipynb": insert(insert(worksheet("solutions", "07_fast_training"),
                                                     "count_pretokens_code",
                                                     cell("smuggle_helpers")),
                                              "train_bpe_code", cell("fake_clock")),
        "oscar/01_utf8_warmups.ipynb": fill_course_copy(worksheet("solutions", "01_utf8_warmups")),
        "peggy/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"), None,
                                              cell("many_processes")),
        "trudy/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"), None,
                                              cell("leak_env")),
    }
    for path, nb in books.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, root / path)
    before = snapshot(root)
    done = run_grader([root, "--json", report, "--jobs", "2", "--cell-timeout", "4",
                       "--timeout", "120"], cwd, env=dict(os.environ, BPE_TEST_SECRET=SECRET))
    assert done.returncode == 0, done.stderr
    on_exit = report.read_text(encoding="utf-8")
    (base / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    time.sleep(5)                     # anything that outlived the run would strike by now
    return {"root": root, "cwd": cwd, "report": report, "done": done, "on_exit": on_exit,
            "before": before, "data": json.loads(report.read_text(encoding="utf-8"))}


def entry(klass, path: str) -> dict:
    return next(n for n in klass["data"]["notebooks"]
                if n["path"] == str(klass["root"] / path))


def scores(klass, path: str) -> dict:
    return {e["id"]: e["score"] for e in entry(klass, path)["exercises"]}


def full(worksheet: str) -> int:
    """A worksheet's full marks, as the grader counts them."""
    return sum(WORKSHEETS[worksheet].points.values())


def only(klass, path: str, worksheet: str, **expected) -> None:
    """The notebook's exercises score as `expected`, and every other exercise of it zero."""
    assert scores(klass, path) == {e: expected.get(e, 0) for e in WORKSHEETS[worksheet].points}


def message(klass, path: str, exercise: str) -> str:
    return next(e["message"] for e in entry(klass, path)["exercises"] if e["id"] == exercise)


# -- honest shapes are graded in full --------------------------------------------------------------

def test_honest_shapes_are_graded_in_full(klass):
    assert entry(klass, "alice/Copy of 02_bpe_basics.ipynb")["score"] == full("02_bpe_basics")
    assert entry(klass, "alice/homework.ipynb")["score"] == full("01_utf8_warmups")
    notes = entry(klass, "alice/notes.ipynb")                  # pasted, no metadata
    assert (notes["worksheet"], notes["score"], notes["max_score"]) == ("04_regex_tokenizer", 4, 4)
    slow = entry(klass, "alice/05_special_tokens.ipynb")
    assert slow["score"] == 5 and "ran longer than 4 s and was stopped" in slow["error"]


def test_a_student_total_counts_the_best_notebook_of_each_worksheet(klass):
    alice = next(s for s in klass["data"]["students"] if s["student"] == "alice")
    total = sum(full(w) for w in ("02_bpe_basics", "01_utf8_warmups", "04_regex_tokenizer",
                                  "05_special_tokens"))
    assert alice["score"] == total and alice["max_score"] == total
    assert alice["other_notebooks"] == [str(klass["root"] / "alice/02_bpe_basics-Copy1.ipynb")]
    rows = list(csv.DictReader(klass["report"].with_suffix(".csv").open(encoding="utf-8")))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol", "dave", "erin", "frank",
                                            "grace", "heidi", "ivan", "judy", "mallory", "niaj",
                                            "oscar", "peggy", "trudy"]
    assert rows[0]["02_bpe_basics"] == str(full("02_bpe_basics"))
    assert rows[0]["total"] == str(total)


# -- attacks score zero --------------------------------------------------------------------------

def test_wrappers_and_the_new_trick_score_zero(klass):
    only(klass, "bob/02_bpe_basics.ipynb", "02_bpe_basics", get_stats=1)
    assert "bpe_course.pairs.merge is off limits" in message(klass, "bob/02_bpe_basics.ipynb",
                                                             "merge")


def test_calling_the_references_or_delegating_to_the_course_scores_zero(klass):
    only(klass, "carol/01_utf8_warmups.ipynb", "01_utf8_warmups", safe_decode=1,
         encode_code_point=WORKSHEETS["01_utf8_warmups"].points["encode_code_point"])  # its own
    assert "references.utf8_list is off limits" in message(
        klass, "carol/01_utf8_warmups.ipynb", "utf8_bytes")
    only(klass, "carol/04_regex_tokenizer.ipynb", "04_regex_tokenizer")


def test_super_to_the_course_save_and_load_scores_zero(klass):
    only(klass, "dave/05_special_tokens.ipynb", "05_special_tokens", split_special=1,
         special_tokens=2)
    assert "off limits" in message(klass, "dave/05_special_tokens.ipynb", "save_load")


def test_solutions_and_classmates_are_out_of_sight(klass):
    assert scores(klass, "dave/02_bpe_basics.ipynb")["merge"] == 0
    assert "not attempted" in message(klass, "dave/02_bpe_basics.ipynb", "merge")


def test_patching_json_changes_nothing(klass):
    only(klass, "erin/02_bpe_basics.ipynb", "02_bpe_basics", get_stats=1)


def test_forged_answer_files_do_not_crash_the_grader(klass):
    erin = entry(klass, "erin/01_utf8_warmups.ipynb")
    assert erin["score"] in (0, full("01_utf8_warmups"))              # its own answers, or none if forged over
    if erin["score"] == 0:
        assert erin["error"] and "\n" not in erin["error"]


def test_hard_coding_what_the_worksheet_shows_earns_at_most_a_fifth(klass):
    frank = scores(klass, "frank/02_bpe_basics.ipynb")
    assert 0 < frank["merge"] <= 0.2 * 2 and frank["get_stats"] == 1


def test_a_merge_that_changes_its_input_fails_the_cases_that_check_it(klass):
    merge = scores(klass, "grace/02_bpe_basics.ipynb")["merge"]
    assert 0 < merge < 2
    assert "leave `ids` as it was" in message(klass, "grace/02_bpe_basics.ipynb", "merge")


def test_files_cannot_fill_memory_and_one_file_cannot_grow_past_the_limit(klass):
    judy = entry(klass, "judy/01_utf8_warmups.ipynb")    # the cell takes utf8_bytes if not
    assert (judy["score"], judy["error"]) == (full("01_utf8_warmups"), None), judy


def test_fifos_in_the_scratch_folder_do_not_block_the_grader(klass):
    heidi = entry(klass, "heidi/01_utf8_warmups.ipynb")
    assert heidi["score"] == 0 and "\n" not in (heidi["error"] or "")     # and the run ended


def test_undoing_the_lock_or_loading_the_course_afresh_fails(klass):
    only(klass, "ivan/02_bpe_basics.ipynb", "02_bpe_basics", get_stats=1)


def test_killing_from_inside_the_sandbox_reaches_nothing(klass):
    assert entry(klass, "mallory/04_regex_tokenizer.ipynb")["score"] == 4
    assert len(klass["data"]["notebooks"]) == 24


def test_a_helper_of_one_exercise_cannot_be_carried_over_to_another(klass):
    # Each group of exercises with the same helpers runs the notebook afresh, locked to those
    # helpers from its first cell: pretokenize is never live where count_pretokens is checked.
    only(klass, "niaj/07_fast_training.ipynb", "07_fast_training", merge_words=2,
         train_bpe=scores(klass, "niaj/07_fast_training.ipynb")["train_bpe"])
    assert "off limits" in message(klass, "niaj/07_fast_training.ipynb", "count_pretokens")


def test_replacing_the_clock_does_not_pass_the_speed_case(klass):
    train = scores(klass, "niaj/07_fast_training.ipynb")["train_bpe"]
    assert 0 < train < WORKSHEETS["07_fast_training"].points["train_bpe"]   # correct, but slow
    assert "distinct pre-token" in message(klass, "niaj/07_fast_training.ipynb", "train_bpe")


def test_filling_the_disk_through_the_course_copy_is_stopped(klass):
    # Stopped within half a second of passing the limit (what was graded by then counts).
    oscar = entry(klass, "oscar/01_utf8_warmups.ipynb")
    assert "stopped at" in oscar["error"] and "100,000 files" in oscar["error"], oscar
    assert oscar["score"] < full("01_utf8_warmups")


def test_more_processes_than_allowed_cannot_be_started(klass):
    peggy = entry(klass, "peggy/01_utf8_warmups.ipynb")
    stopped = "threads" in (peggy["error"] or "")
    assert stopped or scores(klass, "peggy/01_utf8_warmups.ipynb")["utf8_bytes"] == 1, peggy


def test_the_graders_environment_stays_out_of_the_sandbox(klass):
    assert entry(klass, "trudy/01_utf8_warmups.ipynb")["score"] == full("01_utf8_warmups")
    assert SECRET not in klass["on_exit"] and SECRET not in klass["done"].stdout


# -- the report survives ------------------------------------------------------------------------------

def test_the_report_on_disk_equals_the_printed_table_after_exit(klass):
    assert klass["report"].read_text(encoding="utf-8") == klass["on_exit"]
    printed = table_scores(klass["done"].stdout)
    on_disk = {n["path"]: (n["score"], n["max_score"]) for n in klass["data"]["notebooks"]}
    assert printed == on_disk and len(printed) == 24, klass["done"].stdout
    assert not Path(str(klass["report"]) + ".outlived").exists()
    assert klass["data"]["sandbox"].startswith("bubblewrap"), klass["data"]["sandbox"]
    assert isinstance(klass["data"]["seed"], int)


def test_nothing_was_written_outside_the_scratch_folders(klass):
    root, cwd = klass["root"], klass["cwd"]
    assert snapshot(root) == klass["before"]
    assert sorted(p.name for p in cwd.iterdir()) == ["grades.csv", "grades.json", "regex.py",
                                                     "tiktoken.py"]
    for path in [root.parent / "pwned.txt", Path("/tmp/bpe-course-pwned.txt"),
                 Path("/pwned.txt"), bubblewrap.package_dir() / "pwned.py"]:
        assert not path.exists(), path


def test_modules_planted_in_the_graders_folder_are_never_imported(klass):
    assert not (klass["cwd"] / "tiktoken.imported").exists()
    assert not (klass["cwd"] / "regex.imported").exists()


# -- sabotage of the run itself ------------------------------------------------------------------

def test_a_fifo_or_symlink_at_the_report_path_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "grades.json")
    done = run_grader([ROOT / "exercises" / "01_utf8_warmups.ipynb", "--json",
                       tmp_path / "grades.json"], tmp_path, timeout=60)
    assert done.returncode == 2 and "is a FIFO: refusing to write the report" in done.stderr
    (tmp_path / "other.json").symlink_to(tmp_path / "target.json")
    done = run_grader([ROOT / "exercises" / "01_utf8_warmups.ipynb", "--json",
                       tmp_path / "other.json"], tmp_path, timeout=60)
    assert done.returncode == 2 and "is a symlink" in done.stderr
    assert not (tmp_path / "target.json").exists()


@pytest.mark.slow
def test_killing_the_grader_keeps_the_report_and_resume_finishes_it(tmp_path):
    folder = tmp_path / "class" / "zoe"
    folder.mkdir(parents=True)
    for name in ("01_utf8_warmups", "02_bpe_basics", "04_regex_tokenizer"):
        nbformat.write(worksheet("exercises", name), folder / f"{name}.ipynb")
    report = tmp_path / "grades.json"
    env = dict(os.environ, TMPDIR=str(tmp_path))
    args = [sys.executable, "-m", "bpe_course", "grade", str(tmp_path / "class"),
            "--json", str(report), "--jobs", "1"]
    grader = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if json.loads(report.read_text(encoding="utf-8"))["notebooks"]:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    os.kill(grader.pid, signal.SIGKILL)
    grader.wait()
    data = json.loads(report.read_text(encoding="utf-8"))        # whole, never half-written
    assert 1 <= len(data["notebooks"]) <= 3
    def survivors() -> list[bytes]:          # sandboxes still running (zombies have no cmdline)
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if str(tmp_path).encode() in command:
                found.append(command)
        return found
    deadline = time.monotonic() + 30
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert survivors() == []
    done = subprocess.run(args + ["--resume"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"({len(data['notebooks'])} kept from the report)" in done.stdout
    final = json.loads(report.read_text(encoding="utf-8"))
    assert len(final["notebooks"]) == 3 and final["seed"] == data["seed"]


def test_without_bubblewrap_the_grader_refuses_unless_told(tmp_path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))   # no bwrap on it
    nb = ROOT / "exercises" / "01_utf8_warmups.ipynb"
    done = run_grader([nb, "--json", tmp_path / "g.json"], tmp_path, env=env, timeout=120)
    assert done.returncode == 2 and "bubblewrap (bwrap) is not installed" in done.stderr
    done = run_grader([nb, "--json", tmp_path / "g.json", "--no-sandbox"], tmp_path, env=env,
                      timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "g.json").read_text())["sandbox"].startswith("none")
