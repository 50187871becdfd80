"""Grading on Gradescope: `python -m bpe_course gradescope WORKSHEET -o autograder.zip`.

- `autograder`: the command, and the zip it writes (setup.sh, run_autograder, the
  course's wheel and the assignment's settings)
- `image`: what setup.sh runs last in Gradescope's image (locks what a notebook must
  not read where the container is the sandbox)
- `run`: what run_autograder runs for each submission: the course's grader on the
  submitted notebook
- `results`: the grader's result as Gradescope's results.json, one test per exercise

Instructors: docs/gradescope.md.
"""
