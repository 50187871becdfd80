"""The grader's command: `python -m bpe_course grade PATH... [--json REPORT]`, for instructors.

PATH is a worksheet or a folder of them (searched recursively: a folder of
students' folders works; a student is the first folder under PATH). Each
notebook is graded on its own, `--jobs` at a time:

1. It is read, if it is a regular file the folder holds and within the size
   cap, and identified (`submissions`): by its nbgrader cell ids, else by the
   names it defines (a pasted notebook without metadata), else by the number
   in its file name.
2. Its code cells run, check cells left out, in a sandbox (`bubblewrap`; or,
   inside a container where bubblewrap cannot work, the container itself,
   only when told `--sandbox container`: `container`) that sees only its own
   scratch folder and a copy of the installed course without the worksheet's
   answers (`bubblewrap.strip_answers`). Then every case runs on the
   learner's functions and classes, each exercise in a process of its own,
   including hidden cases drawn afresh from the run's seed (recorded in the
   report), and the raw answers come back as data (`run_notebook` outside,
   `inside_sandbox` inside), with the separate speed check where a worksheet
   asks for speed.
3. The grader validates those answers and compares them, in its own process,
   with answers it computes from the course's code (`scoring`). An exercise
   scores its points times the share of cases passed, the worksheet's visible
   cases counting for a fifth and the hidden ones for the rest. The
   worksheet's rules (write it yourself, UTF-8 by hand, nothing hidden) are
   read from the notebook's source (`checking.source_rules`), and a broken
   rule caps the exercise as the cap table says.

The report (`report`) is written atomically after every notebook, with a
CSV beside it; `--resume` skips notebooks already in it with the same
content. After the run, an HTML page (`class_mistakes`, `--html`, beside the
JSON by default) says, per worksheet and exercise, which kinds of mistake the
class made and how many learners made each. Anything that goes wrong with one
notebook becomes its `error`; the command exits 0 whenever it could write the
report. `--jobs` defaults to the cores not already busy (`free_cores`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import os
import secrets
import shutil
import sys
import time
from pathlib import Path

from ... import __version__
from ...training.counting import cores
from ..checking import source_rules
from ..worksheets import CHECKERS, WORKSHEETS, groups_for
from . import bubblewrap, class_mistakes, container, report
from .run_notebook import SANDBOXES, code_cells, run_notebook
from .scoring import RULE, expected, learner_source, score_exercise
from .submissions import (
    MAX_SIZE,
    Found,
    Notebook,
    Refused,
    count_links,
    find_notebooks,
    identify,
    parse_bytes,
    read_submission,
)


def read_found(found: Found, options, links: dict) -> tuple[str | None, Notebook | None,
                                                         str | None, str | None]:
    """(sha256, notebook, worksheet, error) of one submission: anything that goes wrong
    reading, parsing or identifying it is its error (one line), never an exception."""
    try:
        raw = read_submission(found, options.max_size, links)
    except Refused as e:
        return None, None, identify(found.path), str(e)
    digest = hashlib.sha256(raw).hexdigest()
    try:
        nb = parse_bytes(raw)
    except ValueError as e:
        return digest, None, identify(found.path), str(e)
    return digest, nb, identify(found.path, nb), None


def grade_notebook(found: Found, options, links: dict, worksheet: str | None = None) -> dict:
    """Grade one notebook (as `worksheet`, if given, whatever it looks like); whatever goes
    wrong becomes its `error`."""
    result = {"path": str(found.path), "student": found.student, "worksheet": None,
              "sha256": None, "score": 0, "max_score": 0, "error": None, "exercises": []}
    try:
        result["sha256"], nb, name, error = read_found(found, options, links)
        name = worksheet or name
        result["worksheet"] = name
        if name is None:
            result["error"] = error or ("not a course worksheet: it defines none of the "
                                        "worksheets' functions or classes")
            return result
        answers, speed, rules = {}, None, {}
        if nb is not None:
            error = refuse_release(nb)
        if nb is not None and error is None:
            rules = source_rules.breaches(code_cells(nb), WORKSHEETS[name])
            error, answers, speed = run_notebook(
                nb, name, options.seed, options.cell_timeout, options.timeout,
                options.case_timeout, use_sandbox=options.sandbox)
            missing = [e for e in WORKSHEETS[name].points
                       if not isinstance(answers.get(e), dict)]
            if missing and not error:
                error = f"the grading did not finish: no answers for {', '.join(missing)}"
        for exercise, points in WORKSHEETS[name].points.items():
            result["exercises"].append(source_rules.enforce(score_exercise(
                exercise, points, answers.get(exercise), error or "the grading did not finish",
                options.seed, source=learner_source(nb) if nb is not None else None,
                slow=bool(speed and speed["exercise"] == exercise and speed.get("timed")
                          and not speed["passed"])), rules.get(exercise, [])))
        if speed is not None:
            result["speed"] = speed
        result["error"] = error
    except Exception as e:                     # a bug or a surprise: this notebook's error only
        result["error"] = f"the grader failed on this notebook: {type(e).__name__}: {e}"
    result["score"] = round(sum(e["score"] for e in result["exercises"]), 2)
    result["max_score"] = sum(e["max_score"] for e in result["exercises"])
    return result


def refuse_release(nb) -> str | None:
    """Why a worksheet from another release of the course cannot be graded as written (it
    imports a course module this release has under no name), in one line, or None. A
    module a later release only moved is graded as written (`moved_modules`)."""
    missing = source_rules.missing_course_modules(code_cells(nb))
    if not missing:
        return None
    release = release_of(nb) or "an earlier release"
    return (f"written for bpe-course {release}, which had {', '.join(missing)}; this "
            f"release ({__version__}) has not: regrade it with that release installed "
            f"(pip install 'bpe-course=={release}', then python -m bpe_course grade PATH)"
            if release_of(nb) else
            f"written for an earlier release of bpe-course, which had {', '.join(missing)}; "
            f"this release ({__version__}) has not: regrade it with the release it came from "
            f"installed (pip install 'bpe-course==VERSION', then python -m bpe_course grade PATH)")


def release_of(nb) -> str | None:
    """The course release a worksheet came from, as its generator recorded it, or None."""
    recorded = getattr(nb, "metadata", {}).get("bpe_course")
    release = recorded.get("release") if isinstance(recorded, dict) else None
    return release if isinstance(release, str) and len(release) < 40 and all(
        c.isalnum() or c in ".+-_" for c in release) else None


def choose_sandbox(sandbox: str) -> tuple[bool, str]:
    """(True, the sandbox in words) if notebooks can run in `sandbox` here, else (False,
    why the grader refuses). Where bubblewrap cannot create its namespaces inside a
    container, the refusal says so, and what `--sandbox container` would do instead."""
    if sandbox == "none":
        return True, "none (--no-sandbox: notebooks ran unconfined, as trusted code)"
    if sandbox == "container":
        ok, how = container.available()
        return ok, how if ok else f"refusing to grade with --sandbox container: {how}"
    ok, how = bubblewrap.available()
    if ok:
        return True, how
    why = f"refusing to grade untrusted notebooks without a sandbox: {how}"
    kind = container.detect()
    if kind is not None and shutil.which("bwrap"):
        why += (f". This is a container ({kind}), which does not let bubblewrap create "
                f"namespaces: if the container is thrown away after grading (as "
                f"Gradescope's is), --sandbox container makes the container itself the "
                f"sandbox (each notebook then runs as users of its own, with resource "
                f"limits, but sees the container's readable files and network)")
    return False, why


def free_cores(sample: float = 0.3) -> int:
    """The cores not already busy, at least 1: the share of CPU time the machine left idle
    over `sample` seconds (from /proc/stat), else the usable cores minus the load average.
    Two jobs on a machine whose other work keeps a core busy take turns on the one left
    (and take more of the machine from that work)."""
    usable = cores()
    free = _idle_cores(sample)
    if free is None:
        try:
            free = usable - os.getloadavg()[0]
        except OSError:
            free = usable
    return max(1, min(usable, int(free + 0.5)))


def _idle_cores(sample: float) -> float | None:
    """How many cores' worth of time went idle over `sample` seconds, or None."""
    def times():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields[:8])        # idle + iowait, all but guests
    try:
        idle, total = times()
        time.sleep(sample)
        idle2, total2 = times()
        cpus = sum(1 for line in open("/proc/stat") if line[:3] == "cpu" and line[3].isdigit())
    except (OSError, ValueError, IndexError):
        return None
    return (idle2 - idle) / max(1, total2 - total) * cpus


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
    parser.add_argument("--html", default=None, metavar="PAGE",
                        help="where to write the page of what the class got wrong (default: "
                             "beside REPORT, REPORT's name with .html)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="notebooks graded at once (default: the cores left idle, "
                             "measured over a moment at the start)")
    parser.add_argument("--resume", action="store_true",
                        help="keep notebooks already graded in REPORT with the same content")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the hidden cases (default: new each run, or the "
                             "report's with --resume)")
    parser.add_argument("--sandbox", choices=SANDBOXES, default="bubblewrap",
                        help="where notebooks run: bubblewrap (default; the grader refuses "
                             "to start where it cannot), container (the container the "
                             "grader runs in, thrown away after the run, as Gradescope's: "
                             "each notebook runs as users of its own with resource limits; "
                             "needs root), none (trusted notebooks only)")
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_const", const="none",
                        help="the same as --sandbox none: only for trusted notebooks")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per notebook, grading included (default: 300)")
    parser.add_argument("--cell-timeout", type=float, default=60,
                        help="seconds per cell of the notebook (default: 60)")
    parser.add_argument("--case-timeout", type=float, default=30,
                        help="seconds per hidden case (default: 30)")
    parser.add_argument("--max-size", type=float, default=MAX_SIZE / 2**20, metavar="MB",
                        help=f"refuse notebooks larger than this (default: {MAX_SIZE // 2**20} MB)")
    return parser.parse_args(argv)


