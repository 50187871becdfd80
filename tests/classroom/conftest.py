"""Fixtures shared by the classroom's tests: the worksheets' solutions, and how to read a verdict.

- `solution("02_bpe_basics")`: the names a learner defines in that solution
  (its solution and given cells, run once per session)
- `fails_with(verdict, *words)`: the check failed and its message says each word
- `passes_every_case(name, target)`: the checker passes `target` on every case,
  hidden ones included, and says so
- `kept(name, target)`: the share of the exercise's points the grader gives
  `target`, on each of a few seeds of hidden cases
- `unlocked`: the lock on the course's code lifted, for wrong answers built from
  the course's own right one
- `graded(name, target, seed)`: the grader's result for `target` on one seed (its
  score, and its message), scored in this process as the grader scores
- `cell(source, names)`: run `source` as a notebook cell would (its lines known to
  `linecache`, so messages can quote them), with `names` as its globals
- `wrong_answer(name, target, says, breaks)`: a learner's wrong answer is caught (by the
  check cell, or else by the grader's hidden cases), its message names the kind of
  mistake (`says`) and no other (`not_says`), and the points it keeps follow the rule for
  what it breaks (tests/classroom/worksheets/corpus.py builds a worksheet's tests on it)
"""

import functools
import itertools
import json
import linecache
import os
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (1, 2, 3)        # grading runs tried by `kept`: each draws its own hidden cases


@pytest.fixture(scope="session")
def solution():
    """`solution(name)`: the names a learner defines in solutions/NAME.ipynb, from its
    solution cells and the locked cells it gives (check cells left out), run once."""
    @functools.cache
    def names(name: str) -> dict:
        nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
        namespace = {"__name__": f"worksheet_{name[:2]}"}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and (meta.get("solution") or
                                             (meta.get("locked") and not meta.get("grade"))):
                exec(compile(cell.source, f"<{name}>", "exec"), namespace)
        return namespace
    return names


@pytest.fixture(scope="session")
def fails_with():
    """`fails_with(verdict, *words)`: the verdict failed and its message holds every word
    (hints are wrapped over lines, so a word may span a line break); returns the message."""
    def check(verdict, *words):
        assert not verdict.passed, verdict.message
        flat = " ".join(verdict.message.split())
        for word in words:
            assert word in verdict.message or word in flat, f"{word!r} not in:\n{verdict.message}"
        return verdict.message
    return check


@pytest.fixture(scope="session")
def passes_every_case():
    """`passes_every_case(name, target)`: checker `name` passes `target` on every case, the
    grader's fixed hidden ones too, and the verdict says so in one line."""
    from bpe_course import checks
    from bpe_course.classroom.worksheets import CHECKERS

    def check(name, target):
        verdict = checks.check(name, target, hidden=True)
        assert verdict.passed, verdict.message
        assert verdict.cases == sum(len(g.cases) for g in CHECKERS[name].groups())
        assert verdict.message == f"✅ {name}: passed all {verdict.cases} cases."
    return check


_CELLS = itertools.count(1)


@pytest.fixture(scope="session")
def cell():
    """`cell(source, names=None)`: the names `source` defines, run as a notebook cell: its
    lines are in `linecache` under a cell's name, as IPython keeps them, so a message can
    quote the learner's line; `names` are the globals it sees (the solution's, say)."""
    def run(source, names=None):
        filename = f"<learner cell {next(_CELLS)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = dict(names or {})
        exec(compile(source, filename, "exec"), namespace)
        return namespace
    return run


@pytest.fixture
def unlocked(monkeypatch):
    """The rules read from the source (`source_rules`) not applied: for wrong answers built
    by bending the course's right one (a reference, a story function), to show that each
    mistake gets its own message; the rule would stop them before their mistake."""
    from bpe_course.classroom.checking import source_rules
    monkeypatch.setattr(source_rules, "in_kernel", lambda exercise, target: ([], "cell {}"))


