"""Checking an answer: run the learner's code on a worksheet's cases, say what was wrong.

- `checks`: one checker per thing a learner writes (`checks.merge()` in a check cell, which
  finds the learner's `merge` by name; `checks.merge(merge)` anywhere), as
  worksheets import them (`from bpe_course import checks`); each returns a `Verdict`
- `verdicts`: is an answer right, and if not, the teacher's message
- `runner`: runs a case on the learner's object, with a time limit, and turns
  what happens into data; `plain` carries answers as JSON and back
- `references`: the right answers where the story has no function for them
- `source_rules`: the worksheets' rules (write it yourself, by hand, nothing hidden)
  read from the learner's source, by the grader and by the check cells

`runner` and `plain` use the standard library only: the grader's driver runs
them inside the sandbox (`grading.inside_sandbox`).
"""
