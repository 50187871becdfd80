"""A safe `sys.path` for `python -m bpe_course`: never import from the working directory.

`python -m` puts the working directory first on `sys.path`, so a file such as
`tiktoken.py` left in the folder where an instructor runs the grader would be
imported in place of the real module. The package drops that entry (and the
empty-string entry that means the same) as the very first thing it does when
started with `-m`, before importing anything else.

>>> import os, sys
>>> saved = list(sys.path)
>>> sys.path[:0] = ["", os.getcwd()]
>>> drop_working_directory()
>>> "" in sys.path or os.getcwd() in sys.path[:1]
False
>>> sys.path[:] = saved
"""

import os
import sys


def drop_working_directory() -> None:
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != here]
