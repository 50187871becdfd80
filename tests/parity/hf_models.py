"""Tokenizers built with Hugging Face `tokenizers` for the parity tests of `tokenizer.json`.

`tokenizers` is imported where it is used: the test modules skip when it is missing.
"""

from __future__ import annotations

import json


def byte_fallback_bpe(lines: list[str], special_tokens: list[str]):
    """A Llama-style BPE trained on `lines`: `▁` for spaces, a `<0xNN>` piece for every byte
    (so any text encodes, unknown characters as their UTF-8 bytes), `<unk>` fused."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    trained = Tokenizer(models.BPE())
    trained.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    trained.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=500, special_tokens=special_tokens, show_progress=False))
    data = json.loads(trained.to_str())
    vocab = data["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in data["model"]["merges"]]
    tok = Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", fuse_unk=True,
                               byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"),
                                           normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    return tok
