"""The grader's driver inside the sandbox: run one notebook, then probe its answers.

`python -m bpe_course grade` starts this module, alone, in a fresh Python
process inside the sandbox (see `bubblewrap`), with a job file written by the
grader (see `run_notebook`): the notebook's code cells (check cells already
left out), the cases of each exercise, and, for a worksheet with a speed
requirement, what to time. Two processes do the work:

- the *driver* (`main`, then `Driver`) imports what it needs before any of
  the learner's code exists, and then never runs any: it forks the learner's
  process and becomes a user of its own (as root) and undumpable, so that the
  learner's process can neither read its memory or descriptors nor trace it;
  it alone holds the pipe to the grader (the job's "report_fd"), and it holds
  the clock: it times the course's naive trainer itself, and the learner's
  trainer from outside that process (`Driver.time_round`);
- the *learner's process* (`learner_process.learner`) runs the cells, then
  probes each exercise in a forked child and sends the answers to the driver.

Nothing here enforces the worksheets' rules: the grader reads them from the
notebook's source (`checking.source_rules`), and the course's own solutions
are not in the sandbox's copy of the course (`bubblewrap.strip_answers`). The
grader trusts none of the learner's data: it validates it and compares it
with its own, outside the sandbox.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import random
import select
import sys
import time

from .learner_process import learner, limit, send_block, write_all

MAX_LINE = 64 * 2**20           # bytes of one message of the learner's the driver forwards
KEYCTL = {"x86_64": 250, "aarch64": 219, "i686": 288, "armv7l": 311, "ppc64le": 355,
          "s390x": 280, "riscv64": 219}          # the keyctl system call, by machine


def private_keyring() -> None:
    """Join a new, empty session keyring: nothing another sandbox (or the grader) put in a
    keyring is within reach, and nothing put in this one outlives this sandbox's user."""
    number = KEYCTL.get(platform.machine())
    if number is not None:
        try:
            ctypes.CDLL(None, use_errno=True).syscall(number, 1, None)   # JOIN_SESSION_KEYRING
        except (OSError, AttributeError):
            pass


