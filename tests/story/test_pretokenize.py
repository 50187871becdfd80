"""Splitting text into pre-tokens without the regex engine: the same pieces as `regex.findall`."""

from unittest import mock

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, pretokenize
from bpe_course.pretokenize import _PUNCTUATION, split_pretokens

split_alphabet = st.lists(st.sampled_from(["a", "B", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "1",
                                           "1234", "é", "Ж", "中", "👍", "!", "/", "\n/", "\n ",
                                           "\u00a0", "\u2028", "\x0b", "x",
                                           # letters beside spaces, combining marks
                                           "ab ", "Cd ", "é ", " \u0301", "\u0301", "'", "ß",
                                           # typographic punctuation, split by `re` too
                                           "’", "“", "” ", "—", "…", "«", "\u2027"]),
                          max_size=80).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(split_alphabet, st.text(max_size=200)))
def test_property_split_pretokens_equals_regex_findall(text):
    for pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN):
        assert split_pretokens(text, pattern) == regex.findall(pattern, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(split_alphabet, st.text(max_size=200)), st.integers(0, 60))
def test_property_text_judged_dense_is_split_the_same(text, after):
    # With a small `_DENSE_AFTER`, short texts switch to `regex` for the rest part way.
    with mock.patch.object(pretokenize, "_DENSE_AFTER", after):
        for pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN):
            assert split_pretokens(text, pattern) == regex.findall(pattern, text)


def test_long_texts_dense_in_letters_outside_ascii_are_split_the_same():
    german = "Der schnelle braune Fuchs springt über den faulen Hund.\n  Grüße, Jörg!\n"
    english = "The quick brown fox jumps over the lazy dog.\n    return None\n"
    for text in (german * 100, english * 100 + german * 100, german * 100 + english * 100,
                 (english * 30 + german) * 10, "中文字 " * 1000 + english):
        for pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN):
            assert split_pretokens(text, pattern) == regex.findall(pattern, text)


def test_typographic_punctuation_is_punctuation_to_the_patterns():
    # `split_pretokens` hands these to `re`, whose classes treat them as punctuation; so
    # must `regex`: none is a letter, a digit, a mark or whitespace.
    chars = regex.findall(f"[{_PUNCTUATION}]", "".join(map(chr, range(0x80, 0x3000))))
    assert len(chars) == 2 + 0x28 - 0x10
    assert not regex.findall(r"[\p{L}\p{N}\p{M}\s]", "".join(chars))

