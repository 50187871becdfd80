"""Running check cases against a learner's code: the only part of checking that touches it.

A *case* is a line or two of Python, such as `merge([1, 1, 1], (1, 1), 256)`,
run with the learner's function bound to its name; the value of its last
expression is the answer. Cases come in *groups* that share named inputs
(`TEXT = ...`) and some setup code (say, training a tokenizer once). Running
the very same code with the course's own function bound to the name gives
the expected answer, so a case is also a recipe the learner can paste into a
cell to reproduce a failure.

The learner's code may raise, loop forever or print; `run_group` turns all of
that into data (`Raised`), within a time limit, and keeps what it printed (the
first `PRINTED` characters: gigabytes printed are counted, not held). Any
exception the code raises is its answer, `KeyboardInterrupt`, `GeneratorExit`
and `SystemExit` included, so one interrupted exercise costs that case alone;
only a real interrupt (Ctrl-C, Jupyter's stop button: a SIGINT) still stops
the check.

Subtle: this module uses the standard library only, on purpose. The grader's
driver (`grading.inside_sandbox`) runs it inside the sandbox, importing it before
any of the learner's code runs. Answers travel back as JSON (`plain`), and the comparison
happens in the grader's own process.

>>> group = {"env": {}, "setup": "", "cases": ["f(2)", "f(0)"]}
>>> [answer for answer, printed in run_group("f", lambda x: 10 // x, group)]
[5, Raised('ZeroDivisionError', 'integer division or modulo by zero')]
"""

import ast
import contextlib
import hashlib
import io
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback

from .plain import Opaque, Raised, from_plain, to_plain  # noqa: F401 (answers as data)

PRINTED = 100_000       # characters of what one case printed that are kept


