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

import os
import random

import regex

from .base import Tokenizer
from .dropout import check_dropout, encode_chunks_with_dropout
from .pairs import best_pair, get_stats, merge
from .patterns import GPT4_SPLIT_PATTERN
from .pretokenize import prepare_split, split_pretokens
from .special import (
    check_disallowed,
    check_special_ids,
    check_special_tokens,
    resolve_allowed,
    resolve_disallowed,
    split_special,
)
from .streaming import encode_stream
from .text import check_text, check_vocab_size, fix_surrogates

# The cache maps a chunk to its ids. Past this many entries it is cleared, so
# text made of endless distinct chunks cannot eat all memory.
CACHE_SIZE = 200_000
# Longer chunks are not cached: they rarely repeat.
CACHE_MAX_CHUNK = 1000


class RegexTokenizer(Tokenizer):
    """Byte-level BPE inside the chunks of a split pattern, with special tokens."""

    def __init__(self, pattern: str | None = None) -> None:
        super().__init__()
        self.pattern = GPT4_SPLIT_PATTERN if pattern is None else pattern
        self.compiled_pattern = regex.compile(self.pattern)
        prepare_split(self.pattern)
        self._cache: dict[str, list[int]] = {}     # chunk -> its ids (see `encode_ordinary`)

    # What the base class does, and then forget the chunks encoded with the old merges.
    def set_merges(self, merges: dict[tuple[int, int], int],
                   special_tokens: dict[str, int] | None = None) -> None:
        super().set_merges(merges, special_tokens)
        self._cache = {}

    def first_merges(self, vocab_size: int) -> "RegexTokenizer":
        small = super().first_merges(vocab_size)
        small._cache = {}                   # the copy must not share the cache
        return small

    def load(self, model_file: str | os.PathLike) -> "RegexTokenizer":
        super().load(model_file)            # a new pattern too
        self.compiled_pattern = regex.compile(self.pattern)
        prepare_split(self.pattern)
        self._cache = {}
        return self

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
        merges: dict[tuple[int, int], int] = {}
        vocab = {b: bytes([b]) for b in range(256)}
        for idx in range(256, vocab_size):
            stats: dict[tuple[int, int], int] = {}
            for chunk in chunks:
                get_stats(chunk, stats)
            if not stats:
                break
            pair = best_pair(stats, vocab)
            chunks = [merge(chunk, pair, idx) for chunk in chunks]
            merges[pair] = idx
            vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
            if verbose:
                print(f"merge {idx - 255}/{vocab_size - 256}: {pair} -> {idx} "
                      f"({vocab[idx]!r}) had {stats[pair]} occurrences")
        self.set_merges(merges)             # registered special tokens are kept

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
        named = not isinstance(special_tokens, dict)
        _, pairs, specials, _ = number_vocab(None, merges, special_tokens if named else ())
        tok = cls(pattern)
        tok.set_merges(pairs, specials)
        if not named:
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
        return tok

    # -- special tokens --------------------------------------------------------
    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Add special tokens, e.g. {"<|endoftext|>": 100257}.

        Their ids must not collide with the ids of bytes, merges or unreachable
        tokens (see `from_vocab_merges`), with one exception: an unreachable
        token registered under its own id and text becomes special (GPT-2's
        `<|endoftext|>` read from its `vocab.json`).
        """
        check_special_ids(special_tokens)
        promoted = set()
        for token, idx in special_tokens.items():
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
        # The vocab gains the new ids (and loses the old id of a token registered again).
        for token, idx in special_tokens.items():
            old = self.special_tokens.get(token)
            if old is not None and old != idx:
                del self.vocab[old]
            self.vocab[idx] = token.encode("utf-8")
        self.special_tokens = {**self.special_tokens, **special_tokens}

    # -- encoding --------------------------------------------------------------
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating any special-token strings as ordinary text.

        Real text repeats its chunks (" the", ",", "\n\n") over and over, so
        each distinct chunk is encoded once and then looked up in a cache.
        The split itself is `self.compiled_pattern.findall(text)`, done
        faster by `split_pretokens` for the three GPT patterns.
        """
        check_text(text)
        cache = self._cache
        ids: list[int] = []
        try:
            for chunk in split_pretokens(text, self.compiled_pattern):
                try:
                    ids += cache[chunk]
                except KeyError:            # a chunk not seen yet: encode it now
                    chunk_ids = self.encode_chunk(chunk.encode("utf-8"))
                    if len(chunk) <= CACHE_MAX_CHUNK:       # long chunks rarely repeat
                        cache[chunk] = chunk_ids
                    ids += chunk_ids
        except UnicodeEncodeError:          # a lone surrogate: do as tiktoken does
            return self.encode_ordinary(fix_surrogates(text))
        if len(cache) > CACHE_SIZE:         # keep the cache bounded: start afresh
            cache.clear()
        return ids

    def encode(self, text: str, allowed_special="none_raise",
               disallowed_special="all", *, dropout: float = 0.0,
               rng: random.Random | None = None) -> list[int]:
        """Encode text; special tokens are handled as `allowed_special` says.

        See `bpe_course.special` for the modes, and for `disallowed_special`,
        which means what it means in tiktoken. The default refuses text that
        contains a registered special token, as tiktoken does.

        With `dropout` > 0, BPE-dropout (chapter 12, see `bpe_course.dropout`): each
        applicable merge is skipped with that probability at every step, drawing from
        `rng` (a `random.Random`); special tokens are never split.
        """
        check_text(text)
        allowed = resolve_allowed(allowed_special, self.special_tokens)
        check_disallowed(text, resolve_disallowed(disallowed_special, allowed_special,
                                                  allowed, self.special_tokens))
        if dropout:
            rng = check_dropout(dropout, rng)
        ids: list[int] = []
        for part in split_special(text, allowed) if allowed else [text]:
            if part in allowed:
                ids.append(self.special_tokens[part])
            elif dropout:
                chunks = split_pretokens(fix_surrogates(part), self.compiled_pattern)
                ids += encode_chunks_with_dropout(self, [c.encode("utf-8") for c in chunks],
                                                  dropout, rng)
            else:
                ids += self.encode_ordinary(part)
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

