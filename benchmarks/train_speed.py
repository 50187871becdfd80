"""Training speed of train_bpe beside the naive loop and Rust trainers, measured in one run.

    python benchmarks/train_speed.py [--rounds 3] [--cases small,prose,code] [--other FOLDER]

Every measurement runs in a fresh Python process, so none inherits another's
memory or caches; rounds are interleaved (A, B, C, A, B, C, ...) so that a
noisy neighbour slows every trainer alike, and the best round is shown with the
peak memory of that process (and of its largest worker process, if any).
"÷ ours" is a trainer's time divided by train_bpe's: above 1, train_bpe is faster;
"ours ÷" is the other way round, train_bpe's time divided by that trainer's.
Only training is timed: not starting Python, not importing, not preparing the
corpus. train_bpe reads the corpus file itself; the peers get the documents
their users would give them, from an iterator: the corpus cut at line breaks
into a few dozen pieces, or the documents between special tokens.

Peers, when installed (`pip install tokenizers rustbpe bpeasy`), are set up for
the same byte-level BPE with GPT-4's split pattern and the same vocabulary
size; the "shared" column says how much of each one's vocabulary train_bpe
also learned (ties are broken differently, so not all of it).

Cases, all from text every Python ships (see `bpe_course.corpora`):
- small: 133 kB of prose, help topics separated by <|endoftext|>, vocab 500
  (the size of CS336's corpus.en test), also trained by the naive loop;
- prose: the whole 0.47 MB prose corpus, vocab 4,096;
- code: 8 MB of standard-library Python, vocab 10,000;
- big (only when asked for, `--cases big`): 200 MB, the prose and code corpora
  over and over (with a number glued to every "the", so that pieces differ)
  and <|endoftext|> between them, vocab 10,000; train_bpe only, to show that
  memory stays bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

EOT = "<|endoftext|>"

CHILD = r"""
import json, sys, time
def cpu_seconds():     # this process and its finished children (train_bpe's workers)
    try:
        import resource
    except ImportError:
        return float("nan")
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
spec = json.loads(sys.argv[1])
path, vocab_size, specials = spec["path"], spec["vocab_size"], spec["specials"]
from bpe_course import GPT4_SPLIT_PATTERN as PATTERN
name = spec["trainer"]
if name != "train_bpe":      # train_bpe reads the file itself
    text = open(path, encoding="utf-8").read()
    if specials:
        docs = text.split(specials[0])
    else:          # a few dozen documents, cut at line breaks
        step = max(len(text) // 40, 1)
        docs, start = [], 0
        while start < len(text):
            end = text.find("\n", start + step)
            end = len(text) if end < 0 else end + 1
            docs.append(text[start:end])
            start = end
if name == "train_bpe":
    from pathlib import Path
    from bpe_course import train_bpe
    c0, t0 = cpu_seconds(), time.perf_counter()
    vocab, _ = train_bpe(Path(path), vocab_size, specials)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tokens = list(vocab.values())
elif name == "naive":
    # RegexTokenizer.train's loop (recount all pairs for every merge), with the
    # special tokens cut out first.
    from bpe_course.classroom.checking.references import naive_train_bpe
    c0, t0 = cpu_seconds(), time.perf_counter()
    vocab, _ = naive_train_bpe(text, vocab_size, specials)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tokens = list(vocab.values())
elif name == "tokenizers":
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    # Oniguruma reads "{1,3}+" as "repeat {1,3}"; without the "+" it means the same here.
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PATTERN.replace("{1,3}+", "{1,3}")), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    c0, t0 = cpu_seconds(), time.perf_counter()
    tok.train_from_iterator(iter(docs), trainer)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    # Undo the byte-to-printable-character map of GPT-2's vocabulary files.
    from bpe_course.openai.byte_map import str_to_token
    vocab = sorted(tok.get_vocab().items(), key=lambda item: item[1])
    tokens = [t.encode("utf-8") if t in specials else str_to_token(t) for t, _ in vocab]
elif name == "rustbpe":
    import rustbpe
    tok = rustbpe.Tokenizer()
    c0, t0 = cpu_seconds(), time.perf_counter()
    tok.train_from_iterator(iter(docs), vocab_size - len(specials), pattern=PATTERN)
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tokens = [bytes(t) for t, _ in tok.get_mergeable_ranks()]
elif name == "bpeasy":
    import bpeasy
    c0, t0 = cpu_seconds(), time.perf_counter()
    ranks = bpeasy.train_bpe(iter(docs), PATTERN, 128, vocab_size - len(specials))
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tokens = list(ranks)
# Peak memory. Subtle: on Linux, ru_maxrss of a process started by fork+exec
# starts from the RSS of the process that launched it, so read VmHWM (reset by
# exec) there. Workers are forked by train_bpe: their ru_maxrss is their own.
memory = None
try:
    import resource
    scale = 1 if sys.platform == "darwin" else 1024      # bytes on macOS, kB on Linux
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale
    try:
        status = open("/proc/self/status").read()
        me = int(status.split("VmHWM:")[1].split()[0]) * 1024
    except (OSError, IndexError):
        pass
    memory = [me / 1e6, kids / 1e6]
except ImportError:
    pass
print(json.dumps({"seconds": seconds, "cpu": cpu, "memory": memory, "vocab": len(tokens),
                  "tokens": [bytes(t).hex() for t in tokens]}))
