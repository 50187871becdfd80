"""The speed requirement as a separate check: what the driver times, and the verdict.

A worksheet may ask for speed as well as right answers (worksheet 07: a `train_bpe`
at least 10 times as fast as the course's naive trainer). Timed in the learner's own
process, such a requirement can be fooled by that process (a replaced clock, an
answer remembered from an earlier call, a patched driver), so the grader does not run
the timed case there (`scoring.timed`): it reports the check apart, as the notebook's
`speed` in the report, and an exercise that was timed and failed it keeps at most half
its points (the "slow" cap of `worksheets.common.BREAKS`).

The sandbox's driver (`inside_sandbox.Driver`), which never runs the learner's code
and which the learner's process can neither read nor signal, draws texts of the
timing case's size from a seed only it knows, times the course's naive trainer on
each, then hands each text to the learner's process only when asked and times the
learner's trainer until its answer comes back. Both sides are timed in CPU time (the
naive trainer's in the driver, the learner's summed over every process of the
sandbox), which a busy machine does not inflate; when the learner's code starts or
ends a process or thread while timed, its wall time counts instead. The grader then
checks each answer against the course's trainer on the same text (`speed_verdict`).
"""

from __future__ import annotations

import random

from ..checking.judgement import normal
from ..worksheets import CHECKERS, WORKSHEETS
from .scoring import decode, timed

SPEED_ROUNDS = 1                    # texts the learner's trainer is timed on (the best counts)
MAX_ANSWER = 64 * 2**20             # bytes of one timed answer the grader decodes at most


def speed_check(name: str):
    """(exercise, case, text length, vocab size) of worksheet `name`'s timed case, or None."""
    sheet = WORKSHEETS[name]
    timings = sheet.naive_timings()
    for exercise in sheet.points:
        for group in CHECKERS[exercise].groups():
            for case in group.cases:
                if timed(case) and timings:
                    return exercise, case, len(timings[0][0]), timings[0][1]
    return None


def speed_job(name: str, levels: list[list[dict]]) -> dict | None:
    """What the driver times in a run that checks worksheet `name`'s timed exercise."""
    check = speed_check(name)
    if check is None:
        return None
    exercise, case, length, vocab_size = check
    for number, level in enumerate(levels):
        if any(e["id"] == exercise for e in level):
            return {"exercise": exercise, "target": CHECKERS[exercise].target,
                    "level": number, "length": length, "vocab_size": vocab_size,
                    "required": case.expected, "rounds": SPEED_ROUNDS}
    return None


def speed_verdict(speed: dict, rounds: list[dict], entry) -> dict:
    """The separate speed check: how many times the course's naive trainer's time the
    learner's trainer took on texts it had never seen, and whether that meets the
    worksheet's requirement. A wrong answer on a timing text does not count."""
    from ...training.trainer import train_bpe
    from ..worksheets.common import random_prose
    exercise, required = speed["exercise"], speed["required"]
    verdict = {"exercise": exercise, "passed": False, "timed": False,
               "times_faster": None, "required": required}
    label = f"{exercise} speed"
    if isinstance(entry, dict) and entry.get("missing"):
        return dict(verdict, message=f"⏳ {label}: there is no `{speed['target']}` to time.")
    if not rounds and _not_attempted(entry):
        return dict(verdict, message=f"⏳ {label}: not attempted yet.")
    best, problem = None, None
    for r in rounds:
        got = decode(r["answer"], [MAX_ANSWER])
        if getattr(got, "type_name", None) == "NotImplementedError":
            return dict(verdict, message=f"⏳ {label}: not attempted yet.")
        if r.get("wall") is None or getattr(got, "type_name", None) == "TookTooLong":
            problem = problem or (f"slower than the naive trainer: stopped after "
                                  f"{float(r['limit']):.2f} s, at least twice its time")
            continue
        if getattr(got, "type_name", None) is not None:
            problem = problem or f"it raised {got.type_name} on the timing text"
            continue
        text = random_prose(random.Random(r["seed"]), speed["length"])[0]
        if normal(got) != normal(train_bpe(text, speed["vocab_size"])):
            problem = problem or "its vocab and merges on the timing text were wrong"
            continue
        took = r["cpu"] if isinstance(r.get("cpu"), (int, float)) else r["wall"]
        ratio = float(r["naive"]) / max(float(took), 1e-6)
        best = ratio if best is None else max(best, ratio)
    if best is None:
        why = problem or "it was never timed (the notebook's process ended first?)"
        return dict(verdict, timed=True, message=f"❌ {label}: {why}.")
    passed = best >= required
    mark = "✅" if passed else "❌"
    return dict(verdict, passed=passed, timed=True, times_faster=round(best, 1),
                message=f"{mark} {label}: {best:.1f}x the naive trainer's speed on texts it "
                        f"had never seen ({required}x asked).")


def _not_attempted(entry) -> bool:
    """Did every case of this exercise raise NotImplementedError?"""
    groups = entry.get("answers") if isinstance(entry, dict) else None
    answers = [a for g in groups if isinstance(g, list) for a in g] if isinstance(
        groups, list) else []
    return bool(answers) and all(getattr(decode(a, [MAX_ANSWER]), "type_name", None)
                                 == "NotImplementedError" for a in answers)
