"""Scoring one exercise: the learner's answers against the reference's, case by case.

The grader runs every case of an exercise on the learner's code (in the sandbox) and on
the course's reference (here, once per run). An exercise then scores its points times
the share of cases passed, the worksheet's visible cases counting for a fifth
(`VISIBLE_SHARE`) and the hidden ones, drawn afresh from the run's seed, for the rest:
hard-coding every case the worksheet shows earns at most that fifth. Within each share a
case counts its `weight` (cases on real text weigh more than small ones).

Points then follow what the mistake breaks (`RULE`): each case says what its failure
breaks (`Case.breaks`, see `worksheets.common.BREAKS`), and an answer keeps at most the
lowest cap among the cases it fails: under a third when it gives wrong results on
ordinary input, decodes wrongly, loses or shares state, or never stops; more when it
only breaks a rule the worksheet states; the share of cases alone when it fails only
rare edge cases. The exercise's message says which cap applied.

What came back from the sandbox is untrusted: each answer is decoded within a size budget
and a time limit, and anything malformed is an `Opaque` answer that equals nothing.

A *timed* case (one that compares the learner's speed with the course's naive trainer,
`timed`) is not run in the learner's process: anything timed where the learner's code
runs can be fooled by that code. The grader times it from outside the learner's reach
(`speed`), reports it as a separate check, and an exercise that fails it is slow: it
keeps at most the cap of "slow" in `BREAKS`, however right its answers.
"""

from __future__ import annotations

import json
import re
import threading
import time

from ..checking.plain import Opaque, Raised, from_plain
from ..checking.verdicts import failure_message, judge, misuse
from ..worksheets import CHECKERS, groups_for
from ..worksheets.common import BREAKS
from .class_mistakes import Mistakes, misuse_kind, outcome

VISIBLE_SHARE = 0.2     # hard-coding every case a worksheet shows earns at most this share


def _rule() -> str:
    """The scoring rule in words, from `BREAKS` (shown in the report and the README)."""
    by_cap: dict[float, list[str]] = {}
    for most, words in BREAKS.values():
        if most < 1:
            by_cap.setdefault(most, []).append(words)
    parts = []
    for k, (most, words) in enumerate(sorted(by_cap.items())):
        listed = ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]
        parts.append(f"{'an answer that' if k == 0 else 'one that'} {listed} keeps at most "
                     f"{most:.0%}")
    return ("points = the exercise's points x the share of its cases passed (visible cases "
            "1/5, hidden 4/5, each by its weight), capped by what the failed cases break: "
            + "; ".join(parts) + "; one that fails only edge cases keeps its share.")


RULE = _rule()


def broken(case, got) -> str:
    """What a failed case breaks: its own `breaks`, or "hangs" when it ran out of time."""
    if isinstance(got, Raised) and got.type_name == "TimeoutError":
        return "hangs"
    return case.breaks


def cap(breaks: set[str]) -> tuple[float, str]:
    """The most an answer keeps when it fails cases that break `breaks`, and why (every
    kind at that cap, in the order of `BREAKS`).

    >>> cap({"edge", "state", "wrong"})
    (0.3, 'gives wrong results on ordinary input and loses or shares state')
    """
    most = min((BREAKS[b][0] for b in breaks), default=1.0)
    words = [w for b, (c, w) in BREAKS.items() if b in breaks and c == most]
    return most, " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def learner_source(nb) -> list[str]:
    """The code cells of a notebook, for the messages to quote the learner's lines."""
    try:
        return [cell.source for cell in nb.cells if cell.cell_type == "code"]
    except Exception:                  # a notebook the grader could not read: no quotes
        return []


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


