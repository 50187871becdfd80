"""The grader: `python -m bpe_course grade PATH... [--json REPORT]`, for instructors.

PATH is a worksheet or a folder of them (searched recursively, so a folder
of students' folders works). Each notebook is graded on its own:

1. It is copied alone into a fresh folder and run, top to bottom, in a fresh
   kernel, with a time limit per cell and per notebook. Its check cells are
   skipped, and whatever it prints is ignored.
2. Then one more cell runs in that kernel: `runner.probe`, whose
   source the grader reads from its own installed copy. It looks up the
   learner's functions and classes by name and runs every case on them,
   including hidden cases the worksheet never shows, and writes back the
   raw answers as JSON.
3. The grader compares the answers, in its own process, with answers it
   computes itself from the course's code, and scores each exercise by the
   share of cases passed, times its points (`cases.WORKSHEETS`).

So the score depends only on what the learner's code returns. Redefining or
monkeypatching the checkers inside the notebook changes nothing (the grader
never calls them there), printed verdicts and stored outputs are never read,
an answer object that claims to equal everything arrives as plain data, the
points come from the package and not from the notebook's metadata, the
report is written by the grader after every notebook has finished, and the
notebook runs away from the solutions folder. What no grader of running code
can prevent is code that hands over someone else's correct answer, for
example by calling the course's own function: the plain case (`merge =
bpe_course.merge`, or subclassing the course's class) scores zero with a
message, anything subtler is for the instructor to read. The grader is not
a sandbox: run untrusted submissions in a container.

A worksheet that is not valid JSON, hangs or kills its kernel gets a one-line
`error` in the report and zero for whatever could not run; the others are
graded as usual, and the command exits 0 whenever it could write the report.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import runner
from .cases import CHECKERS, WORKSHEETS
from .runner import Raised, from_plain
from .checks import expected_answers
from .kernel import probe_request, run_notebook
from .verdicts import failure_message, judge, misuse


@dataclass
class ExerciseResult:
    id: str
    score: float
    max_score: float
    message: str


@dataclass
class NotebookResult:
    path: str
    score: float = 0.0
    max_score: float = 0.0
    error: str | None = None
    exercises: list[ExerciseResult] = field(default_factory=list)


# -- reading and identifying a worksheet ------------------------------------------------------

def find_notebooks(paths: list[str]) -> list[Path]:
    """Every .ipynb named or found (recursively) under a folder, in sorted order."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        else:
            found.append(path)
    return found


def read_notebook(path: Path):
    """The notebook at `path`, or raise ValueError with a one-line reason."""
    import nbformat
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError("no such file") from None
    except UnicodeDecodeError:
        raise ValueError("not a notebook: the file is not UTF-8 text") from None
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not a notebook: invalid JSON at line {e.lineno}, column {e.colno} "
                         f"({e.msg})") from None
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as e:          # nbformat raises many kinds for malformed notebooks
        raise ValueError(f"not a notebook nbformat can read: {str(e).splitlines()[0]}") from None


def identify(path: Path, nb=None) -> str | None:
    """Which worksheet a file is: by its number (02_...), else by its check cells."""
    match = re.match(r"(\d\d)", path.name)
    for name in WORKSHEETS:
        if match and name.startswith(match.group(1)):
            return name
    if nb is not None:
        ids = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        for name, exercises in WORKSHEETS.items():
            if set(exercises) <= ids:
                return name
    return None


# -- scoring ---------------------------------------------------------------------------------

def decode(answer):
    try:
        return from_plain(answer)
    except Exception:
        return runner.Opaque("?", "an answer the grader could not read")


