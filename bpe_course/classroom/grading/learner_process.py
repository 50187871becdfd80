"""Inside the sandbox, the learner's process: the notebook's cells, then every case.

The grader's driver (`inside_sandbox`) forks this process before any of the
learner's code exists and keeps what the learner's code must not reach (the
pipe to the grader, the clock). Here, `learner` lets modules that a later
release of the course moved be imported under their old names (a worksheet
from an earlier release runs as written, see `moved_modules`), runs the cells
in an IPython shell, as a kernel would, each with a time limit (an interrupt,
as Jupyter's stop button; their output discarded), then probes each exercise
in a forked child (`probe_one`, `in_child`: a crash, `os._exit` or an
interrupt in one exercise costs that exercise alone) and sends its answers to
the driver, one line each (`send`). For a worksheet with a speed requirement
it answers the driver's timing texts with the learner's trainer
(`speed_rounds`); the driver holds the clock.

Both processes frame their messages with the tools here: lines of JSON from this
process, length-prefixed blocks from the driver (`send_block`, `read_block`).
"""

from __future__ import annotations

import json
import os
import signal
import struct
import sys
import time

# Kept before any learner code runs: a cell that rebinds `runner.run_group` changes nothing.
from ..checking.runner import describe, from_plain, run_group, time_limit, to_plain
from . import moved_modules

STATUS_SIZE = 256      # bytes of the status the grader reads (run_notebook.Status)


def write_json(path: str | int, data) -> None:
    """Write `data` as JSON to `path` through a temporary file and a rename; or, where `path`
    is a descriptor (the status file the grader made and holds), over its first
    `STATUS_SIZE` bytes, padded with spaces, in one write."""
    if isinstance(path, int):
        os.pwrite(path, json.dumps(data).encode()[:STATUS_SIZE].ljust(STATUS_SIZE), 0)
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(json.dumps(data))
    os.replace(temporary, path)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def send_block(fd: int, data: bytes) -> None:
    """A length-prefixed block (the driver's messages to the learner's process)."""
    write_all(fd, struct.pack("!Q", len(data)) + data)


def read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the driver went away")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_block(fd: int) -> bytes:
    return read_exactly(fd, struct.unpack("!Q", read_exactly(fd, 8))[0])


def limit(job: dict) -> None:
    """The job's limits on this process and all it starts (see `run_notebook.job`): a notebook
    that eats memory gets a MemoryError, one that writes a huge file or forks without end
    an OSError, and fails alone. A limit is never raised above the one in force."""
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)         # an error, not a killed process
    for key, which in (("memory", resource.RLIMIT_AS), ("file_size", resource.RLIMIT_FSIZE),
                       ("processes", resource.RLIMIT_NPROC)):
        if job.get(key):
            hard = resource.getrlimit(which)[1]
            value = job[key] if hard == resource.RLIM_INFINITY else min(job[key], hard)
            resource.setrlimit(which, (value, value))


class Interrupt:
    """Per-cell time limit: SIGALRM raises KeyboardInterrupt, as Jupyter's stop button does,
    and keeps raising every second until the cell gives up."""

    def __init__(self):
        self.fired = False
        signal.signal(signal.SIGALRM, self.on_alarm)

    def on_alarm(self, signum, frame):
        self.fired = True
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        raise KeyboardInterrupt("the cell's time limit was reached")

    def start(self, seconds: float) -> None:
        self.fired = False
        signal.signal(signal.SIGALRM, self.on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.01, seconds))

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_cells(shell, cells: list, cell_timeout: float, deadline: float, status: str,
              errors: list[str]) -> None:
    alarm = Interrupt()
    for index, source in cells:
        left = deadline - time.monotonic()
        if left <= 1:
            errors.append(f"stopped before cell {index + 1}: the notebook's time limit was "
                          f"reached")
            return
        write_json(status, {"cell": index + 1})
        limit_ = min(cell_timeout, left)
        try:
            alarm.start(limit_)
            shell.run_cell(source, store_history=False, silent=False)
        except KeyboardInterrupt:
            pass
        finally:
            alarm.stop()
        if alarm.fired:
            errors.append(f"cell {index + 1} ran longer than {limit_:g} s and was stopped")


def send(fd: int, kind: str, data=None) -> None:
    line = kind.encode() + (b" " + json.dumps(data).encode() if data is not None else b"")
    write_all(fd, line + b"\n")


def probe_one(exercise: dict, namespace: dict, time_limit_: float) -> dict:
    """Every case of one exercise run on the learner's object: its entry for the answers."""
    name = exercise["target"]
    if name not in namespace:
        return {"missing": True}
    target = namespace[name]
    entry = {"describe": describe(target, exercise.get("methods", ())), "answers": []}
    setups: dict = {}
    for group in exercise["groups"]:
        group = dict(group, env={k: from_plain(v) for k, v in group["env"].items()})
        entry["answers"].append([to_plain(answer) for answer, printed in
                                 run_group(name, target, group, time_limit_, setups=setups)])
    return entry


FINISHED = 77       # a probe child's exit status when its work ran to the end


def in_child(work) -> str | None:
    """Run `work()` in a forked child; None if it ran to its end, else how it ended (the
    learner's code may end the process itself, `os._exit(0)` included)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            work()
            status = FINISHED
        except BaseException:
            pass
        finally:
            os._exit(status)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            return "it could not be waited for"
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) != FINISHED:
        return f"exit status {os.WEXITSTATUS(status)}"
    return None


def speed_rounds(target, to_driver: int, from_driver: int) -> None:
    """Ask the driver for timing texts and answer each with the learner's trainer (called
    once first on a short text, untimed, as a warm-up: a trainer not written yet is not
    timed at all)."""
    try:
        with time_limit(10):
            target("a warm-up text, then the timed ones " * 20, 300)
    except NotImplementedError:
        return
    except BaseException:
        pass
    while True:
        send(to_driver, "speed")
        block = read_block(from_driver)
        if not block:
            return
        request = json.loads(block)
        try:
            with time_limit(request["limit"]):
                answer = to_plain(target(request["text"], request["vocab_size"]))
        except BaseException as e:
            answer = {"raised": [type(e).__name__, str(e)[:200], ""]}
        send(to_driver, "speed-answer", answer)


def learner(job: dict, to_driver: int, from_driver: int) -> None:
    """The learner's process: run the cells, then probe each exercise."""
    limit({"processes": job.get("processes")})
    moved_modules.install()
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    sys.path.insert(0, os.getcwd())           # as in a kernel: the notebook's folder first
    errors: list[str] = []
    status = job["status"]
    run_cells(shell, job["cells"], job["cell_timeout"], time.monotonic() + job["cells_time"],
              status, errors)
    send(to_driver, "errors", errors)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    namespace = shell.user_ns
    speed = job.get("speed")
    for exercise in job["exercises"]:
        write_json(status, {"cell": "grading", "exercise": exercise["id"]})
        if exercise.get("groups") is None:        # its cases: from the driver, only now
            send(to_driver, "cases", exercise["id"])
            exercise = dict(exercise, groups=json.loads(read_block(from_driver) or b"[]"))
        how = in_child(lambda: send(to_driver, "answers", {
            "id": exercise["id"], "entry": probe_one(exercise, namespace, job["time_limit"])}))
        if how:
            send(to_driver, "ended", {"id": exercise["id"], "how": how})
    if speed and callable(namespace.get(speed["target"])):
        write_json(status, {"cell": "grading", "exercise": "speed"})
        in_child(lambda: speed_rounds(namespace[speed["target"]], to_driver, from_driver))
    write_json(status, {"cell": "done"})
    send(to_driver, "done")
