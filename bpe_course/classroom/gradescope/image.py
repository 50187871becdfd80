"""What Gradescope's `setup.sh` runs last, in the image it builds: lock what a notebook must not read.

`python -m bpe_course.classroom.gradescope.image SOURCE`, as root, once the course
is installed: where the container itself is the sandbox (`grading.container`), a
notebook may read whatever its users may, so the installed course's code, the
libraries that would answer worksheets for it (tiktoken, tokenizers,
sentencepiece) and the autograder's own folder SOURCE (its wheel is the course's
code too) become root's alone (`container.lock`). Then it says which sandbox
this machine allows, for the build's log; the one that counts is the one
`run_autograder` finds when it grades.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..grading import bubblewrap, container


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bpe_course.classroom.gradescope.image SOURCE", file=sys.stderr)
        return 2
    if not bubblewrap.as_root():
        print("error: run this as root, in the image being built", file=sys.stderr)
        return 2
    for path in container.lock([Path(argv[0])]):
        print(f"locked: {path}")
    ok, how = bubblewrap.available()
    print(f"bubblewrap: {'works here' if ok else how}")
    ok, how = container.available()
    print(f"the container as the sandbox: {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
