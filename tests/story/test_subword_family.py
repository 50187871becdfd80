"""The rest of the subword family as a learner meets it: WordPiece's greedy rule, Unigram's
best path, and clear errors for bad input (wrong types, unknown ids, malformed models)."""

from __future__ import annotations

import random

import pytest

from bpe_course import SentencePieceUnigram, WordPiece, load_sentencepiece
from bpe_course.sentencepiece.model_proto import CONTROL, NORMAL, UNKNOWN, USER_DEFINED, write_model

VOCAB = {"[UNK]": 0, "a": 1, "ab": 2, "##bc": 3, "##c": 4, "##b": 5, ",": 6, "中": 7}
PIECES = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("▁", -2.0, NORMAL),
          ("a", -3.0, NORMAL), ("b", -3.0, NORMAL), ("▁a", -4.0, NORMAL), ("ab", -2.5, NORMAL),
          ("xyz", 0.0, USER_DEFINED)]


def unigram(**normalizer) -> SentencePieceUnigram:
    return SentencePieceUnigram.from_bytes(write_model(PIECES, {"model_type": 1}, normalizer))


def test_wordpiece_takes_the_longest_piece_first_even_when_that_fails():
    wp = WordPiece(VOCAB)
    assert wp.tokenize_word("abc") == ["ab", "##c"]
    assert wp.tokenize_word("abd") == ["[UNK]"]           # the whole word, not just "d"
    assert WordPiece({k: v for k, v in VOCAB.items() if k != "##c"}).tokenize_word("abc") == ["[UNK]"]


def test_wordpiece_offsets_point_into_the_original_text():
    wp = WordPiece(VOCAB)
    assert wp.encode_with_offsets("  ÁBC,中") == [(2, (2, 4)), (4, (4, 5)), (6, (5, 6)), (7, (6, 7))]


def test_wordpiece_refuses_bad_input():
    with pytest.raises(ValueError, match="no unknown token"):
        WordPiece({"a": 0})
    with pytest.raises(TypeError):
        WordPiece(["a"])
    with pytest.raises(TypeError):
        WordPiece(VOCAB).encode(b"bytes")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        WordPiece(VOCAB).decode([99])
    with pytest.raises(TypeError):
        WordPiece(VOCAB).decode(["a"])


def test_unigram_picks_the_best_scoring_path():
    sp = unigram()
    assert sp.encode("ab", out_type=str) == ["▁", "ab"]          # -4.5 beats -7 and -8
    assert sp.nbest_encode("ab", 3, out_type=str) == [["▁", "ab"], ["▁a", "b"], ["▁", "a", "b"]]


def test_unigram_keeps_user_defined_pieces_whole_and_merges_unknowns():
    sp = unigram()
    assert sp.encode("xyzab", out_type=str) == ["▁", "xyz", "ab"]
    assert sp.encode("qq a", out_type=str) == ["▁", "qq", "▁a"]    # one <unk> for "qq"
    assert sp.encode("qq a") == [2, 0, 5]


def test_sampling_with_a_seeded_rng_is_reproducible():
    sp = unigram()
    draws = [sp.encode("abab", enable_sampling=True, alpha=0.5, rng=random.Random(3))
             for _ in range(2)]
    assert draws[0] == draws[1]


def test_unigram_refuses_bad_input():
    sp = unigram()
    with pytest.raises(TypeError):
        sp.encode(42)
    with pytest.raises(ValueError, match="out_type"):
        sp.encode("a", out_type=bytes)
    with pytest.raises(TypeError, match="nbest_size"):
        sp.nbest_encode("a", "3")
    with pytest.raises(ValueError, match="512"):
        sp.encode("a", enable_sampling=True, nbest_size=600)
    with pytest.raises(ValueError, match="out of range"):
        sp.decode([len(PIECES)])
    with pytest.raises(TypeError):
        SentencePieceUnigram("not a model")


def test_load_sentencepiece_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(ValueError, match="'word' model"):
        load_sentencepiece(write_model(PIECES, {"model_type": 3}))
    with pytest.raises(ValueError, match="no pieces"):
        load_sentencepiece(b"")
    with pytest.raises(TypeError):
        load_sentencepiece(3.5)
    path = tmp_path / "m.model"
    path.write_bytes(write_model(PIECES, {"model_type": 1}))
    assert isinstance(load_sentencepiece(path), SentencePieceUnigram)
    assert isinstance(load_sentencepiece(str(path)), SentencePieceUnigram)
