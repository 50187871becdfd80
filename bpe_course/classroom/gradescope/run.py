"""What `run_autograder` runs on Gradescope: grade the submission, write results.json.

`python -m bpe_course.classroom.gradescope.run --root /autograder` reads the
assignment's settings from `source/autograder.json` (written by
`python -m bpe_course gradescope`), then:

1. chooses the sandbox: bubblewrap, or the container itself where the zip says
   so (`--sandbox container`, or `auto` when bubblewrap cannot create its
   namespaces). Where neither may be used it refuses, saying why on its
   standard output (which Gradescope shows instructors) and writing no
   results: Gradescope then reports that the autograder failed, never a grade
   of zero the student did not earn;
2. writes a results.json at once that says the grading did not finish, so that
   a grader stopped by the container's time or memory limit still leaves a
   report, then replaces it (atomically) with the real one;
3. finds the notebooks in `submission/` (read as `grade` reads them: regular
   files within a size cap) and grades those that are this worksheet, or are
   no worksheet at all (a renamed notebook), as this worksheet, with the
   course's grader (`grading.command.grade_notebook`), the best one counting;
   a notebook of another worksheet is named, not graded;
4. writes `results/results.json` (`results`): one test per exercise, the
   notebook's problems (a cell that crashed its kernel, a time limit) in the
   top-level output, and the run's seed in `extra_data`. On its standard
   output it prints the grader's table for the instructor.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from ..grading import bubblewrap, container, report
from ..grading.command import grade_notebook, read_found
from ..grading.scoring import RULE
from ..grading.submissions import MAX_SIZE, count_links, find_notebooks
from ..worksheets import WORKSHEETS
from . import results
from .autograder import CONFIG

MAX_NOTEBOOKS = 3               # notebooks of a submission graded at most (the best counts)


def choose_sandbox(wanted: str) -> tuple[str | None, str]:
    """(the sandbox to grade in, in words), or (None, why not)."""
    if wanted in ("bubblewrap", "auto"):
        ok, how = bubblewrap.available()
        if ok:
            return "bubblewrap", how
        if wanted == "bubblewrap":
            kind = container.detect()
            return None, (f"refusing to grade without a sandbox: {how}"
                          + (f". This is a container ({kind}): to make the container "
                             f"itself the sandbox, build the zip with --sandbox container "
                             f"(or auto)" if kind else ""))
        print(f"bubblewrap cannot sandbox here ({how}); the zip says --sandbox auto, so the "
              f"container is the sandbox")
    ok, how = container.available()
    if not ok:
        return None, f"refusing to grade: {how}"
    for what in container.exposed():
        print(f"warning: a notebook could read {what} (setup.sh locks it)")
    return "container", how


def submitted(root: Path, worksheet: str, options) -> tuple[list, list[str], dict]:
    """(the notebooks to grade as `worksheet`, lines naming those left out, their links)."""
    found = find_notebooks([str(root / "submission")]) if (root / "submission").is_dir() else []
    links = count_links(found)
    chosen, left = [], []
    for f in found:
        name = read_found(f, options, links)[2]
        relative = f.path.relative_to(root / "submission")
        if name not in (worksheet, None):
            left.append(f"{relative} is worksheet {name}, not {worksheet}: not graded")
        elif len(chosen) == MAX_NOTEBOOKS:
            left.append(f"{relative}: not graded (at most {MAX_NOTEBOOKS} notebooks are)")
        else:
            chosen.append(f)
    return chosen, left, links


def summary(graded: dict, root: Path, left: list[str], how: str, seed: int,
            others: list[dict]) -> str:
    """The text about the whole submission, shown to the student."""
    lines = []
    if graded.get("path"):
        lines.append(f"Graded {Path(graded['path']).relative_to(root / 'submission')} as "
                     f"worksheet {graded['worksheet']}: {graded['score']:g} of "
                     f"{graded['max_score']:g} points.")
    if graded.get("error"):
        lines.append(f"Problem: {graded['error']}")
    speed = graded.get("speed")
    if isinstance(speed, dict) and speed.get("message"):
        lines.append(f"Speed check: {speed['message']}")
    for other in others:
        lines.append(f"Also graded, not counted: "
                     f"{Path(other['path']).relative_to(root / 'submission')} "
                     f"({other['score']:g} points)")
    lines += left
    lines.append(f"Hidden cases were drawn for this run (seed {seed}); sandbox: {how}.")
    lines.append(f"Scoring: {RULE}")
    return "\n".join(report.printable(line) for line in lines)


def write(target: Path, data: dict) -> None:
    report.write_atomic(target, report.json_text(data, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_course.classroom.gradescope.run")
    parser.add_argument("--root", default=os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    args = parser.parse_args(argv)
    start = time.monotonic()
    root = Path(args.root)
    config = json.loads((root / "source" / CONFIG).read_text(encoding="utf-8"))
    worksheet = config["worksheet"]
    if worksheet not in WORKSHEETS:
        print(f"error: this course has no worksheet {worksheet!r}")
        return 2
    mode, how = choose_sandbox(config.get("sandbox", "bubblewrap"))
    print(f"worksheet {worksheet}, sandbox: {how}", flush=True)
    if mode is None:
        print(f"error: {how}", flush=True)
        return 2
    (root / "results").mkdir(parents=True, exist_ok=True)
    if mode == "container":
        # The notebook's users share the container with the results: the folder becomes
        # root's, so that no file in it can be replaced or linked elsewhere by them.
        os.chown(root / "results", 0, 0)
        (root / "results").chmod(0o755)
    target = root / "results" / "results.json"
    seed = secrets.randbelow(2**31)
    hidden = config.get("hidden_details", "after_published")
    extra = {"sandbox": how, "course": config.get("version"), "commit": config.get("commit")}
    write(target, results.results(
        results.not_graded(worksheet, "the grading did not finish (the autograder was "
                                      "stopped before it could say why)"),
        seed, hidden, output="The grading did not finish.", extra=extra))
    options = SimpleNamespace(max_size=MAX_SIZE, seed=seed, sandbox=mode,
                              timeout=config.get("timeout", 300),
                              cell_timeout=config.get("cell_timeout", 60),
                              case_timeout=config.get("case_timeout", 30))
    chosen, left, links = submitted(root, worksheet, options)
    graded = [grade_notebook(f, options, links, worksheet=worksheet) for f in chosen]
    for entry in graded:
        print("\n".join(report.table_rows(entry)), flush=True)
    if graded:
        best = max(graded, key=lambda g: g["score"])
        others = [g for g in graded if g is not best]
    else:
        best, others = results.not_graded(
            worksheet, f"the submission holds no notebook of worksheet {worksheet}: "
                       f"upload your {worksheet}.ipynb"), []
    data = results.results(best, seed, hidden,
                           output=summary(best, root, left, how, seed, others),
                           execution_time=time.monotonic() - start, extra=extra)
    write(target, data)
    print(f"results written to {target}: {data['score']:g} / {best['max_score']:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
