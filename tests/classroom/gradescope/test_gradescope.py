"""The Gradescope autograder, run as Gradescope runs it, on a folder laid out as /autograder.

`python -m bpe_course gradescope` writes the zip; the test unzips it into
`source/` of a simulated `/autograder` tree (`AUTOGRADER_ROOT`), puts a
notebook in `submission/`, and runs the zip's own `run_autograder` (not
setup.sh's apt-get and pip: the course is importable here, so
`AUTOGRADER_PYTHON` names this Python). Each results.json is checked against
the fields and types of Gradescope's specification (`check_spec`), then for
what it says: full marks for a solution, partial marks with hints for a wrong
answer (a hidden case's details kept back until publication), and a complete
report when the notebook kills its own process. The container as the
sandbox (`--sandbox container`, for Gradescope's Docker, where bubblewrap may
not create namespaces) is tested where this machine has a Python every user
may read.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from bpe_course.classroom.gradescope import autograder, results
from bpe_course.classroom.grading import bubblewrap, command, container
from bpe_course.classroom.worksheets import WORKSHEETS

ROOT = Path(__file__).resolve().parents[3]
WORKSHEET = "02_bpe_basics"

# Gradescope's results.json, field by field, as its specification gives it:
# https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format",
# "Controlling Test Case Visibility", "Test case status", "Output String Formatting").
NUMBER = (int, float)
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMAT = {"text", "simple_format", "html", "md", "ansi"}
TOP = {"score": NUMBER, "execution_time": NUMBER, "output": str, "output_format": str,
       "test_output_format": str, "test_name_format": str, "visibility": str,
       "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
TEST = {"score": NUMBER, "max_score": NUMBER, "status": str, "name": str, "name_format": str,
        "number": str, "output": str, "output_format": str, "tags": list, "visibility": str,
        "extra_data": dict}


def check_spec(data: dict) -> None:
    """`data` is a results.json Gradescope accepts: only the specification's fields, each of
    its type and allowed values; a score at the top or on every test."""
    assert isinstance(data, dict)
    assert set(data) <= set(TOP), set(data) - set(TOP)
    for key, kind in TOP.items():
        if key in data:
            assert isinstance(data[key], kind) and not isinstance(data[key], bool), key
    assert "score" in data or all("score" in t for t in data.get("tests", []))
    for key in ("visibility", "stdout_visibility"):
        assert data.get(key, "visible") in VISIBILITY, key
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data.get(key, "text") in FORMAT, key
    for test in data.get("tests", []):
        assert set(test) <= set(TEST), set(test) - set(TEST)
        for key, kind in TEST.items():
            if key in test:
                assert isinstance(test[key], kind) and not isinstance(test[key], bool), key
        assert test.get("visibility", "visible") in VISIBILITY
        assert test.get("status", "passed") in {"passed", "failed"}
        for key in ("output_format", "name_format"):
            assert test.get(key, "text") in FORMAT
        if "score" in test and "max_score" in test:
            assert 0 <= test["score"] <= test["max_score"]
    json.dumps(data, allow_nan=False)                   # plain JSON: no NaN, no infinity


def worksheet(folder: str, name: str = WORKSHEET):
    return nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)


def cell_index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


# Right on every short list, wrong from position 20 on: every case the worksheet shows is
# short, some hidden ones are not. (It never hangs the tokenizer built on it.)
LATE_STATS = '''
def get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in list(zip(ids, ids[1:]))[:20]:
        counts[pair] = counts.get(pair, 0) + 1
    return counts
'''


def wrong_notebook():
    nb = worksheet("solutions")
    nb.cells[cell_index(nb, "get_stats_code")].source = LATE_STATS
    return nb


def crashing_notebook():
    nb = worksheet("solutions")
    nb.cells.insert(cell_index(nb, "merge_code"),
                    new_code_cell("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"))
    return nb


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    """The autograder's zips for worksheet 02: sandbox bubblewrap (its wheel built from this
    tree) and container (given that wheel, as `--wheel` does for an installed course)."""
    folder = tmp_path_factory.mktemp("zips")
    made, wheel = {}, []
    for sandbox in ("bubblewrap", "container"):
        target = folder / f"{sandbox}.zip"
        # This tree first: the wheel is built from the source tree the course is imported
        # from (under tox, the installed course is a wheel, not a tree).
        done = subprocess.run([sys.executable, "-m", "bpe_course", "gradescope", "02", "-o",
                               str(target), "--sandbox", sandbox, *wheel], capture_output=True,
                              text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stderr
        assert f"wrote {target}" in done.stdout
        made[sandbox] = target
        with zipfile.ZipFile(target) as archive:
            name = json.loads(archive.read(autograder.CONFIG))["wheel"]
            archive.extract(name, folder)
        wheel = ["--wheel", str(folder / name)]
    return made


def autograder_tree(base: Path, zip_path: Path, notebooks: dict) -> Path:
    """A folder laid out as Gradescope's /autograder: the zip in source/, the notebooks in
    submission/, results/ made by the harness."""
    root = base / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            archive.extract(info, root / "source")
            mode = info.external_attr >> 16
            if mode:
                (root / "source" / info.filename).chmod(stat.S_IMODE(mode))
    for name, nb in notebooks.items():
        nbformat.write(nb, root / "submission" / name)
    return root


def run_autograder(root: Path, python: str = sys.executable, path: str | None = None,
                   container_kind: str | None = None) -> subprocess.CompletedProcess:
    """The zip's run_autograder, as Gradescope runs it (in the root), on this Python; with
    `container_kind`, as in a container of that kind (the `container` variable, systemd's
    convention, which `container.detect` reads: this machine need not be one)."""
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=python,
               PYTHONPATH=str(ROOT))
    if container_kind is not None:
        env["container"] = container_kind
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def graded(root: Path) -> dict:
    data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    check_spec(data)
    return data


def scored(data: dict) -> dict:
    """The tests that score, by exercise: one per exercise, in the worksheet's order."""
    tests = [t for t in data["tests"] if "score" in t]
    assert [t["name"] for t in tests] == list(WORKSHEETS[WORKSHEET].points)
    return {t["name"]: t for t in tests}