def prepare(notebooks: list[Found], options, links: dict) -> None:
    """Compute the reference answers of every worksheet in the class, before any thread
    starts: running the references redirects sys.stdout for a moment, which must not
    swallow a line of the table another thread is printing. A notebook that cannot be read
    or identified is skipped here (it gets its error when it is graded)."""
    names = set()
    for found in notebooks:
        try:
            names.add(read_found(found, options, links)[2])
        except Exception:
            continue
    for name in sorted(names - {None}):
        for exercise in WORKSHEETS[name].points:
            checker = CHECKERS[exercise]
            for index, group in enumerate(groups_for(checker, options.seed)):
                expected(checker, options.seed, index, group)


def cli_grade(argv: list[str]) -> int:
    options = parse(argv)
    options.max_size = int(options.max_size * 2**20)
    if options.jobs is None:
        options.jobs = free_cores()
    for stream in (sys.stdout, sys.stderr):           # never fail on a learner's string
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    out, err = sys.stdout, sys.stderr      # the real streams, whatever a thread redirects
    target = Path(options.json)
    page = Path(options.html) if options.html else target.with_suffix(".html")
    try:
        report.check_target(target)
        report.check_target(target.with_suffix(".csv"))
        report.check_target(page)
        if page.resolve() in (target.resolve(), target.with_suffix(".csv").resolve()):
            raise report.UnsafeReport(f"{page} is the report itself: give --html a page "
                                      f"of its own (a name ending .html)")
    except report.UnsafeReport as e:
        print(f"error: {report.printable(e)}", file=err)
        return 2
    ok, how = choose_sandbox(options.sandbox)
    if not ok:
        print(f"error: {how}", file=err)
        return 2
    previous = report.load_previous(target) if options.resume else None
    if options.seed is None:
        options.seed = (previous or {}).get("seed") if previous else None
        if not isinstance(options.seed, int):
            options.seed = secrets.randbelow(2**31)
    done = {(nb.get("path"), nb.get("sha256")): nb for nb in (previous or {}).get("notebooks", [])
            if isinstance(nb, dict)}
    notebooks = find_notebooks(options.paths)
    links = count_links(notebooks)
    results: dict[int, dict] = {}
    todo = []
    for k, found in enumerate(notebooks):
        try:
            digest = hashlib.sha256(read_submission(found, options.max_size, links)).hexdigest()
        except Refused:
            digest = None
        if digest is not None and (str(found.path), digest) in done:
            results[k] = done[(str(found.path), digest)]
        else:
            todo.append(k)
    print(f"grading {len(todo)} notebook(s) ({len(notebooks) - len(todo)} kept from the "
          f"report), {options.jobs} at a time, sandbox: {how}, seed {options.seed}", file=out,
          flush=True)
    worksheets = list(WORKSHEETS)
    failed_write = []

    def save() -> dict:
        """Write the report of what is graded so far; return it (its totals end the table).
        A report that cannot be written is said at once, and the command exits 1."""
        data = report.report([results[k] for k in sorted(results)], options.seed, how)
        with contextlib.suppress(Exception):     # never the report's loss: the page says it
            data["class_mistakes"] = class_mistakes.tally(data)
        try:
            report.save(target, data, worksheets)
        except OSError as e:
            failed_write.append(str(e))
            print(f"error: could not write the report {report.printable(target)}: "
                  f"{report.printable(e)}", file=err, flush=True)
        return data

    data = save()
    prepare([notebooks[k] for k in todo], options, links)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = {pool.submit(grade_notebook, notebooks[k], options, links): k for k in todo}
        for future in concurrent.futures.as_completed(futures):
            k = futures[future]
            try:
                results[k] = future.result()
            except BaseException as e:         # not even grade_notebook's own guard held
                found = notebooks[k]
                results[k] = {"path": str(found.path), "student": found.student,
                              "worksheet": None, "sha256": None, "score": 0, "max_score": 0,
                              "error": f"the grader failed on this notebook: "
                                       f"{type(e).__name__}", "exercises": []}
            data = save()
            print("\n".join(report.table_rows(results[k])), file=out, flush=True)
    print("\n".join(report.student_rows(data)), file=out)
    print(f"{'total':<58} {data['score']:>6g} / {data['max_score']:g}", file=out)
    print(f"scoring: {RULE}", file=out)                 # issue 25: the weighting, shown
    try:
        class_mistakes.write(page, data)
    except Exception as e:                 # the JSON and CSV are written: say so, exit 1
        failed_write.append(str(e))
        print(f"error: could not write the page {report.printable(page)}: "
              f"{report.printable(e)}", file=err, flush=True)
    if failed_write:
        return 1
    print(f"report written to {report.printable(target)}, "
          f"{report.printable(target.with_suffix('.csv'))} and {report.printable(page)}",
          file=out)
    return 0
