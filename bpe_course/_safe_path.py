"""A safe `sys.path` for `python -m bpe_course`: never import from the working directory.

`python -m` puts the working directory first on `sys.path`, so a file such as
`tiktoken.py` left in the folder where an instructor runs the grader would be
imported in place of the real module. When, and only when, the interpreter was
started as `python -m bpe_course ...`, the package drops that entry (and the
empty string that means the same) before importing anything else. A program
started any other way (`python -m some_tool` whose package happens to import
`bpe_course`, a script, a notebook) keeps its `sys.path` as it was.

>>> started_as_course(["python3", "-m", "bpe_course", "grade", "x.ipynb"])
True
>>> started_as_course(["python3", "-X", "dev", "-mbpe_course"])
True
>>> started_as_course(["python3", "-m", "some_tool"]), started_as_course(["python3", "run.py"])
(False, False)
>>> import os, sys
>>> saved = list(sys.path)
>>> sys.path[:0] = ["", os.getcwd()]
>>> drop_working_directory()
>>> "" in sys.path or os.getcwd() in sys.path[:1]
False
>>> sys.path[:] = saved
"""

from __future__ import annotations

import os
import sys

# Options of the interpreter that take the next argument as their value.
_WITH_VALUE = {"-W", "-X", "--check-hash-based-pycs"}


def started_as_course(orig_argv: list[str]) -> bool:
    """Whether the interpreter's own command line (`sys.orig_argv`) is `python ... -m bpe_course`."""
    args = iter(orig_argv[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None) == "bpe_course"
        if arg.startswith("-m"):
            return arg[2:] == "bpe_course"
        if arg in _WITH_VALUE:
            next(args, None)
        elif arg == "-c" or not arg.startswith("-"):
            return False                    # a command or a script comes first
    return False


def drop_working_directory() -> None:
    """Remove the working directory (and "") from `sys.path`."""
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != here]


def _exit_quietly(signum, frame):                  # pragma: no cover (runs in a subprocess)
    os._exit(130)                                   # 128 + SIGINT, as a shell reports it


def guard() -> None:
    """Under `python -m bpe_course` only: drop the working directory from `sys.path`, and
    let Ctrl-C end the program quietly (exit status 130, no traceback) while the package
    imports; `bpe_course.__main__` takes over once the command line is loaded."""
    if started_as_course(getattr(sys, "orig_argv", [])):
        drop_working_directory()
        import signal
        signal.signal(signal.SIGINT, _exit_quietly)
