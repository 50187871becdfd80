"""train_bpe: the fast trainer. Same merges as the naive loop, a hundred times sooner.

`RegexTokenizer.train` recounts every pair of every chunk for every merge.
`train_bpe` learns exactly the same merges, tie-break included, from the
same text, with three changes:

1. It counts distinct pre-tokens instead of keeping the text
   (`pretokenize.count_pretokens`), in parallel worker processes over chunks
   of the corpus (`counting`), reading a file piece by piece.
2. It counts pairs once, then after each merge updates only the counts of
   the words that contained the merged pair, found through an index from
   each pair to those words.
3. It finds the most frequent pair with a heap instead of scanning them all.

>>> vocab, merges = train_bpe("low lower lowest<|eot|>low", 256 + 3 + 1,
...                           special_tokens=["<|eot|>"])
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b'low', b'e')]
>>> vocab[258], vocab[259]
(b'lowe', b'<|eot|>')

Each word is a `str` whose characters stand for token ids (`chr(id)`), so
that merging a pair inside a word is one fast `str.replace`: "aaab".replace(
"aa", "X") == "Xab" is exactly the left-to-right, non-overlapping merge of
`pairs.merge`. (Where the pair occurs once, `merge_pair` uses `str.partition`,
which also gives the tokens on either side of it.)
"""

from __future__ import annotations

import gc
import os
import sys
from collections import defaultdict
from concurrent.futures import Executor
from contextlib import contextmanager
from heapq import heappop, heappush
from operator import add, mul
from typing import NamedTuple, Sequence

from ..patterns import GPT4_SPLIT_PATTERN
from ..special import check_special_tokens
from ..text import check_vocab_size
from .counting import CHUNK_BYTES, ProgressBar, count_corpus

# The tie-break key of a token is its bytes with the order reversed, so that a
# min-heap pops the *greatest* bytes first: byte b becomes the two bytes
# (0xFE, 255 - b), and every token ends with END, which is greater than them all.
END = b"\xff\x00"


class Trained(NamedTuple):
    merges: list[tuple[int, int]]      # (left id, right id); new ids are 256, 257, ...
    tokens: list[bytes]                # the bytes of every id, bytes and merges
    text_bytes: int                    # UTF-8 bytes of the corpus outside special tokens
    text_tokens: int                   # how many tokens those bytes encode to


