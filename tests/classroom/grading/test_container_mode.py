"""The container as the sandbox only in a container, and with no network there (issue 33,
item 5)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_course.classroom.grading import command, container

ROOT = Path(__file__).resolve().parents[3]


def test_container_mode_is_refused_outside_a_container_and_names_bubblewrap(monkeypatch):
    monkeypatch.setattr(container, "detect", lambda: None)
    ok, why = command.choose_sandbox("container")
    assert not ok
    assert why.startswith("refusing to grade with --sandbox container")
    assert "no container was detected" in why and "--sandbox bubblewrap" in why


def test_in_a_container_the_mode_says_what_the_notebook_still_sees(monkeypatch):
    monkeypatch.setattr(container, "detect", lambda: "docker")
    monkeypatch.setattr(container.bubblewrap, "as_root", lambda: True)
    monkeypatch.setattr(container, "unreachable_python", lambda: None)
    ok, how = container.available()
    assert ok and "no network" in how and "(docker;" in how


PROBE = """
import ctypes, errno, socket, sys
sys.path[:0] = [{root!r}]
from bpe_course.classroom.grading.container import no_network
no_network()
seen = []
for family in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, socket.AF_PACKET):
    try:
        socket.socket(family, socket.SOCK_DGRAM if family != socket.AF_PACKET else socket.SOCK_RAW)
        seen.append(f"{{family}} open")
    except OSError as e:
        seen.append(f"{{family}} {{e.errno}}")
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
params = ctypes.create_string_buffer(120)
done = libc.syscall(425, 8, params)                      # io_uring_setup
seen.append(f"io_uring {{done}} {{ctypes.get_errno()}}")
a, b = socket.socketpair()
a.send(b"unix")
seen.append(b.recv(4).decode())
import subprocess
child = subprocess.run([sys.executable, "-c", "import socket; socket.socket()"],
                       capture_output=True, text=True)
seen.append("child " + ("refused" if "Permission denied" in child.stderr else "open"))
print("|".join(seen))
"""


@pytest.mark.skipif(platform.machine() not in container.NETWORK_FILTER,
                    reason="no network filter for this machine")
def test_no_process_of_the_sandbox_opens_a_network_socket():
    done = subprocess.run([sys.executable, "-c", PROBE.format(root=str(ROOT))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = done.stdout.strip().split("|")
    assert all(part.endswith(" 13") for part in seen[:4]), seen        # EACCES
    assert seen[4] == "io_uring -1 13", seen
    assert seen[5:] == ["unix", "child refused"], seen


CONFINED = """
import json, sys
sys.path[:0] = [{root!r}]
from bpe_course.classroom.grading.container import confine
print(confine(*json.loads(sys.argv[1])))
import IPython, numpy, regex                     # what a notebook imports still imports
seen = []
for path in sys.argv[2:]:
    try:
        open(path).read()
        seen.append("read")
    except OSError as e:
        seen.append(str(e.errno))
open({home!r} + "/notes.txt", "w").write("mine")
seen.append(open({home!r} + "/notes.txt").read())
print("|".join(seen))
"""


@pytest.mark.skipif(not container.confinable(), reason="no Landlock in this kernel")
def test_in_a_container_the_sandbox_reads_no_other_submission(tmp_path):
    """Landlock: the notebook's processes read the system, Python and the course's data, and
    write their own folders; a classmate's notebook, the grader's folders and the rest of
    the container are out of reach, whatever their permissions."""
    package, home, temp = tmp_path / "course" / "bpe_course", tmp_path / "home", tmp_path / "tmp"
    for folder in (package, home, temp):
        folder.mkdir(parents=True)
    classmate = tmp_path / "submissions" / "bob" / "02_bpe_basics.ipynb"
    classmate.parent.mkdir(parents=True)
    classmate.write_text("{}")
    classmate.chmod(0o644)
    readable, writable = container.reach(package, home, temp)
    solution = ROOT / "solutions" / "02_bpe_basics.ipynb"
    done = subprocess.run(
        [sys.executable, "-c", CONFINED.format(root=str(ROOT), home=str(home)),
         json.dumps([readable, writable]), str(classmate), str(solution),
         str(next(p for p in sorted((container.bubblewrap.package_dir() / "data").rglob("*"))
                  if p.is_file()))],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    confined, seen = done.stdout.split()
    assert confined == "True" and seen.split("|") == ["13", "13", "read", "mine"], seen
