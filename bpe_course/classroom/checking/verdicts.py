"""What a checker says: a `Verdict`, and the teacher's message when an answer is wrong.

Checking an answer has four parts, one module each:

- `judgement`: is the answer right (`judge`, comparing plain data), and if not, where it
  differs from the expected one; `misuse`, when the object is not the learner's own;
- `diagnosis`: what kind of mistake it shows (`diagnose`), and which hint goes with it;
- `location`: the learner's own line that shows the mistake (`locate`);
- `reproduction`: the failing case as code to paste into a fresh cell.

`failure_message` puts them together: which case failed, the code to reproduce it, what
was expected and what came back, what went wrong (with the learner's line where it can be
found), and a hint. A `Verdict` carries it into the notebook; `attempt` shows a learner's
error in a cell that tries their code out, instead of stopping the worksheet.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from dataclasses import dataclass

from ..worksheets import Case, Checker, Group
from . import runner
from .diagnosis import KINDS, Diagnosis, diagnose, hint_for, inputs_of  # noqa: F401
from .judgement import judge, misuse, normal, show  # noqa: F401
from .location import locate, source_of, where_in  # noqa: F401
from .reproduction import reproduction
from .runner import Raised


@dataclass
class Verdict:
    """The result of a check: `passed`, how many `cases` ran, and the `message` to show."""
    passed: bool
    cases: int
    message: str
    attempted: bool = True

    def __str__(self) -> str:
        return self.message

    def _ipython_display_(self) -> None:
        print(self.message, file=sys.stdout if self.passed else sys.stderr)


@contextlib.contextmanager
def attempt():
    """For cells that try out the learner's code: show errors instead of raising them.

    `with checks.attempt(): ...` prints "not attempted yet" for NotImplementedError
    and the exception's type and message for anything else, so the worksheet
    runs on to the end.
    """
    try:
        yield
    except NotImplementedError:
        print("⏳ not attempted yet: this cell uses code you have not written yet.",
              file=sys.stderr)
    except Exception as exc:
        where = runner.caught(exc).where
        print(f"❌ {type(exc).__name__}: {exc}" + (f"\n    (at {where})" if where else ""),
              file=sys.stderr)


def failure_message(checker: Checker, group: Group, case: Case, number: int, total: int,
                    problem: str, got, printed: str = "", source=None, line: int = 0,
                    expected=None) -> str:
    """The teacher's answer: which case, the code to reproduce it, what differed, what
    kind of mistake it is (with the learner's line when it can be found), and a hint.
    `source` is the learner's code (a text or a list of cells) and `line` where the
    checked object starts there, for `locate`."""
    timed_out = isinstance(got, Raised) and got.type_name == "TimeoutError"
    status = ("took too long" if timed_out else "raised an exception"
              if isinstance(got, Raised) else "failed")
    lines = [f"❌ {checker.name}: case {number} of {total} {status}."]
    lines += ["    " + text for text in reproduction(group, case)]
    lines += problem.splitlines()
    if printed.strip():
        shown = printed.strip().splitlines()
        lines.append("your code printed:")
        lines += ["    " + text[:120] for text in shown[:5]]
        if len(shown) > 5:
            lines.append(f"    … ({len(shown) - 5} more lines)")
    try:                    # naming the mistake must never cost the learner the message
        inputs = inputs_of(case.code, group.env, checker.target)
        diagnosis = diagnose(checker, case, expected, got, inputs)
        where = where_in(diagnosis, case, checker.target, source, line) if diagnosis else ""
    except Exception:
        diagnosis, where = None, ""
    if diagnosis is not None:
        lines += textwrap.wrap("what went wrong: " + diagnosis.text, width=92,
                               subsequent_indent="    ")
        if where:
            lines.append(f"    {where}")
    hint = hint_for(case, got, diagnosis)
    if hint:
        lines += textwrap.wrap("hint: " + hint, width=92, subsequent_indent="      ")
    return "\n".join(lines)
