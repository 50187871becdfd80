"""RegexTokenizer: split text with a pattern first, then BPE inside each chunk.

Unlike `BasicTokenizer`, training and encoding first cut the text into chunks
with a split pattern (GPT-4's by default, see `patterns`). Pairs are counted
inside chunks only, so no merge ever crosses a chunk boundary: "dog" and "."
can never become one token "dog.".

It also adds special tokens (`register_special_tokens`, `encode(...,
allowed_special=...)`, see `special`) and speed for real text: a chunk such
as " the" always encodes to the same ids, so results are cached per chunk.
`from_vocab_merges` builds one from any byte-level BPE vocabulary, whatever
its ids (`number_vocab` checks it and finds its ids), and `encode_iterable` encodes a stream of any size
(see `streaming`).

>>> tok = RegexTokenizer()
>>> tok.train("hello hello world!!! hello", 256 + 4)  # ties: greater bytes win
>>> [tok.decode([i]) for i in range(256, 260)]
['lo', 'llo', 'he', 'hello']
>>> tok.register_special_tokens({"<|endoftext|>": 1000})
>>> tok.encode("hello<|endoftext|>!", allowed_special="all")
[259, 1000, 33]
"""

from __future__ import annotations

import random
from collections import deque

import regex

from .base import Tokenizer
from .dropout import check_dropout
from .text import check_text, check_vocab_size, fix_surrogates
from .pairs import best_pair, get_stats, merge
from .patterns import GPT4_SPLIT_PATTERN
from .pretokenize import prepare_split, split_pretokens
from .special import check_disallowed, resolve_allowed, resolve_disallowed, split_special
from .streaming import encode_stream

# The cache maps a chunk to its ids. Past this many entries it is cleared, so
# text made of endless distinct chunks cannot eat all memory.
CACHE_SIZE = 200_000
# Longer chunks are not cached: they rarely repeat.
CACHE_MAX_CHUNK = 1000


class ChunkCache(dict):
    """The ids of every chunk a tokenizer has encoded: chunk (str) -> ids.

    Looking up a chunk that is not there yet encodes it on the spot: a dict
    calls `__missing__` for a key it lacks, so `cache[chunk]` always answers,
    and looking up the chunks it has stays in C. `encode_chunk` is the
    tokenizer's, handed over by `encode_ordinary` before each use.

    `one_token` (bytes -> id) holds chunks whose ids are known without merging,
    because they are one token whole; it is looked up first. Only
    `OpenAITokenizer` has one: tiktoken's ranks, which it checks first too.
    """

    def __init__(self, one_token: dict[bytes, int] | None = None) -> None:
        super().__init__()
        self.one_token = {} if one_token is None else one_token
        self.encode_chunk = None
        self.too_long: list[str] = []      # chunks to forget after this encoding

    def __missing__(self, chunk: str) -> list[int]:
        data = chunk.encode("utf-8")
        idx = self.one_token.get(data)
        ids = self[chunk] = [idx] if idx is not None else self.encode_chunk(data)
        if len(chunk) > CACHE_MAX_CHUNK:
            self.too_long.append(chunk)
        return ids

    def __reduce__(self):
        # Pickled (and copied) as its entries only, without the tokenizer's method.
        return ChunkCache, (self.one_token or None,), None, None, iter(self.items())


