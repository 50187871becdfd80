"""BasicTokenizer and RegexTokenizer: training, encoding, decoding, bad input, and cutting a
trained tokenizer to a smaller vocabulary (`first_merges`)."""

import os
import subprocess
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT2_SPLIT_PATTERN, BasicTokenizer, GPT4Tokenizer, RegexTokenizer, corpora
from bpe_course.corpora import HARD_STRINGS

TEXT = corpora.prose()[:20_000]


@pytest.fixture(scope="module")
def basic():
    tok = BasicTokenizer()
    tok.train(TEXT, 256 + 64)
    return tok


@pytest.fixture(scope="module")
def regex_tok():
    tok = RegexTokenizer()
    tok.train(TEXT, 256 + 64)
    return tok


def test_basic_reproduces_the_aaabdaaabac_example():
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 256 + 3)
    assert [tok.vocab[i] for i in (256, 257, 258)] == [b"aa", b"aaa", b"aaab"]
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_training_learns_the_requested_number_of_merges(basic, regex_tok):
    assert len(basic.merges) == 64 and len(regex_tok.merges) == 64
    assert sorted(basic.merges.values()) == list(range(256, 320))


def test_training_on_empty_or_tiny_text_learns_no_merges():
    for tok in (BasicTokenizer(), RegexTokenizer()):
        tok.train("", 300)
        assert tok.merges == {}
        assert tok.encode("") == [] and tok.decode([]) == ""
        tok.train("a", 300)
        assert tok.merges == {}


def test_training_stops_when_no_pairs_are_left():
    tok = BasicTokenizer()
    tok.train("abc", 1000)
    assert len(tok.merges) == 2


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_vocab_size_below_256_is_rejected(cls):
    with pytest.raises(ValueError, match="at least 256"):
        cls().train("hello", 255)
    with pytest.raises(TypeError):
        cls().train("hello", "300")


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_non_str_text_is_a_type_error(cls):
    tok = cls()
    with pytest.raises(TypeError, match="str"):
        tok.encode(b"bytes")
    with pytest.raises(TypeError, match="str"):
        tok.train(None, 300)


def test_decoding_an_unknown_id_names_it(regex_tok):
    with pytest.raises(ValueError, match="unknown token id 99999"):
        regex_tok.decode([1, 2, 99999])
    with pytest.raises(TypeError, match="ints"):
        regex_tok.decode([1, "2"])


def test_decode_replaces_invalid_utf8_unless_strict():
    tok = BasicTokenizer()
    assert tok.decode([0xE2, 0x82]) == "\ufffd"         # half of "€"
    assert tok.decode([128]) == "\ufffd"                  # lone continuation byte
    with pytest.raises(UnicodeDecodeError):
        tok.decode([128], errors="strict")


@pytest.mark.parametrize("text", HARD_STRINGS)
def test_roundtrip_of_hard_strings(basic, regex_tok, text):
    assert basic.decode(basic.encode(text)) == text
    assert regex_tok.decode(regex_tok.encode_ordinary(text)) == text


def test_regex_tokenizer_never_merges_across_chunks(regex_tok):
    pattern = regex.compile(regex_tok.pattern)
    for idx, token in regex_tok.vocab.items():
        text = token.decode("utf-8", errors="replace")
        if idx >= 256 and "\ufffd" not in text:
            assert pattern.findall(text) == [text], f"token {token!r} crosses a chunk boundary"


def test_basic_tokenizer_does_merge_across_words():
    tok = BasicTokenizer()
    tok.train("dog. dog. dog. dog.", 256 + 4)
    assert any(b"." in t and b"g" in t for t in tok.vocab.values())


def test_long_chunks_merge_like_short_ones(regex_tok):
    # Chunks above 128 ids use the heap path; it must equal the simple scan.
    for text in ["the " * 300, "e" * 1000, TEXT[:3000].replace(" ", "")]:
        data = text.encode()
        merged_id = regex_tok._merged_id
        assert regex_tok._merge_long(list(data), merged_id) == regex_tok._merge_short(list(data), merged_id)


def test_pathological_repeats_encode_and_roundtrip(regex_tok):
    text = "a" * 200_000
    assert regex_tok.decode(regex_tok.encode(text)) == text


TRAIN_SCRIPT = """
from bpe_course import RegexTokenizer, corpora
t = RegexTokenizer(); t.train(corpora.prose()[:8000], 300)
print(sorted(t.merges.items(), key=lambda kv: kv[1]))
"""


def test_training_is_deterministic_under_any_hash_seed():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.add(subprocess.run([sys.executable, "-c", TRAIN_SCRIPT], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert len(outputs) == 1


def test_lone_surrogates_become_replacement_characters(regex_tok):
    assert regex_tok.decode(regex_tok.encode("a\ud800b")) == "a\ufffdb"


def test_gpt2_pattern_splits_differently():
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train("hello 12345 world", 260)
    assert tok.pattern == GPT2_SPLIT_PATTERN


no_surrogates = st.text(st.characters(exclude_categories=["Cs"]), max_size=200)


@settings(max_examples=80, deadline=None)
@given(no_surrogates)
def test_property_roundtrip_trained_tokenizers(basic, regex_tok, text):
    assert basic.decode(basic.encode(text)) == text
    assert regex_tok.decode(regex_tok.encode(text, allowed_special="all")) == text


# -- first_merges: a trained tokenizer cut to a smaller vocabulary ---------------------------

SHORT_TEXT = corpora.prose()[:6_000]


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_first_merges_equals_training_to_the_smaller_size(cls):
    big, small = cls(), cls()
    big.train(SHORT_TEXT, 360)
    small.train(SHORT_TEXT, 300)
    cut = big.first_merges(300)
    assert type(cut) is cls
    assert cut.merges == small.merges and cut.vocab == small.vocab
    sample = corpora.prose()[10_000:12_000]
    assert big.encode(sample) != cut.encode(sample) == small.encode(sample)
    assert len(big.merges) == 104                     # the original is untouched


def test_first_merges_keeps_special_tokens_and_a_cache_of_its_own():
    big = RegexTokenizer()
    big.train(SHORT_TEXT, 330)
    big.register_special_tokens({"<|endoftext|>": 330})
    big.encode("the cat")                             # fills big's chunk cache
    cut = big.first_merges(260)
    assert cut.encode("the cat<|endoftext|>", allowed_special="all")[-1] == 330
    assert cut.encode_ordinary("the cat") != big.encode_ordinary("the cat")
    assert cut.decode(cut.encode_ordinary(SHORT_TEXT)) == SHORT_TEXT


def test_first_merges_refuses_what_it_cannot_do():
    with pytest.raises(ValueError):
        BasicTokenizer().first_merges(100)
    with pytest.raises(TypeError, match="ranks"):
        GPT4Tokenizer("cl100k_base").first_merges(1000)
