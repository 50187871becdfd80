"""`import bpe_course` only defines things: it writes no file and changes no global state.

Checked in a fresh interpreter whose home, temporary folder, tiktoken cache and
working directory are empty folders of the test's own: after the import they are
still empty, and everything global a library could change (the import path and its
hooks, the environment, warning filters, signal handlers, logging, tiktoken's
registry, the working directory) is as it was. The one exception is the one the
issue asks for: under `python -m bpe_course` (and only then) the working directory
leaves `sys.path`, so a `tiktoken.py` in the grader's folder is never imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SNAPSHOT = textwrap.dedent("""
    import json, logging, os, signal, sys, warnings
    def snapshot():
        import tiktoken.registry as registry
        return {
            "path": list(sys.path), "meta_path": [repr(f) for f in sys.meta_path],
            "path_hooks": [repr(h) for h in sys.path_hooks], "environ": dict(os.environ),
            "warnings": [repr(f) for f in warnings.filters], "cwd": os.getcwd(),
            "signals": {s.name: repr(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGTERM)},
            "logging": [repr(h) for h in logging.getLogger().handlers] + [logging.getLogger().level],
            "tiktoken": [registry.ENCODING_CONSTRUCTORS is None, sorted(registry.ENCODINGS),
                         repr(registry.get_encoding)],
            "excepthook": repr(sys.excepthook), "displayhook": repr(sys.displayhook),
            "recursionlimit": sys.getrecursionlimit(), "umask": os.umask(os.umask(0o22)),
        }
    before = snapshot()
    IMPORT
    after = snapshot()
    print(json.dumps({k: [before[k], after[k]] for k in before if before[k] != after[k]}))
""")


# The package loads its modules on first use: load every public name and submodule too.
IMPORT = textwrap.dedent("""
    import bpe_course
    import importlib, pkgutil
    for name in bpe_course.__all__:
        getattr(bpe_course, name)
    for info in pkgutil.walk_packages(bpe_course.__path__, "bpe_course."):
        if ".classroom" not in info.name and not info.name.endswith("__main__"):
            importlib.import_module(info.name)
""").strip()


@pytest.fixture
def empty_places(tmp_path):
    places = {name: tmp_path / name for name in ("home", "tmp", "cache", "cwd", "config")}
    for folder in places.values():
        folder.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(places["home"]),
           "TMPDIR": str(places["tmp"]), "TIKTOKEN_CACHE_DIR": str(places["cache"]),
           "XDG_CACHE_HOME": str(places["config"]), "XDG_CONFIG_HOME": str(places["config"]),
           "MPLCONFIGDIR": str(places["config"]), "PYTHONDONTWRITEBYTECODE": "1"}
    return places, env


def written(places) -> list[str]:
    return sorted(str(p) for folder in places.values() for p in folder.rglob("*"))


def test_importing_writes_no_file(empty_places):
    places, env = empty_places
    done = subprocess.run([sys.executable, "-c", "import bpe_course"], env=env,
                          cwd=places["cwd"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert written(places) == []


def test_importing_changes_no_global_state(empty_places):
    places, env = empty_places
    done = subprocess.run([sys.executable, "-c", SNAPSHOT.replace("IMPORT", IMPORT)], env=env,
                          cwd=places["cwd"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{}", f"import bpe_course changed: {done.stdout}"
    assert written(places) == []


def test_the_snapshot_sees_a_change(empty_places):
    # The check above can fail: a module that edits sys.path at import is caught.
    places, env = empty_places
    (places["cwd"] / "meddler.py").write_text("import sys; sys.path.append('/nowhere')\n")
    code = SNAPSHOT.replace("IMPORT", "import meddler")
    done = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": str(places["cwd"])},
                          cwd=places["cwd"], capture_output=True, text=True)
    assert '"path"' in done.stdout


def make_package(folder: Path) -> None:
    (folder / "anypkg").mkdir()
    (folder / "anypkg" / "__init__.py").write_text("import bpe_course\n")
    (folder / "anypkg" / "tool.py").write_text(
        "import os, sys\nprint(os.getcwd() in sys.path or '' in sys.path)\n")
    (folder / "helper_module.py").write_text("VALUE = 42\n")


def test_another_programs_python_m_keeps_its_working_directory(empty_places):
    places, env = empty_places
    make_package(places["cwd"])
    done = subprocess.run([sys.executable, "-m", "anypkg.tool"], env=env, cwd=places["cwd"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_python_m_bpe_course_never_imports_from_the_working_directory(empty_places):
    places, env = empty_places
    (places["cwd"] / "tiktoken.py").write_text("raise SystemExit('the wrong tiktoken was imported')\n")
    (places["cwd"] / "regex.py").write_text("raise SystemExit('the wrong regex was imported')\n")
    done = subprocess.run([sys.executable, "-m", "bpe_course", "--help"], env=env,
                          cwd=places["cwd"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "wrong" not in done.stderr and "train" in done.stdout
