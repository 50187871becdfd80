"""Seeing tokens: coloured token views (as in the tiktokenizer web app) and merge trees.

`pieces(tokenizer, text)` is the one-line version for tables: `Hello|␣world|!↵`.
`show_tokens(tokenizer, text)` returns an object that Jupyter displays as
coloured HTML and that prints as plain text with `|` between tokens, so it
also works in a terminal and in stored notebook outputs. It accepts the
course's tokenizers and `tiktoken.Encoding`s alike.

>>> from bpe_course import GPT4Tokenizer
>>> print(show_tokens(GPT4Tokenizer(), "Hello world!"))
Hello| world|!   (3 tokens, 12 characters)
"""

from __future__ import annotations

import html

# Soft background colours that keep black text readable; neighbours always differ.
COLOURS = ["#fde2a1", "#b8e0d2", "#f6c6c7", "#c9d7f8", "#d8c9f0", "#f9d5b3", "#c6ecae"]


def token_bytes(tokenizer, ids: list[int]) -> list[bytes]:
    """The bytes of each id, for a course tokenizer or a tiktoken Encoding."""
    if hasattr(tokenizer, "decode_single_token_bytes"):      # tiktoken
        return [tokenizer.decode_single_token_bytes(i) for i in ids]
    return [tokenizer.decode_bytes([i]) for i in ids]


def pieces(tokenizer, text: str) -> str:
    """The ordinary tokens of `text` joined by "|", spaces shown as ␣ and newlines as ↵.

    >>> from bpe_course import get_encoding
    >>> pieces(get_encoding("cl100k_base"), "Hello world!\\n")
    'Hello|␣world|!↵'
    """
    parts = token_bytes(tokenizer, tokenizer.encode_ordinary(text))
    texts = [p.decode("utf-8", errors="replace") for p in parts]
    return "|".join(texts).replace(" ", "␣").replace("\n", "↵")


def encode_any(tokenizer, text: str) -> list[int]:
    """Encode with special tokens allowed, whatever kind of tokenizer it is."""
    if hasattr(tokenizer, "special_tokens_set") or hasattr(tokenizer, "register_special_tokens"):
        return tokenizer.encode(text, allowed_special="all")
    return tokenizer.encode(text)


class TokenView:
    """Tokens of a text, shown coloured in Jupyter and with `|` separators as text."""

    def __init__(self, pieces: list[bytes], ids: list[int]):
        self.pieces = pieces
        self.ids = ids

    def _texts(self) -> list[str]:
        return [p.decode("utf-8", errors="replace") for p in self.pieces]

    def __str__(self) -> str:
        chars = len(b"".join(self.pieces).decode("utf-8", errors="replace"))
        return "|".join(self._texts()) + f"   ({len(self.ids)} tokens, {chars} characters)"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        spans = []
        for k, (text, idx) in enumerate(zip(self._texts(), self.ids)):
            shown = html.escape(text).replace("\n", "↵<br>").replace(" ", "&nbsp;")
            spans.append(f'<span title="{idx}" style="background:{COLOURS[k % len(COLOURS)]};'
                         f'color:#000;border-radius:3px;padding:1px 0">{shown}</span>')
        return ('<div style="font-family:monospace;line-height:1.8">' + "".join(spans)
                + f'<div style="color:#666;font-size:85%">{len(self.ids)} tokens</div></div>')


def show_tokens(tokenizer, text: str) -> TokenView:
    """Encode `text` (special tokens allowed) and return a view of its tokens."""
    ids = encode_any(tokenizer, text)
    return TokenView(token_bytes(tokenizer, ids), ids)


def merge_tree(tok, idx: int) -> str:
    """How a token is built from bytes, as an indented tree (uses `tok.merges`).

    >>> from bpe_course import BasicTokenizer
    >>> t = BasicTokenizer(); t.train("aaabdaaabac", 259)
    >>> print(merge_tree(t, 258))
    258 b'aaab'
    ├── 257 b'aaa'
    │   ├── 256 b'aa'
    │   │   ├── 97 b'a'
    │   │   └── 97 b'a'
    │   └── 97 b'a'
    └── 98 b'b'
    """
    parents = {new: pair for pair, new in tok.merges.items()}
    lines: list[str] = []

    def walk(i: int, prefix: str, child_prefix: str) -> None:
        lines.append(f"{prefix}{i} {tok.vocab[i]!r}")
        if i in parents:
            left, right = parents[i]
            walk(left, child_prefix + "├── ", child_prefix + "│   ")
            walk(right, child_prefix + "└── ", child_prefix + "    ")

    walk(idx, "", "")
    return "\n".join(lines)
