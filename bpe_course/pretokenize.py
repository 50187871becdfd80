"""Splitting text into pre-tokens fast, for encoding and for counting them in training.

Two jobs, on the same facts about the three GPT patterns (`RULES`):

- `split_pretokens(text, pattern)`: the pre-tokens of a text in order, what every
  encoder (`RegexTokenizer.encode_ordinary`) splits with, equal to `regex.findall`;
- `count_pretokens(text, pattern, special_tokens)`: how often each pre-token occurs, the
  first half of `train_bpe`.

Counting first. The naive trainer (`RegexTokenizer.train`) keeps every chunk of the text as a
list of ids. A fast trainer keeps only *how often each distinct pre-token
occurs*: " the" may occur 20,000 times but is stored once, with its count.
`count_pretokens` computes that table, exactly as `regex.findall(pattern, text)`
followed by `Counter` would, with three ideas:

1. Special tokens are cut out first and never counted, so no pre-token (and
   hence no merge) ever spans one.
2. Count lines before words. Real text repeats whole lines (in code,
   `        return None` occurs thousands of times), so we cut the text at line
   breaks that are *provably* pre-token boundaries, count the distinct pieces,
   and run the split pattern once per distinct piece, weighting by its count.
   A line's indentation (all but its last space) is a pre-token of its own,
   so it is cut off too: `    return None` at any depth is one piece.
3. An ASCII shortcut. On pure-ASCII text `\\p{L}` is just `[A-Za-z]`, so the
   standard library's `re` can run an ASCII copy of the pattern, about twice as
   fast as `regex`. Text with other characters still goes through `regex`.

>>> counts = count_pretokens("hi there\\nhi there\\n<|eot|>hi", special_tokens=["<|eot|>"])
>>> sorted(counts.items())
[('\\n', 2), (' there', 2), ('hi', 3)]

Splitting uses idea 3 as well, and the safe line breaks of idea 2 to send only the
pieces around characters outside ASCII to `regex` (see `split_pretokens`).

Ideas 2 and 3 need facts about the pattern, so they are used only for the
three patterns in `patterns` (see `RULES`); any other pattern is split and counted
with plain `regex.findall`, still exactly.
"""

from __future__ import annotations

import functools
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import filterfalse
from typing import Iterable

import regex

from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .special import special_pattern

# The whitespace of `regex`'s \s among ASCII characters (\x1c-\x1f are not in it).
_WS = r"\t\n\x0b\x0c\r "


@dataclass(frozen=True)
class SplitRules:
    """What we know about one split pattern, to count its pre-tokens faster.

    `cut` matches a "\\n" at which the text may be cut into independent pieces:
    no pre-token ever spans that point, and the pattern splits the piece before
    it the same way whether the text goes on or ends there. The newline stays
    with the piece before the cut when `newline_before_cut`, else with the
    piece after it. `ascii` is the same pattern for pure-ASCII text, for `re`.
    `indent`, when known, matches the same cuts as `cut` and captures the
    indentation after the newline that is a pre-token of its own (see
    `count_pretokens`, idea 2).
    """
    cut: str
    newline_before_cut: bool
    ascii: str
    indent: str | None = None

    @functools.cached_property
    def cut_str(self) -> re.Pattern:
        return re.compile(self.cut)

    @functools.cached_property
    def cut_bytes(self) -> re.Pattern:
        return re.compile(self.cut.encode("ascii"))

    @functools.cached_property
    def indent_cut(self) -> re.Pattern | None:
        return None if self.indent is None else re.compile(self.indent)

    def piece_around(self, text: str, i: int) -> tuple[int, int]:
        """The piece of `text` between the safe cuts around position `i`: (start, end).

        >>> RULES[GPT4_SPLIT_PATTERN].piece_around("ab\\ncd\\nef", 4)
        (3, 6)
        """
        # The newline of a cut ends the piece before it, or starts the piece after it.
        shift = 1 if self.newline_before_cut else 0
        start, j = 0, i
        while (j := text.rfind("\n", 0, j)) >= 0:      # back to the last cut before i
            if self.cut_str.match(text, j):
                start = j + shift
                break
        after = self.cut_str.search(text, i)        # the first cut after i
        return start, (after.start() + shift if after else len(text))

    @functools.cached_property
    def ascii_pattern(self) -> re.Pattern | None:
        # Python's re learned possessive quantifiers (`++`) in 3.11.
        return re.compile(self.ascii) if sys.version_info >= (3, 11) else None


