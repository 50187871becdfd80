"""Encoding speed of the subword family in pure Python beside the libraries, on 1 MB of prose.

    python benchmarks/subword_speed.py [--rounds 3]

The course's prose corpus, repeated to 1,000,000 UTF-8 bytes, encoded line by line (as
models are fed) by: `SentencePieceBPE` and `SentencePieceUnigram` beside `sentencepiece`
(models trained here with `spm_train`'s defaults: `nmt_nfkc`, 4,000 pieces), and
`WordPiece` beside `tokenizers` (BERT's normalizer and pre-tokenizer, a WordPiece
vocabulary of 4,000 trained by `tokenizers`). Training and loading are not timed; the ids
are checked to be equal; the best of the interleaved rounds is shown.
"""

from __future__ import annotations

import argparse
import io
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds

    import sentencepiece as spm
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    from bpe_course import WordPiece, corpora, load_sentencepiece

    prose = corpora.prose()
    data = (prose * (1_000_000 // len(prose.encode("utf-8")) + 1)).encode("utf-8")[:1_000_000]
    lines = data.decode("utf-8", "ignore").splitlines()
    size = sum(len(line.encode("utf-8")) for line in lines) / 1e6

    contenders = {}
    for kind in ("bpe", "unigram"):
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(prose.splitlines()),
                                       model_writer=out, model_type=kind, vocab_size=4000,
                                       num_threads=1, minloglevel=2)
        ref = spm.SentencePieceProcessor(model_proto=out.getvalue())
        contenders[f"sentencepiece {kind}"] = (load_sentencepiece(out.getvalue()).encode,
                                               ref.encode)
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer = normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(prose.splitlines(), trainers.WordPieceTrainer(
        vocab_size=4000, special_tokens=["[UNK]"], show_progress=False))
    contenders["wordpiece"] = (WordPiece(tok.get_vocab()).encode,
                               lambda text: tok.encode(text).ids)

    best: dict[tuple[str, str], float] = {}
    for _ in range(rounds):
        for name, (ours, theirs) in contenders.items():
            results = {}
            for side, encode in (("ours", ours), ("library", theirs)):
                t0 = time.perf_counter()
                results[side] = [encode(line) for line in lines]
                elapsed = time.perf_counter() - t0
                best[name, side] = min(best.get((name, side), elapsed), elapsed)
            same = sum(a == b for a, b in zip(results["ours"], results["library"]))
            if same != len(lines):
                print(f"{name}: {len(lines) - same} of {len(lines)} lines differ")
    print(f"{size:.2f} MB of prose, {len(lines)} lines, best of {rounds} rounds")
    print(f"{'model':24} {'pure Python':>12} {'library':>10} {'ratio':>8}")
    for name in contenders:
        ours, theirs = best[name, "ours"], best[name, "library"]
        print(f"{name:24} {ours:10.2f} s {theirs:8.2f} s {ours / theirs:7.0f}x")


if __name__ == "__main__":
    main()
