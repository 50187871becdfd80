"""Seeing tokens: coloured token views (as in the tiktokenizer web app) and merge trees.

`pieces(tokenizer, text)` is the one-line version for tables: `Hello|␣world|!↵`.
`show_tokens(tokenizer, text)` returns an object that Jupyter displays as
coloured HTML and that prints as plain text with `|` between tokens, so it
also works in a terminal and in stored notebook outputs. It accepts the
course's tokenizers and `tiktoken.Encoding`s alike.

`compare_tokens(text)` shows one text side by side under GPT-2, GPT-4 and
GPT-4o (or any tokenizers you pass), which is what people open the
tiktokenizer page for.

>>> from bpe_course import GPT4Tokenizer
>>> print(show_tokens(GPT4Tokenizer(), "Hello world!"))
Hello| world|!   (3 tokens, 12 characters)
>>> print(compare_tokens("    x = 100000"))
GPT-2 (r50k_base): 7 tokens
 | | | x| =| 100|000
GPT-4 (cl100k_base): 6 tokens
   | x| =| |100|000
GPT-4o (o200k_base): 6 tokens
   | x| =| |100|000
"""

from __future__ import annotations

import html

# Soft background colours that keep black text readable; neighbours always differ.
COLOURS = ["#fde2a1", "#b8e0d2", "#f6c6c7", "#c9d7f8", "#d8c9f0", "#f9d5b3", "#c6ecae"]


def tokens_as_bytes(tokenizer, ids: list[int]) -> list[bytes]:
    """The bytes of each id, for a course tokenizer, a tiktoken Encoding or a
    `SentencePieceBPE` (chapter 11)."""
    if hasattr(tokenizer, "decode_single_token_bytes"):      # tiktoken
        return [tokenizer.decode_single_token_bytes(i) for i in ids]
    if hasattr(tokenizer, "piece_bytes"):                    # SentencePiece
        return [tokenizer.piece_bytes(i) for i in ids]
    return [tokenizer.decode_bytes([i]) for i in ids]


def pieces(tokenizer, text: str) -> str:
    """The ordinary tokens of `text` joined by "|", spaces shown as ␣ and newlines as ↵.

    >>> from bpe_course import get_encoding
    >>> pieces(get_encoding("cl100k_base"), "Hello world!\\n")
    'Hello|␣world|!↵'
    """
    parts = tokens_as_bytes(tokenizer, tokenizer.encode_ordinary(text))
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
    return TokenView(tokens_as_bytes(tokenizer, ids), ids)


# The encodings the chapters compare, with the model each belongs to.
LABELS = {"gpt2": "GPT-2", "r50k_base": "GPT-2", "p50k_base": "Codex",
          "cl100k_base": "GPT-4", "o200k_base": "GPT-4o"}


class Comparison:
    """Token views of one text under several tokenizers: side by side in Jupyter, stacked as text."""

    def __init__(self, views: dict[str, TokenView]):
        self.views = views

    @property
    def counts(self) -> dict[str, int]:
        """How many tokens each tokenizer needs for the text."""
        return {label: len(view.ids) for label, view in self.views.items()}

    def __str__(self) -> str:
        return "\n".join(f"{label}: {len(view.ids)} tokens\n" + "|".join(view._texts())
                         for label, view in self.views.items())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        panels = [f'<div style="flex:1;min-width:12em"><b>{html.escape(label)}</b>'
                  f"{view._repr_html_()}</div>" for label, view in self.views.items()]
        return ('<div style="display:flex;gap:1.5em;align-items:flex-start">'
                + "".join(panels) + "</div>")


def compare_tokens(text: str, tokenizers=("r50k_base", "cl100k_base", "o200k_base")) -> Comparison:
    """`text` under each of `tokenizers` (encoding names, tokenizers, or a dict label -> either).

    Names are loaded offline with `get_encoding` and labelled with their
    model ("GPT-4 (cl100k_base)").
    """
    from .openai.encodings import get_encoding
    if not isinstance(tokenizers, dict):
        tokenizers = {_label(t): t for t in tokenizers}
    views = {}
    for label, tok in tokenizers.items():
        views[label] = show_tokens(get_encoding(tok) if isinstance(tok, str) else tok, text)
    return Comparison(views)


def _label(tok) -> str:
    name = tok if isinstance(tok, str) else getattr(tok, "name", type(tok).__name__)
    return f"{LABELS[name]} ({name})" if name in LABELS else name


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
