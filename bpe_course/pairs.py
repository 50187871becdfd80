"""The two primitives of byte pair encoding: count adjacent pairs, merge one pair.

Everything else in the course is built from these two functions. A text is a
list of integer ids (at first its UTF-8 bytes, 0..255). Training repeatedly
asks "which adjacent pair is most common?" (`get_stats`) and then replaces
every occurrence of that pair by one new id (`merge`).

>>> ids = list("aaabdaaabac".encode("utf-8"))
>>> stats = get_stats(ids)
>>> stats[(97, 97)]      # "aa" occurs four times (overlaps count)
4
>>> merge(ids, (97, 97), 256)
[256, 97, 98, 100, 256, 97, 98, 97, 99]
"""

from __future__ import annotations

from typing import Iterable


def get_stats(ids: Iterable[int], counts: dict[tuple[int, int], int] | None = None
              ) -> dict[tuple[int, int], int]:
    """Count how often each adjacent pair of ids occurs.

    Pass an existing `counts` dict to add to it: that is how a tokenizer
    that splits text into chunks sums the pairs of every chunk without ever
    pairing the last id of one chunk with the first id of the next.

    >>> get_stats([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    >>> get_stats([1, 2], {(1, 2): 5})
    {(1, 2): 6}
    """
    counts = {} if counts is None else counts
    ids = list(ids)
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Return a new list in which every occurrence of `pair` becomes `idx`.

    The scan goes left to right and, after a match, skips past both ids.

    Subtle: overlapping runs. In `[1, 1, 1]` the pair `(1, 1)` occurs twice,
    but the two occurrences share the middle id, so only the left one can be
    merged: the result is `[idx, 1]`, not `[idx, idx]`. This is also what
    every BPE trainer and encoder does, so counts and merges stay consistent.

    >>> merge([1, 1, 1], (1, 1), 256)
    [256, 1]
    >>> merge([1, 1, 1, 1], (1, 1), 256)
    [256, 256]
    >>> merge([5, 6, 7], (6, 7), 300)
    [5, 300]
    """
    out = []
    i = 0
    n = len(ids)
    while i < n:
        if i < n - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def best_pair(stats: dict[tuple[int, int], int], vocab: dict[int, bytes]) -> tuple[int, int]:
    """Pick the pair to merge next: the most frequent one, ties broken by bytes.

    The tie-break rule of the whole course: among pairs with the same count,
    take the one whose `(bytes of left, bytes of right)` is greatest. Comparing
    bytes (not ids) makes the choice independent of how ids were numbered and
    of dict order, so training is deterministic and every trainer in the
    course, naive or fast, learns exactly the same merges.

    >>> vocab = {i: bytes([i]) for i in range(256)}
    >>> best_pair({(97, 98): 2, (98, 99): 2, (120, 121): 1}, vocab)  # "bc" > "ab"
    (98, 99)
    """
    return max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
