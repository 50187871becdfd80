"""SentencePiece's Unigram model in pure Python: the best segmentation, the n best, and samples.

Unlike BPE, a Unigram model has no merges. Each piece has a score, its log-probability, and
a segmentation's score is the sum of its pieces' scores: the model reads a text as a
sequence of independent pieces. Encoding picks the segmentation with the highest score.

All segmentations of a text form a *lattice*: a node for every piece that occurs at every
position. The best path through it is found left to right (Viterbi): the best path ending
at position `e` is, over the pieces `text[s:e]`, the best path ending at `s` plus the
piece's score. Where no one-character piece starts, an `<unk>` node of one character is
added, scored 10 below the lowest piece, so a path always exists. A user-defined piece is
scored `0.1 * (len - 1)`: positive, where every normal piece's log-probability is negative,
and higher for one long piece than for any split of it, so it is always kept whole.

The lattice also gives more than one answer:

- `nbest_encode(text, n)`: the `n` best segmentations, best first (A* search from the end,
  with the Viterbi scores as the exact remaining-score estimate);
- `encode(text, enable_sampling=True, alpha=a, nbest_size=-1)`: a segmentation drawn with
  probability proportional to `exp(a * score)` (subword regularization), by the forward
  algorithm (the log-sum of all paths to each node) then sampling backwards from the end,
  one piece at a time (forward-filtering backward-sampling). With `nbest_size > 1` the draw
  is among the n best only.

>>> from bpe_course.sentencepiece.model_proto import write_model, UNKNOWN, NORMAL
>>> pieces = [("<unk>", 0.0, UNKNOWN), ("▁", -2.0, NORMAL), ("a", -3.0, NORMAL),
...           ("b", -3.0, NORMAL), ("▁a", -4.0, NORMAL), ("ab", -2.5, NORMAL)]
>>> sp = SentencePieceUnigram.from_bytes(write_model(pieces, {"model_type": 1}))
>>> sp.encode("ab", out_type=str)             # -2 + -2.5 beats -4 + -3
['▁', 'ab']
>>> sp.nbest_encode("ab", 3, out_type=str)
[['▁', 'ab'], ['▁a', 'b'], ['▁', 'a', 'b']]
>>> sp.encode("abc", out_type=str)            # c is no piece: <unk>
['▁', 'ab', 'c']

Subtle: the library adds scores in 32-bit floats, and two segmentations often differ by
less than a float's precision (a path's score is about -5 per piece, so a line of 100
pieces sums to -500, where a float is exact to 1/30000). To choose as it does, each path
score is rounded to 32 bits (`f32`) and a tie keeps the path found first (the one whose
last piece starts earlier), as the library's `EncodeOptimized` (sentencepiece 0.2.3) does,
rebasing the scores of a long text as it goes (`segment`). The n best are popped from a
heap that orders equal scores as C++'s `std::priority_queue` does (`heap_push`).
"""

from __future__ import annotations

import gzip
import hashlib
import math
import random
import struct
from importlib import resources

from .model_proto import NORMAL, UNIGRAM, UNUSED, USER_DEFINED, SpmModel
from .tokenizer import SentencePieceTokenizer

TEST_MODEL = "sentencepiece_test_model.model.gz"
TEST_MODEL_SHA256 = "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2"
UNK_PENALTY = 10.0              # <unk> scores this much below the lowest piece
FLT_MAX = 3.4028234663852886e38
RESET = 100_000.0               # the library rebases path scores beyond this (see `segment`)
_FLOAT = struct.Struct("<f")


def f32(x: float) -> float:
    """`x` rounded to a 32-bit float, as C++ stores it in a `float`."""
    return _FLOAT.unpack(_FLOAT.pack(x))[0]


