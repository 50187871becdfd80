"""Worksheet 08, tokenization in practice: its solution passes, each mistake is caught.

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

WORKSHEET = "08_tokenization_in_practice"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_tokens_per_character_is_caught(fails_with):
    from bpe_course import get_encoding

    def tokens_per_byte(text, encoding):
        return len(get_encoding(encoding).encode_ordinary(text)) / len(text) if text else 0.0
    fails_with(checks.tokens_per_byte(tokens_per_byte), "Per byte, not per character")


def test_tokens_per_byte_with_encode_is_caught(fails_with):
    from bpe_course import get_encoding

    def tokens_per_byte(text, encoding):
        size = len(text.encode())
        return len(get_encoding(encoding).encode(text)) / size if size else 0.0
    fails_with(checks.tokens_per_byte(tokens_per_byte), "'<|endoftext|> is a special token'",
               "use encode_ordinary")


def test_whitespace_pretokens_with_re_is_caught(fails_with):
    import re as stdlib_re
    fails_with(checks.whitespace_pretokens(
        lambda text, pattern: sum(c.isspace() for c in stdlib_re.findall(pattern, text))),
        "bad escape", "`re` does not know")


def test_whitespace_pretokens_counting_chunks_with_a_space_is_caught(fails_with):
    import regex
    fails_with(checks.whitespace_pretokens(
        lambda text, pattern: sum(" " in c or "\n" in c for c in regex.findall(pattern, text))),
        "whitespace_pretokens('hello world'", "' return' holds a space")


def test_whitespace_pretokens_ignoring_the_pattern_is_caught(fails_with):
    import regex
    from bpe_course import GPT4_SPLIT_PATTERN
    fails_with(checks.whitespace_pretokens(
        lambda text, pattern: sum(c.isspace() for c in regex.findall(GPT4_SPLIT_PATTERN, text))),
        "whitespace_pretokens(CODE, GPT2_SPLIT_PATTERN)", "Use the pattern you are given")


def test_glitch_candidates_with_byte_ids_is_caught(fails_with):
    fails_with(checks.glitch_candidates(
        lambda tok, text: sorted(set(tok.vocab) - set(tok.encode(text)))),
        "the 256 byte ids are not merges")


def test_glitch_candidates_with_special_tokens_is_caught(fails_with):
    fails_with(checks.glitch_candidates(
        lambda tok, text: sorted(i for i in tok.vocab if i >= 256
                                 and i not in set(tok.encode(text)))),
        "tok.register_special_tokens", "registered, not learned")
