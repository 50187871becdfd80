"""Where a corpus may be cut into chunks that are counted apart, with the same counts.

`counting.count_corpus` cuts a large corpus into chunks of a few megabytes and
counts each chunk's pre-tokens on its own; the counts of the chunks simply add
up. That is exact only if no pre-token and no special token spans a cut, so a
cut falls

- at the start of a special token when one is near (a document boundary), or
- else at a line break that the split pattern never crosses (`SplitRules.cut`).

This module finds such cuts in a text (`cut_points`) or, reading only small
windows, in a file of any size (`file_cut_points`).

>>> text = "one\\ntwo<|eot|>three\\nfour\\n"
>>> cuts = cut_points(text, 6, ["<|eot|>"], GPT4_SPLIT_PATTERN)
>>> [text[a:b] for a, b in zip(cuts, cuts[1:])]
['one\\ntwo', '<|eot|>three\\n', 'four\\n']

Subtle: with a pattern that is not in `pretokenize.RULES`, nothing is known
about its line breaks, so a corpus is cut only at special tokens.
"""

from __future__ import annotations

import functools
import os
import re

from ..patterns import GPT4_SPLIT_PATTERN  # noqa: F401 (the doctest uses it)
from ..pretokenize import RULES

WINDOW = 1 << 16           # bytes read at a time while looking for a cut
OVERLAP = 1024             # windows overlap, so a cut at a window's edge is not missed


def _covered(data, q: int, specials) -> bool:
    """True if an occurrence of a special token starts before `q` and ends after it."""
    for t in specials:
        i = data.find(t, max(0, q - len(t) + 1), q + len(t) - 1)
        if 0 <= i < q:
            return True
    return False


@functools.lru_cache(maxsize=16)
def _special_re(specials: tuple) -> re.Pattern:
    longest_first = sorted(specials, key=len, reverse=True)
    sep = b"|" if isinstance(specials[0], bytes) else "|"
    return re.compile(sep.join(re.escape(t) for t in longest_first))


def find_cut(data, lo: int, hi: int, specials: tuple, pattern: str):
    """The first safe cut in `data[lo:hi]` (str or bytes), as an index into `data`, or None.

    A special token wins over a line break. A cut inside an occurrence of a
    special token (say inside "<|a|><|b|>" when that is a token too) is never
    safe, so every candidate is checked against every token.
    """
    if specials:
        for m in _special_re(specials).finditer(data, lo, hi):
            if not _covered(data, m.start(), specials):
                return m.start()
    rules = RULES.get(pattern)
    if rules is not None:
        line = rules.cut_bytes if isinstance(data, bytes) else rules.cut_str
        for m in line.finditer(data, lo, hi):
            q = m.end() if rules.newline_before_cut else m.start()
            if not _covered(data, q, specials):
                return q
    return None


def cut_points(text: str, chunk: int, specials, pattern: str) -> list[int]:
    """Offsets [0, ..., len(text)] that cut `text` into chunks of about `chunk` characters."""
    specials = tuple(specials)
    cuts = [0]
    pos = chunk if specials or pattern in RULES else len(text)     # else: no safe cuts
    while pos < len(text):
        q = find_cut(text, pos, pos + WINDOW, specials, pattern)
        if q is None:
            pos += WINDOW - OVERLAP          # nothing here: look further on
            continue
        cuts.append(q)
        pos = q + chunk
    return cuts + [len(text)] if len(text) > cuts[-1] else cuts


def file_cut_points(path, chunk: int, specials, pattern: str) -> list[int]:
    """Byte offsets [0, ..., size] that cut a UTF-8 file into chunks of about `chunk` bytes.

    Works on bytes: a special token's UTF-8 or an ASCII "\\n" can never start
    in the middle of a character, so no decoding is needed to find a cut.
    Only windows of WINDOW bytes are read.
    """
    raw = tuple(t.encode("utf-8") for t in specials)
    size = os.path.getsize(path)
    cuts = [0]
    pos = chunk if specials or pattern in RULES else size          # else: no safe cuts
    with open(path, "rb") as f:
        while pos < size:
            # Read a little before `pos` too, to see a special token that covers it.
            start = max(0, pos - max(map(len, raw), default=0))
            f.seek(start)
            data = f.read(pos - start + WINDOW)
            q = find_cut(data, pos - start, len(data), raw, pattern)
            if q is None:
                pos += WINDOW - OVERLAP
                continue
            cuts.append(start + q)
            pos = start + q + chunk
    return cuts + [size] if size > cuts[-1] else cuts
