"""OpenAITokenizer: our RegexTokenizer, loaded with the vocabulary of GPT-2, GPT-4 or GPT-4o.

tiktoken does not store merges. It stores *mergeable ranks*: every token's
bytes with its rank, which is also its id. Encoding needs nothing else: in a
chunk, keep joining the adjacent pair whose joined bytes have the lowest
rank. Unlike our trained tokenizers, the ids of single bytes are not the byte
values: the first 256 ranks are the 256 bytes in a *shuffled* order (printable
characters first: `!` is 0, `"` is 1, ...), so `byte_ids` is a permutation.

The merges are still there, implicitly: a token of rank r is the join of the
two parts that BPE, using only ranks below r, reduces it to (`recover_merges`).
We recover them to show the merge tree, but encode by ranks exactly as
tiktoken does, so our ids equal tiktoken's for every string (of the
characters the running Python knows: see the caveat below).

The caveat, which is not ours to fix: the split patterns ask whether a character
is a letter (`\\p{L}`), and the answer comes from the Unicode tables of the regex
engine. The `regex` module may know a newer Unicode than tiktoken's Rust engine,
so a character that a recent Unicode version assigned (one that Python's own
`unicodedata` still calls unassigned, `Cn`) can be split differently. Tried
in November 2026 on every code point, each between two letters and before
punctuation, with `regex` 2026.11.19 and tiktoken 0.14 on Python 3.11: the ids
of o200k_base differed on 17,559 code points, all of them `Cn` to Python, and
those of r50k_base and cl100k_base on none. On every character the running
Python knows, the ids are the same (tests/parity; the scan is
tools/unicode_skew.py).

`OpenAITokenizer` also has the rest of `tiktoken.Encoding`'s interface (see
`encoding_api`), so code written for tiktoken runs on it unchanged.
`GPT4Tokenizer` is the same class under minbpe's name.

>>> tok = OpenAITokenizer("cl100k_base")
>>> tok.encode("hello world")
[15339, 1917]
>>> tok.byte_ids[ord("!")], tok.byte_ids[ord("a")]
(0, 64)
>>> OpenAITokenizer("gpt2").encode("hello world"), tok.n_vocab, tok.eot_token
([31373, 995], 100277, 100257)
"""

from __future__ import annotations

from collections.abc import Mapping

from ..base import _SHORT_CHUNK, NO_MERGE
from ..regex_tokenizer import RegexTokenizer
from .encoding_api import EncodingAPI, UnknownTokenError  # noqa: F401 (re-exported)
from .encodings import SPECIAL_TOKENS, SPLIT_PATTERNS, check_name, load_ranks

_SINGLE_BYTES = [bytes([b]) for b in range(256)]
# The rank of a pair that is not a token. NO_MERGE (a float) would do, but `min` over
# ints alone is faster than over ints mixed with a float, and this sorts after every rank.
_NO_PAIR = 1 << 62


