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
- undoing a lock, reloading or exec'ing the course -> ivan (hiding what it calls)
- writing outside the scratch folder              -> mallory (02), test_nothing_was_written_...
- filling memory through files (tmpfs), huge files -> judy (01); filling the disk: test_grading
- changing the course's data (what the driver reads) -> judy (01)
- a helper of one exercise carried over to another -> niaj (07, count_pretokens: hidden)
- replacing the clock of the speed case             -> niaj (07, train_bpe)
- filling the disk through the course's private copy -> oscar (01)
- more processes than allowed (as root: none)     -> peggy (01); memory: test_grading
- the grader's environment read through /proc      -> trudy (01)
Issue 27: files that are not what they seem, one notebook that stops everyone, sandboxes
that share a limit
- a symlink to a solution, to a classmate; a hard link -> sybil (02, 01, 04): refused
- a FIFO, a link to /dev/zero, a folder, 300 MB      -> sybil (05, 06, 08, 07): refused
- a linked folder                                   -> sybil/linked: not followed
- lone surrogates, escape sequences (message, type
  name, file name), a non-UTF-8 file name           -> ursula, victor: report and table hold
- a per-user process limit shared by sandboxes      -> kim holds 250 processes; kim and leo
                                                       report their users: their own
- the kernel keyring shared between sandboxes       -> kim writes an answer there, leo reads
- packages outside the course's environment         -> nora (01)
- the speed case: naive trainer, clocks, memoizing,
  the driver's objects                              -> niaj (07): a separate check, failed
- nbgrader's check cells patched                    -> yara (02): zero here (under nbgrader:
                                                       test_nbgrader)
- KeyboardInterrupt, GeneratorExit, os._exit in one
  checked function                                  -> walter (02): that exercise alone
- gigabytes printed                                 -> xena (01): cut, not held
Issue 33: limits the kernel sets, answers read as data, no case in reach, speed in CPU time
(each in a test file of its own, on one notebook)
- memfd, SysV shared memory, tmpfs: 5 GiB held    -> test_kernel_limits: OOM-killed by the
                                                     sandbox's cgroup, one-line error
