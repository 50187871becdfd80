"""Running one notebook for the grader: a job for the driver in the sandbox, its answers read back.

This runs in the grader's process, outside the sandbox. For each run the grader
writes a job file (`job`: the notebook's code cells, its check cells left out;
the cases; the helpers the exercises may use) into a fresh folder, starts
`inside_sandbox.main` on it inside bubblewrap (`bubblewrap.command`) with a
fresh scratch folder, watches its memory, threads and files (`watch`), kills
the whole sandbox at the notebook's time limit, and reads back `answers.json`
(`read_answers`: at most `MAX_ANSWERS` bytes of a regular file, checked for
shape; `scoring` converts each answer within a time limit). Anything else the
notebook left behind is deleted with its scratch folder. Exercises that may use
different course helpers get a run each (`by_helpers`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from ..checking.checks import shipped
from ..checking.runner import to_plain
from ..worksheets import CHECKERS, WORKSHEETS, groups_for
from . import bubblewrap
from .watch import watch

MAX_ANSWERS = 64 * 1024 * 1024      # bytes of answers.json the grader reads at most
MAX_ERRORS = 20
MEMORY = 6 * 2**30                  # address space a notebook's process may use, in bytes
FILE_SIZE = 2**30                   # bytes of one file it writes (a limit of the process)
PROCESSES = 256                     # processes and threads it may add to its user's


def is_check_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def probe_request(name: str, seed: int, time_limit: float) -> dict:
    """What the probe needs: for each exercise, the learner's name, the helpers it may use
    and every case (hidden ones drawn with `seed`)."""
    exercises = []
    for exercise in WORKSHEETS[name].points:
        checker = CHECKERS[exercise]
        groups = [dict(shipped(g), env={k: to_plain(v) for k, v in g.env.items()})
                  for g in groups_for(checker, seed)]
        allowed, denied = checker.off_limits()
        exercises.append({"id": exercise, "target": checker.target, "methods": checker.own,
                          "groups": groups, "allowed": allowed, "denied": denied})
    return {"exercises": exercises, "time_limit": time_limit}


def job(nb, request: dict, cell_timeout: float, total_timeout: float, naive: list) -> dict:
    """The job file of one run: the cells, and the exercises of `request`, which may all
    use the same course helpers (see `by_helpers`), locked to those from the first cell."""
    cells = [(i, c.source) for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and not is_check_cell(c)]
    first = request["exercises"][0]
    return {"cells": cells, "request": request, "allowed": first["allowed"],
            "denied": first["denied"], "memory": MEMORY, "file_size": FILE_SIZE,
            "processes": process_limit(), "cell_timeout": cell_timeout,
            "cells_time": max(5.0, total_timeout * 0.6), "naive_timings": naive}


def by_helpers(exercises: list[dict]) -> list[list[dict]]:
    """The exercises grouped by the course helpers they may use, in worksheet order. Each
    group gets a run of its own: code that one exercise may call is never live in a run that
    checks another, so no cell can keep a copy of it for an answer that may not use it."""
    groups: dict = {}
    for exercise in exercises:
        key = (tuple(exercise["allowed"]), tuple(exercise["denied"]))
        groups.setdefault(key, []).append(exercise)
    return list(groups.values())


def process_limit() -> int | None:
    """The sandbox's RLIMIT_NPROC: the processes and threads its user runs now, plus
    `PROCESSES`, so that a notebook that forks without end stops there instead of taking
    the machine. The kernel counts per user (every sandbox of one grader shares the count)
    and exempts root, which is why a grader run as root runs notebooks as nobody."""
    uid = bubblewrap.DROP_TO[0] if bubblewrap.as_root() else os.getuid()
    if uid == 0 or not os.path.isdir("/proc/self/task"):
        return None
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return count + PROCESSES


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def run_notebook(nb, name: str, seed: int, cell_timeout: float, total_timeout: float,
                 case_timeout: float, use_sandbox: bool = True) -> tuple[str | None, dict]:
    """Run the notebook and the probe, once per group of exercises that may use the same
    course helpers (`by_helpers`); (error or None, the answers that came back)."""
    request = probe_request(name, seed, case_timeout)
    errors: list[str] = []
    answers: dict = {}
    for exercises in by_helpers(request["exercises"]):
        data = job(nb, dict(request, exercises=exercises), cell_timeout, total_timeout,
                   WORKSHEETS[name].naive_timings() if has_speed_case(exercises) else [])
        lines, got = run_job(data, total_timeout, use_sandbox)
        errors += [line for line in lines if line not in errors]
        # Only what this run checked: a notebook cannot answer for another run's exercises.
        answers.update({e["id"]: got[e["id"]] for e in exercises if e["id"] in got})
    return ("; ".join(errors) or None), answers


def has_speed_case(exercises: list[dict]) -> bool:
    """Does a case compare with the course's naive trainer? Then the driver times it first."""
    return any("naive_seconds" in case for exercise in exercises
               for group in exercise["groups"] for case in group["cases"])


