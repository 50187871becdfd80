"""What each worksheet asks: one module per worksheet, each declaring one `Worksheet` record.

A worksheet module (`ws01` ... `ws14`, numbered as the notebooks) builds the
cases behind its checkers and ends with its record: exercises and points,
checkers, the course helpers each answer may use, what stays forbidden, and
the hidden cases the grader draws afresh for each run. `common` holds what
they share (`Worksheet`, `Checker`, `Group`, `Case`, inputs from the corpora).
To add a worksheet, write its module and list it in `MODULES`; say what its cases probe
(`Case.probe`: the probes every worksheet has, or its own, in its record's probes), give
each case a hint that names no mistake (the words for a mistake go in its when, under the
kind the diagnosis gives), and write its corpus of wrong answers in
tests/classroom/worksheets/test_wsNN.py with the Corpus of corpus.py beside it.

This package collects them: `WORKSHEETS` (by notebook name) and `CHECKERS`
(by checker name, which is also the exercise's id and its check cell's
nbgrader `grade_id`). Cases are built on first use (some read corpora).

>>> [c.name for c in CHECKERS.values()][:3]
['utf8_bytes', 'code_points_and_bytes', 'encode_code_point']
>>> WORKSHEETS["02_bpe_basics"].points
{'get_stats': 1, 'merge': 2, 'encode_bytes': 2, 'basic_tokenizer': 3}
"""

from __future__ import annotations

import functools
import random

from . import ws01, ws02, ws04, ws05, ws06, ws07, ws08, ws09, ws11, ws12, ws14, ws17
from .common import COMPUTE, Case, Checker, Group, Worksheet

__all__ = ["COMPUTE", "Case", "Checker", "Group", "Worksheet", "CHECKERS", "WORKSHEETS",
           "groups_for"]

MODULES = [ws01, ws02, ws04, ws05, ws06, ws07, ws08, ws09, ws11, ws12, ws14, ws17]

WORKSHEETS: dict[str, Worksheet] = {m.WORKSHEET.name: m.WORKSHEET for m in MODULES}
CHECKERS: dict[str, Checker] = {c.name: c for sheet in WORKSHEETS.values()
                                for c in sheet.checkers}


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
