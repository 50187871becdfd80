"""A normalized string that remembers where each of its characters came from.

Every step before the model may change the text: NFKC turns "ﬁ" into "fi", a lowercaser
turns "Straße" into "straße", Metaspace turns spaces into "▁", ByteLevel turns "é" into
"Ã©". Yet a token's offsets must point into the text the user gave. `NormalizedString`
keeps, for each character of the current text, the span of original characters it stands
for (`alignments`), and every change goes through one method, `transform`, which keeps
them up to date.

`transform` takes the new characters, each with a *change*, as `tokenizers` does:

- `0`: this character replaces the next old one (it takes that one's span);
- `+1`: this character is new (it takes the span of the old character before it);
- `-n`: this character replaces the next old one, and the `n` old ones after it are
  dropped (it keeps only the first one's span: the dropped characters' spans are lost).

>>> s = NormalizedString("ﬁne")
>>> s.transform([("f", 0), ("i", 1), ("n", 0), ("e", 0)])
>>> s.normalized, s.alignments
('fine', [(0, 1), (0, 1), (1, 2), (2, 3)])
>>> s.original_span(1, 3)              # "in" comes from "ﬁn"
(0, 2)

Pre-tokenizers cut it into pieces (`split`) that keep their alignments, so a token found
in a piece still knows its place in the original text. Offsets here count characters
(Python's `str` indices), as `tokenizers`' Python `offsets` do.
"""

from __future__ import annotations

from typing import Iterable

from ..wordpiece.normalizer import WHITESPACE


