"""Token healing on the course's tokenizer, checked against tiktoken's unstable tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT4Tokenizer, get_encoding
from bpe_course.chat import extensions, heal


@pytest.fixture(scope="module")
def cl100k():
    return GPT4Tokenizer("cl100k_base"), get_encoding("cl100k_base")


def test_extensions_are_the_tokens_that_start_with_the_bytes():
    vocab = {0: b"a", 1: b"ab", 2: b"b", 3: b"abc", 4: b"\xc3", 5: b"\xc3\xa9"}
    assert extensions(vocab, b"ab") == [1, 3]
    assert extensions(vocab, b"\xc3") == [4, 5]          # bytes, not characters
    assert extensions(vocab, b"zz") == []
    assert extensions(vocab, b"") == [0, 1, 3, 2, 4, 5]   # everything, in byte order
    with pytest.raises(TypeError, match="must be bytes"):
        extensions(vocab, "ab")


def test_healing_a_url_allows_the_separator_token(cl100k):
    tok, _ = cl100k
    healed = heal(tok, '<a href="http:')
    assert healed.removed == b":" and tok.decode(healed.ids) == '<a href="http'
    assert tok.encode_single_token("://") in healed.allowed
    assert all(tok.vocab[i].startswith(b":") for i in healed.allowed)


def test_backing_up_further_removes_more(cl100k):
    tok, _ = cl100k
    healed = heal(tok, "Hello wor", back=2)
    assert healed.removed == b"Hello wor" and healed.ids == []


@pytest.mark.parametrize("prompt, back, error", [
    (b"bytes", 1, TypeError), ("x", 0, ValueError), ("x", True, ValueError),
    ("", 1, ValueError), ("hi", 5, ValueError)])
def test_bad_arguments_get_a_clear_error(cl100k, prompt, back, error):
    with pytest.raises(error):
        heal(cl100k[0], prompt, back)


# Each prompt with the number of tokens in tiktoken's unstable tail (its last chunk's tokens).
PROMPTS = [('<a href="http:', 1), ("The capital of France is Par", 1), ("shop: ", 1),
           ("x = foo(", 1), ("Hello wor", 1), ("naïve caf", 1), ("3.1415", 1),
           ("if x:\n    return", 1), ("x =  ", 1), ("a\n\n", 1), ("価格は", 3), ("see <|", 1)]


@pytest.mark.parametrize("prompt, tail", PROMPTS)
def test_allowed_tokens_are_tiktokens_one_token_completions(cl100k, prompt, tail):
    # Backed up over tiktoken's unstable tail, healing keeps tiktoken's stable tokens, and its
    # allowed tokens are exactly encode_with_unstable's one-token completions.
    tok, enc = cl100k
    stable, completions = enc.encode_with_unstable(prompt)
    assert len(enc.encode(prompt)) - len(stable) == tail
    healed = heal(tok, prompt, back=tail)
    assert stable == healed.ids
    assert sorted(seq[0] for seq in completions if len(seq) == 1) == sorted(healed.allowed)


def test_special_tokens_are_never_allowed(cl100k):
    tok, _ = cl100k
    healed = heal(tok, "see <|")
    assert healed.removed == b" <|" and healed.allowed
    assert not set(healed.allowed) & set(tok.special_tokens.values())


@settings(max_examples=40, deadline=None)
@given(st.text(st.sampled_from("ab cd.:/\né中"), min_size=1, max_size=12))
def test_every_allowed_token_rebuilds_the_removed_bytes(cl100k, prompt):
    tok, _ = cl100k
    healed = heal(tok, prompt)
    assert tok.decode_bytes(healed.ids) + healed.removed == prompt.encode("utf-8")
    assert healed.allowed and all(tok.vocab[i].startswith(healed.removed)
                                  for i in healed.allowed)
