"""train_codepoint_bpe: SentencePiece's BPE training on code points, as `spm_train` does it."""

import io

import pytest

from bpe_course import corpora, train_codepoint_bpe
from bpe_course.sentencepiece.model_proto import NORMAL, read_model


def test_codepoint_trainer_matches_spm_train_on_the_first_pieces(spm):
    text = corpora.prose()[:100_000]
    mine = train_codepoint_bpe(text, vocab_size=800, character_coverage=0.9995)
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.splitlines()), model_writer=out, model_type="bpe",
        vocab_size=800, normalization_rule_name="identity", byte_fallback=True,
        split_digits=True, remove_extra_whitespaces=False, character_coverage=0.9995,
        num_threads=1, minloglevel=2)
    theirs = read_model(out.getvalue())
    ours = [p for p, _, t in mine.pieces if t == NORMAL]
    assert [p for p, _, t in theirs.pieces if t == NORMAL][:200] == ours[:200]
    assert len(mine.pieces) == 800


def test_codepoint_trainer_refuses_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        train_codepoint_bpe("   ", 300)
    with pytest.raises(ValueError, match="smaller than"):
        train_codepoint_bpe("hello world", 260)
    with pytest.raises(ValueError, match="character_coverage"):
        train_codepoint_bpe("hello world", 300, character_coverage=0)