- more processes than the cgroup allows           -> peggy here; test_kernel_limits
- the job (every case's code) read from /job, an
  inherited descriptor or the process's memory    -> test_kernel_limits (job_file)
- the status file swapped for a FIFO              -> nothing to swap: read by descriptor
- keys that all collide in Python's hash           -> test_answers_as_data: refused in n log n
- a case carried out in an error or a message     -> test_hidden_cases
- a threaded trainer timed in wall time           -> test_kernel_limits: CPU of the cgroup
- container mode outside a container; network     -> test_container_mode
Issue 33: rules read from the source, answers not shipped, earlier releases
- the course's trainer unwrapped, helpers patched in -> quentin (07): train_bpe zero
- UTF-8 "by hand" left to Python (bytes(), .encode(),
  codecs, bytearray; a computed getattr)            -> rita (01): capped, or zero if hidden
- a helper the worksheet names, used at cell level  -> sam (09): full marks
- old module names; a module no release has now     -> tess (06, 11: graded; 02: refused)
- a relative interpreter path                       -> test_a_relative_interpreter_path_...
Honest shapes: alice ("Copy of", a -Copy1 blank, a renamed file, a pasted notebook
without metadata, a slow scratch cell), beth (Colab, VS Code, nbformat 3, a byte-order
mark).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from bpe_course.classroom.grading import bubblewrap, kernel_limits, run_notebook
from bpe_course.classroom.grading.moved_modules import MOVED
from bpe_course.classroom.grading.report import printable
from bpe_course.classroom.worksheets import WORKSHEETS

ROOT = Path(__file__).resolve().parents[3]
CASES = Path(__file__).resolve().parent / "grading_cases"

pytestmark = pytest.mark.skipif(not bubblewrap.available()[0],
                                reason=f"no sandbox here: {bubblewrap.available()[1]}")


# UTF-8 "by hand" left to Python, each as a notebook of rita's (see `not_by_hand.cell`).
NOT_BY_HAND = {"bytes": 'bytes(chr(cp), "utf-8")', "encode": "chr(cp).encode()",
               "codecs": 'codecs.encode(chr(cp), "utf-8")',
               "bytearray": 'memoryview(bytearray(chr(cp), "utf-8"))',
               "getattr": 'getattr(chr(cp), "en" + "code")()'}

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
    """The package-copy attack, in fifty cells so that no one cell reaches its time limit
    (sixteen cells of 6,313 files did once, at a load average of 8, in a 4 s limit)."""
    for start in range(0, 101_000, 2_020):
        insert(nb, None, cell("package_copy_files", START=start,
                              STOP=min(start + 2_020, 101_000)))
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
    """What the folder holds, without following a link or reading a FIFO or a huge file."""
    found = {}
    for top, dirs, files in os.walk(folder):
        for name in files + dirs:
            path = Path(top) / name
            info = os.lstat(path)
            if os.path.islink(path):
                found[str(path.relative_to(folder))] = "-> " + os.readlink(path)
            elif path.is_file() and info.st_size < 2**20:
                found[str(path.relative_to(folder))] = hashlib.sha256(
                    path.read_bytes()).hexdigest()
            else:
                found[str(path.relative_to(folder))] = (info.st_mode, info.st_size)
    return found


# -- shapes in which honest work arrives -----------------------------------------------------------

def colab(nb):
    """As Colab saves a notebook: format 4.0, ids and Colab's keys in the metadata, no
    nbgrader metadata (Colab keeps only what it knows)."""
    data = json.loads(nbformat.writes(nb))
    data["nbformat_minor"] = 0
    data["metadata"] = {"colab": {"provenance": [], "name": "Untitled0.ipynb"},
                        "kernelspec": {"name": "python3", "display_name": "Python 3"},
                        "language_info": {"name": "python"}}
    for k, c in enumerate(data["cells"]):
        c.pop("id", None)
        c["metadata"] = {"id": f"c{k:08x}", **({"colab": {"base_uri": "https://localhost:8080/"},
                                                "outputId": f"o{k:08x}"}
                                               if c["cell_type"] == "code" else {})}
    return json.dumps(data, indent=2)


def vscode(nb):
    """As VS Code saves a notebook on Windows: CRLF line ends, its own metadata beside
    nbgrader's, one-line sources as a single string."""
    data = json.loads(nbformat.writes(nb))
    data["metadata"]["vscode"] = {"interpreter": {"hash": "0" * 64}}
    for c in data["cells"]:
        c["metadata"]["vscode"] = {"languageId": "python"}
        if isinstance(c["source"], list) and len(c["source"]) == 1:
            c["source"] = c["source"][0]
    return json.dumps(data, indent=1).replace("\n", "\r\n")


def old_format(nb):
    """nbformat 3: cells in worksheets, a code cell's source in `input`."""
    return nbformat.writes(nbformat.convert(nb, 3), version=3)


def with_bom(nb):
    return "\ufeff" + nbformat.writes(nb)


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


def refused(base: Path, root: Path) -> None:
    """sybil's files, none of them a notebook of hers: links to the instructor's solutions
    (beside the class folder, as the README's layout has it) and to a classmate's, a hard
    link, a FIFO, a link to /dev/zero, a 300 MB file, a folder, a linked folder."""
    solutions = base / "solutions"
    solutions.mkdir()
    for name in ("02_bpe_basics", "04_regex_tokenizer"):
        shutil.copy(ROOT / "solutions" / f"{name}.ipynb", solutions)
    sybil = root / "sybil"
    sybil.mkdir()
    (sybil / "02_bpe_basics.ipynb").symlink_to("../../solutions/02_bpe_basics.ipynb")
    (sybil / "01_utf8_warmups.ipynb").symlink_to("../alice/homework.ipynb")
    os.link(solutions / "04_regex_tokenizer.ipynb", sybil / "04_regex_tokenizer.ipynb")
    os.mkfifo(sybil / "05_special_tokens.ipynb")
    (sybil / "06_gpt4_tokenizer.ipynb").symlink_to("/dev/zero")
    with open(sybil / "07_fast_training.ipynb", "wb") as f:
        f.truncate(300 * 2**20)                             # sparse: no disk used
    (sybil / "09_tokenization_in_practice.ipynb").mkdir()
    (sybil / "linked").symlink_to(solutions)


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
        "carol/07_fast_training.ipynb": worksheet("solutions", "07_fast_training"),
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
        "judy/01_utf8_warmups.ipynb": insert(insert(worksheet("solutions", "01_utf8_warmups"),
                                                    None, cell("fill_memory")),
                                             None, cell("tamper_data")),
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
        "beth/01_utf8_warmups.ipynb": colab(worksheet("solutions", "01_utf8_warmups")),
        "beth/02_bpe_basics.ipynb": vscode(worksheet("solutions", "02_bpe_basics")),
        "beth/09_tokenization_in_practice.ipynb": old_format(
            worksheet("solutions", "09_tokenization_in_practice")),
        "beth/11_sentencepiece.ipynb": with_bom(worksheet("solutions", "11_sentencepiece")),
        "kim/01_utf8_warmups.ipynb": insert(insert(worksheet("solutions", "01_utf8_warmups"),
                                                   None, cell("keyring_write")),
                                            None, cell("hold_processes")),
        "leo/01_utf8_warmups.ipynb": insert(insert(worksheet("exercises", "01_utf8_warmups"),
                                                   None, cell("keyring_read")),
                                            None, cell("whoami")),
        "nora/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"), None,
                                             cell("foreign_packages")),
        "ursula/01_\x1b]0;pwned\x07\x1b[2K.ipynb": insert(
            worksheet("exercises", "01_utf8_warmups"), None, cell("hostile_strings")),
        "walter/02_bpe_basics.ipynb": insert(worksheet("solutions", "02_bpe_basics"), None,
                                             cell("interrupted")),
        "xena/01_utf8_warmups.ipynb": insert(worksheet("solutions", "01_utf8_warmups"), None,
                                             cell("print_gigabytes")),
        "yara/02_bpe_basics.ipynb": insert(worksheet("exercises", "02_bpe_basics"), "imports",
                                           cell("patch_checks")),
    }
    insert(books["niaj/07_fast_training.ipynb"], "train_bpe_code", cell("fake_speed"))
    books["quentin/07_fast_training.ipynb"] = insert(
        worksheet("solutions", "07_fast_training"), "train_bpe_code", cell("unwrapped_trainer"))
    for kind, body in NOT_BY_HAND.items():
        books[f"rita/01_utf8_warmups-{kind}.ipynb"] = insert(
            worksheet("solutions", "01_utf8_warmups"), "encode_code_point_code",
            cell("not_by_hand", BODY=body))
    sam = worksheet("solutions", "09_tokenization_in_practice")
    sam.cells[index(sam, "tokens_per_byte_code")].source = cell("tokens_per_byte_from_table")
    books["sam/09_tokenization_in_practice.ipynb"] = insert(sam, "imports",
                                                            cell("cell_level_helper"))
    for name, old in (("06_gpt4_tokenizer", "bpe_course.encodings"),
                      ("11_sentencepiece", "bpe_course.spm_model"),
                      ("02_bpe_basics", None)):
        nb = worksheet("solutions", name)
        nb.metadata["bpe_course"] = {"release": "0.0.9", "worksheet": name}
        imports = nb.cells[index(nb, "imports")]
        assert old is None or MOVED[old] in imports.source
        imports.source = (imports.source.replace(MOVED[old], old) if old else
                          imports.source + "\n" + cell("vanished_module"))
        books[f"tess/{name}.ipynb"] = nb
    for path, nb in books.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(nb, str):
            (root / path).write_text(nb, encoding="utf-8")
        else:
            nbformat.write(nb, root / path)
    (root / "victor").mkdir()                               # a name that is not UTF-8
    with open(os.fsencode(root / "victor") + b"/01_\xff\xfe.ipynb", "wb") as f:
        f.write((ROOT / "solutions" / "01_utf8_warmups.ipynb").read_bytes())
    refused(base, root)
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


