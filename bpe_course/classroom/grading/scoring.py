"""Scoring one exercise: the learner's answers against the reference's, case by case.

The grader runs every case of an exercise on the learner's code (in the sandbox) and on
the course's reference (here, once per run). An exercise then scores its points times
the share of cases passed, the worksheet's visible cases counting for a fifth
(`VISIBLE_SHARE`) and the hidden ones, drawn afresh from the run's seed, for the rest:
hard-coding every case the worksheet shows earns at most that fifth. Within each share a
case counts its `weight` (cases on real text weigh more than small ones).

What came back from the sandbox is untrusted: each answer is decoded within a size budget
and a time limit, and anything malformed is an `Opaque` answer that equals nothing.

A *timed* case (one that compares the learner's speed with the course's naive trainer,
`timed`) is not run in the learner's process and not scored here: anything timed where
the learner's code runs can be fooled by that code. The grader reports it as a separate,
labelled check instead, timed from outside the learner's reach (`speed`).
"""

from __future__ import annotations

import json
import threading
import time

from ..checking.plain import Opaque, Raised, from_plain
from ..checking.verdicts import failure_message, judge, misuse
from ..worksheets import CHECKERS, groups_for

VISIBLE_SHARE = 0.2     # hard-coding every case a worksheet shows earns at most this share


# -- scoring ---------------------------------------------------------------------------------

_EXPECTED: dict = {}
_EXPECTED_LOCK = threading.Lock()


def expected(checker, seed: int, index: int, group) -> list:
    """The reference's answers for one group, computed once per run in the grader."""
    from ..checking.checks import expected_answers
    key = (checker.name, seed, index)
    drawn = index >= len(checker.groups())          # drawn from this run's seed
    with _EXPECTED_LOCK:
        if key not in _EXPECTED:
            _EXPECTED[key] = expected_answers(checker, (seed, index) if drawn else index, group)
        return _EXPECTED[key]


def timed(case) -> bool:
    """Does this case time the learner's code against the course's naive trainer?"""
    return "naive_seconds" in case.code


def graded_cases(group) -> list[int]:
    """The positions, in `group.cases`, of the cases the learner's code is run on and scored
    (groups keep their place, so the reference's answers stay keyed by the same index)."""
    return [k for k, case in enumerate(group.cases) if not timed(case)]


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
    total = sum(len(graded_cases(g)) for g in groups)
    # hidden? -> [weight passed, weight of all cases]; cases on real text weigh more
    passed = {False: [0, 0], True: [0, 0]}
    count, number, first, raised, budget = 0, 0, None, [], [256 * 2**20]
    deadline = time.monotonic() + 60
    for index, group in enumerate(groups):
        got_list = answers[index] if index < len(answers) and isinstance(answers[index], list) else []
        wanted = expected(checker, seed, index, group)
        for k, position in enumerate(graded_cases(group)):
            case, want = group.cases[position], wanted[position]
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
