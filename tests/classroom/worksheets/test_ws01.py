"""Worksheet 01, UTF-8 warm-ups: its solution passes, and the project's wrong answers are caught.

`wrong` is the project's corpus of wrong answers for this worksheet, written the way
learners write them (not by mutating the solution mechanically); `corpus.Corpus` makes
the tests that check each is caught, named and scored by the rule, and that the
worksheet's solution passes.
"""

import unicodedata

from bpe_course import checks
from bpe_course.classroom.checking.diagnosis import KINDS

from .corpus import Corpus

WORKSHEET = "01_utf8_warmups"


# -- the corpus of wrong answers -------------------------------------------------------------------

wrong = Corpus(WORKSHEET)


@wrong("utf8_bytes", KINDS["type"])
def utf8_bytes_returning_the_bytes_object(ns):
    def utf8_bytes(text):
        return text.encode("utf-8")
    return utf8_bytes


@wrong("utf8_bytes", "code points (ord of each character), not its UTF-8")
def utf8_bytes_returning_code_points(ns):
    def utf8_bytes(text):
        return [ord(ch) for ch in text]
    return utf8_bytes


@wrong("utf8_bytes", "UTF-16 bytes")
def utf8_bytes_in_utf16(ns):
    def utf8_bytes(text):
        return list(text.encode("utf-16"))        # "Unicode" is UTF-16, isn't it?
    return utf8_bytes


@wrong("utf8_bytes", KINDS["no_error"], breaks="contract")
def utf8_bytes_replacing_a_lone_surrogate(ns):
    def utf8_bytes(text):
        return list(text.encode("utf-8", errors="replace"))   # never crash
    return utf8_bytes


@wrong("utf8_bytes", "code points (ord of each character)")
def utf8_bytes_through_latin1(ns):
    def utf8_bytes(text):
        out = []
        for ch in text:
            out.extend(ch.encode("latin-1", errors="ignore") or ch.encode("utf-8"))
        return out
    return utf8_bytes


@wrong("code_points_and_bytes", KINDS["order"])
def counts_in_the_wrong_order(ns):
    def code_points_and_bytes(text):
        return len(text.encode("utf-8")), len(text)
    return code_points_and_bytes


@wrong("code_points_and_bytes", "both numbers count code points")
def counts_characters_twice(ns):
    def code_points_and_bytes(text):
        n = len(text)
        return n, len(list(text))
    return code_points_and_bytes


@wrong("code_points_and_bytes", "after normalization")
def counts_what_the_eye_sees(ns):
    def code_points_and_bytes(text):
        return len(unicodedata.normalize("NFC", text)), len(text.encode("utf-8"))
    return code_points_and_bytes


@wrong("code_points_and_bytes", KINDS["type"])
def counts_as_a_list(ns):
    def code_points_and_bytes(text):
        return [len(text), len(text.encode("utf-8"))]
    return code_points_and_bytes


@wrong("code_points_and_bytes", "UTF-16-LE bytes")
def counts_utf16_bytes(ns):
    def code_points_and_bytes(text):
        return len(text), len(text.encode("utf-16-le"))
    return code_points_and_bytes


def _encoder(one=0x80, two=0x800, three=0x10000, lead4=0xF0, cont3=0x80, check=True):
    """A learner's encoder, with the boundaries and markers they typed."""
    def encode_code_point(cp):
        if check and (not 0 <= cp <= 0x10FFFF or 0xD800 <= cp <= 0xDFFF):
            raise ValueError(f"{cp:#x} has no UTF-8 encoding")
        if cp < one:
            return [cp]
        if cp < two:
            return [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)]
        if cp < three:
            return [0xE0 | (cp >> 12), cont3 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)]
        return [lead4 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F),
                0x80 | (cp & 0x3F)]
    return encode_code_point


@wrong("encode_code_point", KINDS["no_error"], breaks="contract")
def encoder_without_the_surrogate_check(ns):
    return _encoder(check=False)


@wrong("encode_code_point", "wrong number of bytes")
def encoder_off_by_one_at_ffff(ns):
    return _encoder(three=0xFFFF)


@wrong("encode_code_point", "wrong number of bytes")
def encoder_off_by_one_at_7f(ns):
    return _encoder(one=0x7F)


