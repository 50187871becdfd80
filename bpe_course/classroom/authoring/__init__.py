"""Authoring: what a maintainer runs to write the course's notebooks.

- `exercises`: `python -m bpe_course exercises`, which writes the learners'
  worksheets in `exercises/` from the worked ones in `solutions/`, and checks
  that each solution's check cells match its `Worksheet` record
- `course`: the course's facts kept in one place: the repository's address and
  the header every notebook starts with (`tools/notebooks.py headers` writes them)
"""
