"""Training a Unigram model the way `spm_train --model_type=unigram` does: EM, then pruning.

BPE grows a vocabulary from characters, one merge at a time. Unigram training goes the
other way: it starts from far too many pieces and *removes* the least useful ones until
the vocabulary has the size asked for. A Unigram model (`unigram.SentencePieceUnigram`)
gives each piece a probability and reads a word as a sequence of independent pieces, so
the probability of a word is the sum, over all its segmentations, of the product of their
pieces' probabilities; training maximises the probability of the corpus. The steps:

1. **Words.** Each line is normalized as the encoder will see it (SentencePiece's
   `identity` rule: spaces become `▁`, a dummy `▁` in front, extra spaces removed) and cut
   before every `▁`; equal words are counted once, with their count. Characters beyond
   `character_coverage` of the text are rare: they become U+2585, which no piece may hold
   (SentencePiece's rule), so they are `<unk>`.
2. **Seed vocabulary.** Every kept character, scored by its count, and the frequent
   substrings, scored by `count * length` (how many characters they cover). SentencePiece
   finds them with a suffix array over the whole text and keeps its internal nodes: the
   substrings seen at least twice that are *right-branching* (not always followed by the
   same character, else the longer string would be the node). Here the substrings of
   the counted words, up to `max_piece_length` characters, are simply counted; a
   substring is kept if it occurs twice or more and is right-branching, where the end of a
   word counts as one following symbol. A seed piece must be valid: at most
   `max_piece_length` characters, `▁` only in front, no rare character, one script (Latin,
   Greek, ...: the first word of a letter's Unicode name; digits and punctuation are
   "Common"; combining marks take the script before them), no digit beside another with
   `split_digits`. The best `seed_size` by score are kept; the scores become log
   probabilities (`log(score / sum)`).
3. **E-step.** For each word, its *lattice* (every piece at every position) and, by the
   forward-backward algorithm in log space, each piece's expected count: the sum over
   its nodes of `P(paths through the node) / P(word)`, times the word's count. The
   objective is the corpus's negative log-likelihood per word.
4. **M-step.** New log probabilities from the expected counts. Pieces expected less than
   half a time are dropped. SentencePiece, and this trainer, do not use the plain
   maximum-likelihood update `log(count / total)` but a Bayesian one (a Dirichlet
   process prior, variational EM): `digamma(count) - digamma(total)`, which pushes rare
   pieces down harder and so makes the vocabulary sparser.
5. **Pruning.** After two EM rounds, if there are more than `1.1 * vocab_size` pieces,
   keep the best 75% (but not fewer than that) by *loss*: how much the corpus
   log-likelihood would drop if the piece were removed. As SentencePiece does, it is
   approximated: each piece's Viterbi occurrences in the corpus are assumed to be
   replaced by its best *alternative* segmentation (the best one that does not use the
   piece itself), with the counts shifted to the alternative pieces. A piece whose own
   best segmentation is already split is dropped; a piece with no alternative (a single
   character) is always kept. Then back to step 3.
6. **Finalize.** Every kept character (a character EM dropped comes back with the lowest
   piece's score, plus 0.0001 for each one already given back, as SentencePiece does), then the highest-scored pieces up to `vocab_size` with
   `<unk>`, `<s>`, `</s>` in front.

Ties, so training never depends on dict or hash order: pieces are sorted by score, then
by the piece's string (SentencePiece's `Sorted`); candidates of equal loss keep their
order in the vocabulary; in a Viterbi search the first best path found is kept (the one
whose last piece starts earliest).

The result is an `SpmModel`; `model_file.write_model` (or `save_unigram_model`) writes it as a
`.model` file that the `sentencepiece` library loads, and `SentencePieceUnigram` encodes
with it exactly as the library does (the file defines the model).

>>> from bpe_course import corpora
>>> model = train_unigram(corpora.prose()[:10_000], vocab_size=200)
>>> len(model.pieces), [p for p, _, _ in model.pieces[:8]]     # best first
(200, ['<unk>', '<s>', '</s>', '▁', 's', '▁the', 't', 'e'])
>>> from bpe_course.sentencepiece.unigram import SentencePieceUnigram
>>> SentencePieceUnigram(model).encode("The tokenizer learns", out_type=str)
['▁The', '▁', 'to', 'k', 'en', 'i', 'z', 'er', '▁', 'le', 'a', 'r', 'n', 's']
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter

from .model_proto import (
    CONTROL,
    NORMAL,
    NORMALIZER,
    TRAINER,
    UNIGRAM,
    UNKNOWN,
    SpmModel,
    with_defaults,
    write_model,
)
from .normalizer import SPACE, Normalizer
from .trainer import kept_characters
from .unigram import log_sum_exp

RARE = "\u2585"                 # what a rare character becomes (SentencePiece's kUNKChar)
END = ""                        # the symbol after the last character of a word
UNK_PENALTY = 10.0              # an <unk> node scores this much below the lowest piece
MIN_EXPECTED = 0.5              # the M-step drops pieces expected fewer times than this
SCORE_STEP = 0.0001             # finalize: a character EM dropped scores min + k * this


# -- 1. words --------------------------------------------------------------------------------

def count_words(text: str, coverage: float) -> tuple[Counter, Counter, list[str]]:
    """The words of `text` with their counts, every character's count, and the characters
    kept by `coverage` (the others are replaced by `RARE` in the words)."""
    spec = with_defaults({"name": "identity"}, NORMALIZER)
    normalizer = Normalizer(spec)
    words: Counter = Counter()
    for line in text.splitlines():
        line = normalizer.normalize(line)
        starts = [i for i, ch in enumerate(line) if ch == SPACE and i > 0]
        for a, b in zip([0] + starts, starts + [len(line)]):
            if a < b:
                words[line[a:b]] += 1
    chars: Counter = Counter()
    for word, n in words.items():
        for ch in word:
            chars[ch] += n
    kept = kept_characters(chars, coverage)
    keep = set(kept)
    if len(keep) < len(chars):
        rare: Counter = Counter()
        for word, n in words.items():
            rare["".join(ch if ch in keep else RARE for ch in word)] += n
        words = rare
    return words, chars, kept


# -- 2. the seed vocabulary ------------------------------------------------------------------

def script(ch: str) -> str:
    """A character's script, roughly as SentencePiece's Unicode script table has it: a letter's
    is the first word of its name (`LATIN`, `CYRILLIC`, ...; Hiragana and Katakana count as
    Han), a combining mark's is "Inherited", anything else is "Common"."""
    category = unicodedata.category(ch)
    if category[0] == "M":
        return "Inherited"
    if category[0] != "L":
        return "Common"
    name = unicodedata.name(ch, "")
    first = name.split(" ", 1)[0]
    if first in ("HIRAGANA", "KATAKANA", "CJK") or ch == "\u30fc":
        return "Han"
    return first or "Common"


