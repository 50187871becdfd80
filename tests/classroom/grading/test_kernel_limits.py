"""Limits the kernel sets on a sandbox (issue 33, item 2), the status and the job handed over
by descriptor (item 3c, item 5), and CPU time counted by the sandbox's cgroup (item 4).

Each attack runs one notebook, in bubblewrap, with the sandbox's memory limit lowered to
`SMALL` so that the test holds little of the machine's memory: the kernel, not the
grader's watcher (switched off where there is a cgroup), must stop it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from bpe_course.classroom.grading import bubblewrap, kernel_limits, run_notebook, watch

ROOT = Path(__file__).resolve().parents[3]
CASES = Path(__file__).resolve().parent / "grading_cases"
SMALL = 512 * 2**20

needs_cgroup = pytest.mark.skipif(not kernel_limits.available()[0],
                                  reason=f"no cgroup here: {kernel_limits.available()[1]}")
needs_bwrap = pytest.mark.skipif(not bubblewrap.available()[0],
                                 reason=f"no sandbox here: {bubblewrap.available()[1]}")


def solution_with(cell_name: str, name: str = "01_utf8_warmups"):
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    nb.cells.append(new_code_cell((CASES / f"{cell_name}.cell").read_text(encoding="utf-8")))
    return nb


def grade(nb, name: str = "01_utf8_warmups"):
    return run_notebook.run_notebook(nb, name, 7, cell_timeout=60, total_timeout=90,
                                     case_timeout=30, use_sandbox="bubblewrap")


@pytest.fixture
def small_memory(monkeypatch):
    monkeypatch.setattr(kernel_limits, "MEMORY", SMALL)
    monkeypatch.setattr(bubblewrap, "TMPFS", 2 * SMALL)     # the cgroup must stop it first
    # the watcher cannot be what stops it: it is not even asked where there is a cgroup
    monkeypatch.setattr(watch, "sandbox_usage", lambda pid: pytest.fail("watcher asked"))


@needs_cgroup
@needs_bwrap
@pytest.mark.parametrize("attack", ["memfd_hog", "sysv_shm_hog", "tmpfs_hog"])
def test_memory_outside_any_address_space_is_stopped_by_the_kernel(attack, small_memory):
    error, _answers, _ = grade(solution_with(attack))
    assert error is not None and "\n" not in error, error
    assert error.startswith("stopped at cell ") and "the kernel killed a process" in error, error
    assert f"{SMALL / 2**30:g} GiB of memory" in error


@needs_cgroup
def test_tmpfs_and_shared_memory_pages_count_in_the_cgroup_of_the_process_that_touched_them(
        tmp_path):
    """Without bubblewrap: a process in a group writes 64 MiB into a tmpfs file and a SysV
    segment, then exits; the group's memory still holds them (the kernel charged them
    there), until the file and the segment are gone."""
    group = kernel_limits.SandboxGroup.create()
    try:
        usage_file = group.folders["memory"][1] / (
            "memory.current" if group.folders["memory"][0] == "v2" else "memory.usage_in_bytes")
        code = ("import ctypes, os\n"
                "with open('/dev/shm/bpe-charge-test', 'wb') as f:\n"
                "    f.write(b'x' * 64 * 2**20)\n"
                "libc = ctypes.CDLL(None)\nlibc.shmat.restype = ctypes.c_void_p\n"
                "s = libc.shmget(0, 64 * 2**20, 0o1000 | 0o600)\n"
                "a = libc.shmat(s, None, 0)\nctypes.memset(a, 1, 64 * 2**20)\nprint(s)\n")
        done = subprocess.run(group.command([sys.executable, "-c", code]),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        held = int(usage_file.read_text())
        assert held >= 120 * 2**20, held            # both, charged after their maker ended
        os.unlink("/dev/shm/bpe-charge-test")
        subprocess.run(["ipcrm", "-m", done.stdout.strip()], check=True)
        assert int(usage_file.read_text()) < held - 100 * 2**20
    finally:
        if os.path.exists("/dev/shm/bpe-charge-test"):
            os.unlink("/dev/shm/bpe-charge-test")
        group.remove()


@needs_cgroup
def test_the_group_counts_cpu_time_of_threads_and_processes_that_ended():
    group = kernel_limits.SandboxGroup.create()
    try:
        code = ("import os, threading\n"
                "def spin():\n    n = 0\n    for _ in range(3 * 10**6):\n        n += 1\n"
                "threads = [threading.Thread(target=spin) for _ in range(3)]\n"
                "[t.start() for t in threads]\n[t.join() for t in threads]\n"
                "pid = os.fork()\nif pid == 0:\n    spin()\n    os._exit(0)\nos.waitpid(pid, 0)\n"
                "import resource\n"
                "r = resource.getrusage(resource.RUSAGE_SELF)\n"
                "c = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                "print(r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime)\n")
        done = subprocess.run(group.command([sys.executable, "-c", code]),
                              capture_output=True, text=True, timeout=120)
        used = float(done.stdout)
        counted = group.cpu_seconds()
        assert counted is not None and counted >= used * 0.9, (counted, used)
    finally:
        group.remove()


@needs_cgroup
def test_the_group_is_killed_whole_and_removed():
    group = kernel_limits.SandboxGroup.create()
    escaped = subprocess.Popen(group.command(
        ["sh", "-c", "setsid sleep 300 & setsid sleep 300 & sleep 300"]),
        start_new_session=True)
    try:
        for _ in range(200):
            if len(group.pids()) >= 3:
                break
            threading.Event().wait(0.02)
        assert len(group.pids()) >= 3
        folders = [folder for _, folder in group.folders.values()]
        group.remove()
        assert escaped.wait(timeout=10) == -9
        assert not any(folder.exists() for folder in folders)
    finally:
        escaped.kill()
        escaped.wait()


def test_the_status_is_read_by_descriptor_from_a_file_the_grader_made():
    from bpe_course.classroom.grading import learner_process
    status = run_notebook.Status()
    try:
        assert status.where() == "start-up"
        learner_process.write_json(status.fd, {"cell": 4})
        assert status.where() == "cell 4"
        learner_process.write_json(status.fd, {"cell": "grading", "exercise": "merge"})
        assert status.where() == "the grading of merge"
        with pytest.raises(OSError):             # sealed: it cannot grow
            os.pwrite(status.fd, b"x" * 10, run_notebook.STATUS_SIZE)
        os.pwrite(status.fd, b"\xff{garbage", 0)
        assert status.where() == "start-up"
    finally:
        status.close()


@needs_bwrap
def test_the_job_is_nowhere_the_notebook_can_read_it():
    error, answers, _ = grade(solution_with("job_file"))
    assert error is None, error
    # the cell deletes utf8_bytes when it found the job: it did not
    assert "missing" not in answers["utf8_bytes"], answers["utf8_bytes"]


@needs_cgroup
@needs_bwrap
def test_speed_is_the_cpu_time_of_the_sandbox_threads_that_ended_included(monkeypatch):
    """A trainer that starts and ends a thread while timed is measured in CPU time (the
    sandbox's cgroup less the driver), never in wall time, which classmates graded
    alongside would inflate."""
    rounds_seen = []
    verdict = run_notebook.speed_verdict

    def keep(speed, rounds, entry):
        rounds_seen.extend(rounds)
        return verdict(speed, rounds, entry)
    monkeypatch.setattr(run_notebook, "speed_verdict", keep)
    error, _answers, speed = grade(solution_with("threaded_count", "07_fast_training"),
                                  "07_fast_training")
    assert error is None, error
    assert rounds_seen and all(isinstance(r["cpu"], float) for r in rounds_seen), rounds_seen
    assert speed["timed"] and speed["times_faster"] is not None, speed


@needs_cgroup
@needs_bwrap
def test_processes_past_the_groups_limit_are_refused_by_the_kernel_and_reported(monkeypatch):
    monkeypatch.setattr(watch, "sandbox_usage", lambda pid: pytest.fail("watcher asked"))
    error, answers, _ = grade(solution_with("many_processes"))
    assert error is not None and "\n" not in error, error
    assert f"the kernel refused the notebook more than {kernel_limits.TASKS} processes" in error
    # its children ended once the forks failed (see the cell): the rest is graded
    assert "utf8_bytes" in answers, answers


@needs_bwrap
def test_without_a_cgroup_the_grader_says_so_once_and_names_its_fallback(monkeypatch, capsys):
    monkeypatch.setattr(kernel_limits, "available",
                        lambda: (False, "no cgroup with the memory controller can be made here"))
    run_notebook.limits_once.cache_clear()
    try:
        for _ in range(2):
            error, answers, _ = grade(solution_with("job_file"))
            assert error is None and "missing" not in answers["utf8_bytes"], error
    finally:
        run_notebook.limits_once.cache_clear()
    warned = [line for line in capsys.readouterr().err.splitlines() if "cgroup" in line]
    assert len(warned) == 1, warned
    assert warned[0].startswith("warning: no cgroup with the memory controller can be made "
                                "here; falling back to per-process limits")
    assert "watcher" in warned[0] and "exercises/README.md" in warned[0]


@needs_bwrap
def test_a_status_file_swapped_for_a_fifo_blocks_nothing():
    """The grader reads where the notebook is from a file it made and holds by descriptor,
    never from a path in the sandbox: the run ends, and the exercises are graded."""
    error, answers, _ = grade(solution_with("status_fifo"))
    assert error is None, error
    assert set(answers) == {"utf8_bytes", "code_points_and_bytes", "encode_code_point",
                            "safe_decode"}


@needs_bwrap
def test_an_answer_of_colliding_keys_is_refused_not_rebuilt():
    from bpe_course.classroom.grading.scoring import score_exercise
    nb = nbformat.read(ROOT / "solutions" / "02_bpe_basics.ipynb", as_version=4)
    nb.cells.append(new_code_cell((CASES / "hash_flood.cell").read_text(encoding="utf-8")))
    error, answers, _ = grade(nb, "02_bpe_basics")
    assert error is None, error
    result = score_exercise("get_stats", 1, answers["get_stats"], "", 7)
    assert result["score"] == 0
    assert "an answer in which 17 or more distinct values share one hash value" in \
        result["message"], result["message"]


@needs_cgroup
def test_a_worksheets_memory_budget_is_the_groups_limit():
    group = kernel_limits.SandboxGroup.create(2**30)
    try:
        version, folder = group.folders["memory"]
        limit = (folder / ("memory.max" if version == "v2" else "memory.limit_in_bytes"))
        assert int(limit.read_text()) == 2**30
        assert int((group.folders["pids"][1] / "pids.max").read_text()) == kernel_limits.TASKS
    finally:
        group.remove()