# -- the zip ------------------------------------------------------------------------------------

def test_the_zip_holds_setup_and_run_autograder_at_its_root_executable(zips):
    with zipfile.ZipFile(zips["bubblewrap"]) as archive:
        infos = {i.filename: i for i in archive.infolist()}
        config = json.loads(archive.read(autograder.CONFIG))
        setup = archive.read("setup.sh").decode()
        wheel = zipfile.ZipFile(archive.open(config["wheel"]))
        names = set(wheel.namelist())
    assert {"setup.sh", "run_autograder", autograder.CONFIG, config["wheel"]} == set(infos)
    for name in ("setup.sh", "run_autograder"):
        assert infos[name].external_attr >> 16 & 0o111 == 0o111, name
    assert config["worksheet"] == WORKSHEET and config["sandbox"] == "bubblewrap"
    assert config["hidden_details"] == "after_published"
    # setup.sh installs bubblewrap and the course from the wheel in the zip
    assert "apt-get install -y --no-install-recommends bubblewrap" in setup
    assert f'pip install "$SOURCE/{config["wheel"]}"' in setup
    assert "bpe_course/classroom/gradescope/run.py" in names
    assert "bpe_course/classroom/worksheets/ws02.py" in names
    assert not any("solutions/" in n or n.endswith(".ipynb") for n in names)


