"""Answers read by the trusted side are data: reading one costs O(n log n) in its size, even
when it is built so that every value collides in Python's hash (issue 33, item 3a).

No test here depends on timing: the bound is checked by counting the equality comparisons
the grader makes between the answer's values, which a hash flood makes quadratic."""

from __future__ import annotations

import json

import pytest

from bpe_course.classroom.checking.plain import (
    MAX_SHARED_HASH,
    Opaque,
    from_plain,
    to_plain,
)
from bpe_course.classroom.grading import scoring, speed


class Counted(tuple):
    """A tuple that counts how often it is compared (no hash of its own: a tuple's)."""
    comparisons = 0

    def __eq__(self, other):
        Counted.comparisons += 1
        return tuple.__eq__(self, other)

    __hash__ = tuple.__hash__


def colliding_keys(n: int, width: int = 17) -> list[list[int]]:
    """n distinct tuples over {-1, -2}: all share one hash, since hash(-1) == hash(-2)."""
    return [[-1 - (i >> b & 1) for b in range(width)] for i in range(n)]


def test_colliding_keys_really_collide():
    keys = [tuple(k) for k in colliding_keys(1000)]
    assert len(set(keys)) == 1000 and len({hash(k) for k in keys}) == 1


@pytest.mark.parametrize("tag", ["dict", "set", "list"])
def test_an_answer_of_colliding_values_is_refused(tag):
    n = 20_000
    if tag == "dict":
        plain = {"dict": [[{"tuple": k}, i] for i, k in enumerate(colliding_keys(n))]}
    elif tag == "set":
        plain = {"set": [{"tuple": k} for k in colliding_keys(n)]}
    else:                           # a list, which a diagnosis may turn into a set
        plain = [{"tuple": k} for k in colliding_keys(n)]
    got = scoring.decode(json.loads(json.dumps(plain)), [256 * 2**20])
    assert isinstance(got, Opaque)
    assert "share one hash value" in repr(got)


def test_refusing_a_flood_compares_a_bounded_number_of_values():
    """The values of one hash are compared with at most MAX_SHARED_HASH + 1 others each, and
    only until MAX_SHARED_HASH + 1 distinct ones are found: a handful of comparisons, where
    building the dict would make n * (n - 1) / 2."""
    import bpe_course.classroom.checking.plain as plain_module
    n = 5000
    data = plain_module._Pairs((Counted(k), i) for i, k in enumerate(colliding_keys(n)))
    Counted.comparisons = 0
    assert plain_module._crowded(data) == MAX_SHARED_HASH + 1
    assert Counted.comparisons <= (MAX_SHARED_HASH + 1) ** 2


def test_honest_answers_come_back_whole():
    merges = {(i, i + 1): 256 + i for i in range(5000)}
    for answer in [merges, {(-1, -2): 1, (-2, -1): 2}, [(-1,), (-2,)], {b"a", b"b"},
                   {"text": [1, 2, 3]}, [1, 1, 1], {(1, 2), (2, 1)}, 2**61 - 1]:
        assert from_plain(json.loads(json.dumps(to_plain(answer)))) == answer
    repeated = ({0: b"x"}, [v for k in range(40) for v in ("same", f"other {k}")])
    assert from_plain(json.loads(json.dumps(to_plain(repeated)))) == repeated


def test_big_ints_that_share_a_hash_are_refused():
    modulus = 2**61 - 1
    assert isinstance(from_plain({"set": [k * modulus for k in range(1, 100)]}), Opaque)
    assert isinstance(from_plain([k * modulus for k in range(1, 100)]), Opaque)


def test_the_speed_check_reads_its_answer_the_same_way():
    flood = {"dict": [[{"tuple": k}, i] for i, k in enumerate(colliding_keys(3000))]}
    entry = {"answers": [[flood]]}
    assert not speed._not_attempted(entry)
    assert isinstance(speed.decode(flood, [speed.MAX_ANSWER]), Opaque)


def test_unhashable_values_beside_hashable_ones_do_not_confuse_the_count():
    """A tuple that holds a dict cannot be hashed: skipped, the others still counted right
    (a trainer's (vocab, merges), the answer of worksheet 07's speed check)."""
    from bpe_course.training.trainer import train_bpe
    answer = train_bpe("the cat and the hat sat on the mat; " * 40, 320)
    assert from_plain(json.loads(json.dumps(to_plain(answer)))) == answer
    repeated = ({0: b"x"}, [v for k in range(40) for v in ("same", f"other {k}")])
    assert from_plain(json.loads(json.dumps(to_plain(repeated)))) == repeated