def number_vocab(vocab: dict[int, bytes] | None, merges: list[tuple[bytes, bytes]],
                 special_tokens: list[str] | None,
                 ) -> tuple[list[int], dict[tuple[int, int], int], dict[str, int],
                            dict[int, bytes]]:
    """Check a vocabulary and its merges; return its byte ids, merges, special tokens and
    unreachable tokens. The one check of merges and of their vocabulary: `from_merges`,
    `from_vocab_merges` and the Hugging Face files all come through here.

    The course's trainers hand out ids in merge order (bytes 0..255, then merge k
    is 256 + k), so an id is also a rank (see `base`); pass `vocab=None` for that
    numbering. Other vocabularies give their tokens any ids: CS336's `train_bpe`
    puts special tokens first, Hugging Face's files store whatever ids the trainer
    chose. `vocab` maps id -> bytes, `merges` lists `(left bytes, right bytes)` in
    the order they were learned. The result is in the vocabulary's own ids: the id
    of each byte, each merge as ids, the special tokens (a token found in `vocab`
    keeps its id, the others get the ids after the largest), and the unreachable
    tokens: entries that no merge makes and that are not special (id -> bytes;
    decodable, never encoded). Inconsistent input raises ValueError saying what is
    wrong.

    >>> vocab = {0: b"<|eot|>", **{1 + b: bytes([b]) for b in range(256)},
    ...          300: b"lo", 299: b"llo", 400: b"hello"}   # any ids, merges in learned order
    >>> byte_ids, pairs, specials, unreachable = number_vocab(
    ...     vocab, [(b"l", b"o"), (b"l", b"lo")], ["<|eot|>", "<|pad|>"])
    >>> byte_ids[ord("l")], byte_ids[ord("o")], pairs
    (109, 112, {(109, 112): 300, (109, 300): 299})
    >>> specials, unreachable
    ({'<|eot|>': 0, '<|pad|>': 401}, {400: b'hello'})
    >>> number_vocab(None, [(b"l", b"o"), (b"l", b"lo")], ["<|eot|>"])[1:3]
    ({(108, 111): 256, (108, 256): 257}, {'<|eot|>': 258})
    """
    singles = [bytes([b]) for b in range(256)]
    if vocab is None:                   # ids in merge order: each merge's id is made below
        vocab = dict(enumerate(singles))
        in_merge_order = True
    elif not isinstance(vocab, dict):
        raise TypeError(f"vocab must be a dict id -> bytes, got {type(vocab).__name__}")
    else:
        in_merge_order = False
    id_of: dict[bytes, int] = {}
    for idx, token in vocab.items():
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise ValueError(f"vocab ids must be non-negative ints, got {idx!r}")
        if not isinstance(token, (bytes, bytearray)) or not token:
            raise ValueError(f"vocab[{idx}] must be non-empty bytes, got {token!r}")
        if bytes(token) in id_of:
            raise ValueError(f"ids {id_of[bytes(token)]} and {idx} are both {token!r}")
        id_of[bytes(token)] = idx
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
            raise ValueError(f"merge {k}, ({a!r}, {b!r}), makes {a + b!r} a second time; "
                             f"give each token one merge")
        if in_merge_order:
            id_of[a + b] = 256 + k
        elif a + b not in id_of:
            raise ValueError(f"merge {k}, ({a!r}, {b!r}), makes {a + b!r}, which vocab lacks")
        made.add(a + b)
        pairs[id_of[a], id_of[b]] = id_of[a + b]
    specials: dict[str, int] = {}
    next_id = max(id_of.values()) + 1
    for token in check_special_tokens(special_tokens or ()):
        data = token.encode("utf-8")
        if data in id_of and data not in made:
            specials[token] = id_of[data]
        else:
            specials[token], next_id = next_id, next_id + 1
    taken = set(specials.values())
    unreachable = {idx: token for token, idx in id_of.items()
                   if token not in made and idx not in taken}
    return [id_of[t] for t in singles], pairs, specials, unreachable
