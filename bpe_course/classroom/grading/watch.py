"""Watching a notebook's sandbox from outside: its memory, threads and files.

The kernel's limits are per process (address space, file size) or per user (processes),
and cannot see a sum: many processes each under their memory limit, or many small files,
can still fill the machine. So the grader looks at the whole sandbox from outside, a few
times a second, and stops it with a one-line reason when it passes one of these limits.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import time
from pathlib import Path
from typing import Callable

DISK = 2 * 2**30                    # bytes a notebook may keep in its writable folders
MAX_FILES = 100_000                 # and files
RESIDENT = 4 * 2**30                # memory all its processes together may hold, in bytes
THREADS = 256                       # threads all its processes together may run
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def watch(process: subprocess.Popen, writable: list[Path], total_timeout: float,
          where: Callable[[], str], resident: int = RESIDENT) -> list[str]:
    """Wait for the notebook's process; stop it at the time limit, as soon as its processes
    together hold more than `resident` bytes of memory (`RESIDENT`, or a worksheet's
    smaller budget) or run more than `THREADS`
    threads (looked at four times a second), or as soon as its folders hold more than
    `DISK` bytes or `MAX_FILES` files (counted twice a second, and once more when it
    ends)."""
    deadline = time.monotonic() + total_timeout
    for tick in itertools.count():
        try:
            process.wait(timeout=min(0.25, max(0.0, deadline - time.monotonic())))
            used, files = disk_used(writable)          # once more: it may have ended first
            if used > DISK or files > MAX_FILES:
                return [f"stopped at {where()}: the notebook wrote more than "
                        f"{DISK / 2**30:g} GiB or {MAX_FILES:,} files"]
            return []
        except subprocess.TimeoutExpired:
            pass
        held, threads = sandbox_usage(process.pid)
        if held > resident or threads > THREADS:
            return [f"stopped at {where()}: the notebook's processes held more than "
                    f"{resident / 2**30:g} GiB of memory or ran more than {THREADS} threads"]
        used, files = disk_used(writable) if tick % 2 else (0, 0)
        if used > DISK or files > MAX_FILES:
            return [f"stopped at {where()}: the notebook wrote more than "
                    f"{DISK / 2**30:g} GiB or {MAX_FILES:,} files"]
        if time.monotonic() >= deadline:
            return [f"stopped at {where()}: the notebook's time limit of "
                    f"{total_timeout:g} s was reached"]


def sandbox_usage(root: int) -> tuple[int, int]:
    """(resident bytes, threads) of process `root` and every process under it, from /proc
    (no process on other systems: (0, 0)). The kernel's per-process limits cannot see the
    sum: many processes each under their memory limit can still fill the machine. A page
    that forked processes share counts once (their proportional set size, where the kernel
    shows it): the grader forks the learner's process once per exercise.

    >>> resident, threads = sandbox_usage(os.getpid())
    >>> threads >= 1 and resident > 0 or not os.path.isdir("/proc/self")
    True
    """
    children: dict[int, list[int]] = {}
    usage: dict[int, tuple[int, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0, 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()      # after "pid (command) "
        children.setdefault(int(fields[1]), []).append(int(entry))
        usage[int(entry)] = (int(fields[21]) * PAGE, int(fields[17]))  # rss, num_threads
    resident = threads = 0
    stack, seen = [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        rss, count = usage.get(pid, (0, 0))
        resident, threads = resident + _proportional(pid, rss), threads + count
        stack += children.get(pid, [])
    return resident, threads


def _proportional(pid: int, rss: int) -> int:
    """The process's proportional set size in bytes, or `rss` where it cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return rss


def disk_used(folders: list[Path]) -> tuple[int, int]:
    """(bytes on disk, files) under `folders`, not following links; the count stops soon
    after `MAX_FILES`. Bytes are blocks really used, so a sparse file counts what it holds.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "a.txt").write_text("x" * 10_000)
    ...     used, files = disk_used([Path(d)])
    >>> used >= 10_000, files
    (True, 1)
    """
    used = files = 0
    stack = [str(f) for f in folders]
    while stack and files <= MAX_FILES:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    files += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return used, files
