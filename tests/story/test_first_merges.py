"""`Tokenizer.first_merges`: cutting a trained tokenizer to a smaller vocabulary."""

import pytest

from bpe_course import BasicTokenizer, GPT4Tokenizer, RegexTokenizer, corpora

TEXT = corpora.prose()[:6_000]


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_first_merges_equals_training_to_the_smaller_size(cls):
    big, small = cls(), cls()
    big.train(TEXT, 360)
    small.train(TEXT, 300)
    cut = big.first_merges(300)
    assert type(cut) is cls
    assert cut.merges == small.merges and cut.vocab == small.vocab
    sample = corpora.prose()[10_000:12_000]
    assert big.encode(sample) != cut.encode(sample) == small.encode(sample)
    assert len(big.merges) == 104                     # the original is untouched


def test_first_merges_keeps_special_tokens_and_a_cache_of_its_own():
    big = RegexTokenizer()
    big.train(TEXT, 330)
    big.register_special_tokens({"<|endoftext|>": 330})
    big.encode("the cat")                             # fills big's chunk cache
    cut = big.first_merges(260)
    assert cut.encode("the cat<|endoftext|>", allowed_special="all")[-1] == 330
    assert cut.encode_ordinary("the cat") != big.encode_ordinary("the cat")
    assert cut.decode(cut.encode_ordinary(TEXT)) == TEXT


def test_first_merges_refuses_what_it_cannot_do():
    with pytest.raises(ValueError):
        BasicTokenizer().first_merges(100)
    with pytest.raises(TypeError, match="ranks"):
        GPT4Tokenizer("cl100k_base").first_merges(1000)
