"""Training speed of train_bpe beside the naive loop and Rust trainers, measured in one run.

    python benchmarks/train_speed.py [--rounds 3] [--cases small,prose,code,stdlib,lab]
                                     [--other FOLDER] [--lab FILE] [--peers rustbpe,...]

Every measurement runs in a fresh Python process, so none inherits another's
memory or caches; rounds are interleaved (A, B, C, A, B, C, ...) so that a
noisy neighbour slows every trainer alike, and the best round is shown with the
peak memory of that process (and of its largest worker process, if any).
Every round is printed as it ends, with its wall-clock and CPU seconds and
the load average when it started: on a shared machine wall time swings 2x,
CPU time much less.
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

Cases. The course's own texts (`bpe_course.corpora`), on which its trainer was tuned:
- small: 133 kB of prose, help topics separated by <|endoftext|>, vocab 500
  (the size of CS336's corpus.en test), also trained by the naive loop;
- prose: the whole 0.47 MB prose corpus, vocab 4,096;
- code: 8 MB of standard-library Python (the first 8 MB in path order), vocab 10,000;
and text it was not tuned on, built here:
- stdlib: the *last* 8 MB, in path order, of the `.py` files of the running
  interpreter's standard library (site-packages left out): code the course's
  code corpus does not hold (mostly `test/`, `unittest`, `xml`, ...), vocab 10,000;
- lab: the first shard of the lab's corpus (`python -m bpe_course corpus build`,
  chapter 17): 64 MB of manual pages and handbooks in 25 languages, documents
  separated by <|endoftext|>, vocab 10,000. Skipped, with a one-line message,
  when the shard is not there (`--lab FILE` names another file);
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
    "stdlib": (10_000, [], []),
    "lab": (10_000, [EOT], []),
    "big": (10_000, [EOT], None),       # train_bpe only: memory on a 200 MB file
}
PEERS = ["tokenizers", "rustbpe", "bpeasy"]


STDLIB_BYTES = 8_000_000


def stdlib_code(max_bytes: int = STDLIB_BYTES) -> str:
    """The last `max_bytes` of the running interpreter's standard library, in path order.

    The course's code corpus is the *first* 8 MB of the same files (CPython 3.11.7's),
    so this is code it was not tuned on. Files that are not UTF-8 are skipped."""
    import sysconfig
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted((f for f in root.rglob("*.py") if "site-packages" not in f.parts),
                   key=lambda f: f.relative_to(root).as_posix())
    parts, size = [], 0
    for f in reversed(files):
        try:
            text = f.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        size += len(text.encode("utf-8"))
        if size > max_bytes:
            break
        parts.append(text)
    return "".join(reversed(parts))


def lab_shard(path: str | None) -> Path | None:
    """The lab corpus's first shard, or None when it has not been built."""
    if path:
        return Path(path)
    from bpe_course.lab.corpus import lab_cache
    shard = lab_cache() / "train-00000.txt"
    return shard if shard.is_file() else None


