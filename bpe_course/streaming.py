"""Encoding a stream of text (a file of any size) in bounded memory.

`RegexTokenizer.encode_iterable(chunks)` yields exactly the ids of
`encode("".join(chunks))`, lazily, while holding only a little text. The hard
part is the seam between two chunks. A chunk may end inside a word ("hel" +
"lo"), inside a special token ("<|endof" + "text|>"), or just before text
that changes how the end already seen splits: under GPT-4o's pattern "don" +
"'t" is one pre-token, and "\\n" + 99 spaces + "\\n" is one too, so a pre-token
far back can still change. We therefore hold back the tail that could still
change and encode only what is settled:

1. Special tokens. Whether one starts at position p depends only on the next
   L characters, L the length of the longest one (longest tokens win). So
   positions at least L - 1 characters before the end of the buffer are
   settled: a special token starting there is final, and so is the absence
   of one.
2. Pre-tokens. Settled ordinary text is encoded up to its last *safe cut*: a
   point where the split pattern cuts whatever follows, and splits the text
   before it exactly as if the text ended there. For the GPT-2, GPT-4 and
   GPT-4o patterns there are two kinds: the line breaks of
   `pretokenize.RULES` (a newline before a visible character), and a space
   between two ASCII letters ("the| cat": a letter run ends at a space, and a
   space before a letter always starts a new pre-token). For any other
   pattern we know no safe cut, so ordinary text waits for the next special
   token or for the end of the stream: still exact, but not bounded.

The buffer is then at most the text since the last safe cut, a few words of
prose, whatever the size of the input. Text with no safe cut for a long
stretch (a megabyte with no newline and no "a b") is held whole: the tail of
a pre-token cannot be encoded before the pre-token ends.

>>> from bpe_course import RegexTokenizer
>>> tok = RegexTokenizer()
>>> list(tok.encode_iterable(["hel", "lo wor", "ld"])) == tok.encode("hello world")
True
"""

from __future__ import annotations

import functools
from typing import Iterable, Iterator

import regex

from .pretokenize import RULES
from .special import check_disallowed, resolve_allowed, resolve_disallowed, special_pattern
from .text import check_text

# A space between two ASCII letters, cut before the space: "the| cat". Checked for the
# three GPT patterns by tests/test_streaming.py, as the line cuts of RULES are by the
# pretokenize tests. (No lookbehind: searching backwards, that would be slow.)
WORD_CUT = r"[A-Za-z] [A-Za-z]"
# Text is handled in blocks of about this many characters: few enough to keep
# memory small (encoding a block briefly takes about 80 bytes per character),
# enough to make the work per block (a regex search, a call to encode_ordinary)
# negligible beside the encoding itself.
BLOCK = 2048


@functools.lru_cache(maxsize=16)
def cut_patterns(pattern: str) -> list[tuple[regex.Pattern, int]]:
    """The safe cuts of a split pattern: (backward search, where the cut is after the
    start of a match). The line cut of RULES matches one newline."""
    rules = RULES.get(pattern)
    if rules is None:
        return []
    return [(regex.compile(rules.cut, regex.REVERSE), int(rules.newline_before_cut)),
            (regex.compile(WORD_CUT, regex.REVERSE), 1)]


def last_safe_cut(text: str, start: int, end: int, pattern: str) -> int:
    """The last safe cut in `text[start:end]` for the split `pattern`, or `start` if none.

    Only `text[:end]` is looked at: the cuts' lookaheads never see past `end`.
    The search runs backwards from `end` (`regex.REVERSE`), so it stops at
    the last cut instead of finding every one.

    >>> from bpe_course.patterns import GPT4_SPLIT_PATTERN
    >>> text = "one two\\nthree fo"
    >>> text[:last_safe_cut(text, 0, len(text), GPT4_SPLIT_PATTERN)]
    'one two\\nthree'
    """
    best = start
    if end > start:
        for cut, shift in cut_patterns(pattern):
            m = cut.search(text, start, end)
            if m:
                best = max(best, m.start() + shift)
    return best


def blocks(chunks: Iterable[str]) -> Iterator[str]:
    """The text of `chunks`, joined or cut into blocks of about BLOCK characters."""
    pending: list[str] = []
    size = 0
    for chunk in chunks:
        check_text(chunk)
        for i in range(0, len(chunk), BLOCK):
            piece = chunk[i:i + BLOCK] if len(chunk) > BLOCK else chunk
            pending.append(piece)
            size += len(piece)
            if size >= BLOCK:
                yield "".join(pending)
                pending, size = [], 0
    if pending:
        yield "".join(pending)


def encode_stream(tok, chunks: Iterable[str], allowed_special="none_raise",
                  disallowed_special="all") -> Iterator[int]:
    """The ids of `tok.encode("".join(chunks), allowed_special, disallowed_special)`,
    yielded as text arrives.

    `tok` is a `RegexTokenizer`. A disallowed special token raises ValueError
    when it is met, after the ids of the text before it were yielded.
    """
    allowed = resolve_allowed(allowed_special, tok.special_tokens)
    disallowed = resolve_disallowed(disallowed_special, allowed_special, allowed,
                                    tok.special_tokens)
    allowed_pattern = special_pattern(allowed)
    hold = max(map(len, allowed | disallowed), default=1) - 1
    buf = ""
    # The last `hold` characters already encoded, to see a disallowed special token
    # that began in them; `offset` is where `context` starts in the whole text.
    context, offset = "", 0
    for block in blocks(chunks):
        buf += block
        if disallowed:
            check_disallowed(context + buf, disallowed, offset)
        settled = len(buf) - hold
        start = 0
        if allowed_pattern is not None:
            for m in allowed_pattern.finditer(buf):
                if m.start() >= settled:
                    break
                if m.start() > start:
                    yield from tok.encode_ordinary(buf[start:m.start()])
                yield tok.special_tokens[m.group()]
                start = m.end()
        cut = last_safe_cut(buf, start, settled, tok.pattern)
        if cut > start:
            yield from tok.encode_ordinary(buf[start:cut])
            start = cut
        if start:
            kept = (context + buf[max(0, start - hold):start])[-hold:] if hold else ""
            offset += len(context) + start - len(kept)
            context, buf = kept, buf[start:]
    if disallowed:
        check_disallowed(context + buf, disallowed, offset)
    if buf:
        yield from tok.encode(buf, allowed_special, disallowed_special)
