"""Running one notebook for the grader: a job for the driver in the sandbox, its answers read back.

This runs in the grader's process, outside the sandbox. For each run the grader
writes a job file (`job`: the notebook's code cells, its check cells left out;
the cases; what to time) into a fresh folder, starts
`inside_sandbox.main` on it inside bubblewrap (`bubblewrap.command`) with a
fresh scratch folder, a user id of its own (`bubblewrap.sandbox_ids`, as root)
and a pipe that only the driver holds, watches its memory, threads and files
(`watch`), kills the whole sandbox at the notebook's time limit, and reads what
the driver sent (`read_frames`: at most `MAX_ANSWERS` bytes, each answer checked
for shape; `scoring` converts each answer within a time limit). Anything else
the notebook left behind is deleted with its scratch folder.

One run (one sandbox, the cells run once) grades every exercise of the notebook.
What each answer may call is read from the notebook's source by the grader
(`checking.source_rules`), not locked inside the learner's process; the
sandbox's copy of the course ships without the worksheet's answers
(`bubblewrap.strip_answers`), so the course's own solution is not there to call.

The speed requirement of a worksheet (worksheet 07's `train_bpe`) is timed by the
driver, outside the learner's process, and reported as a separate check (`speed`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from ..checking.checks import shipped
from ..checking.runner import to_plain
from ..worksheets import CHECKERS, WORKSHEETS, groups_for
from . import bubblewrap, container
from .scoring import graded_cases
from .speed import speed_job, speed_verdict
from .watch import RESIDENT, watch

MAX_ANSWERS = 64 * 1024 * 1024      # bytes of answers the grader reads at most from a run
MAX_ERRORS = 20
MEMORY = 6 * 2**30                  # address space a notebook's process may use, in bytes
FILE_SIZE = 2**30                   # bytes of one file it writes (a limit of the process)
PROCESSES = 256                     # processes and threads it may run


def is_check_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def probe_request(name: str, seed: int, time_limit: float) -> dict:
    """What the probe needs: for each exercise, the learner's name and every case the
    grader scores (hidden ones drawn with `seed`; timed cases are the separate speed check
    and left out, each group keeping its place)."""
    exercises = []
    for exercise in WORKSHEETS[name].points:
        checker = CHECKERS[exercise]
        groups = []
        for g in groups_for(checker, seed):
            kept = graded_cases(g)
            plain = dict(shipped(g), env={k: to_plain(v) for k, v in g.env.items()})
            plain["cases"] = [plain["cases"][k] for k in kept]
            if not kept:
                plain.update(env={}, setup="")
            groups.append(plain)
        exercises.append({"id": exercise, "target": checker.target, "methods": checker.own,
                          "groups": groups})
    return {"exercises": exercises, "time_limit": time_limit}


def code_cells(nb) -> list[tuple[int, str]]:
    """(index in the notebook, source) of the code cells the grader runs: the check cells
    left out."""
    return [(i, c.source) for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and not is_check_cell(c)]


def job(nb, request: dict, cell_timeout: float, total_timeout: float, speed: dict | None,
        sandboxed: bool = True) -> dict:
    """The job file of one run: the cells, and the exercises."""
    return {"cells": code_cells(nb), "exercises": request["exercises"],
            "time_limit": request["time_limit"], "memory": MEMORY, "file_size": FILE_SIZE,
            "processes": process_limit(sandboxed), "cell_timeout": cell_timeout,
            "cells_time": max(5.0, total_timeout * 0.6), "speed": speed}


def process_limit(sandboxed: bool | str = True) -> int | None:
    """The sandbox's RLIMIT_NPROC. The kernel counts processes per user: as root each
    sandbox runs as users of its own (`bubblewrap.sandbox_ids`, in bubblewrap or with the
    container as the sandbox) and in a user namespace the count is the namespace's own
    (Linux 5.14 or later), so a notebook may run `PROCESSES`, whatever any other sandbox
    runs. Otherwise (no sandbox, or no user namespace) its processes count with the
    grader's user's: what that user runs now plus `PROCESSES`."""
    mode = sandbox_mode(sandboxed)
    if mode == "container" and bubblewrap.as_root():
        return PROCESSES + 8
    if mode == "bubblewrap" and bubblewrap.available()[0] and (
            bubblewrap.as_root() or bubblewrap.user_namespace()):
        return PROCESSES + 8                    # and the sandbox's own few
    uid = os.getuid()
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


SANDBOXES = ("bubblewrap", "container", "none")


def sandbox_mode(sandbox: bool | str) -> str:
    """The sandbox by name: "bubblewrap", "container" (the container the grader runs in,
    see `container`) or "none"; True and False mean bubblewrap and none."""
    if sandbox is True or sandbox is False:
        return "bubblewrap" if sandbox else "none"
    if sandbox not in SANDBOXES:
        raise ValueError(f"no sandbox {sandbox!r}: give one of {', '.join(SANDBOXES)}")
    return sandbox


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def run_notebook(nb, name: str, seed: int, cell_timeout: float, total_timeout: float,
                 case_timeout: float, use_sandbox: bool | str = True
                 ) -> tuple[str | None, dict, dict | None]:
    """Run the notebook and the probe in the sandbox `use_sandbox` names (see
    `sandbox_mode`); (error or None, the answers that came back, the speed check's verdict
    or None)."""
    request = probe_request(name, seed, case_timeout)
    speed = speed_job(name, [request["exercises"]])
    data = job(nb, request, cell_timeout, total_timeout, speed, use_sandbox)
    data["answers"] = list(WORKSHEETS[name].not_shipped())
    data["worksheet"] = name
    data["resident"] = memory_budget(name)
    errors, answers, rounds = run_job(data, total_timeout, use_sandbox)
    verdict = None
    if speed is not None:
        verdict = speed_verdict(speed, rounds, answers.get(speed["exercise"]))
    return ("; ".join(dict.fromkeys(errors)) or None), answers, verdict


def memory_budget(name: str) -> int:
    """The memory all of a notebook's processes may hold while worksheet `name` is graded:
    the worksheet's budget (`Worksheet.memory`, worksheet 17's trainer) where it sets one
    below the grader's own limit, else that limit (`watch.RESIDENT`)."""
    budget = WORKSHEETS[name].memory
    return min(budget, RESIDENT) if budget else RESIDENT


