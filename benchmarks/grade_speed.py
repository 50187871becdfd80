"""How fast the grader grades a class: notebooks per minute with --jobs 1 and --jobs 2.

    python benchmarks/grade_speed.py [--students 4] [--jobs 1 2] [--no-sandbox]

Builds a class folder of N students (even ones hand in the six worked
solutions, odd ones the six blank worksheets: a class is a mix of finished
and unfinished work), then grades it with `python -m bpe_course grade`, once
per `--jobs` value, each run a fresh process with the same seed, and prints
the wall time, notebooks per minute, and the time 1,200 notebooks (200
students x 6 worksheets) would take at that rate. The goal is under an hour
on 2 cores. Every run must give the same total score.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_class(folder: Path, students: int) -> int:
    count = 0
    for k in range(students):
        source = ROOT / ("solutions" if k % 2 == 0 else "exercises")
        student = folder / f"student{k:03d}"
        student.mkdir(parents=True)
        for nb in sorted(source.glob("*.ipynb")):
            shutil.copy(nb, student / nb.name)
            count += 1
    return count


def grade(folder: Path, jobs: int, extra: list[str]) -> tuple[float, dict]:
    report = folder.parent / f"grades-{jobs}.json"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bpe_course", "grade", str(folder), "--json",
                           str(report), "--jobs", str(jobs), "--seed", "1", *extra],
                          capture_output=True, text=True, cwd=folder.parent, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"the grader failed:\n{done.stderr}")
    return took, json.loads(report.read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-sandbox", action="store_true")
    args = parser.parse_args()
    extra = ["--no-sandbox"] if args.no_sandbox else []
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "class"
        notebooks = build_class(folder, args.students)
        print(f"{args.students} students, {notebooks} notebooks "
              f"({'no sandbox' if extra else 'bubblewrap'})")
        print(f"{'jobs':>4} {'seconds':>8} {'notebooks/min':>14} {'1,200 notebooks':>16}  score")
        totals = set()
        for jobs in args.jobs:
            took, data = grade(folder, jobs, extra)
            errors = [n["path"] for n in data["notebooks"] if n["error"]]
            rate = notebooks / took * 60
            totals.add(data["score"])
            print(f"{jobs:>4} {took:>8.1f} {rate:>14.1f} {1200 / rate:>13.1f} min  "
                  f"{data['score']:g} / {data['max_score']:g}"
                  + (f"  errors: {errors}" if errors else ""), flush=True)
        if len(totals) != 1:
            print(f"warning: the runs disagree on the total score: {sorted(totals)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