@wrong("encode_code_point", "wrong number of bytes")
def encoder_with_the_3_byte_range_ending_at_d800(ns):
    def encode_code_point(cp):                       # "surrogates end the 3-byte range"
        if not 0 <= cp <= 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise ValueError(cp)
        if cp <= 0x7F:
            return [cp]
        if cp <= 0x7FF:
            return [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)]
        if cp < 0xD800:
            return [0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)]
        return [0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F),
                0x80 | (cp & 0x3F)]
    return encode_code_point


@wrong("encode_code_point", KINDS["by_hand"], breaks="contract")
def encoder_calling_str_encode(ns):
    def encode_code_point(cp):
        if not 0 <= cp <= 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise ValueError(f"{cp:#x} is not encodable")
        return list(chr(cp).encode("utf-8"))
    return encode_code_point


@wrong("encode_code_point", "continuation byte lacks its marker")
def encoder_forgetting_a_continuation_marker(ns):
    return _encoder(cont3=0)


@wrong("encode_code_point", "lead byte's marker bits are wrong")
def encoder_with_the_3_byte_lead_for_4_bytes(ns):
    return _encoder(lead4=0xE0)


@wrong("encode_code_point", KINDS["type"])
def encoder_returning_bytes(ns):
    right = ns["encode_code_point"]

    def encode_code_point(cp):
        return bytes(right(cp))
    return encode_code_point


@wrong("encode_code_point", "the code point's own bytes")
def encoder_with_to_bytes(ns):
    def encode_code_point(cp):
        if not 0 <= cp <= 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise ValueError(cp)
        size = 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        return list(cp.to_bytes(size, "big"))
    return encode_code_point


@wrong("encode_code_point", KINDS["wrong_error"], breaks="contract")
def encoder_raising_its_own_error_class(ns):
    right = ns["encode_code_point"]

    class SurrogateError(Exception):
        pass

    def encode_code_point(cp):
        if 0xD800 <= cp <= 0xDFFF:
            raise SurrogateError(hex(cp))
        return right(cp)
    return encode_code_point


@wrong("safe_decode", [KINDS["exception"], "errors='replace'"])
def strict_decode(ns):
    def safe_decode(byte_list):
        return bytes(byte_list).decode("utf-8")
    return safe_decode


@wrong("safe_decode", "broken bytes were dropped")
def decode_ignoring_errors(ns):
    def safe_decode(byte_list):
        return bytes(byte_list).decode("utf-8", errors="ignore")
    return safe_decode


@wrong("safe_decode", "read as latin-1")
def decode_falling_back_to_latin1(ns):
    def safe_decode(byte_list):
        try:
            return bytes(byte_list).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(byte_list).decode("latin-1")
    return safe_decode


@wrong("safe_decode", "each byte was decoded on its own")
def decode_byte_by_byte(ns):
    def safe_decode(byte_list):
        return "".join(bytes([b]).decode("utf-8", errors="replace") for b in byte_list)
    return safe_decode


@wrong("safe_decode", KINDS["empty"])
def decode_giving_up_on_errors(ns):
    def safe_decode(byte_list):
        try:
            return bytes(byte_list).decode("utf-8")
        except UnicodeDecodeError:
            return ""
    return safe_decode


@wrong("safe_decode", "writes the broken bytes as escapes")
def decode_with_backslashes(ns):
    def safe_decode(byte_list):
        return bytes(byte_list).decode("utf-8", errors="backslashreplace")
    return safe_decode


globals().update(wrong.tests())


# -- messages in detail ---------------------------------------------------------------------------

def test_utf8_bytes_returning_code_points_shows_the_first_case_that_differs(fails_with):
    message = fails_with(checks.utf8_bytes(lambda text: [ord(c) for c in text]),
                         "utf8_bytes('é')", "expected: [195, 169]", "got:      [233]",
                         "code point")
    assert message.startswith("❌ utf8_bytes: case 4 of 19 failed.")


def test_a_decomposed_accent_is_shown_escaped_with_its_own_hint(fails_with):
    def code_points_and_bytes(text):                # counts what the eye sees
        return len(unicodedata.normalize("NFC", text)), len(text.encode("utf-8"))
    message = fails_with(checks.code_points_and_bytes(code_points_and_bytes),
                         "code_points_and_bytes('e\\u0301')", "expected: (2, 3)",
                         "after normalization")
    assert "'é' is 1 code point" not in message


def test_the_surrogate_hint_follows_a_missing_check(fails_with):
    fails_with(checks.encode_code_point(_encoder(check=False)), "encode_code_point(0xd800)",
               "expected: raises ValueError", "surrogates")