def score_exercise(exercise: str, points: int, entry, why_missing: str, seed: int,
                   source: list[str] | None = None, slow: bool = False) -> dict:
    """Compare the probe's answers for one exercise with the reference's; `source` (the
    notebook's code cells) lets the message quote the learner's line; `slow` says that the
    exercise failed its speed check (timed apart, see `speed`). The result's `mistakes` are
    the kinds of mistake its failed cases show (`class_mistakes.Mistakes`)."""
    checker = CHECKERS[exercise]
    result = {"id": exercise, "score": 0, "max_score": points}
    if not isinstance(entry, dict):
        return dict(result, message=f"not graded: {why_missing}",
                    mistakes=outcome("not_graded", why_missing))
    describe = entry if entry.get("missing") else entry.get("describe")
    problem = misuse(checker, describe if isinstance(describe, dict) else {})
    if problem:
        return dict(result, message=f"❌ {exercise}: {problem}", mistakes=outcome(
            misuse_kind(describe if isinstance(describe, dict) else {}, checker.kind), problem))
    groups = groups_for(checker, seed)
    answers = entry.get("answers") if isinstance(entry.get("answers"), list) else []
    total = sum(len(graded_cases(g)) for g in groups)
    # hidden? -> [weight passed, weight of all cases]; cases on real text weigh more
    passed = {False: [0, 0], True: [0, 0]}
    count, number, first, raised, budget = 0, 0, None, [], [256 * 2**20]
    breaks: set[str] = set()
    seen = Mistakes(checker)
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
            breaks.add(broken(case, got))
            seen.add(group, case, want, got, broken(case, got))
            if first is None:
                first = failure_message(checker, group, case, number, total, problem, got,
                                        source=source, expected=want)
    if count == total and not slow:
        return dict(result, score=points, message=f"✅ {exercise}: passed all {total} cases.",
                    mistakes=[])
    if count == total:
        most, why = cap({"slow"})
        score = round(points * most, 2)
        return dict(result, score=score,
                    message=f"❌ {exercise}: passed all {total} cases, but it is not fast "
                            f"enough: it failed its speed check (below)\npoints: {score:g} of {points:g}, at most "
                            f"{most:.0%} since the answer {why}", mistakes=seen.found(slow))
    if count == 0 and all(raised):
        return dict(result, message=f"⏳ {exercise}: not attempted yet.",
                    mistakes=outcome("not_attempted"))
    share = sum(weight * p / n for (p, n), weight in ((passed[False], VISIBLE_SHARE),
                                                      (passed[True], 1 - VISIBLE_SHARE)) if n)
    share /= sum(w for (p, n), w in ((passed[False], VISIBLE_SHARE),
                                      (passed[True], 1 - VISIBLE_SHARE)) if n)
    most, why = cap(breaks | ({"slow"} if slow else set()))
    score = round(points * share * most, 2)
    headline, _, details = first.partition("\n")          # "❌ merge: case 3 of 15 failed."
    headline = headline.split(": ", 1)[1].replace(f" of {total}", "")
    kept = (f"points: {score:g} of {points:g} = {share:.0%} of the cases' weight passed"
            + (f", at most {most:.0%} since the answer {why}" if most < 1 else
               ", since it fails only edge cases"))
    return dict(result, score=score,
                message=f"❌ {exercise}: {count} of {total} cases passed; {headline}\n{details}"
                        f"\n{kept}", mistakes=seen.found(slow))


def failed_case(exercise: str, seed: int, message: str) -> tuple[int, bool] | None:
    """(number, hidden?) of the case an exercise's message (`score_exercise`'s, on hidden
    cases drawn from `seed`) shows as failed, or None when it shows no case (all passed,
    not attempted, a misuse, not graded).

    >>> failed_case("merge", 1, "❌ merge: 11 of 12 cases passed; case 3 failed.")
    (3, False)
    >>> failed_case("merge", 1, "✅ merge: passed all 70 cases.") is None
    True
    """
    match = re.match(r"❌ \S+: \d+ of \d+ cases passed; case (\d+) ", message)
    if match is None:
        return None
    number, seen = int(match.group(1)), 0
    for group in groups_for(CHECKERS[exercise], seed):
        seen += len(graded_cases(group))
        if number <= seen:
            return number, group.hidden
    return None