def run_job(data: dict, total_timeout: float, use_sandbox: bool | str
            ) -> tuple[list[str], dict, list[dict]]:
    """One run in a fresh sandbox; (error lines, the answers that came back, speed rounds)."""
    mode = sandbox_mode(use_sandbox)
    answers_of, worksheet = data.pop("answers", ()), data.pop("worksheet", "")
    with tempfile.TemporaryDirectory(prefix="bpe-grade-") as work:
        job_dir, scratch, temp = Path(work) / "job", Path(work) / "scratch", Path(work) / "temp"
        job_dir.mkdir()
        scratch.mkdir()
        writable = [scratch, *bubblewrap.writable_folders(temp)]
        inside_scratch = bubblewrap.HOME if mode == "bubblewrap" else str(scratch)
        data["status"] = f"{inside_scratch}/.status.json"
        ours, theirs = os.pipe()            # the driver writes, the grader reads
        data["report_fd"] = theirs
        env, cwd = None, scratch
        if mode != "none":
            scratch.chmod(0o777)
            copy = (bubblewrap.copy_package if mode == "bubblewrap"
                    else container.private_package)
            package = copy(Path(work) / "course" / "bpe_course")
            bubblewrap.strip_answers(package, answers_of, f"worksheet {worksheet} is graded: "
                                     f"it is an answer you write yourself")
            for folder in [package.parent, package, *package.rglob("*")]:
                if not folder.is_symlink():     # readable by the sandbox's users, no more
                    folder.chmod(0o755 if folder.is_dir() else 0o644)
            data["ids"] = bubblewrap.sandbox_ids() if bubblewrap.as_root() else None
        if mode == "bubblewrap":
            argv = bubblewrap.command(job_dir, scratch, temp, user=bubblewrap.user_namespace(),
                                      package=package)
            env, cwd = bubblewrap.BWRAP_ENV, None
        elif mode == "container":
            Path(work).chmod(0o711)         # the notebook's users reach their folders only
            argv = container.command(job_dir / "job.json", package)
            env = container.environment(scratch, temp / "tmp")
        else:
            argv = bubblewrap.plain_command(job_dir / "job.json")
        (job_dir / "job.json").write_text(json.dumps(data), encoding="utf-8")
        errors = []
        reader = FrameReader(ours)
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       cwd=cwd, start_new_session=True, pass_fds=(theirs,),
                                       env=env)
        except BaseException:
            os.close(ours)
            raise
        finally:
            os.close(theirs)
        reader.start()
        try:
            errors += watch(process, writable, total_timeout, lambda: _where(scratch),
                            resident=data.get("resident") or RESIDENT)
        finally:
            _kill(process)
            if mode == "container" and data.get("ids"):
                container.kill_users(data["ids"])     # whatever left the process group
        reader.join()
        answers, reported, rounds, problem = read_frames(reader, data)
        if problem:
            errors.append(problem)
        elif not errors and not reader.done:
            errors.append(f"the notebook's process ended during {_where(scratch)} "
                          f"(a crash, os._exit or a kill?)")
        shutil.rmtree(scratch, ignore_errors=True)
    return reported + errors, answers, rounds


