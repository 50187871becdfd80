"""Chapter 08: a tokenizer of the course as tiktoken's: `to_tiktoken` and `save_tiktoken`.

- `to_tiktoken(tok)` turns a tokenizer into a real `tiktoken.Encoding`, and
  `save_tiktoken(tok, path)` writes tiktoken's rank file (`base64(token) id`).
  Both refuse a tokenizer with unreachable tokens (see `base`): tiktoken merges
  any two tokens whose joined bytes have a rank, so in its ranks such an entry
  could be produced; register it as a special token first, if it is one.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

# tiktoken always splits with a pattern; this one keeps the whole text as one
# chunk, which is what BasicTokenizer does.
WHOLE_TEXT_PATTERN = r"[\s\S]+"


def mergeable_ranks(tok) -> dict[bytes, int]:
    """tiktoken's view of a tokenizer: token bytes -> id, for bytes and merges."""
    if not getattr(tok, "ids_are_ranks", True):
        raise ValueError("tiktoken ranks tokens by their ids, and this tokenizer's ids are "
                         "not in merge order (see Tokenizer.ids_are_ranks); save it with "
                         "save_vocab_merges or save_tokenizer_json instead")
    unreachable = getattr(tok, "unreachable_tokens", {})
    if unreachable:
        idx, token = min(unreachable.items())
        raise ValueError(
            f"this tokenizer has {len(unreachable)} vocab entries that no merge makes, such "
            f"as {idx}: {token!r}; tiktoken has no place for them (in its ranks, encoding "
            f"could produce them). If they are special tokens, register them first: "
            f"tok.register_special_tokens({{{token.decode('utf-8', 'replace')!r}: {idx}}})")
    ranks = {}
    for idx, token in tok.vocab.items():
        if idx in tok.inverse_special_tokens:
            continue
        if token in ranks:
            raise ValueError(f"ids {ranks[token]} and {idx} are both {token!r}: tiktoken "
                             f"needs each token's bytes to be unique")
        ranks[token] = idx
    return ranks


def to_tiktoken(tok, name: str = "bpe-course"):
    """A `tiktoken.Encoding` with this tokenizer's merges, pattern and special tokens."""
    import tiktoken
    return tiktoken.Encoding(
        name=name,
        pat_str=tok.pattern or WHOLE_TEXT_PATTERN,
        mergeable_ranks=mergeable_ranks(tok),
        special_tokens=dict(tok.special_tokens),
    )


def save_tiktoken(tok, path: str | os.PathLike) -> None:
    """Write tiktoken's `.tiktoken` rank file (`base64(token) id` per line).

    `tiktoken.load.load_tiktoken_bpe(path)` (after `import tiktoken.load`) reads it back. Like tiktoken's own
    files, it holds no pattern and no special tokens: pass those yourself.
    """
    ranks = sorted(mergeable_ranks(tok).items(), key=lambda item: item[1])
    Path(path).write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks),
                          encoding="ascii")
