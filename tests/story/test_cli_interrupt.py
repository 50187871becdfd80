"""Ctrl-C at any point of `python -m bpe_course` ends it quietly with exit status 130.

A real Ctrl-C sends SIGINT at a moment nobody chooses; here a `sitecustomize` module on
PYTHONPATH sends it from inside the import system, the moment a chosen module is first
looked for, so each test interrupts the same point every run."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

SITECUSTOMIZE = textwrap.dedent("""
    import os, signal, sys

    class InterruptAt:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ["INTERRUPT_AT"]:
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, InterruptAt())
""")


def as_a_shell_starts_it():
    """Ctrl-C at its default action, as a shell starts a command. A process that ignores
    SIGINT passes that on to what it starts (an ignored signal stays ignored across exec),
    and a test run may hold one that does (ipykernel's app, for one, ignores it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(tmp_path, module, *args):
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, INTERRUPT_AT=module, PYTHONPATH=str(hook))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120, preexec_fn=as_a_shell_starts_it)


@pytest.mark.parametrize("module", [
    "regex",                                    # the command line's first imports
    "tqdm",                                     # in the middle of the command line's imports
    "bpe_course.cli",                           # __main__ loading the command line
    "bpe_course.classroom.grading.command",     # a command's own imports, inside main()
])
def test_ctrl_c_during_the_imports_exits_130_without_a_traceback(tmp_path, module):
    done = interrupted(tmp_path, module, "-m", "bpe_course", "grade", str(tmp_path / "none"))
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr


def test_importing_the_package_elsewhere_leaves_ctrl_c_alone(tmp_path):
    done = interrupted(tmp_path, "tiktoken", "-c", "import bpe_course; bpe_course.OpenAITokenizer")
    assert "KeyboardInterrupt" in done.stderr           # Python's own behaviour, unchanged
    assert done.returncode in (1, -signal.SIGINT, 130)
