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

import sys


def one_line(text) -> str:
    """`text` as one line: what the learner's code controls (an exception's message, a
    repr) is quoted inside the grader's lines, and may not start a line of its own (one
    that reads like the grader's, "hint: ...", where a hidden case's details are cut out
    by line, see `gradescope.results`).

    >>> one_line("a\\nhint: b\\u2028c")
    'a hint: b c'
    """
    return " ".join(str(text).splitlines())


class Raised:
    """An exception raised by code under test, kept as data: type name, message, where."""

    def __init__(self, type_name, message, where=""):
        self.type_name, self.message, self.where = map(one_line, (type_name, message, where))

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
        self.type_name, self.text = one_line(type_name), one_line(text)

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


MAX_SHARED_HASH = 16     # distinct values of an answer that may share one hash value


def from_plain(x):
    """An answer made by `to_plain` (and sent as JSON) back as Python data; dicts and sets
    are rebuilt only when no more than `MAX_SHARED_HASH` distinct values in it share a hash
    value, and an answer that has more is `Opaque`.

    Subtle: a dict or set built from values that all share one hash (every tuple over
    {-1, -2} does, since hash(-1) == hash(-2); so do the ints k * (2**61 - 1)) costs time
    quadratic in its size, to build and to look up: 20,000 such keys take seconds, and the
    answer cap admits 300,000. So the values are first unpacked without hashing, their
    hashes sorted (no hash table), and the runs of equal hashes counted: then every dict
    or set the grader builds from an answer, here or later in a checker's diagnosis,
    probes at most `MAX_SHARED_HASH` values per lookup, and reading an answer costs
    O(n log n) in its size. Honest answers (token ids, pairs of ids, strings, whose hash
    is salted) never come near it.

    >>> from_plain({"dict": [[{"tuple": [-1, -2]}, 1], [{"tuple": [-2, -1]}, 2]]})
    {(-1, -2): 1, (-2, -1): 2}
    >>> flood = [[{"tuple": [-1 - (i >> b & 1) for b in range(12)]}, i] for i in range(4096)]
    >>> from_plain({"dict": flood})
    an answer in which 17 or more distinct values share one hash value
    """
    data = _unpack(x)
    crowded = _crowded(data)
    if crowded:
        return Opaque("?", f"an answer in which {crowded} or more distinct values share "
                           f"one hash value")
    return _pack(data)


_MODULUS = sys.hash_info.modulus     # hash(n) is n modulo this (2**61 - 1 on 64 bits)


class _Pairs(list):
    """A dict's pairs, or a set's items (`is_set`), unpacked but not yet hashed."""
    is_set = False


def _unpack(x):
    if isinstance(x, list):
        return [_unpack(v) for v in x]
    if not isinstance(x, dict):
        return x
    (tag, value), = x.items()
    if tag == "tuple":
        return tuple(_unpack(v) for v in value)
    if tag == "bytes":
        return bytes.fromhex(value)
    if tag == "dict":
        return _Pairs((_hashable(_unpack(k)), _unpack(v)) for k, v in value)
    if tag == "set":
        items = _Pairs(_hashable(_unpack(v)) for v in value)
        items.is_set = True
        return items
    if tag == "raised":
        return Raised(*value)
    return Opaque(*value)


def _pack(x):
    if isinstance(x, _Pairs):
        if x.is_set:
            return {_pack(v) for v in x}
        return {_pack(k): _pack(v) for k, v in x}
    if isinstance(x, list):
        return [_pack(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_pack(v) for v in x)
    return x


def _hashables(x, found: list) -> None:
    """Every hashable value in `x` (dict keys, set items, tuples, scalars), depth first."""
    if isinstance(x, _Pairs):
        for item in x:
            if x.is_set:
                found.append(item)
                _hashables(item, found)
            else:
                found.append(item[0])
                _hashables(item[0], found)
                _hashables(item[1], found)
    elif isinstance(x, list):
        for v in x:
            _hashables(v, found)
    elif isinstance(x, tuple):
        found.append(x)
        for v in x:
            _hashables(v, found)
    elif isinstance(x, int):
        if not -_MODULUS < x < _MODULUS:  # smaller ints share a hash only as -1 and -2
            found.append(x)
    elif isinstance(x, (float, str, bytes)):
        found.append(x)


def _crowded(data) -> int:
    """`MAX_SHARED_HASH` + 1 if more than that many distinct values of `data` share a hash
    value, else 0, without building any hash table."""
    values = []
    _hashables(data, values)
    hashed = []
    for i, v in enumerate(values):
        try:
            hashed.append((hash(v), i))
        except TypeError:            # a tuple holding a list: never a key, never in a set
            continue
    hashed.sort()
    start = 0
    for end in range(1, len(hashed) + 1):
        if end < len(hashed) and hashed[end][0] == hashed[start][0]:
            continue
        if end - start > MAX_SHARED_HASH:
            distinct: list = []
            for _, i in hashed[start:end]:
                if values[i] not in distinct:
                    distinct.append(values[i])
                    if len(distinct) > MAX_SHARED_HASH:
                        return len(distinct)
        start = end
    return 0


def _hashable(x):
    return x if not isinstance(x, list) else tuple(_hashable(v) for v in x)
