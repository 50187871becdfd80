"""`load_sentencepiece`: a `.model` file's tokenizer, BPE or Unigram, as its file says.

A `.model` file names its algorithm in `trainer_spec.model_type`: 1 Unigram (the library's
default: T5, ALBERT, XLNet), 2 BPE (Llama 2, Mistral). Both share the normalizer and the
decoder; only the segmentation differs.

>>> from bpe_course.sentencepiece.model_proto import write_model, UNKNOWN, NORMAL
>>> data = write_model([("<unk>", 0.0, UNKNOWN), ("▁a", -1.0, NORMAL)], {"model_type": 1})
>>> type(load_sentencepiece(data)).__name__
'SentencePieceUnigram'
"""

from __future__ import annotations

from pathlib import Path

from .model_proto import BPE, MODEL_TYPES, UNIGRAM, read_model
from .tokenizer import SentencePieceBPE, SentencePieceTokenizer
from .unigram import SentencePieceUnigram


def load_sentencepiece(path: str | Path | bytes) -> SentencePieceTokenizer:
    """The tokenizer of a `.model` file (a path, or the file's bytes): `SentencePieceBPE` or
    `SentencePieceUnigram`, equal to the `sentencepiece` library."""
    if isinstance(path, (bytes, bytearray)):
        data = bytes(path)
    elif isinstance(path, (str, Path)):
        data = Path(path).read_bytes()
    else:
        raise TypeError(f"load_sentencepiece takes a path or the file's bytes, "
                        f"not {type(path).__name__}")
    model = read_model(data)
    kind = model.trainer["model_type"]
    if kind == BPE:
        return SentencePieceBPE(model)
    if kind == UNIGRAM:
        return SentencePieceUnigram(model)
    raise ValueError(f"this is a {MODEL_TYPES.get(kind, kind)!r} model; the course reads "
                     "'bpe' and 'unigram' models")
