"""OpenAITokenizer is a drop-in tiktoken.Encoding: method by method, same results and errors.

Each test puts the course's tokenizer beside the real `tiktoken.Encoding`
(built offline by `get_encoding`) and asks both the same thing.
"""

import inspect
import pickle
import unicodedata

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import GPT4Tokenizer, OpenAITokenizer, UnknownTokenError
from bpe_course.corpora import HARD_STRINGS

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]
TEXT = "hello <|endoftext|> there <|fim_prefix|> and <|fim_middle|>, naïve 👍"


@pytest.fixture(scope="module", params=NAMES)
def pair(request, ours_and_tiktoken):
    return ours_and_tiktoken(request.param)


@pytest.fixture(scope="module")
def cl100k(ours_and_tiktoken):
    return ours_and_tiktoken("cl100k_base")


def outcome(call):
    """What a call returns, or the type of exception it raises."""
    try:
        return call()
    except Exception as error:
        return type(error)


METHODS = ["encode", "encode_ordinary", "encode_batch", "encode_ordinary_batch",
           "encode_single_token", "encode_to_numpy", "decode", "decode_bytes",
           "decode_single_token_bytes", "decode_tokens_bytes", "decode_with_offsets",
           "decode_batch", "decode_bytes_batch", "token_byte_values", "is_special_token",
           "_encode_bytes", "_encode_single_piece", "encode_with_unstable"]


@pytest.mark.parametrize("method", METHODS)
def test_signatures_are_tiktokens(method):
    def params(function):
        return [(p.name, p.kind, p.default)
                for p in inspect.signature(function).parameters.values()]
    assert params(getattr(OpenAITokenizer, method)) == params(getattr(tiktoken.Encoding, method))


def test_gpt4tokenizer_is_the_same_class():
    assert GPT4Tokenizer is OpenAITokenizer
    assert GPT4Tokenizer("cl100k_base").name == "cl100k_base"


def test_attributes(pair):
    ours, enc = pair
    assert ours.name == enc.name
    assert ours.n_vocab == enc.n_vocab
    assert ours.max_token_value == enc.max_token_value
    assert ours.eot_token == enc.eot_token
    assert ours.special_tokens_set == enc.special_tokens_set
    assert ours._special_tokens == enc._special_tokens
    assert ours._mergeable_ranks == enc._mergeable_ranks
    assert ours._pat_str == enc._pat_str
    assert repr(ours) == f"<OpenAITokenizer {enc.name!r}>"


def test_is_special_token(pair):
    ours, enc = pair
    for token in [0, 5, enc.eot_token, enc.n_vocab - 1, enc.n_vocab]:
        assert ours.is_special_token(token) == enc.is_special_token(token)


def test_token_byte_values(pair):
    ours, enc = pair
    assert ours.token_byte_values() == enc.token_byte_values()


