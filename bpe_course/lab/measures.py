"""What the lab measures: memory, time, and how well a vocabulary compresses unseen text.

- `PeakMemory`: the most memory a block of code took, seen two ways: what
  Python allocated (`tracemalloc`, this process only, slows allocation down)
  and what the operating system gave the process (peak resident set size,
  RSS, from `/proc` or `resource`), with the largest worker process's beside it.
- `count_shards` counts the pre-tokens of a corpus shard by shard (each one in
  parallel, as `train_bpe` does) under a progress bar, noting how the number of
  distinct pre-tokens grows; `heaps_law` fits that growth to extrapolate it;
  `learn_vocab` learns the merges from the counts: `train_bpe` in two steps.
- `bytes_per_token` and `unigram_bits_per_byte` compare vocabularies on held-out text.

Bits per byte, as measured here: fit a unigram model to the tokens of some
training text (each token's probability is its count plus one, over the total
plus the vocabulary's size), then charge each held-out token `-log2 p(token)`
bits, and divide by the held-out text's UTF-8 bytes. It is the size of the
held-out text compressed by an ideal coder that knows only how often each
token occurs. It rewards tokens that are long *and* common; it knows nothing
of context, so it says nothing of how well a language model will predict.

>>> bits = unigram_bits_per_byte(list, [[1, 1, 2]], [[1, 2]], 4, [3])   # p(1)=3/7, p(2)=2/7
>>> round(bits, 4)
1.0099
"""

from __future__ import annotations

import math
import os
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..patterns import GPT4_SPLIT_PATTERN
from ..special import check_special_tokens
from ..training.counting import CHUNK_BYTES, count_corpus
from ..training.trainer import byte_words, learn_merges


def rss_peak_reset() -> bool:
    """Reset the kernel's record of this process's peak RSS (Linux: `/proc/self/clear_refs`);
    False where that is not possible, and the peak is then the process's lifetime peak."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def rss_peak() -> int:
    """This process's peak resident set size in bytes (since the last reset, on Linux)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024      # bytes on macOS, KiB elsewhere


class PeakMemory:
    """`with PeakMemory() as mem: ...` then `mem.python`, `mem.rss`, `mem.workers` (bytes)
    and `mem.seconds`. `trace=False` skips tracemalloc (`mem.python` is then None), which
    otherwise slows a program that allocates a lot by a factor of two or more.

    `workers` is the peak RSS of the largest child process that has ended (the counting
    workers), over this process's whole life: `resource` keeps no per-block record of it.
    """

    def __init__(self, trace: bool = True):
        self.trace = trace
        self.python = self.rss = self.workers = None
        self.seconds = 0.0

    def __enter__(self):
        self.rss_reset = rss_peak_reset()
        if self.trace:
            tracemalloc.start()
            tracemalloc.reset_peak()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        if self.trace:
            self.python = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        self.rss = rss_peak()
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.workers = children if sys.platform == "darwin" else children * 1024
        return False

    def __repr__(self):
        mb = lambda n: "-" if n is None else f"{n / 1e6:,.0f} MB"   # noqa: E731
        return (f"{self.seconds:.1f} s; peak: Python {mb(self.python)} (tracemalloc), "
                f"RSS {mb(self.rss)}, largest worker RSS {mb(self.workers)}")


def count_shards(paths: Sequence[os.PathLike], special_tokens: Sequence[str] = (),
                 pattern: str = GPT4_SPLIT_PATTERN, *, num_workers: int | None = None,
                 progress: bool = True) -> tuple[Counter, list[tuple[int, int]]]:
    """The pre-token counts of every shard added up, and the growth of the vocabulary of
    pre-tokens: `(bytes read so far, distinct pre-tokens so far)` after each shard.

    Each shard is counted as `train_bpe` counts a file (`count_corpus`: cut at safe
    places, counted in `num_workers` processes; by default one per idle core, or this process
    alone for a shard under 2 MB). The progress bar (tqdm, on stderr) counts bytes.
    """
    from tqdm import tqdm
    specials = check_special_tokens(special_tokens)
    total: Counter = Counter()
    growth, done = [], 0
    sizes = [os.path.getsize(p) for p in paths]
    with tqdm(total=sum(sizes), unit="B", unit_scale=True, desc="counting",
              disable=not progress, file=sys.stderr) as bar:
        for path, size in zip(paths, sizes):
            total.update(count_corpus(Path(path), pattern, specials, num_workers, CHUNK_BYTES))
            done += size
            growth.append((done, len(total)))
            bar.update(size)
    return total, growth


def learn_vocab(counts: Counter, vocab_size: int, special_tokens: Sequence[str] = (),
                progress: bool = False) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """`train_bpe`'s `(vocab, merges)` from counts already made (`count_shards`): the same
    merges, tie-break included, as `train_bpe` on the same text."""
    specials = check_special_tokens(special_tokens)
    words, freqs = byte_words(counts)
    merges = learn_merges(words, freqs, vocab_size - 256 - len(specials), progress)
    tokens = [bytes([b]) for b in range(256)]
    for a, b in merges:
        tokens.append(tokens[a] + tokens[b])
    vocab = dict(enumerate(tokens))
    for token in specials:
        vocab[len(vocab)] = token.encode("utf-8")
    return vocab, [(tokens[a], tokens[b]) for a, b in merges]


def heaps_law(growth: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """`(K, beta)` with distinct ≈ K · bytes**beta, fitted by least squares on logarithms
    (Heaps' law: a corpus's vocabulary grows as a power of its length, beta < 1).

    >>> K, beta = heaps_law([(10**k, 5 * 10**(k // 2)) for k in (2, 4, 6)])
    >>> round(K, 3), round(beta, 3)
    (5.0, 0.5)
    """
    points = [(math.log(n), math.log(v)) for n, v in growth if n > 0 and v > 0]
    if len(points) < 2:
        raise ValueError("heaps_law needs the growth at two sizes or more")
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    beta = (sum((x - mx) * (y - my) for x, y in points)
            / sum((x - mx) ** 2 for x, _ in points))
    return math.exp(my - beta * mx), beta


def bytes_per_token(encode: Callable[[str], list[int]], docs: Iterable[str]) -> float:
    """UTF-8 bytes of `docs` over the tokens `encode` makes of them: higher compresses more."""
    nbytes = ntokens = 0
    for doc in docs:
        nbytes += len(doc.encode("utf-8"))
        ntokens += len(encode(doc))
    return nbytes / ntokens


def unigram_bits_per_byte(encode: Callable[[str], list[int]], fit_docs: Iterable[str],
                          test_docs: Iterable[str], vocab_size: int,
                          test_bytes: Sequence[int] | None = None) -> float:
    """Bits per byte of `test_docs` under a unigram model of `encode`'s tokens fitted on
    `fit_docs`, with add-one smoothing over `vocab_size` tokens (see the module's doc).
    `test_bytes` gives the documents' sizes in bytes when the docs are already ids."""
    counts: Counter = Counter()
    for doc in fit_docs:
        counts.update(encode(doc))
    denominator = sum(counts.values()) + vocab_size
    bits, nbytes = 0.0, 0
    for k, doc in enumerate(test_docs):
        for token, n in Counter(encode(doc)).items():
            bits -= n * math.log2((counts[token] + 1) / denominator)
        nbytes += test_bytes[k] if test_bytes is not None else len(doc.encode("utf-8"))
    return bits / nbytes
