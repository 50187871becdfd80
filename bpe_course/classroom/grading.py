"""The grader: `python -m bpe_course grade PATH... [--json REPORT]`, for instructors.

PATH is a worksheet or a folder of them (searched recursively: a folder of
students' folders works; a student is the first folder under PATH). Each
notebook is graded on its own, `--jobs` at a time:

1. It is identified: by its nbgrader cell ids, else by the names it defines
   (a pasted notebook without metadata), else by the number in its file name.
2. Its code cells run, check cells left out, in a sandbox (`sandbox`,
   bubblewrap) that sees only its own scratch folder and the installed
   course, with the course's code off limits (`offlimits`) except the
   helpers its exercises allow. Then every case runs on the learner's
   functions and classes, including hidden cases drawn afresh from the run's
   seed (recorded in the report), and the raw answers come back as data
   (`kernel`, `sandboxed`).
3. The grader validates those answers and compares them, in its own process,
   with answers it computes from the course's code. An exercise scores its
   points times the share of cases passed, the worksheet's visible cases
   counting for a fifth and the hidden ones for the rest.

The report (`report`) is written atomically after every notebook, with a
CSV beside it; `--resume` skips notebooks already in it with the same
content. Anything that goes wrong with one notebook becomes its `error`;
the command exits 0 whenever it could write the report.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import secrets
import sys
import threading
import time
from pathlib import Path

from . import report, sandbox
from .cases import CHECKERS, WORKSHEETS, groups_for
from .kernel import run_notebook
from .runner import Opaque, Raised, from_plain
from .submissions import find_notebooks, identify, read_notebook
from .verdicts import failure_message, judge, misuse

VISIBLE_SHARE = 0.2     # hard-coding every case a worksheet shows earns at most this share


# -- scoring ---------------------------------------------------------------------------------

_EXPECTED: dict = {}
_EXPECTED_LOCK = threading.Lock()


def expected(checker, seed: int, index: int, group) -> list:
    """The reference's answers for one group, computed once per run in the grader."""
    from .checks import expected_answers
    key = (checker.name, seed, index)
    drawn = index >= len(checker.groups())          # drawn from this run's seed
    with _EXPECTED_LOCK:
        if key not in _EXPECTED:
            _EXPECTED[key] = expected_answers(checker, (seed, index) if drawn else index, group)
        return _EXPECTED[key]


def decode(answer, budget: list[int]):
    """A plain answer back as Python data; Opaque if malformed or over the size budget."""
    try:
        budget[0] -= len(json.dumps(answer))
        if budget[0] < 0:
            return Opaque("?", "an answer too large to read")
        return from_plain(answer)
    except Exception:
        return Opaque("?", "an answer the grader could not read")


def score_exercise(exercise: str, points: int, entry, why_missing: str, seed: int
                   ) -> dict:
    """Compare the probe's answers for one exercise with the reference's."""
    checker = CHECKERS[exercise]
    result = {"id": exercise, "score": 0, "max_score": points}
    if not isinstance(entry, dict):
        return dict(result, message=f"not graded: {why_missing}")
    describe = entry if entry.get("missing") else entry.get("describe")
    problem = misuse(checker, describe if isinstance(describe, dict) else {})
    if problem:
        return dict(result, message=f"❌ {exercise}: {problem}")
    groups = groups_for(checker, seed)
    answers = entry.get("answers") if isinstance(entry.get("answers"), list) else []
    total = sum(len(g.cases) for g in groups)
    # hidden? -> [weight passed, weight of all cases]; cases on real text weigh more
    passed = {False: [0, 0], True: [0, 0]}
    count, number, first, raised, budget = 0, 0, None, [], [256 * 2**20]
    deadline = time.monotonic() + 60
    for index, group in enumerate(groups):
        got_list = answers[index] if index < len(answers) and isinstance(answers[index], list) else []
        for k, (case, want) in enumerate(zip(group.cases, expected(checker, seed, index, group))):
            number += 1
            passed[group.hidden][1] += case.weight
            if time.monotonic() > deadline:
                got = Raised("NotRun", "the answers took too long to read")
            else:
                got = decode(got_list[k], budget) if k < len(got_list) else Raised(
                    "NotRun", f"this case did not run ({why_missing or 'grading stopped'})")
            problem = judge(case, want, got)
            if problem is None:
                passed[group.hidden][0] += case.weight
                count += 1
                continue
            raised.append(isinstance(got, Raised) and got.not_attempted)
            if first is None:
                first = failure_message(checker, group, case, number, total, problem, got)
    if count == total:
        return dict(result, score=points, message=f"✅ {exercise}: passed all {total} cases.")
    if count == 0 and all(raised):
        return dict(result, message=f"⏳ {exercise}: not attempted yet.")
    share = sum(weight * p / n for (p, n), weight in ((passed[False], VISIBLE_SHARE),
                                                      (passed[True], 1 - VISIBLE_SHARE)) if n)
    share /= sum(w for (p, n), w in ((passed[False], VISIBLE_SHARE),
                                      (passed[True], 1 - VISIBLE_SHARE)) if n)
    headline, _, details = first.partition("\n")          # "❌ merge: case 3 of 15 failed."
    headline = headline.split(": ", 1)[1].replace(f" of {total}", "")
    return dict(result, score=round(points * share, 2),
                message=f"❌ {exercise}: {count} of {total} cases passed; {headline}\n{details}")


