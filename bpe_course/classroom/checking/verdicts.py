"""What a checker says: is an answer right, and if not, what kind of mistake it is.

`judge` compares one answer with the expected one (as plain data, so a learner's object
cannot claim to equal everything). When they differ, `diagnose` first recognises the kind
of mistake from what came back and how: the wrong type or shape, an empty result or
None, an exception (in the learner's code, or inside a course function the learner's line
called), no termination, an input changed, state shared between instances or calls, state
lost across save/load or a second registration, a text that does not come back from
decode, ids where bytes are wanted; then what the checker knows of its exercise's common
mistakes (`Checker.recognize`). Each kind is named in plain words (`KINDS`), with the
learner's own line where it can be found (`locate`, from the traceback or the learner's
source). Only when no kind is recognised does the case's own hint speak.

`failure_message` writes the teacher's answer: the failing case as code that runs when
pasted into a fresh cell of the worksheet (`reproduction`), what was expected and what
came back, what went wrong, and a hint. A `Verdict` carries it into the notebook;
`attempt` shows a learner's error in a cell that tries their code out, instead of
stopping the worksheet.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import inspect
import linecache
import re
import sys
import textwrap
from dataclasses import dataclass

from ..worksheets import Case, Checker, Group
from ..worksheets.common import escaped
from . import runner
from .runner import Opaque, Raised, from_plain, to_plain


@dataclass
class Verdict:
    """The result of a check: `passed`, how many `cases` ran, and the `message` to show."""
    passed: bool
    cases: int
    message: str
    attempted: bool = True

    def __str__(self) -> str:
        return self.message

    def _ipython_display_(self) -> None:
        print(self.message, file=sys.stdout if self.passed else sys.stderr)


@contextlib.contextmanager
def attempt():
    """For cells that try out the learner's code: show errors instead of raising them.

    `with checks.attempt(): ...` prints "not attempted yet" for NotImplementedError
    and the exception's type and message for anything else, so the worksheet
    runs on to the end.
    """
    try:
        yield
    except NotImplementedError:
        print("⏳ not attempted yet: this cell uses code you have not written yet.",
              file=sys.stderr)
    except Exception as exc:
        where = runner.caught(exc).where
        print(f"❌ {type(exc).__name__}: {exc}" + (f"\n    (at {where})" if where else ""),
              file=sys.stderr)


# -- judging one answer ---------------------------------------------------------------------

def normal(x):
    """An answer as plain data: a learner's object cannot lie about being equal."""
    return from_plain(to_plain(x))


def judge(case: Case, expected, got) -> str | None:
    """None if `got` is right for `case`; otherwise the lines saying what was expected and
    what came back."""
    if isinstance(got, Raised):
        if isinstance(expected, Raised) and got == expected:
            if case.mention and case.mention not in got.message:
                return (f"expected: raises {expected.type_name} naming {case.mention!r}\n"
                        f"got:      {show(got)}")
            return None
        if got.type_name == "TimeoutError":
            return (f"expected: {show(expected)}\n"
                    f"got:      no answer: it was stopped ({got.message}; TimeoutError)")
        text = f"expected: {show(expected)}\ngot:      raises {got.type_name}: {got.message}"
        return text.rstrip(": ") + (f"\n    (at {got.where})" if got.where else "")
    if isinstance(expected, Raised):
        mention = f" naming {case.mention!r}" if case.mention else ""
        return (f"expected: raises {expected.type_name}{mention}\n"
                f"got:      {show(got)} (no exception)")
    if case.judge == "at_least":
        if isinstance(got, (int, float)) and not isinstance(got, bool) and got >= expected:
            return None
        return f"expected: at least {expected}\ngot:      {show(got)}"
    if expected == got:
        return None
    text = f"expected: {show(expected)}\ngot:      {show(got)}"
    if type(expected) is type(got):
        text += difference(expected, got, case.tokens)
    return text


def show(x, limit: int = 300) -> str:
    if isinstance(x, Raised):
        return f"raises {x.type_name}: {x.message}"
    text = escaped(x)
    if len(text) > limit:
        size = f" ({items(len(x))})" if hasattr(x, "__len__") else ""
        text = text[:limit] + f" …{size}"
    return text


