"""What every worksheet's test file shares: its solution's tests and its corpus of wrong answers.

A worksheet's test file (`test_wsNN.py`) holds only its own wrong answers and the tests
of its own messages. It starts with

    from .corpus import Corpus
    WORKSHEET = "02_bpe_basics"
    wrong = Corpus(WORKSHEET)

adds each wrong answer, written the way a learner writes it, with the decorator

    @wrong("merge", "does not skip past a match")          # what its message must name
    def merge_moving_on_by_one(ns):                         # ns: the solution's names
        def merge(ids, pair, idx): ...
        return merge

and ends with one line that makes the tests, as the file's own (pytest collects them there):

    globals().update(wrong.tests(every_seed=["merge"]))

- the solution passes every case of every checker (hidden ones too), and keeps every
  point on each seed of the grader's hidden cases (`tests(every_seed=...)`: the exercises
  whose hidden cases are drawn afresh, and so worth a few seeds);
- each wrong answer is caught, named and scored by the rule (the `wrong_answer` fixture
  of tests/classroom/conftest.py, which says how);
- the corpus holds at least 20 wrong answers (`size`), covering every exercise (at least
  `per_exercise` each).

A factory takes the solution's names (`ns`), and `cell` as a second argument when it asks
(to define its answer as a notebook cell, so that a message can quote its lines). The
`ns` fixture (tests/classroom/worksheets/conftest.py) reads the file's `WORKSHEET`.
"""

from __future__ import annotations

import pytest

from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS


def made(factory, ns, cell):
    """The wrong answer `factory` makes (from the solution's names, and `cell` if it asks)."""
    return factory(ns, cell) if factory.__code__.co_argcount == 2 else factory(ns)


class Corpus:
    """A worksheet's corpus of wrong answers; calling it gives the decorator that adds one."""

    def __init__(self, worksheet: str, size: int = 20, per_exercise: int = 1) -> None:
        self.worksheet = worksheet
        self.exercises = list(WORKSHEETS[worksheet].points)
        self.size, self.per_exercise = size, per_exercise
        self.answers: list = []

    def __call__(self, checker: str, says, breaks: str = "wrong", *, not_says=(),
                 fixtures=(), then=None, **options):
        """Add a learner's wrong answer: `says` is what its message must name (a phrase or a
        list of them), `not_says` what it must not (the words of a mistake it did not make),
        `breaks` its cap (a key of `worksheets.common.BREAKS`); `fixtures` are set up before
        it is checked, `then(message, result)` checks more, and `options` go to the
        `wrong_answer` fixture (`time_limit`, `seed`, `check_cell`)."""
        if checker not in self.exercises:
            raise ValueError(f"{checker!r} is not an exercise of {self.worksheet}")

        def add(factory):
            self.answers.append(pytest.param(
                checker, factory, says, breaks,
                dict(not_says=not_says, fixtures=fixtures, then=then, options=options),
                id=factory.__name__))
            return factory
        return add

    def tests(self, passing=None, every_seed=()):
        """The tests every worksheet has, by name: its solution passes every case (of the
        exercises in `passing`, all by default) and keeps every point on each seed (of the
        exercises in `every_seed`, if any), its wrong answers are caught, named and scored
        by the rule, and the corpus covers every exercise."""
        corpus = self

        @pytest.mark.parametrize("name", corpus.exercises if passing is None else passing)
        def test_the_solution_passes_every_case(ns, name, passes_every_case):
            passes_every_case(name, ns[CHECKERS[name].target])

        @pytest.mark.parametrize("name", list(every_seed))
        def test_the_solution_keeps_every_point_on_every_seed(ns, name, kept):
            assert set(kept(name, ns[CHECKERS[name].target])) == {1.0}

        @pytest.mark.parametrize("name, factory, says, breaks, more", corpus.answers)
        def test_a_wrong_answer_is_caught_named_and_keeps_what_the_rule_allows(
                ns, cell, wrong_answer, request, name, factory, says, breaks, more):
            for fixture in more["fixtures"]:
                request.getfixturevalue(fixture)
            message, result = wrong_answer(name, made(factory, ns, cell), says, breaks,
                                           not_says=more["not_says"], **more["options"])
            if more["then"] is not None:
                more["then"](message, result)

        def test_the_corpus_covers_every_exercise():
            assert len(corpus.answers) >= corpus.size
            for exercise in corpus.exercises:
                held = sum(p.values[0] == exercise for p in corpus.answers)
                assert held >= corpus.per_exercise, f"{exercise}: {held} wrong answers"

        tests = [test_the_solution_passes_every_case,
                 test_a_wrong_answer_is_caught_named_and_keeps_what_the_rule_allows,
                 test_the_corpus_covers_every_exercise]
        if every_seed:
            tests.insert(1, test_the_solution_keeps_every_point_on_every_seed)
        return {test.__name__: test for test in tests}