def write_corpora(folder: Path, cases: list[str]) -> dict[str, Path]:
    from pydoc_data.topics import topics

    from bpe_course import corpora
    paths = {}
    for case in cases:
        if case == "stdlib":
            text = stdlib_code()
        elif case == "small":
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
    parser.add_argument("--cases", default="small,prose,code,stdlib,lab")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help="which peers to run, when installed (comma-separated; '' for none)")
    parser.add_argument("--lab", metavar="FILE",
                        help="the multilingual case's corpus (default: the lab corpus's first "
                             "shard, train-00000.txt in bpe_course.lab.corpus.lab_cache())")
    parser.add_argument("--other", metavar="FOLDER",
                        help="also time train_bpe from the bpe_course in FOLDER (another "
                             "checkout, say main's), interleaved with the rest, as 'other'")
    args = parser.parse_args()
    cases = args.cases.split(",")
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"--cases: no case named {', '.join(unknown)}; choose from {', '.join(CASES)}")
    lab = lab_shard(args.lab) if "lab" in cases else None
    if "lab" in cases and (lab is None or not lab.is_file()):
        print(f"lab: skipped, no shard at {args.lab or 'the lab cache'}; build it with "
              f"`python -m bpe_course corpus build --size 66MB` (downloads Debian packages)")
        cases.remove("lab")
    wanted = [p for p in args.peers.split(",") if p]
    if any(p not in PEERS for p in wanted):
        parser.error(f"--peers: choose from {', '.join(PEERS)}")
    peers = [p for p in wanted if available(p)]
    missing = [p for p in wanted if p not in peers]
    with tempfile.TemporaryDirectory() as folder:
        paths = write_corpora(Path(folder), [c for c in cases if c != "lab"])
        if lab is not None and "lab" in cases:
            paths["lab"] = lab
        for case in cases:
            vocab_size, specials, extra = CASES[case]
            trainers = ["train_bpe"] + (["other"] if args.other else []) + (
                peers if extra is not None else [])
            extra = extra or []
            best: dict[str, dict] = {}
            times: dict[str, list[float]] = {}
            load = [load_average()]
            cpus: dict[str, list[float]] = {}
            loads: dict[str, list[float]] = {}
            print(f"\n{case}: rounds as they end (wall s / CPU s / load average at the start)")
            for r in range(args.rounds):
                for trainer in trainers + (extra if r == 0 else []):   # the naive loop: once
                    before = load_average()
                    result = run(trainer, paths[case], vocab_size, specials, args.other)
                    print(f"  round {r + 1} {trainer:<11} {result['seconds']:8.3f} "
                          f"{result['cpu']:8.3f}  load {before:.1f}", flush=True)
                    loads.setdefault(trainer, []).append(before)
                    times.setdefault(trainer, []).append(result["seconds"])
                    if trainer not in best or result["seconds"] < best[trainer]["seconds"]:
                        best[trainer] = result
                    cpus.setdefault(trainer, []).append(result["cpu"])
            load.append(load_average())
            report(case, paths[case], vocab_size, specials, best, times, cpus, args.rounds,
                   load, loads)
    if missing:
        print(f"\nnot installed, so not measured: {', '.join(missing)}")


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):       # Windows
        return float("nan")


def report(case, path, vocab_size, specials, best, times, cpus, rounds, load, loads) -> None:
    size = path.stat().st_size
    ours = best["train_bpe"]
    our_tokens = set(ours["tokens"])
    print(f"\n{case}: {size / 1e6:.2f} MB, vocab {vocab_size:,}"
          + (f", special token {specials[0]}" if specials else "")
          + f"; best and median of {rounds} (the naive loop: 1); load average "
          + " / ".join(f"{x:.1f}" for x in load) + " (at the start / at the end)")
    print(f"{'trainer':<12}{'best s':>8}{'median s':>10}{'CPU s':>8}{'med CPU':>9}{'÷ ours':>9}"
          f"{'ours ÷':>9}{'peak MB':>9}{'worker MB':>11}{'vocab':>8}{'shared':>8}  loads")
    for name, r in best.items():
        mem = r["memory"] or [float("nan"), float("nan")]
        worker = f"{mem[1]:>11.0f}" if mem[1] > 0 else f"{'-':>11}"
        ratio = r["seconds"] / ours["seconds"]
        shared = len(our_tokens & set(r["tokens"])) / max(len(r["tokens"]), 1)
        print(f"{name:<12}{r['seconds']:>8.3f}{statistics.median(times[name]):>10.3f}"
              f"{min(cpus[name]):>8.3f}{statistics.median(cpus[name]):>9.3f}"
              f"{ratio:>8.2f}x{1 / ratio:>8.2f}x{mem[0]:>9.0f}{worker}"
              f"{r['vocab']:>8}{shared:>8.0%}  " + " ".join(f"{x:.1f}" for x in loads[name]))
    print("(CPU s / med CPU: the least / median CPU time of a round, workers included; "
          "loads: the load average at the start of each round)")
    for ours_name in [n for n in ("train_bpe", "other") if n in best]:    # other: --other
        for name in best:
            if name in PEERS:
                print(f"{ours_name} takes {best[ours_name]['seconds'] / best[name]['seconds']:.2f}x "
                      f"the time of {name} (best rounds; medians: "
                      f"{statistics.median(times[ours_name]) / statistics.median(times[name]):.2f}x;"
                      f" least CPU: {min(cpus[ours_name]) / min(cpus[name]):.2f}x;"
                      f" median CPU: {statistics.median(cpus[ours_name]) / statistics.median(cpus[name]):.2f}x)")
    if "other" in best:
        same = best["other"]["tokens"] == ours["tokens"]
        print(f"train_bpe learned the same merges as other: {'yes' if same else 'NO'}")
    if "naive" in best:
        same = best["naive"]["tokens"] == ours["tokens"]
        print(f"train_bpe learned the same merges as the naive loop: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