class PieceRules:
    """Which strings may be pieces (step 2's validity rule)."""

    def __init__(self, max_piece_length: int, split_digits: bool):
        self.max_piece_length, self.split_digits = max_piece_length, split_digits
        self._known: dict[str, bool] = {}

    def valid(self, piece: str) -> bool:
        ok = self._known.get(piece)
        if ok is None:
            ok = self._known[piece] = self._valid(piece)
        return ok

    def _valid(self, piece: str) -> bool:
        if not piece or len(piece) > self.max_piece_length or RARE in piece:
            return False
        if SPACE in piece[1:]:
            return False
        previous = None
        for ch in piece:
            if ch == SPACE:
                continue
            if self.split_digits and ch.isdecimal() and len(piece) > 1:
                return False
            s = script(ch)
            if s == "Inherited":
                s = previous
            if s is not None and previous is not None and s != previous:
                return False
            previous = s
        return True


def seed_pieces(words: Counter, chars: Counter, kept: list[str], rules: PieceRules,
                seed_size: int) -> list[tuple[str, float]]:
    """Step 2: the seed vocabulary, `(piece, log probability)`, characters first."""
    counts: Counter = Counter()
    follower: dict[str, str | None] = {}         # the one symbol after it, or None: several
    longest = rules.max_piece_length
    for word, n in words.items():
        size = len(word)
        for start in range(size):
            for end in range(start + 2, min(start + longest, size) + 1):
                sub = word[start:end]
                counts[sub] += n
                after = word[end] if end < size else END
                seen = follower.get(sub, after)
                follower[sub] = after if seen == after else None
    scored = [(sub, n * len(sub)) for sub, n in counts.items()
              if n >= 2 and follower[sub] is None and rules.valid(sub)]
    scored.sort(key=lambda item: (-item[1], item[0]))
    seeds = sorted(((ch, chars[ch]) for ch in kept), key=lambda item: (-item[1], item[0]))
    seeds += scored[:seed_size]
    total = sum(score for _, score in seeds)
    return [(piece, math.log(score) - math.log(total)) for piece, score in seeds]


