"""Answers as plain data: what a case returned, raised or could not show, as JSON can carry it.

The learner's code runs inside the grader's sandbox; its answers are compared outside, in
the grader's own process. So every answer travels as JSON: lists, tuples, bytes, dicts
and sets survive the trip (`to_plain`, then `from_plain`), an exception becomes `Raised`
(its type, message and the learner's line), and anything else becomes `Opaque`, which
equals nothing. Subtle: a learner's object may lie about equality (a list subclass whose
`__eq__` says True); `to_plain` keeps only the plain value, so no lie survives the trip.

Standard library only, like `runner`: the grader's driver inside the sandbox
(`grading.inside_sandbox`) imports it before any learner code runs.
"""


class Raised:
    """An exception raised by code under test, kept as data: type name, message, where."""

    def __init__(self, type_name, message, where=""):
        self.type_name, self.message, self.where = type_name, message, where

    def __eq__(self, other):
        return isinstance(other, Raised) and self.type_name == other.type_name

    def __repr__(self):
        return f"Raised({self.type_name!r}, {self.message!r})"

    @property
    def not_attempted(self):
        return self.type_name == "NotImplementedError"


class Opaque:
    """An answer of a type that cannot travel as JSON; equal to nothing."""

    def __init__(self, type_name, text):
        self.type_name, self.text = type_name, text

    def __eq__(self, other):
        return False

    def __repr__(self):
        return self.text



def to_plain(x, depth=0):
    """`x` as JSON-ready data; `from_plain` turns it back.

    >>> import json
    >>> from_plain(json.loads(json.dumps(to_plain({(1, 2): [b"a", ("x",)]}))))
    {(1, 2): [b'a', ('x',)]}
    """
    if depth > 50:
        return {"opaque": ["deep", "a structure nested too deeply"]}
    if x is None or type(x) in (bool, int, float, str):
        return x
    for plain in (int, float, str):      # a subclass may redefine ==: keep the plain value
        if isinstance(x, plain):
            return plain(x)
    if isinstance(x, list):
        return [to_plain(v, depth + 1) for v in x]
    if isinstance(x, tuple):
        return {"tuple": [to_plain(v, depth + 1) for v in x]}
    if isinstance(x, (bytes, bytearray)):
        return {"bytes": bytes(x).hex()}
    if isinstance(x, dict):
        return {"dict": [[to_plain(k, depth + 1), to_plain(v, depth + 1)] for k, v in x.items()]}
    if isinstance(x, (set, frozenset)):
        return {"set": [to_plain(v, depth + 1) for v in x]}
    if isinstance(x, Raised):
        return {"raised": [x.type_name, x.message, x.where]}
    try:
        text = repr(x)
    except Exception:
        text = f"<{type(x).__name__} object>"
    return {"opaque": [type(x).__name__, text[:500]]}


def from_plain(x):
    if isinstance(x, list):
        return [from_plain(v) for v in x]
    if not isinstance(x, dict):
        return x
    (tag, value), = x.items()
    if tag == "tuple":
        return tuple(from_plain(v) for v in value)
    if tag == "bytes":
        return bytes.fromhex(value)
    if tag == "dict":
        return {_hashable(from_plain(k)): from_plain(v) for k, v in value}
    if tag == "set":
        return {_hashable(from_plain(v)) for v in value}
    if tag == "raised":
        return Raised(*value)
    return Opaque(*value)


def _hashable(x):
    return x if not isinstance(x, list) else tuple(_hashable(v) for v in x)