class RegexTokenizer(Tokenizer):
    """Byte-level BPE inside the chunks of a split pattern, with special tokens."""

    def __init__(self, pattern: str | None = None) -> None:
        super().__init__()
        self.pattern = GPT4_SPLIT_PATTERN if pattern is None else pattern
        self.compiled_pattern = regex.compile(self.pattern)
        prepare_split(self.pattern)
        self._cache = self._new_cache()

    def _merges_changed(self) -> None:
        # New merges (or a new pattern, after `load`): the cached chunks are stale.
        self.compiled_pattern = regex.compile(self.pattern)
        prepare_split(self.pattern)
        self._cache = self._new_cache()

    def _new_cache(self) -> ChunkCache:
        return ChunkCache()

    # -- training (the naive loop, with chunks) ---------------------------------
    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """Learn `vocab_size - 256` merges, counting pairs inside chunks only.

        This is the course's naive trainer: every merge recounts every pair of
        every chunk. `train_bpe` learns the same merges much faster.
        """
        check_text(text)
        check_vocab_size(vocab_size)
        chunks = [list(c.encode("utf-8")) for c in
                  self.compiled_pattern.findall(fix_surrogates(text))]
        self.merges = {}
        self.byte_ids, self.ids_are_ranks = list(range(256)), True
        self.unreachable_tokens = {}        # their ids belonged to the old vocabulary
        self.vocab = self._build_vocab()
        for idx in range(256, vocab_size):
            stats: dict[tuple[int, int], int] = {}
            for chunk in chunks:
                get_stats(chunk, stats)
            if not stats:
                break
            pair = best_pair(stats, self.vocab)
            chunks = [merge(chunk, pair, idx) for chunk in chunks]
            self.merges[pair] = idx
            self.vocab[idx] = self.vocab[pair[0]] + self.vocab[pair[1]]
            if verbose:
                print(f"merge {idx - 255}/{vocab_size - 256}: {pair} -> {idx} "
                      f"({self.vocab[idx]!r}) had {stats[pair]} occurrences")
        self.vocab = self._build_vocab()    # keep registered special tokens
        self._merges_changed()

    @classmethod
    def from_merges(cls, merges: list[tuple[bytes, bytes]], special_tokens=(),
                    pattern: str | None = None) -> "RegexTokenizer":
        """A tokenizer from `train_bpe`'s result: `RegexTokenizer.from_merges(merges, specials)`.

        Merge i, `(left bytes, right bytes)`, gets id 256 + i. Special tokens
        get the ids after the merges, in order, as in `train_bpe`'s vocab (or
        pass a dict token -> id).

        >>> from bpe_course import train_bpe
        >>> vocab, merges = train_bpe("hello hello world", 256 + 3, ["<|eot|>"])
        >>> merges
        [(b'l', b'o'), (b'l', b'lo')]
        >>> tok = RegexTokenizer.from_merges(merges, ["<|eot|>"])
        >>> tok.vocab == vocab, tok.encode("hello<|eot|>", allowed_special="all")
        (True, [104, 101, 257, 258])
        """
        tok = cls(pattern)
        ids = {bytes([b]): b for b in range(256)}
        for k, (a, b) in enumerate(merges):
            if a not in ids or b not in ids:
                raise ValueError(f"merge {k}, ({a!r}, {b!r}), uses a token that no "
                                 f"earlier merge made")
            if a + b in ids:
                raise ValueError(f"merge {k} makes {a + b!r} a second time, so the ids "
                                 f"of later merges are ambiguous; give each token one merge")
            tok.merges[ids[a], ids[b]] = ids[a + b] = 256 + k
        if not isinstance(special_tokens, dict):
            special_tokens = {t: 256 + len(merges) + k for k, t in enumerate(special_tokens)}
        tok.vocab = tok._build_vocab()
        tok.register_special_tokens(special_tokens)
        return tok

    @classmethod
    def from_vocab_merges(cls, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                          special_tokens=None, pattern: str | None = None) -> "RegexTokenizer":
        """A tokenizer from any byte-level BPE vocabulary, with the vocabulary's own ids.

        `vocab` maps ids to bytes: the 256 single bytes, the result of every
        merge, and perhaps other entries. `merges` lists `(left bytes, right
        bytes)` in the order they were learned: that order is their rank,
        whatever their ids. Each special token (a list of str) gets its id in
        `vocab`, or, when missing, the next id after the largest. An entry that
        no merge makes and that is not declared special (GPT-2's `<|endoftext|>`
        in its `vocab.json`) is kept in `unreachable_tokens`: `decode` knows it,
        `encode` never produces it. Inconsistent input raises ValueError saying
        what is wrong.

        This is CS336's tokenizer contract, with one difference on purpose:
        special tokens follow tiktoken's `allowed_special` (see `special`), so
        `encode` refuses text that holds one unless you allow it;
        `encode(text, allowed_special="all")` gives CS336's behaviour.

        >>> vocab = {0: b"<|eot|>", **{1 + b: bytes([b]) for b in range(256)},
        ...          300: b"lo", 299: b"llo"}          # any ids, merges in learned order
        >>> tok = RegexTokenizer.from_vocab_merges(vocab, [(b"l", b"o"), (b"l", b"lo")],
        ...                                        ["<|eot|>", "<|pad|>"])
        >>> tok.encode("hello<|eot|><|pad|>", allowed_special="all")
        [105, 102, 299, 0, 301]
        >>> plain = RegexTokenizer.from_vocab_merges(vocab, [(b"l", b"o"), (b"l", b"lo")])
        >>> plain.unreachable_tokens, plain.decode([0])   # not declared special
        ({0: b'<|eot|>'}, '<|eot|>')
        >>> 0 in plain.encode("hello<|eot|>")             # only merges make tokens
        False
        """
        byte_ids, pairs, specials, unreachable = number_vocab(vocab, merges, special_tokens)
        tok = cls(pattern)
        tok.byte_ids, tok.merges, tok.special_tokens = byte_ids, pairs, specials
        tok.unreachable_tokens = unreachable
        new_ids = list(pairs.values())
        tok.ids_are_ranks = new_ids == sorted(new_ids)
        tok.vocab = tok._build_vocab()
        tok._merges_changed()
        return tok

    # -- special tokens --------------------------------------------------------
    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Add special tokens, e.g. {"<|endoftext|>": 100257}.

        Their ids must not collide with the ids of bytes, merges or unreachable
        tokens (see `from_vocab_merges`), with one exception: an unreachable
        token registered under its own id and text becomes special (GPT-2's
        `<|endoftext|>` read from its `vocab.json`).
        """
        promoted = set()
        for token, idx in special_tokens.items():
            if not isinstance(token, str) or not token:
                raise ValueError(f"a special token must be a non-empty str, got {token!r}")
            if not isinstance(idx, int) or idx < 0:
                raise ValueError(f"the id of {token!r} must be a non-negative int, got {idx!r}")
            if self.unreachable_tokens.get(idx) == token.encode("utf-8"):
                promoted.add(idx)
                continue
            taken = self.vocab.get(idx)
            if taken is not None and self.inverse_special_tokens.get(idx) != token:
                raise ValueError(f"cannot give {token!r} the id {idx}: it already "
                                 f"stands for {taken!r}")
        if promoted:
            self.unreachable_tokens = {idx: token for idx, token in
                                       self.unreachable_tokens.items() if idx not in promoted}
        self.special_tokens = {**self.special_tokens, **special_tokens}
        self.vocab = self._build_vocab()

    # -- encoding --------------------------------------------------------------
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating any special-token strings as ordinary text.

        Real text repeats its chunks (" the", ",", "\n\n") over and over, so
        each distinct chunk is encoded once and then looked up in a cache.
        The split itself is `self.compiled_pattern.findall(text)`, done
        faster by `split_pretokens` for the three GPT patterns.
        """
        check_text(text)
        chunks = split_pretokens(text, self.compiled_pattern)
        cache = self._cache
        cache.encode_chunk = self.encode_chunk
        try:
            # One list of all the chunks' ids, without a Python loop: `map` calls
            # `ids.extend` with each chunk's ids, and `deque(..., maxlen=0)` only runs
            # the map to its end. A chunk not in the cache yet is encoded on the spot
            # (`ChunkCache`).
            ids: list[int] = []
            deque(map(ids.extend, map(cache.__getitem__, chunks)), maxlen=0)
        except UnicodeEncodeError:          # a lone surrogate: do as tiktoken does
            return self.encode_ordinary(fix_surrogates(text))
        # Keep the cache bounded: forget long chunks (they rarely repeat) and
        # start afresh when it grows too big.
        for chunk in cache.too_long:
            cache.pop(chunk, None)
        cache.too_long.clear()
        if len(cache) > CACHE_SIZE:
            cache.clear()
        return ids

    def _encode_with_dropout(self, text: str, dropout: float, rng) -> list[int]:
        """`encode_ordinary` with BPE-dropout (see `bpe_course.dropout`): every chunk is
        encoded afresh, not looked up in the cache, each applicable merge skipped with
        probability `dropout`; merges still never cross a chunk."""
        text = fix_surrogates(text)             # as encode_ordinary does for lone surrogates
        ids: list[int] = []
        for chunk in split_pretokens(text, self.compiled_pattern):
            ids.extend(self.encode_chunk_with_dropout(chunk.encode("utf-8"), dropout, rng))
        return ids

    def encode(self, text: str, allowed_special="none_raise",
               disallowed_special="all", *, dropout: float = 0.0,
               rng: random.Random | None = None) -> list[int]:
        """Encode text; special tokens are handled as `allowed_special` says.

        See `bpe_course.special` for the modes, and for `disallowed_special`,
        which means what it means in tiktoken. The default refuses text that
        contains a registered special token, as tiktoken does.

        With `dropout` > 0, BPE-dropout (see `bpe_course.dropout`): each applicable merge
        is skipped with that probability at every step, drawing from `rng` (a
        `random.Random`); special tokens are never split.
        """
        check_text(text)
        encode_ordinary = self.encode_ordinary
        if dropout:
            rng = check_dropout(dropout, rng)

            def encode_ordinary(part: str) -> list[int]:
                return self._encode_with_dropout(part, dropout, rng)
        allowed = resolve_allowed(allowed_special, self.special_tokens)
        check_disallowed(text, resolve_disallowed(disallowed_special, allowed_special,
                                                  allowed, self.special_tokens))
        if not allowed:
            return encode_ordinary(text)
        ids: list[int] = []
        for part in split_special(text, allowed):
            if part in allowed:
                ids.append(self.special_tokens[part])
            else:
                ids.extend(encode_ordinary(part))
        return ids

    def encode_iterable(self, iterable, allowed_special="none_raise", disallowed_special="all"):
        """Yield the ids of `encode("".join(iterable), allowed_special, disallowed_special)`
        lazily.

        `iterable` gives str pieces, for example an open text file: the file is
        encoded in bounded memory, and the ids are those of the whole text even
        where a piece ends inside a word or a special token (see `streaming`).
        """
        return encode_stream(self, iterable, allowed_special, disallowed_special)