@pytest.mark.parametrize("name", ["01_utf8_warmups", "02_bpe_basics",        # Colab, VS Code,
                                  "09_tokenization_in_practice",              # nbformat 3,
                                  "11_sentencepiece"])                        # a byte-order mark
def test_notebooks_saved_by_other_tools_are_graded_in_full(klass, name):
    found = entry(klass, f"beth/{name}.ipynb")
    assert (found["worksheet"], found["score"], found["error"]) == (name, full(name), None)


def test_a_student_total_counts_the_best_notebook_of_each_worksheet(klass):
    alice = next(s for s in klass["data"]["students"] if s["student"] == "alice")
    total = sum(full(w) for w in ("02_bpe_basics", "01_utf8_warmups", "04_regex_tokenizer",
                                  "05_special_tokens"))
    assert alice["score"] == total and alice["max_score"] == total
    assert alice["other_notebooks"] == [str(klass["root"] / "alice/02_bpe_basics-Copy1.ipynb")]
    rows = list(csv.DictReader(klass["report"].with_suffix(".csv").open(encoding="utf-8")))
    assert [r["student"] for r in rows] == ["alice", "beth", "bob", "carol", "dave", "erin",
                                            "frank", "grace", "heidi", "ivan", "judy", "kim",
                                            "leo", "mallory", "niaj", "nora", "oscar", "peggy",
                                            "quentin", "rita", "sam", "sybil", "tess", "trudy",
                                            "ursula", "victor", "walter", "xena", "yara"]
    assert rows[0]["02_bpe_basics"] == str(full("02_bpe_basics"))
    assert rows[0]["total"] == str(total)