"""

CASES = {   # name: (vocab size, special tokens, trainers that take part besides the peers)
    "small": (500, [EOT], ["naive"]),
    "prose": (4096, [], []),
    "code": (10_000, [], []),
    "big": (10_000, [EOT], None),       # train_bpe only: memory on a 200 MB file
}
PEERS = ["tokenizers", "rustbpe", "bpeasy"]


def write_corpora(folder: Path, cases: list[str]) -> dict[str, Path]:
    from bpe_course import corpora
    from pydoc_data.topics import topics
    paths = {}
    for case in cases:
        if case == "small":
            parts, size = [], 0
            for key in sorted(topics):
                if size > 133_000:
                    break
                parts.append(topics[key])
                size += len(topics[key].encode("utf-8")) + len(EOT)
            text = EOT.join(parts)
        elif case == "big":
            paths[case] = folder / "big.txt"
            with open(paths[case], "w", encoding="utf-8") as f:
                size, k = 0, 0
                while size < 200_000_000:
                    part = (corpora.python_code() if k % 2 else corpora.prose())
                    part = part.replace("the", f"the{k % 97}") + EOT
                    f.write(part)
                    size, k = size + len(part.encode("utf-8")), k + 1
            continue
        else:
            text = corpora.prose() if case == "prose" else corpora.python_code()
        paths[case] = folder / f"{case}.txt"
        paths[case].write_text(text, encoding="utf-8")
    return paths


def available(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


def run(trainer: str, path: Path, vocab_size: int, specials: list[str],
        other: str | None = None) -> dict:
    """Train in a fresh process. Trainer "other" is train_bpe from the folder `other`."""
    spec = json.dumps({"trainer": "train_bpe" if trainer == "other" else trainer,
                       "path": str(path), "vocab_size": vocab_size, "specials": specials})
    # Subtle: `python -c` imports from its working folder first, so "other" runs in `other`.
    env = {**os.environ, "PYTHONPATH": other} if trainer == "other" else None
    out = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True,
                         env=env, cwd=other if trainer == "other" else None)
    if out.returncode != 0:
        sys.exit(f"{trainer} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", default="small,prose,code")
    parser.add_argument("--other", metavar="FOLDER",
                        help="also time train_bpe from the bpe_course in FOLDER (another "
                             "checkout, say main's), interleaved with the rest, as 'other'")
    args = parser.parse_args()
    cases = args.cases.split(",")
    peers = [p for p in PEERS if available(p)]
    missing = [p for p in PEERS if p not in peers]
    with tempfile.TemporaryDirectory() as folder:
        paths = write_corpora(Path(folder), cases)
        for case in cases:
            vocab_size, specials, extra = CASES[case]
            trainers = ["train_bpe"] + (["other"] if args.other else []) + (
                peers if extra is not None else [])
            extra = extra or []
            best: dict[str, dict] = {}
            times: dict[str, list[float]] = {}
            load = [load_average()]
            cpus: dict[str, list[float]] = {}
            for r in range(args.rounds):
                for trainer in trainers + (extra if r == 0 else []):   # the naive loop: once
                    result = run(trainer, paths[case], vocab_size, specials, args.other)
                    times.setdefault(trainer, []).append(result["seconds"])
                    if trainer not in best or result["seconds"] < best[trainer]["seconds"]:
                        best[trainer] = result
                    cpus.setdefault(trainer, []).append(result["cpu"])
            load.append(load_average())
            report(case, paths[case], vocab_size, specials, best, times, cpus, args.rounds,
                   load)
    if missing:
        print(f"\nnot installed, so not measured: {', '.join(missing)}")


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):       # Windows
        return float("nan")


def report(case, path, vocab_size, specials, best, times, cpus, rounds, load) -> None:
    size = path.stat().st_size
    ours = best["train_bpe"]
    our_tokens = set(ours["tokens"])
    print(f"\n{case}: {size / 1e6:.2f} MB, vocab {vocab_size:,}"
          + (f", special token {specials[0]}" if specials else "")
          + f"; best and median of {rounds} (the naive loop: 1); load average "
          + " / ".join(f"{x:.1f}" for x in load) + " (at the start / at the end)")
    print(f"{'trainer':<12}{'best s':>8}{'median s':>10}{'CPU s':>8}{'÷ ours':>9}{'ours ÷':>9}"
          f"{'peak MB':>9}{'worker MB':>11}{'vocab':>8}{'shared':>8}")
    for name, r in best.items():
        mem = r["memory"] or [float("nan"), float("nan")]
        worker = f"{mem[1]:>11.0f}" if mem[1] > 0 else f"{'-':>11}"
        ratio = r["seconds"] / ours["seconds"]
        shared = len(our_tokens & set(r["tokens"])) / max(len(r["tokens"]), 1)
        print(f"{name:<12}{r['seconds']:>8.3f}{statistics.median(times[name]):>10.3f}"
              f"{min(cpus[name]):>8.3f}{ratio:>8.2f}x{1 / ratio:>8.2f}x{mem[0]:>9.0f}{worker}"
              f"{r['vocab']:>8}{shared:>8.0%}")
    print("(CPU s: the least CPU time of a round, workers included)")
    for ours_name in [n for n in ("train_bpe", "other") if n in best]:    # other: --other
        for name in best:
            if name in PEERS:
                print(f"{ours_name} takes {best[ours_name]['seconds'] / best[name]['seconds']:.2f}x "
                      f"the time of {name} (best rounds; medians: "
                      f"{statistics.median(times[ours_name]) / statistics.median(times[name]):.2f}x;"
                      f" least CPU: {min(cpus[ours_name]) / min(cpus[name]):.2f}x)")
    if "other" in best:
        same = best["other"]["tokens"] == ours["tokens"]
        print(f"train_bpe learned the same merges as other: {'yes' if same else 'NO'}")
    if "naive" in best:
        same = best["naive"]["tokens"] == ours["tokens"]
        print(f"train_bpe learned the same merges as the naive loop: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