class NormalizedString:
    """The text after normalization, with each character's span in the original text."""

    def __init__(self, original: str, start: int = 0):
        self.normalized = original
        # (start, end) in the ORIGINAL text for each character of `normalized`
        self.alignments = [(start + i, start + i + 1) for i in range(len(original))]
        # where this piece starts and ends in the original text
        self.original_start, self.original_end = start, start + len(original)

    def __repr__(self) -> str:
        return f"NormalizedString({self.normalized!r}, from {self.original_span_all()})"

    def original_span_all(self) -> tuple[int, int]:
        return self.original_start, self.original_end

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span in the original text of the normalized characters `start:end`."""
        if start >= end:
            return self.original_start + start, self.original_start + end
        return self.alignments[start][0], self.alignments[end - 1][1]

    # -- changing the text ------------------------------------------------------------
    def transform(self, dest: Iterable[tuple[str, int]], initial_offset: int = 0,
                  start: int = 0, end: int | None = None) -> None:
        """Replace characters `start:end` (all by default) by `dest`, `(char, change)` pairs.

        `initial_offset` old characters at the front are dropped before the first new one."""
        end = len(self.normalized) if end is None else end
        old = self.alignments
        cursor = start + initial_offset          # the next old character to consume
        chars, spans = [], []
        for char, change in dest:
            if change > 0:                       # a new character: the span before it
                span = old[cursor - 1] if cursor >= 1 else (self.original_start,
                                                            self.original_start)
            else:
                span = old[cursor]
                cursor += 1 - change             # itself, and `-change` dropped after it
            chars.append(char)
            spans.append(span)
        self.normalized = self.normalized[:start] + "".join(chars) + self.normalized[end:]
        self.alignments = old[:start] + spans + old[end:]

    def map_chars(self, fn) -> None:
        """Replace each character by `fn(char)`, a string of one or more characters."""
        self.transform((c, 1 if k else 0) for char in self.normalized
                       for k, c in enumerate(fn(char)))

    def filter(self, keep) -> None:
        """Keep only the characters for which `keep(char)` is true (as `tokenizers`' filter)."""
        transforms, removed, removed_start, last = [], 0, 0, None
        for char in self.normalized:
            if keep(char):
                if last is None:
                    removed_start = removed
                else:
                    transforms.append((last, -removed))
                last, removed = char, 0
            else:
                removed += 1
        if last is not None:
            transforms.append((last, -removed))
        self.transform(transforms, removed_start if last is not None else removed)

    def prepend(self, text: str) -> None:
        """Put `text` in front; it takes the span of the first character."""
        if self.normalized:
            first = self.normalized[0]
            dest = [(c, 1 if i else 0) for i, c in enumerate(text)] + [(first, 1)]
            self.transform(dest, 0, 0, 1)

    def strip(self, left: bool = True, right: bool = True) -> None:
        """Remove leading and/or trailing whitespace (Rust's `char::is_whitespace`)."""
        text, spaces = self.normalized, "".join(WHITESPACE)
        lead = len(text) - len(text.lstrip(spaces)) if left else 0
        trail = len(text) - len(text.rstrip(spaces)) if right else 0
        if not (lead or trail):
            return
        if lead >= len(text):
            self.transform([], len(text))
            return
        kept = range(lead, len(text) - trail)
        self.transform([(text[i], -trail if i == kept[-1] else 0) for i in kept], lead)

    def replace_matches(self, matches: list[tuple[int, int]], content: str) -> None:
        """Replace each span `(start, end)` of the normalized text by `content`: its
        characters are all new (+1), so they take the span of the character before."""
        for start, end in reversed(matches):
            self.transform([(c, 1) for c in content], end - start, start, end)

    # -- cutting into pieces ----------------------------------------------------------
    def slice(self, start: int, end: int) -> "NormalizedString":
        """Characters `start:end` of the normalized text, with their alignments."""
        piece = NormalizedString.__new__(NormalizedString)
        piece.normalized = self.normalized[start:end]
        piece.alignments = self.alignments[start:end]
        if piece.alignments:
            piece.original_start = piece.alignments[0][0]
            piece.original_end = piece.alignments[-1][1]
        else:
            piece.original_start = piece.original_end = self.original_start + start
        return piece

    def split(self, matches: list[tuple[tuple[int, int], bool]], behavior: str) -> list:
        """Cut at `matches` (spans covering the text, each flagged as a delimiter or not),
        treating the delimiters as `behavior` says, one of `tokenizers`' names:
        Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous."""
        if behavior == "Isolated":
            splits = [(span, False) for span, _ in matches]
        elif behavior == "Removed":
            splits = list(matches)
        elif behavior == "Contiguous":
            splits, previous = [], False
            for span, is_match in matches:
                if is_match == previous and splits:
                    splits[-1] = ((splits[-1][0][0], span[1]), False)
                else:
                    splits.append((span, False))
                previous = is_match
        elif behavior == "MergedWithPrevious":
            splits, previous = [], False
            for span, is_match in matches:
                if is_match and not previous and splits:
                    splits[-1] = ((splits[-1][0][0], span[1]), False)
                else:
                    splits.append((span, False))
                previous = is_match
        elif behavior == "MergedWithNext":
            splits, previous = [], False
            for span, is_match in reversed(matches):
                if is_match and not previous and splits:
                    splits[-1] = ((span[0], splits[-1][0][1]), False)
                else:
                    splits.append((span, False))
                previous = is_match
            splits.reverse()
        else:
            raise ValueError(f"unknown split behavior {behavior!r}")
        return [self.slice(a, b) for (a, b), remove in splits if not remove]


# -- what to cut at: `tokenizers`' Pattern::find_matches, in characters ------------------

def char_matches(text: str, is_delimiter) -> list[tuple[tuple[int, int], bool]]:
    """Spans covering `text`, each character for which `is_delimiter` is true on its own."""
    if not text:
        return [((0, 0), False)]
    out, last = [], 0
    for i, char in enumerate(text):
        if is_delimiter(char):
            if last < i:
                out.append(((last, i), False))
            out.append(((i, i + 1), True))
            last = i + 1
    if last < len(text):
        out.append(((last, len(text)), False))
    return out


def regex_matches(text: str, compiled) -> list[tuple[tuple[int, int], bool]]:
    """Spans covering `text`: every match of the compiled regex, and the text between."""
    if not text:
        return [((0, 0), False)]
    out, prev = [], 0
    for m in compiled.finditer(text):
        if prev != m.start():
            out.append(((prev, m.start()), False))
        out.append(((m.start(), m.end()), True))
        prev = m.end()
    if prev != len(text):
        out.append(((prev, len(text)), False))
    return out
