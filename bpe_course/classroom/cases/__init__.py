"""The cases behind every checker: inputs, the reference to compare with, and hints.

Each checker of `bpe_course.classroom.checks` is described by a `Checker`: the
name the learner's function or class has in the worksheet, the course's own
version of it (the *reference*, which gives the expected answers), and
groups of cases, edge cases first. A case is a line of Python run with the
learner's object bound to that name (see `runner`), so the failing
case a learner is shown is also code they can paste and run.

Groups marked `hidden` are not run by the worksheets' check cells, only by
the grader, so a solution cannot be fitted to the cases a learner has seen.

Cases are built on first use (some read corpora), one function per worksheet.

>>> names = [c.name for c in CHECKERS.values()]
>>> names[:3]
['utf8_bytes', 'code_points_and_bytes', 'encode_code_point']
"""

from __future__ import annotations

import functools

import random

from . import ws01, ws02, ws04, ws05, ws06, ws07, ws08, ws09
from .common import COMPUTE, Case, Checker, Group

__all__ = ["COMPUTE", "Case", "Checker", "Group", "CHECKERS", "WORKSHEETS", "groups_for",
           "naive_timings"]

MODULES = [ws01, ws02, ws04, ws05, ws06, ws07, ws08, ws09]


def _checkers() -> dict[str, Checker]:
    items = [checker for module in MODULES for checker in module.CHECKERS]
    for module in MODULES:         # each module's hidden cases and helpers, by checker name
        for checker in module.CHECKERS:
            checker.hidden = getattr(module, "HIDDEN", {}).get(checker.name, checker.hidden)
            checker.helpers = tuple(getattr(module, "HELPERS", {}).get(checker.name, ()))
            checker.forbidden = tuple(getattr(module, "FORBIDDEN", {}).get(checker.name, ()))
    for checker in items:          # build each checker's groups once, on first use
        checker.groups = functools.lru_cache(maxsize=None)(checker.groups)
    return {c.name: c for c in items}


CHECKERS: dict[str, Checker] = _checkers()

# Each worksheet's exercises: checker name (also the check cell's nbgrader grade_id) -> points.
WORKSHEETS: dict[str, dict[str, int]] = {module.WORKSHEET: module.POINTS for module in MODULES}


def _key(group: Group, case: Case) -> tuple:
    return group.setup, repr(sorted(group.env.items())), case.code


@functools.lru_cache(maxsize=64)
def _drawn(name: str, seed: int) -> tuple[Group, ...]:
    """The hidden groups drawn from `seed`. A drawn case that happens to repeat a case the
    worksheet shows is dropped: an answer that only hard-codes what the learner has seen
    must not pass a "hidden" case by luck."""
    shown = {_key(g, c) for g in CHECKERS[name].groups() if not g.hidden for c in g.cases}
    drawn = CHECKERS[name].hidden(random.Random(f"{seed}:{name}"))
    for group in drawn:
        group.hidden = True
        group.cases = [c for c in group.cases if _key(group, c) not in shown]
    return tuple(g for g in drawn if g.cases)


def groups_for(checker: Checker, seed: int | None) -> list[Group]:
    """Every group of `checker`: the worksheet's, the fixed hidden ones, and (with a seed)
    hidden ones drawn afresh from `seed`, so no run's hidden cases can be known before."""
    groups = list(checker.groups())
    if seed is not None and checker.hidden is not None:
        groups += _drawn(checker.name, seed)
    return groups


def naive_timings(worksheet: str) -> list:
    """[(text, vocab size)] on which the grader's driver times the course's naive trainer,
    before any of the learner's code runs (for a speed case, `naive_seconds`)."""
    module = next(m for m in MODULES if m.WORKSHEET == worksheet)
    return list(getattr(module, "naive_timings", list)())
