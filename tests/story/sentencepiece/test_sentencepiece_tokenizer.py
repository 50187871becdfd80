"""SentencePieceBPE without the library: Mistral's model, decoding bytes, bad input.

That it equals the sentencepiece library, id for id, is in `tests/parity/test_sentencepiece_parity.py`.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course.sentencepiece.tokenizer import utf8_surfaces


def test_mistral_is_the_published_model(mistral):
    assert mistral.vocab_size() == 32000
    assert mistral.model.trainer["byte_fallback"] and mistral.model.trainer["split_digits"]
    assert [mistral.id_to_piece(i) for i in (0, 1, 2, 3)] == ["<unk>", "<s>", "</s>", "<0x00>"]
    assert mistral.encode("Hello") == mistral.encode(" Hello")[1:]     # the dummy prefix at work


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=80))
def test_piece_bytes_spell_the_text_with_its_dummy_prefix(mistral, text):
    # Mistral's model keeps whitespace as it is and falls back to bytes, so the bytes of
    # the ids, joined, are the text with the leading space SentencePiece adds.
    ids = mistral.encode(text)
    assert b"".join(mistral.piece_bytes(i) for i in ids) == b" " + text.encode("utf-8")


def test_piece_bytes_of_reserved_pieces(mistral):
    assert mistral.piece_bytes(mistral.piece_to_id("<s>")) == b""
    assert mistral.piece_bytes(mistral.piece_to_id("<0xE4>")) == b"\xe4"
    assert mistral.piece_bytes(mistral.unk_id) == " \u2047 ".encode("utf-8")
    assert mistral.piece_bytes(mistral.piece_to_id("▁the")) == b" the"


def test_utf8_surfaces_replaces_each_bad_byte_like_the_library():
    assert utf8_surfaces("é€😀".encode()) == "é€😀"
    assert utf8_surfaces(b"\xf0\x9f\x98") == "\ufffd" * 3
    assert utf8_surfaces(b"\xc0\x80\xed\xa0\x80") == "\ufffd" * 5     # overlong, surrogate


def test_decode_rejects_ids_outside_the_vocabulary(mistral):
    with pytest.raises(ValueError, match="out of range"):
        mistral.decode([32000])
    with pytest.raises(ValueError, match="out of range"):
        mistral.decode([-1])


def test_encode_rejects_bytes_and_lone_surrogates(mistral):
    with pytest.raises(TypeError):
        mistral.encode(b"hello")
    with pytest.raises(ValueError, match="surrogate"):
        mistral.encode("a\ud800b")
    with pytest.raises(ValueError, match="out_type"):
        mistral.encode("a", out_type=bytes)
