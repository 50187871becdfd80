"""Training a WordPiece vocabulary: merge the pair with the best *score*, not the most frequent.

WordPiece trains like BPE (chapter 02): start from characters and merge adjacent pairs, one
new token per step. Only the choice of the pair differs. BPE merges the most frequent pair;
WordPiece merges the pair with the highest score

    score(a, b) = count(ab) / (count(a) * count(b))

that is, how much more often `a` and `b` stand side by side than they would if tokens were
drawn independently (up to a constant factor, the ratio p(ab) / (p(a) p(b)), whose logarithm
is the pair's pointwise mutual information, PMI). So WordPiece prefers pairs whose parts are
rare on their own: `##q ##u`, where BPE takes `t h` because `t` and `h` are everywhere.

Subtle: the score is often called a likelihood score, but it is not the likelihood's gain.
Under a unigram model, merging `a b` raises the corpus's log-likelihood by about
count(ab) * PMI(a, b): the PMI is the gain of one merged occurrence, and the count
multiplies it. On the course's prose the pair that maximises it is BPE's first pick,
`t ##h`; the score leaves the count out (chapter 12 computes both).
`criterion="likelihood"` keeps the name the score usually goes by.

This follows the Hugging Face course (chapter 6, "WordPiece tokenization"):

1. **Words.** The text is normalized and split by BERT's normalizer and pre-tokenizer
   (`normalizer`, `pretokenizer`); equal words are counted once, with their count.
2. **Alphabet.** Each word is spelled as characters, every character after the first with
   the continuation prefix `##` (`word` -> `w ##o ##r ##d`). The vocabulary starts with the
   special tokens `[PAD] [UNK] [CLS] [SEP] [MASK]`, then the alphabet, sorted.
3. **Merge.** Count every token and every adjacent pair (each word weighted by its count),
   merge the pair with the best score everywhere (`a` + `##b` -> `ab`, `##a` + `##b` ->
   `##ab`), add the new token, and repeat until the vocabulary has `vocab_size` tokens or
   no pair is left. The counts are updated incrementally: only the words that hold the
   merged pair are counted again.

Ties, so training never depends on dict order: scores are compared exactly (as fractions
of integers); among equal scores the pair whose `(left, right)` strings are greatest wins,
as the course's BPE trainers break ties (`pairs.best_pair`). `criterion="frequency"` picks
by BPE's rule instead (count, then the same tie rule), to compare the two on one corpus.

On the course's prose (Python's documentation) the first merges differ at once. BPE joins
the most frequent letters; WordPiece joins pieces that seldom occur apart, here the digits
of numbers that occur only in one place:

>>> from bpe_course import corpora
>>> words = count_words(corpora.prose()[:20_000])
>>> [join(a, b) for a, b, _ in learn_merges(words, 10, "frequency")]
['th', 'the', '##te', '##en', '##on', '##ti', '##ss', '##er', '##or', '##ar']
>>> [join(a, b) for a, b, _ in learn_merges(words, 10, "likelihood")]
['##84', '49', '484', '##55', '255', '##13', '313', '492', '3132', '##26']

`train_wordpiece` returns the vocabulary as `{token: id}`, which `WordPiece` loads:

>>> vocab = train_wordpiece(corpora.prose()[:20_000], 300)
>>> list(vocab)[:7], len(vocab)
(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', '"', '#'], 300)
>>> from bpe_course.wordpiece.tokenizer import WordPiece
>>> WordPiece(vocab).tokenize_word("tokenizer")
['t', '##o', '##k', '##e', '##n', '##iz', '##e', '##r']

Subtle: Hugging Face's `tokenizers` has a `WordPieceTrainer`, but it does not do this: it
trains a BPE by frequency (with the `##` prefix) and converts the result to a WordPiece
vocabulary (`tokenizers/src/models/wordpiece/trainer.rs`: a `BpeTrainer` inside, then
`WordPiece::from_bpe`). Google never published BERT's own trainer. So no library's
vocabulary is expected here; the tests check the defining property instead: every merge
is the pair with the best score at its step.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ..special import check_special_tokens
from .normalizer import normalize
from .pretokenizer import pretokenize

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PREFIX = "##"
CRITERIA = ("likelihood", "frequency")


def count_words(text: str, lowercase: bool = True) -> Counter:
    """Step 1: the words of `text` after BERT's normalizer and pre-tokenizer, counted."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    normalized, _ = normalize(text, lowercase=lowercase)
    return Counter(word for word, _, _ in pretokenize(normalized))


