"""Pre-tokenizers: cutting the normalized text into words, each with its alignments.

A pre-tokenizer takes the pieces so far (`Split`s: a `NormalizedString`, and its tokens
once an added token or the model has found them) and cuts each piece that has no tokens
yet into smaller ones, dropping the empty ones. What it cuts at is a list of spans
flagged as delimiter or not (`normalized.char_matches`, `regex_matches`), and what
happens to a delimiter is a *behavior*: Removed, Isolated, MergedWithPrevious,
MergedWithNext or Contiguous (`NormalizedString.split`).

The ones a `tokenizer.json` names: `ByteLevel` (GPT-2: its regex, then every byte as a
printable character), `Whitespace` (`\\w+|[^\\w\\s]+`), `WhitespaceSplit`, `Metaspace`
(SentencePiece's "▁"), `Split` (any pattern), `CharDelimiterSplit`, `FixedLength`,
`Digits`, `Punctuation`, `BertPreTokenizer`, and `Sequence`.

>>> from .normalized import NormalizedString
>>> pieces = [Split(NormalizedString("Hello, world!"))]
>>> pieces = Whitespace()(pieces)
>>> [(p.normalized.normalized, p.normalized.original_span_all()) for p in pieces]
[('Hello', (0, 5)), (',', (5, 6)), ('world', (7, 12)), ('!', (12, 13))]
"""

from __future__ import annotations

import unicodedata

import regex

from ..openai.byte_map import BYTE_TO_CHAR
from ..patterns import GPT2_SPLIT_PATTERN
from ..wordpiece.normalizer import WHITESPACE
from ..wordpiece.pretokenizer import is_punctuation
from .normalized import NormalizedString, char_matches, regex_matches


class Split:
    """A piece of the text: its NormalizedString and, once found, its tokens."""

    def __init__(self, normalized: NormalizedString, tokens: list | None = None):
        self.normalized, self.tokens = normalized, tokens

    def __repr__(self) -> str:
        return f"Split({self.normalized.normalized!r}, tokens={self.tokens})"


def split_each(splits: list[Split], cut) -> list[Split]:
    """Apply `cut` (NormalizedString -> list of them) to each piece without tokens."""
    out = []
    for split in splits:
        if split.tokens is not None:
            out.append(split)
            continue
        out.extend(Split(piece) for piece in cut(split.normalized) if piece.normalized)
    return out


def is_whitespace(char: str) -> bool:
    return char in WHITESPACE


def is_numeric(char: str) -> bool:
    """Rust's `char::is_numeric`: Unicode's N categories."""
    return unicodedata.category(char) in ("Nd", "Nl", "No")


# onig's Unicode \w and \s, which `tokenizers` uses
WORD = r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]"
SPACE = r"\p{White_Space}"
WHITESPACE_RE = regex.compile(rf"{WORD}+|[^{WORD[1:-1]}{SPACE}]+")
GPT2_RE = regex.compile(GPT2_SPLIT_PATTERN)


class ByteLevel:
    """GPT-2's pre-tokenizer: an optional space in front, GPT-2's regex, then each byte of
    each piece written as one printable character (`openai.byte_map`)."""

    def __init__(self, add_prefix_space=True, trim_offsets=True, use_regex=True):
        self.add_prefix_space, self.use_regex = add_prefix_space, use_regex
        self.trim_offsets = trim_offsets

    def __call__(self, splits: list[Split]) -> list[Split]:
        def cut(s: NormalizedString):
            if self.add_prefix_space and not s.normalized.startswith(" "):
                s.prepend(" ")
            if self.use_regex:
                return s.split(regex_matches(s.normalized, GPT2_RE), "Isolated")
            return [s]
        splits = split_each(splits, cut)
        for split in splits:
            if split.tokens is None:       # each character becomes its UTF-8 bytes
                split.normalized.transform((BYTE_TO_CHAR[b], 1 if k else 0)
                                           for char in split.normalized.normalized
                                           for k, b in enumerate(char.encode("utf-8")))
        return splits


class Whitespace:
    """Words (`\\w+`) and runs of other non-space characters; spaces dropped."""

    def __call__(self, splits):
        return split_each(splits, lambda s: s.split(
            [(span, not hit) for span, hit in regex_matches(s.normalized, WHITESPACE_RE)],
            "Removed"))


class WhitespaceSplit:
    def __call__(self, splits):
        return split_each(splits, lambda s: s.split(char_matches(s.normalized, is_whitespace),
                                                    "Removed"))


class CharDelimiterSplit:
    """Split at one character, which is dropped."""

    def __init__(self, delimiter: str):
        self.delimiter = delimiter

    def __call__(self, splits):
        return split_each(splits, lambda s: s.split(
            char_matches(s.normalized, lambda c: c == self.delimiter), "Removed"))


class FixedLength:
    """Pieces of `length` characters (the last one shorter)."""

    def __init__(self, length: int = 5):
        if not isinstance(length, int) or length < 1:
            raise ValueError(f"FixedLength needs a length of at least 1, not {length!r}")
        self.length = length

    def __call__(self, splits):
        return split_each(splits, lambda s: [s.slice(i, i + self.length)
                                             for i in range(0, len(s.normalized), self.length)])


class BertPreTokenizer:
    """Split at whitespace (dropped), then each punctuation character alone."""

    def __call__(self, splits):
        splits = WhitespaceSplit()(splits)
        return Punctuation("Isolated")(splits)


class Punctuation:
    def __init__(self, behavior: str = "Isolated"):
        self.behavior = behavior

    def __call__(self, splits):
        return split_each(splits, lambda s: s.split(char_matches(s.normalized, is_punctuation),
                                                    self.behavior))


class Digits:
    """Digits apart from the rest: each alone (`individual_digits`) or in runs."""

    def __init__(self, individual_digits: bool = False):
        self.behavior = "Isolated" if individual_digits else "Contiguous"

    def __call__(self, splits):
        return split_each(splits, lambda s: s.split(char_matches(s.normalized, is_numeric),
                                                    self.behavior))


class Metaspace:
    """SentencePiece's spaces: each " " becomes `replacement` ("▁"), which is put in
    front ("always", or "first": only before the text's first piece), and (with `split`)
    each "▁" starts a new piece."""

    def __init__(self, replacement="▁", prepend_scheme="always", split=True):
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def __call__(self, splits):
        def cut(s: NormalizedString):
            s.replace_matches([(i, i + 1) for i, c in enumerate(s.normalized) if c == " "],
                              self.replacement)
            if not s.normalized.startswith(self.replacement) and (
                    self.prepend_scheme == "always"
                    or self.prepend_scheme == "first" and s.original_start == 0):
                s.prepend(self.replacement)
            if self.split:
                return s.split(char_matches(s.normalized, lambda c: c == self.replacement),
                               "MergedWithNext")
            return [s]
        return split_each(splits, cut)


class SplitPattern:
    """`tokenizers`' `Split`: cut at the matches of a regex (a literal string is escaped),
    with a behavior; `invert` makes the text between matches the delimiters."""

    def __init__(self, pattern, behavior: str, invert: bool = False):
        self.pattern, self.behavior, self.invert = pattern, behavior, invert

    def __call__(self, splits):
        def cut(s: NormalizedString):
            matches = regex_matches(s.normalized, self.pattern)
            if self.invert:
                matches = [(span, not hit) for span, hit in matches]
            return s.split(matches, self.behavior)
        return split_each(splits, cut)


class Sequence:
    def __init__(self, steps: list):
        self.steps = steps

    def __call__(self, splits):
        for step in self.steps:
            splits = step(splits)
        return splits
