"""Models: what turns one pre-token into tokens, the part the earlier chapters built.

Each model's `tokenize(word)` returns `(id, token, (start, end))` for each token, the
offsets in characters of `word`; `id_to_token` and `token_to_id` look ids up.

- `BPE`: merges by rank, as chapter 03's `encode` does, over characters instead of bytes
  (a byte-level file has already written each byte as one character, `ByteLevel`).
  Options: `continuing_subword_prefix` (a piece inside a word is stored as "##ing"),
  `end_of_word_suffix` (a word's last piece as "ing</w>"), `byte_fallback` (an unknown
  character becomes its UTF-8 bytes, `<0xE2>`...), `unk_token` with `fuse_unk`, and
  `ignore_merges` (a word in the vocabulary is one token, merges or not), and `dropout`
  (BPE-dropout: merges skipped at random, as the library draws them; see `merge_all`).
- `WordPiece`: greedy longest-match-first (`wordpiece.WordPiece` does the matching).
- `Unigram`: the best-scoring segmentation (Viterbi), as `tokenizers` scores it: in
  64-bit floats, unknown characters at the lowest score minus 10, runs of unknowns fused.
- `WordLevel`: no model at all, one word one token (or the unknown token).

>>> bpe = BPE({"a": 0, "b": 1, "ab": 2, "abb": 3}, [("a", "b"), ("ab", "b")])
>>> bpe.tokenize("abbab")
[(3, 'abb', (0, 3)), (2, 'ab', (3, 5))]
>>> bpe.dropout = 1.0                            # BPE-dropout at 1: nothing merges
>>> [token for _, token, _ in bpe.tokenize("abbab")]
['a', 'b', 'b', 'a', 'b']
"""

from __future__ import annotations

import heapq
import math
import random

from ..dropout import check_dropout
from ..sentencepiece.unigram import f32
from ..wordpiece.tokenizer import WordPiece as _WordPiece


