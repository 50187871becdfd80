"""The fixtures every worksheet's test file shares (its scaffolding is in `corpus.py`)."""

import pytest

_NAIVE: dict = {}       # (text, vocab_size) -> the course's naive trainer's time, in seconds


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
    from bpe_course.classroom.checking import checks
    measure = checks.naive_seconds

    def once(text, vocab_size):
        key = (text, vocab_size)
        if key not in _NAIVE:
            _NAIVE[key] = measure(text, vocab_size)
        return _NAIVE[key]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checks, "naive_seconds", once)
        yield