def difference(expected, got, tokens: dict | None = None) -> str:
    """Where two lists or dicts first differ, and for merges, which tokens they make
    (`tokens`, {id: bytes}, names the ids when they are not bytes then merges)."""
    if isinstance(expected, str):
        for i, (e, g) in enumerate(zip(expected, got)):
            if e != g:
                return (f"\nfirst difference at character {i}: expected {show(e, 20)}, "
                        f"got {show(g, 20)}")
        return ""
    if isinstance(expected, (list, tuple)):
        shorter = min(len(expected), len(got))
        if shorter and len(expected) != len(got) and expected[:shorter] == got[:shorter]:
            more = "more" if len(got) > len(expected) else "fewer"
            return (f"\nthe first {items(shorter)} agree, but you have "
                    f"{items(abs(len(got) - len(expected)))} {more}")
        if len(expected) <= 8 and len(got) <= 8:
            return ""                       # short lists: the two lines above say it all
        for i, (e, g) in enumerate(zip(expected, got)):
            if e != g:
                return f"\nfirst difference at index {i}: expected {show(e, 80)}, got {show(g, 80)}"
        return ""
    if isinstance(expected, dict):
        if tokens is not None or (_is_merges(expected) and _is_merges(got)):
            return merges_difference(expected, got, tokens)
        for key in sorted(set(expected) | set(got), key=repr):
            if key not in got:
                return f"\nmissing: {key!r}: {show(expected[key], 80)}"
            if key not in expected:
                return f"\nunexpected: {key!r}: {show(got[key], 80)}"
            if expected[key] != got[key]:
                return f"\nat {key!r}: expected {show(expected[key], 80)}, got {show(got[key], 80)}"
    return ""


def items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _is_merges(d: dict) -> bool:
    return all(isinstance(k, tuple) and len(k) == 2 and isinstance(v, int) and v >= 256
               for k, v in d.items())


def _id_order(idx) -> tuple:
    return (0, idx, "") if isinstance(idx, int) else (1, 0, repr(idx))


def merges_difference(expected: dict, got: dict, tokens: dict | None = None) -> str:
    """Name the first merge (by id) that differs, with the bytes it makes.

    Without `tokens` the ids below 256 are bytes and each merge makes the next
    token; with `tokens` ({id: bytes}, such as tiktoken's ranks turned around)
    every id is shown as its bytes there.
    """
    def table(merges):
        vocab = dict(tokens) if tokens is not None else {i: bytes([i]) for i in range(256)}
        rows = {}
        for pair, idx in sorted(merges.items(), key=lambda item: _id_order(item[1])):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                rows[idx] = f"{pair!r} (not a pair of ids)"
                continue
            a, b = pair
            if a in vocab and b in vocab:
                made = vocab[a] + vocab[b]
                if tokens is None:
                    vocab[idx] = made
                elif vocab.get(idx) != made:
                    made = f"{made!r}, but id {idx} is {vocab.get(idx, 'no token')!r}"
                    rows[idx] = f"{(a, b)} = {vocab[a]!r} + {vocab[b]!r} -> {made}"
                    continue
                rows[idx] = f"{(a, b)} = {vocab[a]!r} + {vocab[b]!r} -> {made!r}"
            else:
                rows[idx] = f"{(a, b)} (unknown ids)"
        return rows
    e, g = table(expected), table(got)
    for idx in sorted(set(e) | set(g), key=_id_order):
        if e.get(idx) != g.get(idx):
            return (f"\nfirst different merge, id {idx}:\n    expected {e.get(idx, 'none')}"
                    f"\n    got      {g.get(idx, 'none')}")
    return ""


def misuse(checker: Checker, info: dict) -> str | None:
    """Why the learner's object is not theirs to be checked (the course's own, a subclass
    of it, or the wrong kind of thing), or None."""
    target = checker.target
    if info.get("missing"):
        return (f"there is no `{target}` in the notebook: run the cell that defines it "
                f"(if that cell shows an error, a SyntaxError say, fix it first).")
    kind = info.get("kind", "something else")
    if kind != checker.kind:
        return f"`{target}` should be a {checker.kind}, but it is a {kind}."
    if info.get("course"):
        return (f"`{target}` is the course's own {info.get('module')}.{info.get('name')}, not yours: "
                f"write it yourself in the cell above.")
    for base in info.get("bases", []):
        if base.startswith("bpe_course") and base not in checker.allowed_bases:
            return (f"`{target}` inherits from the course's {base}, which already does this "
                    f"exercise: write the class yourself.")
    for method, owner in dict(info.get("methods") or {}).items():
        if owner is None or owner.startswith("bpe_course"):
            where = "is missing" if owner is None else f"comes from the course's {owner}"
            return f"`{target}.{method}` {where}: this exercise is to write it yourself."
    return None


