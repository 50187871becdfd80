"""Diagnosing a wrong answer: what kind of mistake it shows, in plain words.

When an answer differs from the expected one, `diagnose` recognises the kind of mistake
from what came back and how, in this order:

1. what the case probes besides its value (`Case.probe`, looked up in `PROBES`, or in the
   probes of the checker's worksheet): an input changed, the input itself returned
   where a new object is asked, state shared between instances or calls, an attribute the
   constructor must set, and the worksheet's own (state lost across save/load, a text that
   does not come back from decode, a file that is not text, UTF-8 not by hand);
2. an exception (in the learner's code, or inside a course function the learner's line
   called), no termination, or no exception where one is asked;
3. the structure of what came back: the wrong type or shape, an empty result or None, ids
   where bytes are wanted;
4. what the checker knows of its exercise's common mistakes (`Checker.recognize`);
5. the right items in another order.

Each kind is named in plain words (`KINDS`, or the checker's own). `hint_for` then picks
the hint: the case's hint keyed by the diagnosis (its *when* field), else its own hint, which
says what the case checks and names no mistake; a diagnosis that says it all leaves it out.
"""

from __future__ import annotations

import ast
import contextlib
import re
from dataclasses import dataclass

from ..worksheets import Case, Checker
from ..worksheets.common import escaped
from .judgement import an, items, show
from .runner import Opaque, Raised

# -- the kinds of mistake -----------------------------------------------------------------

KINDS = {
    "hangs": "it did not stop",
    "offlimits": "called the course's own code",
    "course_error": "error inside the course's",
    "exception": "your code raised",
    "wrong_error": "raised the wrong exception",
    "error_words": "its message does not name",
    "no_error": "did not raise",
    "none": "returned None",
    "type": "wrong type",
    "shape": "wrong shape",
    "ids_for_bytes": "ids where bytes are wanted",
    "bytes_for_ids": "bytes where ids are wanted",
    "empty": "empty result",
    "mutated": "changed its input",
    "aliased": "returned its input itself",
    "attribute": "does not set",
    "shared": "state shared",
    "lost": "state lost",
    "round_trip": "does not give the text back",
    "not_text": "not a text file",
    "by_hand": "not by hand",
    "order": "in a different order",
    "slow": "not fast enough",
}


@dataclass
class Diagnosis:
    kind: str                  # a key of KINDS, or a checker's own (see Checker.recognize)
    text: str                  # plain words, the kind's words among them
    final: bool = True         # False: the case's hint still helps after it


def inputs_of(code: str, env: dict, target: str) -> dict:
    r"""The inputs of a case, read from its code without running it: literal assignments
    (`ids = [1, 2, 3]`) and the named inputs of the group resolve names; `args` are the
    arguments of the call that gives the answer (the last line's outermost call, such as
    `tok.encode('abc')`, or the last call of `target` when the last line only reads what it
    made), None where an argument is not known, `func` its name, and `last` the last line
    (a recogniser may evaluate it on a mistake it models).

    >>> inputs_of("ids = [1, 2]\nresult = merge(ids, (1, 2), 256)\n(result, ids)", {}, "merge")
    {'args': [[1, 2], (1, 2), 256], 'func': 'merge', 'last': '(result, ids)'}
    """
    found: dict = {}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return found
    known = dict(env)

    def value(arg):
        if isinstance(arg, ast.Name):
            return known.get(arg.id)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in (
                "dict", "list", "tuple") and len(arg.args) == 1 and not arg.keywords:
            inner = value(arg.args[0])          # dict(WORDS): a copy of a known input
            return None if inner is None else {"dict": dict, "list": list,
                                               "tuple": tuple}[arg.func.id](inner)
        try:
            return ast.literal_eval(arg)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError,
                                     RecursionError):
                found_value = value(node.value)
                if found_value is not None:
                    known[node.targets[0].id] = found_value

    def name(func) -> str:
        return (func.id if isinstance(func, ast.Name) else
                f"{name(func.value)}.{func.attr}" if isinstance(func, ast.Attribute) else "?")

    last = tree.body[-1] if tree.body else None
    mine = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
            isinstance(n.func, ast.Name) and n.func.id == target]
    calls = [n for n in ast.walk(last) if isinstance(n, ast.Call)] if isinstance(
        last, ast.Expr) else []
    if mine and not any(call in mine for call in calls):
        calls = mine[-1:]                   # the target's call sets up what the last line reads
    elif mine:
        calls = [call for call in calls if call in mine][:1]
    if calls and name(calls[0].func) != "?":
        found["args"] = [value(arg) for arg in calls[0].args]
        found["func"] = name(calls[0].func)
        found.update({"kwargs": {k.arg: value(k.value) for k in calls[0].keywords if k.arg}}
                     if calls[0].keywords else {})
    if isinstance(last, ast.Expr):
        found["last"] = ast.unparse(last.value)
    return found


