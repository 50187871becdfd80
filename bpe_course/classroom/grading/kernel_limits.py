"""Limits the kernel enforces on a whole sandbox: a control group (cgroup) of its own.

A limit on one process (an address space, a file size) cannot see a sum: many processes
each under it, memory held in memfd_create, SysV or POSIX shared memory or a tmpfs
(which belong to no process's address space) can still fill the machine, and a watcher
that polls `/proc` sees it late or not at all. A cgroup is counted by the kernel: every
page a process of the sandbox touches (anonymous memory, shared memory, tmpfs and page
cache, kernel memory) is charged to the cgroup of the process that touched it, and the
kernel refuses, or kills inside the group (its OOM killer), before the group passes its
limit. So the grader makes one cgroup per sandbox (`SandboxGroup`), under its own, with

- `MEMORY` bytes of memory, swap included (memory.limit_in_bytes and
  memory.memsw.limit_in_bytes in cgroup v1; memory.max and memory.swap.max in v2);
- `TASKS` processes and threads (pids.max);
- `CORES` cores' worth of CPU time (cpu.cfs_quota_us, or cpu.max);

and reads from it the CPU time its processes used, threads and processes that ended
included (cpuacct.usage, or v2's cpu.stat: the speed check, see `speed`), whether the
kernel killed one of them for memory (memory.oom_control's or memory.events'
oom_kill), and kills every process in it at once at the end (cgroup.kill, or each
process listed). The sandbox's first process joins the group before it runs anything
(`SandboxGroup.command` wraps its command line).

Which hierarchy gives which controller is read from `/proc/self/cgroup` and
`/proc/self/mountinfo` (`controllers`): this works with cgroup v1, v2 and the hybrid of
both (v1 controllers, a v2 hierarchy beside them), as root, and in v2 wherever the
grader's own cgroup has the memory and pids controllers delegated to its children (a
`systemd-run --user --scope -p Delegate=yes` shell, say). Where neither can be had
(no cgroup file system, a user without the right to create groups), `available` says
why, the grader says so once, and the limits fall back to the per-process ones of the
driver (`learner_process.limit`), a size-limited tmpfs per sandbox, and the watcher
(`watch`): see exercises/README.md for what that leaves open.
"""

from __future__ import annotations

import functools
import os
import signal
import time
from pathlib import Path

MEMORY = 4 * 2**30          # bytes of memory (swap, tmpfs, shared memory included) a sandbox may hold
TASKS = 256 + 16            # processes and threads of a sandbox (bwrap's and the driver's included)
CORES = 2                   # cores' worth of CPU time a sandbox may use at once
PERIOD = 100_000            # microseconds of the CPU quota's period
PREFIX = "bpe-sandbox-"
# The shell that runs first: it puts itself into each group (before the sandbox, or any of
# the notebook's code, exists), then becomes the sandbox's command with `exec`.
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def _mounts() -> dict[str, Path]:
    """Where each cgroup hierarchy is mounted: {controller or "unified": mount point}."""
    found: dict[str, Path] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        point = Path(fields[4].replace("\\040", " "))
        if tail[0] == "cgroup2":
            found.setdefault("unified", point)
        elif tail[0] == "cgroup":
            for option in tail[2].split(","):
                found.setdefault(option, point)
    return found


