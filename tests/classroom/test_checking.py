"""The checkers as learners meet them: a contract, and verdicts that behave like a teacher.

Whatever the worksheet: a stub is "not attempted yet", an exception is shown with
the learner's line instead of raised, what the code printed is shown, an endless
loop is stopped, an answer cannot lie about being equal, the course's own function
is refused. Each worksheet's own cases and mistakes are in `test_wsNN.py`.
"""

from pathlib import Path

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS

ROOT = Path(__file__).resolve().parents[2]


def test_checker_functions_follow_the_contract(solution):
    verdict = checks.merge(solution("02_bpe_basics")["merge"])
    assert (verdict.passed, verdict.cases) == (True, 12)
    assert isinstance(verdict.message, str)
    for name in CHECKERS:
        assert callable(getattr(checks, name))


def test_a_stub_is_not_attempted_yet():
    def merge(ids, pair, idx):
        # YOUR CODE HERE
        raise NotImplementedError()
    verdict = checks.merge(merge)
    assert (verdict.passed, verdict.attempted) == (False, False)
    assert verdict.message.startswith("⏳ merge: not attempted yet.")


def test_a_class_stub_is_not_attempted_yet():
    class BasicTokenizer:
        def train(self, text, vocab_size, verbose=False):
            raise NotImplementedError()

        def encode(self, text):
            raise NotImplementedError()

        def decode(self, ids):
            raise NotImplementedError()
    assert "not attempted yet" in checks.basic_tokenizer(BasicTokenizer).message


def test_a_learners_exception_is_shown_with_its_line_not_raised(fails_with):
    def merge(ids, pair, idx):
        out = []
        for i in range(len(ids)):
            if ids[i] == pair[0] and ids[i + 1] == pair[1]:
                out.append(idx)
        return out
    message = fails_with(checks.merge(merge), "case 2 of 12 raised an exception",
                         "IndexError: list index out of range",
                         "of your code: if ids[i] == pair[0] and ids[i + 1] == pair[1]:")
    assert "Traceback" not in message


def test_what_the_learners_code_printed_is_shown_when_it_fails(fails_with):
    def get_stats(ids, counts=None):
        print("debug:", ids)
        return {}
    fails_with(checks.get_stats(get_stats), "your code printed:", "debug: [1, 2]")


def test_an_endless_loop_is_stopped(fails_with):
    def merge(ids, pair, idx):
        i = 0
        while i < len(ids):
            pass
        return []
    fails_with(checks.check("merge", merge, time_limit=0.5), "case 2 of 12 took too long",
               "TimeoutError")


def test_an_answer_that_claims_to_equal_everything_does_not_pass(fails_with):
    class Liar(list):
        def __eq__(self, other):
            return True

    class Anything:
        def __eq__(self, other):
            return True
    assert not checks.merge(lambda ids, pair, idx: Liar([0])).passed
    fails_with(checks.merge(lambda ids, pair, idx: Anything()), "wrong type",
               "where a list is expected")


def test_the_courses_own_function_is_refused(fails_with):
    import bpe_course
    fails_with(checks.merge(bpe_course.merge), "is the course's own bpe_course.pairs.merge")


def test_verdicts_show_passes_on_stdout_and_failures_on_stderr(solution, capsys):
    checks.merge(solution("02_bpe_basics")["merge"])._ipython_display_()
    checks.merge(lambda ids, pair, idx: [])._ipython_display_()
    out, err = capsys.readouterr()
    assert out == "✅ merge: passed all 12 cases.\n"
    assert err.startswith("❌ merge: case 2 of 12 failed.")


def test_attempt_shows_errors_and_lets_the_cell_run_on(capsys):
    with checks.attempt():
        raise NotImplementedError()
    with checks.attempt():
        {}["missing"]
    out, err = capsys.readouterr()
    assert "not attempted yet" in err
    assert "KeyError: 'missing'" in err


def test_the_time_limits_in_the_readme_are_the_codes():
    text = " ".join((ROOT / "exercises" / "README.md").read_text(encoding="utf-8").split())
    limits = {30}
    for checker in CHECKERS.values():
        for group in checker.groups():
            limits |= {int(x) for x in (group.time_limit, group.setup_time_limit) if x}
    for seconds in sorted(limits):
        assert f"{seconds} s" in text, f"exercises/README.md never states the {seconds} s limit"
    assert "took longer than 120 s" not in text or "120 s" in text
