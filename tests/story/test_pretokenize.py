"""Splitting text into pre-tokens without the regex engine: the same pieces as `regex.findall`."""

import regex
from hypothesis import given, settings, strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
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


def test_typographic_punctuation_is_punctuation_to_the_patterns():
    # `split_pretokens` hands these to `re`, whose classes treat them as punctuation; so
    # must `regex`: none is a letter, a digit, a mark or whitespace.
    chars = regex.findall(f"[{_PUNCTUATION}]", "".join(map(chr, range(0x80, 0x3000))))
    assert len(chars) == 2 + 0x28 - 0x10
    assert not regex.findall(r"[\p{L}\p{N}\p{M}\s]", "".join(chars))