# -- 3. the E-step ---------------------------------------------------------------------------

class Lattices:
    """Every word's candidate pieces (its valid substrings), computed once; `nodes` keeps
    those in the current vocabulary, with an `<unk>` node where no character piece starts."""

    def __init__(self, words: Counter, rules: PieceRules):
        self.words = list(words)
        self.counts = [words[w] for w in self.words]
        self.candidates = []
        for word in self.words:
            cands = []
            for start in range(len(word)):
                for end in range(start + 1, min(start + rules.max_piece_length, len(word)) + 1):
                    sub = word[start:end]
                    if rules.valid(sub):
                        cands.append((start, end, sub))
            self.candidates.append(cands)

    def nodes(self, k: int, index: dict[str, int]) -> list[tuple[int, int, int]]:
        """`(start, end, piece id)` for word `k`, by start; id -1 is an `<unk>` node."""
        out = [(s, e, index[p]) for s, e, p in self.candidates[k] if p in index]
        covered = {s for s, e, _ in out if e == s + 1}
        missing = [(s, s + 1, -1) for s in range(len(self.words[k])) if s not in covered]
        if missing:
            out = sorted(out + missing)
        return out


def expected_counts(lattices: Lattices, index: dict[str, int], scores: list[float]
                    ) -> tuple[list[float], float]:
    """Step 3: each piece's expected count over the corpus (forward-backward in log space),
    and the objective, the negative log-likelihood per word."""
    unk = min(scores) - UNK_PENALTY
    expected = [0.0] * len(scores)
    objective, total = 0.0, sum(lattices.counts)
    for k, word in enumerate(lattices.words):
        n, count = len(word), lattices.counts[k]
        nodes = lattices.nodes(k, index)
        node_score = [scores[i] if i >= 0 else unk for _, _, i in nodes]
        # alpha[p]: log of the summed probability of every path from 0 to position p (every
        # position is reached: a one-character piece or an <unk> node starts at each)
        alpha = [-math.inf] * (n + 1)
        alpha[0] = 0.0
        for (s, e, _), score in zip(nodes, node_score):       # nodes come by start
            alpha[e] = log_sum_exp(alpha[e], alpha[s] + score)
        # beta[p]: the same from p to the end
        beta = [-math.inf] * (n + 1)
        beta[n] = 0.0
        for (s, e, _), score in zip(reversed(nodes), reversed(node_score)):
            beta[s] = log_sum_exp(beta[s], score + beta[e])
        z = alpha[n]
        for (s, e, i), score in zip(nodes, node_score):
            if i >= 0:
                expected[i] += count * math.exp(alpha[s] + score + beta[e] - z)
        objective -= count * z / total
    return expected, objective


# -- 4. the M-step ---------------------------------------------------------------------------

