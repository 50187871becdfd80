"""Where the time goes: train_bpe and a cold encoding, phase by phase, in one process.

    python benchmarks/where_time_goes.py [--rounds 5] [--train code|stdlib|lab] [--lab FILE]
                                         [--parts training,encoding]

CPU seconds of this process (`time.process_time`, so that other jobs on a
shared machine disturb the figures less than they would wall-clock time), the
best of `--rounds`. Training: the 8 MB code corpus at vocab 10,000, counted
in this process (the trainer proper spreads counting over worker processes
when cores are idle); `--train stdlib` or `--train lab` times it on the
corpora of `train_speed.py` the course did not tune on (the lab shard with its
<|endoftext|> left out), with how many words the merge loop visits.
Encoding: a fresh `OpenAITokenizer("cl100k_base")` on the prose, the first
2 MB of the code and the shuffled prose (as in `encode_speed.py`), beside the
`regex` split alone.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from operator import add
from pathlib import Path

from bpe_course import GPT4_SPLIT_PATTERN, OpenAITokenizer, corpora
from bpe_course.pretokenize import count_pretokens, split_pretokens
from bpe_course.training import trainer

clock = time.process_time


def best_of(rounds: int, fn) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        for phase, seconds in fn().items():
            best[phase] = min(best.get(phase, float("inf")), seconds)
    return best


def training_phases(text: str, specials=()) -> dict[str, float]:
    t = {}
    t0 = clock()
    counts = count_pretokens(text, GPT4_SPLIT_PATTERN, specials)
    t["count pre-tokens (one process)"] = clock() - t0
    t0 = clock()
    words, freqs = trainer.byte_words(counts)
    t["pre-tokens to byte strings"] = clock() - t0
    t0 = clock()
    where = defaultdict(list)       # learn_merges' first step, done here to time it apart
    for i, w in enumerate(words):
        for pair in map(add, w, w[1:]):
            where[pair].append(i)
    t["index and count the pairs"] = clock() - t0
    # The merge loop alone: learn_merges, less the indexing just timed.
    merge_pair, spent, visits = trainer.merge_pair, [0.0], [0]

    def timed_merge_pair(*args):
        visits[0] += len(args[5][args[0]])          # where[pair]: the words it will visit
        t1 = clock()
        out = merge_pair(*args)
        spent[0] += clock() - t1
        return out
    trainer.merge_pair = timed_merge_pair
    try:
        t0 = clock()
        trainer.learn_merges(words, freqs, 10_000 - 256)
        total = clock() - t0
    finally:
        trainer.merge_pair = merge_pair
    t["merge loop: merge_pair (rewrite words, update counts)"] = spent[0]
    t["merge loop: the rest (heap, new pairs' counts)"] = (
        total - spent[0] - t["index and count the pairs"])
    t[f"(distinct pre-tokens: {len(words):,}; words visited by merge_pair: {visits[0]:,})"] = 0.0
    return t


def shuffled_prose() -> str:
    lines = [line.split(" ") for line in corpora.prose().split("\n")]
    words = [w for line in lines for w in line]
    random.Random(0).shuffle(words)
    out, k = [], 0
    for line in lines:
        out.append(" ".join(words[k:k + len(line)]))
        k += len(line)
    return "\n".join(out)


def encoding_phases(tok: OpenAITokenizer, text: str) -> dict[str, float]:
    t = {}
    t0 = clock()
    tok.compiled_pattern.findall(text)
    t["the regex split alone (the peer)"] = clock() - t0
    t0 = clock()
    chunks = split_pretokens(text, tok.compiled_pattern)
    t["split_pretokens"] = clock() - t0
    tok = OpenAITokenizer(tok.name)                 # a fresh, empty cache
    t0 = clock()
    tok.encode_ordinary(text)
    t["cold encode_ordinary, all of it"] = clock() - t0
    distinct = {chunk.encode("utf-8") for chunk in chunks}
    ranks = tok.mergeable_ranks
    several = [data for data in distinct if data not in ranks]
    t0 = clock()
    for data in several:
        tok.encode_chunk(data)
    t[f"BPE of the {len(several):,} distinct chunks that are not one token"] = clock() - t0
    t0 = clock()
    tok.encode_ordinary(text)
    t["warm encode_ordinary (every chunk cached)"] = clock() - t0
    return t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--train", choices=["code", "stdlib", "lab"], default="code",
                        help="the training corpus (see train_speed.py)")
    parser.add_argument("--lab", metavar="FILE", help="the lab shard (see train_speed.py)")
    parser.add_argument("--parts", default="training,encoding")
    args = parser.parse_args()
    if "training" in args.parts:
        training_part(args)
    if "encoding" in args.parts:
        encoding_part(args)


def training_part(args) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import train_speed
    specials: list[str] = []
    if args.train == "code":
        text = corpora.python_code()
    elif args.train == "stdlib":
        text = train_speed.stdlib_code()
    else:
        shard = train_speed.lab_shard(args.lab)
        if shard is None or not shard.is_file():
            print("lab: skipped, no shard (build it with `python -m bpe_course corpus build`)")
            return
        text, specials = shard.read_text(encoding="utf-8"), [train_speed.EOT]
    print(f"training: {args.train} corpus, {len(text.encode()) / 1e6:.1f} MB, vocab 10,000, "
          f"CPU seconds, best of {args.rounds}")
    for phase, seconds in best_of(args.rounds, lambda: training_phases(text, specials)).items():
        print(f"  {phase:<58}{seconds:>7.3f}" if seconds else f"  {phase}")


def encoding_part(args) -> None:
    tok = OpenAITokenizer("cl100k_base")
    texts = {"prose": corpora.prose(), "code (2 MB)": corpora.python_code(2_000_000),
             "shuffled prose": shuffled_prose()}
    for name, text in texts.items():
        print(f"\ncold encoding, cl100k_base, {name}: CPU seconds, best of {args.rounds}")
        phases = best_of(args.rounds, lambda: encoding_phases(tok, text))
        for phase, seconds in phases.items():
            print(f"  {phase:<58}{seconds:>7.4f}")
        ratio = phases["cold encode_ordinary, all of it"] / phases["the regex split alone (the peer)"]
        print(f"  cold encoding takes {ratio:.2f}x the time of the regex split")


if __name__ == "__main__":
    main()
