"""GPT-2's own tokenizer files, `encoder.json` and `vocab.bpe`, rebuilt from `r50k_base`.

OpenAI released GPT-2 (2019) with `encoder.py` and two files:

- `vocab.bpe`: the merges in the order they were learned, one per line,
  `first second` ("Ġ t" is the first merge);
- `encoder.json`: every token's string -> id (`{"!": 0, ...}`).

Both hold tokens as *strings*, not bytes, through GPT-2's byte map (`byte_map`):
each of the 256 byte values is shown as one printable character, so the space
byte 0x20 becomes "Ġ" (U+0120) and a newline "Ċ". That is why GPT-2's
vocabulary is full of "Ġthe".

tiktoken's `r50k_base.tiktoken` holds the same vocabulary as raw bytes with
their ranks. The rank of a token is its id, and the merges are implicit (see
`tokenizer.recover_merges`), so both files can be rebuilt from the ranks; they
come out byte for byte equal to OpenAI's (tests and `tiktoken_cache` check
the sha256 that tiktoken publishes for them).

>>> encoder()["Ġthe"], token_to_str(b" the")
(262, 'Ġthe')
>>> vocab_bpe_lines()[:3]
['Ġ t', 'Ġ a', 'h e']
"""

from __future__ import annotations

import functools
import json

from .byte_map import bytes_to_unicode, str_to_token, token_to_str  # noqa: F401 (re-exported)
from .encodings import load_ranks
from .tokenizer import bpe_by_rank

# sha256 of OpenAI's files, as tiktoken checks them (tiktoken_ext/openai_public.py).
VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"


@functools.lru_cache(maxsize=None)
def encoder() -> dict[str, int]:
    """`encoder.json` as a dict: token string -> id, `<|endoftext|>` last."""
    ranks = load_ranks("r50k_base")
    table = {token_to_str(token): rank for token, rank in sorted(ranks.items(), key=_rank)}
    table["<|endoftext|>"] = 50256
    return table


@functools.lru_cache(maxsize=None)
def vocab_bpe_lines() -> list[str]:
    """The merges of `vocab.bpe`, in order: the two parts each token (beyond the bytes) joins."""
    ranks = load_ranks("r50k_base")
    lines = []
    for token, rank in sorted(ranks.items(), key=_rank):
        if len(token) > 1:
            left, right = _merge_parts(ranks, token, rank)
            lines.append(f"{token_to_str(left)} {token_to_str(right)}")
    return lines


def _merge_parts(ranks: dict[bytes, int], token: bytes, rank: int) -> tuple[bytes, bytes]:
    """The two parts whose merge made `token`, as `bpe_by_rank(..., max_rank=rank)` finds them.

    A shortcut first: most tokens split into two lower-ranked tokens in only
    one way, and then that is the merge. Only the others need BPE.
    """
    splits = [(token[:i], token[i:]) for i in range(1, len(token))
              if ranks.get(token[:i], rank) < rank and ranks.get(token[i:], rank) < rank]
    if len(splits) == 1:
        return splits[0]
    left, right = bpe_by_rank(ranks, token, max_rank=rank)
    return left, right


def encoder_json() -> bytes:
    """The file `encoder.json`, byte for byte."""
    return json.dumps(encoder()).encode("utf-8")


def vocab_bpe() -> bytes:
    """The file `vocab.bpe`, byte for byte: a version line, then one merge per line."""
    return ("#version: 0.2\n" + "\n".join(vocab_bpe_lines()) + "\n").encode("utf-8")


def _rank(item: tuple[bytes, int]) -> int:
    return item[1]