def heap_push(heap: list, item: list) -> None:
    """Push onto a max-heap on `item[0]` exactly as C++'s `std::priority_queue` (libstdc++'s
    `push_heap`) does, so that hypotheses with equal scores come out in the library's order
    (Python's `heapq` would order ties differently)."""
    heap.append(item)
    hole = len(heap) - 1
    while hole > 0 and heap[(hole - 1) // 2][0] < item[0]:
        heap[hole] = heap[(hole - 1) // 2]
        hole = (hole - 1) // 2
    heap[hole] = item


def heap_pop(heap: list) -> list:
    """Pop the largest item, as libstdc++'s `pop_heap` (hole to the bottom, then sift up)."""
    top, last = heap[0], heap.pop()
    size = len(heap)
    if not size:
        return top
    hole = child = 0
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if heap[child][0] < heap[child - 1][0]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    while hole > 0 and heap[(hole - 1) // 2][0] < last[0]:
        heap[hole] = heap[(hole - 1) // 2]
        hole = (hole - 1) // 2
    heap[hole] = last
    return top


def log_sum_exp(x: float, y: float) -> float:
    """log(exp(x) + exp(y)), computed without overflow."""
    low, high = min(x, y), max(x, y)
    if high > low + 50:
        return high
    return high + math.log(math.exp(low - high) + 1.0)


class SentencePieceUnigram(SentencePieceTokenizer):
    """A SentencePiece Unigram model, read from a `.model` file, encoding like the library:
    `encode`, `nbest_encode`, sampling, and `decode`."""

    MODEL_TYPE = UNIGRAM

    def __init__(self, model: SpmModel):
        super().__init__(model)
        if any(math.isnan(s) or math.isinf(s) for s in self.scores):
            raise ValueError("malformed .model file: a piece's score is NaN or infinite")
        self.min_score = min((s for s, t in zip(self.scores, self.types) if t == NORMAL),
                             default=FLT_MAX)
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        # the pieces a segment may use (not unused ones), and every prefix of a piece, so that
        # the search from a position stops as soon as no piece can start with what it read
        self.prefixes: set[str] = set()
        self.usable: dict[str, int] = {}
        for piece, i in self.normal.items():
            for end in range(1, len(piece) + 1):
                self.prefixes.add(piece[:end])
            if self.types[i] != UNUSED:
                self.usable[piece] = i
        if not self.usable:
            raise ValueError("malformed .model file: a Unigram model needs normal pieces")

    @classmethod
    def botchan(cls) -> "SentencePieceUnigram":
        """SentencePiece's own test model (Apache-2.0, from the `sentencepiece` sdist): a
        real Unigram of 1,000 pieces trained by `spm_train` on the novel *Botchan*, with
        `nfkc` normalization; hash-checked."""
        return cls.from_bytes(botchan_model_bytes())

    # -- scores -------------------------------------------------------------------------
    def piece_score(self, i: int, piece: str) -> float:
        """The score of piece `i` in the best-path search (`EncodeOptimized`): its own, or
        for a user-defined piece `0.1 * (length - 1)`, its length counted in UTF-8 bytes."""
        if self.types[i] == USER_DEFINED:
            return f32(0.1 * (len(piece.encode("utf-8")) - 1))
        return self.scores[i]

    def node_score(self, i: int, piece: str) -> float:
        """The score of a lattice node (n-best and sampling): as `piece_score`, but the
        library counts a user-defined piece's length in characters there."""
        if self.types[i] == USER_DEFINED:
            return f32(0.1 * (len(piece) - 1))
        return self.scores[i]

    def matches(self, text: str, start: int):
        """Yield `(end, id)` for every usable piece `text[start:end]`, shortest first."""
        prefixes, usable = self.prefixes, self.usable
        for end in range(start + 1, len(text) + 1):
            piece = text[start:end]
            if piece not in prefixes:
                return
            i = usable.get(piece)
            if i is not None:
                yield end, i

    # -- the best segmentation ------------------------------------------------------------
    def segment(self, normalized: str) -> list[tuple[str, int]]:
        """The best segmentation of a normalized text, as `(piece, id)` pairs (Viterbi).

        Subtle: path scores only fall, and a float loses precision as they grow; once the
        best score at a position passes -100,000 the library subtracts it from every score
        found from there on (all paths still compete from the same point, so the best one
        does not change, but the rounding does). This does the same."""
        n = len(normalized)
        best = [0.0] * (n + 1)           # score of the best path ending at each position
        start_of = [-1] * (n + 1)        # where its last piece starts (-1: none found yet)
        id_of = [-1] * (n + 1)
        frontier = 0                     # the furthest position a piece has reached
        for start in range(n):
            here = best[start]
            if not -RESET <= here <= RESET:
                for pos in range(start, frontier + 1):
                    if pos == start or start_of[pos] != -1:
                        best[pos] = f32(best[pos] - here)
                here = 0.0
            single = False
            for end, i in self.matches(normalized, start):
                frontier = max(frontier, end)
                score = f32(self.piece_score(i, normalized[start:end]) + here)
                if start_of[end] == -1 or score > best[end]:
                    best[end], start_of[end], id_of[end] = score, start, i
                single = single or end == start + 1
            if not single:               # no one-character piece: <unk> keeps a path open
                frontier = max(frontier, start + 1)
                score = f32(self.unk_score + here)
                if start_of[start + 1] == -1 or score > best[start + 1]:
                    best[start + 1], start_of[start + 1], id_of[start + 1] = \
                        score, start, self.unk_id
        out, end = [], n
        while end > 0:
            out.append((normalized[start_of[end]:end], id_of[end]))
            end = start_of[end]
        return out[::-1]

    def encode(self, text: str, out_type: type = int, enable_sampling: bool = False,
               alpha: float = 0.1, nbest_size: int = -1,
               rng: random.Random | None = None) -> list:
        """Ids (or pieces) of `text`, equal to `sentencepiece`'s `encode`.

        With `enable_sampling`, a segmentation is drawn instead: with `nbest_size=-1`, from
        all of them with probability proportional to `exp(alpha * score)`; with
        `nbest_size > 1`, from the `nbest_size` best; with `nbest_size` 0 or 1 the best is
        returned, as the library does. `rng` is a `random.Random` (a fresh unseeded one by
        default)."""
        if out_type not in (int, str):
            raise ValueError("out_type must be int or str")
        if not enable_sampling:
            return super().encode(text, out_type)
        if isinstance(nbest_size, bool) or not isinstance(nbest_size, int):
            raise TypeError(f"nbest_size must be an int, not {type(nbest_size).__name__}")
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
            raise TypeError(f"alpha must be a number, not {type(alpha).__name__}")
        if nbest_size > 512:
            raise ValueError("nbest_size must be at most 512, as in the library")
        rng = rng or random.Random()
        normalized = self.normalize(text)
        if nbest_size < 0:
            segments = self.sample(normalized, alpha, rng)
        elif nbest_size <= 1:
            segments = self.segment(normalized)
        else:
            nbest = self.nbest(normalized, nbest_size)
            weights = [alpha * score for _, score in nbest]
            top = max(weights)
            segments = rng.choices([s for s, _ in nbest],
                                   [math.exp(w - top) for w in weights])[0]
        return self._finish(segments, out_type)

    # -- the lattice: n-best and sampling ---------------------------------------------------
    def lattice(self, normalized: str) -> tuple[list, list]:
        """All segments of the text: `begins[p]` and `ends[p]` list the nodes that start
        and end at position `p`; a node is `[start, end, id, score]`. `ends[0]` holds the
        start node (BOS) and `begins[n]` the end node (EOS)."""
        n = len(normalized)
        begins = [[] for _ in range(n + 1)]
        ends = [[] for _ in range(n + 1)]
        bos, eos = [0, 0, -1, 0.0], [n, n, -1, 0.0]
        ends[0].append(bos)
        begins[n].append(eos)
        for start in range(n):
            single = False
            for end, i in self.matches(normalized, start):
                node = [start, end, i, self.node_score(i, normalized[start:end])]
                begins[start].append(node)
                ends[end].append(node)
                single = single or end == start + 1
            if not single:
                node = [start, start + 1, self.unk_id, self.unk_score]
                begins[start].append(node)
                ends[start + 1].append(node)
        return begins, ends

    def nbest(self, normalized: str, nbest_size: int) -> list[tuple[list[tuple[str, int]], float]]:
        """The `nbest_size` best segmentations with their scores, best first (A*)."""
        nbest_size = max(1, min(nbest_size, 1024))
        if not normalized:
            return [([], 0.0)]
        if nbest_size == 1:
            return [(self.segment(normalized), 0.0)]
        begins, ends = self.lattice(normalized)
        n = len(normalized)
        # Viterbi over the lattice: backtrace[node] = the best score from BOS to the node's
        # end, and the node before it on that path
        backtrace = {id(ends[0][0]): (0.0, None)}
        for pos in range(n + 1):
            for right in begins[pos]:
                best = None
                for left in ends[pos]:
                    score = f32(backtrace[id(left)][0] + right[3])
                    if best is None or score > best[0]:
                        best = (score, left)
                backtrace[id(right)] = best
        bos, eos = ends[0][0], begins[n][0]

        def viterbi() -> list:
            """The lattice's best path: what the library falls back to on a runaway search."""
            path, node = [], backtrace[id(eos)][1]
            while node is not bos:
                path.append((normalized[node[0]:node[1]], node[2]))
                node = backtrace[id(node)][1]
            return [(path[::-1], backtrace[id(eos)][0])]

        # A* from EOS back to BOS; a hypothesis is [f, node, g, the hypothesis it extends]:
        # g is the score of the nodes after it, f = g + the best score up to the node.
        agenda: list = []
        heap_push(agenda, [backtrace[id(eos)][0], eos, 0.0, None])
        results = []
        # the library's bounds on the search (unigram_model.cc, NBest): the agenda is cut
        # to its best `keep` when it grows too large, at most 10 times, and the search
        # gives up for the Viterbi path after 500,000 hypotheses
        keep = min(512, nbest_size * 10)
        allocated, total, bound, shrinks = 1, 1, 100_000, 0
        while agenda:
            top = heap_pop(agenda)
            _, node, g, after = top
            if node is bos:
                path = []
                while after is not None and after[1] is not eos:
                    start, end, i, _ = after[1]
                    path.append((normalized[start:end], i))
                    after = after[3]
                results.append((path, top[0]))
                if len(results) == nbest_size:
                    break
                continue
            for left in ends[node[0]]:
                heap_push(agenda, [f32(backtrace[id(left)][0] + g), left, f32(left[3] + g), top])
            allocated += len(ends[node[0]])
            total += len(ends[node[0]])
            if total >= 500_000 or allocated >= 500_000:
                return viterbi()
            if len(agenda) >= 10_000 or (len(agenda) > keep and allocated >= bound):
                if shrinks >= 10:
                    return viterbi()
                shrinks += 1
                kept: list = []
                for _ in range(min(len(agenda), keep)):
                    heap_push(kept, heap_pop(agenda))
                agenda = kept
                alive = set()               # what the kept hypotheses still refer to
                for hypothesis in agenda:
                    while hypothesis is not None and id(hypothesis) not in alive:
                        alive.add(id(hypothesis))
                        hypothesis = hypothesis[3]
                allocated = len(alive)
                bound = allocated + 100_000
        return results

    def nbest_encode(self, text: str, nbest_size: int, out_type: type = int) -> list[list]:
        """The `nbest_size` best encodings of `text`, best first, equal to the library's
        `nbest_encode`."""
        if isinstance(nbest_size, bool) or not isinstance(nbest_size, int):
            raise TypeError(f"nbest_size must be an int, not {type(nbest_size).__name__}")
        if out_type not in (int, str):
            raise ValueError("out_type must be int or str")
        return [self._finish(segments, out_type)
                for segments, _ in self.nbest(self.normalize(text), nbest_size)]

    def forward(self, begins: list, ends: list, alpha: float) -> dict[int, float]:
        """The forward algorithm: for each node, the log of the summed `exp(alpha * score)`
        of every path from BOS to the node's start."""
        forward = {id(ends[0][0]): 0.0}
        for pos in range(len(begins)):
            for right in begins[pos]:
                total = None
                for left in ends[pos]:
                    x = alpha * left[3] + forward[id(left)]
                    total = x if total is None else log_sum_exp(total, x)
                forward[id(right)] = total
        return forward

    def sample(self, normalized: str, alpha: float,
               rng: random.Random) -> list[tuple[str, int]]:
        """One segmentation drawn with probability `exp(alpha * score) / Z`: forward
        filtering, then from EOS back to BOS choose the piece ending here with probability
        `exp(forward[piece] + alpha * score[piece] - forward[here])`."""
        if not normalized:
            return []
        begins, ends = self.lattice(normalized)
        forward = self.forward(begins, ends, alpha)
        bos = ends[0][0]
        node = begins[len(normalized)][0]
        out = []
        while True:
            here = forward[id(node)]
            lefts = ends[node[0]]
            weights = [math.exp(forward[id(left)] + alpha * left[3] - here) for left in lefts]
            node = rng.choices(lefts, weights)[0]
            if node is bos:
                break
            out.append((normalized[node[0]:node[1]], node[2]))
        return out[::-1]


def botchan_model_bytes() -> bytes:
    """The bytes of SentencePiece's `test/test_model.model` (stored gzipped in
    `bpe_course/data/`), checked against its sha256."""
    data = gzip.decompress((resources.files("bpe_course") / "data" / TEST_MODEL).read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if digest != TEST_MODEL_SHA256:
        raise ValueError(f"bpe_course/data/{TEST_MODEL} holds a file with sha256 {digest}, "
                         f"expected {TEST_MODEL_SHA256}: reinstall the course package")
    return data