# -- encode and special tokens ---------------------------------------------------
CALLS = [
    {},
    {"allowed_special": "all"},
    {"disallowed_special": ()},
    {"disallowed_special": "all"},
    {"disallowed_special": {"<|endoftext|>"}},
    {"disallowed_special": {"<|fim_prefix|>"}},
    {"allowed_special": "all", "disallowed_special": ()},
    {"allowed_special": "all", "disallowed_special": "all"},
    {"allowed_special": "all", "disallowed_special": {"<|endoftext|>"}},
    {"allowed_special": {"<|endoftext|>"}},
    {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
    {"allowed_special": {"<|fim_prefix|>"}, "disallowed_special": ()},
    {"allowed_special": {"<|not_a_token|>"}, "disallowed_special": ()},
    {"allowed_special": set(), "disallowed_special": frozenset()},
    {"disallowed_special": ["<|endoftext|>"]},
    {"disallowed_special": 5},
]


@pytest.mark.parametrize("kwargs", CALLS, ids=str)
@pytest.mark.parametrize("text", [TEXT, "plain text", "", "<|endoftext|>", "x<|fim_middle|>y"])
def test_encode_modes_equal_tiktoken(pair, kwargs, text):
    ours, enc = pair
    expected = outcome(lambda: enc.encode(text, **kwargs))
    assert outcome(lambda: ours.encode(text, **kwargs)) == expected
    assert outcome(lambda: ours.encode_batch([text, "hi"], **kwargs)) == \
        outcome(lambda: enc.encode_batch([text, "hi"], **kwargs))


def test_encode_arguments_are_keyword_only(cl100k):
    ours, _ = cl100k
    with pytest.raises(TypeError):
        ours.encode("x", "all")


def test_the_course_modes_still_work(cl100k):
    ours, enc = cl100k
    assert ours.encode(TEXT, allowed_special="none") == enc.encode(TEXT, disallowed_special=())
    with pytest.raises(ValueError, match="endoftext"):
        ours.encode(TEXT, allowed_special="none_raise")


@pytest.mark.parametrize("text", HARD_STRINGS)
def test_batches_on_hard_strings(pair, text):
    ours, enc = pair
    batch = [text, text[::-1], ""]
    assert ours.encode_ordinary_batch(batch) == enc.encode_ordinary_batch(batch)
    ids = enc.encode_batch(batch, allowed_special="all")
    assert ours.encode_batch(batch, allowed_special="all") == ids
    assert ours.decode_batch(ids) == enc.decode_batch(ids)
    assert ours.decode_batch(ids, errors="ignore") == enc.decode_batch(ids, errors="ignore")
    assert ours.decode_bytes_batch(ids) == enc.decode_bytes_batch(ids)
    assert list(ours.encode_to_numpy(text, disallowed_special=())) == \
        list(enc.encode_to_numpy(text, disallowed_special=()))


# -- single tokens and unknown ids ------------------------------------------------
def test_unknown_token_error_is_a_key_error_and_a_value_error():
    assert issubclass(UnknownTokenError, KeyError)
    assert issubclass(UnknownTokenError, ValueError)
    assert str(UnknownTokenError("no such id")) == "no such id"


def test_single_tokens_both_ways(pair):
    ours, enc = pair
    for token in [*range(0, enc.n_vocab, 997), *enc._special_tokens.values()]:
        data = enc.decode_single_token_bytes(token)
        assert ours.decode_single_token_bytes(token) == data
        assert ours.encode_single_token(data) == enc.encode_single_token(data) == token
    assert ours.encode_single_token("<|endoftext|>") == enc.eot_token
    assert ours.encode_single_token(" hello") == enc.encode_single_token(" hello")


def test_unknown_ids_and_tokens_raise_key_error(cl100k):
    ours, enc = cl100k
    for token in [100256, 100261, 100277, 10**9]:       # gaps in cl100k, and past the end
        with pytest.raises(KeyError):
            enc.decode_single_token_bytes(token)
        with pytest.raises(KeyError):
            ours.decode_single_token_bytes(token)
        with pytest.raises(KeyError):
            enc.decode([token])
        with pytest.raises(KeyError):
            ours.decode([token])
        with pytest.raises(ValueError):                 # the course's own error type still works
            ours.decode([token])
    for data in [b"not one token at all", "<|nope|>", b"\xff\xfe"]:
        with pytest.raises(KeyError):
            enc.encode_single_token(data)
        with pytest.raises(KeyError):
            ours.encode_single_token(data)


def test_decode_tokens_bytes(pair):
    ours, enc = pair
    ids = enc.encode(TEXT, allowed_special="all")
    assert ours.decode_tokens_bytes(ids) == enc.decode_tokens_bytes(ids)


# -- offsets ---------------------------------------------------------------------
@pytest.mark.parametrize("text", ["hello world", "hello world<|endoftext|> green cow",
                                  "我非常渴望与人工智能一起工作", "நடிகர் சூர்யா", " Ġ除", ""])
def test_decode_with_offsets_on_examples(pair, text):
    ours, enc = pair
    ids = enc.encode(text, allowed_special="all")
    assert ours.decode_with_offsets(ids) == enc.decode_with_offsets(ids)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_property_decode_with_offsets(ours_and_tiktoken, text):
    for name in NAMES:
        ours, enc = ours_and_tiktoken(name)
        ids = enc.encode(text, allowed_special="all")
        assert outcome(lambda: ours.decode_with_offsets(ids)) == \
            outcome(lambda: enc.decode_with_offsets(ids))


def test_decode_with_offsets_refuses_broken_utf8_like_tiktoken(cl100k):
    ours, enc = cl100k
    ids = enc.encode("👍")[:1]
    with pytest.raises(UnicodeDecodeError):
        enc.decode_with_offsets(ids)
    with pytest.raises(UnicodeDecodeError):
        ours.decode_with_offsets(ids)


# -- bytes that are not UTF-8 ------------------------------------------------------
@pytest.mark.parametrize("data", [b"", b" \xec\x8b\xa4\xed", b"\x80" * 5, b"hello \xff",
                                  b"  \n \xe4\xb8", b"abc\xed\xa0\x80def", b"\xf0\x9f\x91"])
def test_encode_bytes_equals_tiktoken(pair, data):
    ours, enc = pair
    assert ours._encode_bytes(data) == enc._encode_bytes(data)
    assert ours.decode_bytes(ours._encode_bytes(data)) == data


def known_to_python(data: bytes) -> bool:
    """No character of `data` (as far as it is UTF-8) is one that Python's Unicode has not
    assigned (Cn): on those, the `regex` module and tiktoken's Rust engine may disagree,
    each with its own Unicode version (see bpe_course/openai/tokenizer.py)."""
    return all(unicodedata.category(c) != "Cn" for c in data.decode("utf-8", "ignore"))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=40),
                 st.builds(lambda t, b: t.encode() + b, st.text(max_size=20), st.binary(max_size=4)))
       .filter(known_to_python))
def test_property_encode_bytes_equals_tiktoken(ours_and_tiktoken, data):
    for name in NAMES:
        ours, enc = ours_and_tiktoken(name)
        assert ours._encode_bytes(data) == enc._encode_bytes(data)


def test_encode_single_piece(pair):
    ours, enc = pair
    for text in ["helloqqqq", " world", b"\xe4\xb8"]:          # tiktoken panics on ""
        assert ours._encode_single_piece(text) == enc._encode_single_piece(text)


def test_pickles_by_name(cl100k):
    ours, _ = cl100k
    again = pickle.loads(pickle.dumps(ours))
    assert again.name == ours.name and again.encode(TEXT, allowed_special="all") == \
        ours.encode(TEXT, allowed_special="all")
    assert len(pickle.dumps(ours)) < 200          # the name, not 100,000 ranks