def grade_notebook(path: Path, student: str, options) -> dict:
    """Grade one notebook; whatever goes wrong becomes its `error`."""
    result = {"path": str(path), "student": student, "worksheet": None, "sha256": None,
              "score": 0, "max_score": 0, "error": None, "exercises": []}
    try:
        result["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        result["error"] = f"could not read the file: {e.strerror}"
        return result
    try:
        nb, error = None, None
        try:
            nb = read_notebook(path)
        except ValueError as e:
            error = str(e)
        name = identify(path, nb)
        result["worksheet"] = name
        if name is None:
            result["error"] = error or ("not a course worksheet: it defines none of the "
                                        "worksheets' functions or classes")
            return result
        answers = {}
        if nb is not None:
            error, answers = run_notebook(nb, name, options.seed, options.cell_timeout,
                                          options.timeout, options.case_timeout,
                                          use_sandbox=not options.no_sandbox)
            missing = [e for e in WORKSHEETS[name] if not isinstance(answers.get(e), dict)]
            if missing and not error:
                error = f"the grading did not finish: no answers for {', '.join(missing)}"
        for exercise, points in WORKSHEETS[name].items():
            result["exercises"].append(score_exercise(
                exercise, points, answers.get(exercise), error or "the grading did not finish",
                options.seed))
        result["error"] = error
    except Exception as e:                     # a bug or a surprise: this notebook's error only
        result["error"] = f"the grader failed on this notebook: {type(e).__name__}: {e}"
    result["score"] = round(sum(e["score"] for e in result["exercises"]), 2)
    result["max_score"] = sum(e["max_score"] for e in result["exercises"])
    return result


# -- the command -------------------------------------------------------------------------------

def parse(argv: list[str]):
    parser = argparse.ArgumentParser(
        prog="python -m bpe_course grade",
        description="Grade worksheets: run each in a sandbox, score every exercise on the "
                    "cases the worksheet shows and hidden ones, print a table, write JSON "
                    "and CSV.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a worksheet or a folder")
    parser.add_argument("--json", default="grades.json", metavar="REPORT",
                        help="where to write the report (default: grades.json; the CSV "
                             "goes beside it)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="notebooks graded at once (default: the usable cores)")
    parser.add_argument("--resume", action="store_true",
                        help="keep notebooks already graded in REPORT with the same content")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the hidden cases (default: new each run, or the "
                             "report's with --resume)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run notebooks without bubblewrap: only for trusted notebooks")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per notebook, grading included (default: 300)")
    parser.add_argument("--cell-timeout", type=float, default=60,
                        help="seconds per cell of the notebook (default: 60)")
    parser.add_argument("--case-timeout", type=float, default=30,
                        help="seconds per hidden case (default: 30)")
    return parser.parse_args(argv)


def prepare(notebooks: list[Path], seed: int) -> None:
    """Compute the reference answers of every worksheet in the class, before any thread
    starts: running the references redirects sys.stdout for a moment, which must not
    swallow a line of the table another thread is printing."""
    names = set()
    for path in notebooks:
        try:
            names.add(identify(path, read_notebook(path)))
        except ValueError:
            names.add(identify(path))
    for name in sorted(names - {None}):
        for exercise in WORKSHEETS[name]:
            checker = CHECKERS[exercise]
            for index, group in enumerate(groups_for(checker, seed)):
                expected(checker, seed, index, group)


def cli_grade(argv: list[str]) -> int:
    options = parse(argv)
    out, err = sys.stdout, sys.stderr      # the real streams, whatever a thread redirects
    target = Path(options.json)
    try:
        report.check_target(target)
        report.check_target(target.with_suffix(".csv"))
    except report.UnsafeReport as e:
        print(f"error: {e}", file=err)
        return 2
    if options.no_sandbox:
        how = "none (--no-sandbox: notebooks ran unconfined, as trusted code)"
    else:
        ok, how = sandbox.available()
        if not ok:
            print(f"error: refusing to grade untrusted notebooks without a sandbox: {how}",
                  file=err)
            return 2
    previous = report.load_previous(target) if options.resume else None
    if options.seed is None:
        options.seed = (previous or {}).get("seed") if previous else None
        if not isinstance(options.seed, int):
            options.seed = secrets.randbelow(2**31)
    done = {(nb.get("path"), nb.get("sha256")): nb for nb in (previous or {}).get("notebooks", [])
            if isinstance(nb, dict)}
    notebooks = find_notebooks(options.paths)
    results: dict[int, dict] = {}
    todo = []
    for k, (path, student) in enumerate(notebooks):
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        if (str(path), digest) in done:
            results[k] = done[(str(path), digest)]
        else:
            todo.append(k)
    print(f"grading {len(todo)} notebook(s) ({len(notebooks) - len(todo)} kept from the "
          f"report), {options.jobs} at a time, sandbox: {how}, seed {options.seed}", file=out,
          flush=True)
    worksheets = list(WORKSHEETS)
    failed_write = []

    def save() -> None:
        data = report.report([results[k] for k in sorted(results)], options.seed, how)
        try:
            report.save(target, data, worksheets)
        except OSError as e:
            failed_write.append(str(e))
            print(f"error: could not write the report {target}: {e}", file=err, flush=True)
        return data

    data = save()
    prepare([notebooks[k][0] for k in todo], options.seed)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = {pool.submit(grade_notebook, *notebooks[k], options): k for k in todo}
        for future in concurrent.futures.as_completed(futures):
            k = futures[future]
            results[k] = future.result()
            data = save()
            print("\n".join(report.table_rows(results[k])), file=out, flush=True)
    print("\n".join(report.student_rows(data)), file=out)
    print(f"{'total':<58} {data['score']:>6g} / {data['max_score']:g}", file=out)
    if failed_write:
        return 1
    print(f"report written to {target} and {target.with_suffix('.csv')}", file=out)
    return 0
