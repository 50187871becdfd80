"""`train_unigram` beside `spm_train --model_type=unigram`: vocabulary overlap and tokens per byte.

    python benchmarks/unigram_vs_spm.py [--vocab 1000 4000] [--chars N]

Both learn from the first 90% of the lines of the course's prose corpus (`identity`
normalization, SentencePiece's other defaults, one thread), and encode the last 10% (held
out). "overlap" is the share of `spm_train`'s normal pieces that `train_unigram` also
learned; "tokens/byte" counts the pieces of the held-out lines, as the `sentencepiece`
library encodes them with each model, per UTF-8 byte (lower is better). The course's
model is also checked to encode the held-out lines exactly as the library does with it.
"""

from __future__ import annotations

import argparse
import io
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--chars", type=int, default=None, help="train on this many characters")
    args = parser.parse_args()

    import sentencepiece as spm

    from bpe_course import SentencePieceUnigram, corpora, train_unigram
    from bpe_course.sentencepiece.model_proto import NORMAL, read_model
    from bpe_course.sentencepiece.unigram_trainer import save_unigram_model

    lines = corpora.prose().splitlines()
    cut = int(len(lines) * 0.9)
    train = "\n".join(lines[:cut])[:args.chars]
    held_out = [line for line in lines[cut:] if line.strip()]
    size = sum(len(line.encode()) for line in held_out)
    print(f"training text: {len(train):,} characters; held out: {len(held_out):,} lines, "
          f"{size:,} bytes")
    print(f"{'vocab':>6} {'ours s':>7} {'spm s':>6} {'overlap':>8} {'ours tok/B':>11} "
          f"{'spm tok/B':>10} {'ratio':>6} {'same ids':>9}")
    for vocab in args.vocab:
        start = time.perf_counter()
        ours = save_unigram_model(train_unigram(train, vocab))
        ours_time = time.perf_counter() - start
        out = io.BytesIO()
        start = time.perf_counter()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train.splitlines()), model_writer=out,
            model_type="unigram", vocab_size=vocab, normalization_rule_name="identity",
            num_threads=1, minloglevel=2)
        spm_time = time.perf_counter() - start
        theirs = out.getvalue()
        a = {p for p, _, t in read_model(ours).pieces if t == NORMAL}
        b = {p for p, _, t in read_model(theirs).pieces if t == NORMAL}
        lib_ours = spm.SentencePieceProcessor(model_proto=ours)
        lib_theirs = spm.SentencePieceProcessor(model_proto=theirs)
        per_byte = [sum(len(sp.encode(line)) for line in held_out) / size
                    for sp in (lib_ours, lib_theirs)]
        mine = SentencePieceUnigram.from_bytes(ours)
        same = all(mine.encode(line) == lib_ours.encode(line) for line in held_out)
        print(f"{vocab:>6} {ours_time:>7.1f} {spm_time:>6.1f} {len(a & b) / len(b):>8.1%} "
              f"{per_byte[0]:>11.4f} {per_byte[1]:>10.4f} {per_byte[0] / per_byte[1]:>6.3f} "
              f"{str(same):>9}")


if __name__ == "__main__":
    main()