# -- attacks score zero --------------------------------------------------------------------------

def test_wrappers_and_the_new_trick_score_zero(klass):
    only(klass, "bob/02_bpe_basics.ipynb", "02_bpe_basics", get_stats=1)
    assert "calls the course's bpe_course.pairs.merge, which this exercise asks you to write " \
           "yourself" in message(klass, "bob/02_bpe_basics.ipynb", "merge").splitlines()[0]
    assert "bpe_course.basic.BasicTokenizer" in message(klass, "bob/02_bpe_basics.ipynb",
                                                        "basic_tokenizer")


def test_calling_the_references_or_delegating_to_the_course_scores_zero(klass):
    only(klass, "carol/01_utf8_warmups.ipynb", "01_utf8_warmups", safe_decode=1,
         encode_code_point=WORKSHEETS["01_utf8_warmups"].points["encode_code_point"])  # its own
    assert "calls the course's bpe_course.classroom.checking.references.utf8_list" in message(
        klass, "carol/01_utf8_warmups.ipynb", "utf8_bytes")
    only(klass, "carol/04_regex_tokenizer.ipynb", "04_regex_tokenizer")


def test_super_to_the_course_save_and_load_scores_zero(klass):
    only(klass, "dave/05_special_tokens.ipynb", "05_special_tokens", split_special=1,
         special_tokens=2)
    assert "calls the course's bpe_course.base.Tokenizer.save" in message(
        klass, "dave/05_special_tokens.ipynb", "save_load")


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


def test_undoing_a_lock_or_loading_the_course_afresh_hides_what_is_called(klass):
    # exec, sys.modules and importlib at cell level could define or change any answer:
    # every exercise breaks the rule, get_stats (solved honestly) too.
    only(klass, "ivan/02_bpe_basics.ipynb", "02_bpe_basics")
    assert "hides what the code calls" in message(klass, "ivan/02_bpe_basics.ipynb", "get_stats")


NOTEBOOKS = 54                      # every notebook of the class, refused ones included


def test_killing_from_inside_the_sandbox_reaches_nothing(klass):
    assert entry(klass, "mallory/04_regex_tokenizer.ipynb")["score"] == 4
    assert len(klass["data"]["notebooks"]) == NOTEBOOKS