class TookTooLong(BaseException):
    """Raised inside code under test when its time is up (a BaseException, so a
    learner's `except Exception:` cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds):
    """Interrupt the code inside after `seconds` (Unix main thread only; elsewhere no limit)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise TookTooLong(f"took longer than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_code(code, namespace):
    """Execute `code` in `namespace`; return the value of its last line if that is an expression."""
    tree = ast.parse(code, mode="exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<check>", "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), "<check>", "eval"), namespace)


def caught(exc):
    """Turn an exception into `Raised`, pointing at the learner's line where it happened.

    When the exception comes from inside a course function that the learner's
    code called (say `best_pair` raising `KeyError: 256`), the line shown is the
    learner's own call, and the course function is named.
    """
    here = run_code.__code__.co_filename
    library = tuple({os.path.dirname(os.__file__), sys.prefix, sys.base_prefix})
    package = sys.modules.get("bpe_course")
    course = os.path.dirname(getattr(package, "__file__", "") or "") if package else ""
    inside = None                # the course function the learner's code called, if any
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if (frame.filename in (here, "<check>") or frame.filename.startswith(library)
                or frame.filename.startswith("<bpe_course")):
            continue
        if course and frame.filename.startswith(course + os.sep):
            module = os.path.relpath(frame.filename, os.path.dirname(course))
            inside = module[:-3].replace(os.sep, ".") + "." + frame.name
            continue
        where = f"line {frame.lineno} of your code: {(frame.line or '').strip()}"
        if inside:
            where += f"\n     which called the course's {inside}, where it was raised"
        return Raised(type(exc).__name__, str(exc), where)
    where = f"the course's {inside}" if inside else ""
    return Raised(type(exc).__name__, str(exc), where)


# The clock as it was when the grader's driver imported this module, before any learner code:
# a notebook that replaces `time.perf_counter` does not change what `seconds` measures.
_CLOCK = time.perf_counter


def seconds(fn, repeat=1, budget=2.0):
    """The best wall time of up to `repeat` calls of `fn()`, in seconds.

    Stops repeating before a call that would take it past `budget` seconds (as
    long as the last call took): a slow function needs no second measurement to
    show it is slow.
    """
    best, spent = float("inf"), 0.0
    for _ in range(repeat):
        start = _CLOCK()
        fn()
        took = _CLOCK() - start
        best, spent = min(best, took), spent + took
        if spent + took > budget:
            break
    return best


def text_file(path):
    """True if the file at `path` is UTF-8 text (a pickle, for one, is not)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return "\x00" not in data.decode("utf-8")
    except UnicodeDecodeError:
        return False


class Capped(io.StringIO):
    """A stream that keeps the first `limit` characters written to it and counts the rest.

    >>> out = Capped(5)
    >>> print("hello world", file=out)
    >>> out.getvalue()
    'hello\\n... (7 more characters not kept)'
    """

    def __init__(self, limit=PRINTED):
        super().__init__()
        self.limit, self.dropped = limit, 0

    def write(self, text):
        if not isinstance(text, str):
            return super().write(text)          # the same TypeError as any text stream
        room = max(0, self.limit - self.tell())
        if room:
            super().write(text[:room])
        self.dropped += max(0, len(text) - room)
        return len(text)

    def getvalue(self):
        kept = super().getvalue()
        return kept + (f"\n... ({self.dropped:,} more characters not kept)" if self.dropped
                       else "")


@contextlib.contextmanager
def noting_interrupts(noted):
    """Append to `noted` when a real SIGINT arrives (the learner pressed stop), so that a
    KeyboardInterrupt the code raises itself can be told from one the learner asked for."""
    if not (hasattr(signal, "SIGINT")
            and threading.current_thread() is threading.main_thread()):
        yield
        return
    old = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum, frame):
        noted.append(signum)
        if callable(old):
            old(signum, frame)
        raise KeyboardInterrupt

    if old == signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _run(code, namespace, limit):
    """Run one piece of code: (answer or Raised, what it printed)."""
    out, interrupted = Capped(), []
    try:
        with noting_interrupts(interrupted), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(out), time_limit(limit):
            answer = run_code(code, namespace)
    except BaseException as exc:            # whatever the code raised is its answer
        if isinstance(exc, KeyboardInterrupt) and interrupted:
            raise                           # the learner pressed stop: stop the check
        answer = caught(exc)
        if isinstance(exc, TookTooLong):
            answer = Raised("TimeoutError", str(exc), answer.where)
    return answer, out.getvalue()


def run_group(name, target, group, time_limit=30.0, extra=None, setups=None):
    """Yield `(answer, printed)` for each case of `group`, with `target` bound to `name`.

    A group is a dict: `env` (named inputs), `setup` (code run first) and
    `cases` (code strings). If the setup fails, every case answers with
    that failure. Files go to a fresh folder named by `TMP`; `extra` adds names
    (such as `naive_seconds`, the course trainer's time, measured by the caller).
    With a dict `setups`, a setup already run by an earlier group (the same code,
    writing no files) is not run again: its names are reused, which saves the
    grader building GPT-4's tokenizer once per group.
    """
    with tempfile.TemporaryDirectory() as tmp:
        namespace = {"__name__": "__check__", name: target, "seconds": seconds,
                     "text_file": text_file, "TMP": tmp, **(extra or {}),
                     **group.get("env", {})}
        limit = group.get("time_limit") or time_limit
        failed = None
        setup = group.get("setup")
        key = setup and _setup_key(setup, group.get("env", {}))
        if setup and setups is not None and key in setups:
            made, failed, printed = setups[key]
            namespace.update(made)
        elif setup:
            before = set(namespace)
            failed, printed = _run(setup, namespace, group.get("setup_time_limit") or limit)
            if not isinstance(failed, Raised):
                failed = None
            if setups is not None and "TMP" not in setup:
                setups[key] = ({k: namespace[k] for k in set(namespace) - before}, failed,
                               printed)
        for code in group["cases"]:
            if failed is not None:
                yield failed, printed
            else:
                yield _run(code, namespace, limit)


def _setup_key(setup, env):
    """A setup's code and the inputs it names: two groups that share both share the setup."""
    names = sorted(k for k in env if re.search(rf"\b{re.escape(k)}\b", setup))
    digest = hashlib.sha256(repr([(k, env[k]) for k in names]).encode()).hexdigest()
    return setup, digest


def describe(obj, methods=()):
    """Where `obj` comes from: its kind, module, base classes and the owners of `methods`."""
    info = {"kind": "class" if isinstance(obj, type) else
            "function" if callable(obj) else type(obj).__name__,
            "module": str(getattr(obj, "__module__", "") or ""),
            "name": str(getattr(obj, "__qualname__", "") or "")}
    module = sys.modules.get(info["module"])        # is it a course module's own object?
    info["course"] = (info["module"].startswith("bpe_course") and module is not None
                      and getattr(module, info["name"], None) is obj)
    if isinstance(obj, type):
        info["bases"] = [f"{c.__module__}.{c.__qualname__}" for c in obj.__mro__[1:]
                         if c is not object]
        owners = {}
        for method in methods:
            owner = next((c for c in obj.__mro__ if method in vars(c)), None)
            owners[method] = None if owner is None else f"{owner.__module__}.{owner.__qualname__}"
        info["methods"] = owners
    return info
