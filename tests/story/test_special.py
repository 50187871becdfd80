"""Special tokens: the allowed_special modes, overlaps, errors."""

import pytest

from bpe_course import RegexTokenizer, corpora

EOT = "<|endoftext|>"
EOT2 = "<|endoftext|><|endoftext|>"


@pytest.fixture(scope="module")
def tok():
    t = RegexTokenizer()
    t.train(corpora.prose()[:10_000], 300)
    t.register_special_tokens({EOT: 1000, "<|fim|>": 1001})
    return t


def test_all_mode_turns_special_text_into_ids(tok):
    ids = tok.encode(f"hi{EOT}there", allowed_special="all")
    assert 1000 in ids
    assert tok.decode(ids) == f"hi{EOT}there"


def test_none_mode_encodes_special_text_as_ordinary_text(tok):
    ids = tok.encode(f"hi{EOT}", allowed_special="none")
    assert 1000 not in ids
    assert ids == tok.encode_ordinary(f"hi{EOT}")
    assert tok.decode(ids) == f"hi{EOT}"


def test_none_raise_names_the_special_token(tok):
    with pytest.raises(ValueError, match=r"<\|fim\|>"):
        tok.encode("a <|fim|> b")
    with pytest.raises(ValueError, match="endoftext"):
        tok.encode(EOT, allowed_special="none_raise")


def test_a_set_allows_some_and_refuses_the_others(tok):
    ids = tok.encode(f"x{EOT}y", allowed_special={EOT})
    assert ids.count(1000) == 1
    with pytest.raises(ValueError, match=r"<\|fim\|>"):
        tok.encode(f"{EOT}<|fim|>", allowed_special={EOT})


def test_bad_allowed_special_arguments_are_clear_errors(tok):
    with pytest.raises(ValueError, match="allowed_special must be one of"):
        tok.encode("x", allowed_special="everything")
    with pytest.raises(ValueError, match="not registered"):
        tok.encode("x", allowed_special={"<|typo|>"})
    with pytest.raises(TypeError):
        tok.encode("x", allowed_special=5)


def test_text_without_special_tokens_is_unaffected_by_the_mode(tok):
    text = "plain text"
    assert {tuple(tok.encode(text, allowed_special=m)) for m in ("all", "none", "none_raise")} \
        == {tuple(tok.encode_ordinary(text))}


def test_overlapping_special_tokens_resolve_longest_first():
    t = RegexTokenizer()
    t.register_special_tokens({EOT: 300, EOT2: 301})
    assert t.encode(EOT2 + EOT, allowed_special="all") == [301, 300]
    assert t.encode(EOT * 3, allowed_special="all") == [301, 300]


def test_special_ids_decode_for_every_tokenizer(tok):
    assert tok.decode([1000, 1001]) == EOT + "<|fim|>"


def test_special_token_ids_cannot_collide_with_merges(tok):
    t = RegexTokenizer()
    t.train("aaaa bbbb", 260)
    with pytest.raises(ValueError, match="already"):
        t.register_special_tokens({EOT: 256})
    with pytest.raises(ValueError, match="non-empty"):
        t.register_special_tokens({"": 500})


def test_special_tokens_split_ordinary_text_like_tiktoken(tok):
    # The pieces around a special token are encoded on their own.
    text = f"hello {EOT} world"
    ids = tok.encode(text, allowed_special="all")
    k = ids.index(1000)
    assert ids[:k] == tok.encode_ordinary("hello ")
    assert ids[k + 1:] == tok.encode_ordinary(" world")


# -- disallowed_special, with tiktoken's meaning ------------------------------------
def test_disallowed_empty_encodes_special_text_as_ordinary_text(tok):
    text = f"a{EOT}b<|fim|>"
    assert tok.encode(text, disallowed_special=()) == tok.encode_ordinary(text)
    ids = tok.encode(text, allowed_special={"<|fim|>"}, disallowed_special=())
    assert ids[-1] == 1001 and 1000 not in ids


def test_disallowed_set_raises_only_for_its_tokens(tok):
    with pytest.raises(ValueError, match="endoftext"):
        tok.encode(f"a{EOT}<|fim|>", allowed_special="none", disallowed_special={EOT})
    assert 1001 not in tok.encode("a<|fim|>", allowed_special="none", disallowed_special={EOT})
    with pytest.raises(ValueError, match="fim"):     # explicit sets hold even for allowed tokens
        tok.encode("a<|fim|>", allowed_special="all", disallowed_special={"<|fim|>"})


def test_disallowed_all_is_every_token_not_allowed(tok):
    assert 1000 in tok.encode(f"x{EOT}", allowed_special="all", disallowed_special="all")
    with pytest.raises(ValueError, match="fim"):
        tok.encode(f"x{EOT}<|fim|>", allowed_special={EOT}, disallowed_special="all")


def test_bad_disallowed_arguments_are_clear_errors(tok):
    with pytest.raises(ValueError, match="disallowed_special"):
        tok.encode("x", disallowed_special="none")
    with pytest.raises(TypeError, match="disallowed_special"):
        tok.encode("x", disallowed_special=5)
    with pytest.raises(TypeError, match="disallowed_special"):
        tok.encode("x", disallowed_special=[5])
