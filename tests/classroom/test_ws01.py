"""Worksheet 01, UTF-8 warm-ups: its solution passes, each mistake is caught.

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

WORKSHEET = "01_utf8_warmups"


@pytest.fixture(scope="module")
def ns(solution):
    """The names the worksheet's solution defines."""
    return solution(WORKSHEET)


@pytest.mark.parametrize("name", list(WORKSHEETS[WORKSHEET].points))
def test_the_solution_passes_every_case(ns, name, passes_every_case):
    passes_every_case(name, ns[CHECKERS[name].target])


def test_utf8_bytes_returning_code_points_is_caught(fails_with):
    message = fails_with(checks.utf8_bytes(lambda text: [ord(c) for c in text]),
                         "utf8_bytes('é')", "expected: [195, 169]", "got:      [233]",
                         "code point")
    assert message.startswith("❌ utf8_bytes: case 4 of 18 failed.")


def test_utf8_bytes_returning_bytes_says_a_list_was_expected(fails_with):
    fails_with(checks.utf8_bytes(lambda text: text.encode("utf-8")),
               "wrong type", "returned bytes, where a list of ints is expected")


def test_code_points_and_bytes_in_the_wrong_order_is_caught(fails_with):
    fails_with(checks.code_points_and_bytes(lambda t: (len(t.encode()), len(t))),
               "expected: (1, 2)", "got:      (2, 1)")


def test_decoder_without_errors_replace_is_caught(fails_with):
    fails_with(checks.safe_decode(lambda b: bytes(b).decode("utf-8")),
               "raised an exception", "UnicodeDecodeError", "errors='replace'")
    fails_with(checks.safe_decode(lambda b: bytes(b).decode("utf-8", errors="ignore")),
               "expected: '\ufffd'", "got:      ''", "errors='ignore' drops them")


def test_a_decomposed_accent_is_shown_escaped_with_its_own_hint(fails_with):
    import unicodedata

    def code_points_and_bytes(text):                # counts what the eye sees
        return len(unicodedata.normalize("NFC", text)), len(text.encode("utf-8"))
    message = fails_with(checks.code_points_and_bytes(code_points_and_bytes),
                         "code_points_and_bytes('e\\u0301')", "expected: (2, 3)",
                         "combining acute accent")
    assert "'é' is 1 code point" not in message


def test_an_encoder_that_forgets_the_surrogates_is_caught(fails_with):
    def encode_code_point(cp):
        if cp < 0x80:
            return [cp]
        if cp < 0x800:
            return [0xC0 | cp >> 6, 0x80 | cp & 0x3F]
        if cp < 0x10000:
            return [0xE0 | cp >> 12, 0x80 | (cp >> 6) & 0x3F, 0x80 | cp & 0x3F]
        return [0xF0 | cp >> 18, 0x80 | (cp >> 12) & 0x3F, 0x80 | (cp >> 6) & 0x3F,
                0x80 | cp & 0x3F]
    fails_with(checks.encode_code_point(encode_code_point), "encode_code_point(0xd800)",
               "expected: raises ValueError", "surrogates")


def test_an_encoder_off_by_one_at_ffff_is_caught(fails_with):
    def encode_code_point(cp):
        if not 0 <= cp <= 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise ValueError(cp)
        if cp < 0x80:
            return [cp]
        if cp < 0x800:
            return [0xC0 | cp >> 6, 0x80 | cp & 0x3F]
        if cp < 0xFFFF:                              # should be 0x10000
            return [0xE0 | cp >> 12, 0x80 | (cp >> 6) & 0x3F, 0x80 | cp & 0x3F]
        return [0xF0 | cp >> 18, 0x80 | (cp >> 12) & 0x3F, 0x80 | (cp >> 6) & 0x3F,
                0x80 | cp & 0x3F]
    fails_with(checks.encode_code_point(encode_code_point), "encode_code_point(0xffff)",
               "take 3 bytes")


def test_an_encoder_that_calls_str_encode_raises_the_wrong_error(fails_with):
    fails_with(checks.encode_code_point(lambda cp: list(chr(cp).encode("utf-8"))),
               "UnicodeEncodeError", "Raise ValueError yourself")