class FrameReader(threading.Thread):
    """Reads the driver's frames (a JSON header line, then `size` bytes) from the pipe until
    it closes, keeping at most `MAX_ANSWERS` bytes."""

    def __init__(self, fd: int):
        super().__init__(daemon=True)
        self.fd, self.frames, self.kept, self.overflow, self.done = fd, [], 0, False, False

    def run(self) -> None:
        try:
            with os.fdopen(self.fd, "rb") as pipe:
                while True:
                    line = pipe.readline(4096)
                    if not line:
                        return
                    try:
                        header = json.loads(line)
                        size = int(header["size"])
                    except (ValueError, KeyError, TypeError):
                        return
                    payload = pipe.read(size)
                    self.kept += len(line) + len(payload)
                    if self.kept > MAX_ANSWERS:
                        self.overflow = True
                        continue
                    self.frames.append((header, payload))
                    self.done = self.done or header.get("kind") == "done"
        except OSError:
            return


def _payload(raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError, MemoryError):
        return None


def read_frames(reader: FrameReader, data: dict
                ) -> tuple[dict, list[str], list[dict], str | None]:
    """(answers by exercise, the learner's error lines, the speed rounds, a problem or None)
    from what the driver sent."""
    if reader.overflow:
        return {}, [], [], f"the answers were larger than {MAX_ANSWERS // 2**20} MB"
    exercises = {e["id"] for e in data["exercises"]}
    answers, lines, rounds, ended = {}, [], [], []
    for header, raw in reader.frames:
        kind = header.get("kind")
        if kind == "errors":
            found = _payload(raw)
            if isinstance(found, list):
                lines = [" ".join(str(e).split())[:200] for e in found[:MAX_ERRORS]
                         if isinstance(e, str)]
        elif kind in ("answers", "ended"):
            found = _payload(raw)
            if not (isinstance(found, dict) and found.get("id") in exercises):
                continue
            if kind == "answers" and isinstance(found.get("entry"), dict):
                answers[found["id"]] = found["entry"]
            elif kind == "ended" and isinstance(found.get("how"), str):
                ended.append(f"the notebook's process ended while {found['id']} was checked "
                             f"({found['how'][:80]})")
        elif kind == "failed":
            lines.append(f"the grader's driver failed: {raw.decode('utf-8', 'replace')[:200]}")
        elif kind == "speed" and data.get("speed"):
            rounds.append(dict(header, answer=_payload(raw)))
    for exercise in ended:
        if exercise not in lines:
            lines.append(exercise)
    return answers, lines, rounds, None


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
        status = json.loads(_read_small(scratch / ".status.json", 1000) or b"")
        cell = status["cell"]
    except (ValueError, KeyError, TypeError):
        return "start-up"
    if cell == "grading":
        exercise = status.get("exercise")
        return f"the grading of {exercise}" if isinstance(exercise, str) and exercise.isidentifier() \
            else "grading"
    return {"done": "the end"}.get(cell, f"cell {cell}")
