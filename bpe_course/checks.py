"""Checkers for the worksheets: run a learner's code on many cases, answer like a teacher.

One checker per thing a learner writes, named after it. Each takes the
learner's function or class, runs it on cases (edge cases first, see
`check_cases`), compares with the course's own version, and returns a
`Verdict`: passed with the number of cases, or the first case that failed
with its input, what was expected, what came back, and a hint. In a
notebook the verdict shows itself; failures go to stderr (a red box in
Jupyter), which is also how nbgrader knows a check cell failed.

A learner's exception is shown, never raised, so a worksheet always runs to
the end; `NotImplementedError` means "not attempted yet".

>>> from bpe_course import checks
>>> def merge(ids, pair, idx):            # forgets to skip past a merged pair
...     return [idx if (a, b) == pair else a for a, b in zip(ids, ids[1:] + [None])]
>>> verdict = checks.merge(merge)
>>> verdict.passed, verdict.cases
(False, 3)
>>> print(verdict.message.splitlines()[0])
❌ merge: case 3 of 12 failed.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from dataclasses import dataclass

from . import check_runner
from .check_cases import CHECKERS, COMPUTE, Case, Checker, Group
from .check_runner import Opaque, Raised, from_plain, to_plain


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


# -- judging one answer ---------------------------------------------------------------------

def normal(x):
    """An answer as plain data: a learner's object cannot lie about being equal."""
    return from_plain(to_plain(x))


def judge(case: Case, expected, got) -> str | None:
    """None if `got` is right for `case`; otherwise the lines saying what was wrong."""
    if isinstance(got, Raised):
        if isinstance(expected, Raised) and got == expected:
            if case.mention and case.mention not in got.message:
                return (f"expected: raises {expected.type_name} naming {case.mention!r}\n"
                        f"got:      {show(got)}")
            return None
        lines = f"{got.type_name}: {got.message}".rstrip(": ")
        return lines + (f"\n    (at {got.where})" if got.where else "")
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
    if type(expected) is not type(got):
        text += (f"\n(expected a {type(expected).__name__}, but your code returned "
                 f"{'a ' + type(got).__name__ if not isinstance(got, Opaque) else got.type_name})")
    else:
        text += difference(expected, got)
    return text


def show(x, limit: int = 300) -> str:
    if isinstance(x, Raised):
        return f"raises {x.type_name}: {x.message}"
    text = repr(x)
    if len(text) > limit:
        size = f" ({items(len(x))})" if hasattr(x, "__len__") else ""
        text = text[:limit] + f" …{size}"
    return text


def difference(expected, got) -> str:
    """Where two lists or dicts first differ, and for merges, which tokens they make."""
    if isinstance(expected, (list, tuple)):
        shorter = min(len(expected), len(got))
        if len(expected) != len(got) and expected[:shorter] == got[:shorter]:
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
        if _is_merges(expected) and _is_merges(got):
            return merges_difference(expected, got)
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


def merges_difference(expected: dict, got: dict) -> str:
    """Name the first merge (by id) that differs, with the bytes it makes."""
    def table(merges):
        vocab = {i: bytes([i]) for i in range(256)}
        rows = {}
        for (a, b), idx in sorted(merges.items(), key=lambda item: item[1]):
            if a in vocab and b in vocab:
                vocab[idx] = vocab[a] + vocab[b]
                rows[idx] = f"{(a, b)} = {vocab[a]!r} + {vocab[b]!r} -> {vocab[idx]!r}"
            else:
                rows[idx] = f"{(a, b)} (unknown ids)"
        return rows
    e, g = table(expected), table(got)
    for idx in sorted(set(e) | set(g)):
        if e.get(idx) != g.get(idx):
            return (f"\nfirst different merge, id {idx}:\n    expected {e.get(idx, 'none')}"
                    f"\n    got      {g.get(idx, 'none')}")
    return ""


# -- running a checker ------------------------------------------------------------------------

_EXPECTED: dict[tuple[str, int], list] = {}


def expected_answers(checker: Checker, index: int, group: Group) -> list:
    """The reference's answers for one group (computed once per process)."""
    key = (checker.name, index)
    if key not in _EXPECTED:
        wanted = [case.expected for case in group.cases]
        if any(w == COMPUTE for w in wanted):
            ran = [normal(a) for a, printed in check_runner.run_group(
                checker.target, checker.reference(), shipped(group), time_limit=600)]
            wanted = [r if w == COMPUTE else w for r, w in zip(ran, wanted)]
        _EXPECTED[key] = wanted
    return _EXPECTED[key]


def shipped(group: Group) -> dict:
    """A group as `check_runner` takes it (and as the grader sends it, in JSON)."""
    return {"env": group.env, "setup": group.setup, "cases": [c.code for c in group.cases],
            "time_limit": group.time_limit, "setup_time_limit": group.setup_time_limit}


def misuse(checker: Checker, info: dict) -> str | None:
    """Why the learner's object is not theirs to be checked (the course's own, a subclass
    of it, or the wrong kind of thing), or None."""
    target = checker.target
    if info.get("missing"):
        return f"there is no `{target}` in the notebook: define it (with that name)."
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