def test_a_helper_of_one_exercise_cannot_be_carried_over_to_another(klass):
    # The copy of pretokenize's code is made through sys.modules and types.FunctionType, in
    # a function count_pretokens uses: that hides what it calls. (niaj's speed attack, at
    # cell level, costs every exercise besides.)
    only(klass, "niaj/07_fast_training.ipynb", "07_fast_training")
    assert "sys.modules hides what the code calls" in message(
        klass, "niaj/07_fast_training.ipynb", "count_pretokens").splitlines()[0]


def test_no_clock_or_memo_in_reach_passes_the_speed_requirement(klass):
    # The naive loop, memoized, with every clock in its process stopped and every timing the
    # driver's objects might hold raised: its answers are right, but the speed check is
    # timed by the driver on texts it has never seen, and failing it halves the points.
    # (Its cells also hide what they call, so its points are zero by that rule first.)
    niaj = entry(klass, "niaj/07_fast_training.ipynb")
    assert scores(klass, "niaj/07_fast_training.ipynb")["train_bpe"] == 0
    assert "failed its speed check" in message(klass, "niaj/07_fast_training.ipynb",
                                               "train_bpe")
    speed = niaj["speed"]
    assert not speed["passed"] and speed["timed"] and (speed["times_faster"] or 0) < 3, speed
    assert speed["message"].startswith("❌ train_bpe speed:"), speed
    assert "(speed check)" in klass["done"].stdout


def test_the_solution_passes_the_speed_requirement(klass):
    # CPU time on both sides, so a busy machine slows neither: the worked solution trains
    # about 20 times faster than the naive loop, twice what is asked.
    speed = entry(klass, "carol/07_fast_training.ipynb")["speed"]
    assert speed["passed"] and speed["times_faster"] >= 10, speed


def test_the_course_copy_cannot_be_written(klass):
    # The sandbox's copy of the course is read-only: no file lands there, and the notebook's
    # own answers are graded in full.
    oscar = entry(klass, "oscar/01_utf8_warmups.ipynb")
    assert (oscar["score"], oscar["error"]) == (full("01_utf8_warmups"), None), oscar


# -- issue 33: rules read from the source, answers not shipped, earlier releases ---------------

def test_the_unwrapped_trainer_with_patched_helpers_scores_zero(klass):
    path = "quentin/07_fast_training.ipynb"
    only(klass, path, "07_fast_training", count_pretokens=1, merge_words=2)
    first = message(klass, path, "train_bpe").splitlines()[0]
    assert first.startswith("❌ train_bpe: cell ") and "bpe_course.training.trainer." in first


@pytest.mark.parametrize("kind", sorted(NOT_BY_HAND))
def test_utf8_left_to_python_is_not_by_hand(klass, kind):
    path = f"rita/01_utf8_warmups-{kind}.ipynb"
    points = WORKSHEETS["01_utf8_warmups"].points
    hidden = kind == "getattr"
    expected = 0 if hidden else round(points["encode_code_point"] * 0.6, 2)   # "contract"
    only(klass, path, "01_utf8_warmups", encode_code_point=expected,
         **{e: p for e, p in points.items() if e != "encode_code_point"})
    first = message(klass, path, "encode_code_point").splitlines()[0]
    assert ("hides what the code calls" if hidden else "not by hand: it uses") in first
    assert re.match(r"❌ encode_code_point: cell \d+, line 10: ", first), first


def test_a_helper_the_worksheet_names_works_at_cell_level(klass):
    # Worksheet 09 names get_encoding: a table built with it at cell level, used by
    # tokens_per_byte in a later cell, is graded in full (the lock of old gave 0 of 1).
    sam = entry(klass, "sam/09_tokenization_in_practice.ipynb")
    assert (sam["score"], sam["error"]) == (full("09_tokenization_in_practice"), None), sam


