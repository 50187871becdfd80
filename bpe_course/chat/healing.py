"""Token healing: back up over the prompt's last token and let the model choose it again.

A model continues a prompt one token at a time, and in training it only ever saw text
encoded as a whole. A prompt that stops in the middle of what would be one token (`http:`
where `://` is one token, or `' Par'` before `'is'`) ends on a token that the whole text
would not have: the model is asked to continue from a place it has rarely been, and
continuing it well means producing token sequences it was never trained on.

Token healing (Lundberg and Ribeiro's *guidance* library, 2023) removes the prompt's last
token and constrains the *first* generated token to those whose bytes start with the removed
bytes; from the second token on, generation is free. The model can then pick `://` itself.
No model is needed to see what healing allows: `extensions` lists the tokens that start
with some bytes, `heal` splits a prompt into the ids kept and the tokens allowed next.

>>> from bpe_course import GPT4Tokenizer
>>> tok = GPT4Tokenizer("cl100k_base")
>>> healed = heal(tok, '<a href="http:')
>>> healed.removed, tok.decode(healed.ids)
(b':', '<a href="http')
>>> tok.encode_single_token("://") in healed.allowed
True

Subtle: it is the *bytes* that must match, not the text. A token may end in the middle of a
UTF-8 character; its extensions are the tokens that start with those same bytes.

tiktoken's `Encoding.encode_with_unstable` answers the question underneath: which last tokens
of an encoding could still change if text were appended (its "unstable" tail), and which token
sequences could replace them. When the tail is one token, its one-token completions are
exactly `heal`'s allowed tokens (tests/story/chat/test_healing.py checks this against tiktoken).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def extensions(vocab: Mapping[int, bytes], prefix: bytes) -> list[int]:
    """The ids of the tokens whose bytes start with `prefix` (itself included, if it is a
    token), in the order of their bytes.

    >>> extensions({0: b"a", 1: b"ab", 2: b"b", 3: b"abc"}, b"ab")
    [1, 3]
    """
    if not isinstance(prefix, bytes):
        raise TypeError(f"prefix must be bytes (a token's bytes), got {type(prefix).__name__}")
    return sorted((i for i, b in vocab.items() if b.startswith(prefix)),
                  key=lambda i: vocab[i])


@dataclass(frozen=True)
class Healed:
    """A prompt made ready for token healing."""
    ids: list[int]       # the prompt's ids without the tokens backed up over
    removed: bytes       # the bytes of those tokens: the model must write them again
    allowed: list[int]   # the tokens the model may generate first (they start with `removed`)


def heal(tokenizer, prompt: str, back: int = 1) -> Healed:
    """Encode `prompt` as ordinary text, back up over its last `back` tokens, and list the
    first tokens that may replace them: those whose bytes start with the removed bytes.

    `tokenizer` is one of the course's byte-level tokenizers (`encode_ordinary` and a
    `vocab` of id -> bytes, such as `GPT4Tokenizer` or `RegexTokenizer`).

    Subtle: special tokens are never allowed, though their strings may start with the removed
    bytes (`<|` starts `<|endoftext|>`): the removed bytes are text, and a special token's id
    is not its text (chapter 05)."""
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    if not isinstance(back, int) or isinstance(back, bool) or back < 1:
        raise ValueError(f"back must be a whole number of tokens, at least 1; got {back!r}")
    ids = tokenizer.encode_ordinary(prompt)
    if len(ids) < back:
        raise ValueError(f"the prompt has {len(ids)} tokens, fewer than back={back}: "
                         "there is nothing to back up over")
    kept, tail = ids[:len(ids) - back], ids[len(ids) - back:]
    removed = b"".join(tokenizer.vocab[i] for i in tail)
    special = set(getattr(tokenizer, "special_tokens", {}).values())
    ordinary = {i: b for i, b in tokenizer.vocab.items() if i not in special}
    return Healed(kept, removed, extensions(ordinary, removed))