def train_bpe(input: str | os.PathLike, vocab_size: int, special_tokens: Sequence[str] = (),
              pattern: str = GPT4_SPLIT_PATTERN, *, num_workers: int | None = None,
              verbose: bool = False, chunk_bytes: int = CHUNK_BYTES,
              executor: Executor | None = None,
              ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on a corpus; return `(vocab, merges)`.

    - `input`: a path (`os.PathLike`, or a `str` naming an existing file) or the
      text itself. Subtle: a short one-line `str` that happens to name an
      existing file is read as that file; pass `Path(...)` to be explicit.
    - `vocab_size`: 256 bytes + merges + special tokens. Training stops earlier
      when no pair is left to merge.
    - `special_tokens`: cut out before pre-tokenization, never counted, never
      merged across; they get the ids after the merges, in this order.
    - `num_workers`: processes counting pre-tokens; default: the machine's
      idle cores, those no other process keeps busy (`counting.idle_cores`; a
      corpus under 2 MB is counted in this process); 1: no processes.
    - `verbose`: progress bars (also shown whenever stderr is a terminal).
    - `executor`: any `concurrent.futures.Executor` to count the pre-tokens on,
      instead of local processes; `num_workers` then says how many chunks it
      counts at once. Counting is a map and a sum (`counting`), so the merges
      are the same. For a Dask cluster (`pip install "dask[distributed]"`, and
      `bpe_course` on every worker)::

          from distributed import Client
          with Client("tcp://scheduler:8786") as client:
              vocab, merges = train_bpe("/shared/corpus.txt", 32_000, ["<|endoftext|>"],
                                        executor=client.get_executor(), num_workers=64)

      Workers open a file `input` themselves, so it must be on storage they all
      see under the same path; a text `input` is sent to them chunk by chunk.
      Only counting runs there; the merges are learned in this process
      (docs/cluster.md).

    `merges` lists `(left bytes, right bytes)` in the order learned;
    `vocab[256 + i] == merges[i][0] + merges[i][1]`.
    """
    specials = check_special_tokens(special_tokens)
    t = train(input, vocab_size, specials, pattern, num_workers=num_workers,
              verbose=verbose, chunk_bytes=chunk_bytes, executor=executor)
    vocab = dict(enumerate(t.tokens))
    for token in specials:
        vocab[len(vocab)] = token.encode("utf-8")
    return vocab, [(t.tokens[a], t.tokens[b]) for a, b in t.merges]


def train(input, vocab_size: int, specials: list[str], pattern: str, *,
          num_workers: int | None = None, verbose: bool = False,
          chunk_bytes: int = CHUNK_BYTES, executor: Executor | None = None) -> Trained:
    """`train_bpe`'s work, returning the merges as ids (what `train_into` and the command
    line's `train` give a tokenizer) and how well they compress the corpus."""
    check_vocab_size(vocab_size, 256 + len(specials))
    if vocab_size - len(specials) > sys.maxunicode + 1:
        raise ValueError(f"vocab_size can be at most {sys.maxunicode + 1} plus the special tokens")
    show = verbose or bool(sys.stderr and sys.stderr.isatty())
    counts = count_corpus(input, pattern, specials, num_workers, chunk_bytes, show, executor)
    words, freqs = byte_words(counts)
    text_bytes = total_length(words, freqs)         # each character of a word is a byte...
    merges = learn_merges(words, freqs, vocab_size - len(specials) - 256, show)
    text_tokens = total_length(words, freqs)        # ...and after merging, a token
    tokens = [bytes([b]) for b in range(256)]
    for a, b in merges:
        tokens.append(tokens[a] + tokens[b])
    return Trained(merges, tokens, text_bytes, text_tokens)


def total_length(words: list[str], freqs: list[int]) -> int:
    """The length of the corpus in symbols: each word's length times its count. Before
    merging a word's symbols are its bytes; after, its tokens (`learn_merges` rewrites
    `words` in place).

    >>> total_length(["ab", "c"], [3, 2])
    8
    """
    return sum(map(mul, map(len, words), freqs))


def byte_words(counts: dict[str, int]) -> tuple[list[str], list[int]]:
    """Pre-tokens as strings of byte ids (one character per UTF-8 byte), and their counts.

    >>> byte_words({"hé": 2})
    (['h\\xc3\\xa9'], [2])
    """
    return [w.encode("utf-8").decode("latin-1") for w in counts], list(counts.values())


@contextmanager
def cycle_collector_paused():
    """Pause Python's cycle collector (`gc`) for a while. The merge loop makes hundreds
    of thousands of lists and tuples, none of them ever part of a cycle, and each batch
    of them would have the collector look through all the lists made before: about a
    thirtieth of the loop's work, for nothing. Reference counting still frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@cycle_collector_paused()
def learn_merges(words: list[str], freqs: list[int], num_merges: int,
                 show: bool = False) -> list[tuple[int, int]]:
    """Learn up to `num_merges` merges; `words` are rewritten in place as they merge.

    `where` lists the words that contain each pair (a 2-character str), once
    per occurrence; `stats` holds the count of every pair, which is the sum of
    the counts of the words in `where[pair]`.

    The best pair is found with a heap of (-count, tie-break key, pair).
    Entries are not updated when a count falls: they go stale and are checked
    when popped (lazy invalidation). Counts only rise for the new pairs a
    merge creates, and those are pushed afresh.

    Most pairs are rare and will never be merged, so only pairs counted at
    least `floor` times go into the heap; the others wait in `low` (a list of
    pairs per count). Subtle: this is exact because the heap is only asked for
    its best while it holds any pair at all; a pair in `low` counts less than
    `floor`, and so less than anything in the heap. When the heap runs empty,
    `floor` is halved and the pairs that now reach it move into the heap.
    """
    where: defaultdict[str, list[int]] = defaultdict(list)
    for i, w in enumerate(words):
        for pair in map(add, w, w[1:]):
            where[pair].append(i)
    stats = {pair: weight(found, freqs) for pair, found in where.items()}
    # keys[t] + END is token t's tie-break key; a pair's key is its two tokens' keys.
    keys = [bytes([0xFE, 255 - b]) + END for b in range(256)]   # reversed-order bytes
    heap: list[tuple[int, bytes, str]] = []
    low: defaultdict[int, list[str]] = defaultdict(list)

    def place(pair: str, count: int) -> None:
        """Put a pair where its count says: in the heap, in `low`, or (count 0) nowhere."""
        if count >= floor:
            heappush(heap, (-count, keys[ord(pair[0])] + keys[ord(pair[1])], pair))
        elif count:
            low[count].append(pair)

    floor = max(stats.values(), default=0) // 2 + 1
    for pair, count in stats.items():
        place(pair, count)
    merges: list[tuple[int, int]] = []
    with ProgressBar(total=num_merges, desc="merging", unit="merge", disable=not show) as bar:
        while len(merges) < num_merges:
            if not heap:                         # every pair left counts less than floor
                if floor == 1:
                    break                        # no pair left at all
                floor = max(1, floor // 2)
                for count in [c for c in low if c >= floor]:
                    for pair in low.pop(count):
                        place(pair, stats.get(pair, 0))     # its count may have fallen
                continue
            negcount, key, pair = heappop(heap)
            count = stats.get(pair, 0)
            if count != -negcount:               # stale entry: the count fell
                place(pair, count)
                continue
            new = chr(256 + len(merges))
            merges.append((ord(pair[0]), ord(pair[1])))
            keys.append(keys[ord(pair[0])][:-2] + keys[ord(pair[1])])
            for q in merge_pair(pair, new, words, freqs, stats, where):
                n = stats[q]
                if n >= floor:                   # place(q, n), inlined: the hot path
                    heappush(heap, (-n, keys[ord(q[0])] + keys[ord(q[1])], q))
                else:
                    low[n].append(q)
            bar.update()
    return merges


def weight(found: list[int], freqs: list[int]) -> int:
    """The count of a pair: the counts of the words it occurs in, once per occurrence."""
    return sum(map(freqs.__getitem__, found))


def merge_pair(pair: str, new: str, words: list[str], freqs: list[int],
               stats: dict[str, int], where: defaultdict[str, list[int]]) -> list[str]:
    """Merge `pair` into `new` in every word that has it, and update `stats` and `where`:
    the counts of the pairs it took apart fall, and the pairs it created get their
    counts and their lists of words. Return the created pairs, for the caller to place.

    Where a word holds the pair once (almost always), only its two neighbours
    change: the token x before it and y after it. The loop only notes the word
    under x in `before` and under y in `after`; the words noted under x are then
    exactly the occurrences of the new pair (x, new), and the same words lose
    the pair (x, a), so one `weight` of that list gives both counts.

    Subtle: a word can hold the pair more than once. When it occurs again after
    the first occurrence (in `tail`), the word is cut at every occurrence
    (`str.split`, the same left-to-right, non-overlapping matches as `replace`),
    and each cut is handled like the single one: the token before it is noted in
    `before`, the token after it in `after`. Only where two occurrences touch
    ("abab") is there no token between them: the pair (b, a) is lost and (new, new)
    created, noted in `touching`. The pairs inside the pieces between the cuts do
    not change, so they are not touched. An overlapping second occurrence ("aaa"
    holds "aa" twice but merges once, into "Xa") is not a second merge: it is the
    pair after the first, (b, y) with y == b, whose count is lowered like any
    other, just before the merged pair's count is dropped.
    A word can also be listed more than once, or no longer hold the pair (an
    earlier merge took it apart): then it is skipped.
    """
    a, b = pair
    before: defaultdict[str, list[int]] = defaultdict(list)
    after: defaultdict[str, list[int]] = defaultdict(list)
    touching: list[int] = []                 # a word, once per place two occurrences touch
    for i in where.pop(pair):
        w = words[i]
        head, sep, tail = w.partition(pair)
        if not sep:                          # stale: listed twice, or taken apart
            continue
        if pair not in tail:                 # one occurrence, between head and tail
            words[i] = head + new + tail
            if head:
                before[head[-1]].append(i)
            if tail:
                after[tail[0]].append(i)
        else:
            # Several occurrences: the same, at every cut. Only the tokens next to the
            # cuts are looked at, not every pair of the word. Recounting every pair of
            # such words was most of the merge loop on text with long words (CJK): on
            # the lab's first shard (64 MB, 612,486 distinct pre-tokens, vocab 10,000)
            # learn_merges took 23.8 s of CPU before, 14.5 s after (-39 %).
            parts = w.split(pair)
            words[i] = new.join(parts)
            if head:
                before[head[-1]].append(i)
            for part in parts[1:-1]:         # between two occurrences
                if part:
                    after[part[0]].append(i)
                    before[part[-1]].append(i)
                else:
                    touching.append(i)
            if parts[-1]:
                after[parts[-1][0]].append(i)
    created = []
    freq = freqs.__getitem__
    for x, found in before.items():
        n = sum(map(freq, found))            # weight(found, freqs)
        stats[x + a] -= n
        q = x + new
        stats[q], where[q] = n, found
        created.append(q)
    for y, found in after.items():
        n = sum(map(freq, found))
        stats[b + y] -= n
        q = new + y
        stats[q], where[q] = n, found
        created.append(q)
    if touching:                             # rare: "abab" -> "XX"
        n = sum(map(freq, touching))
        stats[b + a] -= n
        q = new + new
        stats[q], where[q] = n, touching
        created.append(q)
    del stats[pair]
    return created


def train_into(tok, input, vocab_size: int, special_tokens=(), **options) -> None:
    """Train the `RegexTokenizer` `tok` with `train_bpe`: the naive `tok.train`'s merges, fast.

    `input` is the text or a corpus file (see `train_bpe`); `tok`'s own split
    pattern is used. The special tokens are left out of training and
    registered with the ids after the merges; with none given, the ones
    already registered are kept, as `tok.train` does. `options` go to
    `train_bpe` (`num_workers`, `verbose`).

    >>> from bpe_course import RegexTokenizer
    >>> tok = RegexTokenizer()
    >>> train_into(tok, "hello hello world!!! hello", 256 + 4 + 1, ["<|eot|>"])
    >>> [tok.decode([i]) for i in range(256, 261)]
    ['lo', 'llo', 'he', 'hello', '<|eot|>']
    """
    specials = check_special_tokens(special_tokens)
    result = train(input, vocab_size, specials, tok.pattern, **options)
    first_special = 256 + len(result.merges)
    tok.set_merges({pair: 256 + k for k, pair in enumerate(result.merges)},
                   {t: first_special + k for k, t in enumerate(specials)} if specials else None)