def test_a_worksheet_from_an_earlier_release_is_graded_as_written_or_refused_in_one_line(klass):
    for name in ("06_gpt4_tokenizer", "11_sentencepiece"):           # modules since moved
        found = entry(klass, f"tess/{name}.ipynb")
        assert (found["score"], found["error"]) == (full(name), None), found
    refused = entry(klass, "tess/02_bpe_basics.ipynb")           # a module no release has
    assert refused["score"] == 0 and "\n" not in refused["error"]
    assert refused["error"].startswith("written for bpe-course 0.0.9, which had "
                                       "bpe_course.vanished;"), refused["error"]
    assert "pip install 'bpe-course==0.0.9', then python -m bpe_course grade" in refused["error"]


def test_a_relative_interpreter_path_grades_as_an_absolute_one_does(tmp_path):
    # bwrap execs the interpreter inside the sandbox, where a path through `..` climbs out
    # of folders that are not mounted: the grader resolves its folder first
    # (`bubblewrap.interpreter`; test_course_copy checks the command line itself). Here an
    # editable install's path hook, which names the working folder, happens to make that
    # folder exist in the sandbox too; an installed wheel has none.
    (tmp_path / "class").mkdir()
    shutil.copy(ROOT / "solutions" / "02_bpe_basics.ipynb", tmp_path / "class")
    (tmp_path / "here").mkdir()
    relative = os.path.relpath(sys.executable, tmp_path / "here")
    assert relative.startswith("..")
    done = subprocess.run([relative, "-m", "bpe_course", "grade", "../class", "--json",
                           "grades.json", "--jobs", "1"], cwd=tmp_path / "here",
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "here" / "grades.json").read_text(encoding="utf-8"))
    assert (report["score"], report["notebooks"][0]["error"]) == (full("02_bpe_basics"), None)


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
    on_disk = {printable(n["path"]): (n["score"], n["max_score"])
               for n in klass["data"]["notebooks"]}
    assert printed == on_disk and len(printed) == NOTEBOOKS, klass["done"].stdout
    assert not Path(str(klass["report"]) + ".outlived").exists()
    assert klass["data"]["sandbox"].startswith("bubblewrap"), klass["data"]["sandbox"]
    assert isinstance(klass["data"]["seed"], int)


def test_nothing_was_written_outside_the_scratch_folders(klass):
    root, cwd = klass["root"], klass["cwd"]
    assert snapshot(root) == klass["before"]
    assert sorted(p.name for p in cwd.iterdir()) == ["grades.csv", "grades.html", "grades.json",
                                                     "regex.py", "tiktoken.py"]
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


# -- issue 27: files that are not what they seem ---------------------------------------------------

@pytest.mark.parametrize("name, reason", [
    ("02_bpe_basics", "refused: a symlink"),                 # to the instructor's solution
    ("01_utf8_warmups", "refused: a symlink"),               # to a classmate's notebook
    ("04_regex_tokenizer", "refused: a hard link to a file outside the submission folder"),
    ("05_special_tokens", "refused: a FIFO"),
    ("06_gpt4_tokenizer", "refused: a symlink"),             # to /dev/zero
    ("07_fast_training", "refused: 300.0 MB, larger than the 20 MB"),
    ("09_tokenization_in_practice", "refused: a folder")])
def test_what_is_not_a_regular_file_of_the_folder_is_refused(klass, name, reason):
    found = entry(klass, f"sybil/{name}.ipynb")
    assert found["error"].startswith(reason) and "\n" not in found["error"], found
    assert found["score"] == 0 and found["worksheet"] == name


def test_a_linked_folder_is_not_followed(klass):
    assert not [n for n in klass["data"]["notebooks"] if "/sybil/linked/" in n["path"]]
    sybil = next(s for s in klass["data"]["students"] if s["student"] == "sybil")
    assert sybil["score"] == 0


# -- issue 27: the report and the terminal survive any string ----------------------------------