def score_exercise(exercise: str, points: int, entry, why_missing: str) -> ExerciseResult:
    """Compare the probe's answers for one exercise with the reference's."""
    checker = CHECKERS[exercise]
    if not isinstance(entry, dict):
        return ExerciseResult(exercise, 0, points, f"not graded: {why_missing}")
    problem = misuse(checker, entry if entry.get("missing") else entry.get("describe", {}))
    if problem:
        return ExerciseResult(exercise, 0, points, f"❌ {exercise}: {problem}")
    groups = checker.groups()
    total = sum(len(g.cases) for g in groups)
    passed, number, first, raised = 0, 0, None, []
    earned, weights = 0, sum(c.weight for g in groups for c in g.cases)   # cases on real text weigh more
    answers = entry.get("answers", [])
    for index, group in enumerate(groups):
        got_list = answers[index] if index < len(answers) and isinstance(answers[index], list) else []
        for k, (case, expected) in enumerate(zip(group.cases, expected_answers(checker, index,
                                                                                group))):
            number += 1
            got = decode(got_list[k]) if k < len(got_list) else Raised(
                "NotRun", f"this case did not run ({why_missing or 'grading stopped'})")
            problem = judge(case, expected, got)
            if problem is None:
                passed += 1
                earned += case.weight
                continue
            raised.append(isinstance(got, Raised) and got.not_attempted)
            if first is None:
                first = failure_message(checker, group, case, number, total, problem, got)
    if passed == total:
        return ExerciseResult(exercise, points, points, f"✅ {exercise}: passed all {total} cases.")
    if passed == 0 and all(raised):
        return ExerciseResult(exercise, 0, points, f"⏳ {exercise}: not attempted yet.")
    score = round(points * earned / weights, 2)
    headline, _, details = first.partition("\n")          # "❌ merge: case 3 of 15 failed."
    headline = headline.split(": ", 1)[1].replace(f" of {total}", "")
    return ExerciseResult(exercise, score, points, f"❌ {exercise}: {passed} of {total} cases "
                                                   f"passed; {headline}\n{details}")


def grade_notebook(path: Path, cell_timeout: float = 60, total_timeout: float = 300,
                   case_timeout: float = 30) -> NotebookResult:
    result = NotebookResult(str(path))
    nb, error = None, None
    try:
        nb = read_notebook(path)
    except ValueError as e:
        error = str(e)
    name = identify(path, nb)
    if name is None:
        result.error = error or ("not a course worksheet: its name should start with a "
                                 "worksheet number, as in 02_bpe_basics.ipynb")
        return result
    answers = {}
    if nb is not None:
        with tempfile.TemporaryDirectory() as workdir:
            import nbformat
            nbformat.write(nb, Path(workdir) / path.name)
            request = probe_request(name, "", case_timeout)
            error, answers = run_notebook(nb, workdir, request, cell_timeout, total_timeout)
    for exercise, points in WORKSHEETS[name].items():
        result.exercises.append(score_exercise(exercise, points, answers.get(exercise),
                                               error or "the grading cell did not finish"))
    result.error = error
    result.score = round(sum(e.score for e in result.exercises), 2)
    result.max_score = sum(e.max_score for e in result.exercises)
    return result


# -- the report --------------------------------------------------------------------------------

def report(results: list[NotebookResult]) -> dict:
    return {"notebooks": [asdict(r) for r in results],
            "score": round(sum(r.score for r in results), 2),
            "max_score": sum(r.max_score for r in results)}


def table_rows(result: NotebookResult) -> list[str]:
    rows = [f"{result.path:<58} {result.score:>6g} / {result.max_score:g}"]
    if result.error:
        rows.append(f"    error: {result.error}")
    for e in result.exercises:
        first = e.message.splitlines()[0]
        if result.error and first.startswith("not graded:"):
            first = "not graded"
        rows.append(f"    {e.id:<24} {e.score:>5g} / {e.max_score:<3g} {first[:100]}")
    return rows


def cli_grade(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course grade",
        description="Grade worksheets: run each in a fresh kernel, score every exercise on "
                    "cases the worksheet shows and hidden ones, print a table, write JSON.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a worksheet or a folder")
    parser.add_argument("--json", default="grades.json", metavar="REPORT",
                        help="where to write the report (default: grades.json)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per notebook, grading included (default: 300)")
    parser.add_argument("--cell-timeout", type=float, default=60,
                        help="seconds per cell of the notebook (default: 60)")
    parser.add_argument("--case-timeout", type=float, default=30,
                        help="seconds per hidden case (default: 30)")
    args = parser.parse_args(argv)
    notebooks = find_notebooks(args.paths)
    print(f"grading {len(notebooks)} notebook(s), each in a fresh kernel "
          f"(at most {args.timeout:g} s each)", flush=True)
    results = []
    for path in notebooks:
        result = grade_notebook(path, args.cell_timeout, args.timeout, args.case_timeout)
        results.append(result)
        print("\n".join(table_rows(result)), flush=True)
    data = report(results)
    print(f"{'total':<58} {data['score']:>6g} / {data['max_score']:g}")
    try:
        Path(args.json).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    except OSError as e:
        print(f"error: could not write the report {args.json}: {e}", file=sys.stderr)
        return 1
    print(f"report written to {args.json}")
    return 0
