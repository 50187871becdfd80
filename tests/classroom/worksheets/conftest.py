"""The fixtures every worksheet's test file shares (its scaffolding is in `corpus.py`)."""

import functools

import pytest

from bpe_course.classroom.checking import checks

# the course's naive trainer's time on a text, in seconds: the real measure, kept per text
_naive_seconds_once = functools.cache(checks.naive_seconds)


@pytest.fixture(scope="module")
def ns(solution, request):
    """The names the solution of the test file's worksheet (its `WORKSHEET`) defines."""
    return solution(request.module.WORKSHEET)


@pytest.fixture(scope="module", autouse=True)
def naive_timed_once():
    """The speed case's `naive_seconds` (the course's naive trainer timed on the case's text)
    measured once per text in a test run, not in every check: it is the reference the
    learner's trainer is compared with, the same for every answer, and takes seconds (4 s
    of CPU for worksheet 17's text, measured 2026-11-29). The `graded` fixture keeps its own
    such cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checks, "naive_seconds", _naive_seconds_once)
        yield
