"""Splitting text into pre-tokens without the regex engine: the same pieces as `regex.findall`."""

import regex
from hypothesis import given, settings, strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_course.pretokenize import split_pretokens

split_alphabet = st.lists(st.sampled_from(["a", "B", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "1",
                                           "1234", "é", "Ж", "中", "👍", "!", "/", "\n/", "\n ",
                                           "\u00a0", "\u2028", "\x0b", "x"]),
                          max_size=80).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(split_alphabet, st.text(max_size=200)))
def test_property_split_pretokens_equals_regex_findall(text):
    for pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN):
        assert split_pretokens(text, pattern) == regex.findall(pattern, text)
