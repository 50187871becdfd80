"""Post-processors: what is added around the model's tokens, and offsets tidied.

The model's tokens for one text are `(id, token, (start, end))` triples. A post-processor
may put special tokens around them (their offsets are `(0, 0)`: they stand for no text):

- `Template` (`TemplateProcessing`): a template such as `[CLS] $A [SEP]`;
- `BertProcessing`: `[CLS] $A [SEP]`; `RobertaProcessing`: `<s> $A </s>`, and, like
  `ByteLevel`, it can trim the offsets of tokens that start or end with spaces
  (`trim_offsets`), so that " world" points at "world".

>>> Template([[("[CLS]", 1)], None, [("[SEP]", 2)]])([(7, "hi", (0, 2))])
[(1, '[CLS]', (0, 0)), (7, 'hi', (0, 2)), (2, '[SEP]', (0, 0))]
"""

from __future__ import annotations

from ..openai.byte_map import BYTE_TO_CHAR
from ..wordpiece.normalizer import WHITESPACE

SPACE = BYTE_TO_CHAR[ord(" ")]          # "Ġ"


def trim_offsets(tokens: list, add_prefix_space: bool) -> list:
    """`tokenizers`' ByteLevel `process_offsets`: leading and trailing spaces ("Ġ" or
    whitespace) of a token are left out of its offsets; a first token keeps one leading
    space when `add_prefix_space` put it there."""
    out = []
    for n, (i, token, (start, end)) in enumerate(tokens):
        lead = len(token) - len(token.lstrip(SPACE + "".join(WHITESPACE)))
        trail = len(token) - len(token.rstrip(SPACE + "".join(WHITESPACE)))
        if lead and (n == 0 or start == 0) and add_prefix_space and lead == 1:
            lead = 0
        if lead:
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        out.append((i, token, (start, end)))
    return out


class Template:
    """A template for one text: a list whose items are `None` for the text's own tokens
    and, for a special token, its `(token, id)` pairs (usually one)."""

    def __init__(self, items: list):
        self.items = items

    def __call__(self, tokens: list) -> list:
        out = []
        for item in self.items:
            if item is None:
                out.extend(tokens)
            else:
                out.extend((i, token, (0, 0)) for token, i in item)
        return out


class ByteLevel:
    def __init__(self, trim_offsets=True, add_prefix_space=True):
        self.trim, self.add_prefix_space = trim_offsets, add_prefix_space

    def __call__(self, tokens: list) -> list:
        return trim_offsets(tokens, self.add_prefix_space) if self.trim else tokens


class Roberta:
    """`<s> $A </s>`, with the offsets trimmed first (`trim_offsets`)."""

    def __init__(self, cls: tuple[str, int], sep: tuple[str, int], trim_offsets=True,
                 add_prefix_space=True):
        self.template = Template([[cls], None, [sep]])
        self.trim, self.add_prefix_space = trim_offsets, add_prefix_space

    def __call__(self, tokens: list) -> list:
        if self.trim:
            tokens = trim_offsets(tokens, self.add_prefix_space)
        return self.template(tokens)


class Sequence:
    def __init__(self, steps: list):
        self.steps = steps

    def __call__(self, tokens: list) -> list:
        for step in self.steps:
            tokens = step(tokens)
        return tokens
