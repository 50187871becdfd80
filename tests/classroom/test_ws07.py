"""Worksheet 07, fast training: its solution passes, each mistake is caught.

Each wrong version changes one thing of the worksheet's solution, the way learners
do, and its test asserts both that the check fails and that the message points at
that mistake, not at another one. A mistake that is wrong on real text must also keep
less than half of the exercise's points when the grader scores it (`kept`, on a few
seeds of hidden cases). Checks run with the course's own code off limits, as in a
worksheet; the few wrong answers built from the course's own right one lift that lock
(`unlocked`).
"""

import pytest

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "07_fast_training"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", [n for n in WORKSHEETS[WORKSHEET].points if n != "train_bpe"])
def test_the_solution_passes_every_case(ns, name, passes_every_case):   # train_bpe: below
    passes_every_case(name, ns[CHECKERS[name].target])


def test_count_pretokens_that_counts_special_tokens_is_caught(fails_with):
    import regex
    from bpe_course import GPT4_SPLIT_PATTERN

    def count_pretokens(text, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):
        counts = {}
        for chunk in regex.findall(pattern, text):
            counts[chunk] = counts.get(chunk, 0) + 1
        return counts
    fails_with(checks.count_pretokens(count_pretokens), "['<|endoftext|>']",
               "Cut the text at the special tokens")


def test_trainer_whose_vocab_size_leaves_out_special_tokens_is_caught(ns, fails_with):
    train = ns["train_bpe"]

    def train_bpe(text, vocab_size, special_tokens=(), pattern=ns["GPT4_SPLIT_PATTERN"]):
        vocab, merges = train(text, vocab_size + len(special_tokens), special_tokens, pattern)
        return vocab, merges                        # vocab_size not counting special tokens
    fails_with(checks.train_bpe(train_bpe), "['<|endoftext|>']", "the first 5 items agree, but "
               "you have 1 item more", "vocab_size - 256 - len(special_tokens)")


def naive_trainer():
    """A learner's naive trainer: right merges, no speed-up (its own helpers, as a learner's
    would be: the course's are off limits while it is checked)."""
    import regex

    from bpe_course import GPT4_SPLIT_PATTERN
    from bpe_course.special import split_special

    def train_bpe(text, vocab_size, special_tokens=(), pattern=GPT4_SPLIT_PATTERN):
        chunks = [list(c.encode()) for part in split_special(text, special_tokens)
                  if part not in special_tokens for c in regex.findall(pattern, part)]
        vocab = {i: bytes([i]) for i in range(256)}
        merges = []
        for idx in range(256, vocab_size - len(special_tokens)):
            stats = {}
            for chunk in chunks:
                for pair in zip(chunk, chunk[1:]):
                    stats[pair] = stats.get(pair, 0) + 1
            if not stats:
                break
            a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
            new_chunks = []
            for chunk in chunks:
                out, i = [], 0
                while i < len(chunk):
                    if i < len(chunk) - 1 and chunk[i] == a and chunk[i + 1] == b:
                        out.append(idx)
                        i += 2
                    else:
                        out.append(chunk[i])
                        i += 1
                new_chunks.append(out)
            chunks = new_chunks
            vocab[idx] = vocab[a] + vocab[b]
            merges.append((vocab[a], vocab[b]))
        for token in special_tokens:
            vocab[len(vocab)] = token.encode()
        return vocab, merges
    return train_bpe


def test_the_naive_trainer_is_not_fast_enough(fails_with):
    fails_with(checks.train_bpe(naive_trainer()), "failed", "expected: at least 10",
               "Count each distinct pre-token once")


def test_a_wrapper_around_the_course_is_off_limits(fails_with, kept):
    import bpe_course
    from bpe_course.classroom.checking.references import naive_train_bpe

    def train_bpe(*args, **kwargs):
        return naive_train_bpe(*args, **kwargs)
    fails_with(checks.train_bpe(train_bpe), "case 1 of",
               "bpe_course.classroom.checking.references.naive_train_bpe is off limits")
    kept = bpe_course.merge                    # a reference kept from an earlier cell

    def merge(ids, pair, idx):
        return kept(ids, pair, idx)
    verdict = checks.merge(merge)
    fails_with(verdict, "bpe_course.pairs.merge is off limits",
               "hint: your answer called the course's own code")
    assert "Nothing to merge in an empty list" not in verdict.message   # the case's own hint
    assert bpe_course.merge([1, 2], (1, 2), 256) == [256]        # unlocked afterwards


def test_solution_trainer_is_right_and_fast(ns):
    verdict = checks.check("train_bpe", ns["train_bpe"], hidden=True)
    assert verdict.passed, verdict.message


def test_special_ids_at_the_end_of_vocab_size_are_caught(ns, fails_with):
    train = ns["train_bpe"]

    def train_bpe(text, vocab_size, special_tokens=(), pattern=ns["GPT4_SPLIT_PATTERN"]):
        vocab, merges = train(text, vocab_size, special_tokens, pattern)
        tokens = {t.encode("utf-8") for t in special_tokens}
        vocab = {i: b for i, b in vocab.items() if b not in tokens}
        for k, token in enumerate(special_tokens):
            vocab[vocab_size - len(special_tokens) + k] = token.encode("utf-8")
        return vocab, merges
    fails_with(checks.train_bpe(train_bpe), "train_bpe('ab ab', 300, ['<|endoftext|>'])",
               "(299, b'<|endoftext|>')", "right after the last merge")


@pytest.mark.usefixtures("unlocked")

def test_merge_words_that_leaves_stats_alone_is_caught(fails_with):
    from bpe_course.classroom.checking.references import merge_words as right
    fails_with(checks.merge_words(lambda words, stats, pair: right(words, dict(stats), pair)),
               "expected: (15, 5)", "got:      (None, None)", "Update `stats` in place")


@pytest.mark.usefixtures("unlocked")

def test_merge_words_that_keeps_zero_counts_is_caught(fails_with):
    from bpe_course.classroom.checking.references import merge_words as right

    def merge_words(words, stats, pair):
        before = set(stats)
        new = right(words, stats, pair)
        stats.update({p: 0 for p in before if p not in stats})
        return new
    fails_with(checks.merge_words(merge_words), "((b'u', b'g'), 0)",
               "Delete a pair from `stats` when its count falls to 0")


def test_merge_words_counting_a_words_pairs_once_is_caught(fails_with):
    def merge_words(words, stats, pair):
        new = {}
        for word, count in words.items():
            if pair not in zip(word, word[1:]):
                new[word] = count
                continue
            for p in set(zip(word, word[1:])):          # a pair twice in a word counts once
                stats[p] -= count
            out, i = [], 0
            while i < len(word):
                if word[i:i + 2] == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            for p in set(zip(out, out[1:])):
                stats[p] = stats.get(p, 0) + count
            for p in [p for p, n in stats.items() if n == 0]:
                del stats[p]
            new[tuple(out)] = count
        return new
    fails_with(checks.merge_words(merge_words), "(b'h', b'a'))", "can occur twice in one word")