@pytest.fixture(scope="session")
def graded():
    """`graded(name, target, seed=1, time_limit=30.0)`: the grader's result for `target` ({"score",
    "max_score", "message"}) on the hidden cases drawn from `seed`.

    Every group the grader would send on that seed (the worksheet's, the fixed hidden ones
    and those drawn from the seed) runs on `target` the way the grader's probe runs it (the
    inputs and answers through JSON, one setup shared by groups), and
    `grading.scoring.score_exercise` scores the answers: visible cases a fifth, hidden ones
    the rest, each side weighted by the cases' weights, capped by what failed cases break
    and by the rules `target`'s source breaks (`source_rules`, as a check cell reads them).
    The speed case's naive time is measured once per session (by `checks.naive_seconds` as
    it is when first asked: the worksheets' tests share theirs with the check cells).
    """
    from bpe_course.classroom.checking import checks, runner, source_rules
    from bpe_course.classroom.checking.checks import shipped
    from bpe_course.classroom.checking.verdicts import source_of
    from bpe_course.classroom.grading import scoring
    from bpe_course.classroom.worksheets import CHECKERS, WORKSHEETS, groups_for

    naive = functools.cache(lambda text, vocab_size: checks.naive_seconds(text, vocab_size))

    def through_json(x):
        return json.loads(json.dumps(runner.to_plain(x)))

    def grade(name, target, seed=1, time_limit=30.0):
        checker = CHECKERS[name]
        points = next(s.points[name] for s in WORKSHEETS.values() if name in s.points)
        entry = {"describe": runner.describe(target, checker.own), "answers": []}
        setups, slow = {}, False
        groups = groups_for(checker, seed)
        timings = [[k for k, case in enumerate(g.cases) if scoring.timed(case)] for g in groups]
        for group, timed in zip(groups, timings):
            plain = dict(shipped(group), env={k: runner.from_plain(through_json(v))
                                              for k, v in group.env.items()})
            answers = [through_json(answer) for answer, _ in runner.run_group(
                checker.target, target, plain, time_limit,
                extra={"naive_seconds": naive}, setups=setups)]
            # The speed case: timed here, in the test's own process (the grader times
            # it from outside the learner's reach); failing it makes the answer slow.
            slow |= any(not isinstance(answers[k], (int, float))
                        or answers[k] < group.cases[k].expected for k in timed)
            entry["answers"].append([a for k, a in enumerate(answers) if k not in timed])
        source, _ = source_of(target)
        result = scoring.score_exercise(name, points, entry, "", seed,
                                        source=[source] if source else None, slow=slow)
        return source_rules.enforce(result, source_rules.in_kernel(name, target)[0])
    return grade


@pytest.fixture(scope="session")
def kept(graded):
    """`kept(name, target)`: the share of the exercise's points the grader gives `target`,
    on each seed of `SEEDS` (see `graded`)."""
    def shares(name, target, seeds=SEEDS):
        return [(lambda r: r["score"] / r["max_score"])(graded(name, target, seed))
                for seed in seeds]
    return shares


@pytest.fixture
def wrong_answer(graded, request):
    """`wrong_answer(name, target, says, breaks, seed=1, time_limit=30.0, check_cell=True,
    not_says=())`:
    checks one of the project's wrong answers (a case may take `time_limit` seconds, unless
    its group sets one; `check_cell=False` reads the check cell's message from the grader's,
    whose first failing case is the same, to spare running a slow answer twice).

    - caught: the check cell fails it, or the grader keeps less than full points;
    - named: the message (the check cell's, else the grader's) holds every phrase of
      `says` (a kind's words from `diagnosis.KINDS`, or a checker's own), and none of
      `not_says` (the words of a mistake it did not make);
    - scored by the rule: the grader's share is at most the cap of `breaks` (a key of
      `worksheets.common.BREAKS`: under a third for wrong results, wrong decoding, lost
      or shared state and no termination), below 1 in any case, and the grader's
      message says which cap applied.

    Returns (check cell's message, grader's result)."""
    from bpe_course import checks
    from bpe_course.classroom.worksheets.common import BREAKS

    def check(name, target, says, breaks, seed=1, time_limit=30.0, check_cell=True,
              not_says=()):
        result = graded(name, target, seed, time_limit)
        share = result["score"] / result["max_score"]
        # Without the check cell, the grader's message stands for it (its first failing
        # case is the check cell's when a visible case fails), sparing a slow rerun.
        verdict = checks.check(name, target, time_limit=time_limit) if check_cell else None
        failed = verdict is not None and not verdict.passed
        assert failed or share < 1, f"not caught:\n{result['message']}"
        message = verdict.message if failed else result["message"]
        flat = " ".join(message.split())
        for words in ([says] if isinstance(says, str) else says):
            assert words in message or words in flat, f"{words!r} not in:\n{message}"
        for words in ([not_says] if isinstance(not_says, str) else not_says):
            assert words not in flat, f"{words!r} (a mistake not made) in:\n{message}"
        most, why = BREAKS[breaks]
        assert share <= most + 1e-9, f"keeps {share:.0%} > {most:.0%}:\n{result['message']}"
        assert share < 1
        if most < 1:
            assert "at most" in result["message"], result["message"]
        _record(request.node.nodeid, name, breaks, result)
        return message, result
    return check


def _record(test, name, breaks, result):
    """Append one wrong answer's result to the file named by BPE_WRONG_ANSWERS_RECORD, if set
    (`tools/wrong_answers.py` sums them up per worksheet); tests never need it."""
    path = os.environ.get("BPE_WRONG_ANSWERS_RECORD")
    if path:
        line = {"test": test, "exercise": name, "breaks": breaks,
                "score": result["score"], "max_score": result["max_score"]}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
