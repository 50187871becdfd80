"""What `import bpe_course` costs, and what each first use adds, beside tiktoken's import.

Every measurement is a fresh Python process (`python -c ...`), the contenders interleaved
(A, B, C, A, B, C, ...) so a busy machine slows them all alike; the figure is the process's
wall and CPU time minus an empty interpreter's (`python -c pass`) in the same round, and the
table gives the median and the best of the rounds. `--other DIR` measures the package of
another checkout beside this one (its `bpe_course` first on `sys.path`).

    python benchmarks/import_time.py                 # 15 rounds
    python benchmarks/import_time.py --rounds 5 --other ../main-before
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEUTRAL = Path(tempfile.mkdtemp(prefix="import-time-"))    # an empty working directory

CASES = {
    "import bpe_course": "import bpe_course",
    "+ OpenAITokenizer (ch. 06)": "from bpe_course import OpenAITokenizer",
    "+ train_bpe (ch. 07)": "from bpe_course import train_bpe",
    "+ load_tokenizer_json (ch. 13)": "from bpe_course import load_tokenizer_json",
    "from bpe_course import *": "from bpe_course import *",
    "import tiktoken (peer)": "import tiktoken",
}


def run(code: str, folder: Path | None) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter running `code` (children's rusage), with
    `folder`'s package first on its path (`python -c` would put the working directory before
    PYTHONPATH, so it runs in a folder of its own)."""
    env = dict(os.environ)
    if folder is not None:
        env["PYTHONPATH"] = str(folder) + os.pathsep + env.get("PYTHONPATH", "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=NEUTRAL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--other", type=Path, help="another checkout to measure beside this one")
    args = parser.parse_args(argv)
    folders = {"this": ROOT}
    if args.other:
        folders["other"] = args.other.resolve()
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        base_wall, base_cpu = run("pass", None)
        for label, folder in folders.items():
            for case, code in CASES.items():
                if case.endswith("(peer)") and label != "this":
                    continue
                wall, cpu = run(code, folder)
                results.setdefault((label, case), []).append((wall - base_wall, cpu - base_cpu))
    print(f"{args.rounds} rounds, load average {os.getloadavg()[0]:.2f}; seconds over an empty "
          f"interpreter, median (best)")
    print(f"{'checkout':8} {'case':34} {'wall':>16} {'CPU':>16}")
    for (label, case), times in results.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"{label:8} {case:34} {statistics.median(walls):8.3f} ({min(walls):.3f}) "
              f"{statistics.median(cpus):8.3f} ({min(cpus):.3f})")


if __name__ == "__main__":
    main()
