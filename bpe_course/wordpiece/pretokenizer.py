"""BERT's pre-tokenizer: words are split at whitespace (dropped) and punctuation (kept alone).

Like the regex pre-tokenization of chapter 04, this cuts the text into words that the
model then splits on its own; unlike it, there is no pattern, just two rules:

- whitespace (Unicode's White_Space) separates words and is dropped;
- every punctuation character is a word of its own: ASCII punctuation (so `$`, `+`, `^`,
  which Unicode calls symbols, count) or Unicode's P categories (in `tokenizers`' tables).

>>> pretokenize("Hey friend!   How are you?!?")
[('Hey', 0, 3), ('friend', 4, 10), ('!', 10, 11), ('How', 14, 17), ('are', 18, 21), ('you', 22, 25), ('?', 25, 26), ('!', 26, 27), ('?', 27, 28)]
"""

from __future__ import annotations

from .categories import PUNCTUATION, is_in
from .normalizer import WHITESPACE

ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def is_punctuation(char: str) -> bool:
    """BERT's punctuation: ASCII punctuation, or Unicode's P categories."""
    return char in ASCII_PUNCTUATION or is_in(PUNCTUATION, char)


def pretokenize(text: str) -> list[tuple[str, int, int]]:
    """The words of `text` as `(word, start, end)`, with character offsets into `text`."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    words, start = [], None
    for i, char in enumerate(text):
        if char in WHITESPACE or is_punctuation(char):
            if start is not None:
                words.append((text[start:i], start, i))
                start = None
            if char not in WHITESPACE:
                words.append((char, i, i + 1))
        elif start is None:
            start = i
    if start is not None:
        words.append((text[start:], start, len(text)))
    return words
