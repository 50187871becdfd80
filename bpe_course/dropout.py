"""BPE-dropout: encoding with some merges skipped at random, for subword regularization.

BPE always cuts a word the same way, so a model trained on its ids sees one spelling of
each word and never learns how the word is built from smaller pieces. BPE-dropout
(Provilkov, Emelianenko and Voita, 2020, "BPE-Dropout: Simple and Effective Subword
Regularization", ACL) keeps the merges and changes only encoding: at every step of the
merge loop each applicable merge is dropped with probability `p`. With `p = 0` it is
plain BPE; with `p = 1` nothing merges and a word stays as its bytes; in between, the same
word comes out in many segmentations, mostly the usual one. It is used while *training* a
language model (a fresh draw for every example); at test time one encodes with `p = 0`.

The paper's algorithm (its Algorithm 1), which `merge_with_dropout` follows step by step:

1. start from the symbols of the word (here: its byte ids);
2. list every merge that applies: every adjacent pair that has a merge, one entry per
   occurrence;
3. remove each entry from that list with probability `p`, independently;
4. if the list is not empty, apply the entry with the highest priority (the lowest rank;
   on equal ranks the leftmost occurrence, as the course's `encode` does) and go to 2;
   if it is empty, stop.

So a pair dropped at one step may be applied at the next (a fresh draw every step), and
the loop ends the first time every applicable merge is dropped, even if merges remain.
The authors' own code (`subword-nmt`'s `apply_bpe.py --dropout`) differs in one detail:
it applies the chosen merge at *every* surviving occurrence of that pair in one step,
where this applies one occurrence per step, as Algorithm 1 reads and as the course's
`encode` does; the two agree whenever the pair occurs once in the word.

`BasicTokenizer.encode` and `RegexTokenizer.encode` take `dropout=p` and `rng=` and hand
the work to `encode_chunks_with_dropout`: chunks (pre-tokens) are encoded one by one, each
with fresh draws, never looked up in the cache of plain encoding, and special tokens are
never split. SentencePiece's BPE has it too, as the library spells it:
`SentencePieceBPE.encode(text, enable_sampling=True, alpha=p)`, with the library's variant
of the loop (a skipped merge leaves its agenda; see there).

>>> import random
>>> from bpe_course import BasicTokenizer
>>> tok = BasicTokenizer()
>>> tok.train("aaabdaaabac", 256 + 3)
>>> tok.encode("aaab")                                      # p = 0: plain BPE
[258]
>>> tok.encode("aaab", dropout=1.0)                         # p = 1: the bytes
[97, 97, 97, 98]
>>> rng = random.Random(0)
>>> sorted({tuple(tok.encode("aaab", dropout=0.5, rng=rng)) for _ in range(200)})
[(97, 97, 97, 98), (97, 256, 98), (256, 97, 98), (257, 98), (258,)]

Subtle: the draws depend on the order in which `rng` is used, so the same `rng` state
gives the same ids, but encoding a text in one call or chunk by chunk does not.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable

NO_MERGE = float("inf")        # the "id" of a pair that has no merge, as in `base`


def check_dropout(dropout, rng) -> random.Random:
    """Check `dropout` (a probability) and return the generator to draw with: `rng`, or a
    fresh unseeded `random.Random()` when it is None."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
        raise TypeError(f"dropout must be a number between 0 and 1, not "
                        f"{type(dropout).__name__}")
    if not 0.0 <= dropout <= 1.0:
        raise ValueError(f"dropout is a probability: it must be between 0 and 1, not {dropout}")
    if rng is None:
        return random.Random()
    if not hasattr(rng, "random"):
        raise TypeError("rng must be a random.Random (something with a .random() method)")
    return rng


def merge_with_dropout(ids: list[int], merged_id: Callable[[int, int], float],
                       dropout: float, rng: random.Random) -> list[int]:
    """Apply merges to `ids` as BPE-dropout does (the paper's Algorithm 1, above).

    `merged_id(a, b)` is the id (= rank) that the pair merges into, or `NO_MERGE`.
    Returns a new list; `ids` is left as it was.
    """
    ids = list(ids)
    while len(ids) > 1:
        best, where = NO_MERGE, -1
        for i in range(len(ids) - 1):
            rank = merged_id(ids[i], ids[i + 1])
            # an applicable merge survives with probability 1 - p (one draw per occurrence)
            if rank != NO_MERGE and rng.random() >= dropout and rank < best:
                best, where = rank, i
        if where < 0:                   # every applicable merge was dropped (or none left)
            break
        ids[where:where + 2] = [best]
    return ids


def encode_chunks_with_dropout(tok, chunks: Iterable[bytes], dropout: float,
                               rng: random.Random) -> list[int]:
    """The ids of `chunks` (each the bytes of one chunk, merged on its own) with `tok`'s
    merges and BPE-dropout: `merge_with_dropout` on each chunk's byte ids, in order.

    Subtle: the loop must pick merges by *rank*. When the tokenizer's ids are not ranks
    (a vocabulary numbered by someone else, see `base`), it runs on the same merges
    numbered by rank (`tok._by_rank`), and the ranks are translated to ids at the end.

    >>> from bpe_course import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 256 + 3)
    >>> encode_chunks_with_dropout(tok, [b"aaab", b"aaab"], 0.0, random.Random(0))
    [258, 258]
    """
    if tok._by_rank is not None:
        on_ranks, ids_of_rank = tok._by_rank
        return [ids_of_rank[r] for r in encode_chunks_with_dropout(on_ranks, chunks, dropout, rng)]
    byte_ids, merged_id = tok.byte_ids, tok._merged_id
    ids: list[int] = []
    for data in chunks:
        ids += merge_with_dropout([byte_ids[b] for b in data], merged_id, dropout, rng)
    return ids