def digamma(x: float) -> float:
    """The digamma function (the derivative of log Gamma), as SentencePiece computes it:
    the recurrence up to 7, then the asymptotic series."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (result + math.log(x) + xx2 / 24 - 7 / 960 * xx4 + 31 / 8064 * xx4 * xx2
            - 127 / 30720 * xx4 * xx4)


def m_step(pieces: list[tuple[str, float]], expected: list[float]) -> list[tuple[str, float]]:
    """Step 4: drop pieces expected fewer than `MIN_EXPECTED` times; the others get
    `digamma(count) - digamma(total)` (the Bayesian update, not `log(count / total)`)."""
    kept = [(piece, n) for (piece, _), n in zip(pieces, expected) if n >= MIN_EXPECTED]
    log_total = digamma(sum(n for _, n in kept))
    return [(piece, digamma(n) - log_total) for piece, n in kept]


# -- 5. pruning ------------------------------------------------------------------------------

def viterbi(nodes: list[tuple[int, int, int]], scores: list[float], n: int, unk: float,
            skip: int | None = None) -> list[int] | None:
    """The best path through a lattice as piece ids (-1: `<unk>`), or None if there is none.
    `skip`: a node `(0, n, skip)` that may not be used. Ties keep the first path found."""
    best = [-math.inf] * (n + 1)
    back: list = [None] * (n + 1)
    best[0] = 0.0
    for s, e, i in nodes:
        if best[s] == -math.inf or (i == skip and s == 0 and e == n):
            continue
        score = best[s] + (scores[i] if i >= 0 else unk)
        if score > best[e]:
            best[e], back[e] = score, (s, i)
    if back[n] is None:
        return None
    path, end = [], n
    while end > 0:
        s, i = back[end]
        path.append(i)
        end = s
    return path[::-1]


def prune(pieces: list[tuple[str, float]], lattices: Lattices, rules: PieceRules,
          keep_at_least: int, shrinking_factor: float) -> list[tuple[str, float]]:
    """Step 5: keep the pieces whose removal would cost the corpus the most likelihood."""
    index = {piece: i for i, (piece, _) in enumerate(pieces)}
    scores = [score for _, score in pieces]
    unk = min(scores) - UNK_PENALTY
    # each piece's own best segmentation, and its best alternative
    always_keep = [True] * len(pieces)
    alternatives: list[list[int]] = [[] for _ in pieces]
    for i, (piece, _) in enumerate(pieces):
        n = len(piece)
        nodes = sorted((s, e, index[piece[s:e]]) for s in range(n) for e in range(s + 1, n + 1)
                       if piece[s:e] in index)
        best = viterbi(nodes, scores, n, unk)
        if best is None or len(best) >= 2:
            always_keep[i] = best is None
            continue
        alternative = viterbi(nodes, scores, n, unk, skip=i)
        if alternative is not None and -1 not in alternative:
            alternatives[i] = alternative
    # the Viterbi segmentation of the corpus: each piece's count, and where it occurs
    freq = [0.0] * len(pieces)
    inverted: list[list[int]] = [[] for _ in pieces]
    total_words = sum(lattices.counts)
    for k, word in enumerate(lattices.words):
        path = viterbi(lattices.nodes(k, index), scores, len(word), unk) or []
        for i in path:
            if i >= 0:
                freq[i] += lattices.counts[k]
                inverted[i].append(k)
    total = sum(freq)
    kept, candidates = [], []
    for i, piece in enumerate(pieces):
        if freq[i] == 0 or not always_keep[i]:
            continue                                # unused, or already split: drop
        if not alternatives[i]:
            kept.append(piece)                      # no alternative (a character): keep
            continue
        share = sum(lattices.counts[k] for k in inverted[i]) / total_words
        logprob_piece = math.log(freq[i]) - math.log(total)
        # without the piece, its count moves to the pieces of its alternative
        log_total_alt = math.log(total + freq[i] * (len(alternatives[i]) - 1))
        logprob_alt = sum(math.log(freq[j] + freq[i]) - log_total_alt for j in alternatives[i])
        candidates.append((share * (logprob_piece - logprob_alt), i))
    size = max(keep_at_least, int(shrinking_factor * len(pieces)))
    candidates.sort(key=lambda item: (-item[0], item[1]))
    for _, i in candidates:
        if len(kept) >= size:
            break
        kept.append(pieces[i])
    return kept


# -- the whole loop --------------------------------------------------------------------------

META = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]


def train_unigram(text: str, vocab_size: int, *, character_coverage: float = 0.9995,
                  max_piece_length: int = 16, seed_size: int = 1_000_000,
                  shrinking_factor: float = 0.75, sub_iterations: int = 2,
                  split_digits: bool = False, verbose: bool = False) -> SpmModel:
    """Learn a SentencePiece Unigram model of `vocab_size` pieces (with `<unk>`, `<s>`,
    `</s>`) from `text`, by EM and pruning (steps 1-6 above)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("train_unigram needs a non-empty str of training text")
    if not 0 < character_coverage <= 1:
        raise ValueError(f"character_coverage must be in (0, 1], got {character_coverage}")
    if not 0 < shrinking_factor < 1:
        raise ValueError(f"shrinking_factor must be in (0, 1), got {shrinking_factor}")
    words, chars, kept = count_words(text, character_coverage)
    if not isinstance(vocab_size, int) or vocab_size < len(META) + len(kept):
        raise ValueError(f"vocab_size {vocab_size!r} is smaller than the {len(META)} special "
                         f"pieces plus the {len(kept)} kept characters")
    rules = PieceRules(max_piece_length, split_digits)
    pieces = seed_pieces(words, chars, kept, rules, seed_size)
    lattices = Lattices(words, rules)
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(sub_iterations):
            index = {piece: i for i, (piece, _) in enumerate(pieces)}
            expected, objective = expected_counts(lattices, index, [s for _, s in pieces])
            pieces = m_step(pieces, expected)
            if verbose:
                print(f"EM: {len(pieces)} pieces, objective {objective:.4f}")
        if len(pieces) <= desired:
            break
        pieces = prune(pieces, lattices, rules, desired, shrinking_factor)
    final = finalize(pieces, chars, kept, vocab_size - len(META))
    if len(final) < vocab_size - len(META):
        raise ValueError(f"vocab_size {vocab_size} is too high for this text: training kept "
                         f"{len(final) + len(META)} pieces; ask for at most that many, or "
                         f"give more text (spm_train refuses too)")
    trainer = {"model_type": UNIGRAM, "vocab_size": vocab_size,
               "character_coverage": character_coverage, "split_digits": split_digits,
               "max_sentencepiece_length": max_piece_length}
    normalizer = {"name": "identity"}
    return SpmModel(META + [(p, s, NORMAL) for p, s in final],
                    with_defaults(trainer, TRAINER), with_defaults(normalizer, NORMALIZER))


def finalize(pieces: list[tuple[str, float]], chars: Counter, kept: list[str],
             size: int) -> list[tuple[str, float]]:
    """Step 6: every kept character, then the best pieces, `size` in all, best first."""
    score_of = dict(pieces)
    lowest = min(score_of.values())
    final: dict[str, float] = {}
    penalty = 0.0
    for ch in sorted(kept, key=lambda c: (-chars[c], c)):
        if ch in score_of:
            final[ch] = score_of[ch]
        else:
            final[ch] = lowest + penalty
            penalty += SCORE_STEP
    for piece, score in sorted(pieces, key=lambda item: (-item[1], item[0])):
        if len(final) >= size:
            break
        final.setdefault(piece, score)
    return sorted(final.items(), key=lambda item: (-item[1], item[0]))


def save_unigram_model(model: SpmModel) -> bytes:
    """The bytes of the `.model` file of a trained model (`write_model`)."""
    return write_model(model.pieces, model.trainer, model.normalizer)
