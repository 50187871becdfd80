"""The lab at scale (chapter 17): a gigabyte of real text, budgets of time and memory.

- `extract`: real documents to plain text: HTML pages, manual pages (roff)
- `debian`: Debian packages read in Python: download one with `apt-get download`,
  list its files, find its version and licence
- `corpus`: the lab's corpus, assembled from Debian packages into text shards
  with a manifest (sources, licences, sha256) and a held-out split by document;
  `course_slice` writes the course's own texts in the same form, offline
- `measures`: what the chapter measures: peak memory (tracemalloc and RSS),
  counting shards with a progress bar, bytes per token, bits per byte
- `command`: `python -m bpe_course corpus build|verify`

The corpus is built by a command, not at import time, and lives outside the
repository (`~/.cache/bpe-course/lab` by default, `BPE_COURSE_LAB` to move it).
"""
