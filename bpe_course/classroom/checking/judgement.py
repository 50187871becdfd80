"""Judging one answer: is it right, and if not, where does it differ from the expected one.

`judge` compares an answer with the expected one as plain data (`normal`: a learner's
object cannot claim to equal everything) and, when they differ, writes the two lines a
learner reads first, "expected: ..." and "got: ...", with where they first differ
(`difference`; for merges, the first merge that differs, with the bytes it makes).
`misuse` says why an object is not the learner's own to be judged at all (the course's
own function, a class inheriting the exercise from the course, a missing method).

>>> from bpe_course.classroom.worksheets import Case
>>> print(judge(Case("merge([1, 2], (1, 2), 256)"), [256], [256, 2]))
expected: [256]
got:      [256, 2]
the first 1 item agree, but you have 1 item more
"""

from __future__ import annotations

from ..worksheets import Case, Checker
from ..worksheets.common import escaped
from .runner import Raised, from_plain, to_plain


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


def an(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


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

