"""The classroom: everything around the tokenizer story that checks and grades learners.

Nothing in the story (the modules of `bpe_course` itself) imports from here;
the classroom imports the story, to know the right answers. It is grouped by
what a maintainer does:

- `worksheets/`: what each worksheet asks, one module per worksheet (`ws01`
  ... `ws14`), each declaring one `Worksheet` record: its exercises and
  points, the cases behind each checker, the course helpers an answer may
  use and the hidden cases the grader draws. Add or change an exercise here.
- `checking/`: running a learner's code on those cases and saying what was
  wrong (`checks`, one checker per thing a learner writes, as
  `from bpe_course import checks`), the reference answers, and the rules read
  from the learner's source that keep the course's own code out of answers
  (`source_rules`).
- `grading/`: `python -m bpe_course grade`, which finds each submitted
  worksheet, runs it in a bubblewrap sandbox (or, told so, the container the
  grader runs in), scores it on hidden cases and writes the report.
- `gradescope/`: `python -m bpe_course gradescope`, an autograder zip that runs
  the grader on Gradescope and writes its results.json, one test per exercise.
- `authoring/`: `python -m bpe_course exercises`, which writes `exercises/`
  from `solutions/`, and the course's facts (its address, every notebook's
  header).
"""