# Why these cuts are safe (tests check all three on random text):
# - GPT-4: a newline followed by optional spaces/tabs and a visible character.
#   Every alternative that can hold a "\n" ends at the last newline of its run
#   (`[\r\n]*+`, `\s*[\r\n]`), and `\s++$` at the end of a piece takes the same
#   run that `\s*[\r\n]` takes in the whole text.
# - GPT-4o: the same, except that punctuation takes newlines *and slashes*
#   (`[\r\n/]*`), so "\n/" is not a boundary.
# - GPT-2: has no `\s*[\r\n]`; a run of whitespace gives its last character to
#   the next token, so we cut *before* a newline that is followed by a visible
#   character, and that newline starts the next piece.
# Indentation (GPT-4 and GPT-4o): after such a cut, a run of k >= 2 spaces and
# tabs before a visible character splits as its first k - 1 characters (only
# `\s+(?!\S)` matches there, and it leaves the last one), then the rest of the
# piece from the last one on, split as if it began there. So `indent` captures
# those k - 1 characters (backtracking one short of the visible character) as a
# token of their own (or None, when there is no space or tab to leave behind),
# and "        return" and "    return" leave the same piece, " return".
RULES: dict[str, SplitRules] = {
    GPT4_SPLIT_PATTERN: SplitRules(
        cut=r"\n(?=[ \t]*[!-~])", newline_before_cut=True,
        indent=r"\n(?:([ \t]*)(?=[ \t][!-~])|(?=[!-~]))",
        ascii=(rf"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+"
               rf"| ?[^{_WS}A-Za-z0-9]++[\r\n]*+|[{_WS}]++$|[{_WS}]*[\r\n]"
               rf"|[{_WS}]+(?![^{_WS}])|[{_WS}]")),
    GPT4O_SPLIT_PATTERN: SplitRules(
        cut=r"\n(?=[ \t]+[!-~]|[!-.0-~])", newline_before_cut=True,
        indent=r"\n(?:([ \t]*)(?=[ \t][!-~])|(?=[!-.0-~]))",
        ascii=(r"[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
               r"|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
               rf"|[0-9]{{1,3}}| ?[^{_WS}A-Za-z0-9]+[\r\n/]*|[{_WS}]*[\r\n]+"
               rf"|[{_WS}]+(?![^{_WS}])|[{_WS}]+")),
    GPT2_SPLIT_PATTERN: SplitRules(
        cut=r"\n(?=[!-~])", newline_before_cut=False,
        ascii=(rf"'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^{_WS}A-Za-z0-9]++"
               rf"|[{_WS}]++$|[{_WS}]+(?![^{_WS}])|[{_WS}]")),
}


@functools.lru_cache(maxsize=16)
def compiled(pattern: str) -> regex.Pattern:
    return regex.compile(pattern)


def split_out_specials(text: str, special_tokens: Iterable[str]) -> list[str]:
    """The pieces of `text` between special tokens (the tokens themselves dropped).

    >>> split_out_specials("a<|eot|>b<|eot|>", ["<|eot|>"])
    ['a', 'b', '']
    >>> split_out_specials("a|b", [])          # no tokens: no splitting at all
    ['a|b']
    """
    pattern = special_pattern(special_tokens)
    return [text] if pattern is None else pattern.split(text)


def count_pretokens(text: str, pattern: str = GPT4_SPLIT_PATTERN,
                    special_tokens: Iterable[str] = ()) -> Counter:
    """How often each pre-token occurs in `text`, special tokens left out.

    Equal to `Counter(t for piece in split_out_specials(text, special_tokens)
    for t in regex.findall(pattern, piece))`, only faster.
    """
    rules = RULES.get(pattern)
    pieces: Counter = Counter()     # pieces known to be safe to join in any order
    edges: Counter = Counter()      # first and last pieces: split on their own
    indents: Counter = Counter()    # indentation cut off the pieces: pre-tokens already
    for segment in split_out_specials(text, special_tokens):
        if rules and rules.indent_cut:
            # split() puts each cut's captured indentation between the pieces
            # (None or "" where there is none to cut off).
            parts = rules.indent_cut.split(segment)
            indents.update(filter(None, parts[1::2]))
            parts = parts[::2]
        else:
            parts = rules.cut_str.split(segment) if rules else [segment]
        if len(parts) == 1:
            edges[segment] += 1
            continue
        if rules.newline_before_cut:       # parts lost their "\n" to split()
            edges[parts[0] + "\n"] += 1
            edges[parts[-1]] += 1
        else:
            edges[parts[0]] += 1
            edges["\n" + parts[-1]] += 1
        pieces.update(parts[1:-1])
    counts: Counter = indents       # the cut-off indentations are counted already; add the rest
    for piece, n in edges.items():
        _add(counts, _findall(piece, pattern, rules), n)
    # Pieces that occur equally often are split together: one findall per group,
    # or two when some are not ASCII (those go to `regex`, the others to `re`).
    groups: defaultdict[int, list[str]] = defaultdict(list)
    for piece, n in pieces.items():
        groups[n].append(piece)
    for n, group in groups.items():
        ascii_part = list(filter(str.isascii, group))
        other = list(filterfalse(str.isascii, group)) if len(ascii_part) < len(group) else []
        for part in (ascii_part, other):
            if part:
                joined = "\n".join(part)
                joined = joined + "\n" if rules.newline_before_cut else "\n" + joined
                _add(counts, _findall(joined, pattern, rules), n)
    return counts