def spell(word: str) -> list[str]:
    """Step 2: a word as characters, `##` in front of every one after the first."""
    return [ch if i == 0 else PREFIX + ch for i, ch in enumerate(word)]


def join(left: str, right: str) -> str:
    """The token that merging `left` and `right` makes: `right` loses its `##`."""
    return left + right[len(PREFIX):]


def pair_score(pair_count: int, left_count: int, right_count: int, criterion: str) -> Fraction:
    """The score of a pair: `count(ab) / (count(a) * count(b))`, exactly, or its count."""
    if criterion == "frequency":
        return Fraction(pair_count)
    return Fraction(pair_count, left_count * right_count)


def best_pair(pair_count: Counter, token_count: Counter,
              criterion: str) -> tuple[tuple[str, str], Fraction] | None:
    """The pair with the best score and its score, or None when no pair is left.

    Scores are compared as floats first (fast), then exactly among the pairs whose float is
    the best (rounding never reorders two numbers, so the exact best is among them); ties
    go to the greatest `(left, right)`."""
    if criterion == "frequency":
        scores = {pair: float(n) for pair, n in pair_count.items() if n > 0}
    else:
        scores = {pair: n / (token_count[pair[0]] * token_count[pair[1]])
                  for pair, n in pair_count.items() if n > 0}
    if not scores:
        return None
    top = max(scores.values())
    tied = [pair for pair, score in scores.items() if score == top]
    exact = {pair: pair_score(pair_count[pair], token_count[pair[0]], token_count[pair[1]],
                              criterion) for pair in tied}
    pair = max(tied, key=lambda pair: (exact[pair], pair))
    return pair, exact[pair]


def learn_merges(words: Counter, n_tokens: int, criterion: str = "likelihood"
                 ) -> list[tuple[str, str, Fraction]]:
    """Step 3: the merges `(left, right, score)` in order, until `n_tokens` new tokens are
    made or no pair is left. Two merges can make the same token (`##a ##bc` and `##ab
    ##c` both make `##abc`); the second is made but adds no token."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, not {criterion!r}")
    splits = [spell(word) for word in words]
    counts = list(words.values())
    token_count: Counter = Counter()
    pair_count: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = {}     # the words that hold (or held) a pair

    def count(k: int, sign: int) -> None:
        split, n = splits[k], sign * counts[k]
        for token in split:
            token_count[token] += n
        for pair in zip(split, split[1:]):
            pair_count[pair] += n
            if sign > 0:
                where.setdefault(pair, set()).add(k)

    for k in range(len(splits)):
        count(k, +1)
    known = {token for split in splits for token in split}
    merges: list[tuple[str, str, Fraction]] = []
    made = 0
    while made < n_tokens:
        found = best_pair(pair_count, token_count, criterion)
        if found is None:
            break
        (left, right), score = found
        new = join(left, right)
        for k in sorted(where.pop((left, right))):
            split = splits[k]
            if (left, right) not in zip(split, split[1:]):
                continue                        # an earlier merge took the pair away
            count(k, -1)
            out, i = [], 0
            while i < len(split):
                if i + 1 < len(split) and split[i] == left and split[i + 1] == right:
                    out.append(new)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            splits[k] = out
            count(k, +1)
        merges.append((left, right, score))
        if new not in known:
            known.add(new)
            made += 1
    return merges


def train_wordpiece(text: str, vocab_size: int, *, special_tokens=SPECIAL_TOKENS,
                    criterion: str = "likelihood", lowercase: bool = True) -> dict[str, int]:
    """A WordPiece vocabulary `{token: id}` of `vocab_size` tokens learned from `text`: the
    special tokens, the alphabet (sorted), then each merge's token in the order learned.
    Fewer tokens if the text runs out of pairs."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    special_tokens = check_special_tokens(special_tokens)
    words = count_words(text, lowercase=lowercase)
    alphabet = sorted({token for word in words for token in spell(word)})
    start = [t for t in special_tokens] + [t for t in alphabet if t not in special_tokens]
    if not isinstance(vocab_size, int) or vocab_size < len(start):
        raise ValueError(f"vocab_size {vocab_size!r} is smaller than the {len(special_tokens)} "
                         f"special tokens plus the alphabet of {len(alphabet)}")
    tokens = list(start)
    seen = set(tokens)
    for left, right, _ in learn_merges(words, vocab_size - len(tokens), criterion):
        new = join(left, right)
        if new not in seen:
            seen.add(new)
            tokens.append(new)
    return {token: i for i, token in enumerate(tokens)}