# -- a vocabulary numbered by someone else ---------------------------------------

def number_vocab(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                 special_tokens: list[str] | None,
                 ) -> tuple[list[int], dict[tuple[int, int], int], dict[str, int],
                            dict[int, bytes]]:
    """Check a vocabulary numbered by someone else; return its byte ids, merges, special
    tokens and unreachable tokens.

    The course's trainers hand out ids in merge order (bytes 0..255, then merge k
    is 256 + k), so an id is also a rank (see `base`). Other vocabularies give
    their tokens any ids: CS336's `train_bpe` puts special tokens first, Hugging
    Face's files store whatever ids the trainer chose. `vocab` maps id -> bytes,
    `merges` lists `(left bytes, right bytes)` in the order they were learned.
    The result is in the vocabulary's own ids: the id of each byte, each merge as
    ids, the special tokens, and the unreachable tokens: entries that no merge
    makes and that are not special (id -> bytes; decodable, never encoded).
    Inconsistent input raises ValueError saying what is wrong.

    >>> vocab = {0: b"<|eot|>", **{1 + b: bytes([b]) for b in range(256)},
    ...          300: b"lo", 299: b"llo", 400: b"hello"}   # any ids, merges in learned order
    >>> byte_ids, pairs, specials, unreachable = number_vocab(
    ...     vocab, [(b"l", b"o"), (b"l", b"lo")], ["<|eot|>", "<|pad|>"])
    >>> byte_ids[ord("l")], byte_ids[ord("o")], pairs
    (109, 112, {(109, 112): 300, (109, 300): 299})
    >>> specials, unreachable
    ({'<|eot|>': 0, '<|pad|>': 401}, {400: b'hello'})
    """
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
    unreachable = {idx: token for token, idx in id_of.items()
                   if token not in made and idx not in taken}
    return [id_of[t] for t in singles], pairs, specials, unreachable
