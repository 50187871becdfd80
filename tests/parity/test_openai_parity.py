"""OpenAITokenizer equals tiktoken id for id, for every OpenAI encoding the course serves
offline: GPT-2's (`r50k_base`, `gpt2`, `p50k_base`, `p50k_edit`), GPT-4's (`cl100k_base`)
and GPT-4o's (`o200k_base`). What is particular to GPT-2 or GPT-4 is in `test_gpt2_parity`
and `test_gpt4_parity`."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import corpora
from bpe_course.corpora import HARD_STRINGS

NAMES = ["r50k_base", "gpt2", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module", params=NAMES)
def pair(request, ours_and_tiktoken):
    return ours_and_tiktoken(request.param)


@pytest.mark.parametrize("text", HARD_STRINGS)
def test_encode_ordinary_equals_tiktoken_on_hard_strings(pair, text):
    ours, enc = pair
    assert ours.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.parametrize("text", HARD_STRINGS)
def test_encode_with_all_specials_equals_tiktoken(pair, text):
    ours, enc = pair
    assert ours.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_encode_refuses_special_text_like_tiktoken(pair):
    ours, enc = pair
    text = "hello <|endoftext|>"
    with pytest.raises(ValueError):
        enc.encode(text)
    with pytest.raises(ValueError, match="endoftext"):
        ours.encode(text)
    assert ours.encode(text, allowed_special="none") == enc.encode(text, disallowed_special=())


def test_real_text_equals_tiktoken(pair):
    ours, enc = pair
    for text in [corpora.prose()[:100_000], corpora.python_code(100_000),
                 " ".join(corpora.SAMPLES.values())]:
        assert ours.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff", "x\ud83d\ude00y", "\ud83d"])
def test_lone_surrogates_match_tiktoken(pair, text):
    ours, enc = pair
    assert ours.encode(text) == enc.encode(text)
    assert ours.encode_ordinary(text) == enc.encode_ordinary(text)


def test_decode_equals_tiktoken_including_special_and_partial_ids(pair):
    ours, enc = pair
    ids = enc.encode("héllo 👋 <|endoftext|>", allowed_special="all")
    assert ours.decode(ids) == enc.decode(ids)
    partial = enc.encode("👋")[:1]                 # part of a UTF-8 sequence
    assert ours.decode(partial) == enc.decode(partial)
    assert ours.decode_bytes(partial) == enc.decode_bytes(partial)


def test_numbers_of_any_length_match_tiktoken(pair):
    ours, enc = pair                  # GPT-2: one chunk; GPT-4 and 4o: groups of three digits
    for n in range(1, 18):
        assert ours.encode("0" * n) == enc.encode("0" * n)


def test_byte_ids_are_a_permutation_of_the_first_256_ranks(pair):
    ours, _ = pair
    assert sorted(ours.byte_ids) == list(range(256))
    assert ours.byte_ids != list(range(256))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_property_parity_with_tiktoken(data, ours_and_tiktoken, tricky_text):
    text = data.draw(tricky_text, label="text")
    for name in ["r50k_base", "p50k_edit", "cl100k_base", "o200k_base"]:
        ours, enc = ours_and_tiktoken(name)
        assert ours.encode_ordinary(text) == enc.encode_ordinary(text)
        assert ours.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
        ids = enc.encode(text, disallowed_special=())
        assert ours.decode(ids) == enc.decode(ids)
