"""SentencePiece's `.model` files: read and written again unchanged; a bad or unsupported file
gets a clear ValueError."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_course import SentencePieceBPE, corpora
from bpe_course.sentencepiece.model_proto import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    fields,
    read_model,
    write_model,
)
from bpe_course.sentencepiece.tokenizer import mistral_model_bytes
from bpe_course.sentencepiece.unigram import SentencePieceUnigram

META = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]


def test_reading_and_writing_round_trips_mistral():
    model = read_model(mistral_model_bytes())
    again = read_model(write_model(model.pieces, model.trainer, model.normalizer))
    assert again == model


def test_fields_reads_the_wire_format():
    assert list(fields(b"\x08\x96\x01\x15\x00\x00\x80\x3f")) == [(1, 0, 150), (2, 5, b"\x00\x00\x80?")]


@pytest.mark.parametrize("cut", [1, 2, 100, 1000, 250_000, 493_000])
def test_a_truncated_file_is_a_value_error(cut):
    with pytest.raises(ValueError, match="truncated|not a SentencePiece model"):
        SentencePieceBPE.from_bytes(mistral_model_bytes()[:cut])


def test_garbage_bytes_are_a_value_error():
    rng = random.Random(9)
    for _ in range(50):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        with pytest.raises(ValueError):
            SentencePieceBPE.from_bytes(data)
    with pytest.raises(ValueError, match="no pieces"):
        SentencePieceBPE.from_bytes(b"")
    with pytest.raises(TypeError):
        read_model("not bytes")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_load_or_give_a_value_error(data):
    try:
        SentencePieceBPE.from_bytes(data)
    except ValueError:
        pass


def spm_train(spm, **options) -> bytes:
    """A model that the sentencepiece library trains on the prose, in memory."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpora.prose()[:60_000].splitlines()), model_writer=out,
        vocab_size=400, num_threads=1, minloglevel=2, **options)
    return out.getvalue()


def test_a_unigram_model_is_refused(spm):
    data = spm_train(spm, model_type="unigram", normalization_rule_name="identity")
    with pytest.raises(ValueError, match="unigram model, not BPE"):
        SentencePieceBPE.from_bytes(data)


def test_a_bpe_model_is_refused_by_the_unigram_class(spm):
    data = spm_train(spm, model_type="bpe", normalization_rule_name="identity")
    with pytest.raises(ValueError, match="bpe model, not Unigram"):
        SentencePieceUnigram.from_bytes(data)


def test_a_model_with_a_normalization_rule_loads(spm):
    data = spm_train(spm, model_type="bpe")                    # nmt_nfkc, the library's default
    sp = SentencePieceBPE.from_bytes(data)
    assert sp.normalize("\ufb01  \uff21") == "\u2581fi\u2581A"


@pytest.mark.parametrize("pieces, trainer, message", [
    (META + [("a", 0.0, NORMAL), ("a", -1.0, NORMAL)], {}, "defined twice"),
    (META[1:] + [("a", 0.0, NORMAL)], {}, "0 <unk> pieces"),
    (META + [("<0x00>", 0.0, BYTE)], {}, "byte pieces"),
    (META + [("<0x00>", 0.0, BYTE)], {"byte_fallback": True}, "byte pieces"),
])
def test_inconsistent_models_are_refused(pieces, trainer, message):
    data = write_model(pieces, {"model_type": 2, **trainer}, {"name": "identity"})
    with pytest.raises(ValueError, match=message):
        SentencePieceBPE.from_bytes(data)
