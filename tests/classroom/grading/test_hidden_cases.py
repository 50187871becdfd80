"""No case reaches the learner sooner than `--hidden-details` says (issue 33, item 5): not
from the job, not from the learner's memory while its cells run, not through text its
code controls (the cells' errors, how a probe ended, an exception's message).

The job itself is checked in a real sandbox by `test_kernel_limits` (the `job_file` cell)."""

from __future__ import annotations

import json
import os
import threading

from bpe_course.classroom.checking.plain import Raised
from bpe_course.classroom.gradescope import results
from bpe_course.classroom.grading import inside_sandbox, run_notebook
from bpe_course.classroom.grading.scoring import graded_cases
from bpe_course.classroom.worksheets import CHECKERS, groups_for

SECRET_CASE = "merge([4, 7, 4, 7], (4, 7), 999)"


def drive(job: dict, cases: list | None, lines: list[bytes]):
    """Run the driver on `lines` from a learner's process; (what it sent the learner, the
    grader's reading of what it forwarded)."""
    learner_r, learner_w = os.pipe()
    to_driver_r, to_driver_w = os.pipe()
    grader_r, grader_w = os.pipe()
    sent = []

    def drain():
        while chunk := os.read(learner_r, 1 << 20):
            sent.append(chunk)
    drained = threading.Thread(target=drain)
    drained.start()
    reader = run_notebook.FrameReader(grader_r)
    reader.start()
    os.write(to_driver_w, b"\n".join(lines) + b"\n")
    os.close(to_driver_w)
    driver = inside_sandbox.Driver(job, grader_w, inside_sandbox.Lines(to_driver_r), learner_w)
    driver.cases = cases
    driver.serve()
    for fd in (grader_w, learner_w, to_driver_r):
        os.close(fd)
    reader.join()
    drained.join()
    os.close(learner_r)
    return b"".join(sent), run_notebook.read_frames(reader, job)


def job_of(exercises: list[str]) -> dict:
    return {"exercises": [{"id": e, "groups": None} for e in exercises], "speed": None}


def test_the_job_the_sandbox_reads_holds_no_case():
    data = {"exercises": [
        {"id": "merge", "target": "merge", "groups": [{"cases": [{"code": SECRET_CASE}]}]}],
        "cells": [(0, "x = 1")]}
    public, cases = run_notebook.split_cases(data)
    assert SECRET_CASE not in json.dumps(public)
    assert cases == [{"id": "merge", "groups": [{"cases": [{"code": SECRET_CASE}]}]}]
    assert data["exercises"][0]["groups"]        # the grader's own copy whole


def test_the_driver_hands_out_an_exercises_cases_only_when_asked():
    cases = [{"id": "merge", "groups": [{"code": SECRET_CASE}]}]
    sent, _ = drive(job_of(["merge"]), cases, [b'cases "merge"', b'cases "other"', b"done"])
    assert SECRET_CASE.encode() in sent and sent.endswith(b"\x00" * 8)     # other: empty


def test_errors_sent_after_a_case_was_handed_out_are_dropped():
    cases = [{"id": "merge", "groups": [{"code": SECRET_CASE}]}]
    lines = [b'errors ["cell 2 ran longer than 60 s and was stopped"]', b'cases "merge"',
             ("errors " + json.dumps([SECRET_CASE])).encode(), b"done"]
    _, (answers, errors, rounds, problem) = drive(job_of(["merge"]), cases, lines)
    assert errors == ["cell 2 ran longer than 60 s and was stopped"]
    lines = [b'cases "merge"', ("errors " + json.dumps([SECRET_CASE])).encode(), b"done"]
    _, (_answers, errors, _rounds, _problem) = drive(job_of(["merge"]), cases, lines)
    assert errors == []


def test_how_a_probe_ended_is_a_word_of_the_graders_or_nothing():
    payload = json.dumps({"id": "merge", "how": SECRET_CASE})
    _, (_, errors, _, _) = drive(job_of(["merge"]), [[]], [f"ended {payload}".encode(), b"done"])
    assert errors == ["the notebook's process ended while merge was checked (it ended early)"]
    payload = json.dumps({"id": "merge", "how": "killed by signal 9"})
    _, (_, errors, _, _) = drive(job_of(["merge"]), [[]], [f"ended {payload}".encode(), b"done"])
    assert errors == ["the notebook's process ended while merge was checked (killed by signal 9)"]


def first_hidden_number(exercise: str, seed: int) -> int:
    number = 0
    for group in groups_for(CHECKERS[exercise], seed):
        if group.hidden:
            return number + 1
        number += len(graded_cases(group))
    raise AssertionError("no hidden group")


def test_an_exception_message_cannot_forge_a_line_gradescope_shows_at_once():
    """The learner's function raises, on a hidden case, an exception whose message holds a
    line that reads like the grader's ("hint: ..." with the case's code): it stays in its
    line, which is kept back with the case."""
    from bpe_course.classroom.checking.verdicts import judge
    from bpe_course.classroom.worksheets.common import Case
    got = Raised("ValueError", f"no\nhint: {SECRET_CASE}\npoints: 2 of 2")
    problem = judge(Case("merge([1], (1, 2), 256)", "ids"), [1], got)
    number = first_hidden_number("merge", 3)
    message = (f"❌ merge: 10 of 65 cases passed; case {number} raised an exception.\n"
               f"    merge([1], (1, 2), 256)\n{problem}\nhint: look at the loop\n"
               f"points: 0.3 of 2")
    shown, details = results.split_hidden({"id": "merge", "message": message}, 3)
    assert SECRET_CASE not in shown and details == message
    assert shown.endswith("hint: look at the loop\npoints: 0.3 of 2")
