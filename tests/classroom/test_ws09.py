"""Worksheet 09, SentencePiece: its solution passes, each mistake is caught.

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

WORKSHEET = "09_sentencepiece"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_normalize_without_the_dummy_prefix_is_caught(fails_with):
    def spm_normalize(text, add_dummy_prefix=True):
        return text.replace(" ", "\u2581")
    fails_with(checks.spm_normalize(spm_normalize), "spm_normalize('Hello')", "add_dummy_prefix")


def test_normalize_that_prefixes_empty_text_is_caught(fails_with):
    def spm_normalize(text, add_dummy_prefix=True):
        return ("\u2581" if add_dummy_prefix else "") + text.replace(" ", "\u2581")
    fails_with(checks.spm_normalize(spm_normalize), "spm_normalize('')", "not in front of")


def _encoder(ns, pick, fallback=True):
    """The solution's encoder with one thing changed: how the best pair is picked, or no bytes."""
    NORMAL, BYTE, normalize = ns["NORMAL"], ns["BYTE"], ns["spm_normalize"]

    def spm_encode(model, text):
        normal = {p: i for i, (p, s, t) in enumerate(model.pieces) if t == NORMAL}
        byte_ids = {p: i for i, (p, s, t) in enumerate(model.pieces) if t == BYTE}
        symbols = list(normalize(text, model.normalizer["add_dummy_prefix"]))
        while True:
            found = [(model.pieces[normal[a + b]][1], i) for i, (a, b)
                     in enumerate(zip(symbols, symbols[1:])) if a + b in normal]
            if not found:
                break
            i = pick(found)[1]
            symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
        ids = []
        for s in symbols:
            if s in normal:
                ids.append(normal[s])
            elif fallback:
                ids.extend(byte_ids["<0x%02X>" % b] for b in s.encode("utf-8"))
            else:
                ids.append(0)
        return ids
    return spm_encode


def test_the_solution_passes(ns):
    assert checks.spm_encode(ns["spm_encode"]).passed
    right = _encoder(ns, lambda found: max(found, key=lambda f: (f[0], -f[1])))
    assert checks.spm_encode(right).passed


def test_merging_the_lowest_score_first_is_caught(ns, fails_with, kept):
    wrong = _encoder(ns, lambda found: min(found, key=lambda f: (f[0], f[1])))
    fails_with(checks.spm_encode(wrong), "highest", "score")
    assert max(kept("spm_encode", wrong)) < 0.5         # wrong on every page of real text


def test_the_solution_keeps_every_point_on_every_seed(ns, kept):
    assert set(kept("spm_encode", ns["spm_encode"])) == {1.0}


def test_rightmost_pair_on_a_tie_is_caught(ns, fails_with):
    wrong = _encoder(ns, lambda found: max(found, key=lambda f: (f[0], f[1])))
    fails_with(checks.spm_encode(wrong), "leftmost")


def test_unknown_characters_without_byte_fallback_are_caught(ns, fails_with):
    wrong = _encoder(ns, lambda found: max(found, key=lambda f: (f[0], -f[1])), fallback=False)
    fails_with(checks.spm_encode(wrong), "spm_encode(MODEL, '鬱')", "<0x%02X>")