def undumpable() -> None:
    """No process of the same user may read this one's memory or descriptors, or trace it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)          # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def become(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


class Lines:
    """Lines from the learner's process, read with a deadline and a size cap.

    >>> r, w = os.pipe()
    >>> _ = os.write(w, b"next\\nanswers {}\\nlast")
    >>> os.close(w)
    >>> lines = Lines(r)
    >>> [lines.next() for _ in range(4)]
    [b'next', b'answers {}', b'last', None]
    """

    def __init__(self, fd: int):
        self.fd, self.buffer, self.closed = fd, bytearray(), False

    def next(self, deadline: float | None = None) -> bytes | None:
        """The next line (without its newline; at most `MAX_LINE` bytes kept, the rest of a
        longer one dropped), or None at the end or at the deadline."""
        dropping, searched = False, 0
        while True:
            end = self.buffer.find(b"\n", searched)
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return b"oversized" if dropping else line
            if len(self.buffer) > MAX_LINE:
                self.buffer.clear()
                dropping = True
            searched = len(self.buffer)
            if self.closed:
                return None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                self.closed = True
                if not self.buffer:
                    return None
                chunk = b"\n"
            self.buffer += chunk


def cpu_used() -> tuple | None:
    """(which processes and threads exist, with the last id given out; their CPU time in
    nanoseconds) for every process of the sandbox but this one and bwrap's, or None where
    that cannot be read (no PID namespace of its own, no schedstat)."""
    me = os.getpid()
    try:
        with open("/proc/sys/kernel/ns_last_pid") as f:
            last = f.read().strip()
        tasks, total = [], 0
        for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
            if pid in (1, me):
                continue
            for tid in sorted(os.listdir(f"/proc/{pid}/task")):
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
                tasks.append((pid, tid))
    except (OSError, ValueError, IndexError):
        return None
    return (last, tuple(tasks)), total


def group_cpu(fd: int) -> float | None:
    """CPU seconds every process of the sandbox's cgroup has used, threads and processes
    that ended included, from the descriptor the grader opened on its counter
    (`kernel_limits.SandboxGroup.cpu_file`: cgroup v1's cpuacct.usage in nanoseconds,
    or v2's cpu.stat), or None."""
    try:
        text = os.pread(fd, 4096, 0).decode("ascii")
        if text.startswith("usage_usec "):
            return int(text.split()[1]) / 1e6
        return int(text) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def own_cpu() -> float:
    """CPU seconds this process (the driver, every thread) has used."""
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Driver:
    """The driver's side: forwards the learner's messages to the grader and times the
    speed check."""

    def __init__(self, job: dict, to_grader: int, lines: Lines, to_learner: int):
        self.job, self.to_grader, self.lines, self.to_learner = job, to_grader, lines, to_learner
        self.speed = job.get("speed")
        self.rounds: list = []
        self.baseline = None
        self.cases: list | None = None        # each exercise with its cases
        self.cases_given = False                # a case, or the cells' errors, sent

    def forward(self, kind: str, payload: bytes = b"", **fields) -> None:
        header = json.dumps({"kind": kind, "size": len(payload), **fields})
        write_all(self.to_grader, header.encode() + b"\n" + payload)

    def prepare_speed(self) -> None:
        """Draw the timing texts from a seed only this process knows, and time the course's
        naive trainer on each (its CPU time: a busy machine does not inflate it), in a thread,
        while the learner's cells run."""
        import threading
        if not self.speed:
            return
        from ...regex_tokenizer import RegexTokenizer
        from ..worksheets.common import random_prose
        for _ in range(self.speed["rounds"]):
            seed = os.urandom(16).hex()
            text = random_prose(random.Random(seed), self.speed["length"])[0]
            self.rounds.append({"seed": seed, "text": text})

        def time_naive():
            for entry in self.rounds:
                start = time.thread_time()
                try:
                    RegexTokenizer().train(entry["text"], self.speed["vocab_size"])
                except Exception:
                    continue
                entry["naive"] = time.thread_time() - start
        self.baseline = threading.Thread(target=time_naive, daemon=True)
        self.baseline.start()

    def time_round(self) -> None:
        """One round of the speed check: reveal a text the learner's process has never seen,
        and time, with this process's clocks, until its trainer's answer comes back: the
        CPU time every process of the notebook's spent meanwhile. Where the sandbox has a
        cgroup, its counter (`group_cpu`) less the driver's own time: threads and processes
        count whether they ended or not, and a classmate's sandbox is in another group.
        Without one, `cpu_used` over the processes alive, and the wall time when a process
        or thread started or ended meanwhile (which that count could miss)."""
        speed = self.speed
        if not speed or not self.rounds or speed.get("abandoned"):
            send_block(self.to_learner, b"")
            return
        self.baseline.join()
        entry = self.rounds.pop(0)
        if entry.get("naive") is None:          # the naive trainer failed: nothing to compare
            send_block(self.to_learner, b"")
            return
        # Wall time, generous: a trainer 10x faster in CPU time is cut only on a machine
        # twenty times oversubscribed; a naive one stops within twice the naive time.
        allowed = max(2.0, entry["naive"] * 2)
        message = json.dumps({"text": entry["text"], "vocab_size": speed["vocab_size"],
                              "limit": allowed}).encode()
        group = self.job.get("cpu_fd")
        before = cpu_used() if group is None else (group_cpu(group), own_cpu())
        start = time.monotonic()
        send_block(self.to_learner, message)
        line = self.lines.next(deadline=start + allowed + 5)
        wall = time.monotonic() - start
        after = cpu_used() if group is None else (group_cpu(group), own_cpu())
        answer, cpu = b"", None
        if line is None or not line.startswith(b"speed-answer "):
            speed["abandoned"] = True
            wall = None
            if line is not None:
                self.handle(line)
        else:
            answer = line[len(b"speed-answer "):]
            if group is not None and None not in (before[0], after[0]):
                # the whole sandbox's CPU time but the driver's own: the learner's process
                # tree, every thread and process it started or ended meanwhile included
                cpu = max(0.0, (after[0] - before[0]) - (after[1] - before[1]))
            elif before is not None and after is not None and before[0] == after[0]:
                cpu = max(0, after[1] - before[1]) / 1e9
        self.forward("speed", answer, seed=entry["seed"], naive=entry["naive"], wall=wall,
                     cpu=cpu, limit=allowed)

    def send_cases(self, payload: bytes) -> None:
        """The cases of one exercise, which the learner's process asks for when it probes
        that exercise (`run_notebook.run_job`: until then they are in no memory it can read);
        an empty block for any other."""
        try:
            wanted = json.loads(payload)
        except ValueError:
            wanted = None
        self.cases_given = True
        for exercise in self.cases or []:
            if exercise["id"] == wanted:
                send_block(self.to_learner, json.dumps(exercise["groups"]).encode())
                return
        send_block(self.to_learner, b"")

    def handle(self, line: bytes) -> bool:
        """Act on one line from the learner's process; False once it says it is done."""
        kind, _, payload = line.partition(b" ")
        if kind == b"cases":
            self.send_cases(payload)
        elif kind == b"speed":
            self.time_round()
        elif kind == b"done":
            self.forward("done")
            return False
        elif kind == b"errors":
            # the cells' errors, once, and only before any case was handed out: text the
            # learner's code controls may reach the learner at once (the report, Gradescope's
            # output), so it must not be able to carry a case in it
            if self.cases is None or not self.cases_given:
                self.cases_given = True
                self.forward("errors", payload)
        elif kind in (b"answers", b"ended"):
            self.forward(kind.decode(), payload)
        return True

    def serve(self) -> None:
        """Handle the learner's lines until it is done or gone. Should the driver's own work
        fail (a bug), the grader hears why and the learner's process is not left waiting."""
        while True:
            line = self.lines.next()
            if line is None:
                return
            try:
                if not self.handle(line):
                    return
            except Exception as e:
                self.forward("failed", f"{type(e).__name__}: {e}"[:200].encode())
                if line.split(b" ", 1)[0] in (b"speed", b"cases"):
                    send_block(self.to_learner, b"")


def main(job_file: str) -> None:
    with open(job_file, encoding="utf-8") as f:
        job = json.load(f)
    if isinstance(job.get("job_fd"), int):      # read: out of the learner's reach from now
        os.close(job["job_fd"])
    to_grader = job.get("report_fd")
    limit({k: v for k, v in job.items() if k != "processes"})
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    from IPython.core.interactiveshell import InteractiveShell  # noqa: F401 (imported now)
    undumpable()
    private_keyring()
    to_driver_r, to_driver_w = os.pipe()
    to_learner_r, to_learner_w = os.pipe()
    ids = job.get("ids")
    cases_fd = job.get("cases_fd")
    pid = os.fork()
    if pid == 0:
        try:
            if isinstance(cases_fd, int):       # read by the driver alone, after the fork
                os.close(cases_fd)
            os.close(to_grader)
            os.close(to_driver_r)
            os.close(to_learner_w)
            if ids:
                become(ids[1])
            private_keyring()
            learner(job, to_driver_w, to_learner_r)
        finally:
            os._exit(0)
    os.close(to_driver_w)
    os.close(to_learner_r)
    if ids:
        become(ids[0])
        undumpable()                # changing users resets it
    driver = Driver(job, to_grader, Lines(to_driver_r), to_learner_w)
    if isinstance(cases_fd, int):
        os.lseek(cases_fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(cases_fd, 1 << 20):
            chunks.append(chunk)
        os.close(cases_fd)
        driver.cases = json.loads(b"".join(chunks))
    try:
        driver.prepare_speed()
    except Exception as e:                  # no speed check, the rest is graded
        driver.speed = None
        driver.forward("failed", f"{type(e).__name__}: {e}"[:200].encode())
    try:
        driver.serve()
    finally:
        os._exit(0)



if __name__ == "__main__":
    main(sys.argv[1])
