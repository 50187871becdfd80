"""The course's own code, off limits while a learner's answer is checked.

An exercise asks the learner to write something the course already has
(`merge`, a `RegexTokenizer`, ...). Calling the course's version, directly or
through a wrapper, a subclass that delegates, `super().save(...)`, a class
whose `__new__` returns the course's object, or a reference kept from an
earlier cell, would pass every case without doing the exercise. So while the
learner's code runs, every function and method of `bpe_course` is swapped,
in place, for one that raises `OffLimits` naming it, except the helpers the
exercise allows (`Checker.helpers`, such as `best_pair` or the corpora).

The swap replaces each function's `__code__`, not the name that points to
it, so a reference taken before the lock fails as well. `apply(None)` puts
every original back. While a lock holds, importing or reloading a course
module is refused, so a fresh copy of the code cannot be loaded the
ordinary way.

What no lock inside the learner's own process can stop is code copied from
the course's source text (by hand, or by reading the installed file): that
is copying, for the instructor to see when reading the work.

The grader's driver locks in steps: the learner's process starts locked to
what every exercise of a run may use, and gets more of the course's code
only when an exercise that may use it is checked (`codes`, `install`): the
trusted process that holds the originals hands them over by `register`'s
numbering, which a forked process shares.

Standard library only: the grader's driver inside the sandbox
(`grading.inside_sandbox`) uses it too.

>>> from bpe_course import pairs
>>> apply(["bpe_course.pairs.best_pair"])
>>> pairs.merge([1, 2], (1, 2), 256)
Traceback (most recent call last):
    ...
bpe_course.classroom.checking.offlimits.OffLimits: the course's bpe_course.pairs.merge is off limits here: ...
>>> apply(None)
>>> pairs.merge([1, 2], (1, 2), 256)
[256]
"""

from __future__ import annotations

import importlib
import inspect
import marshal
import pkgutil
import sys
import types

PACKAGE = "bpe_course"
# Machinery that must keep working while a lock holds: it runs the learner's code and
# never computes an answer (the grader compares answers in its own process).
MACHINERY = ("bpe_course.classroom.checking.offlimits", "bpe_course.classroom.checking.runner",
             "bpe_course.classroom.checking.plain", "bpe_course.classroom.grading.inside_sandbox",
             "bpe_course.classroom.grading.learner_process", "bpe_course.__getattr__")

# Not loaded by `load_all` (so refused under a lock): the command line, the instructor's
# tools, which read notebooks with nbformat (seconds to import), the grader's side outside
# the sandbox, and what the sandbox puts in place of tiktoken (never imported outside it).
SKIP = ("bpe_course.__main__", "bpe_course.cli", "bpe_course.classroom.authoring.exercises",
        "bpe_course.classroom.grading.command", "bpe_course.classroom.grading.run_notebook",
        "bpe_course.classroom.grading.bubblewrap", "bpe_course.classroom.grading.report",
        "bpe_course.classroom.grading.watch", "bpe_course.classroom.grading.sandbox_shims")
_ORIGINAL: dict = {}          # function -> its own code object
_INDEX: dict = {}             # function -> its number, in the order `register` found it
_STUBS: dict = {}             # (free variables, kind, message) -> stub code
_CACHES: dict = {}            # function -> its functools cache (emptied when it is locked)
_STATE = {"locked": False}


class OffLimits(RuntimeError):
    """Raised by a course function called while the learner's answer is being checked."""


def message(name: str) -> str:
    return (f"the course's {name} is off limits here: this exercise is to write it "
            f"yourself (only the helpers the exercise names may be used)")


def _kind(code) -> str:
    """'generator', 'coroutine', 'async generator' or 'function': a function's code may
    only be swapped for code of the same kind (Python 3.13 deprecates anything else)."""
    flags = code.co_flags
    for flag, kind in ((inspect.CO_GENERATOR, "generator"), (inspect.CO_COROUTINE, "coroutine"),
                       (inspect.CO_ASYNC_GENERATOR, "async generator")):
        if flags & flag:
            return kind
    return "function"


def _stub(func, name: str):
    """A code object with `func`'s number of free variables and kind that raises OffLimits
    (a locked generator raises when it is first iterated, a coroutine when awaited)."""
    free, kind = len(func.__code__.co_freevars), _kind(func.__code__)
    key = (free, kind, name)
    if key not in _STUBS:
        names = [f"_v{i}" for i in range(free)]
        lines = ["def _outer():"] + [f"    {n} = None" for n in names]
        header = {"generator": "def", "function": "def"}.get(kind, "async def")
        lines += [f"    {header} _inner(*args, **kwargs):"]
        lines += [f"        ({', '.join(names)},)"] if names else []
        # Looked up in the course module's globals when it runs, so it names the class there.
        lines += [f"        raise __import__({__name__!r}, fromlist=['x']).OffLimits({message(name)!r})"]
        lines += ["        yield"] if kind in ("generator", "async generator") else []
        lines += ["    return _inner"]
        namespace: dict = {}
        exec(compile("\n".join(lines), "<bpe_course: off limits>", "exec"), namespace)
        _STUBS[key] = namespace["_outer"]().__code__
    return _STUBS[key]


