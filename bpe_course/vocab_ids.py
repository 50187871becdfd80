"""A byte-level BPE vocabulary numbered by someone else: checked, and its ids found.

The course's trainers hand out ids in merge order: bytes 0..255, then merge k
is 256 + k, so an id is also a rank (see `base`). Other vocabularies give
their tokens any ids: CS336's `train_bpe` puts special tokens first,
Hugging Face's files store whatever ids the trainer chose. `number_vocab`
checks such a vocabulary (`vocab`: id -> bytes) and its merges (`(left
bytes, right bytes)` in the order they were learned), and returns what a
tokenizer needs, in the vocabulary's own ids: the id of each byte, each merge
as ids, and the special tokens. `RegexTokenizer.from_vocab_merges` builds on
it. Inconsistent input raises ValueError saying what is wrong.

>>> vocab = {0: b"<|eot|>", **{1 + b: bytes([b]) for b in range(256)},
...          300: b"lo", 299: b"llo"}          # any ids, merges in learned order
>>> byte_ids, pairs, specials = number_vocab(vocab, [(b"l", b"o"), (b"l", b"lo")],
...                                          ["<|eot|>", "<|pad|>"])
>>> byte_ids[ord("l")], byte_ids[ord("o")], pairs, specials
(109, 112, {(109, 112): 300, (109, 300): 299}, {'<|eot|>': 0, '<|pad|>': 301})
"""

from __future__ import annotations


def number_vocab(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                 special_tokens: list[str] | None,
                 ) -> tuple[list[int], dict[tuple[int, int], int], dict[str, int]]:
    """Check a vocabulary and its merges; return byte ids, merges as ids, special tokens."""
    if not isinstance(vocab, dict):
        raise TypeError(f"vocab must be a dict id -> bytes, got {type(vocab).__name__}")
    id_of: dict[bytes, int] = {}
    for idx, token in vocab.items():
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise ValueError(f"vocab ids must be non-negative ints, got {idx!r}")
        if not isinstance(token, (bytes, bytearray)) or not token:
            raise ValueError(f"vocab[{idx}] must be non-empty bytes, got {token!r}")
        if bytes(token) in id_of:
            raise ValueError(f"ids {id_of[bytes(token)]} and {idx} are both {token!r}")
        id_of[bytes(token)] = idx
    singles = [bytes([b]) for b in range(256)]
    missing = [t for t in singles if t not in id_of]
    if missing:
        raise ValueError(f"vocab lacks {len(missing)} of the 256 single bytes, such as "
                         f"{missing[0]!r}: byte-level BPE needs every byte")
    made, pairs = set(singles), {}
    for k, pair in enumerate(merges):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and all(isinstance(t, (bytes, bytearray)) for t in pair)):
            raise ValueError(f"merge {k} must be a pair (left bytes, right bytes), got {pair!r}")
        a, b = map(bytes, pair)
        if a not in made or b not in made:
            raise ValueError(f"merge {k}, ({a!r}, {b!r}), uses a token that no earlier "
                             f"merge made (merges must be in the order they were learned)")
        if a + b in made:
            raise ValueError(f"merge {k}, ({a!r}, {b!r}), makes {a + b!r} a second time")
        if a + b not in id_of:
            raise ValueError(f"merge {k}, ({a!r}, {b!r}), makes {a + b!r}, which vocab lacks")
        made.add(a + b)
        pairs[id_of[a], id_of[b]] = id_of[a + b]
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of str; write [{special_tokens!r}]")
    specials: dict[str, int] = {}
    next_id = max(vocab) + 1
    for token in special_tokens or ():
        if not isinstance(token, str) or not token or token in specials:
            raise ValueError(f"special tokens must be distinct non-empty str, got {token!r}")
        data = token.encode("utf-8")
        if data in id_of and data not in made:
            specials[token] = id_of[data]
        else:
            specials[token], next_id = next_id, next_id + 1
    taken = set(specials.values())
    for token, idx in id_of.items():
        if token not in made and idx not in taken:
            raise ValueError(f"vocab[{idx}] = {token!r} is not a byte, a merge's result or a "
                             f"special token: pass it in special_tokens, or add its merge")
    return [id_of[t] for t in singles], pairs, specials
