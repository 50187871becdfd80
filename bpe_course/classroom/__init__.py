"""The classroom: everything around the tokenizer story that checks and grades learners.

Nothing in the story (the modules of `bpe_course` itself) imports from here;
the classroom imports the story, to know the right answers.

- `checks`: one checker per thing a learner writes (`checks.merge(merge)`),
  each returning a `Verdict`; `verdicts` says what was wrong and how to fix it
- `cases`: the cases behind every checker, one module per worksheet
  (`ws01` ... `ws09`), with `common` for what they share
- `runner`: runs a case on the learner's object, with a time limit; `plain`
  turns answers into plain data and back (both stdlib only: the grader's
  driver runs them in the sandbox)
- `references`: the right answers where the story has no function for them
- `grading`, `submissions`, `kernel`, `scoring`, `report`: `python -m
  bpe_course grade`, which finds and identifies each submitted worksheet, runs
  it in a sandbox, scores it on hidden cases and writes the report (JSON, CSV,
  per student)
- `sandbox`, `sandboxed`, `watch`: the bubblewrap sandbox, the driver that runs
  a notebook and its cases inside it, and the watch kept on it from outside
  (memory, threads, files)
- `offlimits`: the lock that keeps the course's own code out of answers
- `exercises`: `python -m bpe_course exercises`, which writes the worksheets
  in `exercises/` from the worked ones in `solutions/`
- `course`: the repository's address and the header every notebook starts with

Worksheets import the checkers as `from bpe_course import checks`.
"""
