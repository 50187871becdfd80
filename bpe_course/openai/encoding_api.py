"""tiktoken's `Encoding` interface, on top of the course's tokenizer.

Code written for `tiktoken.Encoding` calls more than `encode` and `decode`:
batches, single tokens, offsets into the text, `n_vocab`, `eot_token`... The
mixin `EncodingAPI` adds all of them to a tokenizer that has `encode`,
`encode_ordinary`, `decode_bytes`, `vocab`, `special_tokens`,
`mergeable_ranks` and `pattern` (as `OpenAITokenizer` does), with tiktoken's
signatures, results and exceptions, so it can stand in for the real thing.

Nothing here is new BPE: each method is a few lines over what the course
already built. Two ideas are worth a look:

- `decode_with_offsets`: where each token starts in the decoded *text*.
  A token can begin in the middle of a character (GPT-4 has tokens made of
  UTF-8 continuation bytes); such a token is said to start at the character
  it completes. Counting characters is counting the bytes that are *not*
  continuation bytes (0x80-0xBF).
- `_encode_bytes`: encode bytes that may not be valid UTF-8 (the split
  pattern works on text, so tiktoken encodes the valid prefix as text and
  re-encodes its last piece together with the broken tail).

Where tiktoken raises `KeyError` (an unknown id or token) the course used to
raise `ValueError`; `UnknownTokenError` is both, so either `except` works.
"""

from __future__ import annotations

from .unstable import encode_with_unstable as _encode_with_unstable


class UnknownTokenError(KeyError, ValueError):
    """An id or token bytes that the vocabulary does not have (a KeyError and a ValueError)."""

    def __str__(self) -> str:                 # KeyError would show the repr of the message
        return str(self.args[0]) if self.args else ""


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


class EncodingAPI:
    """The methods of `tiktoken.Encoding` that go beyond encode and decode."""

    name: str

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- what tiktoken keeps in attributes ---------------------------------
    @property
    def _special_tokens(self) -> dict[str, int]:
        return self.special_tokens

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        return self.mergeable_ranks

    @property
    def _pat_str(self) -> str:
        return self.pattern

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self.special_tokens)

    @property
    def max_token_value(self) -> int:
        return max(max(self.mergeable_ranks.values()), max(self.special_tokens.values(), default=0))

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (ids may have gaps: cl100k has no 100256)."""
        return self.max_token_value + 1

    @property
    def eot_token(self) -> int:
        return self.special_tokens["<|endoftext|>"]

    def is_special_token(self, token: int) -> bool:
        assert isinstance(token, int)
        return token in self.inverse_special_tokens

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted."""
        return sorted(self.mergeable_ranks)

    # -- batches: one after the other (pure Python gains nothing from threads) --
    def encode_batch(self, text: list[str], *, num_threads: int = 8,
                     allowed_special=set(), disallowed_special="all") -> list[list[int]]:
        return [self.encode(t, allowed_special=allowed_special,
                            disallowed_special=disallowed_special) for t in text]

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        return [self.encode_ordinary(t) for t in text]

    def decode_batch(self, batch, *, errors: str = "replace", num_threads: int = 8) -> list[str]:
        return [self.decode(ids, errors=errors) for ids in batch]

    def decode_bytes_batch(self, batch, *, num_threads: int = 8) -> list[bytes]:
        return [self.decode_bytes(ids) for ids in batch]

    def encode_with_unstable(self, text: str, *, allowed_special=set(),  # noqa: B006 (tiktoken's)
                             disallowed_special="all") -> tuple[list[int], list[list[int]]]:
        """The stable tokens of `text`, and every token sequence that could replace the rest
        once text is appended (see `unstable`); the completions come sorted."""
        if "_sorted_token_bytes" not in self.__dict__:       # sorted once, kept
            self._sorted_token_bytes = sorted(self.mergeable_ranks)
        return _encode_with_unstable(self, text, allowed_special=allowed_special,
                                     disallowed_special=disallowed_special,
                                     sorted_token_bytes=self._sorted_token_bytes)

    def encode_to_numpy(self, text: str, *, allowed_special=set(), disallowed_special="all"):
        import numpy as np
        ids = self.encode(text, allowed_special=allowed_special,
                          disallowed_special=disallowed_special)
        return np.array(ids, dtype=np.uint32)

    # -- single tokens -----------------------------------------------------
    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a whole token, ordinary or special; UnknownTokenError if there is none."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        rank = self.mergeable_ranks.get(data)
        if rank is not None:
            return rank
        special = self.special_tokens.get(data.decode("utf-8", "replace"))
        if special is not None:
            return special
        raise UnknownTokenError(f"{bytes(data)!r} is not a single token of {self.name}")

    def decode_single_token_bytes(self, token: int) -> bytes:
        try:
            return self.vocab[token]
        except (KeyError, TypeError):
            raise UnknownTokenError(f"unknown token id {token!r}: {self.name} has no such "
                                    f"token") from None

    def decode_tokens_bytes(self, tokens) -> list[bytes]:
        """Each token's bytes: the view a token visualiser shows."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_bytes(self, tokens) -> bytes:
        try:
            return super().decode_bytes(tokens)
        except ValueError as error:           # an unknown id: tiktoken raises KeyError
            raise UnknownTokenError(str(error)) from None

    def decode(self, tokens, errors: str = "replace") -> str:
        # What Tokenizer.decode does; only the argument is named as in tiktoken.
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_with_offsets(self, tokens) -> tuple[str, list[int]]:
        """The text, and for each token the index in the text of the character it starts in.

        Raises UnicodeDecodeError if the tokens are not valid UTF-8 (as tiktoken does).
        """
        parts = self.decode_tokens_bytes(tokens)
        offsets, chars = [], 0
        for part in parts:
            # A token that starts with a continuation byte starts inside the previous character.
            offsets.append(max(0, chars - _is_continuation(part[0])))
            chars += sum(not _is_continuation(b) for b in part)
        return b"".join(parts).decode("utf-8", errors="strict"), offsets

    # -- bytes that need not be UTF-8 ----------------------------------------
    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE on one piece, with no split pattern and no special tokens."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        return self.encode_chunk(bytes(data)) if data else []

    def _encode_bytes(self, text: bytes) -> list[int]:
        """Encode bytes that may be broken UTF-8, as tiktoken does.

        The valid prefix is split and encoded as text. The invalid tail joins
        the last piece (and any whitespace-only tokens before it, since the
        split of trailing whitespace is not stable), and that join is BPE'd
        as one piece.
        """
        data = bytes(text)
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            valid = error.start
        pieces = self.compiled_pattern.findall(data[:valid].decode("utf-8"))
        ids = [self._encode_single_piece(p) for p in pieces]
        tail = data[valid:]
        # How many of the last ids to re-encode with the tail.
        flat = [i for piece in ids for i in piece]
        n_last = len(ids[-1]) if ids else 0

        def all_space(i: int) -> bool:
            return all(b in b" \n\t" for b in self.vocab[i])
        if n_last and all_space(flat[-n_last]):
            while n_last < len(flat) and all_space(flat[-n_last - 1]):
                n_last += 1
        if n_last:
            tail = self.decode_bytes(flat[-n_last:]) + tail
            flat = flat[:-n_last]
        return flat + self._encode_single_piece(tail)
