"""Worksheet 06, GPT-4 from tiktoken's ranks: its solution passes, each mistake is caught.

Each wrong version changes one thing of the worksheet's solution, the way learners
do, and its test asserts both that the check fails and that the message points at
that mistake, not at another one. A mistake that is wrong on real text must also keep
less than half of the exercise's points when the grader scores it (`kept`, on a few
seeds of hidden cases). Checks run with the course's own code off limits, as in a
worksheet; the few wrong answers built from the course's own right one lift that lock
(`unlocked`).
"""

import re

import pytest

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS

WORKSHEET = "06_gpt4_tokenizer"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_recover_merges_without_the_rank_limit_is_caught(fails_with):
    def recover_merges(ranks):
        merges = {}
        for token, rank in ranks.items():
            if len(token) > 1:                      # longest known prefix: no BPE at all
                cut = max(i for i in range(1, len(token)) if token[:i] in ranks)
                merges[ranks[token[:cut]], ranks[token[cut:]]] = rank
        return merges
    fails_with(checks.recover_merges(recover_merges), "b'abc': 5", "*below*")


def test_tokenizer_that_ignores_the_byte_shuffle_is_caught(ns, fails_with):
    class Wrong(ns["GPT4Tokenizer"]):
        def __init__(self, encoding="cl100k_base"):
            super().__init__(encoding)
            self.byte_ids = list(range(256))
            self.vocab = self._build_vocab()
    fails_with(checks.gpt4_tokenizer(Wrong), "tok.encode('!')", "expected: [0]",
               "got:      [33]", "shuffled order")


def test_gpt4_tokenizer_without_special_tokens_is_caught(ns, fails_with):
    class Wrong(ns["RegexTokenizer"]):
        def __init__(self, encoding="cl100k_base"):
            super().__init__(ns["SPLIT_PATTERNS"][encoding])
            ranks = ns["load_ranks"](encoding)
            self.merges = ns["recover_merges"](ranks)
            self.byte_ids = [ranks[bytes([b])] for b in range(256)]
            self.vocab = self._build_vocab()
    fails_with(checks.gpt4_tokenizer(Wrong), "allowed_special='all'", "register_special_tokens")


@pytest.mark.usefixtures("unlocked")

def test_recover_merges_with_less_or_equal_is_caught(fails_with):
    from bpe_course.openai.tokenizer import bpe_by_rank

    def recover_merges(ranks):
        merges = {}
        for token, rank in ranks.items():
            if len(token) > 1:
                left, right = bpe_by_rank(ranks, token, rank + 1)    # <= rank
                merges[ranks[left], ranks[right]] = rank
        return merges
    message = fails_with(checks.recover_merges(recover_merges), "not <=")
    assert "are ranks" not in message


@pytest.mark.usefixtures("unlocked")

def test_recover_merges_with_byte_values_is_caught(fails_with):
    from bpe_course.openai.tokenizer import bpe_by_rank

    def recover_merges(ranks):
        merges = {}
        for token, rank in ranks.items():
            if len(token) > 1:
                parts = bpe_by_rank(ranks, token, rank)
                ids = [p[0] if len(p) == 1 else ranks[p] for p in parts]
                merges[tuple(ids)] = rank
        return merges
    fails_with(checks.recover_merges(recover_merges), "{b'b': 0, b'a': 1, b'ab': 2}",
               "not byte values")


@pytest.mark.usefixtures("unlocked")

def test_recover_merges_differences_are_shown_through_the_ranks_bytes(fails_with):
    from bpe_course.openai.tokenizer import recover_merges as right

    def recover_merges(ranks):
        merges = right(ranks)
        if len(ranks) > 100:                        # one merge wrong on real ranks
            (pair, rank), = [(p, r) for p, r in merges.items() if r == 300]
            merges[pair[1], pair[0]] = merges.pop(pair)
        return merges
    message = fails_with(checks.recover_merges(recover_merges), "first different merge, id 300")
    line = next(l for l in message.splitlines() if l.strip().startswith("expected ("))
    assert re.search(r"-> b'.*'$", line) and "unknown" not in line
    assert "\\xdc" not in message                   # not the raw ids read as bytes


@pytest.mark.usefixtures("unlocked")

def test_an_o_n_squared_recover_merges_runs_out_of_time(monkeypatch, fails_with):
    """A slow answer meets the timed case; the limit is cut here so the test stays fast."""
    import time
    from bpe_course.openai.tokenizer import recover_merges as right

    def recover_merges(ranks):
        if len(ranks) > 50_000:
            time.sleep(5)                           # stands in for an O(n^2) search
        return right(ranks)
    checker = CHECKERS["recover_merges"]
    timed = [g for g in checker.groups() if g.time_limit and not g.hidden]
    assert timed and "ALL = load_ranks('cl100k_base')" in timed[0].setup
    monkeypatch.setattr(timed[0], "time_limit", 1)
    fails_with(checks.recover_merges(recover_merges), "took too long",
               "never search through all the tokens")


def test_o200k_with_cl100k_pattern_is_caught_visibly_and_keeps_little(ns, fails_with, kept):
    class GPT4Tokenizer(ns["GPT4Tokenizer"]):
        def __init__(self, encoding="cl100k_base"):
            ns["RegexTokenizer"].__init__(self, ns["SPLIT_PATTERNS"]["cl100k_base"])
            ranks = ns["load_ranks"](encoding)
            self.merges = ns["recover_merges"](ranks)
            self.byte_ids = [ranks[bytes([b])] for b in range(256)]
            self.vocab = self._build_vocab()
            self.register_special_tokens(ns["SPECIAL_TOKENS"][encoding])
    message = fails_with(checks.gpt4_tokenizer(GPT4Tokenizer), "GPT4Tokenizer('o200k_base')",
                         "its own pattern", "SPLIT_PATTERNS[encoding]")
    assert "GPT-4's split pattern" not in message
    assert max(kept("gpt4_tokenizer", GPT4Tokenizer)) < 0.5


def test_the_solution_keeps_every_point_on_every_seed(ns, kept):
    assert set(kept("gpt4_tokenizer", ns["GPT4Tokenizer"])) == {1.0}
