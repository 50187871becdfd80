"""tiktoken's `encode_with_unstable`: the settled tokens of a text, and what could replace the rest.

Encoding a prompt and then generating after it assumes that the prompt's ids are the first ids
of prompt-plus-continuation. They need not be: `'<a href="http:'` ends with the token `:`,
but `'<a href="http://'` has `://`. tiktoken's `Encoding.encode_with_unstable(text)` splits the
encoding in two (chapter 15):

- the **stable** tokens, which no appended text can change. BPE never merges across the
  chunks of the split pattern, so only the tokens of the *last* chunk can change (and tokens
  made only of spaces, tabs and newlines just before it, since the pattern may split
  whitespace differently once text follows);
- the **completions**: every token sequence that could stand where the unstable tokens were,
  once text is appended. First, each token whose bytes start with the unstable bytes. Then,
  for each way of cutting the unstable bytes in two, the first part followed by any token that
  starts with the second, encoded again and cut after the tokens that cover the unstable bytes.
  Last, when the unstable bytes end in a whitespace character, the two parts on either side
  of it encoded apart (text after whitespace can open a new chunk).

This is tiktoken 0.14's algorithm (`_encode_unstable_native` in its `src/lib.rs`, read on
2026-11-29), step for step; its docstring calls the method itself unstable. The completions
come back sorted (tiktoken returns them in the order of a Rust hash set, which varies).

>>> from bpe_course import OpenAITokenizer
>>> tok = OpenAITokenizer("cl100k_base")
>>> stable, completions = tok.encode_with_unstable('<a href="http:')
>>> tok.decode(stable), len(completions), [tok.encode_single_token("://")] in completions
('<a href="http', 324, True)

Subtle: the last two steps encode with BPE alone, without first looking the whole piece up as
one token (tiktoken's `byte_pair_encode`), which differs for the few tokens that BPE cannot
reach (tests/story/test_unreachable_tokens.py).
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import pairwise

from ..special import split_special

# Rust's `char::is_whitespace`: the Unicode White_Space property (Python's `str.isspace`
# differs, for U+001C-U+001F among others).
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                        + "".join(map(chr, range(0x2000, 0x200B))))
_SPACE_BYTES = frozenset(b" \n\t")


def byte_pair_encode(ranks: dict[bytes, int], piece: bytes) -> list[int]:
    """BPE on one piece by ranks alone (tiktoken's `byte_pair_encode`): join the adjacent pair
    of lowest rank, leftmost first, until no pair is a token.

    >>> byte_pair_encode({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4}, b"abc")
    [3, 2]
    """
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        pair_ranks = [ranks.get(a + b) for a, b in pairwise(parts)]
        best = min((r for r in pair_ranks if r is not None), default=None)
        if best is None:
            break
        i = pair_ranks.index(best)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return [ranks[part] for part in parts]


def last_char(data: bytes) -> tuple[str | None, int]:
    """The last character of `data` and its length in bytes; (None, 1) if `data` does not end
    in a whole UTF-8 character (as `bstr::decode_last_utf8` answers, for what is used here)."""
    for size in range(1, min(4, len(data)) + 1):
        try:
            char = data[-size:].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(char) == 1:
            return char, size
    return None, 1


def encode_with_unstable(tok, text: str, *, allowed_special=set(),  # noqa: B006 (tiktoken's)
                         disallowed_special="all", sorted_token_bytes: list[bytes] | None = None
                         ) -> tuple[list[int], list[list[int]]]:
    """`tok.encode(text)` cut into stable tokens and the completions of the rest, as tiktoken's
    `Encoding.encode_with_unstable` does; `tok` is an `OpenAITokenizer`.

    `sorted_token_bytes` is `sorted(tok.mergeable_ranks)`, if the caller keeps it: sorting
    o200k's 199,998 tokens took 0.2 s here, and a call on `"Hello wor"` 0.16 s with the sort
    and 0.011 s without (2026-11-29, 2 busy cores)."""
    tokens = tok.encode(text, allowed_special=allowed_special,
                        disallowed_special=disallowed_special)   # raises as tiktoken does
    allowed = (set(tok.special_tokens) if allowed_special == "all"
               else set(allowed_special) & set(tok.special_tokens))
    parts = split_special(text, allowed)
    if not parts or parts[-1] in allowed:
        return tokens, []              # nothing after the last special token: all stable
    last_piece = tok.compiled_pattern.findall(parts[-1])[-1].encode("utf-8")
    n = len(tok.encode_chunk(last_piece))
    if all(b in _SPACE_BYTES for b in tok.vocab[tokens[-n]]):
        while n < len(tokens) and all(b in _SPACE_BYTES for b in tok.vocab[tokens[-n - 1]]):
            n += 1
    unstable = tok.decode_bytes(tokens[-n:])
    stable = tokens[:-n]
    ranks = tok.mergeable_ranks
    by_bytes = sorted(ranks) if sorted_token_bytes is None else sorted_token_bytes

    def starting_with(prefix: bytes) -> list[bytes]:
        """The tokens whose bytes start with `prefix`: a run of the sorted token bytes."""
        found, k = [], bisect_left(by_bytes, prefix)
        while k < len(by_bytes) and by_bytes[k].startswith(prefix):
            found.append(by_bytes[k])
            k += 1
        return found

    completions = {(ranks[token],) for token in starting_with(unstable)}
    for i in range(1, len(unstable)):
        head, tail = unstable[:i], unstable[i:]
        for token in starting_with(tail):
            possibility = head + token
            try:
                encoded = tok.encode_ordinary(possibility.decode("utf-8"))
            except UnicodeDecodeError:
                encoded = byte_pair_encode(ranks, possibility)
            seq, covered = [], 0
            for t in encoded:
                seq.append(t)
                covered += len(tok.vocab[t])
                if covered >= len(unstable):
                    break
            completions.add(tuple(seq))
    if len(unstable) > 1:
        char, size = last_char(unstable)
        if len(unstable) - size > 0 and char is not None and char in WHITE_SPACE:
            completions.add(tuple(byte_pair_encode(ranks, unstable[:-size])
                                  + byte_pair_encode(ranks, unstable[-size:])))
    return stable, [list(seq) for seq in sorted(completions)]
