"""Running one notebook for the grader: a job for the driver in the sandbox, its answers read back.

This runs in the grader's process, outside the sandbox. For each run the grader
prepares the sandbox its mode asks for (`Run.prepare`: `Bubblewrap`, `Container`,
or none), and `run_job` does the rest the same for all: it gives the sandbox a
cgroup of its own where one can be had (`kernel_limits`: memory, processes and
CPU held by the kernel), starts `inside_sandbox.main` there with a user id of its
own (`bubblewrap.sandbox_ids`, as root) and three descriptors the grader made: a
pipe that only the driver holds, the job (the notebook's code cells, its check
cells left out; the exercises; what to time) as an anonymous file the
driver closes once read, and the cases as another, which the driver reads after
it has forked the learner's process (`split_cases`); and a status file (`Status`),
so that the grader never opens a path inside the sandbox. It watches the time and
the files (`watch`), kills the whole sandbox at the notebook's time limit, and
reads what the driver sent (`read_frames`: at most `MAX_ANSWERS` bytes, each
answer checked for shape; `scoring` reads each answer as data). Anything else the
notebook left behind is deleted with its scratch folder and its cgroup.

One run (one sandbox, the cells run once) grades every exercise of the notebook.
What each answer may call is read from the notebook's source by the grader
(`checking.source_rules`), not locked inside the learner's process; the
sandbox's copy of the course ships without the worksheet's answers
(`bubblewrap.strip_answers`), so the course's own solution is not there to call.

The speed requirement of a worksheet (worksheet 07's `train_bpe`) is timed by the
driver, outside the learner's process, and reported as a separate check (`speed`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..checking.checks import shipped
from ..checking.runner import to_plain
from ..worksheets import CHECKERS, WORKSHEETS, groups_for
from . import bubblewrap, container, kernel_limits
from .scoring import graded_cases
from .speed import speed_job, speed_verdict
from .watch import RESIDENT, watch

MAX_ANSWERS = 64 * 1024 * 1024      # bytes of answers the grader reads at most from a run
MAX_ERRORS = 20
# How a probe's process ended, as `learner_process.in_child` says it: nothing else (the
# learner's process could put any text there, a case it saw, say) reaches the report.
ENDED = re.compile(r"killed by signal \d{1,3}|exit status \d{1,3}|it could not be waited for")
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


class Run:
    """The folders of one run, in a fresh temporary folder `work`: `scratch` (the notebook's
    home), `temp` (its /tmp where the sandbox has no tmpfs of its own). Each sandbox mode
    is a subclass whose `prepare` says how to start the driver there; `run_job` holds
    the rest (the pipe, the limits, the watch, the read), the same for all."""

    mode = "none"

    def __init__(self, work: Path, answers=(), worksheet: str = ""):
        self.work, self.scratch, self.temp = work, work / "scratch", work / "temp"
        self.scratch.mkdir()
        # the modules the worksheet's learners write themselves: stubs in the sandbox's copy
        self.answers, self.worksheet = tuple(answers), worksheet

    def prepare(self, data: dict, job_file: str) -> tuple[list[str], dict | None, Path | None,
                                                          list[Path]]:
        """(argv, environment, working folder, the folders it may write on the grader's
        disk) of the driver, reading its job from `job_file`; `data` (the job) gains what
        this mode adds to it."""
        writable = [self.scratch, *bubblewrap.writable_folders(self.temp)]
        return bubblewrap.plain_command(Path(job_file)), None, self.scratch, writable

    def end(self) -> None:
        """Once the run is over (its process group killed): what this mode still kills."""

    def private_package(self, copy, data: dict) -> Path:
        """A private copy of the course for the sandbox's users, readable and no more, in
        which the worksheet's answers are stubs that raise ImportError
        (`bubblewrap.strip_answers`), and their user ids as root."""
        self.scratch.chmod(0o777)
        package = copy(self.work / "course" / "bpe_course")
        bubblewrap.strip_answers(package, self.answers, f"worksheet {self.worksheet} is "
                                 f"graded: it is an answer you write yourself")
        for folder in [package.parent, package, *package.rglob("*")]:
            if not folder.is_symlink():     # readable by the sandbox's users, no more
                folder.chmod(0o755 if folder.is_dir() else 0o644)
        data["ids"] = bubblewrap.sandbox_ids() if bubblewrap.as_root() else None
        return package


class Bubblewrap(Run):
    """The driver inside bubblewrap (`bubblewrap.command`): /tmp and /dev/shm are tmpfs
    mounts of its own, the scratch folder its home."""

    mode = "bubblewrap"

    def prepare(self, data, job_file):
        package = self.private_package(bubblewrap.copy_package, data)
        argv = bubblewrap.command(None, self.scratch, user=bubblewrap.user_namespace(),
                                  package=package, job_file=job_file)
        return argv, bubblewrap.BWRAP_ENV, None, [self.scratch]


class Container(Run):
    """The container as the sandbox (`container`): the driver in a plain process that
    drops to users of its own, which reach their own folders only."""

    mode = "container"

    def prepare(self, data, job_file):
        package = self.private_package(container.private_package, data)
        writable = [self.scratch, *bubblewrap.writable_folders(self.temp)]
        self.work.chmod(0o711)          # the notebook's users reach their folders only
        self.ids = data.get("ids")
        return (container.command(Path(job_file), package, self.scratch, self.temp),
                container.environment(self.scratch, self.temp / "tmp"), self.scratch, writable)

    def end(self):
        if self.ids:
            container.kill_users(self.ids)          # whatever left the process group


MODES = {"none": Run, "bubblewrap": Bubblewrap, "container": Container}


def anonymous_file() -> int:
    """A descriptor of a new, empty anonymous file (in memory: a memfd), or of a plain
    unlinked temporary file where there is no memfd_create."""
    try:
        return os.memfd_create("bpe-grade", os.MFD_ALLOW_SEALING)
    except (AttributeError, OSError):
        with tempfile.TemporaryFile() as f:
            return os.dup(f.fileno())


def seal(fd: int, data: bytes) -> int:
    """Write `data` into the anonymous file `fd`, then seal it: it can neither grow nor
    shrink, so nothing written to it later outgrows it."""
    os.pwrite(fd, data, 0)
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK
                    | fcntl.F_SEAL_SEAL)
    except (AttributeError, OSError):
        pass
    return fd


class Status:
    """Where the notebook is (a cell, an exercise's grading, the end): `STATUS_SIZE` bytes
    of JSON in an anonymous file the grader made and holds by descriptor. The learner's
    process writes it through the descriptor it inherits (`learner_process.write_json`),
    so the grader never opens a path the notebook could replace (by a FIFO, say)."""

    def __init__(self):
        self.fd = seal(anonymous_file(), b" " * STATUS_SIZE)

    def where(self) -> str:
        try:
            status = json.loads(os.pread(self.fd, STATUS_SIZE, 0) or b"")
            cell = status["cell"]
        except (ValueError, KeyError, TypeError, OSError):
            return "start-up"
        if cell == "grading":
            exercise = status.get("exercise")
            return (f"the grading of {exercise}" if isinstance(exercise, str)
                    and exercise.isidentifier() else "grading")
        if cell == "done":
            return "the end"
        return f"cell {cell}" if isinstance(cell, int) else "start-up"

    def close(self) -> None:
        os.close(self.fd)


STATUS_SIZE = 256                   # learner_process.STATUS_SIZE


@functools.cache
def limits_once() -> bool:
    """Whether sandboxes get a cgroup (`kernel_limits`); where not, the grader says so once,
    naming what it falls back to."""
    ok, _ = kernel_limits.available()
    if not ok:
        print(f"warning: {kernel_limits.fallback()}", file=sys.stderr, flush=True)
    return ok


def split_cases(data: dict) -> tuple[dict, list]:
    """(the job without any case, each exercise with its cases): the driver reads the
    cases after it has forked the learner's process, and hands an exercise's to it only
    when it probes that exercise, so that no cell can read a case (a hidden one's code,
    say) from the job or from its own memory."""
    public = dict(data, exercises=[dict(e, groups=None) for e in data["exercises"]])
    cases = [{"id": e["id"], "groups": e["groups"]} for e in data["exercises"]]
    return public, cases


def run_job(data: dict, total_timeout: float, use_sandbox: bool | str
            ) -> tuple[list[str], dict, list[dict]]:
    """One run in a fresh sandbox; (error lines, the answers that came back, speed rounds).
    The driver gets three descriptors: the pipe it reports on, the job (an anonymous file
    it closes once read) and the status; the sandbox gets a cgroup of its own where one can
    be had (`kernel_limits`), killed whole at the end."""
    mode = sandbox_mode(use_sandbox)
    answers_of, worksheet = data.pop("answers", ()), data.pop("worksheet", "")
    memory = min(data.get("resident") or kernel_limits.MEMORY, kernel_limits.MEMORY)
    group = kernel_limits.SandboxGroup.create(memory) if limits_once() else None
    status = Status()
    with tempfile.TemporaryDirectory(prefix="bpe-grade-") as work:
        run = MODES[mode](Path(work), answers_of, worksheet)
        ours, theirs = os.pipe()            # the driver writes, the grader reads
        job_fd, cases_fd = anonymous_file(), anonymous_file()
        try:
            data.update(report_fd=theirs, status=status.fd, cpu_fd=None, job_fd=job_fd,
                        cases_fd=cases_fd)
            if group is not None:
                data["processes"] = None        # the group's limit is the one that holds
                if data.get("speed"):
                    data["cpu_fd"] = group.cpu_file()
            fd_folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
            argv, env, cwd, writable = run.prepare(data, f"{fd_folder}/{job_fd}")
            public, cases = split_cases(data)
            seal(job_fd, json.dumps(public).encode())
            seal(cases_fd, json.dumps(cases).encode())
            argv = group.command(argv) if group is not None else argv
            fds = [fd for fd in (theirs, status.fd, job_fd, cases_fd, data["cpu_fd"])
                   if fd is not None]
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       cwd=cwd, start_new_session=True, pass_fds=fds, env=env)
        except BaseException:
            os.close(ours)
            status.close()
            if group is not None:
                group.remove()
            raise
        finally:
            for fd in (theirs, job_fd, cases_fd, data.get("cpu_fd")):
                if fd is not None:
                    os.close(fd)
        reader = FrameReader(ours)
        reader.start()
        errors = []
        try:
            errors += watch(process, writable, total_timeout, status.where,
                            resident=data.get("resident") or RESIDENT, usage=group is None)
        finally:
            _kill(process)
            if group is not None:
                group.kill()
            run.end()
        reader.join()
        if group is not None and group.oom_kills():
            errors.insert(0, f"stopped at {status.where()}: the kernel killed a process of "
                             f"the notebook's for holding more than "
                             f"{memory / 2**30:g} GiB of memory (shared memory, "
                             f"memfd and files in /tmp included)")
        if group is not None and group.refused_tasks():
            errors.append(f"the kernel refused the notebook more than {kernel_limits.TASKS} "
                          f"processes and threads at once")
        answers, reported, rounds, problem = read_frames(reader, data)
        if problem:
            errors.append(problem)
        elif not errors and not reader.done:
            errors.append(f"the notebook's process ended during {status.where()} "
                          f"(a crash, os._exit or a kill?)")
        status.close()
        if group is not None:
            group.remove()
        shutil.rmtree(run.scratch, ignore_errors=True)
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
                how = found["how"] if ENDED.fullmatch(found["how"]) else "it ended early"
                ended.append(f"the notebook's process ended while {found['id']} was checked "
                             f"({how})")
        elif kind == "failed":
            lines.append(f"the grader's driver failed: {raw.decode('utf-8', 'replace')[:200]}")
        elif kind == "speed" and data.get("speed"):
            rounds.append(dict(header, answer=_payload(raw)))
    for exercise in ended:
        if exercise not in lines:
            lines.append(exercise)
    return answers, lines, rounds, None