def test_lone_surrogates_and_escape_sequences_reach_neither_report_nor_terminal(klass):
    ursula = entry(klass, "ursula/01_\x1b]0;pwned\x07\x1b[2K.ipynb")
    assert ursula["score"] == 0
    assert "\ud800" in message(klass, ursula["path"].split("/class/")[1], "utf8_bytes")
    raw = klass["report"].read_bytes().decode("utf-8")            # strict: valid UTF-8
    assert "\\ud800" in raw and "\\u001b" in raw
    out = klass["done"].stdout
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\ud800-\udfff]", out)
    assert "\\x1b]0;pwned\\x07" in out                          # the file's name
    assert "it is a \\x1b[1A\\x1b[2Kfake" in out                # a type's name
    assert "Evil\\u001b[31m" in raw                              # the type's name
    assert klass["report"].with_suffix(".csv").read_bytes().decode("utf-8")


def test_a_file_name_that_is_not_utf8_is_graded_and_reported(klass):
    victor = entry(klass, "victor/01_\udcff\udcfe.ipynb")
    assert (victor["score"], victor["error"]) == (full("01_utf8_warmups"), None)
    assert "01_\\udcff\\udcfe.ipynb" in klass["report"].read_text(encoding="utf-8")
    assert "01_\\udcff\\udcfe.ipynb" in klass["done"].stdout


# -- issue 27: sandboxes isolated from each other -------------------------------------------------

def who(klass, path: str) -> tuple[int, int]:
    found = re.search(r"uid (\d+) nproc (\d+)", message(klass, path, "safe_decode"))
    return int(found.group(1)), int(found.group(2))


def test_each_sandbox_runs_as_a_user_of_its_own_with_its_own_process_limit(klass):
    kim, leo = who(klass, "kim/01_utf8_warmups.ipynb"), who(klass, "leo/01_utf8_warmups.ipynb")
    assert kim[0] != leo[0] and 65534 not in (kim[0], leo[0]), (kim, leo)
    if os.getuid() == 0:                   # a grader run as root: users no process runs as
        assert bubblewrap.IDS[0] <= kim[0] < bubblewrap.IDS[1]
        if not kernel_limits.available()[0]:   # else the sandbox's cgroup is the limit
            assert kim[1] == leo[1] == run_notebook.PROCESSES + 8
    # kim held 250 processes and still had every case run (kim's points are zero by the
    # rules: ctypes at cell level hides what it calls); kim's classmates lost nothing
    utf8 = message(klass, "kim/01_utf8_warmups.ipynb", "utf8_bytes").splitlines()
    assert "ctypes" in utf8[0] and "✅ utf8_bytes: passed all" in utf8[2], utf8
    assert entry(klass, "beth/01_utf8_warmups.ipynb")["score"] == full("01_utf8_warmups")


def test_no_keyring_is_shared_between_sandboxes(klass):
    assert scores(klass, "leo/01_utf8_warmups.ipynb")["utf8_bytes"] == 0


def test_nothing_outside_the_courses_environment_is_importable(klass):
    nora = entry(klass, "nora/01_utf8_warmups.ipynb")
    assert (nora["score"], nora["error"]) == (full("01_utf8_warmups"), None), nora


# -- issue 27: honest mistakes cost what they break ------------------------------------------------

def test_an_interrupt_or_exit_in_one_checked_function_costs_that_exercise_alone(klass):
    walter = scores(klass, "walter/02_bpe_basics.ipynb")
    assert walter["get_stats"] == 1
    assert 0 < walter["merge"] < 2 and 0 < walter["encode_bytes"] < 2, walter  # one case each
    assert walter["basic_tokenizer"] == 0
    error = entry(klass, "walter/02_bpe_basics.ipynb")["error"]
    assert "ended while basic_tokenizer was checked" in error, error
    assert "KeyboardInterrupt" in message(klass, "walter/02_bpe_basics.ipynb", "merge")


def test_gigabytes_printed_are_cut_not_held(klass):
    xena = entry(klass, "xena/01_utf8_warmups.ipynb")
    assert (xena["score"], xena["error"]) == (full("01_utf8_warmups"), None), xena


def test_patched_checkers_change_nothing_here(klass):
    only(klass, "yara/02_bpe_basics.ipynb", "02_bpe_basics")