def _functions(obj, prefix: str, seen: set):
    """(qualified name, function) for every function defined in a module or class."""
    for attr, value in list(vars(obj).items()):
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                if isinstance(part, types.FunctionType):
                    yield f"{prefix}.{attr}", part
            continue
        wrapped = getattr(value, "__wrapped__", None)       # functools.cache and friends
        if isinstance(wrapped, types.FunctionType) and hasattr(value, "cache_clear"):
            _CACHES[wrapped] = value
            value = wrapped
        if id(value) in seen:
            continue
        if isinstance(value, types.FunctionType) and value.__module__.startswith(PACKAGE):
            seen.add(id(value))
            yield f"{value.__module__}.{value.__qualname__}", value
        elif (isinstance(value, type) and value.__module__.startswith(PACKAGE)
              and f"{value.__module__}.{value.__qualname__}" == f"{prefix}.{attr}"):
            seen.add(id(value))
            yield from _functions(value, f"{prefix}.{attr}", seen)


def load_all() -> None:
    """Import every module of the course, so that none is loaded fresh under a lock."""
    package = importlib.import_module(PACKAGE)
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        if _matches(info.name, SKIP):
            continue
        importlib.import_module(info.name)


def _matches(name: str, entries) -> bool:
    return any(name == e or name.startswith(e + ".") for e in entries)


def register(load: bool = True) -> list:
    """Every function of the course loaded so far (all of them with `load`), numbered in
    the order first found, with its own code kept; nothing is locked. A process forked
    after this numbers them alike."""
    if load:
        load_all()
    seen: set = set()
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(PACKAGE) or not isinstance(module, types.ModuleType):
            continue
        for name, func in _functions(module, module_name, seen):
            if func not in _INDEX:
                _INDEX[func] = len(_INDEX)
                _ORIGINAL.setdefault(func, func.__code__)
    return list(_INDEX)


def _name(func) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def is_locked(name: str, allowed, denied=()) -> bool:
    """Would `apply(allowed, denied)` lock the function called `name`?"""
    return (allowed is not None and not _matches(name, MACHINERY)
            and (not _matches(name, allowed) or _matches(name, denied)))


def unlocked(allowed, denied=()) -> set[int]:
    """The numbers (see `register`) of the functions `apply(allowed, denied)` leaves usable."""
    return {i for func, i in _INDEX.items() if not is_locked(_name(func), allowed, denied)}


def unlocked_names(allowed, denied=()) -> frozenset:
    """The names of the course functions `apply(allowed, denied)` leaves usable."""
    register()
    return frozenset(_name(f) for f in _INDEX if not is_locked(_name(f), allowed, denied))


def codes(numbers) -> bytes:
    """The original code of the functions numbered `numbers`, to `install` in another
    process (one forked after `register`): only a process that never sealed has them."""
    functions = list(_INDEX)
    return marshal.dumps({i: _ORIGINAL[functions[i]] for i in sorted(numbers)
                          if functions[i] in _ORIGINAL})


def install(blob: bytes) -> None:
    """Give the functions in `blob` (from `codes`) their own code back."""
    functions = list(_INDEX)
    for i, code in (marshal.loads(blob) if blob else {}).items():
        functions[i].__code__ = code


def apply(allowed, denied=()) -> None:
    """Lock every course function except those under `allowed` (and not under `denied`);
    `apply(None)` unlocks everything. Entries are dotted names: a module, a class, a
    function or a method ('bpe_course.regex_tokenizer.RegexTokenizer.encode')."""
    register(load=allowed is not None)
    for func, code in _ORIGINAL.items():
        locked = is_locked(_name(func), allowed, denied)
        func.__code__ = _stub(func, _name(func)) if locked else code
        if locked and func in _CACHES:
            _CACHES[func].cache_clear()
    _STATE["locked"] = allowed is not None
    _STATE["current"] = None if allowed is None else (list(allowed), list(denied))
    if allowed is not None and _GUARD not in sys.meta_path:
        sys.meta_path.insert(0, _GUARD)


def seal() -> None:
    """Forget the original code of every function locked now: no later `apply` in this
    process (the learner's included) can bring it back. The grader's driver seals right
    after locking, before any of the learner's code runs."""
    for func in [f for f in _ORIGINAL if f.__code__ is not _ORIGINAL[f]]:
        del _ORIGINAL[func]
        _CACHES.pop(func, None)


def current():
    """The lock in force, as `(allowed, denied)`, or None."""
    return _STATE.get("current")


class _ImportGuard:
    """Refuses to import or reload a course module while a lock holds."""

    def find_spec(self, fullname, path=None, target=None):
        if _STATE["locked"] and (fullname == PACKAGE or fullname.startswith(PACKAGE + ".")):
            raise ImportError(f"{fullname} cannot be (re)loaded while your answer is checked: "
                              f"the course's code is off limits here")


_GUARD = _ImportGuard()


class locked:
    """`with locked(allowed, denied): ...` runs the block with the lock, then unlocks."""

    def __init__(self, allowed, denied=()):
        self.allowed, self.denied = list(allowed), list(denied)

    def __enter__(self):
        apply(self.allowed, self.denied)
        return self

    def __exit__(self, *exc):
        apply(None)
        return False
