"""The sandbox's copy of the course: the worksheet's answers not in it, old module names in it.

`bubblewrap.strip_answers` ships each worksheet's answers (`Worksheet.answers`) and the
grader's references as stubs that raise ImportError naming the rule; everything else,
the helpers included, imports and works. `moved_modules` lets a worksheet from an
earlier release import the modules a later release moved. Run in a plain Python on a
copy (no sandbox needed); the grader's own runs in bubblewrap are in
`test_grading_attacks.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_course.classroom.grading import bubblewrap
from bpe_course.classroom.worksheets import WORKSHEETS

ROOT = Path(__file__).resolve().parents[3]


def sandbox_copy(folder: Path, worksheet: str) -> Path:
    """The copy of the course the sandbox of `worksheet` gets, made in `folder` (its data a
    link to the installed package's); the folder to put on sys.path."""
    package = bubblewrap.copy_package(folder / "bpe_course")
    (package / "data").rmdir()
    (package / "data").symlink_to(bubblewrap.package_dir() / "data")
    bubblewrap.strip_answers(package, WORKSHEETS[worksheet].not_shipped(),
                             f"worksheet {worksheet} is graded: it is an answer you write "
                             f"yourself")
    return folder


def run_in_copy(tmp_path: Path, worksheet: str, code: str) -> dict:
    """Run `code` (which sets `result`) in a fresh Python whose `bpe_course` is the copy the
    sandbox of `worksheet` gets; the JSON of `result`."""
    folder = sandbox_copy(tmp_path / "course", worksheet)
    script = (f"import sys, json\nsys.path[:0] = [{str(folder)!r}]\n{code}\n"
              f"print(json.dumps(result))")
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


CALL = """
def outcome(call):
    try:
        call()
        return "ran"
    except ImportError as e:
        return str(e)
"""


def test_the_trainer_is_not_in_worksheet_07s_copy_nor_reachable_through_wrappers(tmp_path):
    result = run_in_copy(tmp_path, "07_fast_training", CALL + """
import gc, bpe_course, bpe_course.training.trainer as trainer
import bpe_course.training.counting as counting
from bpe_course.pretokenize import count_pretokens
from bpe_course.special import split_special
found = [f for f in gc.get_objects() if getattr(f, "__qualname__", "") == "learn_merges"]
result = {
    "train_bpe": outcome(lambda: bpe_course.train_bpe("some text", 300)),
    "learn_merges": outcome(lambda: trainer.learn_merges([], [], 1)),
    "wrapped": hasattr(trainer.learn_merges, "__wrapped__"),
    "gc": [outcome(lambda: f([], [], 1)) for f in found],
    "count_corpus": outcome(lambda: counting.count_corpus("x", "x", [], 1)),
    "helper": dict(count_pretokens("a b a", r"\\S+| ", [])),
    "split_special": split_special("a<|x|>b", ["<|x|>"]),
}
""")
    refused = ("is not in the course while worksheet 07_fast_training is graded: it is an "
               "answer you write yourself")
    assert result["train_bpe"] == f"bpe_course.training.trainer.train_bpe {refused}"
    assert result["learn_merges"] == f"bpe_course.training.trainer.learn_merges {refused}"
    assert result["wrapped"] is False and result["gc"] and all(
        refused in r for r in result["gc"])
    assert refused in result["count_corpus"]
    assert result["helper"] == {"a": 2, " ": 2, "b": 1}          # a helper still works
    assert result["split_special"] == ["a", "<|x|>", "b"]


def test_the_answers_of_worksheet_02_and_the_references_are_stubs(tmp_path):
    result = run_in_copy(tmp_path, "02_bpe_basics", CALL + """
import bpe_course
from bpe_course import checks, merge, best_pair, BasicTokenizer, RegexTokenizer
from bpe_course.classroom.checking import references
result = {"merge": outcome(lambda: merge([1, 2], (1, 2), 256)),
          "BasicTokenizer": outcome(BasicTokenizer),
          "RegexTokenizer": outcome(lambda: RegexTokenizer().train("aaab" * 9, 257)),
          "reference": outcome(lambda: references.utf8_list("é")),
          "best_pair": best_pair({(1, 2): 3, (2, 3): 3}, {i: bytes([i]) for i in range(4)})}
""")
    assert result["merge"].startswith("bpe_course.pairs.merge is not in the course")
    assert result["BasicTokenizer"].startswith("bpe_course.basic.BasicTokenizer is not in")
    assert "bpe_course.pairs" in result["RegexTokenizer"]    # it merges with pairs' merge
    assert result["reference"].startswith(
        "bpe_course.classroom.checking.references.utf8_list is not in the course")
    assert result["best_pair"] == [2, 3]             # a helper still works


IMPORT_EVERY_MODULE = """
import json, os, sys
folders = json.loads(sys.argv[1])
# Imported once, before any copy: its import takes 1.5 s (jsonschema builds rfc3987_syntax's
# grammar), in each of twelve Pythons it was most of this test's time.
import nbformat  # noqa: F401
assert not [m for m in sys.modules if m.split(".")[0] == "bpe_course"]
found = {}
for name, folder in folders.items():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                     # a child that has imported nothing of the course yet
        os.close(read)
        failed = []
        try:
            sys.path[:0] = [folder]
            import importlib, pkgutil, bpe_course
            assert bpe_course.__path__ == [os.path.join(folder, "bpe_course")], bpe_course.__path__
            for info in pkgutil.walk_packages(bpe_course.__path__, "bpe_course."):
                if not info.name.endswith("__main__"):
                    try:
                        importlib.import_module(info.name)
                    except Exception as e:
                        failed.append(f"{info.name}: {e!r}")
        except BaseException as e:
            failed.append(f"the walk failed: {e!r}")
        with os.fdopen(write, "w", encoding="utf-8") as f:
            f.write(json.dumps(failed))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as f:
        found[name] = json.loads(f.read() or '["the child wrote nothing"]')
    os.waitpid(pid, 0)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def imports_of_every_copy(tmp_path_factory) -> dict:
    """{worksheet: the modules of its sandbox's copy of the course that failed to import}.
    One Python imports the course's slowest dependency to import (nbformat) once, then forks
    a child for each copy, which imports every module of that copy as a fresh Python would
    (no module of the course was imported before the fork)."""
    folders = {name: str(sandbox_copy(tmp_path_factory.mktemp(name), name))
               for name in sorted(WORKSHEETS)}
    done = subprocess.run([sys.executable, "-I", "-c", IMPORT_EVERY_MODULE, json.dumps(folders)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(WORKSHEETS))
def test_every_module_of_every_copy_imports(imports_of_every_copy, name):
    assert imports_of_every_copy[name] == []


def test_an_answer_the_course_does_not_have_is_a_clear_error(tmp_path):
    package = bubblewrap.copy_package(tmp_path / "bpe_course")
    with pytest.raises(ValueError, match="pairs.py has no nonexistent: fix the worksheet"):
        bubblewrap.strip_answers(package, ["bpe_course.pairs.nonexistent"], "a test")


def test_modules_a_later_release_moved_import_under_their_old_names():
    code = ("from bpe_course.classroom.grading import moved_modules\n"
            "moved_modules.install()\n"
            "import bpe_course.encodings as old, bpe_course.openai.encodings as new\n"
            "from bpe_course.spm_model import read_model\n"
            "from bpe_course.train_fast import train_bpe\n"
            "from bpe_course.files.model_files import load, to_tiktoken\n"   # split in two
            "print(old is new, read_model.__module__, train_bpe.__module__, load.__module__,"
            " to_tiktoken.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["True", "bpe_course.sentencepiece.model_proto",
                                   "bpe_course.training.trainer", "bpe_course.files.course_files",
                                   "bpe_course.files.tiktoken_files"], done.stderr


def test_the_sandbox_execs_the_interpreter_by_a_path_without_dotdot(monkeypatch, tmp_path):
    here = Path(sys.executable)
    climbing = os.path.join(str(tmp_path), "..", os.path.relpath(here, tmp_path.parent))
    monkeypatch.setattr(sys, "executable", climbing)
    exec_path = bubblewrap.interpreter()
    assert ".." not in Path(exec_path).parts and os.path.samefile(exec_path, here)
    assert Path(exec_path).name == here.name        # a venv's python keeps its own name
    argv = bubblewrap.command(tmp_path, tmp_path, tmp_path, package=tmp_path)
    assert exec_path in argv and climbing not in argv