class BPE:
    """BPE over the characters of a word, with `tokenizers`' options."""

    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]], unk_token=None,
                 continuing_subword_prefix=None, end_of_word_suffix=None, fuse_unk=False,
                 byte_fallback=False, ignore_merges=False, dropout=None):
        self.vocab, self.inverse = vocab, {i: t for t, i in vocab.items()}
        self.unk_token, self.fuse_unk, self.byte_fallback = unk_token, fuse_unk, byte_fallback
        self.prefix, self.suffix = continuing_subword_prefix or "", end_of_word_suffix or ""
        self.ignore_merges = ignore_merges
        self.dropout = dropout
        # (left id, right id) -> (rank, id of the joined token)
        self.merges: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (left, right) in enumerate(merges):
            for part in (left, right):
                if part not in vocab:
                    raise ValueError(f"merge {rank} ({left!r} {right!r}): {part!r} is not in "
                                     f"the vocabulary")
            joined = left + (right[len(self.prefix):] if self.prefix and
                             right.startswith(self.prefix) else right)
            if joined not in vocab:
                raise ValueError(f"merge {rank} makes {joined!r}, which is not in the "
                                 f"vocabulary")
            self.merges.setdefault((vocab[left], vocab[right]), (rank, vocab[joined]))

    @property
    def dropout(self) -> float | None:
        """The probability of skipping a merge (BPE-dropout), or None: plain BPE.

        As in `tokenizers` (`tok.model.dropout = None` switches it off), the value is held
        as a 32-bit float: `0.1` reads back as `0.10000000149011612`. Setting it to a
        number outside [0, 1] is a ValueError here (the library's setter would take it)."""
        return self._dropout

    @dropout.setter
    def dropout(self, value) -> None:
        if value is not None:
            value = as_f32(value)
            check_dropout(value, rng=random)    # only its checks: no generator is needed
        self._dropout = value

    def id_to_token(self, i: int) -> str | None:
        return self.inverse.get(i)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def symbols(self, word: str) -> list[list]:
        """The word's starting symbols `[id, start, end]`, in UTF-8 bytes of the word: one
        per character (with the prefix inside the word and the suffix at its end), or the
        bytes of that piece (`byte_fallback`), or the unknown token.

        Subtle, and copied from `tokenizers` (`merge_word`): each symbol's span is where the
        previous one ended plus its own length, so a character dropped (no unknown token)
        shifts the spans after it; and a pending unknown is only written when a known
        piece or another unknown comes, so byte tokens can come before it."""
        out, cursor = [], 0
        unk_id = self.vocab.get(self.unk_token) if self.unk_token else None
        if self.unk_token and unk_id is None:
            raise ValueError(f"the unknown token {self.unk_token!r} is not in the vocabulary")
        pending = None                      # an unknown not yet written: its length in bytes

        def add(i: int, length: int) -> None:
            nonlocal cursor
            out.append([i, cursor, cursor + length])
            cursor += length

        for k, char in enumerate(word):
            size = len(char.encode("utf-8"))
            piece = (self.prefix if k else "") + char + (self.suffix if k == len(word) - 1
                                                          else "")
            i = self.vocab.get(piece)
            if i is not None:
                if pending is not None:
                    add(unk_id, pending)
                    pending = None
                add(i, size)
                continue
            if self.byte_fallback:
                ids = [self.vocab.get(f"<0x{b:02X}>") for b in piece.encode("utf-8")]
                if None not in ids:
                    for i in ids:
                        add(i, 1)
                    continue
            if unk_id is not None:
                if pending is not None and self.fuse_unk:
                    pending += size             # the unknown grows by this character
                else:
                    if pending is not None:
                        add(unk_id, pending)
                    pending = size
            # without an unknown token, the character is dropped
        if pending is not None:
            add(unk_id, pending)
        return out

    def tokenize(self, word: str, rng: random.Random | None = None
                 ) -> list[tuple[int, str, tuple[int, int]]]:
        """The word's tokens `(id, token, (start, end))`. With `dropout` set, a fresh
        draw from `rng` (by default a new unseeded generator) each call.

        Subtle, and copied from `tokenizers` (`BPE::tokenize`): with a dropout above 0 the
        library goes straight to the merges, past its cache and past `ignore_merges`, so a
        word of the vocabulary is split like any other; a dropout of 0 is no dropout."""
        if not word:
            return []
        sampling = bool(self.dropout)
        if not sampling and self.ignore_merges and word in self.vocab:
            return [(self.vocab[word], word, (0, len(word)))]
        if sampling:
            rng = check_dropout(self.dropout, rng)
        # byte offsets -> the characters that hold those bytes (as tokenizers' alignments do)
        char_of_byte = [k for k, char in enumerate(word) for _ in char.encode("utf-8")]
        last = len(char_of_byte) - 1
        return [(i, token, (char_of_byte[min(start, last)], char_of_byte[min(end - 1, last)] + 1)
                 if end > start else (len(word), len(word)))
                for i, token, (start, end) in self.merge_all(
                    self.symbols(word), self.dropout if sampling else None, rng)]

    def merge_all(self, symbols: list[list], dropout: float | None = None,
                  rng: random.Random | None = None) -> list[tuple[int, str, tuple[int, int]]]:
        """Merge the lowest-ranked pair, the leftmost among equals, until none is left.

        As `tokenizers` does it (`Word::merge_all` in `tokenizers/src/models/bpe/word.rs`):
        a heap of candidate merges `(rank, position, id it makes)` and the symbols as a
        linked list, so that a long word (a whole text, without a pre-tokenizer) takes
        n log n steps, not n².

        Subtle: a heap entry is checked when it comes out, and `tokenizers` accepts it if
        the pair now at its position makes the same id. Two merges can make the same token
        ("a bc" and "ab c"), so this is not quite "the pair is unchanged"; it is copied.

        With `dropout` (a probability, drawing from `rng`), the library's BPE-dropout:
        every entry popped from the heap is set aside with probability `dropout`; an entry
        that is not set aside first puts every set-aside entry back on the heap, then is
        applied as above, or thrown away if stale. When the heap runs empty the loop ends
        and the entries still set aside are never applied (with `dropout` = 1, none is).

        This is not quite the paper's Algorithm 1 (`bpe_course.dropout`), which at every
        step draws once for each pair that can merge now and applies the best survivor.
        Were the heap only those pairs, the two would agree: the k-th pair in order is
        applied with probability p^(k-1)·(1-p) in both. But a merge leaves *stale* entries
        behind (the pairs it broke up on either side), and a stale entry still takes a
        draw: when it is not set aside it puts the set-aside merges back for another draw
        and is thrown away: a second chance the paper has no counterpart for. In "abab"
        with the merges "a b", "b a", "b ab" and p = 0.1, "ab a b" (the right "a b"
        skipped) comes out with probability 0.9·0.1 = 0.09 in the paper; in the library
        the stale "b a" gives that "a b" another draw: 0.9·0.1·(0.1 + 0.9·0.1) = 0.0171.
        Real vocabularies are full of such entries, and ordinary words come out whole
        more often than under the paper's loop (tests/parity/
        test_tokenizer_json_dropout.py measures these gaps).
        """
        threshold = dropout if dropout else None
        n = len(symbols)
        ids = [sym[0] for sym in symbols]
        ends = [sym[2] for sym in symbols]
        nxt, prv = list(range(1, n + 1)), list(range(-1, n - 1))
        alive = [True] * n
        merges = self.merges
        heap = [(merges[pair][0], i, merges[pair][1]) for i, pair in
                enumerate(zip(ids, ids[1:])) if pair in merges]
        heapq.heapify(heap)
        skipped = []                            # `skip` in word.rs
        while heap:                             # `while let Some(top) = queue.pop()`
            top = heapq.heappop(heap)
            # `if dropout.map(|d| rng().random::<f32>() < d)...`: set it aside
            if threshold is not None and f32_draw(rng) < threshold:
                skipped.append(top)
                continue
            for entry in skipped:               # `queue.extend(skip.drain(..))`
                heapq.heappush(heap, entry)
            skipped.clear()
            rank, i, made = top
            j = nxt[i]
            if not alive[i] or j >= n or merges.get((ids[i], ids[j]), (0, None))[1] != made:
                continue                        # stale: the pair here has changed
            ids[i], ends[i], alive[j] = made, ends[j], False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            for left in (prv[i], i):            # the new pairs on each side
                right = nxt[left] if left >= 0 else n
                if left >= 0 and right < n and (ids[left], ids[right]) in merges:
                    r, new = merges[(ids[left], ids[right])]
                    heapq.heappush(heap, (r, left, new))
        return [(ids[i], self.inverse[ids[i]], (symbols[i][1], ends[i]))
                for i in range(n) if alive[i]]   # spans as the symbols' (here: bytes)


