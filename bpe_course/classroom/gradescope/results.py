"""Gradescope's `results.json`, from the course grader's result for one notebook.

Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/) reads
`/autograder/results/results.json`: a top-level `score`, and `tests`, each with
a `name`, `score`, `max_score`, `status` ("passed" or "failed"), `output` and
`visibility` (`VISIBILITIES`). Here each exercise of the worksheet is one test,
scored as `python -m bpe_course grade` scores it, its output the grader's
message for it: which case failed, what kind of mistake it is, and a hint.

Hidden cases stay hidden while they matter (`hidden_details`). When the first
case an exercise fails is one of the hidden ones, its test shows the verdict
and the hint without the case (its code, the expected and the given answers),
and one more test, with no score, holds the whole message with the visibility
the instructor chose (by default `after_published`: once the grades are
published). Every text is plain (`output_format` "text"): nothing a learner
wrote (a name, an exception's message) is rendered as HTML or Markdown.
"""

from __future__ import annotations

from ..grading import scoring
from ..worksheets import WORKSHEETS

SPEC = "https://gradescope-autograders.readthedocs.io/en/latest/specs/"
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")


def split_hidden(exercise: dict, seed: int) -> tuple[str, str | None]:
    """(what the learner sees at once, the details kept back or None) of one exercise's
    message: when the case it shows is hidden, the case itself is kept back, and its
    verdict ("what went wrong"), hint and points stay."""
    message = exercise["message"]
    failed = scoring.failed_case(exercise["id"], seed, message)
    if failed is None or not failed[1]:
        return message, None
    lines = message.splitlines()
    kept, block = [lines[0], f"case {failed[0]} is one of the hidden cases: its code and "
                             f"answers are shown when the grades are published."], False
    for line in lines[1:]:
        if line.startswith(("what went wrong: ", "hint: ", "points: ")):
            block = True
        elif not line.startswith(" "):
            block = False
        if block:
            kept.append(line)
    return "\n".join(kept), message


def results(graded: dict, seed: int, hidden_details: str = "after_published",
            output: str = "", execution_time: float | None = None,
            extra: dict | None = None) -> dict:
    """The results.json of one graded notebook (`command.grade_notebook`'s result), with
    `output` as the text about the whole submission."""
    if hidden_details not in VISIBILITIES:
        raise ValueError(f"hidden_details must be one of {', '.join(VISIBILITIES)}")
    tests = []
    for number, exercise in enumerate(graded["exercises"], start=1):
        shown, details = split_hidden(exercise, seed)
        if hidden_details == "visible" and details is not None:
            shown, details = details, None
        passed = exercise["score"] >= exercise["max_score"]
        tests.append({"name": exercise["id"], "number": str(number),
                      "score": float(exercise["score"]),
                      "max_score": float(exercise["max_score"]),
                      "status": "passed" if passed else "failed",
                      "output": shown, "output_format": "text", "visibility": "visible"})
        if details is not None:
            tests.append({"name": f"{exercise['id']}: the hidden case it failed",
                          "number": f"{number}.1", "status": "failed", "output": details,
                          "output_format": "text", "visibility": hidden_details})
    data = {"score": float(round(sum(e["score"] for e in graded["exercises"]), 2)),
            "output": output, "output_format": "text", "test_output_format": "text",
            "test_name_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests,
            "extra_data": dict(extra or {}, seed=seed, worksheet=graded.get("worksheet"),
                               sha256=graded.get("sha256"))}
    if execution_time is not None:
        data["execution_time"] = max(0, round(execution_time))
    return data


def not_graded(worksheet: str, why: str) -> dict:
    """A grader's result for a submission that holds no notebook to grade: every exercise
    zero, with `why`."""
    return {"worksheet": worksheet, "sha256": None, "error": why,
            "score": 0, "max_score": sum(WORKSHEETS[worksheet].points.values()),
            "exercises": [{"id": e, "score": 0, "max_score": points,
                           "message": f"not graded: {why}"}
                          for e, points in WORKSHEETS[worksheet].points.items()]}
