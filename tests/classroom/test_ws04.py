"""Worksheet 04, regex pre-tokenization: its solution passes, each mistake is caught.

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

WORKSHEET = "04_regex_tokenizer"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_chunked_stats_across_chunks_is_caught(fails_with):
    def chunked_stats(chunks):
        flat = [i for chunk in chunks for i in chunk]
        return {p: sum(1 for q in zip(flat, flat[1:]) if q == p) for p in zip(flat, flat[1:])}
    fails_with(checks.chunked_stats(chunked_stats), "chunked_stats([[1, 2], [3, 4]])",
               "unexpected: (2, 3)", "never cross chunks")


def test_regex_tokenizer_counting_pairs_across_chunks_is_caught(ns, fails_with):
    class Wrong(ns["RegexTokenizer"]):
        def train(self, text, vocab_size, verbose=False):
            ids = list(text.encode("utf-8"))
            self.merges, self.vocab = {}, self._build_vocab()
            for idx in range(256, vocab_size):
                stats = ns["get_stats"](ids)
                if not stats:
                    break
                pair = ns["best_pair"](stats, self.vocab)
                ids = ns["merge"](ids, pair, idx)
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    fails_with(checks.regex_tokenizer(Wrong), "across chunks")


def test_regex_tokenizer_that_ignores_its_pattern_argument_is_caught(ns, fails_with):
    class Wrong(ns["RegexTokenizer"]):
        def __init__(self, pattern=None):
            super().__init__()                    # always GPT-4's pattern
    fails_with(checks.regex_tokenizer(Wrong), "RegexTokenizer(GPT2_SPLIT_PATTERN)",
               "Use the pattern given to __init__")


def test_regex_tokenizer_may_not_inherit_the_courses_own(fails_with):
    from bpe_course import RegexTokenizer

    class Lazy(RegexTokenizer):
        pass
    fails_with(checks.regex_tokenizer(Lazy), "inherits from the course's "
               "bpe_course.regex_tokenizer.RegexTokenizer")


def chunk_trainer(base, get_stats, merge, best_pair, chunks_of, count):
    class RegexTokenizer(base):
        def train(self, text, vocab_size, verbose=False):
            chunks = chunks_of(self, text)
            self.merges, self.vocab = {}, self._build_vocab()
            for idx in range(256, vocab_size):
                stats = {}
                for chunk in chunks:
                    count(chunk, stats)
                if not stats:
                    break
                pair = best_pair(stats, self.vocab)
                chunks = [merge(c, pair, idx) for c in chunks]
                self.merges[pair] = idx
                self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
    return RegexTokenizer


def test_training_on_the_set_of_chunks_is_caught_and_keeps_little(ns, fails_with, kept):
    wrong = chunk_trainer(ns["RegexTokenizer"], ns["get_stats"], ns["merge"], ns["best_pair"],
                          lambda self, text: [list(c.encode()) for c in
                                              sorted(set(self.compiled_pattern.findall(text)))],
                          ns["get_stats"])
    fails_with(checks.regex_tokenizer(wrong), "tok.train('xy cd cd cd', 257)",
               "not of set(chunks)")
    assert max(kept("regex_tokenizer", wrong)) < 0.5


def test_counting_each_pair_once_per_chunk_is_caught(ns, fails_with):
    def once(chunk, stats):
        for pair in set(zip(chunk, chunk[1:])):
            stats[pair] = stats.get(pair, 0) + 1
    wrong = chunk_trainer(ns["RegexTokenizer"], ns["get_stats"], ns["merge"], ns["best_pair"],
                          lambda self, text: [list(c.encode()) for c in
                                              self.compiled_pattern.findall(text)], once)
    message = fails_with(checks.regex_tokenizer(wrong), "tok.train('aaaa bb', 257)",
                         "holds (97, 97) three times")
    assert "across chunks" not in message


def test_chunked_stats_counting_once_per_chunk_is_caught(fails_with):
    def chunked_stats(chunks):
        counts = {}
        for chunk in chunks:
            for pair in set(zip(chunk, chunk[1:])):
                counts[pair] = counts.get(pair, 0) + 1
        return counts
    message = fails_with(checks.chunked_stats(chunked_stats), "chunked_stats([[1, 2, 1, 2]])",
                         "not once per chunk")
    assert "never cross" not in message


def test_an_encode_that_does_not_split_is_caught(ns, fails_with, kept):
    class RegexTokenizer(ns["RegexTokenizer"]):
        def encode(self, text):
            return self.encode_chunk(text.encode("utf-8"))
    message = fails_with(checks.regex_tokenizer(RegexTokenizer), "tok.encode('1234')",
                         "encode must split the text")
    assert "lowest id" not in message
    assert max(kept("regex_tokenizer", RegexTokenizer)) < 0.5


def test_a_tokenizer_that_ignores_its_pattern_argument_keeps_little(ns, kept):
    class RegexTokenizer(ns["RegexTokenizer"]):
        def __init__(self, pattern=None):
            super().__init__()                    # always GPT-4's pattern
    assert max(kept("regex_tokenizer", RegexTokenizer)) < 0.5


def test_the_solution_keeps_every_point_on_every_seed(ns, kept):
    assert set(kept("regex_tokenizer", ns["RegexTokenizer"])) == {1.0}