# -- what kind of mistake -------------------------------------------------------------------------

# Each kind of mistake, as the message names it (tests look for these words).
KINDS = {
    "hangs": "it did not stop",
    "offlimits": "called the course's own code",
    "course_error": "error inside the course's",
    "exception": "your code raised",
    "wrong_error": "raised the wrong exception",
    "no_error": "did not raise",
    "none": "returned None",
    "type": "wrong type",
    "shape": "wrong shape",
    "ids_for_bytes": "ids where bytes are wanted",
    "bytes_for_ids": "bytes where ids are wanted",
    "empty": "empty result",
    "mutated": "changed its input",
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


def _an(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


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
        return Diagnosis("none", f"{what} returned None, where {_an(_kind_of(expected))} "
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
        return Diagnosis("type", f"wrong type: {what} returned {_an(_kind_of(got))}, where "
                         f"{_an(_kind_of(expected))} is expected.")
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
    if isinstance(expected, Raised):
        return Diagnosis("wrong_error", f"it raised the wrong exception: {got.type_name} "
                         f"instead of {expected.type_name}" + (
                             f" ({learner})" if learner.startswith("line") else "") + ".",
                         final=False)
    course = _course_function(got.where)
    if course:
        name = course.rsplit(".", 1)[-1]
        return Diagnosis("course_error", f"an error inside the course's {name}, called "
                         f"from your code (the line above): it raised {got.type_name}, "
                         f"because what your code passed it is not what it expects.",
                         final=False)
    words = EXCEPTION_WORDS.get(got.type_name, "")
    return Diagnosis("exception", f"your code raised {got.type_name}"
                     + (f": {words}." if words else " (the line is shown above)."),
                     final=False)


def _param(case: Case, index: int) -> str:
    """The name of argument `index` in an `unchanged` case (`ids` in `merge(ids, ...)`)."""
    call = case.code.strip().splitlines()[-2] if "\n" in case.code else case.code
    found = re.search(r"\((.*)\)", call)
    names = [n.strip() for n in found.group(1).split(",")] if found else []
    return names[index] if index < len(names) else f"argument {index + 1}"


def _probed(checker: Checker, case: Case, expected, got, inputs: dict) -> Diagnosis | None:
    """What a case's probe says about a wrong answer (see `Case.probe`)."""
    probe = case.probe
    target = checker.target
    if probe.startswith("unchanged:") and isinstance(expected, tuple) and isinstance(
            got, tuple) and len(got) == 2:
        name = _param(case, int(probe.split(":")[1]))
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
    if isinstance(got, Raised) and probe not in ("lost", "round_trip", "fresh"):
        return None
    if probe == "fresh":
        return Diagnosis("shared", shared_text(target))
    if probe == "lost":
        words = (f"it raised {got.type_name}: {got.message[:100]}" if isinstance(got, Raised)
                 else f"it gave {show(got, 100)} instead of {show(expected, 100)}")
        return Diagnosis("lost", f"state lost: the tokenizer does not hold what it held "
                         f"before (after load, or after another registration): {words}. "
                         f"Restore everything, each part from what was saved or registered: "
                         f"the pattern recompiled, the merges, the special tokens, and the "
                         f"vocab rebuilt from them last.", final=False)
    if probe == "round_trip":
        words = (f"it raised {got.type_name}: {got.message[:100]}" if isinstance(got, Raised)
                 else f"it gave {show(got, 100)} instead of {show(expected, 100)}")
        return Diagnosis("round_trip", f"decode does not give the text back: {words}. "
                         f"decode joins the bytes of each id (self.vocab) and decodes the "
                         f"whole with errors='replace'.", final=False)
    if probe == "text" and got is False:
        return Diagnosis("not_text", "save wrote a file that is not a text file (a pickle?): "
                         "a loader that unpickles runs whatever code the file holds, so a "
                         "pickle is never loaded. Write text: JSON, or lines of your own.")
    if probe == "by_hand" and got is not expected:
        return Diagnosis("by_hand", "not by hand: your function calls str.encode (or "
                         "another encoder), which this exercise asks you to do yourself "
                         "with shifts and masks.")
    return None


def shared_text(target: str) -> str:
    return (f"state shared between instances or calls: what came back carries what an "
            f"earlier {target} (or an earlier call) did, where this case starts afresh. A "
            f"dict or list written in the class body (a class attribute) or as a default "
            f"argument (`def f(x, counts={{}})`) is made once and shared by every instance "
            f"and call: create it inside the function or __init__ (and reset it where the "
            f"work starts again, as at the start of train).")


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


# -- the learner's own line -------------------------------------------------------------------

MUTATORS = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear",
            "update", "setdefault", "popitem", "add", "discard", "__setitem__",
            "__delitem__"}
MAX_SOURCE = 500_000          # characters of a learner's source read, at most


def source_of(target) -> tuple[str, int]:
    """The learner's source around `target` (the cell or file it was defined in) and the
    line where it starts there, or ("", 0)."""
    functions = []
    if inspect.isfunction(target):
        functions = [target]
    elif isinstance(target, type):
        functions = [v for v in vars(target).values() if inspect.isfunction(v)]
    for function in functions:
        code = function.__code__
        lines = linecache.getlines(code.co_filename)
        if lines:
            return "".join(lines), code.co_firstlineno
    return "", 0


def _parse(source: str):
    if not source or len(source) > MAX_SOURCE:
        return None
    try:
        return ast.parse("\n".join(line if not line.lstrip().startswith(("%", "!")) else ""
                                   for line in source.splitlines()))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _definition(tree, target: str, line: int):
    """The def or class named `target`: the one holding `line` if given, else the last."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == target:
            end = getattr(node, "end_lineno", node.lineno)
            if line and node.lineno <= line <= end:
                return node
            found = found or node if line else node
    if line:                     # a method's line: the class around it
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.lineno <= line <= getattr(
                    node, "end_lineno", node.lineno) and node.name == target:
                return node
    return found


def _quote(lines: list[str], number: int) -> str:
    return f"line {number} of your code: {lines[number - 1].strip()}"


def locate(sources, target: str, kind: str, name: str = "", line: int = 0) -> str:
    """The learner's line that shows a mistake of `kind`, as "line N of your code: ...",
    from their source (one text, or a list of cells): for "mutated", where `name` (a
    parameter, or its position as digits) is changed; for "shared", a dict or list in the class body or as a default
    argument; for "none", a function without a `return` of a value. "" if not found."""
    texts = [sources] if isinstance(sources, str) else list(sources or ())
    for source in reversed(texts):
        tree = _parse(source)
        if tree is None:
            continue
        node = _definition(tree, target, line)
        if node is None:
            continue
        lines = source.splitlines()
        found = _find(node, kind, name)
        if found:
            return _quote(lines, found)
    return ""


def _mutable(node) -> bool:
    return isinstance(node, (ast.Dict, ast.List, ast.Set)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id in ("dict", "list", "set", "defaultdict", "Counter"))


def _find(node, kind: str, name: str) -> int:
    if kind == "shared":
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None \
                        and _mutable(item.value):
                    return item.lineno
        for item in ast.walk(node):
            if isinstance(item, ast.FunctionDef):
                if any(_mutable(d) for d in item.args.defaults + item.args.kw_defaults if d):
                    return item.lineno
        return 0
    if kind == "mutated" and name.isdigit():       # the learner's name for argument K
        params = [a.arg for a in node.args.args if a.arg != "self"] \
            if isinstance(node, ast.FunctionDef) else []
        return _find(node, kind, params[int(name)]) if int(name) < len(params) else 0
    if kind == "mutated" and name:
        for item in ast.walk(node):
            targets = []
            if isinstance(item, (ast.Assign, ast.Delete)):
                targets = item.targets
            elif isinstance(item, ast.AugAssign):
                targets = [item.target]
                if isinstance(item.target, ast.Name) and item.target.id == name:
                    return item.lineno
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                        t.value.id == name:
                    return item.lineno
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and \
                    item.func.attr in MUTATORS and isinstance(item.func.value, ast.Name) and \
                    item.func.value.id == name:
                return item.lineno
        return 0
    if kind == "none" and isinstance(node, ast.FunctionDef):
        returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
        return 0 if returns else node.lineno
    return 0


def _where(diagnosis: Diagnosis, case: Case, target: str, sources, line: int) -> str:
    if not sources or diagnosis.kind not in ("mutated", "shared", "none"):
        return ""
    index = ""
    if diagnosis.kind == "mutated" and case.probe.startswith("unchanged:"):
        index = case.probe.split(":")[1]
    return locate(sources, target, diagnosis.kind, index, line)


# -- the failing case, as code to paste ----------------------------------------------------------

HELPERS = {"text_file": "from bpe_course.classroom.checking.runner import text_file",
           "seconds": "from bpe_course.classroom.checking.runner import seconds",
           "naive_seconds": "from bpe_course.classroom.checking.checks import naive_seconds"}


def _uses(name: str, code: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", code) is not None


def _imports(expression: str) -> list[str]:
    """`import` lines that make the dotted course names in `expression` usable."""
    lines = []
    for dotted in re.findall(r"\bbpe_course(?:\.\w+)+", expression):
        parts = dotted.split(".")
        module = "bpe_course"
        for k in range(len(parts), 1, -1):
            name = ".".join(parts[:k])
            try:
                if importlib.util.find_spec(name) is not None:
                    module = name
                    break
            except (ImportError, ValueError, AttributeError):
                continue
        line = f"import {module}"
        if line not in lines:
            lines.append(line)
    if re.search(r"\bregex\.", expression) and "import regex" not in lines:
        lines.append("import regex")
    return lines


def reproduction(group: Group, case: Case) -> list[str]:
    """The case as code that runs when pasted into a fresh cell of its worksheet: the
    imports and named inputs it needs, its group's setup, then the case itself."""
    body = (group.setup + "\n" + case.code) if group.setup else case.code
    imports, inputs = [], []
    for name in (n for n in HELPERS if _uses(n, body)):
        imports.append(HELPERS[name])
    if _uses("TMP", body):
        imports.append("import tempfile")
        inputs.append("TMP = tempfile.mkdtemp()")
    for name, value in group.env.items():
        if not _uses(name, body):
            continue
        doc = group.env_doc.get(name)
        if doc is None:
            text = escaped(value)
            doc = text if len(text) <= 400 else None
        if doc is None:
            inputs.append(f"# {name}: {_an(type(value).__name__)} of {len(value)} items, "
                          f"too long to show")
            continue
        imports += [line for line in _imports(doc) if line not in imports]
        inputs.append(f"{name} = {doc}")
    if any(line.startswith("import bpe_course.") for line in imports):
        imports = [line for line in imports if line != "import bpe_course"]
    return imports + inputs + body.splitlines()


def failure_message(checker: Checker, group: Group, case: Case, number: int, total: int,
                    problem: str, got, printed: str = "", source=None, line: int = 0,
                    expected=None) -> str:
    """The teacher's answer: which case, the code to reproduce it, what differed, what
    kind of mistake it is (with the learner's line when it can be found), and a hint.
    `source` is the learner's code (a text or a list of cells) and `line` where the
    checked object starts there, for `locate`."""
    timed_out = isinstance(got, Raised) and got.type_name == "TimeoutError"
    status = ("took too long" if timed_out else "raised an exception"
              if isinstance(got, Raised) else "failed")
    lines = [f"❌ {checker.name}: case {number} of {total} {status}."]
    lines += ["    " + text for text in reproduction(group, case)]
    lines += problem.splitlines()
    if printed.strip():
        shown = printed.strip().splitlines()
        lines.append("your code printed:")
        lines += ["    " + text[:120] for text in shown[:5]]
        if len(shown) > 5:
            lines.append(f"    … ({len(shown) - 5} more lines)")
    try:                    # naming the mistake must never cost the learner the message
        inputs = inputs_of(case.code, group.env, checker.target)
        diagnosis = diagnose(checker, case, expected, got, inputs)
        where = _where(diagnosis, case, checker.target, source, line) if diagnosis else ""
    except Exception:
        diagnosis, where = None, ""
    if diagnosis is not None:
        lines += textwrap.wrap("what went wrong: " + diagnosis.text, width=92,
                               subsequent_indent="    ")
        if where:
            lines.append(f"    {where}")
    hint = hint_for(case, got, diagnosis)
    if hint:
        lines += textwrap.wrap("hint: " + hint, width=92, subsequent_indent="      ")
    return "\n".join(lines)