def bpe_by_rank(ranks: dict[bytes, int], token: bytes, max_rank: int | None = None) -> list[bytes]:
    """Split `token` into parts by tiktoken's rule, using only ranks below `max_rank`.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> bpe_by_rank(ranks, b"abc", max_rank=4)
    [b'ab', b'c']
    """
    parts = [bytes([b]) for b in token]
    while len(parts) > 1:
        best_i, best_rank = None, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_i, best_rank = i, rank
        if best_rank is None or (max_rank is not None and best_rank >= max_rank):
            break
        parts[best_i:best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


def recover_merges(ranks: dict[bytes, int]) -> dict[tuple[int, int], int]:
    """For every multi-byte token, the pair of ids it is merged from.

    Subtle: the pair must be found with only *lower* ranks available;
    otherwise BPE would simply reach the token itself.
    """
    merges = {}
    for token, rank in ranks.items():
        if len(token) == 1:
            continue
        parts = bpe_by_rank(ranks, token, max_rank=rank)
        if len(parts) != 2:
            raise ValueError(f"token {token!r} (rank {rank}) does not split into two "
                             f"lower-ranked tokens: not a BPE vocabulary")
        merges[ranks[parts[0]], ranks[parts[1]]] = rank
    return merges


class RecoveredMerges(Mapping):
    """The merges of a rank table, `(left id, right id) -> id`, recovered on first use.

    Encoding needs only the ranks; the merges are for looking at (`merge_tree`, `save`),
    and recovering them takes a while (about 0.6 s for cl100k_base), so it waits until
    something reads them.

    >>> merges = RecoveredMerges({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3})
    >>> len(merges), dict(merges)
    (2, {(0, 1): 2, (2, 1): 3})
    """

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self.ranks = ranks
        self._merges: dict[tuple[int, int], int] | None = None

    def _table(self) -> dict[tuple[int, int], int]:
        if self._merges is None:
            self._merges = recover_merges(self.ranks)
        return self._merges

    def __getitem__(self, pair: tuple[int, int]) -> int:
        return self._table()[pair]

    def __iter__(self):
        return iter(self._table())

    def __len__(self) -> int:
        # Every token longer than one byte is made by one merge: no need to recover them.
        return sum(len(token) > 1 for token in self.ranks)


class OpenAITokenizer(EncodingAPI, RegexTokenizer):
    """A RegexTokenizer with the vocabulary of one of OpenAI's encodings, and tiktoken's API.

    `encoding` is "r50k_base" (GPT-2, also "gpt2"), "cl100k_base" (GPT-4),
    "o200k_base" (GPT-4o), or another of `encodings.ENCODINGS`.
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        check_name(encoding)
        super().__init__(SPLIT_PATTERNS[encoding])
        self.name = self.encoding_name = encoding
        self.mergeable_ranks = ranks = load_ranks(encoding)
        self.byte_ids = [ranks[bytes([b])] for b in range(256)]
        self.merges = RecoveredMerges(ranks)
        # Every id is a rank: the vocabulary is the rank table turned around.
        self.vocab = {rank: token for token, rank in ranks.items()}
        self.register_special_tokens(SPECIAL_TOKENS[encoding])

    def __reduce__(self):
        # Pickled by name, like tiktoken's registered encodings: the ranks come from the package.
        return type(self), (self.name,)

    def encode(self, text: str, *, allowed_special=set(), disallowed_special="all") -> list[int]:
        """tiktoken's `encode`: special tokens raise unless allowed or not disallowed.

        The course's modes work too: `allowed_special="all"`, `"none"` (special
        tokens are plain text) and `"none_raise"` (the default's behaviour).
        Like tiktoken, allowed tokens that this encoding lacks are ignored.
        """
        if not isinstance(allowed_special, str):
            allowed_special = {t for t in allowed_special if t in self.special_tokens}
        return super().encode(text, allowed_special, disallowed_special)

    def encode_chunk(self, data: bytes) -> list[int]:
        """tiktoken's way: a chunk that is one token whole (" the", " hello": most chunks of
        real text are) is looked up; a short one is merged as bytes (`_merge_bytes`); a long
        one by the base's heap, with tiktoken's rule for what a pair merges into."""
        rank = self.mergeable_ranks.get(data)
        if rank is not None:
            return [rank]
        if len(data) <= _SHORT_CHUNK:
            return self._merge_bytes(data)
        return self._merge_long([self.byte_ids[b] for b in data], self.merged_rank)

    def merged_rank(self, a: int, b: int) -> int | float:
        """tiktoken's rule: the rank of the joined bytes of ids a and b, if they are a token,
        else NO_MERGE. Equal to the merges' answer, without recovering the merges."""
        return self.mergeable_ranks.get(self.vocab[a] + self.vocab[b], NO_MERGE)

    def _merge_bytes(self, data: bytes) -> list[int]:
        """`_merge_short` on the chunk's bytes, as tiktoken does it: the parts are bytes,
        and a pair's rank is the rank of its two parts joined. Same ids, less work: no
        lookup from ids to bytes and back for every pair.

        >>> tok = OpenAITokenizer("cl100k_base")
        >>> ids = [tok.byte_ids[b] for b in b"tokenizers"]
        >>> tok._merge_bytes(b"tokenizers"), tok._merge_short(ids, tok.merged_rank)
        ([5963, 12509], [5963, 12509])
        """
        ranks = self.mergeable_ranks
        get = ranks.get
        parts = list(map(_SINGLE_BYTES.__getitem__, data))
        # pair_ranks[i] is the rank of parts[i] + parts[i + 1], or _NO_PAIR; one more
        # _NO_PAIR at the end means `min` always has something to look at.
        pair_ranks = [get(a + b, _NO_PAIR) for a, b in zip(parts, parts[1:])]
        pair_ranks.append(_NO_PAIR)
        while (best := min(pair_ranks)) != _NO_PAIR:
            i = pair_ranks.index(best)          # leftmost of the best pairs
            parts[i] += parts.pop(i + 1)
            del pair_ranks[i]
            # Only the pairs on either side of the new part changed.
            if i > 0:
                pair_ranks[i - 1] = get(parts[i - 1] + parts[i], _NO_PAIR)
            if i + 1 < len(parts):
                pair_ranks[i] = get(parts[i] + parts[i + 1], _NO_PAIR)
        return list(map(ranks.__getitem__, parts))

    def first_merges(self, vocab_size: int):
        raise TypeError(f"{type(self).__name__} encodes by tiktoken's ranks, which a cut at a "
                        "vocabulary size would not change: it cannot be cut this way")

    def train(self, text, vocab_size, verbose=False):
        raise NotImplementedError(f"{type(self).__name__} is pretrained and cannot be trained; "
                                  "train a RegexTokenizer instead")

    def set_merges(self, merges, special_tokens=None):
        raise NotImplementedError(f"{type(self).__name__} always holds OpenAI's ranks; give "
                                  "merges to a RegexTokenizer instead")

    def load(self, model_file):
        raise NotImplementedError(f"{type(self).__name__} always holds OpenAI's ranks; load a "
                                  "saved model with RegexTokenizer().load(...) instead")


# minbpe's name for it, which the course used first.
GPT4Tokenizer = OpenAITokenizer