def as_f32(value):
    """`value` rounded to a 32-bit float (`f32`), as `tokenizers` holds a dropout
    (`Option<f32>`); anything but a number is returned as it is (for `check_dropout` to
    refuse)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    try:
        return f32(value)
    except OverflowError:                       # beyond a 32-bit float: out of range anyway
        return float(value)


def f32_draw(rng: random.Random) -> float:
    """A uniform draw in [0, 1) as the `rand` crate makes an `f32`: 24 random bits over
    2**24. So `f32_draw(rng) < p` is true with probability `ceil(p * 2**24) / 2**24`,
    exactly the library's chance of skipping a merge."""
    return math.floor(rng.random() * 2**24) / 2**24


class WordPiece:
    """`tokenizers`' WordPiece model over the course's greedy longest-match-first."""

    def __init__(self, vocab: dict[str, int], unk_token="[UNK]", continuing_subword_prefix="##",
                 max_input_chars_per_word=100):
        self.matcher = _WordPiece(vocab, unk_token, continuing_subword_prefix,
                                  max_input_chars_per_word)
        self.vocab, self.inverse = self.matcher.vocab, self.matcher.inverse

    def id_to_token(self, i: int) -> str | None:
        return self.inverse.get(i)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def tokenize(self, word: str):
        return [(self.vocab[piece], piece, (start, end))
                for piece, start, end in self.matcher._pieces(word)]


