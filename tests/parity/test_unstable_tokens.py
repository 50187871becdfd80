"""`encode_with_unstable` on the course's tokenizer equals tiktoken's: the stable tokens, and
the same set of completions (tiktoken returns them in hash order; the course sorts them)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import OpenAITokenizer, get_encoding
from bpe_course.openai.unstable import WHITE_SPACE, byte_pair_encode, last_char


@pytest.fixture(scope="module")
def cl100k():
    return OpenAITokenizer("cl100k_base"), get_encoding("cl100k_base")


def same(ours, theirs) -> bool:
    return ours[0] == theirs[0] and ours[1] == sorted(theirs[1])


# The ladder: nothing, one character, a half word, a cut URL, the end of a chunk of digits,
# other scripts, emoji, trailing whitespace of each kind (the pattern splits it differently
# once text follows), Unicode spaces, and special tokens allowed or not.
CASES = ["", "a", "Hello wor", '<a href="http:', "The capital of France is Par", "x = foo(",
         "3.1415", "naïve caf", "価格は", "👍🏽", "shop: ", "a\n\n", "end.\n\n\n", "def f():\n\t",
         "a\u3000", "x\u2003", "ab\u001f", "hi<|endoftext|>", "hi<|endoftext|> x"]


@pytest.mark.parametrize("text", CASES)
def test_equals_tiktoken(cl100k, text):
    tok, enc = cl100k
    kwargs = {"allowed_special": "all"} if "<|" in text else {}
    assert same(tok.encode_with_unstable(text, **kwargs), enc.encode_with_unstable(text, **kwargs))


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base"])
@pytest.mark.parametrize("text", ["Hello wor", '<a href="http:', "a\n\n", "価格は", "x\u2003"])
def test_equals_tiktoken_for_gpt2_and_gpt4o(name, text):
    tok, enc = OpenAITokenizer(name), get_encoding(name)
    assert same(tok.encode_with_unstable(text), enc.encode_with_unstable(text))


@settings(max_examples=25, deadline=None)
@given(st.text(st.sampled_from("ab.:/é中\n "), max_size=10))
def test_equals_tiktoken_on_random_text(cl100k, text):
    tok, enc = cl100k
    assert same(tok.encode_with_unstable(text), enc.encode_with_unstable(text))


def test_a_disallowed_special_token_raises_as_in_encode():
    tok = OpenAITokenizer("cl100k_base")
    with pytest.raises(ValueError, match="endoftext"):        # tiktoken raises ValueError too
        tok.encode_with_unstable("a<|endoftext|>")
    enc = get_encoding("cl100k_base")
    assert same(tok.encode_with_unstable("a<|endoftext|>", disallowed_special=()),
                enc.encode_with_unstable("a<|endoftext|>", disallowed_special=()))


def test_every_completion_continues_the_stable_bytes():
    # tiktoken's docstring's two promises: the stable tokens are a prefix of the text, and
    # stable tokens + any completion decode to text that starts with the whole text.
    tok = OpenAITokenizer("cl100k_base")
    text = "The capital of France is Par"
    stable, completions = tok.encode_with_unstable(text)
    assert text.encode().startswith(tok.decode_bytes(stable))
    assert all(tok.decode_bytes(stable + seq).startswith(text.encode()) for seq in completions)


def test_byte_pair_encode_never_looks_the_whole_piece_up():
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"bc": 4, b"abcd": 5}
    assert byte_pair_encode(ranks, b"abcd") == [0, 4, 3]    # "abcd": a token BPE cannot reach
    assert byte_pair_encode(ranks, b"") == []


def test_last_char_and_white_space():
    assert last_char("a\u3000".encode()) == ("\u3000", 3)
    assert last_char(b"a\xe3\x80") == (None, 1)
    assert "\u3000" in WHITE_SPACE and "\x1f" not in WHITE_SPACE and "\u200b" not in WHITE_SPACE
