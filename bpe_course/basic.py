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

from .base import Tokenizer
from .pairs import best_pair, get_stats, merge


def check_text(text: object) -> str:
    """Raise TypeError unless `text` is a str; return it."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}"
                        + (" (decode bytes first, e.g. data.decode('utf-8'))"
                           if isinstance(text, (bytes, bytearray)) else ""))
    return text


def check_vocab_size(vocab_size: object, minimum: int = 256) -> int:
    """Raise unless `vocab_size` is an int of at least `minimum` (256 byte tokens)."""
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if vocab_size < minimum:
        raise ValueError(f"vocab_size must be at least {minimum}: the 256 byte values "
                         f"are always in the vocabulary; got {vocab_size}")
    return vocab_size


def utf8_bytes(text: str) -> bytes:
    """Encode text as UTF-8, replacing lone surrogates by U+FFFD as tiktoken does.

    A Python str may hold a lone surrogate ("\\ud800"), which has no UTF-8
    form. tiktoken round-trips such text through UTF-16 with errors="replace";
    we do the same, so ids match tiktoken's for every str.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return fix_surrogates(text).encode("utf-8")


def fix_surrogates(text: str) -> str:
    """Replace lone surrogates by U+FFFD (and join valid surrogate pairs)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


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
        self.merges = {}
        self.vocab = self._build_vocab()
        for idx in range(256, vocab_size):
            stats = get_stats(ids)
            if not stats:
                break
            pair = best_pair(stats, self.vocab)
            ids = merge(ids, pair, idx)
            self.merges[pair] = idx
            self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
            if verbose:
                print(f"merge {idx - 255}/{vocab_size - 256}: {pair} -> {idx} "
                      f"({self.vocab[idx]!r}) had {stats[pair]} occurrences")

    def encode(self, text: str) -> list[int]:
        """Text to ids: UTF-8 bytes, then merges applied by rank."""
        return self.encode_chunk(utf8_bytes(check_text(text)))
