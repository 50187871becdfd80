"""get_stats, merge and the tie-break rule: the two primitives of BPE."""

import pytest

from bpe_course import best_pair, get_stats, merge


def test_get_stats_counts_adjacent_pairs():
    assert get_stats([1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}


def test_get_stats_of_empty_and_single_id_is_empty():
    assert get_stats([]) == {}
    assert get_stats([7]) == {}


def test_get_stats_adds_into_existing_counts():
    counts = get_stats([1, 2])
    assert get_stats([1, 2, 1], counts) is counts
    assert counts == {(1, 2): 2, (2, 1): 1}


def test_get_stats_counts_overlapping_pairs():
    assert get_stats([5, 5, 5]) == {(5, 5): 2}


@pytest.mark.parametrize("ids, expected", [
    ([1, 1, 1], [256, 1]),                  # overlapping run: only the left pair merges
    ([1, 1, 1, 1], [256, 256]),
    ([1, 1], [256]),
    ([2, 1, 1], [2, 256]),                  # pair at the end
    ([1, 1, 2], [256, 2]),                  # pair at the start
    ([], []),
    ([1], [1]),
    ([1, 2, 1, 2], [1, 2, 1, 2]),
])
def test_merge_handles_overlaps_and_ends(ids, expected):
    assert merge(ids, (1, 1), 256) == expected


def test_merge_does_not_modify_its_input():
    ids = [1, 1, 1]
    merge(ids, (1, 1), 256)
    assert ids == [1, 1, 1]


def test_best_pair_takes_the_highest_count():
    vocab = {i: bytes([i]) for i in range(256)}
    assert best_pair({(1, 2): 3, (200, 201): 2}, vocab) == (1, 2)


def test_train_breaks_ties_by_greater_byte_pair():
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[256] = b"ab"
    # Equal counts: (b"ab", b"c") > (b"a", b"z") because b"ab" > b"a".
    assert best_pair({(97, 122): 4, (256, 99): 4}, vocab) == (256, 99)
    # Same left bytes: the right bytes decide.
    assert best_pair({(97, 98): 1, (97, 99): 1}, vocab) == (97, 99)
