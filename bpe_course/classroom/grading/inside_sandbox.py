"""The grader's driver inside the sandbox: run one notebook, then probe its answers.

`python -m bpe_course grade` starts this module, alone, in a fresh Python
process inside the sandbox (see `bubblewrap`), with a job file written by the
grader (see `run_notebook`): the notebook's code cells (check cells already left out), the cases
to run, and which course helpers each exercise may use. It

1. imports everything it needs, and the whole course, before any of the
   learner's code runs (so nothing the learner writes is imported in its
   place), and times the course's naive trainer if a case compares speeds;
2. locks the course's code (`checking.offlimits`) except the helpers that the exercises
   of this run may use (the grader gives exercises with other helpers a run of
   their own), so that no cell can compute the course's answers;
3. runs the cells in an IPython shell, as a kernel would, each with a time
   limit (an interrupt, as Jupyter's stop button), their output discarded;
4. for each exercise, narrows the lock to that exercise's helpers and runs
   every case (hidden ones too) with `checking.runner`, writing the raw answers to
   `answers.json` in the scratch folder after each exercise;
5. ends the process with `os._exit`, so threads the notebook started do not
   keep it alive (the sandbox then ends every process the notebook started).

The grader trusts none of what comes back: it validates the file and
compares the answers with its own, outside the sandbox.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from ..checking import offlimits

# Kept before any learner code runs: a cell that rebinds `runner.run_group` changes nothing.
from ..checking.runner import describe, from_plain, run_group, seconds, to_plain


def write_json(path: str, data) -> None:
    """Write `data` as JSON to `path` through a temporary file and a rename."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(json.dumps(data))
    os.replace(temporary, path)


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


def naive_seconds_for(job: dict) -> dict:
    """Time the course's naive trainer on the inputs a speed case names, before any learner code."""
    from ...regex_tokenizer import RegexTokenizer
    timings = {}
    for text, vocab_size in job.get("naive_timings", []):
        timings[(len(text), vocab_size)] = seconds(
            lambda text=text, size=vocab_size: RegexTokenizer().train(text, size))
    return timings


def forget_sources(folder: str | None) -> None:
    """Delete the sandbox's private copy of the course's sources (everything is imported by
    now): the notebook cannot import, reload or read a fresh, unlocked copy of them."""
    if not folder:
        return
    data = os.path.join(folder, "data")     # texts and model files: read on use, no code
    for root, dirs, files in os.walk(folder, topdown=False):
        if root == data or root.startswith(data + os.sep):
            continue
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            if os.path.join(root, name) != data:
                os.rmdir(os.path.join(root, name))


def run_cells(shell, cells: list[str], cell_timeout: float, deadline: float, status: str,
              errors: list[str]) -> None:
    alarm = Interrupt()
    for index, source in cells:
        left = deadline - time.monotonic()
        if left <= 1:
            errors.append(f"stopped before cell {index + 1}: the notebook's time limit was "
                          f"reached")
            return
        write_json(status, {"cell": index + 1})
        limit = min(cell_timeout, left)
        try:
            alarm.start(limit)
            shell.run_cell(source, store_history=False, silent=False)
        except KeyboardInterrupt:
            pass
        finally:
            alarm.stop()
        if alarm.fired:
            errors.append(f"cell {index + 1} ran longer than {limit:g} s and was stopped")


def probe(job: dict, namespace: dict, out: str, errors: list[str], extra: dict) -> None:
    results: dict = {}
    for exercise in job["request"]["exercises"]:
        offlimits.apply(exercise["allowed"], exercise["denied"])
        name = exercise["target"]
        if name not in namespace:
            results[exercise["id"]] = {"missing": True}
        else:
            target = namespace[name]
            entry = {"describe": describe(target, exercise.get("methods", ())),
                     "answers": []}
            setups: dict = {}
            results[exercise["id"]] = entry
            for group in exercise["groups"]:
                group = dict(group, env={k: from_plain(v)
                                         for k, v in group["env"].items()})
                entry["answers"].append([to_plain(answer) for answer, printed in
                                         run_group(name, target, group,
                                                          job["request"]["time_limit"],
                                                          extra=extra, setups=setups)])
        write_json(out, {"errors": errors, "answers": results})


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


def main(job_file: str) -> None:
    with open(job_file, encoding="utf-8") as f:
        job = json.load(f)
    out, status = job["out"], job["status"]
    deadline = time.monotonic() + job["cells_time"]
    limit(job)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    from IPython.core.interactiveshell import InteractiveShell
    offlimits.load_all()
    timings = naive_seconds_for(job)
    extra = {"naive_seconds": lambda text, vocab_size: timings[(len(text), vocab_size)]}
    errors: list[str] = []
    write_json(out, {"errors": errors, "answers": {}})
    offlimits.apply(job["allowed"], job["denied"])
    offlimits.seal()
    forget_sources(job.get("forget_sources"))
    from traitlets.config import Config
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    sys.path.insert(0, os.getcwd())           # as in a kernel: the notebook's folder first
    run_cells(shell, job["cells"], job["cell_timeout"], deadline, status, errors)
    write_json(status, {"cell": "grading"})
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    probe(job, shell.user_ns, out, errors, extra)
    write_json(status, {"cell": "done"})
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