def failure_message(checker: Checker, group: Group, case: Case, number: int, total: int,
                    problem: str, got, printed: str = "") -> str:
    """The teacher's answer: which case, the code to reproduce it, what differed, a hint."""
    kind = ("took too long" if isinstance(got, Raised) and got.type_name == "TimeoutError"
            else "raised an exception" if isinstance(got, Raised) else "failed")
    lines = [f"❌ {checker.name}: case {number} of {total} {kind}."]
    code = (group.setup + "\n" + case.code) if group.setup else case.code
    lines += ["    " + line for line in code.splitlines()]
    for name, doc in group.env_doc.items():
        if name in code:
            lines.append(f"where {name} = {doc}")
    for name, value in group.env.items():
        if name in code and name not in group.env_doc:
            lines.append(f"where {name} = {show(value, 120)}")
    lines += problem.splitlines()
    if printed.strip():
        shown = printed.strip().splitlines()
        lines.append("your code printed:")
        lines += ["    " + line[:120] for line in shown[:5]]
        if len(shown) > 5:
            lines.append(f"    … ({len(shown) - 5} more lines)")
    if case.hint:
        lines += textwrap.wrap("hint: " + case.hint, width=92, subsequent_indent="      ")
    return "\n".join(lines)


def not_attempted(checker: Checker) -> Verdict:
    return Verdict(False, 1, f"⏳ {checker.name}: not attempted yet. Write `{checker.target}` "
                   f"in the cell above (replace `raise NotImplementedError()`), run that cell, "
                   f"then run this one again.", attempted=False)


def check(name: str, target, hidden: bool = False, time_limit: float = 30.0) -> Verdict:
    """Run checker `name` on the learner's `target`; `hidden=True` adds the grader's cases.

    Each case may take `time_limit` seconds (some groups allow more, such as
    loading GPT-4's 100,000 merges).
    """
    checker = CHECKERS[name]
    problem = misuse(checker, check_runner.describe(target, checker.own))
    if problem:
        return Verdict(False, 0, f"❌ {name}: {problem}")
    groups = [(i, g) for i, g in enumerate(checker.groups()) if hidden or not g.hidden]
    total = sum(len(g.cases) for i, g in groups)
    number = 0
    for index, group in groups:
        wanted = expected_answers(checker, index, group)
        answers = check_runner.run_group(checker.target, target, shipped(group), time_limit)
        for case, expected, (got, printed) in zip(group.cases, wanted, answers):
            number += 1
            got = normal(got)
            problem = judge(case, expected, got)
            if problem is None:
                continue
            if isinstance(got, Raised) and got.not_attempted and number == 1:
                return not_attempted(checker)
            return Verdict(False, number, failure_message(checker, group, case, number, total,
                                                          problem, got, printed))
    return Verdict(True, number, f"✅ {name}: passed all {number} cases.")


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
        where = check_runner.caught(exc).where
        print(f"❌ {type(exc).__name__}: {exc}" + (f"\n    (at {where})" if where else ""),
              file=sys.stderr)


# -- one checker per thing a learner writes ------------------------------------------------------

def utf8_bytes(fn) -> Verdict:
    """Worksheet 01: `fn(text) -> list[int]`, the UTF-8 bytes of `text`."""
    return check("utf8_bytes", fn)


def code_points_and_bytes(fn) -> Verdict:
    """Worksheet 01: `fn(text) -> (number of code points, number of UTF-8 bytes)`."""
    return check("code_points_and_bytes", fn)


def safe_decode(fn) -> Verdict:
    """Worksheet 01: `fn(byte_list) -> str`, decoding UTF-8 with U+FFFD for broken bytes."""
    return check("safe_decode", fn)


def get_stats(fn) -> Verdict:
    """Worksheet 02: `fn(ids, counts=None) -> {pair: count}`, adding to `counts` if given."""
    return check("get_stats", fn)


def merge(fn) -> Verdict:
    """Worksheet 02: `fn(ids, pair, idx) -> list[int]`, every `pair` replaced by `idx`."""
    return check("merge", fn)


def basic_tokenizer(cls) -> Verdict:
    """Worksheet 02: a `BasicTokenizer` class with `train`, `encode`, `decode`, `merges`, `vocab`."""
    return check("basic_tokenizer", cls)


def chunked_stats(fn) -> Verdict:
    """Worksheet 04: `fn(chunks) -> {pair: count}`, pairs counted inside each chunk only."""
    return check("chunked_stats", fn)


def regex_tokenizer(cls) -> Verdict:
    """Worksheet 04: a `RegexTokenizer(pattern=None)` class that trains and encodes by chunks."""
    return check("regex_tokenizer", cls)


def split_special(fn) -> Verdict:
    """Worksheet 05: `fn(text, tokens) -> list[str]`, text cut around special tokens."""
    return check("split_special", fn)


def special_tokens(cls) -> Verdict:
    """Worksheet 05: `register_special_tokens` and every `allowed_special` mode of `encode`."""
    return check("special_tokens", cls)


def save_load(cls) -> Verdict:
    """Worksheet 05: `save(prefix)` writes plain text that `load(prefix + ".model")` restores."""
    return check("save_load", cls)


def recover_merges(fn) -> Verdict:
    """Worksheet 06: `fn(ranks) -> {(left rank, right rank): rank}` from tiktoken's ranks."""
    return check("recover_merges", fn)


def gpt4_tokenizer(cls) -> Verdict:
    """Worksheet 06: `cls(encoding_name)` encodes and decodes exactly like tiktoken."""
    return check("gpt4_tokenizer", cls)


def count_pretokens(fn) -> Verdict:
    """Worksheet 07: `fn(text, special_tokens=(), pattern=...) -> {pre-token: count}`."""
    return check("count_pretokens", fn)


def train_bpe(fn) -> Verdict:
    """Worksheet 07: `fn(text, vocab_size, special_tokens=(), pattern=...) -> (vocab, merges)`,
    the naive trainer's merges, at least 10x faster."""
    return check("train_bpe", fn)
