"""The checkers as learners meet them: a contract, and verdicts that behave like a teacher.

Whatever the worksheet: a stub is "not attempted yet", an exception is shown with
the learner's line instead of raised, what the code printed is shown, an endless
loop is stopped, an answer cannot lie about being equal, the course's own function
is refused. Each worksheet's own cases and mistakes are in `test_wsNN.py`.
"""

from pathlib import Path

from bpe_course import checks
from bpe_course.classroom.worksheets import CHECKERS

ROOT = Path(__file__).resolve().parents[3]


def test_checker_functions_follow_the_contract(solution):
    verdict = checks.merge(solution("02_bpe_basics")["merge"])
    assert (verdict.passed, verdict.cases) == (True, 16)
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
    message = fails_with(checks.merge(merge), "case 2 of 16 raised an exception",
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
    fails_with(checks.check("merge", merge, time_limit=0.5), "case 2 of 16 took too long",
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
    assert out == "✅ merge: passed all 16 cases.\n"
    assert err.startswith("❌ merge: case 2 of 16 failed.")


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


# -- every failing case reproducible, the rule written down ------------------------------------------

def _import_cell_names(worksheet: str) -> set:
    """The names a worksheet's first cells give a learner: its locked import cell."""
    import nbformat
    nb = nbformat.read(ROOT / "solutions" / f"{worksheet}.ipynb", as_version=4)
    namespace: dict = {}            # one namespace, as the notebook's cells share one
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("locked") and not meta.get("grade"):
            exec(cell.source, namespace)
    return set(namespace)


def _free_names(code: str) -> set:
    """The global names `code` reads without defining them itself (imports, assignments,
    defs, loop variables), at module level and in its lambdas and comprehensions."""
    import symtable
    free: set = set()
    top = symtable.symtable(code, "<case>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    todo = [top]
    while todo:
        table = todo.pop()
        for symbol in table.get_symbols():
            global_read = (table is top and symbol.is_referenced()) or symbol.is_global()
            if global_read and symbol.get_name() not in defined:
                free.add(symbol.get_name())
        todo.extend(table.get_children())
    return free


def test_every_case_is_code_that_runs_as_pasted_into_its_worksheet():
    """The code a failing case shows uses only names it defines, the worksheet's import
    cell gives, the learner's own object, or Python's builtins: pasted into a fresh cell
    of the worksheet, it runs (no `TMP`, `text_file` or `TEXT` left undefined)."""
    import builtins

    from bpe_course.classroom.checking.verdicts import reproduction
    from bpe_course.classroom.worksheets import WORKSHEETS, groups_for
    missing = []
    for sheet in WORKSHEETS.values():
        given = _import_cell_names(sheet.name) | set(dir(builtins))
        for checker in sheet.checkers:
            for group in groups_for(checker, 1):
                for case in group.cases:
                    code = "\n".join(reproduction(group, case))
                    free = _free_names(code) - given - {checker.target}
                    if free:
                        missing.append(f"{checker.name}: {sorted(free)} in {case.code[:60]!r}")
    assert not missing, "\n".join(missing[:20])


def test_the_rule_in_the_readme_and_the_report_is_the_codes():
    """Each cap of `BREAKS` is in the README's table and in the rule the grader prints,
    and a failing exercise's message ends with the arithmetic of its points."""
    from bpe_course.classroom.grading.scoring import RULE, score_exercise
    from bpe_course.classroom.worksheets.common import BREAKS
    text = (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line.startswith("| ") and "%" in line]
    for most, words in BREAKS.values():
        if most < 1:
            assert any(line.rstrip().endswith(f"| {most:.0%} |") for line in table), most
            assert words in RULE and f"{most:.0%}" in RULE
    describe = {"kind": "function", "module": "__main__", "name": "merge", "course": False}
    result = score_exercise("merge", 2, {"describe": describe, "answers": []}, "", 1)
    assert result["score"] == 0
    assert result["message"].splitlines()[-1].startswith("points: 0 of 2 = 0% of the cases'")


def test_a_check_cell_whose_function_is_missing_says_so_in_one_line():
    verdict = checks.merge()               # this module defines no `merge`
    assert not verdict.passed and "\n" not in verdict.message
    assert verdict.message == ("❌ merge: there is no `merge` in the notebook: run the cell "
                               "that defines it (if that cell shows an error, a SyntaxError "
                               "say, fix it first).")


def test_a_check_cell_finds_the_learners_function_by_its_name(solution):
    merge = solution("02_bpe_basics")["merge"]          # as the worksheet's cell defines it
    assert merge and checks.merge().passed


def test_every_exercise_has_hidden_cases_and_says_what_each_case_breaks():
    from bpe_course.classroom.worksheets import CHECKERS, groups_for
    from bpe_course.classroom.worksheets.common import BREAKS
    for name, checker in CHECKERS.items():
        groups = groups_for(checker, 1)
        hidden = [c for g in groups if g.hidden for c in g.cases]
        assert hidden, f"{name} has no hidden cases"
        assert checker.hidden is not None, f"{name} draws no hidden cases per grading run"
        assert {c.breaks for g in groups for c in g.cases} <= set(BREAKS)
        assert any(c.breaks != "edge" for c in hidden), f"{name}: no hidden case that matters"


def test_one_cap_table_applies_to_every_case_of_every_worksheet():
    """A case whose probe or expected exception says what its failure breaks (an input
    changed, state shared, a text not decoded, an exception the worksheet asks for) is
    capped alike in every worksheet: a missing surrogate check keeps at most 60% in
    worksheet 01's two exercises, as anywhere else."""
    from bpe_course.classroom.worksheets import CHECKERS, groups_for
    from bpe_course.classroom.worksheets.common import table_breaks
    differ = [f"{name}: {case.code[:50]!r} breaks {case.breaks!r}, the table says "
              f"{table_breaks(case)!r}"
              for name, checker in CHECKERS.items() for seed in (1, 2)
              for group in groups_for(checker, seed) for case in group.cases
              if table_breaks(case) not in (None, case.breaks)]
    assert not differ, "\n".join(differ[:10])
    lone = [case for name in ("utf8_bytes", "encode_code_point")
            for group in CHECKERS[name].groups() for case in group.cases
            if "ud800" in case.code or "0xd800" in case.code]
    assert len(lone) == 2 and {case.breaks for case in lone} == {"contract"}


def test_a_case_hint_speaks_only_when_no_diagnosis_says_more():
    """The case's own hint names no mistake: it is left out when a recognised mistake says
    it all, and a hint keyed by the diagnosis replaces it (the hint agrees with the kind)."""
    from bpe_course.classroom.checking.diagnosis import Diagnosis, hint_for
    from bpe_course.classroom.worksheets import Case
    case = Case("f()", "what the case checks", when={"no_skip": "about skipping"})
    assert hint_for(case, [1], None) == "what the case checks"
    assert hint_for(case, [1], Diagnosis("both_orders", "...")) == ""
    assert hint_for(case, [1], Diagnosis("no_skip", "...")) == "about skipping"
    assert hint_for(case, [1], Diagnosis("empty", "...", final=False)) == "what the case checks"


def test_a_right_exception_without_the_asked_words_is_not_called_the_wrong_one():
    from bpe_course.classroom.checking.diagnosis import diagnose
    from bpe_course.classroom.checking.plain import Raised
    from bpe_course.classroom.worksheets import CHECKERS, Case
    case = Case("tok.encode('<|endoftext|>')", mention="<|endoftext|>")
    found = diagnose(CHECKERS["special_tokens"], case, Raised("ValueError", ""),
                     Raised("ValueError", "not allowed"))
    assert found.kind == "error_words" and "instead of" not in found.text
    assert "'<|endoftext|>'" in found.text
    nowhere = diagnose(CHECKERS["merge"], Case("merge([], (1, 2), 3)"), [],
                       Raised("OverflowError", "too big"))
    assert "shown above" not in nowhere.text            # no line was shown
    there = diagnose(CHECKERS["merge"], Case("merge([], (1, 2), 3)"), [],
                     Raised("OverflowError", "too big", "line 2 of your code: x = 10.0 ** 400"))
    assert "(the line is shown above)" in there.text
