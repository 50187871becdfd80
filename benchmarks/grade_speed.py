"""How fast the grader grades a class: notebooks per minute with --jobs 1 and --jobs 2.

    python benchmarks/grade_speed.py [--students 10] [--jobs 1 2] [--busy N] [--no-sandbox]
                                     [--keep DIR]

Builds a class that looks like a real one: every student hands in every worksheet (eight
notebooks each), and, drawn from a fixed seed, about 70 % are right (the worked solution),
about 25 % are wrong in one exercise (left blank, or an answer wrapped so that it is wrong
on some inputs: a list loses its last item, a method raises), and a few time out (a
forgotten `while True:` in a scratch cell, stopped by `--cell-timeout`, or a function that
never returns on an empty input, stopped by `--case-timeout`, both left at their defaults).
It grades the class with `python -m bpe_course grade`, once per `--jobs` value, each run a
fresh process with the same seed, and prints the wall time, notebooks per minute, the time
1,200 notebooks would take at that rate (the goal: under an hour on 2 cores, at least 20
notebooks a minute) and the load average before and after each run (`/proc/loadavg`'s
first figure: the machine's other work). `--jobs 0` lets the grader choose (the cores not
already busy); `--busy N` keeps N other processes spinning during the runs, to measure a
busy machine. Every run must give the same total score.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402
from nbformat.v4 import new_code_cell  # noqa: E402

from bpe_course.classroom.worksheets import WORKSHEETS  # noqa: E402

HANG_CELL = "while True:           # a test loop left running\n    pass\n"
HANG_FUNCTION = """_{name} = {name}


def {name}(*args, **kwargs):           # never returns on an empty input
    while any(a in ("", [], (), b"") for a in args):
        pass
    return _{name}(*args, **kwargs)
"""
WRONG_FUNCTION = """_{name} = {name}
_calls = [0]


def {name}(*args, **kwargs):           # wrong on every third call
    _calls[0] += 1
    out = _{name}(*args, **kwargs)
    if _calls[0] % 3 == 0:
        if isinstance(out, list) and out:
            return out[:-1]
        raise ValueError("an off-by-one somewhere")
    return out
"""
WRONG_CLASS = """class {name}({name}):                 # its encode loses a token now and then
    _calls = 0

    def encode(self, *args, **kwargs):
        out = super().encode(*args, **kwargs)
        type(self)._calls += 1
        return out[:-1] if type(self)._calls % 3 == 0 and out else out
"""


def grade_ids(nb) -> dict[str, int]:
    return {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}


def answer_cell(nb, checker) -> int:
    """The cell that defines the checker's target (its solution cell)."""
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution") and (
                f"def {checker.target}(" in c.source or f"class {checker.target}" in c.source):
            return i
    raise ValueError(f"no answer cell for {checker.name}")


def notebook(name: str, kind: str, rng: random.Random):
    """Worksheet `name` as a student of this `kind` hands it in."""
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    checkers = WORKSHEETS[name].checkers
    checker = rng.choice(checkers)
    at = answer_cell(nb, checker)
    if kind == "blank":
        blank = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
        nb.cells[at] = blank.cells[answer_cell(blank, checker)]
    elif kind == "wrong":
        has_encode = checker.kind == "class" and "def encode" in nb.cells[at].source
        if checker.kind == "function":
            nb.cells.insert(at + 1, new_code_cell(WRONG_FUNCTION.format(name=checker.target)))
        elif has_encode:
            nb.cells.insert(at + 1, new_code_cell(WRONG_CLASS.format(name=checker.target)))
        else:                                   # a class without encode: left blank
            return notebook(name, "blank", rng)
    elif kind == "hang_cell":
        nb.cells.insert(grade_ids(nb)["imports"] + 1, new_code_cell(HANG_CELL))
    elif kind == "hang_function":
        functions = [c for c in checkers if c.kind == "function"]
        if not functions:
            return notebook(name, "hang_cell", rng)
        checker = rng.choice(functions)
        nb.cells.insert(answer_cell(nb, checker) + 1,
                        new_code_cell(HANG_FUNCTION.format(name=checker.target)))
    return nb


def build_class(folder: Path, students: int, seed: int = 27) -> dict[str, int]:
    """The class folder; how many notebooks of each kind it holds."""
    rng = random.Random(seed)
    kinds = {"right": 0, "blank": 0, "wrong": 0, "hang_cell": 0, "hang_function": 0}
    for k in range(students):
        student = folder / f"student{k:03d}"
        student.mkdir(parents=True)
        for name in WORKSHEETS:
            draw = rng.random()
            kind = ("right" if draw < 0.70 else "blank" if draw < 0.82 else
                    "wrong" if draw < 0.97 else "hang_cell" if draw < 0.985 else "hang_function")
            kinds[kind] += 1
            nbformat.write(notebook(name, kind, rng), student / f"{name}.ipynb")
    return kinds


def load() -> float:
    return os.getloadavg()[0]


def grade(folder: Path, jobs: int, extra: list[str]) -> tuple[float, dict, float, float, str]:
    report = folder.parent / f"grades-{jobs}.json"
    before = load()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bpe_course", "grade", str(folder), "--json",
                           str(report), "--seed", "1", *(["--jobs", str(jobs)] if jobs else []),
                           *extra],
                          capture_output=True, text=True, cwd=folder.parent, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"the grader failed:\n{done.stderr}")
    chose = done.stdout.split(" at a time", 1)[0].rsplit(" ", 1)[-1]
    return took, json.loads(report.read_text(encoding="utf-8")), before, load(), chose


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--busy", type=int, default=0,
                        help="processes kept spinning meanwhile (a busy machine)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the class and the reports in this folder, and keep them")
    args = parser.parse_args()
    extra = ["--no-sandbox"] if args.no_sandbox else []
    with tempfile.TemporaryDirectory() as work:
        base = args.keep or Path(work)
        folder = base / "class"
        kinds = build_class(folder, args.students)
        notebooks = sum(kinds.values())
        print(f"{args.students} students, {notebooks} notebooks "
              f"({', '.join(f'{v} {k}' for k, v in kinds.items())}; "
              f"{'no sandbox' if extra else 'bubblewrap'}), {os.cpu_count()} cores")
        print(f"{'jobs':>4} {'seconds':>8} {'notebooks/min':>14} {'1,200 notebooks':>16}  "
              f"{'load before/after':>17}  score")
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(args.busy)]
        try:
            if spinners:
                time.sleep(60)                  # let the load average see them
            totals = set()
            for jobs in args.jobs:
                took, data, before, after, chose = grade(folder, jobs, extra)
                errors = sum(1 for n in data["notebooks"] if n["error"])
                rate = notebooks / took * 60
                totals.add(data["score"])
                shown = str(jobs) if jobs else f"{chose} (chosen)"
                print(f"{shown:>4} {took:>8.1f} {rate:>14.1f} {1200 / rate:>13.1f} min  "
                      f"{before:>8.2f} / {after:<6.2f}  {data['score']:g} / "
                      f"{data['max_score']:g} ({errors} with an error line)", flush=True)
            if len(totals) != 1:
                print(f"warning: the runs disagree on the total score: {sorted(totals)}")
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
