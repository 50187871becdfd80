"""GPT4Tokenizer on cl100k_base and o200k_base: long inputs, the recovered merges, the
encodings' patterns and special tokens against tiktoken's own, round trips. Parity with
tiktoken on every OpenAI encoding is in `test_openai_parity`."""

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, GPT4Tokenizer
from bpe_course.openai.encodings import ENCODINGS, SPECIAL_TOKENS, SPLIT_PATTERNS, load_ranks
from bpe_course.openai.tokenizer import bpe_by_rank

NAMES = ["cl100k_base", "o200k_base"]


@pytest.fixture(scope="module", params=NAMES)
def pair(request, ours_and_tiktoken):
    return ours_and_tiktoken(request.param)


def test_million_repeats_encode_quickly_and_exactly(pair):
    ours, enc = pair
    for text in ["a" * 1_000_000, "ab1 " * 250_000]:
        assert ours.encode_ordinary(text) == enc.encode_ordinary(text)


def test_recovered_merges_rebuild_every_token(ours_and_tiktoken):
    tok, _ = ours_and_tiktoken("cl100k_base")
    merges = tok.merges
    assert len(merges) == len(tok.mergeable_ranks) - 256
    for (a, b), idx in merges.items():
        assert tok.vocab[a] + tok.vocab[b] == tok.vocab[idx]
        assert a < idx and b < idx


def test_bpe_by_rank_stops_below_max_rank():
    ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abab": 3}
    assert bpe_by_rank(ranks, b"abab") == [b"abab"]
    assert bpe_by_rank(ranks, b"abab", max_rank=3) == [b"ab", b"ab"]


def test_unknown_encoding_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown encoding"):
        GPT4Tokenizer("p51k_base")


def test_patterns_and_special_tokens_are_tiktokens_own():
    """Build the encodings with tiktoken's own constructors (their download replaced)."""
    import tiktoken_ext.openai_public as public
    assert sorted(public.ENCODING_CONSTRUCTORS) == sorted(ENCODINGS)
    for name in ENCODINGS:
        with mock.patch.object(public, "load_tiktoken_bpe", lambda *a, **k: load_ranks(name)), \
             mock.patch.object(public, "data_gym_to_mergeable_bpe_ranks",
                               lambda *a, **k: load_ranks(name)):
            spec = public.ENCODING_CONSTRUCTORS[name]()
        assert spec["pat_str"] == SPLIT_PATTERNS[name]
        assert spec["special_tokens"] == SPECIAL_TOKENS[name]
        if "explicit_n_vocab" in spec:
            assert len(load_ranks(name)) + len(SPECIAL_TOKENS[name]) == spec["explicit_n_vocab"]
    assert SPLIT_PATTERNS["gpt2"] == GPT2_SPLIT_PATTERN
    assert SPLIT_PATTERNS["cl100k_base"] == GPT4_SPLIT_PATTERN
    assert SPLIT_PATTERNS["o200k_base"] == GPT4O_SPLIT_PATTERN


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=300))
def test_property_gpt4_roundtrip(ours_and_tiktoken, text):
    tok, _ = ours_and_tiktoken("o200k_base")
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_property_heap_merging_equals_the_simple_scan(data, ours_and_tiktoken, tricky_text):
    # encode_chunk uses the heap only for long chunks; check it on every length.
    text = data.draw(tricky_text, label="text")
    tok, _ = ours_and_tiktoken("cl100k_base")
    ids = [tok.byte_ids[b] for b in text.encode("utf-8", "replace")]
    assert tok._merge_long(list(ids), tok.merged_rank) == tok._merge_short(list(ids), tok.merged_rank)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_property_merging_bytes_equals_merging_ids(data, ours_and_tiktoken, tricky_text):
    # Short chunks are merged as bytes (`_merge_bytes`); it must equal the scan on ids.
    text = data.draw(tricky_text, label="text")
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        tok, _ = ours_and_tiktoken(name)
        for chunk in tok.compiled_pattern.findall(text) + [text]:
            raw = chunk.encode("utf-8", "replace")
            ids = [tok.byte_ids[b] for b in raw]
            assert tok._merge_bytes(raw) == tok._merge_short(ids, tok.merged_rank)