def prepare_split(pattern: str) -> None:
    """Compile now what `split_pretokens` needs for `pattern` (the `re` copy of a GPT
    pattern), so that a tokenizer's first split does not pay for it (about 0.6 ms)."""
    rules = RULES.get(pattern)
    if rules is not None:
        rules.ascii_pattern


def split_pretokens(text: str, pattern: str | regex.Pattern = GPT4_SPLIT_PATTERN) -> list[str]:
    """The pre-tokens of `text` in order: `regex.findall(pattern, text)`, about twice as fast.

    The encoders use this; `pattern` is a pattern string or a compiled `regex`
    pattern. Pure-ASCII text is split by the `re` copy of the pattern (idea 3),
    and so is text whose only other characters are typographic punctuation
    (`_PUNCTUATION`: curly quotes, dashes, ...), which both engines treat alike.
    In other text, each other character outside ASCII is found, and only the
    piece around it, from the safe line break before it to the one after it
    (`RULES`), goes to `regex`; the stretches between such pieces go to `re`.
    Both engines scan a stretch in place (`findall(text, start, end)`), as if
    it were the whole text, so nothing is copied. Where such pieces are most of
    the text (German, Russian, Chinese, ...), going piece by piece costs more
    than it saves, so once they have been more than half of the first
    `_DENSE_AFTER` characters, `regex` splits the rest whole.

    >>> split_pretokens("naïve\\ncafé 123\\nplain ascii")
    ['naïve', '\\n', 'café', ' ', '123', '\\n', 'plain', ' ascii']
    """
    full = pattern if isinstance(pattern, regex.Pattern) else compiled(pattern)
    rules = RULES.get(full.pattern)
    if rules is None or rules.ascii_pattern is None:
        return full.findall(text)
    ascii_findall = rules.ascii_pattern.findall
    if text.isascii() or (m := _NEEDS_REGEX.search(text)) is None:
        return ascii_findall(text)
    out: list[str] = []
    pos = 0                                  # everything before pos is split
    by_regex = 0                             # how much of it `regex` split
    while m is not None:
        start, end = rules.piece_around(text, m.start())
        if start > pos:
            out += ascii_findall(text, pos, start)
        out += full.findall(text, start, end)
        by_regex += end - start
        pos = end
        if pos > _DENSE_AFTER and 2 * by_regex > pos:
            out += full.findall(text, pos)         # pos is a safe cut, as `end` always is
            return out
        m = _NEEDS_REGEX.search(text, pos)
    out += ascii_findall(text, pos)
    return out


# Typographic punctuation (« », dashes, curly quotes, …) is neither a letter, a digit, a
# mark nor whitespace, so the patterns treat it as they treat ASCII punctuation, and so do
# the `re` copies, whose classes (`[^A-Za-z0-9...]`) take in every character outside ASCII.
# Text of ASCII and these characters is split by `re` alone; any other character is found
# by `_NEEDS_REGEX` and goes to `regex`, with the piece around it.
_PUNCTUATION = "\u00ab\u00bb\u2010-\u2027"
_NEEDS_REGEX = re.compile(f"[^\\x00-\\x7f{_PUNCTUATION}]")
_DENSE_AFTER = 2_000      # characters split before `split_pretokens` judges the text dense


def _findall(text: str, pattern: str, rules: SplitRules | None) -> list[str]:
    if rules is not None and rules.ascii_pattern is not None and text.isascii():
        return rules.ascii_pattern.findall(text)
    return compiled(pattern).findall(text)


def _add(counts: Counter, tokens: list[str], n: int) -> None:
    """Add each of `tokens` n times to `counts`."""
    if n == 1:
        counts.update(tokens)           # counted in C
    else:
        for token, k in Counter(tokens).items():
            counts[token] += k * n