def test_both_scripts_are_valid_bash(zips, tmp_path):
    with zipfile.ZipFile(zips["bubblewrap"]) as archive:
        archive.extractall(tmp_path)
    for name in ("setup.sh", "run_autograder"):
        done = subprocess.run(["bash", "-n", str(tmp_path / name)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / name).read_text().startswith("#!/usr/bin/env bash\n")


def test_a_worksheet_is_named_by_name_number_or_path():
    assert autograder.worksheet_name("02") == WORKSHEET
    assert autograder.worksheet_name("solutions/02_bpe_basics.ipynb") == WORKSHEET
    for name in WORKSHEETS:
        assert autograder.worksheet_name(name[:2]) == name
    with pytest.raises(ValueError, match="no worksheet '03'"):
        autograder.worksheet_name("03")


@pytest.mark.parametrize("args, says", [
    (["03"], "error: no worksheet '03': give one of 01_utf8_warmups"),
    (["02", "-o", "no/such/folder/autograder.zip"], "the folder no/such/folder does not exist"),
    (["02", "--wheel", "missing.whl"], "error: --wheel missing.whl: no such file"),
])
def test_bad_input_is_one_line_before_any_work(tmp_path, args, says):
    done = subprocess.run([sys.executable, "-m", "bpe_course", "gradescope", *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


# -- what run_autograder writes -------------------------------------------------------------------

def test_a_solution_gets_full_marks(zips, tmp_path):
    root = autograder_tree(tmp_path, zips["bubblewrap"], {f"{WORKSHEET}.ipynb": worksheet("solutions")})
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    data = graded(root)
    points = WORKSHEETS[WORKSHEET].points
    assert data["score"] == sum(points.values())
    for name, test in scored(data).items():
        assert (test["score"], test["max_score"], test["status"]) == (points[name], points[name], "passed")
        assert test["output"].startswith(f"✅ {name}: passed all")
        assert test["visibility"] == "visible"
    assert len(data["tests"]) == len(points)
    assert f"Graded {WORKSHEET}.ipynb as worksheet {WORKSHEET}" in data["output"]
    assert data["extra_data"]["worksheet"] == WORKSHEET
    assert "sandbox: bubblewrap" in done.stdout       # the instructor's log: the table


def test_a_wrong_answer_gets_partial_marks_and_its_hint_the_hidden_case_after_publication(
        zips, tmp_path):
    # The notebook is renamed, as students do: it is still graded as the assignment's worksheet.
    root = autograder_tree(tmp_path, zips["bubblewrap"], {"my work.ipynb": wrong_notebook()})
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    data = graded(root)
    tests = scored(data)
    stats = tests["get_stats"]
    assert 0 < stats["score"] < stats["max_score"] and stats["status"] == "failed"
    assert tests["merge"]["score"] == tests["merge"]["max_score"]
    assert 0 < data["score"] < sum(WORKSHEETS[WORKSHEET].points.values())
    assert data["score"] == round(sum(t["score"] for t in tests.values()), 2)
    # The verdict and its hint at once; the hidden case itself only after publication.
    assert "is one of the hidden cases" in stats["output"]
    assert "hint: " in stats["output"] and "points: " in stats["output"]
    assert "get_stats(" not in stats["output"]
    details = next(t for t in data["tests"] if t["name"] == "get_stats: the hidden case it failed")
    assert details["visibility"] == "after_published" and "score" not in details
    assert "get_stats(" in details["output"] and details["output"].startswith("❌ get_stats:")


def test_a_notebook_that_kills_its_kernel_still_gets_its_report(zips, tmp_path):
    root = autograder_tree(tmp_path, zips["bubblewrap"], {f"{WORKSHEET}.ipynb": crashing_notebook()})
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    data = graded(root)
    tests = scored(data)
    assert "the notebook's process ended during cell" in data["output"]
    assert tests["merge"]["score"] == 0 and data["score"] == 0
    assert all(t["status"] == "failed" and t["output"] for t in tests.values())


def test_a_submission_without_the_worksheet_gets_zero_and_says_what_to_upload(zips, tmp_path):
    root = autograder_tree(tmp_path, zips["bubblewrap"],
                           {"04_regex_tokenizer.ipynb": worksheet("solutions", "04_regex_tokenizer")})
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    data = graded(root)
    assert data["score"] == 0
    assert f"04_regex_tokenizer.ipynb is worksheet 04_regex_tokenizer, not {WORKSHEET}" in data["output"]
    assert all(f"upload your {WORKSHEET}.ipynb" in t["output"] for t in scored(data).values())


def test_of_several_notebooks_the_best_counts_and_the_others_are_named(zips, tmp_path):
    root = autograder_tree(tmp_path, zips["bubblewrap"], {
        "a.ipynb": wrong_notebook(), "b.ipynb": worksheet("solutions"),
        "04_regex_tokenizer.ipynb": worksheet("solutions", "04_regex_tokenizer")})
    done = run_autograder(root)
    assert done.returncode == 0, done.stdout + done.stderr
    data = graded(root)
    assert data["score"] == sum(WORKSHEETS[WORKSHEET].points.values())
    assert f"Graded b.ipynb as worksheet {WORKSHEET}" in data["output"]
    assert "Also graded, not counted: a.ipynb" in data["output"]
    assert "04_regex_tokenizer.ipynb is worksheet 04_regex_tokenizer" in data["output"]


def test_without_bubblewrap_the_autograder_refuses_and_writes_no_grade(zips, tmp_path):
    # bwrap out of reach (PATH holds bash alone): no results.json, so Gradescope reports that
    # the autograder failed, never a zero the student did not earn; the log says why.
    root = autograder_tree(tmp_path, zips["bubblewrap"], {f"{WORKSHEET}.ipynb": worksheet("solutions")})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(shutil.which("bash"))
    done = run_autograder(root, path=str(bin_dir))
    assert done.returncode == 2
    assert "refusing to grade without a sandbox" in done.stdout
    assert "bubblewrap (bwrap) is not installed" in done.stdout
    assert not (root / "results" / "results.json").exists()


def test_the_grader_names_the_container_and_the_flag_when_bubblewrap_cannot_work_there(
        monkeypatch):
    monkeypatch.setattr(bubblewrap, "available", lambda: (False, "bwrap cannot create a "
                                                          "sandbox here (No permissions)"))
    monkeypatch.setattr(container, "detect", lambda: "docker")
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    ok, why = command.choose_sandbox("bubblewrap")
    assert not ok
    assert why.startswith("refusing to grade untrusted notebooks without a sandbox")
    assert "This is a container (docker)" in why and "--sandbox container" in why
    monkeypatch.setattr(bubblewrap, "as_root", lambda: False)
    ok, why = command.choose_sandbox("container")
    assert not ok and "needs the grader to run as root" in why
    monkeypatch.setattr(container, "detect", lambda: None)        # and outside a container
    ok, why = command.choose_sandbox("container")
    assert not ok and "no container was detected" in why and "--sandbox bubblewrap" in why


def test_hidden_details_follow_the_chosen_visibility():
    message = ("❌ merge: 60 of 77 cases passed; case 15 failed.\n    merge([7] * 30, (7, 7), 300)\n"
               "expected [300] * 15, got ...\nwhat went wrong: it stops merging\n"
               "    after a while\nhint: look at the loop\npoints: 0.4 of 2")
    from bpe_course.classroom.grading.scoring import graded_cases
    from bpe_course.classroom.worksheets import CHECKERS, groups_for
    number = 0
    for group in groups_for(CHECKERS["merge"], 1):          # the first hidden case's number
        if group.hidden:
            number += 1
            break
        number += len(graded_cases(group))
    exercise = {"id": "merge", "score": 0.4, "max_score": 2,
                "message": message.replace("case 15", f"case {number}")}
    shown, details = results.split_hidden(exercise, 1)
    assert "merge([7]" not in shown and "expected" not in shown
    assert "what went wrong: it stops merging\n    after a while" in shown
    assert "hint: look at the loop" in shown and shown.endswith("points: 0.4 of 2")
    assert details == exercise["message"]
    graded_ = {"worksheet": WORKSHEET, "sha256": None, "exercises": [exercise]}
    for visibility in results.VISIBILITIES:
        data = results.results(graded_, 1, visibility)
        check_spec(data)
        if visibility == "visible":
            assert [t["output"] for t in data["tests"]] == [exercise["message"]]
        else:
            assert data["tests"][1]["visibility"] == visibility
    with pytest.raises(ValueError):
        results.results(graded_, 1, "later")


# -- the container as the sandbox ----------------------------------------------------------------

@pytest.fixture(scope="module")
def public_python():
    """A Python every user may read (the sandbox's users must run it): a virtual environment
    of the system's Python of this version, seeing this environment's packages and the
    course. Skipped where there is none, or not as root."""
    if os.geteuid() != 0:
        pytest.skip("the container as the sandbox needs root")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = next((p for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}")
                 if os.path.exists(p)), None)
    if container.unreachable_python() is None:
        yield sys.executable
        return
    if base is None:
        pytest.skip(f"this Python is private to root and there is no system {version}")
    import sysconfig
    folder = Path(tempfile.mkdtemp(prefix="bpe-public-python-"))
    try:
        folder.chmod(0o755)
        subprocess.run([base, "-m", "venv", "--without-pip", str(folder / "venv")], check=True,
                       timeout=120)
        site = subprocess.run([str(folder / "venv" / "bin" / "python"), "-c",
                               "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        paths = [str(ROOT), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
        Path(site, "course.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
        python = str(folder / "venv" / "bin" / "python")
        probe = subprocess.run([python, "-c", "from bpe_course.classroom.grading import "
                                "container; print(container.unreachable_python())"],
                               capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
        if probe.stdout.strip() != "None":
            pytest.skip(f"no Python every user may read here: {probe.stdout}{probe.stderr}")
        yield python
    finally:
        shutil.rmtree(folder, ignore_errors=True)


SPY = '''
import json, os, subprocess
report = {"uid": os.getuid(), "gid": os.getgid()}
try:
    open(RESULTS + "/results.json", "w").write('{"score": 999}')
    report["wrote_results"] = True
except OSError:
    report["wrote_results"] = False
child = subprocess.Popen(["sleep", SLEEP], start_new_session=True)
report["escaped"] = child.pid
open(SPY_FILE, "w").write(json.dumps(report))
'''


def _command(pid: str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def test_the_container_as_sandbox_runs_the_notebook_as_a_user_of_its_own(
        zips, tmp_path, public_python):
    # A tree every user may reach, as Gradescope's /autograder: what keeps the notebook from
    # the results is that it is not root, not that it cannot find them.
    base = Path(tempfile.mkdtemp(prefix="bpe-autograder-"))
    spy_dir = base / "spy"
    try:
        base.chmod(0o755)
        spy_dir.mkdir()
        spy_dir.chmod(0o777)
        nb = worksheet("solutions")
        root = autograder_tree(base, zips["container"], {})
        sleep = f"600.{os.getpid()}{time.monotonic_ns() % 10**6}"     # this test's own
        spy = (f"RESULTS = {str(root / 'results')!r}\nSPY_FILE = {str(spy_dir / 'spy')!r}\n"
               f"SLEEP = {sleep!r}\n" + SPY)
        nb.cells.insert(cell_index(nb, "merge_code"), new_code_cell(spy))
        nbformat.write(nb, root / "submission" / f"{WORKSHEET}.ipynb")
        for folder in (root, root / "submission"):
            folder.chmod(0o755)
        (root / "results").chmod(0o777)     # even so: run_autograder makes it root's alone
        done = run_autograder(root, python=public_python, container_kind="docker")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "sandbox: the container itself (docker;" in done.stdout
        data = graded(root)
        assert data["score"] == sum(WORKSHEETS[WORKSHEET].points.values())   # not 999
        if not (spy_dir / "spy").exists():
            # Landlock keeps the notebook out of a folder every user may write; what the spy
            # would have said is checked from outside: no process of a sandbox's user is left
            assert container.confinable(), done.stdout
            time.sleep(0.1)
            assert not [pid for pid in os.listdir("/proc") if pid.isdigit()
                        and _command(pid) == ["sleep", sleep]]
            return
        seen = json.loads((spy_dir / "spy").read_text())
        assert seen["uid"] != 0 and seen["gid"] != 0
        assert seen["wrote_results"] is False
        time.sleep(0.1)
        assert not Path(f"/proc/{seen['escaped']}").exists() or \
            Path(f"/proc/{seen['escaped']}/stat").read_text().split()[2] == "Z"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_locking_the_image_hides_the_course_code_and_keeps_its_data(tmp_path, monkeypatch):
    package = tmp_path / "site" / "bpe_course"
    (package / "data").mkdir(parents=True)
    (package / "sub").mkdir()
    for path in [package / "__init__.py", package / "sub" / "x.py", package / "data" / "t.txt"]:
        path.write_text("x")
        path.chmod(0o644)
    source = tmp_path / "source"
    source.mkdir()
    monkeypatch.setattr(bubblewrap, "package_dir", lambda: package)
    monkeypatch.setattr(container, "hidden_dirs", lambda: [])
    assert container.exposed() == [f"the course's code ({package})"]
    container.lock([source])
    assert container.exposed() == []
    assert stat.S_IMODE((package / "sub" / "x.py").stat().st_mode) == 0o600
    assert stat.S_IMODE((package / "sub").stat().st_mode) == 0o711
    assert stat.S_IMODE((package / "data" / "t.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE(source.stat().st_mode) == 0o700