def _kind_of(x) -> str:
    if isinstance(x, Opaque):
        return x.type_name
    return type(x).__name__


def _elements(x) -> set:
    """The types of the items of `x` (of the items of its tuples too, one level down, and
    of a dict's keys and values): what a list of merges or a vocab is made of."""
    if isinstance(x, dict):
        return _elements(list(x)) | _elements(list(x.values()))
    if not isinstance(x, (list, tuple, set)):
        return set()
    found = set()
    for v in x:
        if isinstance(v, tuple) and v:
            found |= {type(w) for w in v}
        else:
            found.add(type(v))
    return found


def _structure(expected, got, what: str = "your code") -> Diagnosis | None:
    """Wrong type, ids for bytes (or the other way), wrong shape, or an empty result."""
    if got is None and expected is not None:
        return Diagnosis("none", f"{what} returned None, where {an(_kind_of(expected))} "
                         f"is expected: a `return` is missing (or it changes something in "
                         f"place instead of returning a new value).")
    if type(expected) is not type(got):
        if isinstance(expected, list) and isinstance(got, (bytes, bytearray)) and \
                all(isinstance(v, int) for v in expected):
            return Diagnosis("type", f"wrong type: {what} returned bytes, where a list of "
                             f"ints is expected: list(...) turns bytes into their ints.")
        if isinstance(expected, (int, float)) and isinstance(got, (int, float)) and \
                not isinstance(got, bool):
            return None                     # 2 and 2.0: the values speak
        return Diagnosis("type", f"wrong type: {what} returned {an(_kind_of(got))}, where "
                         f"{an(_kind_of(expected))} is expected.")
    if isinstance(expected, (list, tuple, dict, set)) and expected and got:
        want, have = _elements(expected), _elements(got)
        missing, extra = want - have, have - want
        if extra == {int} and (missing == {bytes} or bytes in want):
            return Diagnosis("ids_for_bytes", f"{what} gave ids where bytes are wanted: "
                             f"each token should be a bytes object (such as b'ab'), not an "
                             f"int.")
        if extra == {bytes} and (missing == {int} or int in want):
            return Diagnosis("bytes_for_ids", f"{what} gave bytes where ids are wanted: "
                             f"each item should be an int id, not the bytes it stands for.")
        if want and have and want != have and not (want | have) <= {int, float}:
            names = ", ".join(sorted(t.__name__ for t in have))
            return Diagnosis("type", f"wrong type inside: the items {what} returned are "
                             f"{names}, where {', '.join(sorted(t.__name__ for t in want))} "
                             f"are expected.", final=False)
        if isinstance(expected, tuple) and len(expected) != len(got):
            return Diagnosis("shape", f"wrong shape: {what} returned a tuple of "
                             f"{len(got)}, where a tuple of {len(expected)} is expected.")
    if isinstance(expected, (list, tuple, dict, set, str, bytes)) and expected and not got:
        return Diagnosis("empty", f"empty result: {what} returned {escaped(got)}, where "
                         f"{items(len(expected)) if not isinstance(expected, str) else 'text'}"
                         f" {'are' if len(expected) != 1 else 'is'} expected.", final=False)
    return None


def _course_function(where: str) -> str:
    found = re.search(r"which called the course's ([\w.]+)", where or "")
    return found.group(1) if found else ""


def _learner_line(where: str) -> str:
    return (where or "").split("\n")[0].strip()


EXCEPTION_WORDS = {
    "IndexError": "an index past the end of a list (check the last position)",
    "KeyError": "a key that is not in the dict",
    "RecursionError": "a function that calls itself without end",
    "ZeroDivisionError": "a division by zero (what if the input is empty?)",
    "AttributeError": "an attribute that does not exist (a name set in another method, "
                      "or `self.` missing?)",
    "UnboundLocalError": "a variable used before it is given a value",
    "NameError": "a name that is not defined where it is used",
    "error": "re.error, a pattern the `re` module cannot read",
    "PatternError": "a pattern the `re` module cannot read",
}