def _own() -> dict[str, str]:
    """This process's cgroup in each hierarchy: {controller or "unified": path}."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return own
    for line in lines:
        number, names, path = line.split(":", 2)
        if number == "0" and names == "":
            own["unified"] = path
        for name in names.split(","):
            if name:
                own[name] = path
    return own


def _read(path: Path) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


@functools.cache
def controllers() -> dict[str, tuple[str, Path]]:
    """{what: (version, the grader's own cgroup folder)} for each of "memory", "pids",
    "cpu", "cpuacct" and "kill" that this grader can give its sandboxes: "v2" where its
    cgroup v2 delegates the controller to children, else "v1" where a v1 hierarchy holds
    it; "kill" (the v2 hierarchy, for cgroup.kill and the CPU time) wherever a v2
    hierarchy is mounted."""
    mounts, own = _mounts(), _own()
    found: dict[str, tuple[str, Path]] = {}
    if "unified" in mounts and "unified" in own:
        base = mounts["unified"] / own["unified"].lstrip("/")
        try:
            delegated = _read(base / "cgroup.subtree_control").split()
        except OSError:
            delegated = []
        if base.is_dir():
            found["kill"] = ("v2", base)
            for name in ("memory", "pids", "cpu"):
                if name in delegated:
                    found[name] = ("v2", base)
    for name in ("memory", "pids", "cpu", "cpuacct"):
        if name not in found and name in mounts and name in own:
            base = mounts[name] / own[name].lstrip("/")
            if base.is_dir():
                found[name] = ("v1", base)
    return found


@functools.cache
def available() -> tuple[bool, str]:
    """(True, the limits in words) if the grader can give each sandbox a cgroup with its
    memory and process limits here (tried once, with a group made and removed), else
    (False, why not and what the grader falls back to)."""
    have = controllers()
    missing = [name for name in ("memory", "pids") if name not in have]
    if missing:
        return False, (f"no cgroup with the {' and '.join(missing)} controller(s) can be "
                       f"made here")
    try:
        group = SandboxGroup.create()
    except OSError as e:
        return False, f"no cgroup can be made here ({e.strerror or e})"
    group.remove()
    cpu = " and a CPU quota" if "cpu" in have else ""
    return True, (f"kernel limits per sandbox (cgroup {have['memory'][0]}): "
                  f"{MEMORY / 2**30:g} GiB of memory with tmpfs and shared memory, "
                  f"{TASKS} processes and threads{cpu}")


def fallback() -> str:
    """What the grader says, once, when no cgroup can be had: why, and the limits left."""
    return (f"{available()[1]}; falling back to per-process limits (address space, file "
            f"size, processes per user), a size-limited /tmp and /dev/shm, and a watcher "
            f"that stops a sandbox whose processes hold more than "
            f"{MEMORY / 2**30:g} GiB (memfd and SysV shared memory outside tmpfs are not "
            f"seen: see exercises/README.md)")



def _stale(base: Path) -> None:
    """Remove the empty groups of graders that are gone (killed before they could)."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(PREFIX):
            pid = entry.name[len(PREFIX):].split("-")[0]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                try:
                    entry.rmdir()
                except OSError:
                    pass


class SandboxGroup:
    """One sandbox's cgroup (a folder in each hierarchy that `controllers` found)."""

    _count = 0

    def __init__(self, folders: dict[str, tuple[str, Path]], memory: int | None = None):
        self.folders, self.memory = folders, memory or MEMORY

    @classmethod
    def create(cls, memory: int | None = None) -> SandboxGroup:
        """A new, empty group with the limits set (`memory` bytes of memory, `MEMORY` if
        None: a worksheet may set a smaller budget); OSError if the kernel refuses one."""
        cls._count += 1
        name = f"{PREFIX}{os.getpid()}-{cls._count}-{os.urandom(3).hex()}"
        folders: dict[str, tuple[str, Path]] = {}
        group = cls(folders, memory)
        try:
            for what, (version, base) in controllers().items():
                made = next((folder for v, folder in folders.values()
                             if folder.parent == base), None)
                if made is None:
                    if cls._count == 1:
                        _stale(base)
                    made = base / name
                    made.mkdir()
                folders[what] = (version, made)
            group._limit()
        except OSError:
            group.remove()
            raise
        return group

    def _write(self, what: str, file: str, value) -> None:
        with open(self.folders[what][1] / file, "w", encoding="ascii") as f:
            f.write(str(value))

    def _limit(self) -> None:
        version, _ = self.folders["memory"]
        if version == "v2":
            self._write("memory", "memory.max", self.memory)
            try:
                self._write("memory", "memory.swap.max", 0)
            except OSError:                     # no swap accounting: no swap to use either
                pass
        else:
            self._write("memory", "memory.limit_in_bytes", self.memory)
            try:
                self._write("memory", "memory.memsw.limit_in_bytes", self.memory)
            except OSError:                     # no swap accounting (swapaccount=0)
                pass
        self._write("pids", "pids.max", TASKS)
        if "cpu" in self.folders:
            if self.folders["cpu"][0] == "v2":
                self._write("cpu", "cpu.max", f"{CORES * PERIOD} {PERIOD}")
            else:
                self._write("cpu", "cpu.cfs_period_us", PERIOD)
                self._write("cpu", "cpu.cfs_quota_us", CORES * PERIOD)

    def command(self, argv: list[str]) -> list[str]:
        """`argv`, run by a shell that first joins this group."""
        procs = sorted({str(folder / "cgroup.procs") for _, folder in self.folders.values()})
        return ["/bin/sh", "-c", JOIN, "sh", *procs, "--", *argv]

    def cpu_seconds(self) -> float | None:
        """CPU time (user and system) every process of the group has used so far, those that
        ended included, in seconds; None where it cannot be read."""
        try:
            if "cpuacct" in self.folders and self.folders["cpuacct"][0] == "v1":
                return int(_read(self.folders["cpuacct"][1] / "cpuacct.usage")) / 1e9
            for what in ("kill", "cpu"):
                if what in self.folders and self.folders[what][0] == "v2":
                    for line in _read(self.folders[what][1] / "cpu.stat").splitlines():
                        if line.startswith("usage_usec "):
                            return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def cpu_file(self) -> int | None:
        """A read-only descriptor of the file `cpu_seconds` reads (for the sandbox's driver,
        which cannot see /sys/fs/cgroup), or None."""
        for what, file in (("cpuacct", "cpuacct.usage"), ("kill", "cpu.stat")):
            if what in self.folders:
                try:
                    return os.open(self.folders[what][1] / file, os.O_RDONLY)
                except OSError:
                    continue
        return None

    def oom_kills(self) -> int:
        """How many of the group's processes the kernel killed for lack of memory."""
        version, folder = self.folders["memory"]
        try:
            text = _read(folder / ("memory.events" if version == "v2" else "memory.oom_control"))
        except OSError:
            return 0
        for line in text.splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def refused_tasks(self) -> int:
        """How many times the kernel refused the group a process or thread (pids.events)."""
        try:
            text = _read(self.folders["pids"][1] / "pids.events")
        except OSError:
            return 0
        for line in text.splitlines():
            if line.startswith("max "):
                return int(line.split()[1])
        return 0

    def pids(self) -> set[int]:
        found: set[int] = set()
        for _, folder in self.folders.values():
            try:
                found.update(int(p) for p in _read(folder / "cgroup.procs").split())
            except (OSError, ValueError):
                continue
        return found

    def kill(self, rounds: int = 200) -> None:
        """SIGKILL every process of the group (cgroup.kill where there is one; else each,
        round after round, so that one forked meanwhile is caught too), until none is left."""
        if "kill" in self.folders:
            try:
                self._write("kill", "cgroup.kill", 1)
            except OSError:
                pass
        for _ in range(rounds):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left in the group and remove its folders."""
        self.kill()
        for _, folder in self.folders.values():
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.folders = {}
