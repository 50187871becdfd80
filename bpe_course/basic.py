"""BasicTokenizer: byte-level BPE on the whole text, with no pre-tokenization.

Training starts from the UTF-8 bytes of the text and repeats two steps,
`vocab_size - 256` times: count adjacent pairs (`get_stats`), merge the most
frequent one into a new id (`merge`). Ties are broken by `best_pair`, so the
result never depends on dict order or on PYTHONHASHSEED.

>>> tok = BasicTokenizer()
>>> tok.train("aaabdaaabac", 256 + 3)
>>> [(tok.vocab[a] + tok.vocab[b], idx) for (a, b), idx in tok.merges.items()]
[(b'aa', 256), (b'aaa', 257), (b'aaab', 258)]
>>> tok.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
>>> tok.decode([258, 100, 258, 97, 99])
'aaabdaaabac'

Because merges run across everything, such a tokenizer learns tokens that
glue words to punctuation and spaces; `RegexTokenizer` fixes that.
"""

from __future__ import annotations

import random

from .base import Tokenizer
from .dropout import check_dropout, encode_chunks_with_dropout
from .pairs import best_pair, get_stats, merge
from .text import check_text, check_vocab_size, utf8_bytes


class BasicTokenizer(Tokenizer):
    """Byte-level BPE over the whole text."""

    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """Learn `vocab_size - 256` merges from `text`.

        Stops early (with fewer merges) when no adjacent pair is left, for
        example on an empty or one-character text.
        """
        check_text(text)
        check_vocab_size(vocab_size)
        ids = list(utf8_bytes(text))
        merges: dict[tuple[int, int], int] = {}
        vocab = {b: bytes([b]) for b in range(256)}
        for idx in range(256, vocab_size):
            stats = get_stats(ids)
            if not stats:
                break
            pair = best_pair(stats, vocab)
            ids = merge(ids, pair, idx)
            merges[pair] = idx
            vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
            if verbose:
                print(f"merge {idx - 255}/{vocab_size - 256}: {pair} -> {idx} "
                      f"({vocab[idx]!r}) had {stats[pair]} occurrences")
        self.set_merges(merges)

    def encode(self, text: str, *, dropout: float = 0.0,
               rng: random.Random | None = None) -> list[int]:
        """Text to ids: UTF-8 bytes, then merges applied by rank.

        With `dropout` > 0 each applicable merge is skipped with that probability at every
        step (BPE-dropout, see `bpe_course.dropout`), drawing from `rng`.
        """
        data = utf8_bytes(check_text(text))
        if dropout:                         # BPE-dropout (chapter 12): see `dropout`
            return encode_chunks_with_dropout(self, [data], dropout, check_dropout(dropout, rng))
        return self.encode_chunk(data)