def _raised(case: Case, expected, got: Raised, target: str) -> Diagnosis:
    learner = _learner_line(got.where)
    if got.type_name == "TimeoutError":
        at = (f" When it was stopped it was running {learner}." if learner.startswith("line")
              else "")
        return Diagnosis("hangs", f"it did not stop: {got.message}.{at} A loop whose "
                         f"position or condition never changes runs forever; an algorithm "
                         f"that is too slow for this input looks the same.", final=False)
    if got.type_name == "OffLimits" or "is off limits here" in got.message:
        return Diagnosis("offlimits", "your answer called the course's own code, which is "
                         "switched off while your answer is checked: write it yourself, "
                         "without calling the course's version (through super(), a wrapper "
                         "or a copy kept from an earlier cell).")
    line = f" ({learner})" if learner.startswith("line") else ""
    if isinstance(expected, Raised) and got == expected:       # the right type: its words
        return Diagnosis("error_words", f"it raised {got.type_name}, as asked, but its "
                         f"message does not name {case.mention!r}{line}: say in the message "
                         f"what is wrong, naming {case.mention!r}.", final=False)
    if isinstance(expected, Raised):
        return Diagnosis("wrong_error", f"it raised the wrong exception: {got.type_name} "
                         f"instead of {expected.type_name}{line}.", final=False)
    course = _course_function(got.where)
    if course:
        name = course.rsplit(".", 1)[-1]
        return Diagnosis("course_error", f"an error inside the course's {name}, called "
                         f"from your code (the line shown above): it raised {got.type_name}, "
                         f"because what your code passed it is not what it expects.",
                         final=False)
    words = EXCEPTION_WORDS.get(got.type_name, "")
    shown = " (the line is shown above)" if learner.startswith("line") else ""
    return Diagnosis("exception", f"your code raised {got.type_name}"
                     + (f": {words}{shown}." if words else f"{shown}."), final=False)


def _param(case: Case, index: int) -> str:
    """The name of argument `index` in an `unchanged` case (`ids` in `merge(ids, ...)`)."""
    call = case.code.strip().splitlines()[-2] if "\n" in case.code else case.code
    found = re.search(r"\((.*)\)", call)
    names = [n.strip() for n in found.group(1).split(",")] if found else []
    return names[index] if index < len(names) else f"argument {index + 1}"


# -- what a case probes besides its value (see `Case.probe`) ------------------------------------

def _unchanged(checker: Checker, case: Case, index: str, expected, got, inputs: dict):
    """"unchanged:K": the answer is (result, argument K afterwards)."""
    if not (isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == 2):
        return None
    target, name = checker.target, _param(case, int(index))
    if got[0] == expected[0] and got[1] != expected[1]:
        return Diagnosis("mutated", f"your {target} changed its input: the result is "
                         f"right, but afterwards `{name}` is {show(got[1], 120)} instead "
                         f"of {show(expected[1], 120)}. The caller keeps using it: leave "
                         f"`{name}` as it was (work on a copy, or build a new value).")
    inner = _structure(expected[0], got[0], f"your {target}") or _recognized(
        checker, inputs, expected[0], got[0])
    if inner and got[1] != expected[1]:
        inner.text += f" It also changed its input `{name}`."
    return inner


def _new_object(checker: Checker, case: Case, index: str, expected, got, inputs: dict):
    """"new:K": the answer is (the result is not argument K, the result)."""
    if not (isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == 2):
        return None
    target, name = checker.target, _param(case, int(index))
    inner = None
    if got[1] != expected[1]:
        inner = _structure(expected[1], got[1], f"your {target}") or _recognized(
            checker, inputs, expected[1], got[1])
    if got[0] is False:
        words = (f"your {target} returned its input itself (`{name}`), not a new "
                 f"{_kind_of(expected[1])}: " + ("the value is right, but " if inner is None
                                                 else "") +
                 "it is the very object the caller passed, so whoever changes one changes "
                 "the other (a trainer that merges again, a caller that appends). Return a "
                 "new one even when nothing changes: a copy (list(...), dict(...)) or a "
                 "value built afresh.")
        return Diagnosis("aliased", words + (f" Also: {inner.text}" if inner else ""))
    return inner


def _fresh(checker: Checker, case: Case, argument: str, expected, got, inputs: dict):
    """"fresh": a second instance, or a second call, must not see the first's state."""
    return Diagnosis("shared", shared_text(checker.target))


def _attribute(checker: Checker, case: Case, name: str, expected, got, inputs: dict):
    """"attr:NAME": the answer is an attribute the constructor must set."""
    if not isinstance(got, Raised):         # set, to something else: the case's hint says more
        return Diagnosis("attribute", f"your {checker.target} does not set `self.{name}` to "
                         f"what the worksheet asks: it should be {show(expected, 100)} here, "
                         f"and it is {show(got, 100)}.", final=False)
    if got.type_name != "AttributeError":
        return None                         # an error in the constructor: it speaks for itself
    return Diagnosis("attribute", f"your {checker.target} does not set `self.{name}`, which "
                     f"the worksheet asks for: it should be {show(expected, 100)} here, and "
                     f"reading it raised AttributeError. __init__ keeps it there, where the "
                     f"other methods (and a save) read it.")