def run_job(data: dict, total_timeout: float, use_sandbox: bool) -> tuple[list[str], dict]:
    """One run in a fresh sandbox; (error lines, the answers that came back)."""
    with tempfile.TemporaryDirectory(prefix="bpe-grade-") as work:
        job_dir, scratch, temp = Path(work) / "job", Path(work) / "scratch", Path(work) / "temp"
        job_dir.mkdir()
        scratch.mkdir()
        writable = [scratch, *bubblewrap.writable_folders(temp)]
        inside_scratch = bubblewrap.HOME if use_sandbox else str(scratch)
        data.update(out=f"{inside_scratch}/.answers.json", status=f"{inside_scratch}/.status.json")
        if use_sandbox:
            scratch.chmod(0o777)
            package = bubblewrap.copy_package(Path(work) / "course" / "bpe_course")
            for folder in [package.parent, package, *package.rglob("*")]:
                folder.chmod(0o777 if folder.is_dir() else 0o666)
            writable.append(package.parent)     # writable, so that the driver can delete it
            data["forget_sources"] = f"{bubblewrap.COURSE}/bpe_course"
            argv = bubblewrap.command(job_dir, scratch, temp, user=bubblewrap.user_namespace(),
                                      package=package)
            cwd = None
        else:
            argv, cwd = bubblewrap.plain_command(job_dir / "job.json"), scratch
        (job_dir / "job.json").write_text(json.dumps(data), encoding="utf-8")
        errors = []
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, cwd=cwd, start_new_session=True,
                                   env=bubblewrap.BWRAP_ENV if use_sandbox else None)
        try:
            errors += watch(process, writable, total_timeout, lambda: _where(scratch))
        finally:
            _kill(process)
        answers, reported, problem = read_answers(scratch / ".answers.json")
        if problem:
            errors.append(problem)
        elif not errors and _where(scratch) != "the end":
            errors.append(f"the notebook's process ended during {_where(scratch)} "
                          f"(a crash, os._exit or a kill?)")
        shutil.rmtree(scratch, ignore_errors=True)
    return reported + errors, answers


def _read_small(path: Path, limit: int) -> bytes | None:
    """At most `limit` bytes of a regular file the notebook may have tampered with (never a
    symlink or a FIFO, which could point anywhere or block the grader), or None."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as f:
            return f.read(limit + 1)
    except OSError:
        return None


def _where(scratch: Path) -> str:
    try:
        status = json.loads(_read_small(scratch / ".status.json", 1000) or b"")["cell"]
    except (ValueError, KeyError, TypeError):
        return "start-up"
    return {"grading": "grading", "done": "the end"}.get(status, f"cell {status}")


def read_answers(path: Path) -> tuple[dict, list[str], str | None]:
    """(answers by exercise, the driver's error lines, a problem with the file or None)."""
    raw = _read_small(path, MAX_ANSWERS)
    if raw is None:
        return {}, [], "no answers came back from the notebook"
    if len(raw) > MAX_ANSWERS:
        return {}, [], f"the answers were larger than {MAX_ANSWERS // 2**20} MB"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return {}, [], "the answers that came back were not valid data"
    if not (isinstance(data, dict) and isinstance(data.get("answers"), dict)
            and isinstance(data.get("errors"), list)):
        return {}, [], "the answers that came back were not in the grader's format"
    lines = [" ".join(str(e).split())[:200] for e in data["errors"][:MAX_ERRORS]
             if isinstance(e, str)]
    return data["answers"], lines, None