class Unigram:
    """`tokenizers`' Unigram: the segmentation with the highest total score."""

    UNK_PENALTY = 10.0

    def __init__(self, vocab: list[tuple[str, float]], unk_id: int | None = None,
                 byte_fallback: bool = False):
        self.pieces = [piece for piece, _ in vocab]
        self.scores = [float(score) for _, score in vocab]
        self.vocab = {}
        for i, piece in enumerate(self.pieces):
            self.vocab.setdefault(piece, i)
        self.unk_id, self.byte_fallback = unk_id, byte_fallback
        self.min_score = min(self.scores, default=0.0)
        self.prefixes = {piece[:k] for piece in self.vocab for k in range(1, len(piece) + 1)}

    def id_to_token(self, i: int) -> str | None:
        return self.pieces[i] if 0 <= i < len(self.pieces) else None

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def segment(self, word: str) -> list[str]:
        """The best path's pieces (Viterbi); unknown characters fused into one piece."""
        n, unk_score = len(word), self.min_score - self.UNK_PENALTY
        best = [0.0] * (n + 1)
        start_of: list[int | None] = [None] * (n + 1)
        id_of = [-1] * (n + 1)
        for start in range(n):
            here, single = best[start], False
            for end in range(start + 1, n + 1):
                piece = word[start:end]
                if piece not in self.prefixes:
                    break
                i = self.vocab.get(piece)
                if i is None:
                    continue
                score = self.scores[i] + here
                if start_of[end] is None or score > best[end]:
                    best[end], start_of[end], id_of[end] = score, start, i
                single = single or end == start + 1
            if not single:
                score = unk_score + here
                if start_of[start + 1] is None or score > best[start + 1]:
                    best[start + 1], start_of[start + 1], id_of[start + 1] = \
                        score, start, self.unk_id
        pieces, unknown, end = [], [], n
        while end > 0:
            start = start_of[end]
            if self.unk_id is not None and id_of[end] == self.unk_id:
                unknown.append(word[start:end])
            else:
                if unknown:
                    pieces.append("".join(reversed(unknown)))
                    unknown = []
                pieces.append(word[start:end])
            end = start
        if unknown:
            pieces.append("".join(reversed(unknown)))
        return pieces[::-1]

    def tokenize(self, word: str):
        out, offset = [], 0
        for piece in self.segment(word):
            span = (offset, offset + len(piece))
            offset += len(piece)
            i = self.vocab.get(piece)
            if i is None and self.byte_fallback:
                ids = [self.vocab.get(f"<0x{b:02X}>") for b in piece.encode("utf-8")]
                if None not in ids:
                    out.extend((i, f"<0x{b:02X}>", span)
                               for i, b in zip(ids, piece.encode("utf-8")))
                    continue
            if i is None:
                if self.unk_id is None:
                    raise ValueError(f"{piece!r} is unknown and the Unigram model has no "
                                     f"unk_id")
                i = self.unk_id
            out.append((i, piece, span))
        return out


class WordLevel:
    """Each word is a token of the vocabulary, or the unknown token."""

    def __init__(self, vocab: dict[str, int], unk_token: str = "<unk>"):
        self.vocab, self.inverse = vocab, {i: t for t, i in vocab.items()}
        self.unk_token = unk_token

    def id_to_token(self, i: int) -> str | None:
        return self.inverse.get(i)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def tokenize(self, word: str):
        if word in self.vocab:
            return [(self.vocab[word], word, (0, len(word)))]
        if self.unk_token not in self.vocab:
            raise ValueError(f"{word!r} is not in the vocabulary and the unknown token "
                             f"{self.unk_token!r} is not either")
        return [(self.vocab[self.unk_token], self.unk_token, (0, len(word)))]