# The probes every worksheet may use, by the name before the colon in `Case.probe`; a
# worksheet adds its own (`Worksheet.probes`), which say things only it knows.
PROBES = {"unchanged": _unchanged, "new": _new_object, "fresh": _fresh, "attr": _attribute}


def _probed(checker: Checker, case: Case, expected, got, inputs: dict) -> Diagnosis | None:
    """What a case's probe says about a wrong answer (see `Case.probe`)."""
    if not case.probe:
        return None
    name, _, argument = case.probe.partition(":")
    if name in PROBES:
        return PROBES[name](checker, case, argument, expected, got, inputs)
    own = checker.probes.get(name)
    found = own(expected, got) if own is not None else None
    if not found:
        return None
    kind, text, *final = found
    return Diagnosis(kind, text, *final)


def shared_text(target: str) -> str:
    return (f"state shared between instances or calls: what came back carries what an "
            f"earlier {target} (or an earlier call) did, where this case starts afresh. A "
            f"dict or list made outside the function (at the top of a cell), written in the "
            f"class body (a class attribute) or as a default argument "
            f"(`def f(x, counts={{}})`) is made once and shared by every instance and call, "
            f"and so is one that each call empties and returns again: create a new one "
            f"inside the function or __init__ (and reset it where the work starts again, as "
            f"at the start of train).")


def _recognized(checker: Checker, inputs: dict, expected, got) -> Diagnosis | None:
    """What the checker's own recogniser says; a kind of `KINDS` given without words (such
    as ("shared", "")) gets the standard words."""
    if checker.recognize is None:
        return None
    try:
        found = checker.recognize(inputs, expected, got)
    except Exception:                       # a recogniser meets an input it did not foresee
        return None
    if not found:
        return None
    kind, text = found
    if kind == "shared" and not text:
        text = shared_text(checker.target)
    return Diagnosis(kind, text)


def diagnose(checker: Checker, case: Case, expected, got, inputs: dict | None = None
             ) -> Diagnosis | None:
    """The kind of mistake a wrong answer shows, or None when nothing is recognised."""
    inputs = inputs if inputs is not None else {}
    probed = _probed(checker, case, expected, got, inputs)
    if probed is not None:
        return probed
    if isinstance(got, Raised):
        return _raised(case, expected, got, checker.target)
    if isinstance(expected, Raised):
        return Diagnosis("no_error", f"it did not raise: {expected.type_name} is expected "
                         f"here, and your code returned {show(got, 80)}.", final=False)
    if case.judge == "at_least":
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            return Diagnosis("slow", f"not fast enough: {got:g} times as fast as the naive "
                             f"trainer, where at least {expected:g} times is asked.",
                             final=False)
        return None
    structure = _structure(expected, got)
    if structure is not None and structure.final:
        return structure
    recognized = _recognized(checker, inputs, expected, got)
    if recognized is not None:
        return recognized
    if structure is not None:
        return structure
    if isinstance(expected, (list, tuple)) and isinstance(got, type(expected)) and \
            len(expected) == len(got) and expected != got:
        with contextlib.suppress(TypeError):
            if sorted(expected, key=repr) == sorted(got, key=repr):
                if isinstance(expected, tuple):
                    return Diagnosis("order", "the right items in a different order: return "
                                     "them in the order the worksheet asks.")
                if expected == sorted(expected, key=_sort_key):
                    return Diagnosis("order", "the right items in a different order: sort "
                                     "them (sorted(...)).")
    return None


def _sort_key(x):
    return (type(x).__name__, x) if isinstance(x, (int, str, bytes)) else (type(x).__name__, repr(x))


def hint_for(case: Case, got, diagnosis: Diagnosis | None) -> str:
    """The hint to show: one keyed by what came back (a case's `when`), else the case's own,
    which a diagnosis that says it all leaves out."""
    keys = [repr(got) if not isinstance(got, (Raised, Opaque)) else ""]
    if isinstance(got, Raised):
        keys += [f"course:{_course_function(got.where).rsplit('.', 1)[-1]}",
                 f"raised:{got.type_name}"]
    if diagnosis is not None:
        keys.append(diagnosis.kind)
    for key in keys:
        if key and key in case.when:
            return case.when[key]
    if diagnosis is not None and diagnosis.final:
        return ""
    return case.hint

